import { Node, type CallExpression, type ObjectLiteralExpression } from '../morph.js';
import { declarationOf, functionOf, isFunctionLike, valueOfDeclaration, type FunctionLikeNode } from '../scope.js';
import { unwrap, type ParsedSources } from '../ts-source.js';
import { returnedExpressions } from './returns.js';

/**
 * Tools kept as thunks a factory makes, called in the loop that registers them:
 *
 *   const makeTool = (name, description, schema, handler) => () => ({ name, description, schema, handler });
 *   const ListAccountsTool = makeTool('list-accounts', 'Lists …', { … }, async () => { … });  export default ListAccountsTool;
 *   export const ListTools = [ListAccountsTool, …];
 *   ListTools.map((tool) => tool()).forEach((tool) => server.tool(tool.name, tool.description, tool.schema, tool.handler));
 *
 * The list walked is `LIST.map((t) => t())`: each element of LIST (consts and imports followed) must be a call of a
 * factory the source shows whose one returned value is a function without parameters returning one object literal;
 * that object is the item, and a key whose value is one of the factory's parameters is read at the call (argumentAt).
 * Anything else (a thunk taking arguments, a factory returning several shapes, an element that is not such a call)
 * leaves the list unread.
 */

/** `LIST` of `LIST.map((t) => t())` — a map calling each element with no argument; undefined for any other expression. */
export function thunkListOf(expr: Node): Node | undefined {
  const u = unwrap(expr);
  if (!Node.isCallExpression(u) || u.getArguments().length !== 1) return undefined;
  const callee = unwrap(u.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'map') return undefined;
  const cb = unwrap(u.getArguments()[0]!);
  if (!isFunctionLike(cb)) return undefined;
  const params = cb.getParameters();
  const p = params[0];
  if (params.length !== 1 || !p || !Node.isIdentifier(p.getNameNode())) return undefined;
  const rets = returnedExpressions(cb);
  const r = rets.length === 1 ? unwrap(rets[0]!) : undefined;
  if (!r || !Node.isCallExpression(r) || r.getArguments().length !== 0) return undefined;
  const called = unwrap(r.getExpression());
  return Node.isIdentifier(called) && called.getText() === p.getName() ? callee.getExpression() : undefined;
}

/** An element of such a list: the factory call that makes its thunk, the factory, and the object the thunk returns. */
export function thunkObject(el: Node, sources: ParsedSources): { obj: ObjectLiteralExpression; call: CallExpression; factory: FunctionLikeNode } | undefined {
  let cur: Node | undefined = unwrap(el);
  for (let i = 0; cur && Node.isIdentifier(cur) && i < 6; i++) {
    const d = declarationOf(cur);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    cur = v && v !== cur ? unwrap(v) : undefined;
  }
  if (!cur || !Node.isCallExpression(cur)) return undefined;
  const factory = functionOf(cur.getExpression(), sources);
  if (!factory) return undefined;
  const outer = returnedExpressions(factory);
  const thunk = outer.length === 1 ? unwrap(outer[0]!) : undefined;
  if (!thunk || !isFunctionLike(thunk) || thunk.getParameters().length !== 0) return undefined;
  const inner = returnedExpressions(thunk);
  const obj = inner.length === 1 ? unwrap(inner[0]!) : undefined;
  return obj && Node.isObjectLiteralExpression(obj) ? { obj, call: cur, factory } : undefined;
}
