import { posix } from 'node:path';
import {
  Node,
  SyntaxKind,
  ts,
  type ArrowFunction,
  type BindingElement,
  type FunctionDeclaration,
  type FunctionExpression,
  type Identifier,
  type MethodDeclaration,
  type SourceFile,
} from 'ts-morph';
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
    if (isRawFunctionLike(cur)) {
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

/** The parsed file a relative import specifier points to (`./x.js` may be written `x.ts` in source), or undefined. */
export function resolveRelativeModule(fromRel: string, spec: string, sources: ParsedSources): SourceFile | undefined {
  if (!spec.startsWith('.')) return undefined;
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

/** `require('<spec>')` → spec. */
function requireSpec(n: Node): string | undefined {
  const u = unwrap(n);
  if (!Node.isCallExpression(u)) return undefined;
  const c = u.getExpression();
  return Node.isIdentifier(c) && c.getText() === 'require' ? stringValue(u.getArguments()[0]) : undefined;
}

/** CommonJS exports: `module.exports = { f, g: h }`, `module.exports = f` (as 'default'), `exports.f = …`, `module.exports.f = …`. */
function commonJsExport(sf: SourceFile, name: string, sources: ParsedSources, depth: number): Node | undefined {
  for (const st of sf.getStatements()) {
    if (!Node.isExpressionStatement(st)) continue;
    const e = unwrap(st.getExpression());
    if (!Node.isBinaryExpression(e) || e.getOperatorToken().getText() !== '=') continue;
    const target = e.getLeft().getText().replace(/\s+/g, '');
    const value = unwrap(e.getRight());
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
  // const { f } = require('./m.js')
  if (Node.isBindingElement(d)) {
    const holder = d.getParent()?.getParent();
    const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
    const spec = init ? requireSpec(init) : undefined;
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
  if (ts.isPropertyAccessExpression(n)) {
    const obj = rawUnwrap(n.expression);
    return (ts.isIdentifier(obj) && rawDeclarationOf(obj) !== undefined) || ts.isObjectLiteralExpression(obj) || obj.kind === SyntaxKind.ThisKeyword;
  }
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
    // m.f with `import * as m from './m.js'`
    if (Node.isIdentifier(obj)) {
      const d = declarationOf(obj);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && Node.isSourceFile(v)) {
        const e = exportedNode(v, name, sources);
        return e ? functionOf(e, sources, depth + 1) : undefined;
      }
      if (v && Node.isObjectLiteralExpression(v)) return memberFunction(v, name, sources, depth);
    }
    if (Node.isObjectLiteralExpression(obj)) return memberFunction(obj, name, sources, depth);
    // this.m() inside a class: the class's method m (or a property holding a function).
    if (Node.isThisExpression(obj)) {
      const cls = n.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
      if (cls && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) {
        const m = cls.getInstanceMethod(name) ?? cls.getStaticMethod(name);
        if (m) return m;
        const prop = cls.getProperty(name);
        const init = prop?.getInitializer();
        return init ? functionOf(init, sources, depth + 1) : undefined;
      }
    }
  }
  // promisify(f) / util.promisify(f): the function is f.
  if (Node.isCallExpression(n)) {
    const c = unwrap(n.getExpression());
    const cn = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
    if (cn === 'promisify' && n.getArguments()[0]) return functionOf(n.getArguments()[0]!, sources, depth + 1);
    // A wrapper around a function literal, `withTelemetry(async (request) => …)`: the function it wraps.
    const literals = n.getArguments().map(unwrap).filter(isFunctionLike);
    if (literals.length === 1) return literals[0];
  }
  return undefined;
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

function requireOrImportSpec(n: ts.Node): string | undefined {
  const u = unawait(n);
  if (ts.isCallExpression(u)) {
    const c = u.expression;
    if ((ts.isIdentifier(c) && c.text === 'require') || c.kind === SyntaxKind.ImportKeyword) return rawString(u.arguments[0]);
  }
  return undefined;
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
      return init ? valueOrigin(init, depth) : undefined;
    }
    if (ts.isBindingElement(decl)) return bindingOrigin(decl, depth);
    return undefined;
  }
  if (ts.isPropertyAccessExpression(n)) {
    const o = rawOriginOf(n.expression, depth + 1);
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

function valueOrigin(init: ts.Node, depth: number): Origin | undefined {
  const spec = requireOrImportSpec(init);
  if (spec) return { module: normModule(spec), path: [] };
  const u = unawait(init);
  if (ts.isCallExpression(u)) {
    const c = rawUnwrap(u.expression);
    const cn = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
    if (cn === 'promisify' && u.arguments[0]) return rawOriginOf(u.arguments[0], depth + 1);
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
