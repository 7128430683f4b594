import { Node, SyntaxKind, ts, type CallExpression, type ObjectBindingPattern, type ObjectLiteralExpression, type SourceFile } from '../morph.js';
import { baseClassOf, declarationOf, enclosingClass, functionOf, isFunctionLike, resolveRelativeModule, valueOfDeclaration, type ClassNode, type FunctionLikeNode } from '../scope.js';
import { propertyName, rawOfKinds, unwrap, wrapNode, type NamedFilter, type ParsedSources } from '../ts-source.js';
import { escapeRegExp } from '../regex.js';
import { bundlerNamespaceMembers, calleeName, constString, listElements, literalBoolean, MAKE_API, objectLiteralOf, propertyValue, variableParts } from './values.js';
import { documentRows } from '../data-documents.js';
import { argumentAt } from './returns.js';
import { thunkListOf, thunkObject } from './thunk-items.js';

/**
 * Tools declared as classes: a base class registers every tool the same way, from its own fields —
 *
 *   class ToolBase { register(server) { server.registerTool(this.name, { description: this.description,
 *     inputSchema: this.argsShape, annotations: this.annotations }, (args, extra) => this.execute(args, extra)) } }
 *   class FindTool extends ToolBase { name = 'find'; operationType = 'read'; … execute(args) { … } }
 *   const AllTools = [FindTool, …]; for (const T of AllTools) new T(session).register(server);
 *
 * The registration's `this.<field>` values are read on each class that extends the registering one (through
 * any depth, across the package's files): a field's initializer, a getter's returned value, or `this.key = …` in
 * a constructor, looked up from the class up through the classes it extends. A class stands for a tool when the
 * package names it somewhere besides its declaration and exports (a registry array, a `new`), and it is not
 * `abstract`. Booleans computed from fields are evaluated per class (`this.operationType === 'read'`, `!`, `&&`,
 * `||`, `?:`, `[…].includes(this.x)`); anything else stays unread. The method the base handler delegates to
 * (`this.execute(args)`) is the class's own, where the tool's arguments go.
 */

/** A class's own field: its initializer, a getter's returned value, or `this.key = …` in the constructor. */
export function classField(cls: ClassNode, key: string): Node | undefined {
  for (const m of cls.getMembers()) {
    const name = Node.isPropertyDeclaration(m) || Node.isGetAccessorDeclaration(m) ? propertyName(m.getNameNode()) : undefined;
    if (name !== key || (Node.isPropertyDeclaration(m) && m.isStatic())) continue;
    if (Node.isPropertyDeclaration(m)) {
      const init = m.getInitializer();
      if (init) return init;
      continue;
    }
    const body = m.getBody();
    const ret = body && Node.isBlock(body) ? body.getStatements().find((x) => Node.isReturnStatement(x)) : undefined;
    return ret && Node.isReturnStatement(ret) ? ret.getExpression() : undefined;
  }
  for (const c of cls.getConstructors()) {
    for (const st of c.getStatements()) {
      if (!Node.isExpressionStatement(st)) continue;
      const e = unwrap(st.getExpression());
      if (!Node.isBinaryExpression(e) || e.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
      const l = unwrap(e.getLeft());
      if (Node.isPropertyAccessExpression(l) && Node.isThisExpression(unwrap(l.getExpression())) && l.getName() === key) return e.getRight();
    }
  }
  return undefined;
}

/** A field looked up from the class up through the classes it extends (the nearest one written wins). */
export function fieldOf(cls: ClassNode, key: string, sources: ParsedSources): Node | undefined {
  let c: ClassNode | undefined = cls;
  for (let i = 0; c && i < 6; i++) {
    const v = classField(c, key);
    if (v) return v;
    c = baseClassOf(c, sources);
  }
  return undefined;
}

/** `this.key` → key; anything else undefined. */
export function thisField(n: Node | undefined): string | undefined {
  const u = n && unwrap(n);
  return u && Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression())) ? u.getName() : undefined;
}

/** What a value written in the base class stands for on one class: `this.key` is that class's field (followed). */
export function onClass(n: Node | undefined, cls: ClassNode, sources: ParsedSources): Node | undefined {
  let cur = n;
  for (let i = 0; cur && i < 4; i++) {
    const k = thisField(cur);
    if (!k) return cur;
    const v = fieldOf(cls, k, sources);
    if (!v) return cur;
    cur = v;
  }
  return cur;
}

/** A string on one class: a literal, a const, or `this.key` holding one. */
export function stringOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources): { value: string; literal: Node } | undefined {
  return constString(onClass(n, cls, sources));
}

/** A boolean computed on one class from literals and its fields; undefined when it cannot be read. */
export function booleanOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources, depth = 0): boolean | undefined {
  if (!n || depth > 8) return undefined;
  const v = unwrap(onClass(n, cls, sources)!);
  const lit = literalBoolean(v);
  if (lit !== undefined) return lit;
  if (Node.isPrefixUnaryExpression(v) && v.getOperatorToken() === SyntaxKind.ExclamationToken) {
    const b = booleanOn(v.getOperand(), cls, sources, depth + 1);
    return b === undefined ? undefined : !b;
  }
  if (Node.isConditionalExpression(v)) {
    const c = booleanOn(v.getCondition(), cls, sources, depth + 1);
    return c === undefined ? undefined : booleanOn(c ? v.getWhenTrue() : v.getWhenFalse(), cls, sources, depth + 1);
  }
  if (Node.isBinaryExpression(v)) {
    const op = v.getOperatorToken().getKind();
    if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
      const l = booleanOn(v.getLeft(), cls, sources, depth + 1);
      const r = booleanOn(v.getRight(), cls, sources, depth + 1);
      if (op === SyntaxKind.AmpersandAmpersandToken) return l === false || r === false ? false : l && r ? true : undefined;
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
    }
    const eq = op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken;
    const ne = op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken;
    if (eq || ne) {
      const l = stringOn(v.getLeft(), cls, sources);
      const r = stringOn(v.getRight(), cls, sources);
      if (!l || !r) return undefined;
      return eq ? l.value === r.value : l.value !== r.value;
    }
    return undefined;
  }
  // `['create', 'update'].includes(this.operationType)`
  if (Node.isCallExpression(v)) {
    const callee = unwrap(v.getExpression());
    const arg = v.getArguments()[0];
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'includes' || !arg) return undefined;
    const list = unwrap(callee.getExpression());
    const s = stringOn(arg, cls, sources);
    if (!Node.isArrayLiteralExpression(list) || !s) return undefined;
    const items = list.getElements().map((e) => constString(e)?.value);
    return items.some((x) => x === undefined) ? undefined : items.includes(s.value);
  }
  return undefined;
}

/** The annotations object on one class, and its hints evaluated there. */
export function annotationsOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources): { node?: Node; obj?: ObjectLiteralExpression; hints?: Record<string, boolean> } {
  const node = onClass(n, cls, sources);
  const obj = objectLiteralOf(node, sources);
  if (!obj) return { node };
  const hints: Record<string, boolean> = {};
  for (const p of obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    const b = booleanOn(p.getInitializerOrThrow(), cls, sources);
    if (k && b !== undefined) hints[k] = b;
  }
  return { node, obj, hints };
}

/**
 * The method of the class (or of a class it extends) the base handler calls as `this.m(…)` with the handler's first
 * parameter (or with all of them, `this.m(...args)` from a rest parameter). Where the handler calls several (`invoke(args)` runs `this.verifyConfirmed(args)`, then
 * `this.execute(args)`), the one a class below the handler's own declares (the tool's override) is the tool's
 * implementation; else the first.
 */
export function delegateOn(handler: FunctionLikeNode | undefined, cls: ClassNode, sources: ParsedSources): FunctionLikeNode | undefined {
  const first = handler?.getParameters()[0];
  const argName = first && Node.isIdentifier(first.getNameNode()) ? first.getName() : undefined;
  if (!handler || !argName) return undefined;
  const own = enclosingClass(handler);
  let found: FunctionLikeNode | undefined;
  for (const call of handler.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const m = thisField(call.getExpression());
    // `this.execute(args, extra)`, or a rest parameter handed on whole (`async (...args) => this.execute(...args)`).
    const passes = (a: Node): boolean => unwrap(a).getText() === argName || (first!.isRestParameter() && Node.isSpreadElement(a) && unwrap(a.getExpression()).getText() === argName);
    if (!m || !call.getArguments().some(passes)) continue;
    for (let c: ClassNode | undefined = cls, i = 0; c && i < 6; c = baseClassOf(c, sources), i++) {
      const method = c.getInstanceMethod(m);
      if (!method || !isFunctionLike(method) || !method.getBody()) continue;
      if (!own || c !== own) return method;
      found ??= method;
      break;
    }
  }
  return found;
}

const HERITAGE: NamedFilter = (cn) => (ts.isClassDeclaration(cn) || ts.isClassExpression(cn)) && !!cn.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword);

/** Whether the package names the class outside its own declaration and its exports (a registry, a `new`). */
function named(cls: ClassNode, files: readonly [string, SourceFile][]): boolean {
  const name = cls.getName();
  if (!name) return true; // a class expression is a value where it is written
  const word = new RegExp(`\\b${escapeRegExp(name)}\\b`);
  const exportLine = new RegExp(
    `^\\s*(?:export\\s+(?:default\\s+)?(?:abstract\\s+)?class\\s+${escapeRegExp(name)}\\b|(?:abstract\\s+)?class\\s+${escapeRegExp(name)}\\b|exports\\.${escapeRegExp(name)}\\s*=\\s*(?:${escapeRegExp(name)}|void 0)|Object\\.defineProperty\\(exports,\\s*["']${escapeRegExp(name)}["']|export\\s*\\{[^}]*\\}\\s*;?\\s*$)`,
  );
  for (const [, sf] of files) {
    const text = sf.getFullText();
    if (!word.test(text)) continue;
    for (const line of text.split('\n')) if (word.test(line) && !exportLine.test(line) && !/^\s*(?:import|export\s+\*)/.test(line)) return true;
  }
  return false;
}

/**
 * The classes a registration written in a class method with a `this.<field>` name stands for: the registering
 * class and every class extending it (any depth, in the package's files) that is not abstract and that the
 * package names besides its declaration. undefined when the call is not in a class or no such class is found.
 */
export function registeringClasses(call: CallExpression, nameArg: Node, files: readonly [string, SourceFile][], sources: ParsedSources): ClassNode[] | undefined {
  if (!thisField(nameArg)) return undefined;
  const base = enclosingClass(call);
  if (!base) return undefined;
  const all: ClassNode[] = [];
  for (const [, sf] of files) for (const cn of rawOfKinds(sf, [SyntaxKind.ClassDeclaration, SyntaxKind.ClassExpression], HERITAGE)) all.push(wrapNode(sf, cn) as ClassNode);
  const extending = (c: ClassNode): boolean => {
    for (let b = baseClassOf(c, sources), i = 0; b && i < 6; b = baseClassOf(b, sources), i++) if (b === base) return true;
    return false;
  };
  const out = [base, ...all.filter(extending)].filter((c) => !(Node.isClassDeclaration(c) && c.isAbstract()) && (c === base ? classField(c, thisField(nameArg)!) !== undefined : true) && named(c, files));
  return out.length ? out : undefined;
}

/* ------------------------------------------------- tools registered in a loop over a written list */

/** One item of a list a registration loops over: the loop's variable and the object literal it holds. */
export interface LoopItem {
  param: string;
  obj: ObjectLiteralExpression;
  /** The item is a row of a data document the package ships (facts/data-documents): its path relative to the root. */
  document?: string;
  /**
   * A wrapper whose parameter is destructured (`function reg({ name, description, inputShape: schema })`): the local
   * names bound to the item's keys (`schema` → `inputShape`), read on the item by onItem.
   */
  bindings?: ReadonlyMap<string, string>;
  /**
   * The item is a row of an endpoint table a client generator wrote (`makeApi([...])` of openapi-zod-client / zodios):
   * the table module's path relative to the root. Its rows share the loop's one handler.
   */
  table?: string;
  /**
   * The item is a property of an object map walked by `Object.entries(MAP)` / `Object.keys(MAP)`: the tool's name is
   * the property's key (`node`), which the loop binds to the local `param`. For `Object.keys`, the item is read as
   * `MAP[param]` (`map` is MAP's text).
   */
  key?: { param: string; name: string; node: Node; map?: string };
  /** The item is the object a factory's thunk returns (server-model/thunk-items): a key holding a factory parameter is read at this call. */
  call?: CallExpression;
  factory?: FunctionLikeNode;
}

/** The item's value under a key: the object's own, or, for a thunk a factory made, the argument its call passes there. */
function itemValue(item: LoopItem, key: string): Node | undefined {
  const v = propertyValue(item.obj, key);
  return item.call && item.factory ? argumentAt(item, v).node : v;
}

/** An element of the list as a tool object: an object literal, or `defineTool({ name, … })` (a call given one). */
function itemObject(el: Node, sources: ParsedSources): ObjectLiteralExpression | undefined {
  const direct = objectLiteralOf(el, sources) ?? requiredObject(el, sources);
  if (direct) return direct;
  const arg = mapValueObject(el, sources);
  return arg && arg.getProperty('name') ? arg : undefined;
}

/**
 * `require('./tools/read')` of a CommonJS module of the package that sets `module.exports = { name, config, handler }`
 * (an object literal, or a const holding one): that object. A list of such requires is a list of tool objects.
 */
function requiredObject(el: Node, sources: ParsedSources): ObjectLiteralExpression | undefined {
  const u = unwrap(el);
  if (!Node.isCallExpression(u) || unwrap(u.getExpression()).getText() !== 'require') return undefined;
  const spec = constString(u.getArguments()[0])?.value;
  const sf = spec && spec.startsWith('.') ? resolveRelativeModule(sources.rel(u.getSourceFile()), spec, sources) : undefined;
  if (!sf) return undefined;
  let obj: ObjectLiteralExpression | undefined;
  for (const st of sf.getStatements()) {
    if (!Node.isExpressionStatement(st)) continue;
    const e = unwrap(st.getExpression());
    if (!Node.isBinaryExpression(e) || e.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
    if (e.getLeft().getText().replace(/\s+/g, '') !== 'module.exports') continue;
    // The last assignment is what the module exports.
    obj = objectLiteralOf(e.getRight(), sources);
  }
  return obj;
}

/** The values a module exports as `export const X = …` (what `Object.values(import * as m)` lists). */
function exportedValues(sf: SourceFile): Node[] {
  const out: Node[] = [];
  for (const st of sf.getStatements()) {
    if (!Node.isVariableStatement(st) || !st.isExported()) continue;
    for (const d of st.getDeclarations()) {
      const init = d.getInitializer();
      if (init) out.push(init);
    }
  }
  return out;
}

/**
 * The elements of the list a loop runs over: array literals and their spreads, consts, `Object.values(ns)` of a
 * namespace import, and what listElements reads. undefined when a part of it cannot be read (a spread of a call's
 * result, a list filled at run time): the list may hold tools the reading does not see.
 */
function loopElements(list: Node, sources: ParsedSources, depth = 0): Node[] | undefined {
  if (depth > 6) return undefined;
  const u = unwrap(list);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    const init = v && Node.isVariableDeclaration(v) ? v.getInitializer() : v;
    return init && init !== u && !Node.isSourceFile(init) ? loopElements(init, sources, depth + 1) : undefined;
  }
  if (Node.isCallExpression(u) && unwrap(u.getExpression()).getText() === 'Object.values') {
    const a = u.getArguments()[0];
    const id = a && unwrap(a);
    const d = id && Node.isIdentifier(id) ? declarationOf(id) : undefined;
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    if (v && Node.isSourceFile(v)) return exportedValues(v);
    // A bundler's namespace object (`var tools_exports = __export({ a: () => a })`): the getters' values.
    const ns = v ? bundlerNamespaceMembers(v) : undefined;
    if (ns) return ns;
  }
  // `Object.values(MAP)` of an object map the source writes (spreads of such maps included): its values.
  if (Node.isCallExpression(u) && unwrap(u.getExpression()).getText() === 'Object.values' && objectLiteralOf(u.getArguments()[0], sources)) {
    return mapEntries(u.getArguments()[0]!, sources)?.map((e) => e.value);
  }
  if (Node.isArrayLiteralExpression(u)) {
    const out: Node[] = [];
    for (const e of u.getElements()) {
      if (!Node.isSpreadElement(e)) out.push(e);
      else {
        const sub = loopElements(e.getExpression(), sources, depth + 1);
        if (!sub) return undefined;
        out.push(...sub);
      }
    }
    return out;
  }
  // A list kept in a field of a class (`static tools = [...]` walked by `for (const tool of this.tools)` in a static
  // method, or by `ToolRegistry.tools`; an instance field initialised with a literal, walked through `this`).
  if (Node.isPropertyAccessExpression(u)) {
    const field = classFieldValue(u);
    if (field) return loopElements(field, sources, depth + 1);
  }
  const listed = listElements(list, sources);
  return listed.length ? listed : undefined;
}

/** The initializer of the class field `this.NAME` / `ClassName.NAME` reads, when the class declares it with one. */
function classFieldValue(access: Node): Node | undefined {
  if (!Node.isPropertyAccessExpression(access)) return undefined;
  const on = unwrap(access.getExpression());
  let cls: ClassNode | undefined;
  if (Node.isThisExpression(on)) cls = enclosingClass(on);
  else if (Node.isIdentifier(on)) {
    const d = declarationOf(on)?.getParent();
    if (d && Node.isClassDeclaration(d)) cls = d;
  }
  const prop = cls?.getProperty(access.getName());
  return prop?.getInitializer();
}

/**
 * The items a registration named `item.name` stands for, when `item` is the variable of a `for (const item of LIST)`
 * or the parameter of `LIST.forEach((item) => …)` and every element of LIST is a tool object the source shows
 * (see itemObject). undefined otherwise (one element not read leaves the name computed).
 */
/** Rows of a data document read as tools (a larger table is left unread: too many tools to judge one by one). */
export const MAX_DOCUMENT_ROWS = 2000;

/** The list a loop's variable walks: `LIST` of `for (const item of LIST)` / `LIST.forEach((item) => …)`. */
export function loopList(holder: Node): Node | undefined {
  if (!Node.isIdentifier(holder)) return undefined;
  const d = declarationOf(holder);
  const decl = d?.getParent();
  // The loop variable itself (not a name destructured from it).
  if (!decl || !(Node.isVariableDeclaration(decl) || Node.isParameterDeclaration(decl)) || decl.getNameNode() !== d) return undefined;
  return walkedBy(decl);
}

/**
 * For a registration named `item.field` in a loop over a data document's list: the document and why its rows are
 * not read as tools (facts/data-documents; 'too-many-rows', 'row-not-object'), or undefined when the list is not a
 * document's or its rows are read.
 */
export function unreadDocumentLoop(nameArg: Node, sources: ParsedSources): { file?: string; why: string } | undefined {
  const u = unwrap(nameArg);
  const holder = Node.isPropertyAccessExpression(u) ? unwrap(u.getExpression()) : undefined;
  const list = holder ? loopList(holder) : undefined;
  const doc = list ? documentRows(list, sources) : undefined;
  if (!doc) return undefined;
  if (!doc.rows) return { file: doc.file, why: doc.why ?? 'not-read' };
  if (doc.rows.length === 0) return undefined;
  if (doc.rows.length > MAX_DOCUMENT_ROWS) return { file: doc.file, why: 'too-many-rows' };
  return doc.rows.every((r) => Node.isObjectLiteralExpression(unwrap(r))) ? undefined : { file: doc.file, why: 'row-not-object' };
}

/** The declaration of the variable a registration's `item.name` reads (to tell registrations of one loop apart). */
/**
 * A composed name's one variable part (`tool.name` of `\`${PREFIX}_${tool.name}\``, `'x_' + tool.name`): the name a loop
 * reads on its item, the rest string constants. Every variable part must read the same variable; else the name itself.
 */
function namePart(nameArg: Node): Node {
  const parts = variableParts(nameArg);
  if (!parts?.length) return nameArg;
  const holder = (p: Node): string => {
    const u = unwrap(p);
    return Node.isPropertyAccessExpression(u) ? unwrap(u.getExpression()).getText() : u.getText();
  };
  return parts.every((p) => holder(p) === holder(parts[0]!) && (Node.isIdentifier(unwrap(p)) || Node.isPropertyAccessExpression(unwrap(p)))) ? parts[0]! : nameArg;
}

export function loopVariable(nameArg: Node): Node | undefined {
  const u = unwrap(namePart(nameArg));
  // A loop's key (`name` of `for (const [name, tool] of Object.entries(MAP))`).
  if (Node.isIdentifier(u)) return declarationOf(u);
  if (!Node.isPropertyAccessExpression(u)) return undefined;
  const holder = unwrap(u.getExpression());
  return Node.isIdentifier(holder) ? declarationOf(holder) : undefined;
}

export function loopItems(nameArg: Node, sources: ParsedSources): LoopItem[] | undefined {
  const u = unwrap(namePart(nameArg));
  if (Node.isIdentifier(u)) return keyedItems(u, sources) ?? destructuredItems(u, sources);
  if (!Node.isPropertyAccessExpression(u)) return undefined;
  const holder = unwrap(u.getExpression());
  return Node.isIdentifier(holder) ? loopVariableItems(holder, sources) : undefined;
}

/** The items a loop's variable (`tool` of `for (const tool of LIST)` / `LIST.forEach((tool) => …)`) holds, when every element of LIST is a tool object the source shows. */
export function loopVariableItems(holder: Node, sources: ParsedSources): LoopItem[] | undefined {
  if (!Node.isIdentifier(holder)) return undefined;
  const d = declarationOf(holder);
  const decl = d?.getParent();
  let list: Node | undefined;
  if (decl && Node.isVariableDeclaration(decl) && decl.getNameNode() === d) {
    const stmt = decl.getParent()?.getParent();
    if (stmt && Node.isForOfStatement(stmt)) list = stmt.getExpression();
  } else if (decl && Node.isParameterDeclaration(decl) && decl.getNameNode() === d) {
    const fn = decl.getParent();
    const call = fn?.getParent();
    if (fn && isFunctionLike(fn) && fn.getParameters()[0] === decl && call && Node.isCallExpression(call) && call.getArguments()[0] === fn) {
      const callee = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'forEach') list = callee.getExpression();
    }
  }
  if (!list) return undefined;
  // `LIST.map((t) => t())`: thunks a factory made, each returning a tool object (server-model/thunk-items).
  const thunks = thunkListOf(list);
  if (thunks) {
    const els = loopElements(thunks, sources);
    if (!els?.length || els.length > 500) return undefined;
    const made: LoopItem[] = [];
    for (const el of els) {
      const t = thunkObject(el, sources);
      if (!t) return undefined;
      made.push({ param: holder.getText(), ...t });
    }
    return made;
  }
  // A list read from a JSON document the package ships: each row an object of the document.
  const doc = documentRows(list, sources);
  if (doc) {
    if (!doc.rows?.length || doc.rows.length > MAX_DOCUMENT_ROWS) return undefined;
    const rows: LoopItem[] = [];
    for (const el of doc.rows) {
      const obj = unwrap(el);
      if (!Node.isObjectLiteralExpression(obj)) return undefined;
      rows.push({ param: holder.getText(), obj, document: doc.file });
    }
    return rows;
  }
  const elements = loopElements(list, sources);
  // A generated endpoint table is read up to the rows of a data document (its rows share one handler, read once).
  const limit = elements?.length && elements.length > 500 && tableOf(objectLiteralOf(elements[0], sources)) ? MAX_DOCUMENT_ROWS : 500;
  if (!elements?.length || elements.length > limit) return undefined;
  const out: LoopItem[] = [];
  for (const el of elements) {
    const obj = itemObject(el, sources);
    if (!obj) return undefined;
    const table = tableOf(obj);
    out.push({ param: holder.getText(), obj, ...(table ? { table: sources.rel(obj.getSourceFile()) } : {}) });
  }
  return out;
}

/** Is this row written in a generated endpoint table, `makeApi([{ method, path, alias, … }])`? */
function tableOf(obj: ObjectLiteralExpression | undefined): boolean {
  const arr = obj?.getParent();
  const call = arr && Node.isArrayLiteralExpression(arr) ? arr.getParent() : undefined;
  return !!call && Node.isCallExpression(call) && MAKE_API.test(calleeName(call));
}

/**
 * An input shape the loop builds from the item's parameter list — `const shape = {}; for (const p of item.parameters ?? [])
 * shape[p.name] = p.schema;` — stands for that list (its rows' zod schemas are the arguments' schemas): the item's
 * value under that key. undefined when the shape is not built so.
 */
export function shapeFromItem(n: Node | undefined, item: LoopItem): Node | undefined {
  const u = n && unwrap(n);
  if (!u || !Node.isIdentifier(u)) return undefined;
  const d = declarationOf(u);
  const decl = d?.getParent();
  const init = decl && Node.isVariableDeclaration(decl) ? decl.getInitializer() : undefined;
  if (!init || !Node.isObjectLiteralExpression(unwrap(init)) || (unwrap(init) as ObjectLiteralExpression).getProperties().length) return undefined;
  const block = decl!.getParent()?.getParent()?.getParent();
  if (!block) return undefined;
  for (const st of block.getChildrenOfKind(SyntaxKind.ForOfStatement)) {
    if (!st.getStatement().getText().includes(`${u.getText()}[`)) continue;
    let list: Node = unwrap(st.getExpression());
    if (Node.isBinaryExpression(list) && /^(?:\?\?|\|\|)$/.test(list.getOperatorToken().getText())) list = unwrap(list.getLeft());
    if (!Node.isPropertyAccessExpression(list) || unwrap(list.getExpression()).getText() !== item.param) continue;
    const v = propertyValue(item.obj, list.getName());
    return v && unwrap(v);
  }
  return undefined;
}

/** `item.key` of the loop's variable → the item's property; anything else is itself. */
export function onItem(n: Node | undefined, item: LoopItem): Node | undefined {
  const u = n && unwrap(n);
  if (u && item.bindings && Node.isIdentifier(u)) {
    const key = item.bindings.get(u.getText());
    return key !== undefined ? (itemValue(item, key) ?? n) : n;
  }
  // `item.description ?? ''`, `item.summary || ''`: the item's value when it has one.
  if (u && Node.isBinaryExpression(u) && /^(?:\?\?|\|\|)$/.test(u.getOperatorToken().getText())) {
    const left = unwrap(u.getLeft());
    const v = onItem(left, item);
    return v !== left ? v : n;
  }
  if (!u || !Node.isPropertyAccessExpression(u)) return n;
  const h = unwrap(u.getExpression());
  // `item.parameters.shape`: the raw shape of the zod object the item holds, read as that object (its properties are the shape's).
  if (u.getName() === 'shape' && Node.isPropertyAccessExpression(h)) {
    const v = onItem(h, item);
    return v !== h && v !== undefined ? v : n;
  }
  // `MAP[name].description` in a loop over `Object.keys(MAP)`.
  if (item.key?.map && Node.isElementAccessExpression(h)) {
    const at = h.getArgumentExpression();
    const on = at && unwrap(at).getText() === item.key.param && unwrap(h.getExpression()).getText() === item.key.map;
    return on ? (propertyValue(item.obj, u.getName()) ?? n) : n;
  }
  return Node.isIdentifier(h) && h.getText() === item.param && item.param ? (itemValue(item, u.getName()) ?? n) : n;
}

/** The item's function the handler calls as `item.handler(args…)` with its first parameter, when it is one the source shows. */
export function delegateOnItem(handler: FunctionLikeNode | undefined, item: LoopItem, sources: ParsedSources): FunctionLikeNode | undefined {
  const first = handler?.getParameters()[0];
  const argName = first && Node.isIdentifier(first.getNameNode()) ? first.getName() : undefined;
  if (!handler || !argName) return undefined;
  for (const call of handler.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = unwrap(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || unwrap(callee.getExpression()).getText() !== item.param) continue;
    if (!call.getArguments().some((a) => unwrap(a).getText() === argName)) continue;
    const v = itemValue(item, callee.getName());
    const fn = v && functionOf(v, sources);
    if (fn) return fn;
  }
  return undefined;
}


/* ------------------------------------------------- tools kept as the keys of an object map */

/** One property of an object map: its key, the key's node, and its value. */
export interface MapEntry {
  key: string;
  node: Node;
  value: Node;
}

/**
 * The properties of an object map the source writes (`{ list_x: { description, parameters, execute }, …}`, consts and
 * imports followed), spreads of such maps included (a later key replaces an earlier one, keeping its place). undefined
 * when a part cannot be read — a computed key, a method or accessor, a spread of a value not read — since the map may
 * then hold keys the reading does not see.
 */
export function mapEntries(node: Node | undefined, sources: ParsedSources, depth = 0): MapEntry[] | undefined {
  if (!node || depth > 6) return undefined;
  const obj = objectLiteralOf(node, sources);
  if (!obj) return undefined;
  const out = new Map<string, MapEntry>();
  for (const p of obj.getProperties()) {
    if (Node.isSpreadAssignment(p)) {
      const sub = mapEntries(p.getExpression(), sources, depth + 1);
      if (!sub) return undefined;
      for (const e of sub) out.set(e.key, e);
      continue;
    }
    if (!Node.isPropertyAssignment(p) && !Node.isShorthandPropertyAssignment(p)) return undefined;
    const nameNode = p.getNameNode();
    const key = propertyName(nameNode);
    const value = Node.isPropertyAssignment(p) ? p.getInitializer() : nameNode;
    if (key === undefined || !value) return undefined;
    out.set(key, { key, node: nameNode, value });
  }
  return [...out.values()];
}

/** A map's value as a tool object: an object literal (consts followed), or `tool({ description, … })` (a call given one). */
function mapValueObject(v: Node, sources: ParsedSources): ObjectLiteralExpression | undefined {
  const direct = objectLiteralOf(v, sources);
  if (direct) return direct;
  let u = unwrap(v);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const w = d ? valueOfDeclaration(d, sources) : undefined;
    if (!w || w === u || Node.isSourceFile(w)) return undefined;
    u = unwrap(Node.isVariableDeclaration(w) ? (w.getInitializer() ?? w) : w);
  }
  if (!Node.isCallExpression(u) || u.getArguments().length !== 1) return undefined;
  return objectLiteralOf(u.getArguments()[0], sources);
}

/** `Object.entries(MAP)` / `Object.keys(MAP)`: which, and MAP. */
function objectWalk(n: Node | undefined): { kind: 'entries' | 'keys'; map: Node } | undefined {
  const u = n && unwrap(n);
  if (!u || !Node.isCallExpression(u) || u.getArguments().length !== 1) return undefined;
  const callee = unwrap(u.getExpression()).getText();
  const kind = callee === 'Object.entries' ? 'entries' : callee === 'Object.keys' ? 'keys' : undefined;
  return kind ? { kind, map: u.getArguments()[0]! } : undefined;
}

/** The list a declaration's loop walks: the expression of its `for…of`, or the receiver of the `forEach` it is the callback's first parameter of. */
function walkedBy(decl: Node | undefined): Node | undefined {
  if (!decl) return undefined;
  if (Node.isVariableDeclaration(decl)) {
    const stmt = decl.getParent()?.getParent();
    return stmt && Node.isForOfStatement(stmt) ? stmt.getExpression() : undefined;
  }
  if (Node.isParameterDeclaration(decl)) {
    const fn = decl.getParent();
    const call = fn?.getParent();
    if (fn && isFunctionLike(fn) && fn.getParameters()[0] === decl && call && Node.isCallExpression(call) && call.getArguments()[0] === fn) {
      const callee = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'forEach') return callee.getExpression();
    }
  }
  return undefined;
}

/** The local names an object pattern binds, each to the key it reads (`{ name, parameters: schema }`); undefined on a rest element or a nested pattern. */
function patternKeys(pattern: ObjectBindingPattern): Map<string, string> | undefined {
  const bindings = new Map<string, string>();
  for (const b of pattern.getElements()) {
    const local = b.getNameNode();
    const prop = b.getPropertyNameNode();
    const key = prop ? propertyName(prop) : local.getText();
    if (b.getDotDotDotToken() || !Node.isIdentifier(local) || key === undefined) return undefined;
    bindings.set(local.getText(), key);
  }
  return bindings;
}

/**
 * The items a registration named by a name the loop destructures from its variable stands for: `for (const { name,
 * config, handler } of LIST) server.registerTool(name, config, handler)` (or `LIST.forEach(({ name, … }) => …)`), one
 * tool per element of LIST when every element is a tool object the source shows (see itemObject: object literals,
 * consts and imports followed, `require('./tool')` of a module exporting one); the pattern's names read on each.
 */
function destructuredItems(id: Node, sources: ParsedSources): LoopItem[] | undefined {
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  const element = d?.getParent();
  if (!element || !Node.isBindingElement(element) || element.getNameNode() !== d) return undefined;
  const pattern = element.getParent();
  if (!pattern || !Node.isObjectBindingPattern(pattern)) return undefined;
  const list = walkedBy(pattern.getParent());
  if (!list) return undefined;
  const bindings = patternKeys(pattern);
  if (!bindings) return undefined;
  const elements = loopElements(list, sources);
  if (!elements?.length || elements.length > 500) return undefined;
  const out: LoopItem[] = [];
  for (const el of elements) {
    const obj = itemObject(el, sources);
    if (!obj) return undefined;
    out.push({ param: '', obj, bindings });
  }
  return out;
}

/**
 * The items a registration named by a loop's key stands for: `for (const [name, tool] of Object.entries(MAP))
 * server.registerTool(name, { description: tool.description, … }, tool.execute)` (or `Object.entries(MAP).forEach(([name,
 * tool]) => …)`, or `for (const name of Object.keys(MAP))` with `MAP[name].description`): one tool per property of MAP,
 * named by its key. undefined when the map cannot be read whole (see mapEntries) or a value is not a tool object.
 */
function keyedItems(id: Node, sources: ParsedSources): LoopItem[] | undefined {
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  const parent = d?.getParent();
  let walk: ReturnType<typeof objectWalk>;
  let param = '';
  let bindings: Map<string, string> | undefined;
  if (parent && Node.isBindingElement(parent) && parent.getNameNode() === d && !parent.getPropertyNameNode()) {
    // `[name, tool]`: the key is the pattern's first element.
    const pattern = parent.getParent();
    if (!Node.isArrayBindingPattern(pattern) || pattern.getElements()[0] !== parent) return undefined;
    walk = objectWalk(walkedBy(pattern.getParent()));
    if (walk?.kind !== 'entries') return undefined;
    const second = pattern.getElements()[1];
    if (second && Node.isBindingElement(second)) {
      const n = second.getNameNode();
      if (Node.isIdentifier(n)) param = n.getText();
      else if (Node.isObjectBindingPattern(n)) {
        // `[name, { description, parameters: schema }]`: the local names bound to the value's keys.
        bindings = patternKeys(n);
        if (!bindings) return undefined;
      } else return undefined;
    }
  } else if (parent && (Node.isVariableDeclaration(parent) || Node.isParameterDeclaration(parent)) && parent.getNameNode() === d) {
    walk = objectWalk(walkedBy(parent));
    if (walk?.kind !== 'keys') return undefined;
  } else return undefined;
  const entries = mapEntries(walk.map, sources);
  if (!entries?.length || entries.length > 500) return undefined;
  const out: LoopItem[] = [];
  const map = walk.kind === 'keys' ? unwrap(walk.map).getText() : undefined;
  for (const e of entries) {
    const obj = mapValueObject(e.value, sources);
    if (!obj) return undefined;
    out.push({ param, obj, key: { param: id.getText(), name: e.key, node: e.node, ...(map ? { map } : {}) }, ...(bindings ? { bindings } : {}) });
  }
  return out;
}
