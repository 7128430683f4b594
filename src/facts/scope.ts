import { posix } from 'node:path';
import {
  Node,
  SyntaxKind,
  ts,
  type ArrowFunction,
  type BindingElement,
  type ClassDeclaration,
  type ClassExpression,
  type FunctionDeclaration,
  type FunctionExpression,
  type Identifier,
  type MethodDeclaration,
  type NewExpression,
  type SourceFile,
} from './morph.js';
import type { ParsedSources } from './ts-source.js';
import { propertyName, rawPropertyName, rawUnwrap, stringValue, unwrap, wrapNode } from './ts-source.js';

/**
 * Name resolution without a type checker, shared by facts/server-model and facts/flow.
 *
 * - `declarationOf(id)` walks the enclosing scopes of an identifier (function parameters, block, case
 *   clause and file statements, for/catch bindings, imports) and returns the identifier that declares
 *   it. Block-scoped lookup only: a `var` declared in a nested block is not hoisted.
 * - `functionOf(expr)` follows an expression to a function written in the audited source: a function
 *   literal, a local function or `const f = () => …`, or one imported by a relative path
 *   (`import { f } from './f.js'`, `import * as m from './m.js'` then `m.f`, `import f from './f.js'`,
 *   CommonJS `require`), a method called on `this` in a class, `promisify(f)`, or the one function literal
 *   given to a wrapper (`withTelemetry(async (request) => …)`).
 * - `originOf(expr)` says which module a callee comes from, for sink tables:
 *   `exec` imported from 'node:child_process' is { module: 'child_process', path: ['exec'] };
 *   `cp.exec` with `import * as cp` (or `const cp = require('child_process')`) is the same; a name that
 *   is declared nowhere is a global ({ module: '<global>' }). `promisify(f)` and `util.promisify(f)` keep
 *   the origin of `f`. The `node:` prefix is dropped.
 */

export type FunctionLikeNode = ArrowFunction | FunctionExpression | FunctionDeclaration | MethodDeclaration;

export const GLOBAL = '<global>';

export interface Origin {
  /** Module specifier without the `node:` prefix, or '<global>'. */
  module: string;
  /** Property path from the module's namespace ([] for the namespace or default export itself). */
  path: string[];
}

export function isFunctionLike(n: Node | undefined): n is FunctionLikeNode {
  return !!n && (Node.isArrowFunction(n) || Node.isFunctionExpression(n) || Node.isFunctionDeclaration(n) || Node.isMethodDeclaration(n));
}

const DOWNLEVEL_ASYNC = /^(?:__awaiter|__async)$/;

/**
 * The generator a compiler's downlevel async function runs: its body is `return __awaiter(this, arguments, P,
 * function* (…) { … })` (TypeScript, also `tslib.__awaiter`), `return __async(this, arguments, function* (…) { … })`
 * (esbuild), or, for an arrow, `(request) => __awaiter(void 0, void 0, void 0, function* () { … })`. With
 * `passesArguments`, only the shape that hands the call's `arguments` to the generator (its parameters then receive
 * the arguments in the same positions). undefined for any other function.
 */
export function downlevelAsyncBody(fn: { getBody(): Node | undefined }, passesArguments = true): FunctionLikeNode | undefined {
  const body = fn.getBody();
  if (!body) return undefined;
  let ret: ts.Expression | undefined;
  if (Node.isBlock(body)) {
    const stmts = body.compilerNode.statements;
    ret = stmts.length === 1 && ts.isReturnStatement(stmts[0]!) ? stmts[0].expression : undefined;
  } else if (!passesArguments) ret = body.compilerNode as ts.Expression;
  const call = ret && rawUnwrap(ret);
  if (!call || !ts.isCallExpression(call)) return undefined;
  const callee = rawUnwrap(call.expression);
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
  if (!name || !DOWNLEVEL_ASYNC.test(name)) return undefined;
  if (passesArguments && !call.arguments.some((a) => ts.isIdentifier(a) && a.text === 'arguments')) return undefined;
  const gen = call.arguments[call.arguments.length - 1];
  if (!gen || !ts.isFunctionExpression(gen) || !gen.asteriskToken) return undefined;
  const wrapped = wrapNode(body.getSourceFile(), gen);
  return isFunctionLike(wrapped) ? wrapped : undefined;
}

/** Every identifier a binding name declares (nested destructuring patterns included). */
export function bindingNames(name: Node): Identifier[] {
  if (Node.isIdentifier(name)) return [name];
  if (Node.isObjectBindingPattern(name) || Node.isArrayBindingPattern(name)) {
    const out: Identifier[] = [];
    for (const el of name.getElements()) {
      if (Node.isBindingElement(el)) out.push(...bindingNames(el.getNameNode()));
    }
    return out;
  }
  return [];
}

const declCache = new WeakMap<object, Identifier | null>();
const scopeCache = new WeakMap<object, Map<string, ts.Identifier>>();

/* Name resolution runs on raw compiler nodes (no ts-morph wrapper is made for the ancestors walked or the
   names indexed); only the declaring identifier found is wrapped. */

function rawBindingNames(name: ts.BindingName | undefined, out: ts.Identifier[]): ts.Identifier[] {
  if (!name) return out;
  if (ts.isIdentifier(name)) out.push(name);
  else for (const el of name.elements) if (ts.isBindingElement(el)) rawBindingNames(el.name, out);
  return out;
}

/** The identifier a binding name declares under `name` (nested destructuring patterns included), without building a list. */
function findName(b: ts.BindingName | undefined, name: string): ts.Identifier | undefined {
  if (!b) return undefined;
  if (ts.isIdentifier(b)) return b.text === name ? b : undefined;
  for (const el of b.elements) {
    if (!ts.isBindingElement(el)) continue;
    const f = findName(el.name, name);
    if (f) return f;
  }
  return undefined;
}

/** The names a block (or file, module block, case clause) declares directly, built once per block. */
function scopeIndex(block: ts.Node & { statements: ts.NodeArray<ts.Statement> }): Map<string, ts.Identifier> {
  const hit = scopeCache.get(block);
  if (hit) return hit;
  const index = new Map<string, ts.Identifier>();
  const add = (id: ts.Node | undefined): void => {
    if (id && ts.isIdentifier(id) && !index.has(id.text)) index.set(id.text, id);
  };
  for (const st of block.statements) {
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) for (const id of rawBindingNames(d.name, [])) add(id);
    } else if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) {
      add(st.name);
    } else if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      add(clause?.name);
      const nb = clause?.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) add(nb.name);
      else if (nb) for (const sp of nb.elements) add(sp.name);
    }
  }
  scopeCache.set(block, index);
  return index;
}

/** isFunctionLike on a compiler node. */
export const isRawFunctionLike = (n: ts.Node): n is ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration | ts.MethodDeclaration =>
  ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);

/** The identifier that declares `id` (a parameter, variable, function, class, enum or import binding), or undefined for a global. */
export function declarationOf(id: Identifier): Identifier | undefined {
  const key = id.compilerNode;
  const hit = declCache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const found = rawDeclarationOf(key);
  const wrapped = found ? (wrapNode(id.getSourceFile(), found) as Identifier) : undefined;
  declCache.set(key, wrapped ?? null);
  return wrapped;
}

const rawDeclCache = new WeakMap<ts.Identifier, ts.Identifier | null>();

/** declarationOf on compiler nodes (memoised): the declaring identifier, not wrapped. */
export function rawDeclarationOf(key: ts.Identifier): ts.Identifier | undefined {
  const hit = rawDeclCache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const name = key.text;
  let found: ts.Identifier | undefined;
  let cur: ts.Node | undefined = key.parent;
  while (cur && !found) {
    // Constructors and accessors declare parameters too (`constructor(private root: string)`, `constructor(dir) { this.git = simpleGit(dir); }`).
    if (isRawFunctionLike(cur) || ts.isConstructorDeclaration(cur) || ts.isSetAccessorDeclaration(cur) || ts.isGetAccessorDeclaration(cur)) {
      for (const p of cur.parameters) {
        found = findName(p.name, name);
        if (found) break;
      }
      if (!found && ts.isFunctionExpression(cur) && cur.name?.text === name) found = cur.name;
    } else if (ts.isBlock(cur) || ts.isSourceFile(cur) || ts.isModuleBlock(cur) || ts.isCaseClause(cur) || ts.isDefaultClause(cur)) {
      found = scopeIndex(cur).get(name);
    } else if (ts.isForOfStatement(cur) || ts.isForInStatement(cur) || ts.isForStatement(cur)) {
      const init = cur.initializer;
      if (init && ts.isVariableDeclarationList(init)) {
        for (const d of init.declarations) {
          found = findName(d.name, name);
          if (found) break;
        }
      }
    } else if (ts.isCatchClause(cur)) {
      const d = cur.variableDeclaration;
      if (d) found = findName(d.name, name);
    }
    cur = cur.parent;
  }
  rawDeclCache.set(key, found ?? null);
  return found;
}

/** The identifier a file declares at its top level under `name` (wrapped), or undefined. */
function localDeclaration(sf: SourceFile, name: string): Identifier | undefined {
  const found = scopeIndex(sf.compilerNode).get(name);
  return found ? (wrapNode(sf, found) as Identifier) : undefined;
}


/** The declaration node (VariableDeclaration, Parameter, BindingElement, FunctionDeclaration, import binding…) of a declaring identifier. */
export function declarationNode(declId: Identifier): Node | undefined {
  return declId.getParent();
}

/** The initializer of `const x = …` when `declId` names a plain (non-destructured) variable. */
export function initializerOf(declId: Identifier): Node | undefined {
  const d = declId.getParent();
  if (Node.isVariableDeclaration(d) && d.getNameNode() === declId) {
    const init = d.getInitializer();
    return init ? unwrap(init) : undefined;
  }
  return undefined;
}

/* ------------------------------------------------------------- searching */

/**
 * The descendants of a node (a file, a function body) whose compiler node passes `test`, found by walking
 * the compiler tree (cheap) and wrapping only the matches in ts-morph nodes (a full forEachDescendant
 * wraps every node).
 */
/** Whether `node` lies strictly inside `ancestor` (compiler parents: no children list is built). */
export function isDescendantOf(node: Node, ancestor: Node): boolean {
  const a = ancestor.compilerNode;
  for (let p = node.compilerNode.parent; p; p = p.parent) if (p === a) return true;
  return false;
}

export function findNodes(root: Node, test: (cn: ts.Node) => boolean): Node[] {
  const sf = root.getSourceFile();
  const matches: ts.Node[] = [];
  const visit = (cn: ts.Node): void => {
    if (test(cn)) matches.push(cn);
    ts.forEachChild(cn, visit);
  };
  if (!Node.isSourceFile(root)) visit(root.compilerNode);
  else ts.forEachChild(root.compilerNode, visit);
  return matches.map((cn) => wrapNode(sf, cn));
}

/* ---------------------------------------------------------------- modules */

const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The parsed file a relative import specifier points to (`./x.js` may be written `x.ts` in source), or undefined.
 * A bare specifier resolves only to a dependency whose files facts/published read (`sources.entries`).
 */
export function resolveRelativeModule(fromRel: string, spec: string, sources: ParsedSources): SourceFile | undefined {
  if (!spec.startsWith('.')) {
    const f = sources.entries?.get(spec);
    return f ? sources.files.get(f) : undefined;
  }
  const base = posix.normalize(posix.join(posix.dirname(fromRel), spec));
  const stem = base.replace(/\.[cm]?[jt]sx?$/, '');
  const candidates = [base, ...EXTS.map((e) => stem + e), ...EXTS.map((e) => `${base}/index${e}`)];
  for (const c of candidates) {
    const sf = sources.files.get(c);
    if (sf) return sf;
  }
  return undefined;
}

/** The node an export name stands for in a file: a function, a `const` initializer, a class, or an identifier re-exported. */
export function exportedNode(sf: SourceFile, name: string, sources: ParsedSources, depth = 0): Node | undefined {
  if (depth > 4) return undefined;
  if (name === 'default') {
    for (const fn of sf.getFunctions()) if (fn.hasExportKeyword() && fn.hasDefaultKeyword()) return fn;
    // `export default class GetProfile extends AbstractTool { … }` (compiled ESM keeps it as written).
    for (const cl of sf.getClasses()) if (cl.hasExportKeyword() && cl.hasDefaultKeyword()) return cl;
    for (const ea of sf.getExportAssignments()) if (!ea.isExportEquals()) return unwrap(ea.getExpression());
  }
  for (const fn of sf.getFunctions()) if (fn.hasExportKeyword() && fn.getName() === name) return fn;
  for (const st of sf.getVariableStatements()) {
    if (!st.hasExportKeyword()) continue;
    for (const d of st.getDeclarations()) {
      if (d.getName() === name) {
        const init = d.getInitializer();
        return init ? unwrap(init) : undefined;
      }
    }
  }
  for (const cl of sf.getClasses()) if (cl.hasExportKeyword() && cl.getName() === name) return cl;
  const cjs = commonJsExport(sf, name, sources, depth);
  if (cjs) return cjs;
  for (const ed of sf.getExportDeclarations()) {
    for (const ne of ed.getNamedExports()) {
      const exported = ne.getAliasNode()?.getText() ?? ne.getName();
      if (exported !== name) continue;
      const spec = ed.getModuleSpecifierValue();
      if (spec) {
        const target = resolveRelativeModule(sources.rel(sf), spec, sources);
        return target ? exportedNode(target, ne.getName(), sources, depth + 1) : undefined;
      }
      const local = localDeclaration(sf, ne.getName());
      return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
    }
    // export * from './x'
    const spec = ed.getModuleSpecifierValue();
    if (spec && ed.getNamedExports().length === 0 && !ed.getNamespaceExport()) {
      const target = resolveRelativeModule(sources.rel(sf), spec, sources);
      const hit = target ? exportedNode(target, name, sources, depth + 1) : undefined;
      if (hit) return hit;
    }
  }
  return undefined;
}

/** `ns.name` where `ns` holds a whole module (`import * as ns`, `const ns = require(…)`): the node that export stands for. */
export function moduleMember(n: Node, sources: ParsedSources): Node | undefined {
  if (!Node.isPropertyAccessExpression(n)) return undefined;
  const obj = unwrap(n.getExpression());
  const d = Node.isIdentifier(obj) ? declarationOf(obj) : undefined;
  const v = d ? valueOfDeclaration(d, sources) : undefined;
  return v && Node.isSourceFile(v) ? exportedNode(v, n.getName(), sources) : undefined;
}

/** `require('<spec>')`, `import('<spec>')` or `await import('<spec>')` → spec. */
function requireSpec(n: Node): string | undefined {
  let u = unwrap(n);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (!Node.isCallExpression(u)) return undefined;
  const c = u.getExpression();
  if ((Node.isIdentifier(c) && c.getText() === 'require') || c.getKind() === SyntaxKind.ImportKeyword) return stringValue(u.getArguments()[0]);
  return undefined;
}

/**
 * The module an object pattern destructures: `{ f } = require('./m.js')` (or `await import()`), or one element of
 * an array pattern over modules loaded together, `[{ f }, { g }] = await Promise.all([import('./a.js'), import('./b.js')])`.
 */
function patternSpec(pattern: Node | undefined): string | undefined {
  const holder = pattern?.getParent();
  if (Node.isVariableDeclaration(holder)) {
    const init = holder.getInitializer();
    return init ? requireSpec(init) : undefined;
  }
  return Node.isBindingElement(holder) && Node.isArrayBindingPattern(holder.getParent()) ? loadedSpec(holder) : undefined;
}

/** For an element of `[a, { b }] = await Promise.all([import('./a.js'), import('./b.js')])`: the module loaded at its place. */
function loadedSpec(el: Node): string | undefined {
  const arr = el.getParent();
  const decl = arr?.getParent();
  if (!Node.isArrayBindingPattern(arr) || !Node.isVariableDeclaration(decl)) return undefined;
  let init = decl.getInitializer() && unwrap(decl.getInitializer()!);
  while (init && Node.isAwaitExpression(init)) init = unwrap(init.getExpression());
  if (!init || !Node.isCallExpression(init) || unwrap(init.getExpression()).getText() !== 'Promise.all') return undefined;
  const list = init.getArguments()[0] && unwrap(init.getArguments()[0]!);
  const loaded = list && Node.isArrayLiteralExpression(list) ? list.getElements()[arr.getElements().indexOf(el as never)] : undefined;
  return loaded ? requireSpec(loaded) : undefined;
}

/** `void 0`, or a chain of export assignments ending in it (`exports.b = exports.c = void 0`). */
function isVoidPlaceholder(n: Node): boolean {
  let v = unwrap(n);
  while (Node.isBinaryExpression(v) && v.getOperatorToken().getKind() === SyntaxKind.EqualsToken) v = unwrap(v.getRight());
  return Node.isVoidExpression(v);
}

/** CommonJS exports: `module.exports = { f, g: h }`, `module.exports = f` (as 'default'), `exports.f = …`, `module.exports.f = …`. */
function commonJsExport(sf: SourceFile, name: string, sources: ParsedSources, depth: number): Node | undefined {
  for (const st of sf.getStatements()) {
    if (!Node.isExpressionStatement(st)) continue;
    const e = unwrap(st.getExpression());
    // esbuild's CommonJS bundle: `__export(src_exports, { tools: () => tools }); module.exports = __toCommonJS(src_exports);`
    if (Node.isCallExpression(e) && unwrap(e.getExpression()).getText() === '__export' && sf.getFullText().includes('__toCommonJS(')) {
      const table = e.getArguments()[1] && unwrap(e.getArguments()[1]!);
      const p = table && Node.isObjectLiteralExpression(table) ? table.getProperty(name) : undefined;
      const getter = p && Node.isPropertyAssignment(p) ? unwrap(p.getInitializerOrThrow()) : undefined;
      const body = getter && Node.isArrowFunction(getter) ? unwrap(getter.getBody()) : undefined;
      if (body && Node.isIdentifier(body)) {
        const local = localDeclaration(sf, body.getText());
        return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
      }
      continue;
    }
    if (!Node.isBinaryExpression(e) || e.getOperatorToken().getText() !== '=') continue;
    const target = e.getLeft().getText().replace(/\s+/g, '');
    const value = unwrap(e.getRight());
    // TypeScript's CommonJS preamble `exports.a = exports.b = void 0;` declares the names; the values come later.
    if (isVoidPlaceholder(value)) continue;
    if (target === 'module.exports') {
      if (Node.isObjectLiteralExpression(value)) {
        for (const p of value.getProperties()) {
          if (Node.isShorthandPropertyAssignment(p) && p.getName() === name) {
            const local = localDeclaration(sf, name);
            return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
          }
          if (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === name) {
            const v = unwrap(p.getInitializerOrThrow());
            if (Node.isIdentifier(v)) {
              const local = localDeclaration(sf, v.getText());
              return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
            }
            return v;
          }
          if (Node.isMethodDeclaration(p) && propertyName(p.getNameNode()) === name) return p;
        }
      } else if (name === 'default') {
        if (Node.isIdentifier(value)) {
          const local = localDeclaration(sf, value.getText());
          return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
        }
        return value;
      }
    } else if (target === `exports.${name}` || target === `module.exports.${name}`) {
      if (Node.isIdentifier(value)) {
        const local = localDeclaration(sf, value.getText());
        return local ? valueOfDeclaration(local, sources, depth + 1) : undefined;
      }
      return value;
    }
  }
  return undefined;
}

/** What a declaring identifier holds, when it can be read: a function, a `const` initializer, or what an import from a relative file stands for. */
export function valueOfDeclaration(declId: Identifier, sources: ParsedSources, depth = 0): Node | undefined {
  if (depth > 6) return undefined;
  const d = declId.getParent();
  if (!d) return undefined;
  if (Node.isFunctionDeclaration(d) || Node.isClassDeclaration(d)) return d;
  if (Node.isVariableDeclaration(d) && d.getNameNode() === declId) {
    const init = d.getInitializer();
    if (!init) return undefined;
    // const m = require('./m.js'): the module itself (its exports are read from it).
    const spec = requireSpec(init);
    if (spec) return resolveRelativeModule(sources.rel(declId.getSourceFile()), spec, sources);
    return unwrap(init);
  }
  // const { f } = require('./m.js'); const [{ f }, m] = await Promise.all([import('./a.js'), import('./m.js')])
  if (Node.isBindingElement(d)) {
    // `m` of `[…, m] = await Promise.all([…, import('./m.js')])`: the module itself.
    const own = Node.isArrayBindingPattern(d.getParent()) ? loadedSpec(d) : undefined;
    if (own) return resolveRelativeModule(sources.rel(declId.getSourceFile()), own, sources);
    const spec = patternSpec(d.getParent());
    if (!spec) return undefined;
    const target = resolveRelativeModule(sources.rel(declId.getSourceFile()), spec, sources);
    const pn = d.getPropertyNameNode();
    const name = pn ? propertyName(pn) : d.getName();
    return target && name ? exportedNode(target, name, sources, depth + 1) : undefined;
  }
  const imp = importOf(declId);
  if (imp) {
    const target = resolveRelativeModule(sources.rel(declId.getSourceFile()), imp.spec, sources);
    if (!target) return undefined;
    if (imp.imported === '*') return target;
    return exportedNode(target, imp.imported, sources, depth + 1);
  }
  return undefined;
}

/** For an import binding: the module specifier and the imported name ('default', '*' for a namespace, or the export name). */
export function importOf(declId: Identifier): { spec: string; imported: string } | undefined {
  return rawImportOf(declId.compilerNode);
}

/** The module specifier's value (a string literal in any import that parses). */
const specOf = (decl: ts.ImportDeclaration): string => (decl.moduleSpecifier as ts.StringLiteral).text;

function rawImportOf(declId: ts.Identifier): { spec: string; imported: string } | undefined {
  const p = declId.parent;
  if (!p) return undefined;
  if (ts.isImportSpecifier(p)) {
    const decl = p.parent.parent.parent;
    return ts.isImportDeclaration(decl) ? { spec: specOf(decl), imported: (p.propertyName ?? p.name).getText() } : undefined;
  }
  if (ts.isImportClause(p)) return ts.isImportDeclaration(p.parent) ? { spec: specOf(p.parent), imported: 'default' } : undefined;
  if (ts.isNamespaceImport(p)) {
    let decl: ts.Node | undefined = p.parent;
    while (decl && !ts.isImportDeclaration(decl)) decl = decl.parent;
    return decl ? { spec: specOf(decl as ts.ImportDeclaration), imported: '*' } : undefined;
  }
  return undefined;
}

/**
 * Whether functionOf may find a function behind this expression, decided on compiler nodes (a superset: a
 * `false` is certain). Lets a caller skip, before wrapping, the many calls of globals, parameters and
 * values computed at run time.
 */
export function mayResolveFunction(cn: ts.Node): boolean {
  const n = rawUnwrap(cn);
  if (isRawFunctionLike(n) || ts.isCallExpression(n)) return true;
  if (ts.isIdentifier(n)) return rawDeclarationOf(n) !== undefined;
  if (ts.isPropertyAccessExpression(n)) return mayHoldMembers(n.expression, 0);
  return false;
}

/** Whether an object may resolve to a module, object literal, class or instance functionOf can read (a superset). */
function mayHoldMembers(cn: ts.Node, depth: number): boolean {
  let o = rawUnwrap(cn);
  while (ts.isAwaitExpression(o)) o = rawUnwrap(o.expression);
  if (depth > 6) return false;
  if (ts.isIdentifier(o)) return rawDeclarationOf(o) !== undefined;
  if (ts.isObjectLiteralExpression(o) || ts.isNewExpression(o) || o.kind === SyntaxKind.ThisKeyword || o.kind === SyntaxKind.SuperKeyword) return true;
  // this.manager.run(), a.b.run(): a field or a member of something readable
  if (ts.isPropertyAccessExpression(o)) return mayHoldMembers(o.expression, depth + 1);
  // Cls.getInstance().run(), (await import('./m.js')).run()
  if (ts.isCallExpression(o)) return o.expression.kind === SyntaxKind.ImportKeyword || mayResolveFunction(o.expression);
  return false;
}

const functionMemo = new WeakMap<object, FunctionLikeNode | null>();

/**
 * Follow an expression to a function written in the audited source (see the file header), or undefined.
 * Memoised per compiler node (the trees are shared by an audit's detectors).
 */
export function functionOf(expr: Node, sources: ParsedSources, depth = 0): FunctionLikeNode | undefined {
  if (depth > 0) return functionOfUncached(expr, sources, depth);
  const key = expr.compilerNode;
  const hit = functionMemo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const f = functionOfUncached(expr, sources, 0);
  functionMemo.set(key, f ?? null);
  return f;
}

function functionOfUncached(expr: Node, sources: ParsedSources, depth: number): FunctionLikeNode | undefined {
  if (depth > 6) return undefined;
  const n = unwrap(expr);
  if (isFunctionLike(n)) return n;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    return v && v !== n ? functionOf(v, sources, depth + 1) : undefined;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const name = n.getName();
    const obj = unwrap(n.getExpression());
    // m.f with `import * as m from './m.js'` (or `const m = await import('./m.js')`)
    if (Node.isIdentifier(obj)) {
      const d = declarationOf(obj);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && Node.isSourceFile(v)) {
        const e = exportedNode(v, name, sources);
        return e ? functionOf(e, sources, depth + 1) : undefined;
      }
      if (v && Node.isObjectLiteralExpression(v)) return memberFunction(v, name, sources, depth);
      // a.f with `const a = r(874)` in a webpack bundle: what module 874 exports as f.
      const wp = v && (Node.isCallExpression(v) || Node.isAwaitExpression(v)) ? webpackModuleOf(v) : undefined;
      const e = wp ? webpackExport(wp, name) : undefined;
      if (e) return functionOf(wrapNode(n.getSourceFile(), e), sources, depth + 1);
    }
    if (Node.isObjectLiteralExpression(obj)) return memberFunction(obj, name, sources, depth);
    // (await import('./m.js')).f
    const spec = requireSpec(obj);
    if (spec) {
      const target = resolveRelativeModule(sources.rel(n.getSourceFile()), spec, sources);
      const e = target ? exportedNode(target, name, sources) : undefined;
      return e ? functionOf(e, sources, depth + 1) : undefined;
    }
    // this.m() inside a class: the class's method m (its own, or inherited), or a property holding a function.
    if (Node.isThisExpression(obj) || obj.getKind() === SyntaxKind.SuperKeyword) {
      const cls = enclosingClass(n);
      if (!cls) return undefined;
      const isStatic = inStaticMember(n);
      const start = obj.getKind() === SyntaxKind.SuperKeyword ? baseClassOf(cls, sources) : cls;
      return start ? memberOf(start, name, isStatic, sources, depth) : undefined;
    }
    // Cls.m(): a static method of a class of the audited source.
    const staticCls = classValueOf(obj, sources);
    if (staticCls) return memberOf(staticCls, name, true, sources, depth);
    // x.m() where x is an instance of a class of the audited source (`new Cls()`, an exported instance, a
    // typed parameter or field, a singleton's getInstance()).
    const cls = classOf(obj, sources);
    if (cls) return memberOf(cls, name, false, sources, depth);
  }
  // promisify(f) / util.promisify(f): the function is f.
  if (Node.isCallExpression(n)) {
    const c = unwrap(n.getExpression());
    const cn = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
    if (cn === 'promisify' && n.getArguments()[0]) return functionOf(n.getArguments()[0]!, sources, depth + 1);
    // this.handleCall.bind(this): the function bound.
    if (cn === 'bind' && Node.isPropertyAccessExpression(c)) return functionOf(c.getExpression(), sources, depth + 1);
    // A wrapper around a function literal, `withTelemetry(async (request) => …)`: the function it wraps.
    const literals = n.getArguments().map(unwrap).filter(isFunctionLike);
    if (literals.length === 1) return literals[0];
    // Wrappers nested or around a named function: `log.wrapHandler('CallTool', withMetrics(async (r) => …))`,
    // `middleware.wrapToolHandler(handleToolCall)`: the one argument that is itself a function.
    if (literals.length === 0) {
      const inner = n
        .getArguments()
        .map(unwrap)
        .filter((a) => Node.isCallExpression(a) || Node.isIdentifier(a) || Node.isPropertyAccessExpression(a))
        .map((a) => functionOf(a, sources, depth + 1))
        .filter((f): f is FunctionLikeNode => !!f);
      if (inner.length === 1) return inner[0];
      // A handler factory of the audited source, `makeHandler(client, endpoint)` (tools registered from a table):
      // the one function literal it returns.
      if (inner.length === 0 && Node.isIdentifier(c)) {
        const factory = functionOf(c, sources, depth + 1);
        const made = factory ? returnedFunction(factory) : undefined;
        if (made) return made;
      }
    }
  }
  return undefined;
}

/** The single function literal a function returns (`return async (args) => …`, an arrow whose body is one), if it returns nothing else. */
function returnedFunction(fn: FunctionLikeNode): FunctionLikeNode | undefined {
  if (Node.isArrowFunction(fn)) {
    const body = unwrap(fn.getBody());
    if (isFunctionLike(body)) return body;
  }
  const body = (fn as Node & { getBody?: () => Node | undefined }).getBody?.();
  if (!body || !Node.isBlock(body)) return undefined;
  const returns: Node[] = [];
  const visit = (n: Node): void => {
    if (isFunctionLike(n)) return;
    if (Node.isReturnStatement(n)) returns.push(n);
    n.forEachChild(visit);
  };
  body.forEachChild(visit);
  const values = returns.map((r) => (Node.isReturnStatement(r) ? r.getExpression() : undefined));
  if (values.length !== 1 || !values[0]) return undefined;
  const v = unwrap(values[0]);
  return isFunctionLike(v) ? v : undefined;
}

function memberFunction(obj: Node, name: string, sources: ParsedSources, depth: number): FunctionLikeNode | undefined {
  if (!Node.isObjectLiteralExpression(obj)) return undefined;
  for (const p of obj.getProperties()) {
    if (Node.isMethodDeclaration(p) && propertyName(p.getNameNode()) === name) return p;
    if (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === name) return functionOf(p.getInitializerOrThrow(), sources, depth + 1);
    if (Node.isShorthandPropertyAssignment(p) && p.getName() === name) return functionOf(p.getNameNode(), sources, depth + 1);
  }
  return undefined;
}

/* ---------------------------------------------------------------- classes */

export type ClassNode = ClassDeclaration | ClassExpression;

/** The class (declaration or expression) a node is written in, seen through arrow functions (which keep `this`). */
export function enclosingClass(n: Node): ClassNode | undefined {
  for (let a = n.getParent(); a; a = a.getParent()) {
    if (Node.isClassDeclaration(a) || Node.isClassExpression(a)) return a;
    if (Node.isFunctionDeclaration(a) || Node.isFunctionExpression(a)) return undefined;
  }
  return undefined;
}

/** Whether `this` at a node means the class itself (a static method, property or block). */
function inStaticMember(n: Node): boolean {
  for (let a = n.getParent(); a; a = a.getParent()) {
    if (Node.isMethodDeclaration(a) || Node.isPropertyDeclaration(a) || Node.isGetAccessorDeclaration(a) || Node.isSetAccessorDeclaration(a)) return a.isStatic();
    if (Node.isClassStaticBlockDeclaration(a)) return true;
    if (Node.isConstructorDeclaration(a) || Node.isClassDeclaration(a) || Node.isClassExpression(a)) return false;
  }
  return false;
}

/** The class a class extends, when it is a class of the audited source. */
export function baseClassOf(cls: ClassNode, sources: ParsedSources): ClassNode | undefined {
  const ext = cls.getExtends();
  return ext ? classValueOf(ext.getExpression(), sources) : undefined;
}

/** A member function of a class by name (instance or static), looked up through the classes it extends. */
function memberOf(cls: ClassNode, name: string, isStatic: boolean, sources: ParsedSources, depth: number): FunctionLikeNode | undefined {
  let c: ClassNode | undefined = cls;
  for (let i = 0; c && i < 5; i++) {
    const m = isStatic ? c.getStaticMethod(name) : c.getInstanceMethod(name);
    if (m) return m;
    const prop = isStatic ? c.getStaticProperty(name) : c.getInstanceProperty(name);
    if (prop && Node.isPropertyDeclaration(prop)) {
      const init = prop.getInitializer();
      return init ? functionOf(init, sources, depth + 1) : undefined;
    }
    c = baseClassOf(c, sources);
  }
  return undefined;
}

const classValueMemo = new WeakMap<object, ClassNode | null>();

/** The class an expression names (not an instance of it): `Cls`, `m.Cls`, an imported class, `const Cls = class {…}`. */
export function classValueOf(expr: Node, sources: ParsedSources, depth = 0): ClassNode | undefined {
  const key = expr.compilerNode;
  const hit = classValueMemo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  classValueMemo.set(key, null); // cuts cycles
  const found = classValueUncached(expr, sources, depth);
  classValueMemo.set(key, found ?? null);
  return found;
}

function classValueUncached(expr: Node, sources: ParsedSources, depth: number): ClassNode | undefined {
  if (depth > 6) return undefined;
  const n = unwrap(expr);
  if (Node.isClassExpression(n) || Node.isClassDeclaration(n)) return n;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    // The name of a class expression, seen from inside it (a bundler's `var Cls = class _Cls { static getInstance()
    // { return _Cls.instance ??= new _Cls() } }`): that class.
    if (!d) return n.getFirstAncestor((a) => Node.isClassExpression(a) && a.getName() === n.getText()) as ClassNode | undefined;
    if (Node.isClassDeclaration(d.getParent())) return d.getParent() as ClassDeclaration;
    const v = valueOfDeclaration(d, sources);
    if (!v || v === n) return undefined;
    if (Node.isClassDeclaration(v) || Node.isClassExpression(v)) return v;
    return Node.isIdentifier(v) || Node.isPropertyAccessExpression(v) ? classValueOf(v, sources, depth + 1) : undefined;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const obj = unwrap(n.getExpression());
    if (Node.isIdentifier(obj)) {
      const d = declarationOf(obj);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && Node.isSourceFile(v)) {
        const e = exportedNode(v, n.getName(), sources);
        return e && (Node.isClassDeclaration(e) || Node.isClassExpression(e)) ? e : undefined;
      }
    }
  }
  return undefined;
}

const classMemo = new WeakMap<object, ClassNode | null>();

/**
 * The class of the instance an expression holds, when it is a class of the audited source: `new Cls()`, a
 * variable or field initialised or assigned with one (`let m; … m = new Cls()`, `this.m = new Cls()` in any
 * method), a parameter or field typed with the class, a parameter's default (`client = new Cls()`, also as a
 * destructured option), an untyped constructor parameter given an instance by the source's `new` sites
 * (constructorArgumentClass), an instance exported by another module, what a function or method returns
 * (`Cls.getInstance()` returning `Cls.instance`), or undefined.
 */
export function classOf(expr: Node, sources: ParsedSources, depth = 0): ClassNode | undefined {
  const key = expr.compilerNode;
  const hit = classMemo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  classMemo.set(key, null); // cuts cycles
  const found = depth > 8 ? undefined : classOfUncached(expr, sources, depth);
  classMemo.set(key, found ?? null);
  return found;
}

function classOfUncached(expr: Node, sources: ParsedSources, depth: number): ClassNode | undefined {
  let n = unwrap(expr);
  while (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  if (Node.isNewExpression(n)) return classValueOf(n.getExpression(), sources, depth + 1);
  // `Cls.instance ??= new Cls()`, `a ?? new Cls()`, `(x = new Cls())`: the instance the expression yields.
  if (Node.isBinaryExpression(n) && ['=', '??=', '||=', '??', '||'].includes(n.getOperatorToken().getText())) {
    return classOf(n.getRight(), sources, depth + 1) ?? (n.getOperatorToken().getText() === '=' ? undefined : classOf(n.getLeft(), sources, depth + 1));
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return undefined;
    const p = d.getParent();
    if (Node.isVariableDeclaration(p) && p.getNameNode() === d) {
      const t = p.getTypeNode();
      const byType = t ? classFromType(t, sources) : undefined;
      if (byType) return byType;
      const init = p.getInitializer();
      const v = init ? valueOfDeclaration(d, sources) : undefined;
      if (v && !Node.isSourceFile(v)) {
        const c = classOf(v, sources, depth + 1);
        if (c) return c;
      }
      // `let manager;` (or `= null`) assigned later in the file.
      const empty = !init || Node.isNullLiteral(unwrap(init)) || unwrap(init).getText() === 'undefined';
      return empty ? assignedClass(d, sources, depth) : undefined;
    }
    if (Node.isParameterDeclaration(p)) {
      const t = p.getTypeNode();
      if (t) return classFromType(t, sources);
      // `constructor(client = new ApiClient())`: the default; compiled output keeps no type, so an untyped
      // constructor parameter is also what the source's `new Cls(…)` pass there.
      const init = p.getInitializer();
      return (init ? classOf(init, sources, depth + 1) : undefined) ?? constructorArgumentClass(p, undefined, sources, depth);
    }
    // `constructor({ configLoader = new ConfigLoader() })`, or `constructor({ client })` given `new Cls({ client: new ApiClient() })`.
    if (Node.isBindingElement(p) && p.getNameNode() === d && !p.getDotDotDotToken()) {
      const init = p.getInitializer();
      const byDefault = init ? classOf(init, sources, depth + 1) : undefined;
      if (byDefault) return byDefault;
      const pattern = p.getParent();
      const param = pattern?.getParent();
      const key = p.getPropertyNameNode() ? propertyName(p.getPropertyNameNode()!) : p.getName();
      return key && Node.isObjectBindingPattern(pattern) && param && Node.isParameterDeclaration(param) && !param.getTypeNode() ? constructorArgumentClass(param, key, sources, depth) : undefined;
    }
    // An instance exported by another module of the audited source.
    if (importOf(d)) {
      const v = valueOfDeclaration(d, sources);
      return v && !Node.isSourceFile(v) && !Node.isClassDeclaration(v) ? classOf(v, sources, depth + 1) : undefined;
    }
    return undefined;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const obj = unwrap(n.getExpression());
    const name = n.getName();
    if (Node.isThisExpression(obj)) {
      const cls = enclosingClass(n);
      return cls ? fieldClass(cls, name, inStaticMember(n), sources, depth) : undefined;
    }
    const staticCls = classValueOf(obj, sources);
    if (staticCls) return fieldClass(staticCls, name, true, sources, depth);
    if (Node.isIdentifier(obj)) {
      const d = declarationOf(obj);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && Node.isSourceFile(v)) {
        const e = exportedNode(v, name, sources);
        return e && !Node.isClassDeclaration(e) ? classOf(e, sources, depth + 1) : undefined;
      }
    }
    const owner = classOf(obj, sources, depth + 1);
    return owner ? fieldClass(owner, name, false, sources, depth) : undefined;
  }
  if (Node.isCallExpression(n)) {
    const fn = functionOf(n.getExpression(), sources);
    if (!fn) return undefined;
    const t = fn.getReturnTypeNode();
    const byType = t ? classFromType(t, sources) : undefined;
    if (byType) return byType;
    for (const r of ownReturnExpressions(fn)) {
      const c = classOf(r, sources, depth + 1);
      if (c) return c;
    }
  }
  return undefined;
}

/**
 * The class of the instance the source's `new Cls(…)` pass to an untyped constructor parameter (or, with `key`,
 * under that member of the object literal they pass there): the injected API client of compiled output,
 * `class ToolHandler { constructor(client) { this.client = client } }` built as `new ToolHandler(new ApiClient(cfg))`.
 * The first site that gives a class decides. The `new` sites of every class are indexed once per audit.
 */
function constructorArgumentClass(param: Node, key: string | undefined, sources: ParsedSources, depth: number): ClassNode | undefined {
  if (!Node.isParameterDeclaration(param) || param.isRestParameter() || depth > 6) return undefined;
  const ctor = param.getParent();
  if (!Node.isConstructorDeclaration(ctor)) return undefined;
  const cls = ctor.getParent();
  if (!Node.isClassDeclaration(cls) && !Node.isClassExpression(cls)) return undefined;
  const index = ctor.getParameters().indexOf(param);
  for (const site of newSitesOf(cls, sources)) {
    const args = site.getArguments();
    if (args.slice(0, index + 1).some((a) => Node.isSpreadElement(a))) continue;
    let arg: Node | undefined = args[index];
    if (arg && key !== undefined) {
      const o = unwrap(arg);
      arg = undefined;
      if (Node.isObjectLiteralExpression(o)) {
        for (const prop of o.getProperties()) {
          if (Node.isPropertyAssignment(prop) && propertyName(prop.getNameNode()) === key) arg = prop.getInitializer();
          else if (Node.isShorthandPropertyAssignment(prop) && prop.getName() === key) arg = prop.getNameNode();
        }
      }
    }
    const c = arg ? classOf(arg, sources, depth + 1) : undefined;
    if (c) return c;
  }
  return undefined;
}

const newSitesMemo = new WeakMap<object, Map<ts.Node, NewExpression[]>>();
function newSitesOf(cls: ClassNode, sources: ParsedSources): NewExpression[] {
  let index = newSitesMemo.get(sources);
  if (!index) {
    index = new Map();
    newSitesMemo.set(sources, index);
    for (const sf of sources.files.values()) {
      for (const n of findNodes(sf, (cn) => ts.isNewExpression(cn) && !!cn.arguments?.length)) {
        if (!Node.isNewExpression(n)) continue;
        const c = classValueOf(n.getExpression(), sources);
        if (!c) continue;
        const list = index.get(c.compilerNode) ?? [];
        list.push(n);
        index.set(c.compilerNode, list);
      }
    }
  }
  return index.get(cls.compilerNode) ?? [];
}

/** The class a type annotation names (`Cls`, `Promise<Cls>`, `Cls | undefined`, `m.Cls`). */
function classFromType(t: Node, sources: ParsedSources): ClassNode | undefined {
  if (Node.isUnionTypeNode(t)) {
    for (const u of t.getTypeNodes()) {
      const c = classFromType(u, sources);
      if (c) return c;
    }
    return undefined;
  }
  if (Node.isParenthesizedTypeNode(t)) return classFromType(t.getTypeNode(), sources);
  if (!Node.isTypeReference(t)) return undefined;
  const name = t.getTypeName();
  if (Node.isIdentifier(name) && name.getText() === 'Promise') {
    const arg = t.getTypeArguments()[0];
    return arg ? classFromType(arg, sources) : undefined;
  }
  if (Node.isIdentifier(name)) return classValueOf(name, sources);
  return undefined;
}

/** The return statements' expressions of a function itself (not of the functions nested in it). */
function ownReturnExpressions(fn: FunctionLikeNode): Node[] {
  const body = fn.getBody();
  if (!body) return [];
  if (!Node.isBlock(body)) return [body];
  const out: ts.Expression[] = [];
  const visit = (cn: ts.Node): void => {
    if (isRawFunctionLike(cn) || ts.isClassLike(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) out.push(cn.expression);
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body.compilerNode, visit);
  const sf = fn.getSourceFile();
  return out.map((e) => wrapNode(sf, e));
}

/** `x = new Cls()` anywhere in the file of a variable declared without a usable initializer (`let manager;`). */
function assignedClass(declId: Identifier, sources: ParsedSources, depth: number): ClassNode | undefined {
  const name = declId.getText();
  const sf = declId.getSourceFile();
  for (const a of findNodes(sf, (cn) => ts.isBinaryExpression(cn) && cn.operatorToken.kind === SyntaxKind.EqualsToken && ts.isIdentifier(cn.left) && cn.left.text === name)) {
    if (!Node.isBinaryExpression(a)) continue;
    const left = a.getLeft();
    if (!Node.isIdentifier(left) || declarationOf(left) !== declId) continue;
    const c = classOf(a.getRight(), sources, depth + 1);
    if (c) return c;
  }
  return undefined;
}

const fieldMemo = new WeakMap<object, Map<string, ClassNode | null>>();

/**
 * The class of what a field holds: its declaration's type or initializer, a constructor parameter property's
 * type, or what the class assigns to it (`this.f = new Cls()`, `Cls.f = …` for a static field); inherited
 * fields are looked up in the classes it extends.
 */
function fieldClass(cls: ClassNode, name: string, isStatic: boolean, sources: ParsedSources, depth: number): ClassNode | undefined {
  let byName = fieldMemo.get(cls.compilerNode);
  if (!byName) fieldMemo.set(cls.compilerNode, (byName = new Map()));
  const key = `${isStatic ? 'static ' : ''}${name}`;
  const hit = byName.get(key);
  if (hit !== undefined) return hit ?? undefined;
  byName.set(key, null);
  let found: ClassNode | undefined;
  let c: ClassNode | undefined = cls;
  for (let i = 0; c && !found && i < 5; i++) {
    found = ownFieldClass(c, name, isStatic, sources, depth);
    c = baseClassOf(c, sources);
  }
  byName.set(key, found ?? null);
  return found;
}

function ownFieldClass(cls: ClassNode, name: string, isStatic: boolean, sources: ParsedSources, depth: number): ClassNode | undefined {
  const prop = isStatic ? cls.getStaticProperty(name) : cls.getInstanceProperty(name);
  if (prop && Node.isPropertyDeclaration(prop)) {
    const t = prop.getTypeNode();
    const byType = t ? classFromType(t, sources) : undefined;
    if (byType) return byType;
    const init = prop.getInitializer();
    const c = init ? classOf(init, sources, depth + 1) : undefined;
    if (c) return c;
  }
  if (!isStatic) {
    for (const ctor of cls.getConstructors()) {
      for (const p of ctor.getParameters()) {
        if (p.getName() !== name || !p.isParameterProperty()) continue;
        const t = p.getTypeNode();
        const c = t ? classFromType(t, sources) : undefined;
        if (c) return c;
      }
    }
  }
  // Assignments in the class body: `this.name = …` (or `Cls.name = …` for a static field; `??=` and `||=` too).
  const clsName = cls.getName();
  const target = (cn: ts.Node): boolean => {
    if (!ts.isPropertyAccessExpression(cn) || cn.name.text !== name) return false;
    const o = rawUnwrap(cn.expression);
    return o.kind === SyntaxKind.ThisKeyword || (isStatic && !!clsName && ts.isIdentifier(o) && o.text === clsName);
  };
  const assigns = (k: ts.SyntaxKind): boolean => k === SyntaxKind.EqualsToken || k === SyntaxKind.QuestionQuestionEqualsToken || k === SyntaxKind.BarBarEqualsToken;
  for (const a of findNodes(cls, (cn) => ts.isBinaryExpression(cn) && assigns(cn.operatorToken.kind) && target(rawUnwrap(cn.left)))) {
    if (!Node.isBinaryExpression(a)) continue;
    const left = unwrap(a.getLeft());
    if (Node.isPropertyAccessExpression(left) && Node.isThisExpression(unwrap(left.getExpression())) && inStaticMember(a) !== isStatic) continue;
    const c = classOf(a.getRight(), sources, depth + 1);
    if (c) return c;
  }
  return undefined;
}

/* ---------------------------------------------------------------- origins */

const normModule = (spec: string): string => spec.replace(/^node:/, '');

/* Origins are read on compiler nodes: they are asked of every callee a sink table looks at, and give data, not nodes. */

/** The value without `await` and wrapping parentheses or type assertions. */
function unawait(n: ts.Node): ts.Node {
  let u = rawUnwrap(n);
  while (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  return u;
}

/** The value of a string literal or a template without substitutions (compiler node), else undefined. */
function rawString(n: ts.Node | undefined): string | undefined {
  if (!n) return undefined;
  const u = rawUnwrap(n);
  return ts.isStringLiteral(u) || ts.isNoSubstitutionTemplateLiteral(u) ? u.text : undefined;
}

/* ---- webpack bundles: `r(9896)` is the module of id 9896 in the bundle's module map */

/** The module factories of a webpack module map (`var e = { 9896(e) { e.exports = require("fs") }, 874(e, t, r) { … } }`), by id; memoised per map. */
const webpackMaps = new WeakMap<ts.Node, Map<string, ts.FunctionLikeDeclaration>>();

function webpackMap(obj: ts.ObjectLiteralExpression): Map<string, ts.FunctionLikeDeclaration> {
  let m = webpackMaps.get(obj);
  if (m) return m;
  m = new Map();
  for (const p of obj.properties) {
    if (!p.name || !ts.isNumericLiteral(p.name)) continue;
    const fn = ts.isMethodDeclaration(p) ? p : ts.isPropertyAssignment(p) && (ts.isFunctionExpression(rawUnwrap(p.initializer)) || ts.isArrowFunction(rawUnwrap(p.initializer))) ? (rawUnwrap(p.initializer) as ts.FunctionLikeDeclaration) : undefined;
    if (fn) m.set(p.name.text, fn);
  }
  webpackMaps.set(obj, m);
  return m;
}

/** The factory of the module a minified webpack `require` names (`r(9896)`, its third parameter called with a number). */
function webpackFactory(call: ts.CallExpression): ts.FunctionLikeDeclaration | undefined {
  const c = rawUnwrap(call.expression);
  const a = call.arguments[0];
  if (!ts.isIdentifier(c) || call.arguments.length !== 1 || !a || !ts.isNumericLiteral(a)) return undefined;
  // The callee is the third parameter of the function that is a member of the module map.
  for (let f: ts.Node | undefined = c.parent; f; f = f.parent) {
    if (!ts.isFunctionLike(f)) continue;
    const params = (f as ts.FunctionLikeDeclaration).parameters;
    const i = params.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === c.text);
    if (i < 0) continue;
    if (i !== 2) return undefined;
    const holder = ts.isMethodDeclaration(f) ? f.parent : f.parent && ts.isPropertyAssignment(f.parent) ? f.parent.parent : undefined;
    const self = ts.isMethodDeclaration(f) ? f.name : f.parent && ts.isPropertyAssignment(f.parent) ? f.parent.name : undefined;
    if (!holder || !ts.isObjectLiteralExpression(holder) || !self || !ts.isNumericLiteral(self)) return undefined;
    return webpackMap(holder).get(a.text);
  }
  return undefined;
}

/** A webpack require, bare or through the bundle's interop helper (`a(r(9896))`, `r.n(r(9896))`): the factory of its module. */
function webpackRequired(n: ts.Node): ts.FunctionLikeDeclaration | undefined {
  const u = unawait(n);
  if (!ts.isCallExpression(u)) return undefined;
  const direct = webpackFactory(u);
  if (direct) return direct;
  const a0 = u.arguments.length === 1 ? rawUnwrap(u.arguments[0]!) : undefined;
  return a0 && ts.isCallExpression(a0) ? webpackFactory(a0) : undefined;
}

/** The external a webpack module stands for (`9896(e) { e.exports = require("fs") }` → fs). */
function webpackExternal(factory: ts.FunctionLikeDeclaration): string | undefined {
  const body = factory.body;
  if (!body || !ts.isBlock(body)) return undefined;
  const stmts = body.statements.filter((st) => !(ts.isExpressionStatement(st) && ts.isStringLiteral(st.expression)));
  const st = stmts.length === 1 ? stmts[0] : undefined;
  if (!st || !ts.isExpressionStatement(st) || !ts.isBinaryExpression(st.expression) || st.expression.operatorToken.kind !== SyntaxKind.EqualsToken) return undefined;
  const left = st.expression.left;
  if (!ts.isPropertyAccessExpression(left) || left.name.text !== 'exports') return undefined;
  const r = rawUnwrap(st.expression.right);
  if (!ts.isCallExpression(r) || !ts.isIdentifier(r.expression) || r.expression.text !== 'require') return undefined;
  return rawString(r.arguments[0]);
}

/**
 * What a webpack module exports under a name: `t.name = value` (CommonJS output of a compiler, `t.f = t.g = void 0`
 * left out), `Object.defineProperty(t, 'name', { get: function () { return value } })`, or webpack's own
 * `r.d(t, { name: () => value })`, where t is the factory's second parameter. The value node, or undefined.
 */
const webpackExportMemo = new WeakMap<ts.Node, Map<string, ts.Node>>();
export function webpackExport(factory: ts.FunctionLikeDeclaration, name: string): ts.Node | undefined {
  let m = webpackExportMemo.get(factory);
  if (!m) {
    m = new Map();
    const exp = factory.parameters[1]?.name;
    const expName = exp && ts.isIdentifier(exp) ? exp.text : undefined;
    const body = factory.body;
    if (expName && body && ts.isBlock(body)) {
      const isExp = (e: ts.Node): boolean => ts.isIdentifier(rawUnwrap(e as ts.Expression)) && (rawUnwrap(e as ts.Expression) as ts.Identifier).text === expName;
      const visit = (n: ts.Node): void => {
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && isExp(n.left.expression)) {
          const v = rawUnwrap(n.right);
          if (!(ts.isVoidExpression(v) || (ts.isBinaryExpression(v) && v.operatorToken.kind === SyntaxKind.EqualsToken))) m!.set(n.left.name.text, v);
        }
        if (ts.isCallExpression(n) && n.arguments.length >= 2 && isExp(n.arguments[0]!)) {
          const obj = rawUnwrap(n.arguments[n.arguments.length - 1]!);
          const key = n.arguments.length === 3 ? rawString(n.arguments[1]) : undefined;
          if (key !== undefined && ts.isObjectLiteralExpression(obj)) {
            // Object.defineProperty(t, 'name', { get: function () { return value } })
            const get = obj.properties.find((p) => p.name && rawPropertyName(p.name) === 'get');
            const fn = get && (ts.isMethodDeclaration(get) ? get : ts.isPropertyAssignment(get) ? rawUnwrap(get.initializer) : undefined);
            const ret = fn && (ts.isFunctionExpression(fn) || ts.isMethodDeclaration(fn)) && fn.body?.statements.length === 1 && ts.isReturnStatement(fn.body.statements[0]!) ? fn.body.statements[0].expression : fn && ts.isArrowFunction(fn) && !ts.isBlock(fn.body) ? fn.body : undefined;
            if (ret) m!.set(key, rawUnwrap(ret));
          } else if (n.arguments.length === 2 && ts.isObjectLiteralExpression(obj)) {
            // r.d(t, { name: () => value })
            for (const p of obj.properties) {
              const k = p.name ? rawPropertyName(p.name) : undefined;
              const f = ts.isPropertyAssignment(p) ? rawUnwrap(p.initializer) : undefined;
              if (k && f && ts.isArrowFunction(f) && !ts.isBlock(f.body)) m!.set(k, rawUnwrap(f.body));
            }
          }
        }
        if (!ts.isFunctionLike(n) || n === factory) ts.forEachChild(n, visit);
      };
      ts.forEachChild(body, visit);
    }
    webpackExportMemo.set(factory, m);
  }
  return m.get(name);
}

/** The factory of the webpack module a value is required from (`const a = r(874)`, `a(r(874))`), or undefined. */
export function webpackModuleOf(init: Node): ts.FunctionLikeDeclaration | undefined {
  return webpackRequired(init.compilerNode);
}

/** The interop helpers compilers wrap a `require` in: `__importDefault(require('m'))`, `__importStar(…)`, esbuild's `__toESM(…)`. */
const INTEROP_HELPERS = new Set(['__importDefault', '__importStar', '__toESM', '_interopRequireDefault', '_interopRequireWildcard']);

function requireOrImportSpec(n: ts.Node): string | undefined {
  let u = unawait(n);
  if (ts.isCallExpression(u) && u.arguments.length >= 1) {
    const c = rawUnwrap(u.expression);
    const helper = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
    if (INTEROP_HELPERS.has(helper)) u = rawUnwrap(u.arguments[0]!);
  }
  if (ts.isCallExpression(u)) {
    const c = u.expression;
    if ((ts.isIdentifier(c) && c.text === 'require') || c.kind === SyntaxKind.ImportKeyword) return rawString(u.arguments[0]);
  }
  // A package esbuild or bun copied into the bundle (`__toESM(require_mssql())`).
  const bundled = bundledPackage(u);
  if (bundled) return bundled;
  // A webpack bundle's require of a module that stands for an external (`a(r(9896))` with `e.exports = require("fs")`).
  const wp = webpackRequired(n);
  return wp ? webpackExternal(wp) : undefined;
}

/** `node_modules/<package>/…` (also `node_modules/@scope/<package>/…`, the last node_modules of a nested path): the package. */
const BUNDLED_PATH = /^(?:.*\/)?node_modules\/((?:@[^/\s"']+\/)?[^/\s"'@.][^/\s"']*)\/[^\s"']*$/;

/**
 * The package of a CommonJS module esbuild or bun copied into a bundle, called where the package's own code
 * required it: `require_x()` with `var require_x = __commonJS(…)` at the top of the file, and the path the bundler
 * writes with it — bun's `// node_modules/mssql/lib/tedious/index.js` comment above the declaration, esbuild's
 * `__commonJS({ "node_modules/mssql/lib/tedious/index.js"(exports, module) {…} })` key. Undefined for anything else
 * (a module of the package itself has no node_modules path).
 */
function bundledPackage(u: ts.Node): string | undefined {
  if (!ts.isCallExpression(u) || u.arguments.length || !ts.isIdentifier(u.expression) || !u.expression.text.startsWith('require_')) return undefined;
  const d = rawDeclarationOf(u.expression);
  const decl = d?.parent;
  if (!decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer) return undefined;
  const init = rawUnwrap(decl.initializer);
  if (!ts.isCallExpression(init) || !ts.isIdentifier(init.expression) || init.expression.text !== '__commonJS') return undefined;
  const list = decl.parent;
  const statement = list && ts.isVariableDeclarationList(list) && list.declarations.length === 1 ? list.parent : undefined;
  if (!statement || !ts.isVariableStatement(statement) || !ts.isSourceFile(statement.parent)) return undefined;
  const a0 = init.arguments[0] && rawUnwrap(init.arguments[0]);
  let path: string | undefined;
  if (a0 && ts.isObjectLiteralExpression(a0) && a0.properties.length === 1) {
    const name = a0.properties[0]!.name;
    if (name && ts.isStringLiteral(name)) path = name.text;
  } else {
    const text = statement.getSourceFile().getFullText();
    const comments = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
    const last = comments[comments.length - 1];
    if (last && last.kind === SyntaxKind.SingleLineCommentTrivia) path = text.slice(last.pos + 2, last.end).trim();
  }
  return path ? BUNDLED_PATH.exec(path)?.[1] : undefined;
}

/** Where a callee comes from (see the file header), or undefined for a value computed at run time or a parameter. */
const originMemo = new WeakMap<object, Origin | null>();

/** Where a value comes from (memoised per compiler node: the trees are shared by every detector of an audit). */
export function originOf(expr: Node, depth = 0): Origin | undefined {
  return rawOriginOf(expr.compilerNode, depth);
}

/** originOf on a compiler node. */
export function rawOriginOf(key: ts.Node, depth = 0): Origin | undefined {
  if (depth > 0) return originUncached(key, depth);
  const hit = originMemo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const o = originUncached(key, 0);
  originMemo.set(key, o ?? null);
  return o;
}

function originUncached(expr: ts.Node, depth: number): Origin | undefined {
  if (depth > 8) return undefined;
  const n = rawUnwrap(expr);
  if (ts.isIdentifier(n)) {
    const d = rawDeclarationOf(n);
    if (!d) return { module: GLOBAL, path: [n.text] };
    const imp = rawImportOf(d);
    if (imp) {
      if (imp.imported === '*' || imp.imported === 'default') return { module: normModule(imp.spec), path: [] };
      return { module: normModule(imp.spec), path: [imp.imported] };
    }
    const decl = d.parent;
    if (ts.isVariableDeclaration(decl) && decl.name === d) {
      const init = decl.initializer;
      if (init) return valueOrigin(init, depth);
      // `let client; … client = axios.create(…)`: the value assigned in the file.
      const assigned = assignmentsTo(d);
      return assigned.length === 1 ? valueOrigin(assigned[0]!, depth + 1) : undefined;
    }
    if (ts.isBindingElement(decl)) return bindingOrigin(decl, depth);
    // constructor(apiKey, fetchFn = fetch) { this.fetch = fetchFn }: a parameter is read as its default value.
    if (ts.isParameter(decl) && decl.name === d && decl.initializer) return valueOrigin(decl.initializer, depth + 1);
    return undefined;
  }
  if (ts.isPropertyAccessExpression(n)) {
    // this.client: what the class puts in its field (an initializer, or `this.client = …` in its code).
    const recv = rawUnwrap(n.expression);
    const o = recv.kind === SyntaxKind.ThisKeyword ? fieldOrigin(n, depth) : rawOriginOf(n.expression, depth + 1);
    return o ? { module: o.module, path: [...o.path, n.name.text] } : undefined;
  }
  // require('m').f
  const spec = requireOrImportSpec(n);
  if (spec) return { module: normModule(spec), path: [] };
  if (ts.isElementAccessExpression(n)) {
    const key = rawString(n.argumentExpression);
    const o = key !== undefined ? rawOriginOf(n.expression, depth + 1) : undefined;
    return o ? { module: o.module, path: [...o.path, key!] } : undefined;
  }
  return undefined;
}

/**
 * Calls that make a configured instance of an HTTP client, which then has the library's own methods:
 * `axios.create(cfg)`, `got.extend(opts)`, `ky.create(opts)` / `ky.extend(opts)` (and the same on an instance).
 */
export const INSTANCE_FACTORIES: Readonly<Record<string, ReadonlySet<string>>> = {
  axios: new Set(['create']),
  got: new Set(['extend']),
  ky: new Set(['create', 'extend']),
};

/** The value a `this.name` field gets in its class: the property's initializer, or the single value assigned to `this.name`. */
function fieldOrigin(access: ts.PropertyAccessExpression, depth: number): Origin | undefined {
  let cls: ts.Node | undefined = access.parent;
  while (cls && !ts.isClassLike(cls)) {
    if (ts.isFunctionDeclaration(cls) || ts.isFunctionExpression(cls)) return undefined;
    cls = cls.parent;
  }
  if (!cls || !ts.isClassLike(cls)) return undefined;
  const name = access.name.text;
  for (const m of cls.members) {
    if (ts.isPropertyDeclaration(m) && m.initializer && rawPropertyName(m.name) === name) return valueOrigin(m.initializer, depth + 1);
  }
  const values = fieldAssignments(cls).get(name) ?? [];
  const origins = values.map((v) => valueOrigin(v, depth + 1));
  const first = origins[0];
  // Several assignments count only when they agree.
  return first && origins.every((o) => o && o.module === first.module && o.path.join('.') === first.path.join('.')) ? first : undefined;
}

const fieldAssignMemo = new WeakMap<ts.Node, Map<string, ts.Expression[]>>();
/** `this.x = value` in a class's own code (not in nested classes), by field name. */
function fieldAssignments(cls: ts.ClassLikeDeclaration): Map<string, ts.Expression[]> {
  const hit = fieldAssignMemo.get(cls);
  if (hit) return hit;
  const out = new Map<string, ts.Expression[]>();
  const visit = (cn: ts.Node): void => {
    if (cn !== cls && ts.isClassLike(cn)) return;
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind === SyntaxKind.EqualsToken) {
      const l = rawUnwrap(cn.left);
      if (ts.isPropertyAccessExpression(l) && rawUnwrap(l.expression).kind === SyntaxKind.ThisKeyword) {
        const list = out.get(l.name.text) ?? [];
        list.push(cn.right);
        out.set(l.name.text, list);
      }
    }
    ts.forEachChild(cn, visit);
  };
  visit(cls);
  fieldAssignMemo.set(cls, out);
  return out;
}

/**
 * What a `this.name` field can hold, for the field read at `access`: the property's initializer and every value
 * the class assigns to `this.name` (in source order), or [] outside a class.
 */
export function fieldValues(access: Node): Node[] {
  const a = access.compilerNode;
  if (!ts.isPropertyAccessExpression(a) || rawUnwrap(a.expression).kind !== SyntaxKind.ThisKeyword) return [];
  let cls: ts.Node | undefined = a.parent;
  while (cls && !ts.isClassLike(cls)) {
    if (ts.isFunctionDeclaration(cls) || ts.isFunctionExpression(cls)) return [];
    cls = cls.parent;
  }
  if (!cls || !ts.isClassLike(cls)) return [];
  const name = a.name.text;
  const out: ts.Node[] = [];
  for (const m of cls.members) if (ts.isPropertyDeclaration(m) && m.initializer && rawPropertyName(m.name) === name) out.push(m.initializer);
  out.push(...(fieldAssignments(cls).get(name) ?? []));
  const sf = access.getSourceFile();
  return out.map((cn) => wrapNode(sf, cn));
}

/** The values assigned in its file to a variable declared without an initializer (`let client; … client = …`). */
export function assignedValues(declId: Identifier): Node[] {
  const sf = declId.getSourceFile();
  return assignmentsTo(declId.compilerNode).map((cn) => wrapNode(sf, cn));
}

const assignMemo = new WeakMap<ts.Identifier, ts.Expression[]>();
/** The values assigned (`name = value`) in the declaring file to a variable declared without an initializer. */
function assignmentsTo(declId: ts.Identifier): ts.Expression[] {
  const hit = assignMemo.get(declId);
  if (hit) return hit;
  const out: ts.Expression[] = [];
  for (const [l, right] of identifierAssignments(declId.getSourceFile()).get(declId.text) ?? []) if (rawDeclarationOf(l) === declId) out.push(right);
  assignMemo.set(declId, out);
  return out;
}

/** The writes of a file, gathered in one walk and read by the indexes below: assignments (every operator), `delete`, `Object.assign`-like calls. */
interface Writes {
  assigns: ts.BinaryExpression[];
  deletes: ts.DeleteExpression[];
  objectCalls: ts.CallExpression[];
}
const writesMemo = new WeakMap<ts.SourceFile, Writes>();
function writesOf(sf: ts.SourceFile): Writes {
  const hit = writesMemo.get(sf);
  if (hit) return hit;
  const w: Writes = { assigns: [], deletes: [], objectCalls: [] };
  const visit = (cn: ts.Node): void => {
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind >= SyntaxKind.FirstAssignment && cn.operatorToken.kind <= SyntaxKind.LastAssignment) w.assigns.push(cn);
    else if (ts.isDeleteExpression(cn)) w.deletes.push(cn);
    else if (ts.isCallExpression(cn) && cn.arguments[0]) {
      const c = rawUnwrap(cn.expression);
      if (ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === 'Object' && ['assign', 'defineProperty', 'defineProperties'].includes(c.name.text)) w.objectCalls.push(cn);
    }
    ts.forEachChild(cn, visit);
  };
  visit(sf);
  writesMemo.set(sf, w);
  return w;
}

const identAssignMemo = new WeakMap<ts.SourceFile, Map<string, [ts.Identifier, ts.Expression][]>>();
/** Every `name = value` of a file (the assigned identifier and the value, in source order) by name. */
function identifierAssignments(sf: ts.SourceFile): Map<string, [ts.Identifier, ts.Expression][]> {
  const hit = identAssignMemo.get(sf);
  if (hit) return hit;
  const byName = new Map<string, [ts.Identifier, ts.Expression][]>();
  for (const cn of writesOf(sf).assigns) {
    if (cn.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
    const l = rawUnwrap(cn.left);
    if (!ts.isIdentifier(l)) continue;
    const list = byName.get(l.text);
    if (list) list.push([l, cn.right]);
    else byName.set(l.text, [[l, cn.right]]);
  }
  identAssignMemo.set(sf, byName);
  return byName;
}

const propAssignMemo = new WeakMap<ts.SourceFile, Map<ts.Identifier, Map<string, ts.Expression[]>>>();
/**
 * The values its file assigns to property `key` of a variable (`const opts = { env }; if (dir) opts.cwd = dir;`),
 * for the identifier that declares it: read once per file, memoised.
 */
export function assignedPropertyValues(declId: Identifier, key: string): Node[] {
  const sf = declId.getSourceFile();
  let byDecl = propAssignMemo.get(sf.compilerNode);
  if (!byDecl) {
    const out = new Map<ts.Identifier, Map<string, ts.Expression[]>>();
    for (const cn of writesOf(sf.compilerNode).assigns) {
      if (cn.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      const l = rawUnwrap(cn.left);
      const name = ts.isPropertyAccessExpression(l) ? l.name.text : ts.isElementAccessExpression(l) && ts.isStringLiteral(l.argumentExpression) ? l.argumentExpression.text : undefined;
      const recv = name !== undefined && (ts.isPropertyAccessExpression(l) || ts.isElementAccessExpression(l)) ? rawUnwrap(l.expression) : undefined;
      const d = recv && ts.isIdentifier(recv) ? rawDeclarationOf(recv) : undefined;
      if (d && name !== undefined) {
        const m = out.get(d) ?? new Map<string, ts.Expression[]>();
        m.set(name, [...(m.get(name) ?? []), cn.right]);
        out.set(d, m);
      }
    }
    propAssignMemo.set(sf.compilerNode, (byDecl = out));
  }
  return (byDecl.get(declId.compilerNode)?.get(key) ?? []).map((cn) => wrapNode(sf, cn));
}

const writtenMemo = new WeakMap<ts.SourceFile, Set<ts.Identifier>>();
/**
 * Whether its file writes into the object a variable holds after declaring it: a property set on it (`opts.engines =
 * …`, `opts.a.b = …`, `opts[k] = …`), `Object.assign(opts, …)`, `Object.defineProperty(opts, …)`, `delete opts.k`.
 * For the identifier that declares it: read once per file, memoised.
 */
export function objectWrittenLater(declId: Identifier): boolean {
  const sf = declId.getSourceFile().compilerNode;
  let written = writtenMemo.get(sf);
  if (!written) {
    const out = new Set<ts.Identifier>();
    const root = (e: ts.Expression): ts.Identifier | undefined => {
      let cur = rawUnwrap(e);
      while (ts.isPropertyAccessExpression(cur) || ts.isElementAccessExpression(cur)) cur = rawUnwrap(cur.expression);
      return ts.isIdentifier(cur) ? cur : undefined;
    };
    const note = (id: ts.Identifier | undefined): void => {
      const d = id ? rawDeclarationOf(id) : undefined;
      if (d) out.add(d);
    };
    const w = writesOf(sf);
    for (const cn of w.assigns) {
      const l = rawUnwrap(cn.left);
      if (ts.isPropertyAccessExpression(l) || ts.isElementAccessExpression(l)) note(root(l));
    }
    for (const cn of w.deletes) note(root(cn.expression));
    for (const cn of w.objectCalls) note(root(cn.arguments[0]!));
    writtenMemo.set(sf, (written = out));
  }
  return written.has(declId.compilerNode);
}

/** The origin of a value (an initializer, an exported expression): `axios.create(…)` is axios itself, `require('m').f` is m's f. */
export function valueOriginOf(init: Node): Origin | undefined {
  return valueOrigin(init.compilerNode, 0);
}

function valueOrigin(init: ts.Node, depth: number): Origin | undefined {
  const spec = requireOrImportSpec(init);
  if (spec) return { module: normModule(spec), path: [] };
  const u = unawait(init);
  if (ts.isCallExpression(u)) {
    const c = rawUnwrap(u.expression);
    const cn = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
    if (cn === 'promisify' && u.arguments[0]) return rawOriginOf(u.arguments[0], depth + 1);
    // axios.create(cfg), got.extend(opts), ky.create(opts): an instance behaves like the library itself.
    if (ts.isPropertyAccessExpression(c)) {
      const o = rawOriginOf(c, depth + 1);
      const m = o?.path.filter((p) => p !== 'default');
      if (o && m && INSTANCE_FACTORIES[o.module]?.has(m[m.length - 1] ?? '')) return { module: o.module, path: [] };
    }
    // require('x').y
    return undefined;
  }
  if (ts.isIdentifier(u) || ts.isPropertyAccessExpression(u) || ts.isElementAccessExpression(u)) {
    // const x = require('m').y is a property access on a call
    if (ts.isPropertyAccessExpression(u)) {
      const s = requireOrImportSpec(u.expression);
      if (s) return { module: normModule(s), path: [u.name.text] };
    }
    return rawOriginOf(u, depth + 1);
  }
  return undefined;
}

/** `const { exec } = require('child_process')`, `const { promises: fsp } = fs`, nested patterns included. */
function bindingOrigin(el: ts.BindingElement, depth: number): Origin | undefined {
  const path: string[] = [];
  let cur: ts.Node = el;
  for (;;) {
    if (!ts.isBindingElement(cur)) break;
    const prop = cur.propertyName;
    const key = prop ? rawPropertyName(prop) : cur.name.getText();
    if (key === undefined) return undefined;
    path.unshift(key);
    const pattern = cur.parent;
    const holder = pattern?.parent;
    if (!holder) return undefined;
    if (ts.isVariableDeclaration(holder)) {
      const init = holder.initializer;
      const base = init ? valueOrigin(init, depth + 1) : undefined;
      return base ? { module: base.module, path: [...base.path, ...path] } : undefined;
    }
    cur = holder;
  }
  return undefined;
}
