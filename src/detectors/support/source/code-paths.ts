import { Node, SyntaxKind, ts, type SourceFile } from '../../../facts/morph.js';
import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { hasPythonSource } from '../../../facts/python-source.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, findNodes, functionOf, isFunctionLike, mayResolveFunction, valueOfDeclaration, type FunctionLikeNode } from '../../../facts/scope.js';
import { modelFiles, objectLiteralOf, propertyValue, returnedExpressions } from '../../../facts/server-model.js';
import { ofKinds, parsedSources, propertyName, rawUnwrap, unwrap, wrapNode, type ParsedSources } from '../../../facts/ts-source.js';
import { fileNotReadData } from '../../../facts/not-read.js';
import { callSitesOf } from './call-sites.js';

/**
 * Small syntactic helpers shared by the static detectors that read code paths (X-6, X-7, C-4, C-6, S-13,
 * S-24), on top of facts/ts-source (files parsed once per audit), facts/scope (name resolution) and
 * facts/server-model (the registered tools and their handlers): the files to read, or why there are none,
 * and the functions reachable from a handler (a syntactic call graph, no type checker).
 */

export type Fn = FunctionLikeNode;

export interface Code {
  sources: ParsedSources;
  /** The files read (generated output left out when there is other source), sorted by path. */
  files: [string, SourceFile][];
  rel(sf: SourceFile): string;
}

/**
 * The parsed sources, or the verdict when the tree holds no readable JavaScript/TypeScript source:
 * could-not-judge ('no-source'; 'source-language-not-read' for a Python tree), or not-applicable ('no-js-source')
 * for a Python tree when the rule has a Python part (`pythonPart`) that judges it instead.
 */
export function codeOf(repo: RepoFacts, opts: { pythonPart?: boolean } = {}): { ok: true; code: Code } | { ok: false; verdict: Verdict } {
  const sources = parsedSources(repo);
  if (sources.files.size === 0) {
    const unread = sources.unread[0];
    if (unread) return { ok: false, verdict: couldNotJudge('file-not-read', fileNotReadData(unread)) };
    // Python source is source: without a Python part the rule could not read it, which is not "no source".
    if (hasPythonSource(repo)) return { ok: false, verdict: opts.pythonPart ? notApplicable('no-js-source') : couldNotJudge('source-language-not-read') };
    return { ok: false, verdict: couldNotJudge('no-source') };
  }
  return { ok: true, code: { sources, files: modelFiles(sources), rel: sources.rel } };
}

export const isFn = isFunctionLike;

/**
 * The functions reachable from `start`: callees and function-valued arguments that resolve to a function
 * of the audited source (facts/scope: locals, consts, relative imports, `this.method(...)` and inherited
 * methods, methods of class instances and singletons), followed up to `maxDepth` steps. `start` is included; nested function literals are part of their parent.
 */
export function reachable(code: Code, start: readonly Fn[], maxDepth = 6): Fn[] {
  const seen = new Set<Fn>(start);
  let frontier = [...start];
  for (let depth = 0; depth < maxDepth && frontier.length; depth++) {
    const next: Fn[] = [];
    for (const fn of frontier) {
      for (const t of calleesOf(fn, code)) {
        if (!seen.has(t)) {
          seen.add(t);
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  return [...seen];
}

/**
 * The functions one step from `fn`, in the order its body calls them (duplicates kept out), memoised per
 * function: the call graph is shared by every detector and handler of an audit. Calls are read on compiler
 * nodes; only a callee that may resolve (a name declared in the file, a member of one, of an object literal
 * or of `this`) is wrapped and followed.
 */
const calleesMemo = new WeakMap<ts.Node, Fn[]>();
function calleesOf(fn: Fn, code: Code): Fn[] {
  const hit = calleesMemo.get(fn.compilerNode);
  if (hit) return hit;
  const out: Fn[] = [];
  const seen = new Set<Fn>();
  const add = (t: Fn | undefined) => {
    if (t && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  };
  const sf = fn.getSourceFile();
  const visit = (cn: ts.Node): void => {
    if (cn !== fn.compilerNode && (ts.isCallExpression(cn) || ts.isNewExpression(cn))) for (const t of stepTargets(cn, sf, code)) add(t);
    ts.forEachChild(cn, visit);
  };
  visit(fn.compilerNode);
  calleesMemo.set(fn.compilerNode, out);
  return out;
}

/**
 * The functions one call (or `new`) leads to, as calleesOf reads them: its callee, or the table entries it
 * dispatches to, and the functions of the source it hands on as arguments. Exported for the path diagnostics
 * (bench/s13-stops.ts), which list the calls that lead nowhere.
 */
export function stepTargets(cn: ts.CallExpression | ts.NewExpression, sf: SourceFile, code: Code): Fn[] {
  const out: Fn[] = [];
  const c = rawUnwrap(cn.expression);
  if ((ts.isIdentifier(c) || ts.isPropertyAccessExpression(c)) && mayResolveFunction(c)) {
    const wrapped = wrapNode(sf, c);
    const f = safeFunctionOf(wrapped, code);
    if (f) out.push(f);
    else out.push(...dispatchTargets(wrapped, code));
  } else if (ts.isElementAccessExpression(c)) out.push(...dispatchTargets(wrapNode(sf, c), code));
  for (const a of cn.arguments ?? []) {
    const u = rawUnwrap(a);
    if (ts.isIdentifier(u) && mayResolveFunction(u)) {
      const f = safeFunctionOf(wrapNode(sf, u), code);
      if (f) out.push(f);
    }
  }
  return out;
}

/**
 * The functions a call may reach through a table looked up at run time — the usual shapes of a server that
 * dispatches a tool call by name: `handlers[name](args)`, `const h = handlers[name]; h(args)`,
 * `handlers.get(name)` on a `new Map([...])`, `const tool = TOOLS.find(…); tool.execute(args)`,
 * `for (const tool of tools) server.tool(…, (a) => tool.handler(a))`, `tools.forEach((t) => … t.run(a))`.
 * Every function the table holds (under the member name called, for a table of tool objects) is a target:
 * which one runs depends on the request. Tables are read from literals of the audited source (an array or
 * object literal, possibly in another module, spreads followed, or the literal a function of the source returns:
 * `{ ...createIssueHandlers(api) }`); anything else gives no target.
 */
function dispatchTargets(callee: Node, code: Code): Fn[] {
  try {
    const c = unwrap(callee);
    const out: Fn[] = [];
    const fnOf = (v: Node): void => {
      const f = functionOf(v, code.sources);
      if (f) out.push(f);
    };
    if (Node.isElementAccessExpression(c)) {
      for (const v of tableValues(c, code, 0)) fnOf(v);
    } else if (Node.isIdentifier(c)) {
      for (const v of valuesOfName(c, code, 0)) fnOf(v);
      if (!out.length) for (const v of destructuredMembers(c, code)) fnOf(v);
    } else if (Node.isPropertyAccessExpression(c)) {
      const obj = unwrap(c.getExpression());
      if (!Node.isIdentifier(obj)) return [];
      const member = c.getName();
      const methods = parameterMethods(obj, member, code);
      if (methods?.length) return methods;
      for (const v of valuesOfName(obj, code, 0)) {
        const o = objectLiteralOf(v, code.sources);
        const m = (o ? propertyValue(o, member) : undefined) ?? bundledExport(v, member);
        if (m) fnOf(m);
      }
      if (!out.length) for (const v of argumentMembers(obj, member, code)) fnOf(v);
    }
    return out.slice(0, 200);
  } catch {
    return [];
  }
}

/**
 * `service.search(q)` where `service` is an untyped parameter (compiled JavaScript: a client instance handed
 * to a tool's handler by the code that registers it), or an untyped const given the value of a function of the
 * audited source (`const ssh = await getConnection(name)`, a pool of instances the source makes): the method of
 * that name when exactly one class of the audited source defines it. Undefined when the name is neither.
 */
function parameterMethods(obj: Node, member: string, code: Code): Fn[] | undefined {
  const d = Node.isIdentifier(obj) ? declarationOf(obj) : undefined;
  const param = d?.getParent();
  if (param && Node.isVariableDeclaration(param) && param.getNameNode() === d && !param.getTypeNode()) {
    let init: Node | undefined = param.getInitializer();
    while (init && Node.isAwaitExpression(unwrap(init))) init = (unwrap(init) as Node & { getExpression(): Node }).getExpression();
    const u = init && unwrap(init);
    if (!u || !Node.isCallExpression(u) || !functionOf(u.getExpression(), code.sources)) return undefined;
    const found = methodIndex(code).get(member);
    return found && found.length === 1 ? found : [];
  }
  if (!param || !Node.isParameterDeclaration(param) || param.getNameNode() !== d || param.getTypeNode()) return undefined;
  const found = methodIndex(code).get(member);
  return found && found.length === 1 ? found : [];
}

/**
 * `config.handleRequest(req)` where `config` is a parameter of a function of the audited source (a generic server
 * runner handed its behaviour: `runMCPServer({ tools, handleRequest: async (req) => … })`): the values its callers
 * put under that member in the object literal they pass there (read at every call site, through a const holding
 * the literal). A caller passing anything else adds nothing. Call sites come from the index built once per audit.
 */
const filesMemo = new WeakMap<object, SourceFile[]>();
function argumentMembers(obj: Node, member: string, code: Code): Node[] {
  const d = Node.isIdentifier(obj) ? declarationOf(obj) : undefined;
  const param = d?.getParent();
  if (!param || !Node.isParameterDeclaration(param) || param.getNameNode() !== d || param.isRestParameter()) return [];
  return membersPassedTo(param, member, code);
}

/** `handleRequest(req)` with `function runServer({ tools, handleRequest })`: the same, for a member destructured in the parameter list. */
function destructuredMembers(id: Node, code: Code): Node[] {
  const d = Node.isIdentifier(id) ? declarationOf(id) : undefined;
  const el = d?.getParent();
  if (!el || !Node.isBindingElement(el) || el.getNameNode() !== d || el.getDotDotDotToken()) return [];
  const pattern = el.getParent();
  const param = pattern?.getParent();
  if (!pattern || !Node.isObjectBindingPattern(pattern) || !param || !Node.isParameterDeclaration(param)) return [];
  const key = el.getPropertyNameNode() ? propertyName(el.getPropertyNameNode()!) : el.getName();
  return key ? membersPassedTo(param, key, code) : [];
}

function membersPassedTo(param: Node, member: string, code: Code): Node[] {
  if (!Node.isParameterDeclaration(param)) return [];
  const fn = param.getParent();
  if (!isFunctionLike(fn)) return [];
  const index = fn.getParameters().indexOf(param);
  let files = filesMemo.get(code.sources);
  if (!files) filesMemo.set(code.sources, (files = code.files.map(([, sf]) => sf)));
  const out: Node[] = [];
  for (const site of callSitesOf(fn, files, code.sources)) {
    if (!Node.isCallExpression(site)) continue;
    const args = site.getArguments();
    if (args.slice(0, index + 1).some((a) => Node.isSpreadElement(a))) continue;
    const arg = args[index];
    const o = arg ? objectLiteralOf(arg, code.sources) : undefined;
    const m = o ? propertyValue(o, member) : undefined;
    if (m) out.push(m);
  }
  return out;
}

/** The methods of the classes of the audited source that have this name (see methodIndex). */
export function methodsNamed(code: Code, name: string): readonly Fn[] {
  return methodIndex(code).get(name) ?? [];
}

const methodIndexMemo = new WeakMap<object, Map<string, Fn[]>>();
/** The methods of the classes of the audited source, by name (memoised per audit). */
function methodIndex(code: Code): Map<string, Fn[]> {
  const hit = methodIndexMemo.get(code.sources);
  if (hit) return hit;
  const index = new Map<string, Fn[]>();
  for (const [, sf] of code.files) {
    for (const m of findNodes(sf, (cn) => ts.isMethodDeclaration(cn) && !!cn.body && ts.isClassLike(cn.parent))) {
      if (!Node.isMethodDeclaration(m)) continue;
      const name = propertyName(m.getNameNode());
      if (!name) continue;
      const list = index.get(name) ?? [];
      list.push(m);
      index.set(name, list);
    }
  }
  methodIndexMemo.set(code.sources, index);
  return index;
}

/**
 * A member of a module namespace that a bundler (esbuild) built in the bundle: `var docs_exports = {};
 * __export(docs_exports, { handleTool: () => handleTool2 })` — the function the getter returns.
 */
function bundledExport(v: Node, member: string): Node | undefined {
  const id = unwrap(v);
  if (!Node.isIdentifier(id)) return undefined;
  const name = id.getText();
  for (const call of ofKinds(id.getSourceFile(), [SyntaxKind.CallExpression], (cn) => {
    const c = cn as ts.CallExpression;
    return ts.isIdentifier(c.expression) && c.expression.text === '__export' && c.arguments.length === 2 && ts.isIdentifier(c.arguments[0]!) && c.arguments[0].text === name;
  })) {
    if (!Node.isCallExpression(call)) continue;
    const table = call.getArguments()[1];
    const getter = table && Node.isObjectLiteralExpression(table) ? propertyValue(table, member) : undefined;
    const g = getter && unwrap(getter);
    if (g && Node.isArrowFunction(g) && !Node.isBlock(g.getBody())) return g.getBody();
  }
  return undefined;
}

/** The values a name may hold when it is bound to an entry of a table (see dispatchTargets). */
function valuesOfName(id: Node, code: Code, depth: number): Node[] {
  if (!Node.isIdentifier(id) || depth > 3) return [];
  const d = declarationOf(id);
  const decl = d?.getParent();
  if (!d || !decl) return [];
  // for (const tool of tools)
  if (Node.isVariableDeclaration(decl) && decl.getNameNode() === d) {
    const list = decl.getParent();
    const stmt = list?.getParent();
    if (Node.isForOfStatement(stmt) && stmt.getInitializer() === list) return elementsOf(stmt.getExpression(), code, depth + 1);
    const init = decl.getInitializer();
    return init ? entryValues(init, code, depth + 1) : [];
  }
  // tools.forEach((tool) => …), tools.map((tool) => …)
  if (Node.isParameterDeclaration(decl) && decl.getNameNode() === d) {
    const fn = decl.getParent();
    const call = fn?.getParent();
    if (isFunctionLike(fn) && fn.getParameters()[0] === decl && Node.isCallExpression(call)) {
      const callee = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(callee) && ['forEach', 'map', 'flatMap'].includes(callee.getName()) && call.getArguments().includes(fn)) {
        return elementsOf(callee.getExpression(), code, depth + 1);
      }
    }
  }
  return [];
}

/** What an initializer picks out of a table: `t[k]`, `m.get(k)`, `arr.find(…)`, with `?? x` / `|| x` / `!` around. */
function entryValues(init: Node, code: Code, depth: number): Node[] {
  let n = unwrap(init);
  while (Node.isAwaitExpression(n) || Node.isNonNullExpression(n)) n = unwrap(n.getExpression());
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) return entryValues(n.getLeft(), code, depth);
  if (Node.isElementAccessExpression(n)) return tableValues(n, code, depth);
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee) && ['find', 'findLast', 'get'].includes(callee.getName())) return elementsOf(callee.getExpression(), code, depth);
  }
  return [];
}

/** The values of the table `t` in `t[k]` (k not a literal: a literal key is an ordinary member). */
function tableValues(access: Node, code: Code, depth: number): Node[] {
  if (!Node.isElementAccessExpression(access)) return [];
  const key = unwrap(access.getArgumentExpression() ?? access);
  if (Node.isStringLiteral(key) || Node.isNumericLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key)) return [];
  return elementsOf(access.getExpression(), code, depth);
}

/** The entries of a table: an array literal's elements, an object literal's property values, a `new Map([[k, v], …])`'s values, `Object.values(o)`. */
function elementsOf(expr: Node, code: Code, depth: number): Node[] {
  if (depth > 4) return [];
  let n = unwrap(expr);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, code.sources) : undefined;
    if (!v || v === n) return [];
    n = unwrap(v);
    if (Node.isVariableDeclaration(n)) {
      const init = n.getInitializer();
      if (!init) return [];
      n = unwrap(init);
    }
  }
  const out: Node[] = [];
  if (Node.isArrayLiteralExpression(n)) {
    for (const e of n.getElements()) {
      if (Node.isSpreadElement(e)) out.push(...elementsOf(e.getExpression(), code, depth + 1));
      else if (Node.isArrayLiteralExpression(unwrap(e)) && (unwrap(e) as Node & { getElements(): Node[] }).getElements().length === 2) out.push((unwrap(e) as Node & { getElements(): Node[] }).getElements()[1]!);
      else out.push(e);
    }
    return out;
  }
  if (Node.isObjectLiteralExpression(n)) {
    for (const p of n.getProperties()) {
      if (Node.isMethodDeclaration(p)) out.push(p);
      else if (Node.isPropertyAssignment(p)) out.push(p.getInitializerOrThrow());
      else if (Node.isShorthandPropertyAssignment(p)) out.push(p.getNameNode());
      else if (Node.isSpreadAssignment(p)) out.push(...elementsOf(p.getExpression(), code, depth + 1));
    }
    return out;
  }
  if (Node.isNewExpression(n) && n.getExpression().getText() === 'Map' && n.getArguments()[0]) return elementsOf(n.getArguments()[0]!, code, depth + 1);
  if (Node.isCallExpression(n) && unwrap(n.getExpression()).getText().replace(/\s+/g, '') === 'Object.values' && n.getArguments()[0]) return elementsOf(n.getArguments()[0]!, code, depth + 1);
  // A table a function of the source builds and returns (`{ ...createIssueHandlers(client), ...createBoardHandlers(client) }`
  // with `const createIssueHandlers = (api) => ({ list_issues: async (req) => … })`): the entries of the literal it returns.
  if (Node.isCallExpression(n)) {
    const fn = safeFunctionOf(unwrap(n.getExpression()), code);
    if (!fn) return [];
    for (const r of returnedExpressions(fn)) {
      const lit = unwrap(r);
      if (Node.isObjectLiteralExpression(lit) || Node.isArrayLiteralExpression(lit)) out.push(...elementsOf(lit, code, depth + 1));
    }
    return out;
  }
  return [];
}

function safeFunctionOf(n: Node, code: Code): Fn | undefined {
  try {
    return functionOf(n, code.sources);
  } catch {
    return undefined;
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* Where a value goes, syntactically                                                               */

/** Calls a value passes through unchanged in substance (serialised, copied, formatted). */
export const PASS_CALLS = new Set([
  'JSON.stringify',
  'String',
  'Object.entries',
  'Object.values',
  'Object.assign',
  'Object.fromEntries',
  'structuredClone',
  'inspect',
  'util.inspect',
  'format',
  'util.format',
]);
/** Methods of arrays and strings that keep the content: `Object.entries(x).map(...).join('\n')`. */
const PASS_METHODS = new Set(['map', 'filter', 'join', 'slice', 'concat', 'toString', 'sort', 'flat', 'flatMap']);

const calleeText = (call: Node): string => (Node.isCallExpression(call) ? unwrap(call.getExpression()).getText().replace(/\s+/g, '') : '');

/**
 * One step up from `cur` when its parent carries its value on: parentheses and casts, object and array
 * literals, spreads, template literals, `+`, `??`, `||`, `&&`, a branch of `?:`, a pass-through call
 * (PASS_CALLS) or array/string method (PASS_METHODS). Undefined when the value stops there.
 */
export function passThrough(cur: Node): Node | undefined {
  const p = cur.getParent();
  if (!p) return undefined;
  if (
    Node.isParenthesizedExpression(p) ||
    Node.isAsExpression(p) ||
    Node.isSatisfiesExpression(p) ||
    Node.isNonNullExpression(p) ||
    Node.isSpreadAssignment(p) ||
    Node.isSpreadElement(p) ||
    Node.isObjectLiteralExpression(p) ||
    Node.isArrayLiteralExpression(p) ||
    Node.isTemplateSpan(p) ||
    Node.isTemplateExpression(p) ||
    Node.isShorthandPropertyAssignment(p) ||
    (Node.isPropertyAssignment(p) && p.getInitializer() === cur) ||
    (Node.isBinaryExpression(p) && ['+', '??', '||', '&&'].includes(p.getOperatorToken().getText())) ||
    (Node.isConditionalExpression(p) && p.getCondition() !== cur)
  ) {
    return p;
  }
  if (Node.isCallExpression(p) && p.getArguments().includes(cur as never) && PASS_CALLS.has(calleeText(p))) return p;
  if (Node.isPropertyAccessExpression(p) && p.getExpression() === cur && PASS_METHODS.has(p.getName())) {
    const call = p.getParent();
    if (Node.isCallExpression(call) && call.getExpression() === p) return call;
  }
  return undefined;
}

export type Sink = { kind: 'field'; name: string } | { kind: 'new'; node: Node; callee: string };

const RESULT_FIELDS = new Set(['content', 'structuredContent']);

/**
 * Where a value flows, following passThrough: into a tool result field (`content`, `structuredContent`),
 * or into the arguments of a `new X(...)` expression. A `const` it is stored in is followed to its uses
 * in the same block (up to 3 hops).
 */
export function sinkOf(node: Node, depth = 0): Sink | undefined {
  let cur: Node = node;
  for (let steps = 0; steps < 60; steps++) {
    const p = cur.getParent();
    if (!p) return undefined;
    if (Node.isPropertyAssignment(p) && p.getInitializer() === cur) {
      const name = propertyName(p.getNameNode());
      if (name && RESULT_FIELDS.has(name)) return { kind: 'field', name };
    }
    if (Node.isShorthandPropertyAssignment(p) && RESULT_FIELDS.has(p.getName())) return { kind: 'field', name: p.getName() };
    if (Node.isNewExpression(p) && (p.getArguments() as Node[]).includes(cur)) {
      return { kind: 'new', node: p, callee: unwrap(p.getExpression()).getText() };
    }
    const up = passThrough(cur);
    if (up) {
      cur = up;
      continue;
    }
    if (Node.isVariableDeclaration(p) && p.getInitializer() === cur && Node.isIdentifier(p.getNameNode()) && depth < 3) {
      const name = p.getName();
      const scope = p.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a)) ?? p.getSourceFile();
      let found: Sink | undefined;
      // Raw walk: only the identifiers spelling the name are wrapped.
      for (const ref of findNodes(scope, (cn) => ts.isIdentifier(cn) && cn.text === name)) {
        if (found) break;
        if (!Node.isIdentifier(ref) || ref === p.getNameNode()) continue;
        const rp = ref.getParent();
        if (Node.isPropertyAccessExpression(rp) && rp.getNameNode() === ref) continue;
        if (Node.isPropertyAssignment(rp) && rp.getNameNode() === ref) continue;
        found = sinkOf(ref, depth + 1);
      }
      return found;
    }
    return undefined;
  }
  return undefined;
}
