import { Node, SyntaxKind, type SourceFile } from '../../../facts/morph.js';
import { functionOf, type FunctionLikeNode } from '../../../facts/scope.js';
import { ofKinds, type ParsedSources } from '../../../facts/ts-source.js';

/**
 * The call sites of the functions of the audited source, in a given set of files: every call whose callee
 * facts/scope's functionOf follows to the function (locals, consts, relative imports, `this.m()`). Built
 * once per set of files and parsed sources; callers ask "who calls this function?" to judge a value or a
 * path by what every caller does.
 */

const memo = new WeakMap<readonly SourceFile[], { sources: ParsedSources; byFn: Map<FunctionLikeNode, Node[]> }>();

export function callSitesOf(fn: FunctionLikeNode, files: readonly SourceFile[], sources: ParsedSources): Node[] {
  let hit = memo.get(files);
  if (!hit || hit.sources !== sources) {
    const byFn = new Map<FunctionLikeNode, Node[]>();
    for (const sf of files) {
      for (const call of ofKinds(sf, [SyntaxKind.CallExpression])) {
        if (!Node.isCallExpression(call)) continue;
        let target: FunctionLikeNode | undefined;
        try {
          target = functionOf(call.getExpression(), sources);
        } catch {
          target = undefined;
        }
        if (!target || target === call.getExpression()) continue;
        const list = byFn.get(target) ?? [];
        list.push(call);
        byFn.set(target, list);
      }
    }
    memo.set(files, (hit = { sources, byFn }));
  }
  return hit.byFn.get(fn) ?? [];
}
