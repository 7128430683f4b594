import { Node, type ObjectLiteralExpression } from '../../facts/morph.js';
import { objectLiteralOf, returnedExpressions } from '../../facts/server-model.js';
import { downlevelAsyncBody, functionOf, type FunctionLikeNode } from '../../facts/scope.js';
import { unwrap, type ParsedSources } from '../../facts/ts-source.js';

/**
 * Object literals a function returns (for a dispatcher branch: the returns inside the branch). A returned
 * call to a function of the audited source (`return formatResult(data)`, `return toolError(msg)`,
 * `return await this.handleSearch(args)`) is followed into that function's own returns, up to three
 * levels; both arms of a conditional are read.
 */
export function returnedObjects(declared: FunctionLikeNode | undefined, within: Node | undefined, sources: ParsedSources, depth = 0, seen = new Set<FunctionLikeNode>(), outside: readonly Node[] = []): ObjectLiteralExpression[] {
  // A compiler's downlevel async function returns from the generator it hands to `__awaiter` (`return yield f()`).
  const fn = declared && (downlevelAsyncBody(declared, false) ?? declared);
  if (!fn || seen.has(fn)) return [];
  seen.add(fn);
  const inside = (e: Node, n: Node) => e.getStart() >= n.getStart() && e.getEnd() <= n.getEnd();
  const exprs = returnedExpressions(fn).filter((e) => (!within || inside(e, within)) && !outside.some((o) => inside(e, o)));
  const out: ObjectLiteralExpression[] = [];
  for (const e of exprs) out.push(...objectsOfResult(e, sources, depth, seen, fn));
  return out;
}

/**
 * Object literals a returned expression stands for: a literal (through await and both arms of a conditional),
 * or the returns of a function of the audited source it calls (returnedObjects, up to three levels).
 */
export function objectsOfResult(e: Node, sources: ParsedSources, depth = 0, seen = new Set<FunctionLikeNode>(), self?: FunctionLikeNode): ObjectLiteralExpression[] {
  const out: ObjectLiteralExpression[] = [];
  const read = (e: Node): void => {
    let u = unwrap(e);
    if (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
    else if (Node.isYieldExpression(u) && !u.getAsteriskToken() && u.getExpression()) u = unwrap(u.getExpression()!);
    if (Node.isConditionalExpression(u)) {
      read(u.getWhenTrue());
      read(u.getWhenFalse());
      return;
    }
    const o = objectLiteralOf(u, sources);
    if (o) out.push(o);
    else if (Node.isCallExpression(u) && depth < 3) {
      let callee: FunctionLikeNode | undefined;
      try {
        callee = functionOf(u.getExpression(), sources);
      } catch {
        callee = undefined;
      }
      if (callee && callee !== self) out.push(...returnedObjects(callee, undefined, sources, depth + 1, seen));
    }
  };
  read(e);
  return out;
}
