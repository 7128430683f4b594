import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { wrapNode } from '../../facts/ts-source.js';
import { confirmationCause, needsConfirmation } from '../../probe/apps-discover.js';
import { appSource, lineIn, viewCode, type ViewCode } from '../support/apps/app-source.js';
import { toolNamesOf } from './tool-names.js';
import { embeddedViewCode } from '../support/apps/embedded-view.js';

/**
 * A-7 — consent before a destructive call (static). Reads the View's source (UI files, not the minified
 * bundle) for the tool calls it makes — `app.callServerTool({ name })`, a bridge's `callTool(name)`, or a
 * hand-written JSON-RPC `tools/call` request — and the tools' annotations in the server's code of the same
 * repository. A call of a tool that needs a confirmation (annotated destructive, or not idempotent, or not
 * annotated; never exempted on `destructiveHint: false` alone) must sit behind an explicit user confirmation:
 *   - a `confirm(…)` before it in the same handler, or
 *   - a second click: the call runs in a click handler installed by another click handler (vanilla: a "Yes"
 *     button created when "Delete" is clicked), or in a handler of an element rendered only under a condition
 *     (React: `{pending && <button onClick={confirmDelete}>}`, the confirmation dialog state).
 * Red: such a call with neither (in a plain click handler, or with no click at all), and any confirmation
 * skipped on `destructiveHint` alone (the View reads destructiveHint and none of readOnlyHint/idempotentHint).
 * Without View source or built bundle, the inline scripts of the View the server's code serves whole are read
 * (support/apps/embedded-view.ts; not when that View loads a script by `src`: its code is then elsewhere).
 * A call whose tool name is held in a variable is judged for each name the file writes down for it (tool-names.ts:
 * consts, literal tables, a literal array mapped over, a union of string literals); a name that cannot be read, or
 * a tool the source does not register with readable annotations, cannot be judged; no View source: could-not-judge; no such call: not-applicable.
 */

const CALL_METHODS = new Set(['callServerTool', 'callTool']);

function stringOf(n: ts.Node | undefined): string | undefined {
  if (!n) return undefined;
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  return undefined;
}

function nameMember(o: ts.Node | undefined): { found: boolean; name?: string; expr?: ts.Expression } {
  if (!o || !ts.isObjectLiteralExpression(o)) return { found: false };
  for (const p of o.properties) {
    if (ts.isPropertyAssignment(p) && p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === 'name') return { found: true, name: stringOf(p.initializer), expr: p.initializer };
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === 'name') return { found: true, expr: p.name };
  }
  return { found: false };
}

/**
 * The tool a call of the View calls: `{ name }` undefined when not a literal; undefined when the call is no tool call.
 * In a built bundle (`bundle`), the libraries bundled in hold tools/call plumbing of their own (the body of
 * callServerTool, schema tables): there only a method call `x.callServerTool(…)` / `x.callTool(…)`, or a request
 * whose tool name is a literal, is a call of the View.
 */
function toolCalled(call: ts.CallExpression, bundle = false): { name?: string; expr?: ts.Expression } | undefined {
  const callee = call.expression;
  const method = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  if (CALL_METHODS.has(method) && (!bundle || ts.isPropertyAccessExpression(callee))) {
    const a = call.arguments[0];
    const lit = stringOf(a);
    if (lit !== undefined) return { name: lit };
    const m = nameMember(a);
    return { name: m.name, expr: m.expr ?? (a && !ts.isObjectLiteralExpression(a) ? a : undefined) };
  }
  if (call.arguments.some((a) => stringOf(a) === 'tools/call')) {
    for (const a of call.arguments) {
      const m = nameMember(a);
      if (m.found && (!bundle || m.name !== undefined)) return { name: m.name, expr: m.expr };
    }
    return bundle ? undefined : {};
  }
  // A JSON-RPC message written out: post({ jsonrpc: '2.0', method: 'tools/call', params: { name } }).
  for (const a of call.arguments) {
    if (!ts.isObjectLiteralExpression(a)) continue;
    const member = (k: string) => a.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === k);
    if (stringOf(member('method')?.initializer) !== 'tools/call') continue;
    const { name, expr } = nameMember(member('params')?.initializer);
    if (bundle && name === undefined) continue;
    return { name, expr };
  }
  return undefined;
}

/** The tool name of a call is a parameter of the function around it: a wrapper (its callers are the call sites). */
function wrapperCall(call: ts.CallExpression): boolean {
  const names = new Set<string>();
  const collect = (n: ts.Node | undefined): void => {
    if (!n) return;
    if (ts.isIdentifier(n)) names.add(n.text);
    else if (ts.isObjectLiteralExpression(n)) for (const p of n.properties) {
      if (ts.isShorthandPropertyAssignment(p) && p.name.text === 'name') names.add('name');
      else if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && (p.name.text === 'name' || p.name.text === 'params')) collect(p.initializer);
      else if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.initializer) && p.name && ts.isIdentifier(p.name) && p.name.text === 'name') names.add(p.initializer.text);
    }
  };
  for (const a of call.arguments) collect(a);
  let f: ts.Node | undefined = call.parent;
  while (f && !isFn(f)) f = f.parent;
  return !!f && isFn(f) && f.parameters.some((p) => ts.isIdentifier(p.name) && names.has(p.name.text));
}

const isFn = (n: ts.Node): n is ts.FunctionLikeDeclaration => ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n);

/** React's memoising hooks: `useCallback(fn, deps)` stands for `fn` (`React.useCallback`, `(0, r.useCallback)` in a bundle). */
function isMemoHook(call: ts.CallExpression): boolean {
  let c: ts.Expression = call.expression;
  while (ts.isParenthesizedExpression(c)) c = c.expression;
  if (ts.isBinaryExpression(c) && c.operatorToken.kind === ts.SyntaxKind.CommaToken) c = c.right;
  const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
  return name === 'useCallback' || name === 'useEvent';
}

/** The name a function is known by in its file (declaration name, or the variable it initialises, through useCallback). */
function fnName(f: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(f) && f.name) return f.name.text;
  let p = f.parent;
  while (p && ts.isParenthesizedExpression(p)) p = p.parent;
  if (p && ts.isCallExpression(p) && p.arguments[0] && isMemoHook(p)) {
    let q = p.parent;
    while (q && ts.isParenthesizedExpression(q)) q = q.parent;
    if (q && ts.isVariableDeclaration(q) && ts.isIdentifier(q.name)) return q.name.text;
    return undefined;
  }
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return undefined;
}

/** Is `n` (a function, or an identifier naming one) installed as a click handler here? Returns the installing node. */
function clickSite(n: ts.Node): ts.Node | undefined {
  let e = n;
  while (ts.isParenthesizedExpression(e.parent)) e = e.parent;
  const p = e.parent;
  if (ts.isBinaryExpression(p) && p.right === e && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(p.left) && /^on(click|pointerup|mouseup)$/i.test(p.left.name.text)) return p;
  if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && p.expression.name.text === 'addEventListener' && p.arguments[1] === e && /^(click|pointerup|mouseup)$/.test(stringOf(p.arguments[0]) ?? '')) return p;
  if (ts.isJsxExpression(p) && ts.isJsxAttribute(p.parent) && /^on(Click|PointerUp|MouseUp)$/.test(p.parent.name.getText())) return p.parent;
  // Compiled JSX: jsx("button", { onClick: handler }) / createElement("button", { onClick: handler }).
  if (ts.isPropertyAssignment(p) && p.initializer === e && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && /^on(Click|PointerUp|MouseUp)$/.test(p.name.text) && ts.isObjectLiteralExpression(p.parent) && ts.isCallExpression(p.parent.parent)) return p;
  // onClick={() => confirmDelete()}: the arrow calling it is the handler.
  if (ts.isCallExpression(p) && p.expression === e) {
    let body: ts.Node = p;
    while (ts.isAwaitExpression(body.parent) || ts.isParenthesizedExpression(body.parent)) body = body.parent;
    const f = body.parent;
    if (ts.isArrowFunction(f) && f.body === body) return clickSite(f);
  }
  return undefined;
}

/** Where a function is installed as a click handler (its own position, or the uses of its name in the file). */
function clickSites(f: ts.Node, sf: ts.SourceFile): ts.Node[] {
  const own = clickSite(f);
  if (own) return [own];
  const name = fnName(f);
  if (!name) return [];
  const out: ts.Node[] = [];
  const visit = (cn: ts.Node): void => {
    if (ts.isIdentifier(cn) && cn.text === name) {
      const s = clickSite(cn);
      if (s) out.push(s);
    }
    ts.forEachChild(cn, visit);
  };
  visit(sf);
  return out;
}

const enclosingFns = (n: ts.Node): ts.Node[] => {
  const out: ts.Node[] = [];
  for (let c: ts.Node | undefined = n.parent; c; c = c.parent) if (isFn(c)) out.push(c);
  return out;
};

/** A click site that is a second step: inside another click handler, or on a JSX element rendered under a condition. */
function secondStep(site: ts.Node, sf: ts.SourceFile, depth: number): boolean {
  if (ts.isJsxAttribute(site) || ts.isPropertyAssignment(site)) {
    for (let c: ts.Node | undefined = site.parent; c && !isFn(c); c = c.parent) {
      if (ts.isBinaryExpression(c) && c.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) return true;
      if (ts.isConditionalExpression(c)) return true;
    }
  }
  if (depth > 3) return false;
  return enclosingFns(site).some((g) => clickSites(g, sf).length > 0);
}

type CallVerdict = 'confirmed' | 'unconfirmed' | 'on-destructive-hint';

/** In a bundle, the functions around a call stop at the first large one (a module's or the whole bundle's wrapper). */
const BUNDLE_FN_CHARS = 5000;

function judgeCall(call: ts.CallExpression, sf: ts.SourceFile, bundle = false): CallVerdict {
  let fns = enclosingFns(call);
  if (bundle) {
    const big = fns.findIndex((f) => f.end - f.pos > BUNDLE_FN_CHARS);
    if (big >= 0) fns = fns.slice(0, big);
  }
  const near = fns.map((f) => f.getText(sf)).join('\n');
  if (/destructiveHint/.test(near) && !/readOnlyHint|idempotentHint/.test(near)) return 'on-destructive-hint';
  // confirm(…) before the call in one of its functions.
  for (const f of fns) {
    let confirmed = false;
    const visit = (cn: ts.Node): void => {
      if (confirmed || cn.pos >= call.pos) return;
      if (ts.isCallExpression(cn)) {
        const c = cn.expression;
        const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
        if (name === 'confirm' && cn.end <= call.pos) confirmed = true;
      }
      ts.forEachChild(cn, visit);
    };
    visit(f);
    if (confirmed) return 'confirmed';
  }
  for (const f of fns) for (const s of clickSites(f, sf)) if (secondStep(s, sf, 0)) return 'confirmed';
  return 'unconfirmed';
}

/** A call of the View that is red: a tool needing a confirmation called without one, or a confirmation decided on destructiveHint. */
export interface RedViewCall {
  file: string;
  line: number;
  called: string;
  /** Why the tool needs a confirmation (confirmationCause); undefined for onHint. */
  cause?: string;
  onHint: boolean;
}

/**
 * The tool calls of some View code judged: each call's tool name (a literal, or the names the file writes down for the
 * variable holding it), the tool's definition as `definitionOf` gives it (undefined: its annotations are not known),
 * and whether a confirmation stands before it. Red calls, the tools that could not be judged, and how many calls.
 */
export function viewCallVerdicts(source: readonly ViewCode[], definitionOf: (name: string) => Record<string, unknown> | undefined): { reds: RedViewCall[]; unjudged: Set<string>; calls: number } {
  const reds: RedViewCall[] = [];
  const unjudged = new Set<string>();
  let calls = 0;
  for (const c of source) {
    const raw = c.sf.compilerNode;
    const visit = (cn: ts.Node): void => {
      if (ts.isCallExpression(cn)) {
        const tool = toolCalled(cn, c.bundle);
        // A name held in a variable: the names written down for it in the file (consts, literal tables, unions), each judged.
        const resolved = tool && tool.name === undefined && tool.expr ? toolNamesOf(tool.expr) : undefined;
        if (tool && !(tool.name === undefined && !resolved && wrapperCall(cn))) {
          calls++;
          const line = lineIn(c, wrapNode(c.sf, cn) as Node);
          const v = judgeCall(cn, raw, c.bundle);
          const called = tool.name ?? (cn.arguments[0]?.getText(raw) ?? '').slice(0, 60);
          const names = tool.name !== undefined ? [tool.name] : resolved?.names;
          if (v === 'on-destructive-hint') reds.push({ file: c.file, line, called: names?.join(', ') ?? called, onHint: true });
          else if (names === undefined) {
            if (v !== 'confirmed') unjudged.add(called);
          } else {
            for (const name of names) {
              const def = definitionOf(name);
              if (def === undefined) {
                if (v !== 'confirmed') unjudged.add(name);
              } else {
                if (!needsConfirmation(def) || v !== 'unconfirmed') continue;
                // A name read from a parameter's type: its callers, and what they confirm first, are not read.
                if (resolved?.viaType) unjudged.add(name);
                else reds.push({ file: c.file, line, called: name, cause: confirmationCause(def), onHint: false });
              }
            }
          }
        }
      }
      ts.forEachChild(cn, visit);
    };
    visit(raw);
  }
  return { reds, unjudged, calls };
}

export default defineDetector({
  ruleId: 'A-7',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'call-without-confirmation-in-source': ['file', 'called', 'cause'],
    'confirmation-on-destructive-hint': ['file', 'called'],
  },
  judge({ inputs: { repo } }) {
    const view = viewCode(repo);
    // The View's source when the repository holds it; else its built bundles (a published package ships only them).
    let source = view.code.filter((c) => !c.bundle);
    const unread = view.unread.find((u) => !view.bundles.includes(u.file) || !source.length);
    if (unread) return couldNotJudge('file-not-read', fileNotReadData(unread));
    if (!source.length) source = view.code.filter((c) => c.bundle);
    // No View file and no built bundle: the View the server's code serves whole, when all its code is inline.
    // (A View without any script calls no tool.)
    if (!source.length) {
      const embedded = embeddedViewCode(repo);
      if (!embedded) return couldNotJudge('no-view-source');
      source = embedded;
    }
    const { annotations } = appSource(repo);
    const { reds, unjudged, calls } = viewCallVerdicts(source, (name) => {
      const ann = annotations.get(name);
      return ann === undefined || ann === 'unknown' ? undefined : ann === 'none' ? {} : { annotations: ann };
    });
    const findings: Finding[] = reds.map((r): Finding =>
      r.onHint
        ? { messageId: 'confirmation-on-destructive-hint', data: { file: r.file, called: r.called }, location: { file: r.file, line: r.line } }
        : { messageId: 'call-without-confirmation-in-source', data: { file: r.file, called: r.called, cause: r.cause! }, location: { file: r.file, line: r.line } },
    );
    if (findings.length) return { state: 'non-conforming', findings };
    if (unjudged.size) return couldNotJudge('tool-call-not-judged', { tools: [...unjudged].sort().join(', ') });
    if (!calls) return notApplicable('no-tool-call-in-view');
    return present();
  },
});
