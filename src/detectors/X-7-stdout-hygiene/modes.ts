import { Node, SyntaxKind, ts, type Identifier, type SourceFile } from '../../facts/morph.js';
import { declarationOf, initializerOf, isFunctionLike, type FunctionLikeNode } from '../../facts/scope.js';
import { callSitesOf } from '../support/source/call-sites.js';
import { constString } from '../../facts/server-model.js';
import { ofKinds, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { inRegions, libraryRegions } from '../../facts/bundle-regions.js';

/**
 * which writes never run when the server is started on stdio. A stdout write is harmless on stdio
 * when it sits on a path the stdio mode never takes:
 *
 *   - a branch for a command-line request that answers and stops instead of serving: `--help`, `-h`,
 *     `--version`, `--list-tools` and the like (`if (argv['list-tools'])`, `x === '--help' && (…)`,
 *     `process.argv.includes('--version')`);
 *   - a branch of another transport: its condition selects HTTP, SSE or Streamable HTTP (`transport ===
 *     'http'`, `case 'sse':`, `if (process.env.ENABLE_SSE_TRANSPORT)`, `mode !== 'stdio'`, a field or
 *     const holding such a test), or a sibling branch of the same `if` starts the stdio transport while
 *     this one does not;
 *   - a clause of a command switch that ends without serving while another clause starts stdio (`case 'auth': …
 *     break;`, `default: showHelp(); process.exit(1)`);
 *   - a function whose every call site in the files read is on such a path (`listTools()` called only
 *     under `--list-tools`, `startSSEServer()` called only on the SSE branch), followed three calls up; a callback
 *     handed to a call, or given in an options object to a call (`new DeviceCodeCredential({ userPromptCallback })`),
 *     has that call as its site.
 *
 *   - a branch for a serverless or edge runtime (`if (isServerless())`, `if (isCloudflareWorker)`, `process.env.AWS_LAMBDA_…`):
 *     such a runtime has no stdio transport, so the stdio server never takes it;
 *   - the handler of a command-line subcommand other than the server's: a yargs command module (`{ command: 'init',
 *     handler }`) or a commander command (`.command('init').action(fn)`) whose name is not the default (`$0`, `*`) or a
 *     serving word (`serve`, `start`, `stdio`…) and whose handler does not start stdio (a handler calling a starter
 *     with literal arguments that rule its stdio branch out, `launch('http', port)`, does not); a subcommand named for
 *     another transport (`http`, `sse`, `serve-http`…) never serves stdio, whatever it calls;
 *   - a branch that runs only outside a Node server process (`typeof process === 'undefined'`, `process.type ===
 *     'renderer'`, `process.browser`, `typeof window !== 'undefined'`), and a bundled module loaded only there (debug's
 *     `browser.js`, which its `index.js` requires under that test): an esbuild `__commonJS` module runs where its
 *     `require_x()` is called, a webpack module where its path is required, and a function that nothing calls by name
 *     (`exports.log = log`) exists only once the code around it has run;
 *   - the bundled code of a command-line parser (yargs, commander, cac, meow…: an esbuild module region under
 *     `node_modules/<parser>/`), which prints only the help, version and usage-error texts a command line asks for;
 *
 * Conditions are read syntactically (`!`, `&&`, `||`, comparisons with literals, a const or class field
 * holding a condition, one level); anything else is taken as a path stdio may take.
 */

const CLI_ONLY = /^-{1,2}(?:h|help|v|V|version|list[-_]?tools|tools|list|print[-_]?(?:config|tools|schema)|dump[-_]?(?:config|tools|schema)|usage|schema|generate[-_]?config|init|setup|config[-_]?example)$/;
const CLI_ONLY_NAME = /^(?:help|h|version|v|listTools|list_tools|list-tools|printTools|printConfig|dumpTools|dumpSchema|usage|showHelp|showVersion)$/;
const HTTP_MODE = /^(?:https?|sse|streamable[-_]?https?|streamableHttp|httpStream|http[-_]?stream|streamable|remote|web|server[-_]?sent[-_]?events)$/i;
const HTTP_ENV = /(?:^|_)(?:SSE|HTTP|HTTPS|STREAMABLE|PORT|CLOUD[-_]?SERVICE|REMOTE)(?:_|$)/;
/** A serverless or edge runtime, which has no stdio transport: `isServerless`, `IS_LAMBDA`, `isCloudflareWorker`, `inEdgeRuntime`. */
const SERVERLESS = /^(?:is|in|on|running|run)?[-_]?(?:serverless|aws[-_]?lambda|lambda|cloudflare[-_]?workers?|workers?[-_]?runtime|edge[-_]?runtime|vercel[-_]?edge|deno[-_]?deploy)(?:[-_]?(?:env|environment|runtime|mode|function[-_]?name))?$/i;
/** Subcommand names that are (or may be) the server's own: the default command and the serving words. */
const SERVING_COMMAND = /^(?:\$0|\*|serve|server|start|run|stdio|mcp|default|main)$/i;
/** A subcommand named for another transport (`http`, `sse`, `serve-http`, `start:sse`, `http-server`, `web`): it never serves stdio. */
const otherTransportCommand = (name: string): boolean =>
  HTTP_MODE.test(name.replace(/^(?:serve|start|run)[-_:]?(?=.)/i, '').replace(/(?<=.)[-_:]?(?:server|mode|transport)$/i, ''));
/** Command-line parsers whose bundled code prints only help, version and usage errors. */
export const CLI_PARSERS = new Set(['yargs', 'commander', 'cac', 'meow', 'sade', 'clipanion', 'citty', 'cleye']);
const STDIO_STARTERS = new Set(['serveStdio', 'StdioServerTransport']);
/**
 * `-v` / `v` names `--version` in some programs and `--verbose` in others (commander's `.option('-v', 'verbose
 * logging')`): a branch under it is taken for a version answer only when it ends without serving (it exits, returns
 * or throws, or prints a version); otherwise it is a switch of the running server, which stdio mode may take.
 */
const AMBIGUOUS_FLAG = /^(?:-v|v)$/;

/** Does this branch (a statement, a block, an expression) end without serving: a last step that exits, returns or throws, or a version print? */
function stopsWithoutServing(self: Node): boolean {
  if (startsStdio(self)) return false;
  let last: Node | undefined = unwrap(self);
  if (Node.isBlock(last)) last = last.getStatements().at(-1);
  if (last && Node.isExpressionStatement(last)) last = unwrap(last.getExpression());
  while (last && Node.isBinaryExpression(last) && last.getOperatorToken().getKind() === SyntaxKind.CommaToken) last = unwrap(last.getRight());
  if (!last) return false;
  return Node.isReturnStatement(last) || Node.isThrowStatement(last) || /^process\.exit\s*\(/.test(last.getText()) || printsVersion(last);
}

const PRINT_CALL = /^(?:console\.(?:log|info|error|warn)|process\.(?:stdout|stderr)\.write)$/;
const VERSION_NAME = /^(?:version|VERSION|\w*Version|\w*_VERSION|\w*_version)$/;

/**
 * Is this step a version print: `program.version()` / `cli.showVersion()`, or a console/stdout print of a version
 * value (`console.log(pkg.version)`, `` console.log(`${name} ${VERSION}`) ``)? A mere word "version" in a message
 * (`verbose logging on (server version …)`) is not one.
 */
function printsVersion(step: Node): boolean {
  const u = unwrap(step);
  if (!Node.isCallExpression(u)) return false;
  const callee = unwrap(u.getExpression());
  if (Node.isPropertyAccessExpression(callee) && /^(?:version|showVersion|printVersion)$/.test(callee.getName())) return true;
  if (Node.isIdentifier(callee) && /^(?:showVersion|printVersion)$/.test(callee.getText())) return true;
  if (!PRINT_CALL.test(callee.getText().replace(/\s+/g, ''))) return false;
  const names = (n: Node): boolean =>
    (Node.isPropertyAccessExpression(n) && VERSION_NAME.test(n.getName())) || (Node.isIdentifier(n) && VERSION_NAME.test(n.getText()));
  return u.getArguments().some((a) => names(a) || a.getDescendants().some(names));
}

type Branch = 'then' | 'else';

/** The name a condition operand reads: `argv['list-tools']` → list-tools, `opts.help` → help, `process.env.X` → X. */
function operandName(n: Node): string | undefined {
  const u = unwrap(n);
  if (Node.isPropertyAccessExpression(u)) return u.getName();
  if (Node.isElementAccessExpression(u)) return constString(u.getArgumentExpression())?.value;
  if (Node.isIdentifier(u)) return u.getText();
  return undefined;
}

const isEnvRead = (n: Node): boolean => /\bprocess\.env\b|\benv\b/.test(unwrap(n).getText());

/** What a literal compared with says about the branch where the comparison holds: 'cli', 'http', 'stdio' or nothing. */
function literalMode(v: string, self?: Node): 'cli' | 'http' | 'stdio' | undefined {
  if (AMBIGUOUS_FLAG.test(v)) return self && stopsWithoutServing(self) ? 'cli' : undefined;
  if (CLI_ONLY.test(v)) return 'cli';
  if (v.toLowerCase() === 'stdio') return 'stdio';
  if (HTTP_MODE.test(v)) return 'http';
  return undefined;
}

/**
 * `process.stdout.isTTY`, `stdout.isTTY` (and stdin's): false when the server serves on stdio, where its client
 * holds both ends as pipes, so the branch where it is true never runs there.
 */
function readsTerminal(n: Node): boolean {
  const u = unwrap(n);
  return Node.isPropertyAccessExpression(u) && u.getName() === 'isTTY' && /^(?:process\.)?(?:stdout|stdin)$/.test(unwrap(u.getExpression()).getText().replace(/\s+/g, ''));
}

/**
 * Is the given branch of a condition one that never runs in stdio mode? `depth` bounds the following of
 * consts and fields. `self`, when known, is the code of that branch (it tells a `-v` for version from one for verbose).
 */
export function neverStdio(cond: Node, branch: Branch, depth = 0, self?: Node): boolean {
  const c = unwrap(cond);
  if (depth > 3) return false;
  if (Node.isPrefixUnaryExpression(c) && c.getOperatorToken() === SyntaxKind.ExclamationToken) return neverStdio(c.getOperand(), branch === 'then' ? 'else' : 'then', depth, self);
  if (Node.isBinaryExpression(c)) {
    const op = c.getOperatorToken().getKind();
    const l = c.getLeft();
    const r = c.getRight();
    if (op === SyntaxKind.BarBarToken) {
      // then: either holds, so both must be non-stdio; else: both fail, so one non-stdio else suffices.
      return branch === 'then' ? neverStdio(l, 'then', depth, self) && neverStdio(r, 'then', depth, self) : neverStdio(l, 'else', depth, self) || neverStdio(r, 'else', depth, self);
    }
    if (op === SyntaxKind.AmpersandAmpersandToken) {
      return branch === 'then' ? neverStdio(l, 'then', depth, self) || neverStdio(r, 'then', depth, self) : neverStdio(l, 'else', depth, self) && neverStdio(r, 'else', depth, self);
    }
    const eq = op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken;
    const ne = op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken;
    if (eq || ne) {
      // Outside a Node process: where `typeof process === 'undefined'` or `process.type === 'renderer'` holds.
      const away = notNode(l, r) ?? notNode(r, l);
      if (away !== undefined) return branch === (away === eq ? 'then' : 'else');
      // `process.stdout.isTTY === true` holds on a terminal only; `=== false` / `=== undefined` where stdio serves.
      const tty = readsTerminal(l) ? r : readsTerminal(r) ? l : undefined;
      if (tty) {
        const k = unwrap(tty).getText();
        if (k !== 'true' && k !== 'false' && k !== 'undefined') return false;
        const holds: Branch = eq ? 'then' : 'else';
        return k === 'true' ? branch === holds : branch !== holds;
      }
      const lit = constString(r) ?? constString(l);
      const other = constString(r) ? l : r;
      if (!lit) return false;
      const holds: Branch = eq ? 'then' : 'else';
      const mode = literalMode(lit.value, self);
      if (mode === 'cli' || mode === 'http') return branch === holds;
      // `transport === 'stdio'`: where it fails, the server runs another transport.
      if (mode === 'stdio') return branch !== holds;
      // `process.env.ENABLE_SSE === 'true'`: where it holds, an HTTP mode is on.
      if (/^(?:true|1|yes|on)$/i.test(lit.value) && isEnvRead(other) && HTTP_ENV.test(operandName(other) ?? '')) return branch === holds;
      return false;
    }
    return false;
  }
  if (Node.isCallExpression(c)) {
    // process.argv.includes('--help'), args.has('--list-tools'), argv.some((a) => a === '--version').
    const callee = unwrap(c.getExpression());
    // isServerless(), runtime.isCloudflareWorker(): a runtime without stdio.
    const called = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if (SERVERLESS.test(called) && c.getArguments().length === 0) return branch === 'then';
    if (Node.isPropertyAccessExpression(callee) && ['includes', 'has', 'indexOf'].includes(callee.getName())) {
      const v = constString(c.getArguments()[0])?.value;
      if (v !== undefined && literalMode(v, self) === 'cli') return branch === 'then';
    }
    return false;
  }
  if (readsTerminal(c)) return branch === 'then';
  // `process.browser`, `process.__nwjs`: set by a browser shim or NW.js, never in the node that serves stdio.
  if (/^process\.(?:browser|__nwjs)$/.test(c.getText().replace(/\s+/g, ''))) return branch === 'then';
  // A flag read as a value: `argv['list-tools']`, `options.help`, `process.env.ENABLE_UNSAFE_SSE_TRANSPORT`.
  const name = operandName(c);
  if (name !== undefined && AMBIGUOUS_FLAG.test(name)) return branch === 'then' && !!self && stopsWithoutServing(self);
  if (name !== undefined && (CLI_ONLY_NAME.test(name) || CLI_ONLY.test(name) || SERVERLESS.test(name) || (isEnvRead(c) && HTTP_ENV.test(name)))) return branch === 'then';
  // A const or a class field holding a condition: `const useHttp = transport === 'http'`, `this.shouldLog`.
  const held = heldCondition(c);
  return held ? neverStdio(held, branch, depth + 1, self) : false;
}

/**
 * A comparison whose holding says the code runs outside a Node server process (a browser, an Electron renderer, a
 * browser shim): `typeof process === 'undefined'` (true), `typeof window === 'undefined'` / `typeof document` (false:
 * they are defined only there), `process.type === 'renderer'`, `process.browser === true` (true). Undefined when the
 * comparison is none of these. `a` is the operand read, `b` the literal.
 */
function notNode(a: Node, b: Node): boolean | undefined {
  const u = unwrap(a);
  const lit = constString(b)?.value ?? (unwrap(b).getText() === 'true' ? 'true' : undefined);
  if (lit === undefined) return undefined;
  if (Node.isTypeOfExpression(u) && lit === 'undefined') {
    const of = unwrap(u.getExpression()).getText();
    return of === 'process' ? true : /^(?:window|document)$/.test(of) ? false : undefined;
  }
  const t = u.getText().replace(/\s+/g, '');
  if ((t === 'process.type' && lit === 'renderer') || (t === 'process.browser' && lit === 'true')) return true;
  return undefined;
}

/** The condition a const or a class field holds, if the operand is one. */
function heldCondition(n: Node): Node | undefined {
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const decl = d?.getParent();
    const list = decl?.getParent();
    return d && Node.isVariableDeclaration(decl) && Node.isVariableDeclarationList(list) && list.getFlags() & ts.NodeFlags.Const ? initializerOf(d) : undefined;
  }
  if (Node.isPropertyAccessExpression(n) && Node.isThisExpression(unwrap(n.getExpression()))) {
    const cls = n.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
    if (cls && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) return cls.getProperty(n.getName())?.getInitializer();
  }
  return undefined;
}

/** Does this subtree start the stdio transport? */
function startsStdio(n: Node, skip: Node[] = []): boolean {
  return ofKinds(n.getSourceFile(), [SyntaxKind.CallExpression, SyntaxKind.NewExpression]).some((x) => {
    if (x.getStart() < n.getStart() || x.getEnd() > n.getEnd()) return false;
    if (skip.some((s) => x.getStart() >= s.getStart() && x.getEnd() <= s.getEnd())) return false;
    if (!Node.isCallExpression(x) && !Node.isNewExpression(x)) return false;
    const e = unwrap(x.getExpression());
    const name = Node.isIdentifier(e) ? e.getText() : Node.isPropertyAccessExpression(e) ? e.getName() : '';
    return STDIO_STARTERS.has(name);
  });
}

/**
 * A clause of a command switch that serves no stdio: another clause starts the stdio transport, this one does not and
 * ends without falling through (`break`, `return`, `throw`, `process.exit(…)`): `case 'auth': await login(); break;`,
 * `default: console.error('Unknown command'); showHelp(); process.exit(1)`.
 */
function otherCommand(clause: Node, sw: Node): boolean {
  if (!(Node.isCaseClause(clause) || Node.isDefaultClause(clause)) || !Node.isSwitchStatement(sw)) return false;
  const last = clause.getStatements().at(-1);
  if (!last) return false;
  const ends = Node.isBreakStatement(last) || Node.isReturnStatement(last) || Node.isThrowStatement(last) || /^process\.exit\s*\(/.test(last.getText());
  return ends && !servesStdio(clause) && sw.getCaseBlock().getClauses().some((c) => c !== clause && servesStdio(c));
}

/**
 * Does this code start stdio, itself or through the functions it calls by name (`await startMcpServer()`), followed
 * `depth` calls deep (a function imported from another module of the package is followed to its declaration)?
 */
function servesStdio(code: Node, depth = 1, seen = new Set<Node>(), skip: Node[] = []): boolean {
  if (startsStdio(code, skip)) return true;
  if (depth <= 0) return false;
  for (const call of code.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (skip.some((s) => call.getStart() >= s.getStart() && call.getEnd() <= s.getEnd())) continue;
    const callee = unwrap(call.getExpression());
    if (!Node.isIdentifier(callee)) continue;
    const fn = calledFunction(callee);
    if (!fn || seen.has(fn)) continue;
    const settled = settledBranches(fn, call);
    // A function followed with arguments that rule some of its branches out may be called again with others.
    if (settled.length === 0) seen.add(fn);
    if (servesStdio(fn, depth - 1, seen, settled)) return true;
  }
  return false;
}

/**
 * The branches of `fn` that the literal arguments of `call` rule out: with `launch('http', port)`, the branch of
 * `if (mode === 'stdio')` in `function launch(mode, port)` (and the `else` of `mode !== 'stdio'`) is never taken.
 * Only a parameter compared with a string literal (`===`, `==`, `!==`, `!=`, either side) is read.
 */
function settledBranches(fn: Node, call: Node): Node[] {
  if (!isFunctionLike(fn) || !Node.isCallExpression(call)) return [];
  const bound = new Map<string, string>();
  const params = (fn as FunctionLikeNode).getParameters();
  call.getArguments().forEach((a, i) => {
    const p = params[i];
    const v = constString(a)?.value;
    if (p && v !== undefined && Node.isIdentifier(p.getNameNode())) bound.set(p.getName(), v);
  });
  // A parameter the function assigns (`mode = mode.toLowerCase()`) no longer holds the argument.
  for (const b of fn.getDescendantsOfKind(SyntaxKind.BinaryExpression)) {
    const left = unwrap(b.getLeft());
    if (b.getOperatorToken().getKind() >= SyntaxKind.FirstAssignment && b.getOperatorToken().getKind() <= SyntaxKind.LastAssignment && Node.isIdentifier(left)) bound.delete(left.getText());
  }
  if (bound.size === 0) return [];
  const out: Node[] = [];
  const settle = (cond: Node, whenTrue: Node, whenFalse: Node | undefined): void => {
    const c = unwrap(cond);
    if (!Node.isBinaryExpression(c)) return;
    const op = c.getOperatorToken().getKind();
    const equal = op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken;
    if (!equal && op !== SyntaxKind.ExclamationEqualsEqualsToken && op !== SyntaxKind.ExclamationEqualsToken) return;
    const [l, r] = [unwrap(c.getLeft()), unwrap(c.getRight())];
    const id = Node.isIdentifier(l) ? l : Node.isIdentifier(r) ? r : undefined;
    const lit = constString(id === l ? r : l)?.value;
    const v = id ? bound.get(id.getText()) : undefined;
    if (v === undefined || lit === undefined) return;
    const holds = equal ? v === lit : v !== lit;
    if (holds) { if (whenFalse) out.push(whenFalse); } else out.push(whenTrue);
  };
  for (const n of fn.getDescendants()) {
    if (Node.isIfStatement(n)) settle(n.getExpression(), n.getThenStatement(), n.getElseStatement());
    else if (Node.isConditionalExpression(n)) settle(n.getCondition(), n.getWhenTrue(), n.getWhenFalse());
  }
  return out;
}

/** The function an identifier names: a declaration or a const holding one, in this file or imported from one of the package. */
function calledFunction(callee: Identifier): Node | undefined {
  const decl = (d: Node | undefined): Node | undefined => {
    const fn = d && Node.isVariableDeclaration(d) ? d.getInitializer() : d;
    return fn && isFunctionLike(fn) ? fn : undefined;
  };
  const here = decl(declarationOf(callee)?.getParent());
  if (here) return here;
  const aliased = callee.getSymbol()?.getAliasedSymbol()?.getDeclarations()[0];
  return aliased && !aliased.getSourceFile().isInNodeModules() && !aliased.getSourceFile().isDeclarationFile() ? decl(aliased) : undefined;
}

/** The if-statement branches above `node` (innermost first), with which branch holds it. */
function guards(node: Node, stop: Node): { cond: Node; branch: Branch; self: Node; other?: Node }[] {
  const out: { cond: Node; branch: Branch; self: Node; other?: Node }[] = [];
  let cur: Node = node;
  for (let p = cur.getParent(); p && cur !== stop; cur = p, p = p.getParent()) {
    if (Node.isIfStatement(p)) {
      if (cur === p.getThenStatement()) out.push({ cond: p.getExpression(), branch: 'then', self: cur, other: p.getElseStatement() });
      else if (cur === p.getElseStatement()) out.push({ cond: p.getExpression(), branch: 'else', self: cur, other: p.getThenStatement() });
    } else if (Node.isConditionalExpression(p)) {
      if (cur === p.getWhenTrue()) out.push({ cond: p.getCondition(), branch: 'then', self: cur, other: p.getWhenFalse() });
      else if (cur === p.getWhenFalse()) out.push({ cond: p.getCondition(), branch: 'else', self: cur, other: p.getWhenTrue() });
    } else if (Node.isBinaryExpression(p) && p.getRight() === cur) {
      // `flag && (console.log(help()), process.exit(0))`, `ok || console.log(…)`.
      const op = p.getOperatorToken().getKind();
      if (op === SyntaxKind.AmpersandAmpersandToken) out.push({ cond: p.getLeft(), branch: 'then', self: cur });
      else if (op === SyntaxKind.BarBarToken) out.push({ cond: p.getLeft(), branch: 'else', self: cur });
    } else if (Node.isCaseClause(p)) {
      const sw = p.getParent()?.getParent();
      const v = constString(p.getExpression())?.value;
      const mode = v !== undefined ? literalMode(v, p) : undefined;
      if (sw && Node.isSwitchStatement(sw) && (mode === 'http' || mode === 'cli')) out.push({ cond: p.getExpression(), branch: 'then', self: cur });
      else if (sw && Node.isSwitchStatement(sw) && otherCommand(p, sw)) out.push({ cond: p, branch: 'then', self: cur });
    } else if (Node.isDefaultClause(p)) {
      const sw = p.getParent()?.getParent();
      if (sw && Node.isSwitchStatement(sw) && otherCommand(p, sw)) out.push({ cond: p, branch: 'then', self: cur });
    }
    if (isFunctionLike(p)) break;
  }
  return out;
}

/** Is the path from the enclosing function (or the file) down to `node` one that stdio mode never takes? */
function guardedHere(node: Node): boolean {
  const fn = node.getFirstAncestor((a) => isFunctionLike(a));
  for (const g of guards(node, fn ?? node.getSourceFile())) {
    if (Node.isCaseClause(g.cond.getParent()) || Node.isCaseClause(g.cond) || Node.isDefaultClause(g.cond)) return true;
    if (neverStdio(g.cond, g.branch, 0, g.self)) return true;
    // A sibling branch starts stdio and this one does not: this branch serves another way.
    if (g.other && startsStdio(g.other) && !startsStdio(g.self)) return true;
  }
  return false;
}

/** The files read, to find call sites of a function. */
export interface ModeContext {
  files: SourceFile[];
  sources: ParsedSources;
}

/** Does `node` sit on a path that never runs when the server is started on stdio (see the file header)? */
export function neverRunsOnStdio(node: Node, ctx: ModeContext, depth = 0): boolean {
  if (depth === 0 && inParserBundle(node)) return true;
  if (guardedHere(node)) return true;
  if (depth >= 3) return false;
  const fn = node.getFirstAncestor((a) => isFunctionLike(a)) as FunctionLikeNode | undefined;
  if (!fn) return false;
  if (otherSubcommand(fn)) return true;
  let sites = callSitesOf(fn, ctx.files, ctx.sources);
  // A bundled module runs where the bundle requires it (`require_browser()` of an esbuild `__commonJS` wrapper).
  if (sites.length === 0) sites = moduleLoads(fn);
  // A function called at once (`(function (module, exports) { … })(m, m.exports)`, rollup's CommonJS wrapper).
  // (also written `(function (…) { … } (m, m.exports))`).
  const p0 = fn.getParent();
  const iife = p0 && Node.isParenthesizedExpression(p0) ? p0.getParent() : p0;
  if (sites.length === 0 && iife && Node.isCallExpression(iife) && iife.getExpression() === (p0 && Node.isParenthesizedExpression(p0) ? p0 : fn)) sites = [iife];
  // A function of no call seen here (handed on as a value: `exports.log = log`) exists only once the code around it
  // ran: it never runs where that code never does (a function declared in a module that stdio never loads).
  if (sites.length === 0 && fn.getParent() && fn.getFirstAncestor((a) => isFunctionLike(a)) && !(Node.isCallExpression(fn.getParent()!) || Node.isNewExpression(fn.getParent()!) || Node.isPropertyAssignment(fn.getParent()!) || Node.isMethodDeclaration(fn))) {
    return neverRunsOnStdio(fn, ctx, depth + 1);
  }
  // A callback runs when the call it is given to runs: `app.listen(port, () => console.log(…))`.
  const p = fn.getParent();
  if (sites.length === 0 && p && (Node.isCallExpression(p) || Node.isNewExpression(p)) && (p.getArguments() as Node[]).includes(fn)) sites = [p];
  // So does a callback given in an options object: `new DeviceCodeCredential({ userPromptCallback: (info) => console.log(…) })`
  // (or `{ onPrompt(info) { … } }`) runs only once the object it configures is made by that call.
  if (sites.length === 0 && p) {
    const obj = Node.isPropertyAssignment(p) && p.getInitializer() === fn ? p.getParent() : Node.isMethodDeclaration(fn) ? p : undefined;
    const call = obj && Node.isObjectLiteralExpression(obj) ? obj.getParent() : undefined;
    if (call && (Node.isCallExpression(call) || Node.isNewExpression(call)) && (call.getArguments() as Node[]).includes(obj!)) sites = [call];
  }
  return sites.length > 0 && sites.every((s) => neverRunsOnStdio(s, ctx, depth + 1));
}

const COMMONJS_WRAPPER = /^__commonJS(?:Min)?$/;

/**
 * Where a bundle loads the module `fn` is the body of: esbuild's `var require_x = __commonJS({ "path"(exports, module)
 * { … } })` is run by the calls `require_x()`; a webpack module table entry `"./node_modules/x/y.js": (module,
 * exports, __webpack_require__) => { … }` by the calls given that path (`__webpack_require__("./node_modules/x/y.js")`).
 * Empty when the loader is used any other way than called (handed on as a value), or `fn` is no such body.
 */
function moduleLoads(fn: Node): Node[] {
  let holder = fn.getParent();
  if (holder && Node.isParenthesizedExpression(holder)) holder = holder.getParent();
  const slot = Node.isMethodDeclaration(fn) ? fn : holder && Node.isPropertyAssignment(holder) && unwrap(holder.getInitializer()!) === fn ? holder : undefined;
  const obj = slot?.getParent();
  if (!slot || !obj || !Node.isObjectLiteralExpression(obj)) return [];
  const sf = fn.getSourceFile();
  const call = obj.getParent();
  if (call && Node.isCallExpression(call) && Node.isIdentifier(unwrap(call.getExpression())) && COMMONJS_WRAPPER.test(unwrap(call.getExpression()).getText()) && obj.getProperties().length === 1) {
    const v = call.getParent();
    if (!v || !Node.isVariableDeclaration(v) || !Node.isIdentifier(v.getNameNode())) return [];
    const name = v.getName();
    const decl = v.getNameNode();
    const uses = ofKinds(sf, [SyntaxKind.Identifier], (cn) => (cn as ts.Identifier).text === name).filter((i) => i !== decl);
    const calls = uses.map((i) => i.getParent()).filter((c): c is Node => !!c && Node.isCallExpression(c) && unwrap(c.getExpression()).getText() === name);
    return calls.length === uses.length ? calls : [];
  }
  // A webpack module table: the key is the module's path (named module ids; numeric ids are not followed).
  const key = Node.isMethodDeclaration(slot) || Node.isPropertyAssignment(slot) ? slot.getNameNode() : undefined;
  const path = key && Node.isStringLiteral(key) ? key.getLiteralValue() : undefined;
  if (!path || !path.includes('/') || !isFunctionLike(fn) || (fn as FunctionLikeNode).getParameters().length === 0) return [];
  return ofKinds(sf, [SyntaxKind.CallExpression], (cn) => {
    const c = cn as ts.CallExpression;
    const a = c.arguments[c.arguments.length - 1];
    return ts.isIdentifier(c.expression) && c.arguments.length === 1 && !!a && ts.isStringLiteral(a) && a.text === path;
  });
}

/** Is `node` in a bundled command-line parser's module (its help, version and usage prints)? */
function inParserBundle(node: Node): boolean {
  const sf = node.getSourceFile();
  return inRegions(libraryRegions(sf.getFullText(), CLI_PARSERS), node.getStart());
}

/** The first word of a command spec (`'init <agent>'` → init), from a string or the first of an array. */
function commandName(v: Node | undefined): string | undefined {
  const u = v && unwrap(v);
  const first = u && Node.isArrayLiteralExpression(u) ? u.getElements()[0] : u;
  return constString(first)?.value.trim().split(/\s+/)[0];
}

/** The name of the subcommand `fn` handles (a yargs command module's `command`, a commander `.command(…).action(fn)`). */
function subcommandName(fn: FunctionLikeNode): string | undefined {
  const p = fn.getParent();
  const obj = p && Node.isPropertyAssignment(p) && p.getInitializer() === fn && p.getName() === 'handler' ? p.getParent()
    : Node.isMethodDeclaration(fn) && fn.getName() === 'handler' ? p : undefined;
  if (obj && Node.isObjectLiteralExpression(obj)) {
    const cmd = obj.getProperty('command');
    return cmd && Node.isPropertyAssignment(cmd) ? commandName(cmd.getInitializer()) : undefined;
  }
  if (p && Node.isCallExpression(p) && p.getArguments()[0] === fn) {
    const callee = unwrap(p.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'action') return undefined;
    for (let e: Node = unwrap(callee.getExpression()); Node.isCallExpression(e); ) {
      const f = unwrap(e.getExpression());
      if (!Node.isPropertyAccessExpression(f)) return undefined;
      if (f.getName() === 'command') return commandName(e.getArguments()[0]);
      e = unwrap(f.getExpression());
    }
  }
  return undefined;
}

/**
 * Is `fn` the handler of a subcommand other than the server's? A yargs command module (`{ command: 'init', handler }`)
 * or a commander action (`.command('init').action(fn)`), named neither the default nor a serving word, not starting stdio.
 */
function otherSubcommand(fn: FunctionLikeNode): boolean {
  // A subcommand named for another transport (`.command('http').action(() => startServer('http', port))`) never serves
  // stdio, whatever the functions it calls can also do.
  const name = subcommandName(fn);
  if (name !== undefined && otherTransportCommand(name)) return true;
  // A handler that starts stdio through the functions it calls (`.action(() => startBot(token))`) is the server's command.
  if (servesStdio(fn, 3)) return false;
  // Named neither by the default (`$0`) nor by a serving word: `{ command: 'init', handler }`, `.command('init').action(fn)`.
  return name !== undefined && name !== '' && !SERVING_COMMAND.test(name) && !name.startsWith('$0');
}
