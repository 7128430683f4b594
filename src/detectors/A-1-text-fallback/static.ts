import { Node, ts, type ArrayLiteralExpression, type CallExpression } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { declarationOf, functionOf, type FunctionLikeNode } from '../../facts/scope.js';
import { constString, objectLiteralOf, propertyValue, returnedExpressions } from '../../facts/server-model.js';
import { positionOf, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { appSource } from '../support/apps/app-source.js';

/**
 * text fallback next to the UI (static). Every App tool the server's code registers (registerAppTool of
 * @modelcontextprotocol/ext-apps/server, registerTool with `_meta.ui.resourceUri`, or a low-level Server's listed
 * definition with that key, whose dispatcher branch for the name is read) returns, on every path
 * of its handler, a `content` array holding a text block next to the UI: a result made of `structuredContent`
 * alone, an empty `content`, or a `content` without a text block is red (a host without the UI shows nothing).
 * So is a text that is a fixed sentence (a literal, the same whatever the input), next to a `structuredContent` or
 * alone (a View fed from the tool's input): "Displayed the chart." stands for none of what the View shows. An error
 * result (`isError: true`) is left aside.
 * The reading follows the handler's returns through conditionals and the helper functions of the audited
 * source it returns the result of (`return result(notes)`); a result it cannot follow (built in a
 * dependency, a `content` that is not an array literal) leaves the tool unjudged.
 */

type Outcome =
  | { kind: 'text' }
  | { kind: 'no-text'; why: 'no-content' | 'empty-content' | 'no-text-block'; line: number; file?: string }
  /** viaParameter: the text is a parameter of a helper, fixed by the call that gives it (told at that call). */
  | { kind: 'constant-text'; text: string; line: number; file?: string; viaParameter?: true }
  | { kind: 'unknown'; line: number };

/**
 * The constant strings a helper's call gives its parameters (`return textResult("Displayed the chart.", data)` with
 * `const textResult = (text, data) => ({ content: [{ type: "text", text }], structuredContent: data })`), keyed by the
 * parameter's declaring identifier: the helper's text is then the fixed sentence of its call. Only a plain parameter
 * given a constant (a literal, a const, a parameter itself bound by an outer call) is bound.
 */
type Bound = ReadonlyMap<ts.Node, string>;
const NONE: Bound = new Map();

function boundString(n: Node | undefined, bound: Bound): { value: string } | undefined {
  const c = constString(n);
  if (c || !n || !bound.size) return c;
  const id = unwrap(n);
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  const v = d ? bound.get(d.compilerNode) : undefined;
  return v === undefined ? undefined : { value: v };
}

function bindingsOf(fn: FunctionLikeNode, call: CallExpression, bound: Bound): Bound {
  const out = new Map<ts.Node, string>();
  const args = call.getArguments();
  fn.getParameters().forEach((p, i) => {
    const name = p.getNameNode();
    const arg = args[i];
    if (!Node.isIdentifier(name) || p.isRestParameter() || !arg || Node.isSpreadElement(arg)) return;
    const v = boundString(arg, bound);
    if (v) out.set(name.compilerNode, v.value);
  });
  return out;
}

/**
 * The array literal a `content` is: written in place, or held by a `const` of the same file that nothing changes
 * afterwards (`const content = [{ type: "text", text }]; return { content, structuredContent }`). A const whose array
 * is pushed to, spliced, sorted or written by index, or handed to a call (which may change it), is not followed.
 */
const MUTATORS = /^(?:push|unshift|splice|pop|shift|fill|copyWithin|reverse|sort)$/;
function heldArray(n: Node): ArrayLiteralExpression | undefined {
  if (Node.isArrayLiteralExpression(n)) return n;
  if (!Node.isIdentifier(n)) return undefined;
  const d = declarationOf(n);
  const decl = d?.getParent();
  if (!d || d.getSourceFile() !== n.getSourceFile() || !Node.isVariableDeclaration(decl) || decl.getNameNode() !== d) return undefined;
  if (!/^const\b/.test(decl.getParent()?.getText() ?? '')) return undefined;
  const init = decl.getInitializer();
  const arr = init && unwrap(init);
  if (!arr || !Node.isArrayLiteralExpression(arr)) return undefined;
  const name = d.getText();
  for (const use of n.getSourceFile().getDescendantsOfKind(ts.SyntaxKind.Identifier)) {
    if (use === d || use.getText() !== name || declarationOf(use) !== d) continue;
    const parent = use.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === use && MUTATORS.test(parent.getName())) return undefined;
    if (Node.isElementAccessExpression(parent) && parent.getExpression() === use) return undefined;
    if (Node.isCallExpression(parent) && parent.getArguments().includes(use)) return undefined;
  }
  return arr;
}

function outcomeOfResult(expr: Node, sources: ParsedSources, depth: number, bound: Bound = NONE): Outcome[] {
  let n = unwrap(expr);
  if (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  const line = positionOf(n).line;
  // The file the result is written in (a handler of another module than the registration's).
  const file = sources.rel(n.getSourceFile());
  if (Node.isConditionalExpression(n)) return [...outcomeOfResult(n.getWhenTrue(), sources, depth, bound), ...outcomeOfResult(n.getWhenFalse(), sources, depth, bound)];
  if (Node.isCallExpression(n)) {
    let fn: FunctionLikeNode | undefined;
    try {
      fn = depth < 3 ? functionOf(n.getExpression(), sources) : undefined;
    } catch {
      fn = undefined;
    }
    // The helper's text given at this call (a fixed sentence handed to a result builder) is the call's: its place too.
    return fn ? outcomesOf(fn, sources, depth + 1, bindingsOf(fn, n, bound)).map((o) => (o.kind === 'constant-text' && o.viaParameter ? { ...o, line, file } : o)) : [{ kind: 'unknown', line }];
  }
  const obj = objectLiteralOf(n, sources);
  if (!obj) return [{ kind: 'unknown', line }];
  const content = propertyValue(obj, 'content');
  if (!content) return obj.getProperties().some((p) => Node.isSpreadAssignment(p)) ? [{ kind: 'unknown', line }] : [{ kind: 'no-text', why: 'no-content', line, file }];
  const arr = heldArray(unwrap(content));
  if (!arr) return [{ kind: 'unknown', line }];
  const items = arr.getElements();
  if (!items.length) return [{ kind: 'no-text', why: 'empty-content', line, file }];
  let unknown = false;
  let constant: { text: string; line: number; file: string; viaParameter?: true } | undefined;
  for (const el of items) {
    const block = Node.isSpreadElement(el) ? undefined : objectLiteralOf(el, sources);
    if (!block) {
      unknown = true;
      continue;
    }
    const type = constString(propertyValue(block, 'type'))?.value;
    if (type === undefined) unknown = true;
    if (type !== 'text') continue;
    const text = propertyValue(block, 'text');
    const literal = boundString(text, bound);
    if (text && literal === undefined) return [{ kind: 'text' }];
    if (text && literal!.value.trim() !== '') constant ??= { text: literal!.value.trim(), line: positionOf(text).line, file, ...(constString(text) ? {} : { viaParameter: true as const }) };
  }
  // A fixed sentence stands for none of the result: the same words whatever the input, next to the data the View shows
  // (structuredContent) or to a View fed from the tool's input. An error result (`isError: true`) says what went wrong
  // and may well be fixed words.
  // A helper's flag given by its caller (`result(text, isError)`) may mark an error result: not a fixed sentence then.
  const isError = propertyValue(obj, 'isError')?.getText();
  if (constant) return [isError === 'true' || (constant.viaParameter && isError !== undefined && isError !== 'false') ? { kind: 'text' } : { kind: 'constant-text', ...constant }];
  return [unknown ? { kind: 'unknown', line } : { kind: 'no-text', why: 'no-text-block', line, file }];
}

/**
 * The outcomes of a low-level dispatcher's branch for one tool (a `case 'name':` clause or an `if (name === …)`
 * statement): the results its own return statements give (not those of functions defined inside it). A branch that
 * returns nothing itself (it sets a variable and breaks to a common return) is not followed.
 */
function branchOutcomes(branch: Node, sources: ParsedSources): Outcome[] {
  const returned: Node[] = [];
  const visit = (n: Node): void => {
    if (Node.isReturnStatement(n)) {
      const e = n.getExpression();
      if (e) returned.push(e);
      return;
    }
    if (Node.isFunctionDeclaration(n) || Node.isFunctionExpression(n) || Node.isArrowFunction(n) || Node.isMethodDeclaration(n) || Node.isClassDeclaration(n)) return;
    n.forEachChild(visit);
  };
  visit(branch);
  if (!returned.length) return [{ kind: 'unknown', line: positionOf(branch).line }];
  return returned.flatMap((r) => outcomeOfResult(r, sources, 0));
}

function outcomesOf(fn: FunctionLikeNode, sources: ParsedSources, depth: number, bound: Bound = NONE): Outcome[] {
  const returned = returnedExpressions(fn);
  const body = fn.getBody();
  if (!returned.length) return [body && Node.isBlock(body) ? { kind: 'no-text', why: 'no-content', line: positionOf(fn).line } : { kind: 'unknown', line: positionOf(fn).line }];
  return returned.flatMap((r) => outcomeOfResult(r, sources, depth, bound));
}

export default defineDetector({
  ruleId: 'A-1',
  genre: 'static',
  needs: ['repo'],
  messages: { 'app-result-without-text': ['tool', 'why'], 'app-result-constant-text': ['tool', 'text'] },
  judge({ inputs: { repo } }) {
    const { sources, appTools } = appSource(repo);
    const unreadOwn = sources.unread.find((u) => !u.file.startsWith('node_modules/'));
    if (!appTools.length) return unreadOwn ? couldNotJudge('file-not-read', fileNotReadData(unreadOwn)) : couldNotJudge('no-app-tool-in-source');
    const findings: Finding[] = [];
    const unjudged: string[] = [];
    for (const t of appTools) {
      if (!t.handler && !t.branch) {
        unjudged.push(t.name);
        continue;
      }
      const outcomes = t.branch ? branchOutcomes(t.branch, sources) : outcomesOf(t.handler!, sources, 0);
      const red = outcomes.find((o): o is Extract<Outcome, { kind: 'no-text' }> => o.kind === 'no-text');
      const fixed = outcomes.find((o): o is Extract<Outcome, { kind: 'constant-text' }> => o.kind === 'constant-text');
      if (red) findings.push({ messageId: 'app-result-without-text', data: { tool: t.name, why: red.why }, location: { file: red.file ?? t.file, line: red.line } });
      else if (fixed) findings.push({ messageId: 'app-result-constant-text', data: { tool: t.name, text: fixed.text.slice(0, 120) }, location: { file: fixed.file ?? t.file, line: fixed.line } });
      else if (outcomes.some((o) => o.kind === 'unknown')) unjudged.push(t.name);
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (unjudged.length) return couldNotJudge('app-result-not-followed', { tools: [...new Set(unjudged)].sort().join(', ') });
    return present();
  },
});
