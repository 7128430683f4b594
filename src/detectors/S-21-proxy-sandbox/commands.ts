import { Node, ts, type SourceFile } from '../../facts/morph.js';
import type { SinkSite } from '../../facts/flow.js';
import { declarationOf, initializerOf, isFunctionLike, type FunctionLikeNode } from '../../facts/scope.js';
import { constString, objectLiteralOf, propertyValue } from '../../facts/server-model.js';
import { piecesOf, type Piece } from '../../facts/flow/pieces.js';
import { unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { callSitesOf } from '../support/source/call-sites.js';
import { calledFunction } from '../support/source/source-support.js';

/**
 * S-21 — is a launch one that proxies? A server proxies what it launches when the program comes from its
 * configuration or its callers: a command read from a config file, an environment variable, a tool's
 * arguments, a table picked by a request. A fixed internal command — a setup script shipped with the
 * package, `git --version`, `npm --version`, `node worker.js` — is not proxying, whatever arguments it
 * is given (what a caller can do through those arguments is X-4's question).
 *
 * Fixed, syntactically: a literal, a template or `+` of fixed parts, a const holding one, `process.execPath`,
 * `__dirname`, `import.meta.url`/`dirname`, `path.join/resolve(...)` and `fileURLToPath(...)` of fixed
 * parts, a branch of `?:` whose both sides are fixed, a property of a const object literal read with a
 * literal key, a field of a row picked from a const table of object literals (a platform binary shim's
 * `BINARIES[\`${platform}_${arch}\`].name`), a call of a local function whose every return is fixed, and a
 * parameter that every call site in the source gives a fixed value (three levels). An array joined into a line
 * (`[task.command, ...args].join(' ')`; not `path.join`) is fixed only when every element is; as a shell line its
 * program is its first element (`['git', 'log', '-n', n].join(' ')` runs git). A class field or `let` passed in an
 * argument list (`spawn('node', [this.serverPath])`) is only read there, not written.
 *
 * The program of a launch: the first argument (spawn, execFile, fork, execa, cross-spawn), the first word
 * of a shell string (exec, execSync, shelljs, execaCommand, zx `$`). When the program is an interpreter
 * or a package runner (node, npx, python, sh -c, docker…), the script or package it runs must be fixed
 * too: for a shell given -c (`spawn('bash', ['-c', line])`), the first word of its line. A program and an
 * argument list set together per platform (`open url` / `cmd /c start "" url` / `xdg-open url`) are read
 * pair by pair. An MCP client transport (`new StdioClientTransport`) launches an MCP server in order to proxy it:
 * always a proxied launch.
 */

/**
 * Programs that run what their arguments name, on this machine. `ssh` is not one: the command it is given runs on
 * the remote host (a remote shell over SSH starts no local process of its clients' choosing).
 */
const LAUNCHERS = /^(?:npx|npm|pnpm|pnpx|yarn|bunx|bun|uvx|uv|pipx|python[0-9.]*|py|node|nodejs|deno|docker|podman|sh|bash|zsh|dash|fish|cmd|powershell|pwsh|env|sudo|doas|xargs|nohup|exec|tsx|ts-node|wsl|timeout|nice|stdbuf|time)$/i;
/** Shells: their -c (/c, -Command) operand is a command line whose first word is the program. */
const SHELLS = /^(?:sh|bash|zsh|dash|fish|cmd|powershell|pwsh)$/i;
/** Options of a launcher whose value is the program it runs: `sh -c <cmd>`, `node -e <code>`, `cmd /c <cmd>`. */
const PROGRAM_OPTIONS = new Set(['-c', '/c', '/C', '-e', '--eval', '-p', '--print', '-Command', '-command', '-EncodedCommand', '-x']);
/** Subcommands of package managers and runners, followed by the script or package they run. */
const SUBCOMMANDS = new Set(['run', 'run-script', 'exec', 'x', 'dlx', 'start', 'test', 'create', 'init']);
const PATH_FUNCTIONS = new Set(['join', 'resolve', 'normalize', 'dirname', 'basename', 'fileURLToPath', 'String', 'toString']);
/** Fixed values of the running server: its node binary, its own script (`process.argv[1]`: a relaunch of itself), its platform. */
const FIXED_GLOBALS = /^(?:process\.execPath|process\.argv0|process\.argv\[[01]\]|process\.execArgv|process\.platform|process\.arch|__dirname|__filename|import\.meta\.(?:url|dirname|filename))$/;
/** The server's own command line, passed on when it relaunches itself: `...process.argv.slice(1)`, `...process.execArgv`. */
const OWN_ARGV = /^process\.(?:argv|execArgv)\.slice\(\d*\)$/;

export interface FixedContext {
  files: readonly SourceFile[];
  sources: ParsedSources;
}

/** Is this expression's value fixed in the source (see the file header)? */
export function isFixed(expr: Node | undefined, ctx: FixedContext, depth = 0): boolean {
  if (!expr || depth > 8) return false;
  const n = unwrap(expr);
  if (constString(n) !== undefined || Node.isNumericLiteral(n) || Node.isTrueLiteral(n) || Node.isFalseLiteral(n)) return true;
  const text = n.getText().replace(/\s+/g, '');
  if (FIXED_GLOBALS.test(text)) return true;
  if (Node.isTemplateExpression(n)) return n.getTemplateSpans().every((s) => isFixed(s.getExpression(), ctx, depth + 1));
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText()) && ENV_READ.test(unwrap(n.getLeft()).getText().replace(/\s+/g, '')) && isFixed(n.getRight(), ctx, depth + 1) && inPackage(n.getRight())) return true;
  if (Node.isBinaryExpression(n) && ['+', '??', '||'].includes(n.getOperatorToken().getText())) return isFixed(n.getLeft(), ctx, depth + 1) && isFixed(n.getRight(), ctx, depth + 1);
  if (Node.isConditionalExpression(n)) return isFixed(n.getWhenTrue(), ctx, depth + 1) && isFixed(n.getWhenFalse(), ctx, depth + 1);
  if (Node.isArrayLiteralExpression(n)) return n.getElements().every((e) => isFixed(e, ctx, depth + 1));
  if (Node.isSpreadElement(n)) return isFixed(n.getExpression(), ctx, depth + 1);
  if (OWN_ARGV.test(text)) return true;
  if (Node.isCallExpression(n)) {
    const c = unwrap(n.getExpression());
    const name = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
    // A local function every return of which is fixed (`const child = spawn(resolveBinaryPath(), …)`).
    const local = calledFunction(n);
    if (local) return returnsFixed(local, ctx, depth + 1);
    if (!PATH_FUNCTIONS.has(name)) return false;
    // `[…].join(' ')`, `parts.join(' ')`: an array joined into a line is fixed only when every element is.
    const joined = joinedArray(n);
    if (joined) return isFixed(joined, ctx, depth + 1) && n.getArguments().every((a) => isFixed(a, ctx, depth + 1));
    const recvOk = !Node.isPropertyAccessExpression(c) || name !== 'toString' || isFixed(c.getExpression(), ctx, depth + 1);
    return recvOk && n.getArguments().every((a) => isFixed(a, ctx, depth + 1));
  }
  if (Node.isNewExpression(n) && unwrap(n.getExpression()).getText() === 'URL') return n.getArguments().every((a) => isFixed(a, ctx, depth + 1));
  if (Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) {
    // A property of a const object literal, read with a literal key: `COMMANDS.git`, `BIN['setup']`.
    const key = Node.isPropertyAccessExpression(n) ? n.getName() : constString(n.getArgumentExpression())?.value;
    if (Node.isPropertyAccessExpression(n) && Node.isThisExpression(unwrap(n.getExpression()))) {
      const values = thisFieldValues(n);
      return !!values && values.length > 0 && values.every((v) => isFixed(v, ctx, depth + 1));
    }
    // A const table read with a key that varies (`OPENERS[process.platform]`, `RUNNERS[args.kind]`): one of its values.
    if (key === undefined) {
      // Only a table of plain programs: an interpreter or package runner among them runs what its arguments name,
      // and those arguments are not followed through a parameter or a shell line (`spawn(INTERPRETERS[lang], [file])`).
      const values = Node.isElementAccessExpression(n) ? tableValues(n.getExpression(), ctx) : undefined;
      return !!values && values.every((v) => isFixed(v, ctx, depth + 1) && literalValues(v, 0, ctx).every((w) => !LAUNCHERS.test(programName(w.trim().split(/\s+/)[0] ?? ''))));
    }
    const obj = objectLiteralOf(n.getExpression(), ctx.sources);
    if (!obj) return rowFieldFixed(n.getExpression(), key, ctx, depth + 1);
    return isFixed(propertyValue(obj, key), ctx, depth + 1);
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return false;
    const decl = d.getParent();
    if (Node.isVariableDeclaration(decl)) {
      const list = decl.getParent();
      const isConst = Node.isVariableDeclarationList(list) && (list.getFlags() & ts.NodeFlags.Const) !== 0;
      if (isConst) return isFixed(initializerOf(d), ctx, depth + 1);
      // A `let` every assignment of which is fixed (`switch (process.platform) { case 'darwin': cmd = 'open'; … }`).
      const values = assignedValues(d);
      return !!values && values.length > 0 && values.every((v) => isFixed(v, ctx, depth + 1));
    }
    if (Node.isParameterDeclaration(decl)) return parameterFixed(decl, ctx, depth);
  }
  return false;
}

/**
 * The returns of a local function (`function binaryPath() { … return require.resolve(…) }`, an arrow's expression
 * body): fixed when there is at least one and each is (a parameter in them is followed to the function's call sites).
 * A return inside a nested function is that function's.
 */
function returnsFixed(fn: Node, ctx: FixedContext, depth: number): boolean {
  if (depth > 6 || !isFunctionLike(fn)) return false;
  const body = (fn as FunctionLikeNode).getBody();
  if (!body) return false;
  if (!Node.isBlock(body)) return isFixed(body, ctx, depth);
  const returned: (Node | undefined)[] = [];
  body.forEachDescendant((d, trav) => {
    if (isFunctionLike(d)) return trav.skip();
    if (Node.isReturnStatement(d)) returned.push(d.getExpression());
  });
  return returned.length > 0 && returned.every((r) => isFixed(r, ctx, depth));
}

/**
 * A field of a row picked from a const table of object literals (`const binary = BINARIES[\`${platform}_${arch}\`];
 * binary.name`): fixed when every row gives that field a fixed value that is no interpreter or package runner.
 */
function rowFieldFixed(expr: Node, key: string, ctx: FixedContext, depth: number): boolean {
  const e = unwrap(expr);
  if (depth > 8 || !Node.isIdentifier(e) || !constDeclared(e)) return false;
  const d = declarationOf(e);
  const init = d && initializerOf(d) && unwrap(initializerOf(d)!);
  if (!init || !Node.isElementAccessExpression(init)) return false;
  const rows = tableValues(init.getExpression(), ctx);
  return (
    !!rows &&
    rows.every((r) => {
      const row = unwrap(r);
      const v = Node.isObjectLiteralExpression(row) ? propertyValue(row, key) : undefined;
      return !!v && isFixed(v, ctx, depth + 1) && literalValues(v, 0, ctx).every((w) => !LAUNCHERS.test(programName(w.trim().split(/\s+/)[0] ?? '')));
    })
  );
}

/** An environment variable read: `process.env.X`, `process.env['X']`. */
const ENV_READ = /^process\.env(?:\.\w+|\[(['"`])\w+\1\])$/;

/**
 * Is this fixed path anchored in the package's own folder (`__dirname`, `import.meta.url`/`dirname`, or a const made
 * from one)? `process.env.X_BIN ?? join(__dirname, 'bin', 'x')` runs the helper the package ships; the variable only
 * says where that install keeps it, as editing the installed files would. A default that is not the package's own
 * file (`process.env.BROWSER || 'xdg-open'`) lets the variable name any program and stays a proxied launch.
 */
function inPackage(expr: Node, depth = 0): boolean {
  if (depth > 6) return false;
  const n = unwrap(expr);
  if (/^(?:__dirname|__filename|import\.meta\.(?:url|dirname|filename))$/.test(n.getText().replace(/\s+/g, ''))) return true;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const init = d ? initializerOf(d) : undefined;
    return !!init && inPackage(init, depth + 1);
  }
  if (Node.isCallExpression(n)) {
    const c = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(c) && c.getName() === 'toString' && inPackage(c.getExpression(), depth + 1)) return true;
    const first = n.getArguments()[0];
    return !!first && inPackage(first, depth + 1);
  }
  if (Node.isNewExpression(n)) return n.getArguments().slice(1).some((a) => inPackage(a, depth + 1));
  if (Node.isTemplateExpression(n)) {
    const first = n.getTemplateSpans()[0];
    return n.getHead().getLiteralText() === '' && !!first && inPackage(first.getExpression(), depth + 1);
  }
  return false;
}

/** Is this identifier declared by a `const`? */
function constDeclared(id: Parameters<typeof declarationOf>[0]): boolean {
  const decl = declarationOf(id)?.getParent();
  const list = decl?.getParent();
  return Node.isVariableDeclaration(decl) && Node.isVariableDeclarationList(list) && (list.getFlags() & ts.NodeFlags.Const) !== 0;
}

/**
 * The values of a const object literal used as a table (`{ darwin: 'open', linux: 'xdg-open' }`): every property a
 * plain `key: value` (no spread, method or accessor). Undefined for anything else.
 */
function tableValues(expr: Node, ctx: FixedContext): Node[] | undefined {
  const t = unwrap(expr);
  if (!Node.isIdentifier(t) || !constDeclared(t)) return undefined;
  const obj = objectLiteralOf(t, ctx.sources);
  if (!obj) return undefined;
  const props = obj.getProperties();
  if (props.length === 0 || !props.every((p) => Node.isPropertyAssignment(p))) return undefined;
  // A table written to elsewhere (`OPENERS[k] = v`) is not fixed.
  const name = t.getText();
  let written = false;
  t.getSourceFile().forEachDescendant((x, trav) => {
    if (Node.isBinaryExpression(x) && /=$/.test(x.getOperatorToken().getText()) && !/^[=!<>]=/.test(x.getOperatorToken().getText())) {
      const l = unwrap(x.getLeft());
      if ((Node.isElementAccessExpression(l) || Node.isPropertyAccessExpression(l)) && unwrap(l.getExpression()).getText() === name) {
        written = true;
        trav.stop();
      }
    }
  });
  return written ? undefined : props.flatMap((p) => (Node.isPropertyAssignment(p) ? [p.getInitializerOrThrow()] : []));
}

/**
 * The values a class gives `this.<name>`: the field's initializer and every `this.<name> = …` in the class body.
 * Undefined outside a class or when the field is changed otherwise (`+=`, destructuring) or written from outside the
 * class in its file (`obj.<name> = …` is not followed: any such write makes it undefined).
 */
function thisFieldValues(access: Node): Node[] | undefined {
  if (!Node.isPropertyAccessExpression(access)) return undefined;
  const cls = access.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  if (!cls || !(Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) return undefined;
  const name = access.getName();
  const out: Node[] = [];
  const field = cls.getProperty(name);
  const init = field && Node.isPropertyDeclaration(field) ? field.getInitializer() : undefined;
  if (init) out.push(init);
  let other = false;
  access.getSourceFile().forEachDescendant((x, trav) => {
    if (other) return trav.stop();
    if (!Node.isPropertyAccessExpression(x) || x.getName() !== name) return;
    const p = x.getParent();
    const writes = (Node.isBinaryExpression(p) && p.getLeft() === x && /=$/.test(p.getOperatorToken().getText()) && !/^[=!<>]=/.test(p.getOperatorToken().getText())) || Node.isPrefixUnaryExpression(p) || Node.isPostfixUnaryExpression(p) || (Node.isArrayLiteralExpression(p) && assignmentTarget(p));
    if (!writes) return;
    const inside = Node.isThisExpression(unwrap(x.getExpression())) && x.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a)) === cls;
    if (inside && Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '=') out.push(p.getRight());
    else other = true;
  });
  // A parameter property (`constructor(private bin: string)`) is given by callers: not followed.
  const ctorParam = cls.getConstructors().some((c) => c.getParameters().some((q) => q.getName() === name && q.getScope() !== undefined));
  return other || ctorParam ? undefined : out;
}

/**
 * The values a `let` / `var` variable is given: its initializer and the right side of every plain assignment to it
 * in the function (or file) that declares it. Undefined when it is changed otherwise (`+=`, `++`, destructuring).
 */
function assignedValues(declId: Node): Node[] | undefined {
  if (assignedMemo.has(declId)) return assignedMemo.get(declId);
  const r = readAssignedValues(declId);
  assignedMemo.set(declId, r);
  return r;
}
const assignedMemo = new WeakMap<Node, Node[] | undefined>();

function readAssignedValues(declId: Node): Node[] | undefined {
  const decl = declId.getParent();
  if (!Node.isVariableDeclaration(decl) || !Node.isIdentifier(declId)) return undefined;
  const name = declId.getText();
  const scope = decl.getFirstAncestor((a) => isFunctionLike(a)) ?? decl.getSourceFile();
  const out: Node[] = [];
  const init = decl.getInitializer();
  if (init) out.push(init);
  let other = false;
  scope.forEachDescendant((d, trav) => {
    if (other) return trav.stop();
    if (!Node.isIdentifier(d) || d === declId || d.getText() !== name) return;
    const p = d.getParent();
    if (Node.isBinaryExpression(p) && p.getLeft() === d) {
      if (declarationOf(d) !== declId) return;
      if (p.getOperatorToken().getText() === '=') out.push(p.getRight());
      else if (/=$/.test(p.getOperatorToken().getText()) && !/^[=!<>]=/.test(p.getOperatorToken().getText())) other = true;
    } else if ((Node.isPrefixUnaryExpression(p) || Node.isPostfixUnaryExpression(p) || ((Node.isArrayLiteralExpression(p) || Node.isShorthandPropertyAssignment(p)) && assignmentTarget(p))) && declarationOf(d) === declId) {
      // ++x, [x] = …, ({ x } = …): a change the reading does not follow (an array or object literal holding x as a value is rare around a launch).
      other = true;
    }
  });
  return other ? undefined : out;
}

/**
 * Is this array or object literal (or a property of one) a target being written — the left side of an assignment
 * (`[a, b] = pair`, `({ x } = o)`, nested) or the head of a for-of/for-in loop? An element of an argument list
 * (`spawn('node', [this.serverPath])`) only reads its value.
 */
function assignmentTarget(n: Node): boolean {
  let cur: Node = n;
  for (let p = cur.getParent(); p; cur = p, p = p.getParent()) {
    if (Node.isBinaryExpression(p)) return p.getLeft() === cur && p.getOperatorToken().getText() === '=';
    if (Node.isForOfStatement(p) || Node.isForInStatement(p)) return p.getInitializer() === cur;
    if (!(Node.isArrayLiteralExpression(p) || Node.isObjectLiteralExpression(p) || Node.isShorthandPropertyAssignment(p) || Node.isPropertyAssignment(p) || Node.isSpreadElement(p) || Node.isParenthesizedExpression(p))) return false;
  }
  return false;
}

/** A parameter every call site in the source gives a fixed value (a default that is fixed counts for an omitted one). */
function parameterFixed(p: Node, ctx: FixedContext, depth: number): boolean {
  if (!Node.isParameterDeclaration(p) || depth > 6) return false;
  const fn = p.getParent();
  if (!isFunctionLike(fn)) return false;
  const index = (fn as FunctionLikeNode).getParameters().indexOf(p);
  const sites = callSitesOf(fn as FunctionLikeNode, ctx.files, ctx.sources);
  if (sites.length === 0) return false;
  return sites.every((s) => {
    if (!Node.isCallExpression(s)) return false;
    const a = s.getArguments()[index];
    return a ? isFixed(a, ctx, depth + 3) : isFixed(p.getInitializer(), ctx, depth + 3);
  });
}

/** The basename of a program, without a Windows extension: `/usr/bin/npx.cmd` → npx. */
const programName = (v: string): string => (v.split(/[\\/]/).pop() ?? v).replace(/\.(?:cmd|exe|bat|ps1)$/i, '');

/** Does an argument list (an array literal) name a fixed script or package for a launcher? */
function launcherArgsFixed(args: Node | undefined, ctx: FixedContext, shell = false, program?: Node): boolean {
  if (!args) return true;
  const a = unwrap(args);
  if (!Node.isArrayLiteralExpression(a)) return isFixed(a, ctx) || pairedArgsFixed(a, program, ctx);
  const els = a.getElements();
  for (let i = 0; i < els.length; i++) {
    const v = constString(els[i])?.value;
    // A shell's -c line is judged by its program (`bash -c \`osascript -e ${script}\``); code for an interpreter must be fixed.
    if (v !== undefined && PROGRAM_OPTIONS.has(v)) return shell ? shellStringFixed(els[i + 1], ctx) : isFixed(els[i + 1], ctx);
    if (v !== undefined && v.startsWith('-')) continue;
    // A package manager's subcommand (`npm run <script>`, `pnpm dlx <pkg>`): the operand after it is what runs.
    if (v !== undefined && SUBCOMMANDS.has(v)) continue;
    // The first operand is the script or package run.
    return isFixed(els[i], ctx);
  }
  return true;
}

/**
 * A `let` program and a `let` argument list set together per platform (`if (darwin) { cmd = 'open'; args = [url] }
 * else if (win32) { cmd = 'cmd'; args = ['/c', 'start', '', url] } …`): each value of the list is read with the program
 * set beside it (in the same block). A list beside a program that is no interpreter or runner (`open`, `xdg-open`)
 * names no program; a list beside a launcher must name a fixed one. Undefined pairing (a list set alone) is not fixed.
 */
function pairedArgsFixed(args: Node, program: Node | undefined, ctx: FixedContext): boolean {
  const p = program && unwrap(program);
  if (!Node.isIdentifier(args) || !p || !Node.isIdentifier(p)) return false;
  const argsDecl = declarationOf(args);
  const progDecl = declarationOf(p);
  const argValues = argsDecl ? assignedValues(argsDecl) : undefined;
  const progValues = progDecl ? assignedValues(progDecl) : undefined;
  if (!argValues?.length || !progValues?.length) return false;
  const blockOf = (v: Node): Node | undefined => v.getFirstAncestor((x) => Node.isBlock(x) || Node.isCaseClause(x) || Node.isDefaultClause(x) || Node.isSourceFile(x));
  return argValues.every((v) => {
    const beside = progValues.filter((pv) => blockOf(pv) === blockOf(v));
    if (beside.length !== 1) return false;
    const names = literalValues(beside[0], 0, ctx).map(programName);
    if (names.length === 0 || !isFixed(beside[0], ctx)) return false;
    if (names.every((n) => !LAUNCHERS.test(n))) return true;
    return Node.isArrayLiteralExpression(unwrap(v)) && launcherArgsFixed(v, ctx, names.every((n) => SHELLS.test(n)));
  });
}

/** Node's path module under the names packages give it: `path`, `posix`, `path.posix`, an import or require of 'path'. */
function isPathModule(expr: Node): boolean {
  const e = unwrap(expr);
  if (/^(?:path|posix|win32|(?:\w+\.)?(?:posix|win32))$/.test(e.getText().replace(/\s+/g, ''))) return true;
  if (!Node.isIdentifier(e)) return false;
  const d = declarationOf(e);
  const holder = d?.getFirstAncestor((a) => Node.isImportDeclaration(a) || Node.isVariableDeclaration(a));
  if (Node.isImportDeclaration(holder)) return /^(?:node:)?path(?:\/(?:posix|win32))?$/.test(holder.getModuleSpecifierValue());
  const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
  return !!init && /^(?:require\((['"`])(?:node:)?path\1\)|await import\((['"`])(?:node:)?path\2\))$/.test(unwrap(init).getText().replace(/\s+/g, ''));
}

/** The array of `<array>.join(sep)` — a receiver that is not Node's path module (`path.join(a, b)` joins paths). */
function joinedArray(call: Node): Node | undefined {
  if (!Node.isCallExpression(call)) return undefined;
  const c = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(c) || c.getName() !== 'join' || isPathModule(c.getExpression())) return undefined;
  return c.getExpression();
}

/**
 * The first element of an array literal joined into a shell line (`['git', 'log', ref].join(' ')`, or through a const
 * or `let` holding the literal): the program of that line. Undefined when the array is not such a literal (a variable
 * filled elsewhere, a spread first).
 */
function joinedProgram(line: Node, ctx: FixedContext): Node | undefined {
  const arr = joinedArray(unwrap(line));
  if (!arr) return undefined;
  let a = unwrap(arr);
  if (Node.isIdentifier(a)) {
    const d = declarationOf(a);
    const values = d ? assignedValues(d) : undefined;
    if (!values || values.length !== 1) return undefined;
    a = unwrap(values[0]!);
  }
  if (!Node.isArrayLiteralExpression(a)) return undefined;
  const first = a.getElements()[0];
  return first && !Node.isSpreadElement(first) && isFixed(first, ctx) ? first : undefined;
}

/**
 * A fixed value in the program's place of a shell line: its literal words name no interpreter or runner (`open`,
 * `xdg-open`), or it is a path computed from fixed pieces (`path.join(here, '..', 'scripts', 'collect.sh')`), a file
 * of the package.
 */
function fixedProgramValue(e: Node, ctx: FixedContext): boolean {
  if (!isFixed(e, ctx)) return false;
  const words = literalValues(e);
  return words.length === 0 || words.every((w) => !LAUNCHERS.test(programName(w.trim().split(/\s+/)[0] ?? '')));
}

/** Is the program of a shell command string fixed: a fixed first word that is not a launcher (or a launcher with a fixed rest)? */
function shellStringFixed(cmd: Node | undefined, ctx: FixedContext, depth = 0): boolean {
  if (!cmd || depth > 4) return false;
  const n = unwrap(cmd);
  if (isFixed(n, ctx)) return true;
  // A template or a `+` chain (facts/flow/pieces): `git log ${ref}` and `'git log ' + ref` name their program in the
  // fixed head; `${opener} "${url}"` and `SCRIPT + ' ' + name` in a first value that must be fixed and no launcher.
  const pieces: Piece[] | undefined = Node.isNoSubstitutionTemplateLiteral(n) ? [{ text: n.getLiteralText() }] : piecesOf(n);
  if (pieces) {
    const [head, program, after] = pieces;
    if (head && 'text' in head && !/^\s*$/.test(head.text)) {
      const m = /^\s*(\S+)\s/.exec(head.text);
      return !!m && !LAUNCHERS.test(programName(m[1]!));
    }
    const [p, rest] = head && 'text' in head ? [program, after] : [head, program];
    return !!p && 'expr' in p && !!rest && 'text' in rest && /^\s/.test(rest.text) && fixedProgramValue(p.expr, ctx);
  }
  if (Node.isConditionalExpression(n)) return shellStringFixed(n.getWhenTrue(), ctx, depth + 1) && shellStringFixed(n.getWhenFalse(), ctx, depth + 1);
  // `['git', 'log', ref].join(' ')`: the program is the first element, fixed and no interpreter or package runner.
  const joined = joinedProgram(n, ctx);
  if (joined) {
    const words = literalValues(joined, 0, ctx);
    return words.length > 0 && words.every((w) => !LAUNCHERS.test(programName(w.trim().split(/\s+/)[0] ?? '')));
  }
  // A variable holding the command line: every value it is given (a `switch` over the platform).
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const values = d ? assignedValues(d) : undefined;
    return !!values && values.length > 0 && values.every((v) => shellStringFixed(v, ctx, depth + 1));
  }
  return false;
}

/** The program expression and its argument list of a launch site. */
function programOf(site: SinkSite, sources: ParsedSources): { program?: Node; args?: Node; shellString?: Node } {
  const n = site.node;
  if (Node.isNewExpression(n)) {
    const obj = objectLiteralOf(n.getArguments()[0], sources);
    return { program: obj ? propertyValue(obj, 'command') : n.getArguments()[0], args: obj ? propertyValue(obj, 'args') : undefined };
  }
  if (Node.isTaggedTemplateExpression(n)) return { shellString: n.getTemplate() };
  if (!Node.isCallExpression(n)) return {};
  const args = n.getArguments();
  // `spawn('sh', ['-c', line])`, `spawn(cmd, args, { shell: true })`: a program and an argument list, the shell line
  // being the operand of -c (launcherArgsFixed); exec-like calls take the line first.
  if (site.shell && !(args[1] && Node.isArrayLiteralExpression(unwrap(args[1])))) return { shellString: args[0] };
  // spawn(cmd, args, options) / execFile(file, args) / execa(file, args): an options object is not an argument list.
  const second = args[1] && !Node.isObjectLiteralExpression(unwrap(args[1])) ? args[1] : undefined;
  return { program: args[0], args: second };
}

/** The literal values a fixed expression may take: a literal, a const holding one, both sides of `?:`. */
function literalValues(expr: Node | undefined, depth = 0, ctx?: FixedContext): string[] {
  if (!expr || depth > 4) return [];
  const n = unwrap(expr);
  const v = constString(n)?.value;
  if (v !== undefined) return [v];
  if (Node.isConditionalExpression(n)) return [...literalValues(n.getWhenTrue(), depth + 1, ctx), ...literalValues(n.getWhenFalse(), depth + 1, ctx)];
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) return [...literalValues(n.getLeft(), depth + 1, ctx), ...literalValues(n.getRight(), depth + 1, ctx)];
  if (Node.isElementAccessExpression(n) && ctx) return (tableValues(n.getExpression(), ctx) ?? []).flatMap((x) => literalValues(x, depth + 1, ctx));
  if (Node.isPropertyAccessExpression(n) && Node.isThisExpression(unwrap(n.getExpression()))) return (thisFieldValues(n) ?? []).flatMap((x) => literalValues(x, depth + 1, ctx));
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return [];
    return (assignedValues(d) ?? [initializerOf(d)].filter((x): x is Node => !!x)).flatMap((x) => literalValues(x, depth + 1, ctx));
  }
  return [];
}

/**
 * A command a caller writes whose program the function pins before launching it: the CLI wrapper of a service
 * (`m365 spo site list`, `az …`) that refuses any command not starting with its own program —
 *   `if (!/^m365(\s|$)/.test(cmd)) throw …` or `if (!cmd.startsWith('m365 ')) return …`
 * — an earlier statement of a block around the launch, about the launched variable or one it is made from or makes
 * (`const trimmed = command.trim()`, `command = trimmed`, `command += ' --output json'`), whose branch throws or
 * returns. The pinned word must not be an interpreter or package runner (LAUNCHERS). Through a shell (`exec`,
 * `spawn(cmd, { shell: true })`) a second word could start another program after `;`, `&&`, `|`, `$(…)` or a line
 * break: the function must also refuse those (`if (/[;&|`$\n]/.test(cmd)) throw …`). The program is then the CLI, fixed in the
 * source; what the caller does with its arguments is X-4's question.
 */
function pinnedProgram(expr: Node | undefined, shell: boolean): boolean {
  const n = expr && unwrap(expr);
  if (!n || !Node.isIdentifier(n)) return false;
  // The function declaring the variable (its parameter or local): the guards may sit there, around a callback
  // that launches (`return new Promise((resolve) => { spawn(cmd, …) })`).
  const decl = declarationOf(n);
  const fn = decl?.getFirstAncestor((a) => isFunctionLike(a));
  if (!fn || !fn.containsRange(n.getPos(), n.getEnd())) return false;
  const names = relatedNames(fn, n.getText());
  let pinned = false;
  let noChaining = !shell;
  let child: Node = n;
  for (let p: Node | undefined = n.getParent(); p && p !== fn; child = p, p = p.getParent()) {
    if (!Node.isBlock(p)) continue;
    const statements: Node[] = p.getStatements();
    for (const st of statements.slice(0, Math.max(0, statements.indexOf(child)))) {
      if (!Node.isIfStatement(st) || !LEAVES_BRANCH.test(st.getThenStatement().getText())) continue;
      const guard = guardKind(st.getExpression(), names);
      if (guard === 'prefix') pinned = true;
      else if (guard === 'metachar') noChaining = true;
    }
  }
  return pinned && noChaining;
}

/** A branch that refuses: it throws or returns. */
const LEAVES_BRANCH = /^\{?\s*(?:throw|return)\b/;
/** `^word` then a word end (`(\s|$)`, `\s`, `\b`, a space, `$`): the program a command must start with. */
const PREFIX_RE = /^\/\^([A-Za-z0-9][\w.-]*)(?:\(\?:?\\s\|\$\)|\(\\s\|\$\)|\\s|\\b| |\$|\/)/;

/** Does the body of a regular expression literal hold a `|` outside any group or character class? */
function topLevelAlternation(re: string): boolean {
  const body = re.slice(1, re.lastIndexOf('/'));
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\') i++;
    else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) return true;
  }
  return false;
}

/** What a refusing `if` checks about the command: that it starts with a fixed program, that it holds shell chaining. */
function guardKind(cond: Node, names: Set<string>): 'prefix' | 'metachar' | undefined {
  const c = unwrap(cond);
  const negated = Node.isPrefixUnaryExpression(c) && c.getOperatorToken() === ts.SyntaxKind.ExclamationToken;
  const call = unwrap(negated ? c.getOperand() : c);
  if (!Node.isCallExpression(call)) return undefined;
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.getName();
  const recv = unwrap(callee.getExpression());
  const arg = call.getArguments()[0];
  if (method === 'test' && Node.isRegularExpressionLiteral(recv) && arg && aboutNames(arg, names)) {
    const re = recv.getText();
    if (negated) {
      const m = PREFIX_RE.exec(re);
      // `/^m365\s|^npx\s/`: a top-level alternation lets a second program through.
      return m && !LAUNCHERS.test(programName(m[1]!)) && !topLevelAlternation(re) ? 'prefix' : undefined;
    }
    // A newline starts a second command as `;` does: the refusal must cover it too (`\n`, or any white space `\s`).
    const lineBreaks = /\\[sn]/.test(re);
    return [';', '&', '|'].every((ch) => re.includes(ch)) && (re.includes('$') || re.includes('`')) && lineBreaks ? 'metachar' : undefined;
  }
  if (negated && method === 'startsWith' && aboutNames(recv, names)) {
    const word = arg ? constString(arg)?.value : undefined;
    const m = word !== undefined ? /^([A-Za-z0-9][\w.-]*)(\s?)$/.exec(word) : null;
    // Without a space after the word, `m365x` would pass: only a word followed by a space pins the program.
    return m && m[2] && !LAUNCHERS.test(programName(m[1]!)) ? 'prefix' : undefined;
  }
  return undefined;
}

/** The variable a value is made from: itself, or the receiver of method calls on it (`cmd.trim().toLowerCase()`). */
function rootName(e: Node): string | undefined {
  let u = unwrap(e);
  for (;;) {
    if (!Node.isCallExpression(u)) break;
    const c = unwrap(u.getExpression());
    if (!Node.isPropertyAccessExpression(c)) return undefined;
    u = unwrap(c.getExpression());
  }
  return Node.isIdentifier(u) ? u.getText() : undefined;
}

/** The expression is one of the names, or a method call on one (`cmd.trim()`). */
function aboutNames(e: Node, names: Set<string>): boolean {
  const r = rootName(e);
  return r !== undefined && names.has(r);
}

/**
 * The variables of a function tied to a name by a plain binding either way (`const t = cmd.trim()`, `cmd = t`; an
 * appended `cmd += ' --json'` changes no program): the function's bindings are read once (WeakMap), the closure per name.
 */
function relatedNames(fn: Node, name: string): Set<string> {
  let bindings = bindingMemo.get(fn);
  if (!bindings) {
    const list: [string, string][] = [];
    fn.forEachDescendant((d) => {
      if (Node.isVariableDeclaration(d) && Node.isIdentifier(d.getNameNode())) {
        const init = d.getInitializer();
        const r = init && rootName(init);
        if (r) list.push([d.getName(), r]);
      } else if (Node.isBinaryExpression(d) && d.getOperatorToken().getText() === '=' && Node.isIdentifier(d.getLeft())) {
        const r = rootName(d.getRight());
        if (r) list.push([d.getLeft().getText(), r]);
      }
    });
    bindingMemo.set(fn, (bindings = list));
  }
  const names = new Set([name]);
  for (let pass = 0, grew = true; pass < 4 && grew; pass++) {
    grew = false;
    for (const [l, r] of bindings) {
      if (names.has(l) === names.has(r)) continue;
      names.add(l).add(r);
      grew = true;
    }
  }
  return names;
}
const bindingMemo = new WeakMap<Node, [string, string][]>();

/** Does this launch run a program that comes from configuration or callers (the proxy case of S-21)? */
export function isProxiedLaunch(site: SinkSite, ctx: FixedContext): boolean {
  if (site.launcher === 'stdio-transport') return true;
  const { program, args, shellString } = programOf(site, ctx.sources);
  if (shellString) return !shellStringFixed(shellString, ctx) && !pinnedProgram(shellString, true);
  if (program && !isFixed(program, ctx) && pinnedProgram(program, false)) return false;
  if (!program || !isFixed(program, ctx)) return true;
  // A fixed interpreter or package runner runs what its arguments name: that must be fixed too.
  const names = literalValues(program, 0, ctx).map(programName);
  if (names.some((v) => LAUNCHERS.test(v))) return !launcherArgsFixed(args, ctx, names.length > 0 && names.every((v) => SHELLS.test(v)), program);
  if (/execPath|argv0/.test(program.getText())) return !launcherArgsFixed(args, ctx);
  return false;
}
