import { Node, SyntaxKind, ts, type ConstructorDeclaration, type SourceFile, type NewExpression, type ObjectLiteralExpression } from '../morph.js';
import { baseClassOf, classValueOf, type ClassNode, declarationOf, exportedNode, functionOf, importOf as importOfDecl, initializerOf, isFunctionLike, originOf, resolveRelativeModule, valueOfDeclaration, valueOriginOf, INSTANCE_FACTORIES, type FunctionLikeNode, type Origin } from '../scope.js';
import { constString, factoryObject, listElements, objectLiteralOf, returnedExpressions } from '../server-model.js';
import { namesAnyModule, propertyName, unwrap, wrapNode, type ParsedSources } from '../ts-source.js';

/**
 * Taint flow (facts/flow.ts), across modules: a callee resolved to its origin and its function in another file
 * (imports, instances exported by a module, classes and their constructors), memoised.
 */

/** `require('x')` (the library itself). */
export function requireCall(n: Node): boolean {
  let u = unwrap(n);
  // Through a compiler's interop helper: `__importDefault(require('axios'))`.
  if (Node.isCallExpression(u) && /^(?:__importDefault|__importStar|__toESM|_interopRequireDefault|_interopRequireWildcard)$/.test(unwrap(u.getExpression()).getText().replace(/^.*\./, '')) && u.getArguments()[0]) {
    u = unwrap(u.getArguments()[0]!);
  }
  return Node.isCallExpression(u) && Node.isIdentifier(u.getExpression()) && u.getExpression().getText() === 'require';
}

/** What the analysis reads: functions, methods, and the constructors of the classes a handler instantiates. */
export type Analyzable = FunctionLikeNode | ConstructorDeclaration;

export function stripAwait(e: Node): Node {
  let n = unwrap(e);
  while (Node.isAwaitExpression(n) || Node.isTypeAssertion(n)) n = unwrap(n.getExpression());
  return n;
}

const originMemo = new WeakMap<object, Origin | null>();
const functionMemo = new WeakMap<object, FunctionLikeNode | null>();

/**
 * Where a callee comes from (facts/scope originOf), and through a relative import when what the other module
 * exports is an HTTP client instance (`export const api = axios.create(…)`): then `api.get` is axios's get.
 */
export function originCached(callee: Node, sources: ParsedSources): Origin | undefined {
  const hit = originMemo.get(callee.compilerNode);
  if (hit !== undefined) return hit ?? undefined;
  const o = originOf(callee);
  const r = o && o.module.startsWith('.') ? acrossModules(o, callee, sources) : o;
  originMemo.set(callee.compilerNode, r ?? null);
  return r;
}

/** An origin in a relative module, seen through what that module exports (an HTTP client instance), or the origin unchanged. */
function acrossModules(o: Origin, callee: Node, sources: ParsedSources): Origin {
  const target = resolveRelativeModule(sources.rel(callee.getSourceFile()), o.module, sources);
  if (!target) return o;
  // A default import has an empty origin path, so its first step is already a member (`api.get` on
  // `import api from './http.js'`): the export is 'default' and the whole path stays.
  const viaDefault = defaultImportRoot(callee);
  const name = viaDefault ? 'default' : (o.path[0] ?? 'default');
  const inst = instanceExports(sources).get(target)?.get(name);
  return inst ? { module: inst.module, path: [...inst.path, ...(viaDefault ? o.path : o.path.slice(1))] } : o;
}

/** Whether an access chain (`api.get`, `api.defaults.x`) starts at a default import binding. */
function defaultImportRoot(expr: Node): boolean {
  let root = unwrap(expr);
  while (Node.isPropertyAccessExpression(root) || Node.isElementAccessExpression(root)) root = unwrap(root.getExpression());
  if (!Node.isIdentifier(root)) return false;
  const d = declarationOf(root);
  if (!d) return false;
  if (importOfDecl(d)?.imported === 'default') return true;
  // `const api = require('./http')` over `module.exports = axios.create(…)` (read as its default export).
  const v = d.getParent();
  const init = Node.isVariableDeclaration(v) && v.getNameNode() === d ? v.getInitializer() : undefined;
  return !!init && requireCall(init);
}

const instanceMemo = new WeakMap<ParsedSources, Map<SourceFile, Map<string, Origin>>>();

/**
 * Per file, the exports that are HTTP client instances (`export const api = axios.create(…)`,
 * `export default got.extend(…)`, `const api = ky.create(…); export { api }`), with the library they stand for.
 * Only files that name one of the libraries are read.
 */
export function instanceExports(sources: ParsedSources): Map<SourceFile, Map<string, Origin>> {
  const hit = instanceMemo.get(sources);
  if (hit) return hit;
  const out = new Map<SourceFile, Map<string, Origin>>();
  const libs = Object.keys(INSTANCE_FACTORIES);
  for (const [, sf] of sources.files) {
    if (!namesAnyModule(sf, libs)) continue;
    const names = new Set<string>();
    for (const st of sf.getVariableStatements()) if (st.hasExportKeyword()) for (const d of st.getDeclarations()) names.add(d.getName());
    for (const ed of sf.getExportDeclarations()) if (!ed.getModuleSpecifierValue()) for (const ne of ed.getNamedExports()) names.add(ne.getAliasNode()?.getText() ?? ne.getName());
    if (sf.getExportAssignments().length) names.add('default');
    const found = new Map<string, Origin>();
    for (const name of names) {
      const node = exportedNode(sf, name, sources);
      const vo = node && node.getSourceFile() === sf ? (Node.isIdentifier(node) ? originOf(node) : valueOriginOf(node)) : undefined;
      if (vo && INSTANCE_FACTORIES[vo.module] && vo.path.length === 0) found.set(name, vo);
    }
    if (found.size) out.set(sf, found);
  }
  instanceMemo.set(sources, out);
  return out;
}

/**
 * The functions a call may run: the one `functionOf` finds, or every function of a dispatch table looked up
 * with a computed key (`handlers[name](args)`, `const h = handlers[name]; h(args)`).
 */
export function functionsOfCallee(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  // A factory returning instances of several classes (`case 'sqlite': return new SqliteAdapter(…); case 'postgres':
  // return new PostgresqlAdapter(…)`): the method of each, where functionOf keeps one.
  const made = factoryMethods(callee, sources);
  if (made.length > 1) return made;
  const f = functionCached(callee, sources);
  if (f) return [{ fn: f }];
  if (made.length) return made;
  const listed = listedHandlers(callee, sources);
  if (listed.length) return listed;
  const tabled = tabledInstanceMethods(callee, sources);
  if (tabled.length) return tabled;
  const registered = registryHandlers(callee, sources);
  if (registered.length) return registered;
  const configured = configHandlers(callee, sources);
  if (configured.length) return configured;
  const passed = passedHandlers(callee, sources);
  if (passed.length) return passed;
  let table: Node | undefined;
  if (Node.isElementAccessExpression(callee) && constString(callee.getArgumentExpression()) === undefined) table = callee.getExpression();
  else if (Node.isIdentifier(callee)) {
    const d = declarationOf(callee);
    const init = d ? initializerOf(d) : undefined;
    const u = init && stripAwait(init);
    if (u && Node.isElementAccessExpression(u) && constString(u.getArgumentExpression()) === undefined) table = u.getExpression();
  }
  const obj = table && objectLiteralOf(table, sources);
  if (!obj) return [];
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const p of obj.getProperties()) {
    const value = Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : Node.isMethodDeclaration(p) ? p : undefined;
    const fn = value && functionCached(value, sources);
    const key = Node.isPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isShorthandPropertyAssignment(p) ? propertyName(p.getNameNode()) : undefined;
    if (fn) out.push({ fn, key });
  }
  return out;
}

/**
 * A handler read from each element of a list of tool objects: `for (const tool of tools) server.tool(tool.name, …,
 * (args) => tool.handler(args))`, or `tools.forEach((t) => …t.run(args))`. The functions under that property in
 * each object of the list, keyed by the object's `name`.
 */
function listedHandlers(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  if (!Node.isPropertyAccessExpression(c)) return [];
  const item = unwrap(c.getExpression());
  const d = Node.isIdentifier(item) ? declarationOf(item) : undefined;
  if (!d) return [];
  let list: Node | undefined;
  const decl = d.getParent();
  const forOf = decl && Node.isVariableDeclaration(decl) ? decl.getParent()?.getParent() : undefined;
  if (forOf && Node.isForOfStatement(forOf)) list = forOf.getExpression();
  else if (decl && Node.isParameterDeclaration(decl)) {
    const fn = decl.getParent();
    const call = fn?.getParent();
    if (fn && isFunctionLike(fn) && call && Node.isCallExpression(call) && call.getArguments()[0] === fn && fn.getParameters()[0] === decl) {
      const m = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(m) && ['forEach', 'map', 'flatMap'].includes(m.getName())) list = m.getExpression();
    }
  } else if (decl && Node.isVariableDeclaration(decl) && decl.getInitializer()) {
    // const tool = tools.find((t) => t.schema.name === name); … tool.handle(context, args)
    const u = stripAwait(decl.getInitializer()!);
    const m = Node.isCallExpression(u) ? unwrap(u.getExpression()) : undefined;
    if (m && Node.isPropertyAccessExpression(m) && m.getName() === 'find') list = m.getExpression();
  }
  if (!list) return [];
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const el of listElements(list, sources).slice(0, 200)) {
    const obj = objectLiteralOf(el, sources);
    let fn: FunctionLikeNode | undefined;
    if (obj) {
      const p = obj.getProperty(c.getName());
      const value = p && (Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : Node.isMethodDeclaration(p) ? p : undefined);
      fn = value && (Node.isMethodDeclaration(value) ? value : functionCached(value, sources));
    } else {
      // An instance of a class of the source (`new NavigateTool()`): its method of that name.
      const cls = Node.isNewExpression(stripAwait(el)) ? classValueOf((stripAwait(el) as NewExpression).getExpression(), sources) : undefined;
      for (let k = cls, i = 0; k && !fn && i < 4; k = baseClassOf(k, sources), i++) {
        const md = k.getMethod(c.getName());
        if (md && !md.isStatic() && md.getBody()) fn = md;
      }
    }
    const key = obj ? listedName(obj, sources) : undefined;
    if (fn) out.push({ fn, ...(key !== undefined ? { key } : {}) });
  }
  return out;
}

/**
 * A method called on an instance picked from a table by a computed key: `toolHandlers[name].execute(args)`, or
 * `const handler = toolHandlers[name]; … handler.execute(args)`, over `const toolHandlers = { [TOOLS.CODEX]: new
 * CodexToolHandler(storage), review: new ReviewToolHandler() }` (possibly imported). That method of each class
 * instantiated in the table (or a base class), keyed by the property's name when it is written.
 */
function tabledInstanceMethods(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  if (!Node.isPropertyAccessExpression(c)) return [];
  let picked: Node = unwrap(c.getExpression());
  if (Node.isIdentifier(picked)) {
    const d = declarationOf(picked);
    const init = d ? initializerOf(d) : undefined;
    if (!init) return [];
    picked = stripAwait(init);
  }
  if (!Node.isElementAccessExpression(picked) || constString(picked.getArgumentExpression()) !== undefined) return [];
  const obj = objectLiteralOf(picked.getExpression(), sources);
  if (!obj) return [];
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const p of obj.getProperties().slice(0, 200)) {
    const value = Node.isPropertyAssignment(p) ? stripAwait(p.getInitializer()!) : undefined;
    if (!value || !Node.isNewExpression(value)) continue;
    const cls = classValueOf(value.getExpression(), sources);
    let fn: FunctionLikeNode | undefined;
    for (let k = cls, i = 0; k && !fn && i < 4; k = baseClassOf(k, sources), i++) {
      const md = k.getMethod(c.getName());
      if (md && !md.isStatic() && md.getBody()) fn = md;
    }
    const key = Node.isPropertyAssignment(p) ? propertyName(p.getNameNode()) : undefined;
    if (fn) out.push({ fn, ...(key !== undefined ? { key } : {}) });
  }
  return out;
}

/**
 * A method called on a tool object picked from a registry by a computed key: `const tool = this.tools.get(name);
 * … tool.handler(args)`, over `registerTool(tool) { this.tools.set(tool.name, tool) }` called as
 * `for (const tool of tools) server.registerTool(tool)` with `tools = [createReadNoteTool(vaults), …]` (or a Map
 * filled in place: `tools.set(t.name, t)`). That method of each object put in the registry: an object literal, what
 * a tool factory's call builds (through one more factory it returns: `createReadNoteTool = (v) => createTool({ … },
 * v)`), or an instance of a class of the source; keyed by the object's `name`.
 */
function registryHandlers(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  if (!Node.isPropertyAccessExpression(c)) return [];
  const item = unwrap(c.getExpression());
  const d = Node.isIdentifier(item) ? declarationOf(item) : undefined;
  const decl = d?.getParent();
  const init = decl && Node.isVariableDeclaration(decl) ? decl.getInitializer() : undefined;
  const got = init && stripAwait(init);
  if (!got || !Node.isCallExpression(got) || got.getArguments().length !== 1 || constString(got.getArguments()[0]) !== undefined) return [];
  const getter = unwrap(got.getExpression());
  if (!Node.isPropertyAccessExpression(getter) || getter.getName() !== 'get') return [];
  const registry = unwrap(getter.getExpression());
  // The registry: a field of the class the call is written in (`this.tools`), or a name of the same file.
  const fieldName = Node.isPropertyAccessExpression(registry) && unwrap(registry.getExpression()).getKind() === SyntaxKind.ThisKeyword ? registry.getName() : undefined;
  const cls = fieldName ? c.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a)) : undefined;
  const regDecl = Node.isIdentifier(registry) ? declarationOf(registry) : undefined;
  const scope: Node | undefined = cls ?? (regDecl ? c.getSourceFile() : undefined);
  if (!scope) return [];
  const sameRegistry = (e: Node): boolean => {
    const u = unwrap(e);
    if (fieldName) return Node.isPropertyAccessExpression(u) && u.getName() === fieldName && unwrap(u.getExpression()).getKind() === SyntaxKind.ThisKeyword;
    return Node.isIdentifier(u) && u.getText() === registry.getText() && declarationOf(u) === regDecl;
  };
  // The values put in: `registry.set(key, value)`.
  const values: Node[] = [];
  scope.forEachDescendant((n) => {
    if (values.length >= 50 || !Node.isCallExpression(n)) return;
    const m = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(m) && m.getName() === 'set' && n.getArguments().length === 2 && sameRegistry(m.getExpression())) values.push(n.getArguments()[1]!);
  });
  const elements: Node[] = [];
  for (const v of values) {
    const u = unwrap(v);
    const vd = Node.isIdentifier(u) ? declarationOf(u) : undefined;
    const p = vd?.getParent();
    if (p && Node.isParameterDeclaration(p)) {
      // A parameter of the registering method (`registerTool(tool)`): what its callers pass.
      const fn = p.getParent();
      const index = fn && isFunctionLike(fn) ? (fn as FunctionLikeNode).getParameters().indexOf(p) : -1;
      const name = fn && Node.isMethodDeclaration(fn) ? fn.getName() : undefined;
      if (!name || index < 0) continue;
      for (const arg of methodCallArguments(name, index, sources)) elements.push(...passedElements(arg, sources));
    } else elements.push(...passedElements(v, sources));
  }
  return elementMethods(elements, c.getName(), sources);
}

/** The arguments at `index` of the calls `x.<name>(…)` in the audited files (at most 200). */
function methodCallArguments(name: string, index: number, sources: ParsedSources): Node[] {
  const out: Node[] = [];
  for (const [, sf] of sources.files) {
    if (!sf.getFullText().includes(`.${name}(`)) continue;
    sf.forEachDescendant((n) => {
      if (out.length >= 200 || !Node.isCallExpression(n)) return;
      const m = unwrap(n.getExpression());
      const a = n.getArguments()[index];
      if (a && Node.isPropertyAccessExpression(m) && m.getName() === name) out.push(a);
    });
  }
  return out;
}

/** What a value handed to a registering call stands for: each element of the list a loop variable runs over, or the value itself. */
function passedElements(v: Node, sources: ParsedSources): Node[] {
  const u = unwrap(v);
  const d = Node.isIdentifier(u) ? declarationOf(u) : undefined;
  const decl = d?.getParent();
  const forOf = decl && Node.isVariableDeclaration(decl) ? decl.getParent()?.getParent() : undefined;
  if (forOf && Node.isForOfStatement(forOf)) return listElements(forOf.getExpression(), sources).slice(0, 200);
  return [u];
}

/** The object a listed element builds: an object literal, a tool factory's object, or the object the factory's own returned call builds (two levels). */
function builtObject(el: Node, sources: ParsedSources, depth = 0): ObjectLiteralExpression | undefined {
  const obj = objectLiteralOf(el, sources) ?? factoryObject(el, sources);
  if (obj || depth > 1) return obj;
  const call = stripAwait(el);
  if (!Node.isCallExpression(call)) return undefined;
  const fn = functionCached(call.getExpression(), sources);
  const rets = fn ? returnedExpressions(fn) : [];
  return rets.length === 1 && Node.isCallExpression(stripAwait(rets[0]!)) ? builtObject(rets[0]!, sources, depth + 1) : undefined;
}

/** Method `name` of each element: a function under that key of the object it builds, or the method of the class it instantiates. */
function elementMethods(elements: Node[], name: string, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const el of elements) {
    const obj = builtObject(el, sources);
    let fn: FunctionLikeNode | undefined;
    if (obj) {
      const p = obj.getProperty(name);
      const value = p && (Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : Node.isMethodDeclaration(p) ? p : undefined);
      fn = value && (Node.isMethodDeclaration(value) ? value : functionCached(value, sources));
    } else {
      const made = stripAwait(el);
      const cls = Node.isNewExpression(made) ? classValueOf(made.getExpression(), sources) : undefined;
      for (let k = cls, i = 0; k && !fn && i < 4; k = baseClassOf(k, sources), i++) {
        const md = k.getMethod(name);
        if (md && !md.isStatic() && md.getBody()) fn = md;
      }
    }
    if (!fn || out.some((o) => o.fn === fn)) continue;
    const key = obj ? listedName(obj, sources) : undefined;
    out.push({ fn, ...(key !== undefined ? { key } : {}) });
  }
  return out;
}

/**
 * A handler held by a configuration object a tool factory is given: `function createTool(config, vaults) { return {
 * handler: async (args) => config.handler(parse(args), root) } }` called as `createTool({ name: 'read-note', handler:
 * async (args, root) => … }, vaults)`, the call written inside the one object literal the factory returns. The
 * functions under that key of the object literals passed at that parameter's place by the factory's calls in the
 * audited files, keyed by each object's `name`.
 */
function configHandlers(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  if (!Node.isPropertyAccessExpression(c)) return [];
  const recv = unwrap(c.getExpression());
  const d = Node.isIdentifier(recv) ? declarationOf(recv) : undefined;
  const param = d?.getParent();
  if (!param || !Node.isParameterDeclaration(param)) return [];
  const factory = param.getParent();
  if (!factory || !(Node.isFunctionDeclaration(factory) || Node.isVariableDeclaration(factory.getParent()))) return [];
  const name = Node.isFunctionDeclaration(factory) ? factory.getName() : (factory.getParent() as Node & { getName(): string }).getName();
  if (!name) return [];
  // Only inside the tool object the factory returns (`return { name, handler: async (args) => config.handler(…) }`):
  // a runner given its options (`startServer(options)` calling `options.callTool(…)`) or a registration helper given
  // a tool (`register(tool)` calling `tool.handler(args)`) is left to the resolutions above.
  const returned = returnedExpressions(factory as FunctionLikeNode).map((r) => unwrap(r)).filter((r) => Node.isObjectLiteralExpression(r));
  if (returned.length !== 1 || !c.getAncestors().includes(returned[0]!)) return [];
  const index = (factory as FunctionLikeNode).getParameters().indexOf(param);
  const objects: Node[] = [];
  for (const [, sf] of sources.files) {
    if (!sf.getFullText().includes(name)) continue;
    sf.forEachDescendant((n) => {
      if (objects.length >= 200 || !Node.isCallExpression(n)) return;
      const e = unwrap(n.getExpression());
      if (!Node.isIdentifier(e) || e.getText() !== name || functionCached(e, sources) !== factory) return;
      const arg = n.getArguments()[index];
      if (arg && objectLiteralOf(arg, sources)) objects.push(arg);
    });
  }
  return elementMethods(objects, c.getName(), sources);
}

/** The tool name of a listed object: its `name`, or the `name` of a definition it holds (`{ schema: { name }, handle }`). */
function listedName(obj: ObjectLiteralExpression, sources: ParsedSources): string | undefined {
  const own = obj.getProperty('name');
  if (own) return Node.isPropertyAssignment(own) ? constString(own.getInitializer())?.value : undefined;
  for (const p of obj.getProperties()) {
    const inner = Node.isPropertyAssignment(p) ? objectLiteralOf(p.getInitializer(), sources) : undefined;
    const n = inner?.getProperty('name');
    const v = n && Node.isPropertyAssignment(n) ? constString(n.getInitializer())?.value : undefined;
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * A handler given as an argument to a registration helper: `function defineTool(server, name, schema, fn) {
 * server.registerTool(name, …, (args) => fn(args)) }` called as `defineTool(server, 'x', …, async (a) => …)`. The
 * functions passed at that parameter's place by the helper's calls in the audited files, keyed by the first text
 * argument of each call.
 */
function passedHandlers(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  const d = Node.isIdentifier(c) ? declarationOf(c) : undefined;
  const param = d?.getParent();
  if (!param || !Node.isParameterDeclaration(param)) return [];
  const helper = param.getParent();
  if (!helper || !(Node.isFunctionDeclaration(helper) || Node.isVariableDeclaration(helper.getParent()))) return [];
  const name = Node.isFunctionDeclaration(helper) ? helper.getName() : (helper.getParent() as Node & { getName(): string }).getName();
  if (!name) return [];
  const index = (helper as FunctionLikeNode).getParameters().indexOf(param);
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const [, sf] of sources.files) {
    if (!sf.getFullText().includes(name)) continue;
    sf.forEachDescendant((n) => {
      if (out.length >= 200 || !Node.isCallExpression(n)) return;
      const e = unwrap(n.getExpression());
      if (!Node.isIdentifier(e) || e.getText() !== name || functionCached(e, sources) !== helper) return;
      const arg = n.getArguments()[index];
      const fn = arg && functionCached(arg, sources);
      const key = n.getArguments().map((a) => constString(a)?.value).find((v) => v !== undefined);
      if (fn) out.push({ fn, ...(key !== undefined ? { key } : {}) });
    });
  }
  return out;
}

const assignMemo = new WeakMap<ts.SourceFile, Map<string, ts.Expression[]>>();

/** Per file (one walk), the values assigned to plain names (`adapter = createAdapter(type)`), by name. */
function assignmentsOf(sf: ts.SourceFile): Map<string, ts.Expression[]> {
  let m = assignMemo.get(sf);
  if (m) return m;
  const out = new Map<string, ts.Expression[]>();
  const visit = (cn: ts.Node): void => {
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(cn.left)) {
      out.set(cn.left.text, [...(out.get(cn.left.text) ?? []), cn.right]);
    }
    ts.forEachChild(cn, visit);
  };
  visit(sf);
  assignMemo.set(sf, (m = out));
  return m;
}

/** The `new C(…)` a function of the source returns (a factory's cases: `case 'sqlite': return new SqliteAdapter(p)`). */
function returnedClasses(fn: FunctionLikeNode, sources: ParsedSources): ClassNode[] {
  const body = fn.getBody();
  if (!body) return [];
  const sf = fn.getSourceFile();
  const out: ClassNode[] = [];
  const take = (e: ts.Expression): void => {
    const n = stripAwait(wrapNode(sf, e));
    const cls = Node.isNewExpression(n) ? classValueOf(n.getExpression(), sources) : undefined;
    if (cls && !out.includes(cls)) out.push(cls);
  };
  if (!Node.isBlock(body)) take(body.compilerNode as ts.Expression);
  const visit = (cn: ts.Node): void => {
    if (ts.isReturnStatement(cn) && cn.expression) take(cn.expression);
    if (ts.isFunctionLike(cn) || ts.isClassLike(cn)) return;
    ts.forEachChild(cn, visit);
  };
  if (Node.isBlock(body)) ts.forEachChild(body.compilerNode, visit);
  return out;
}

/**
 * A method called on an instance a factory of the source made (`let adapter = null; … adapter = createAdapter(type);
 * … adapter.all(query)` over `function createAdapter(t) { switch (t) { case 'sqlite': return new SqliteAdapter(…); … } }`,
 * also `const repo = await openRepository(dir)`): that method of every class the factory returns. The variable's
 * initializer and its assignments in its own file are read (one walk per file).
 */
const factoryMemo = new WeakMap<ts.Node, { fn: FunctionLikeNode; key?: string }[]>();
function factoryMethods(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const hit = factoryMemo.get(callee.compilerNode);
  if (hit) return hit;
  const out = factoryMethodsUncached(callee, sources);
  factoryMemo.set(callee.compilerNode, out);
  return out;
}

function factoryMethodsUncached(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const c = unwrap(callee);
  if (!Node.isPropertyAccessExpression(c)) return [];
  const recv = unwrap(c.getExpression());
  if (!Node.isIdentifier(recv)) return [];
  const d = declarationOf(recv);
  const decl = d?.getParent();
  if (!decl || !Node.isVariableDeclaration(decl) || decl.getNameNode() !== d) return [];
  const values: Node[] = [];
  const init = decl.getInitializer();
  if (init) values.push(init);
  const sf = decl.getSourceFile();
  for (const e of (assignmentsOf(sf.compilerNode).get(recv.getText()) ?? []).slice(0, 20)) values.push(wrapNode(sf, e));
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const v of values) {
    const u = stripAwait(v);
    if (!Node.isCallExpression(u)) continue;
    const factory = functionCached(unwrap(u.getExpression()), sources);
    if (!factory) continue;
    for (const cls of returnedClasses(factory, sources).slice(0, 12)) {
      let fn: FunctionLikeNode | undefined;
      for (let k: ClassNode | undefined = cls, i = 0; k && !fn && i < 4; k = baseClassOf(k, sources), i++) {
        const md = k.getMethod(c.getName());
        if (md && !md.isStatic() && md.getBody()) fn = md;
      }
      if (fn && !out.some((o) => o.fn === fn)) out.push({ fn });
    }
  }
  return out;
}

export function functionCached(callee: Node, sources: ParsedSources): FunctionLikeNode | undefined {
  const hit = functionMemo.get(callee.compilerNode);
  if (hit !== undefined) return hit ?? undefined;
  const f = functionOf(callee, sources);
  functionMemo.set(callee.compilerNode, f ?? null);
  return f;
}

const classIds = new WeakMap<ts.Node, string>();
let nextClass = 0;
/** A stable id for a class (the key of its fields' taint). */
export function classId(cls: ts.Node): string {
  let id = classIds.get(cls);
  if (!id) classIds.set(cls, (id = `c${++nextClass}`));
  return id;
}

/** The class whose `this` a node sees (through arrow functions), as a compiler node. */
export function rawEnclosingClass(cn: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let a = cn.parent; a; a = a.parent) {
    if (ts.isClassLike(a)) return a;
    if (ts.isFunctionDeclaration(a) || ts.isFunctionExpression(a)) return undefined;
  }
  return undefined;
}

/** The class a function is a member of (a method or constructor), as a compiler node. */
export function ownerClass(fn: Analyzable): ts.ClassLikeDeclaration | undefined {
  const p = fn.compilerNode.parent;
  return (Node.isMethodDeclaration(fn) || Node.isConstructorDeclaration(fn)) && p && ts.isClassLike(p) ? p : undefined;
}

/** The constructor `new X(…)` runs, when X is a class of the audited source (its own, or the one it inherits). */
export function constructorOf(n: NewExpression, sources: ParsedSources): ConstructorDeclaration | undefined {
  let cls = classValueOf(n.getExpression(), sources);
  for (let i = 0; cls && i < 5; i++) {
    const ctor = cls.getConstructors().find((c) => c.getBody());
    if (ctor) return ctor;
    cls = baseClassOf(cls, sources);
  }
  return undefined;
}
