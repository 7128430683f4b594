import { Node, SyntaxKind, ts, type CallExpression, type ObjectLiteralExpression } from '../morph.js';
import { classOf, declarationOf, findNodes, functionOf, valueOfDeclaration, type ClassNode, type FunctionLikeNode } from '../scope.js';
import { wrapNode, propertyName, unwrap, type ParsedSources } from '../ts-source.js';
import { constString, listElements, objectLiteralOf, propertyValue } from './values.js';

/**
 * The server model (facts/server-model.ts): what handlers return, objects listed as definitions (arrays and
 * maps of tools), and the branches of a low-level dispatcher.
 */

/** Expressions a function returns: `return x` statements of its own body, or its expression body. */
const returnedMemo = new WeakMap<ts.Node, Node[]>();

/**
 * What the function a call invokes returns (`uiMeta(BOARD_URI)`, `encode(bytes)`): its returned expressions, or none
 * when the callee cannot be followed to a function of the source (a value the reading cannot resolve throws; read as none).
 */
export function calleeReturns(call: CallExpression, sources: ParsedSources): Node[] {
  let fn: FunctionLikeNode | undefined;
  try {
    fn = functionOf(call.getExpression(), sources);
  } catch {
    fn = undefined;
  }
  return fn ? returnedExpressions(fn) : [];
}

/** The expressions a function returns (memoised per function: dispatchers are asked once per branch). Do not mutate. */
export function returnedExpressions(fn: FunctionLikeNode): Node[] {
  let hit = returnedMemo.get(fn.compilerNode);
  if (!hit) returnedMemo.set(fn.compilerNode, (hit = returnedUncached(fn)));
  return hit;
}

function returnedUncached(fn: FunctionLikeNode): Node[] {
  const body = fn.getBody();
  if (!body) return [];
  if (!Node.isBlock(body)) return [body];
  // Raw walk, not entering nested functions or classes: only the return statements are wrapped.
  const nested = (cn: ts.Node): boolean =>
    ts.isArrowFunction(cn) || ts.isFunctionExpression(cn) || ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isClassDeclaration(cn);
  const returns: ts.ReturnStatement[] = [];
  const visit = (cn: ts.Node): void => {
    if (nested(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) returns.push(cn);
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body.compilerNode, visit);
  const sf = body.getSourceFile();
  return returns.map((r) => wrapNode(sf, r.expression!));
}

/**
 * The object a tool factory's call builds: `navigate(true)` for `const navigate = (snapshot) => ({ schema: { … }, handle })`
 * — the one object literal the function returns; a function that returns its parameter (`defineTool(tool)`) gives the
 * object passed. Anything else (several returns, a value built another way): undefined.
 */
export function factoryObject(el: Node, sources: ParsedSources): ObjectLiteralExpression | undefined {
  const call = unwrap(el);
  if (!Node.isCallExpression(call)) return undefined;
  const fn = functionOf(call.getExpression(), sources);
  if (!fn) return undefined;
  const rets = returnedExpressions(fn);
  if (rets.length !== 1) return undefined;
  const r = unwrap(rets[0]!);
  if (Node.isObjectLiteralExpression(r)) return r;
  if (Node.isIdentifier(r)) {
    const i = fn.getParameters().findIndex((p) => p.getName() === r.getText());
    const a = i >= 0 ? call.getArguments()[i] : undefined;
    return a ? objectLiteralOf(a, sources) : undefined;
  }
  return undefined;
}

/** A listed element's object: an object literal (consts followed) or what a tool factory's call builds. */
const elementObject = (el: Node, sources: ParsedSources): ObjectLiteralExpression | undefined => objectLiteralOf(el, sources) ?? factoryObject(el, sources);

/**
 * An element of a listed array: its object literal, and, when a tool factory's call builds it (`createTool(schema,
 * 'list_incidents', 'List incidents')` for `(schema, name, description) => ({ name, description, inputSchema })`), that
 * call and the factory: a key whose value is one of the factory's parameters is read at the call (see argumentAt).
 */
export interface ListedObject {
  obj: ObjectLiteralExpression;
  call?: CallExpression;
  factory?: FunctionLikeNode;
}

/** Object literals listed under `key` in what a list handler returns (arrays and consts followed, spreads of arrays included). */
export function listedObjects(fn: FunctionLikeNode, key: string, sources: ParsedSources): ObjectLiteralExpression[] {
  return listedElements(fn, key, sources).map((e) => e.obj);
}

/** As listedObjects, with the factory call that builds each element, when one does. */
export function listedElements(fn: FunctionLikeNode, key: string, sources: ParsedSources): ListedObject[] {
  const out: ListedObject[] = [];
  const addArray = (node: Node | undefined, depth: number): void => {
    if (!node || depth > 4) return;
    let n = unwrap(node);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (!v || v === n) return;
      n = v;
    }
    if (Node.isCallExpression(n)) {
      out.push(...mappedPathObjects(n, sources).map((obj) => ({ obj })));
      return;
    }
    if (!Node.isArrayLiteralExpression(n)) return;
    for (const el of n.getElements()) {
      if (Node.isSpreadElement(el)) {
        addArray(el.getExpression(), depth + 1);
        continue;
      }
      const o = objectLiteralOf(el, sources);
      if (o) {
        out.push({ obj: o });
        continue;
      }
      const f = factoryObject(el, sources);
      const call = unwrap(el);
      const factory = Node.isCallExpression(call) ? functionOf(call.getExpression(), sources) : undefined;
      if (f) out.push(Node.isCallExpression(call) && factory ? { obj: f, call, factory } : { obj: f });
    }
  };
  for (const r of returnedExpressions(fn)) {
    let e = unwrap(r);
    if (Node.isAwaitExpression(e)) e = unwrap(e.getExpression());
    const obj = objectLiteralOf(e, sources);
    if (obj) addArray(propertyValue(obj, key), 0);
  }
  return out;
}

/**
 * A listed element's value under a key, read at the factory call that builds it: when the factory's object writes
 * the key as one of the factory's plain parameters (`{ name }`, `{ name: toolName }`), the argument the call passes
 * there (undefined when it passes none); otherwise the object's own value.
 */
export function argumentAt(e: ListedObject, value: Node | undefined): { node: Node | undefined; fromCall: boolean } {
  if (!value || !e.call || !e.factory) return { node: value, fromCall: false };
  const u = unwrap(value);
  if (!Node.isIdentifier(u)) return { node: value, fromCall: false };
  const index = e.factory.getParameters().findIndex((p) => Node.isIdentifier(p.getNameNode()) && p.getName() === u.getText() && !p.isRestParameter());
  if (index < 0) return { node: value, fromCall: false };
  // A parameter reassigned in the factory's body is not the caller's value.
  const body = e.factory.getBody();
  const reassigned = body?.getDescendantsOfKind(SyntaxKind.BinaryExpression).some((b) => b.getOperatorToken().getKind() === SyntaxKind.EqualsToken && unwrap(b.getLeft()).getText() === u.getText());
  if (reassigned) return { node: value, fromCall: false };
  const args = e.call.getArguments();
  // A spread before the parameter's place (`make(...row)`) hides which argument it takes: the object's own value.
  if (args.slice(0, index + 1).some((a) => Node.isSpreadElement(a)) || !args[index]) return { node: value, fromCall: false };
  return { node: args[index], fromCall: true };
}

/** The object literal a class's instances hold under `key`: a field's initializer, or what its getter returns. */
function memberObject(cls: ClassNode, key: string, sources: ParsedSources): ObjectLiteralExpression | undefined {
  for (const m of cls.getMembers()) {
    if ((Node.isPropertyDeclaration(m) || Node.isGetAccessorDeclaration(m)) && !m.isStatic() && propertyName(m.getNameNode()) === key) {
      if (Node.isPropertyDeclaration(m)) return objectLiteralOf(m.getInitializer(), sources);
      const body = m.getBody();
      const r = body && Node.isBlock(body) ? body.getStatements().find((st) => Node.isReturnStatement(st)) : undefined;
      const e = r && Node.isReturnStatement(r) ? r.getExpression() : undefined;
      return e ? objectLiteralOf(e, sources) : undefined;
    }
  }
  return undefined;
}

/**
 * `tools.map((t) => t.schema)`: each element of the table (array literal, const or import, spreads included)
 * holds its definition under a path, as a tool module exporting `{ schema: { name, description, inputSchema },
 * handle }` or an instance of a class with a `schema` field or getter. The objects at that path.
 */
function mappedPathObjects(call: Node, sources: ParsedSources): ObjectLiteralExpression[] {
  if (!Node.isCallExpression(call)) return [];
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'map') return [];
  const cb = call.getArguments()[0] && unwrap(call.getArguments()[0]!);
  if (!cb || !(Node.isArrowFunction(cb) || Node.isFunctionExpression(cb))) return [];
  const param = cb.getParameters()[0]?.getNameNode();
  if (!param || !Node.isIdentifier(param)) return [];
  const body = returnedExpressions(cb);
  if (body.length !== 1) return [];
  const path: string[] = [];
  let cur = unwrap(body[0]!);
  while (Node.isPropertyAccessExpression(cur)) {
    path.unshift(cur.getName());
    cur = unwrap(cur.getExpression());
  }
  if (!path.length || !Node.isIdentifier(cur) || cur.getText() !== param.getText()) return [];
  const out: ObjectLiteralExpression[] = [];
  for (const el of listElements(callee.getExpression(), sources).slice(0, 400)) {
    const own = elementObject(el, sources);
    let at: ObjectLiteralExpression | undefined;
    if (own) at = objectLiteralOf(propertyValue(own, path[0]!), sources);
    else {
      const cls = classOf(el, sources);
      at = cls ? memberObject(cls, path[0]!, sources) : undefined;
    }
    for (const k of path.slice(1)) at = at && objectLiteralOf(propertyValue(at, k), sources);
    if (at) out.push(at);
  }
  return out;
}

/** Calls that turn a schema into the JSON Schema served: the value under them is the schema to read. */
const SCHEMA_CONVERTERS = /(?:^|\.)(?:zodToJsonSchema|toJsonSchema|toJSONSchema|zodToJson)$/;

/**
 * The tool definitions a tools/list handler builds by mapping a table of literal objects:
 * `return { tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: zodToJsonSchema(t.schema) })) }`
 * (the table an array literal, a const, or an import). For each element of the table, `read(key)` gives
 * the node the mapped object's `key` stands for on that element: `t.x` (or `conv(t.x)` for a schema
 * converter such as zodToJsonSchema, `t.x.shape` included) is the element's `x`, a literal is itself, and a
 * spread `...t` gives the element's own property.
 */
export function mappedDefinitions(fn: FunctionLikeNode, sources: ParsedSources): { element: ObjectLiteralExpression; read(key: string): Node | undefined }[] {
  const out: { element: ObjectLiteralExpression; read(key: string): Node | undefined }[] = [];
  for (const r of returnedExpressions(fn)) {
    let e = unwrap(r);
    if (Node.isAwaitExpression(e)) e = unwrap(e.getExpression());
    const obj = objectLiteralOf(e, sources);
    const list = obj && propertyValue(obj, 'tools');
    const call = list && unwrap(list);
    if (!call || !Node.isCallExpression(call)) continue;
    const callee = unwrap(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'map') continue;
    const cb = call.getArguments()[0] && unwrap(call.getArguments()[0]!);
    if (!cb || !(Node.isArrowFunction(cb) || Node.isFunctionExpression(cb))) continue;
    const param = cb.getParameters()[0]?.getNameNode();
    if (!param || !Node.isIdentifier(param)) continue;
    const template = returnedExpressions(cb).map((x) => objectLiteralOf(unwrap(x), sources)).find((x) => !!x);
    if (!template) continue;
    let table: Node | undefined = unwrap(callee.getExpression());
    for (let i = 0; i < 4 && table && Node.isIdentifier(table); i++) {
      const d = declarationOf(table);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      table = v && v !== table && !Node.isSourceFile(v) ? unwrap(v) : undefined;
    }
    // A written table, or the list a server factory is handed (`createServer({ tools })`, listElements).
    const elements = table && Node.isArrayLiteralExpression(table) ? table.getElements() : listElements(callee.getExpression(), sources).slice(0, 400);
    const pname = param.getText();
    const spreads = template.getProperties().some((p) => Node.isSpreadAssignment(p) && unwrap(p.getExpression()).getText() === pname);
    for (const el of elements) {
      const element = elementObject(el, sources);
      if (!element) continue;
      const fromElement = (v: Node | undefined, depth = 0): Node | undefined => {
        if (!v || depth > 3) return undefined;
        const u = unwrap(v);
        if (Node.isCallExpression(u) && SCHEMA_CONVERTERS.test(unwrap(u.getExpression()).getText().replace(/\s+/g, ''))) return fromElement(u.getArguments()[0], depth + 1);
        // t.a.b (a trailing `.shape` of a zod object stands for the object itself)
        const path: string[] = [];
        let cur: Node = u;
        while (Node.isPropertyAccessExpression(cur)) {
          path.unshift(cur.getName());
          cur = unwrap(cur.getExpression());
        }
        if (!Node.isIdentifier(cur) || cur.getText() !== pname) return path.length ? undefined : u;
        if (path[path.length - 1] === 'shape') path.pop();
        let at: Node | undefined = element;
        for (const k of path) {
          const o: ObjectLiteralExpression | undefined = at && objectLiteralOf(at, sources);
          at = o ? propertyValue(o, k) : undefined;
        }
        return at;
      };
      out.push({
        element,
        read: (key) => {
          const own = propertyValue(template, key);
          if (own) return fromElement(own);
          return spreads ? propertyValue(element, key) : undefined;
        },
      });
    }
  }
  return out;
}

/** Is this expression the requested tool/prompt name (`request.params.name`, or a variable holding it)? */
function isNameExpression(expr: Node): boolean {
  const n = unwrap(expr);
  if (Node.isPropertyAccessExpression(n)) return n.getName() === 'name' && /(?:^|\.)params$/.test(unwrap(n.getExpression()).getText());
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const p = d?.getParent();
    if (Node.isBindingElement(p)) {
      const prop = p.getPropertyNameNode();
      return (prop ? propertyName(prop) : p.getName()) === 'name';
    }
    if (Node.isVariableDeclaration(p)) {
      const init = p.getInitializer();
      return !!init && isNameExpression(init);
    }
  }
  return false;
}

/** Branches of a dispatcher: `switch (name) { case 'x': … }` clauses and `if (name === 'x')` statements. */
export function dispatchBranches(fn: FunctionLikeNode): { name: string; node: Node }[] {
  const out: { name: string; node: Node }[] = [];
  // Raw walk: only switch and if statements are wrapped.
  for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && (ts.isSwitchStatement(cn) || ts.isIfStatement(cn)))) {
    if (Node.isSwitchStatement(n) && isNameExpression(n.getExpression())) {
      for (const c of n.getCaseBlock().getClauses()) {
        if (!Node.isCaseClause(c)) continue;
        const s = constString(c.getExpression());
        if (s) out.push({ name: s.value, node: c });
      }
    } else if (Node.isIfStatement(n)) {
      const cond = unwrap(n.getExpression());
      if (!Node.isBinaryExpression(cond) || !['===', '=='].includes(cond.getOperatorToken().getText())) continue;
      const [l, r] = [cond.getLeft(), cond.getRight()];
      const s = isNameExpression(l) ? constString(r) : isNameExpression(r) ? constString(l) : undefined;
      if (s) out.push({ name: s.value, node: n.getThenStatement() });
    }
  }
  return out;
}
