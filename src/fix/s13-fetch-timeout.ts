// S-13 fix: give `fetch(url)` / `fetch(url, { ... })` without a `signal` an
// `AbortSignal.timeout(...)`. Other clients are left to later fixes.
import { Node, SyntaxKind, type SourceFile } from '../facts/morph.js';
import { httpRequestOf } from '../facts/flow.js';
import { positionOf } from '../facts/ts-source.js';
import { addProperty, type Fix, type FixerResult, type TextEdit } from './edits.js';
import { locate, type Reading } from './reading.js';

export const FETCH_TIMEOUT_MS = 10_000;
export interface TimeoutEdit { rule: "S-13"; file: string; line: number; }

export function fixFetchTimeouts(sf: SourceFile): TimeoutEdit[] {
  const edits: TimeoutEdit[] = [];
  const signal = `AbortSignal.timeout(${FETCH_TIMEOUT_MS})`;
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (call.getExpression().getText() !== "fetch") continue;
    const args = call.getArguments();
    if (args.length === 1) {
      call.addArgument(`{ signal: ${signal} }`);
    } else if (args.length === 2 && Node.isObjectLiteralExpression(args[1])) {
      const opts = args[1];
      if (opts.getProperty("signal") || opts.getProperties().some((p) => Node.isSpreadAssignment(p))) continue;
      opts.addPropertyAssignment({ name: "signal", initializer: signal });
    } else continue;
    edits.push({ rule: "S-13", file: sf.getFilePath(), line: call.getStartLineNumber() });
  }
  return edits;
}

/*
 * The `mcp-doctor fix` side: edits for S-13's 'outbound-without-timeout' findings, at their lines only.
 *   - fetch: `signal: AbortSignal.timeout(…)` in its options (an options object added when there is none);
 *   - axios and got: their own `timeout` option (`timeout: { request: … }` for got), in the call's options, or
 *     as the options argument when the call has none (axios' config comes after the data for post/put/patch);
 *   - http(s).get / request: `signal: AbortSignal.timeout(…)` in the options (added before the callback).
 * A call whose options are not an object literal (a variable, a spread) is not edited: not mechanical.
 */

const AXIOS_DATA = new Set(['post', 'put', 'patch', 'postForm', 'putForm', 'patchForm']);

function propertyIn(text: string, file: string, opts: Node, prop: string): TextEdit[] | undefined {
  if (!Node.isObjectLiteralExpression(opts) || opts.getProperties().some((p) => Node.isSpreadAssignment(p))) return undefined;
  return addProperty(text, opts.getStart(), opts.getEnd(), opts.getProperties().at(-1)?.getEnd(), prop).map((e) => ({ ...e, file }));
}

/** The edits that bound one outbound call, or undefined when not mechanical. */
function boundCall(call: Node, text: string, file: string, r: Reading, cancel?: string): TextEdit[] | undefined {
  if (!Node.isCallExpression(call)) return undefined;
  const req = httpRequestOf(call, r.sources());
  if (!req) return undefined;
  const args = call.getArguments();
  // In a handler that ignores its cancellation signal, the request ends on the first of the two.
  const signal = cancel ? `signal: AbortSignal.any([${cancel}, AbortSignal.timeout(${FETCH_TIMEOUT_MS})])` : `signal: AbortSignal.timeout(${FETCH_TIMEOUT_MS})`;
  const after = (n: Node, s: string): TextEdit[] => [{ file, start: n.getEnd(), end: n.getEnd(), text: `, ${s}` }];
  if (req.library === 'fetch' || req.library === 'undici') {
    if (args.length === 1) return after(args[0]!, `{ ${signal} }`);
    if (args.length === 2) return propertyIn(text, file, args[1]!, signal);
    return undefined;
  }
  if (cancel) return undefined;
  if (req.library === 'axios' || req.library === 'got') {
    const prop = req.library === 'got' ? `timeout: { request: ${FETCH_TIMEOUT_MS} }` : `timeout: ${FETCH_TIMEOUT_MS}`;
    if (req.options) return propertyIn(text, file, req.options, prop);
    const configAt = req.library === 'axios' && AXIOS_DATA.has(req.method) ? 2 : 1;
    if (args.length === configAt && args.length > 0) return after(args.at(-1)!, `{ ${prop} }`);
    if (req.library === 'axios' && configAt === 2 && args.length === 1) return after(args[0]!, `undefined, { ${prop} }`);
    return undefined;
  }
  if (req.library === 'http') {
    const opts = args.slice(0, 2).find((a) => Node.isObjectLiteralExpression(a));
    if (opts) return propertyIn(text, file, opts, signal);
    // http(s).get(url[, callback]): the options go between the URL and the callback.
    if (args.length >= 1 && args.length <= 2 && !Node.isObjectLiteralExpression(args[0]!)) return after(args[0]!, `{ ${signal} }`);
    return undefined;
  }
  return undefined;
}

/**
 * 'signal-ignored': a tool handler that receives the SDK context and does outbound I/O without reading its
 * cancellation signal. Mechanical only for the fetch calls written in the handler itself: each gets
 * `signal: AbortSignal.any([<the context's signal>, AbortSignal.timeout(…)])` (an existing signal joins the
 * context's). The handler's requests made in functions it calls are left to a person: not mechanical.
 */
interface Cancellable {
  target: import('./edits.js').Target;
  /** `ctx.mcpReq.signal` (SDK v2) or `extra.signal` (v1). */
  signal: string;
  fix: Fix;
}

function cancellables(r: Reading, located: ReturnType<typeof locate>['located']): Map<Node, Cancellable> {
  const byCall = new Map<Node, Cancellable>();
  const tools = r.model().tools;
  for (const { finding, target, file } of located) {
    if (finding.messageId !== 'signal-ignored') continue;
    const tool = tools.find((x) => x.name === finding.data?.tool && x.handler && r.sources().rel(x.handler.getSourceFile()) === file);
    const params = tool?.handler?.getParameters() ?? [];
    const ctx = params.length >= 2 ? params.at(-1)!.getNameNode() : undefined;
    if (!tool || !ctx || !Node.isIdentifier(ctx) || (tool.flavour !== 'sdk-v2' && tool.flavour !== 'sdk-v1')) continue;
    const c: Cancellable = { target, signal: tool.flavour === 'sdk-v2' ? `${ctx.getText()}.mcpReq.signal` : `${ctx.getText()}.signal`, fix: { targets: [target], edits: [] } };
    for (const call of tool.handler!.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const req = httpRequestOf(call, r.sources());
      if (req && (req.library === 'fetch' || req.library === 'undici')) byCall.set(call, c);
    }
  }
  return byCall;
}

export function fixTimeouts(r: Reading): FixerResult {
  const fixes: Fix[] = [];
  const { located, skips } = locate(r, 'S-13', ['outbound-without-timeout', 'signal-ignored']);
  const byCall = cancellables(r, located);
  const handled = new Set<Cancellable>();
  for (const { finding, target, file, line, sf, text } of located) {
    if (finding.messageId !== 'outbound-without-timeout') continue;
    let edits: TextEdit[] | undefined;
    for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      if (positionOf(call).line !== line) continue;
      const c = byCall.get(call);
      edits = boundCall(call, text, file, r, c?.signal);
      if (edits && c) {
        // One fix per handler: its requests' edits answer the handler's finding and theirs together.
        c.fix.edits.push(...edits);
        c.fix.targets.push(target);
        handled.add(c);
        byCall.delete(call);
        edits = [];
      }
      if (edits) break;
    }
    if (edits?.length) fixes.push({ targets: [target], edits });
    else if (!edits) skips.push({ target, reason: 'not-mechanical' });
  }
  // Requests of those handlers that had a time limit already: their signal joins the context's.
  for (const [call, c] of byCall) {
    if (!Node.isCallExpression(call)) continue;
    const opts = call.getArguments()[1];
    const sig = opts && Node.isObjectLiteralExpression(opts) ? opts.getProperty('signal') : undefined;
    const v = sig && Node.isPropertyAssignment(sig) ? sig.getInitializer() : undefined;
    if (!v || v.getText().includes(c.signal)) continue;
    c.fix.edits.push({ file: r.sources().rel(call.getSourceFile()), start: v.getStart(), end: v.getEnd(), text: `AbortSignal.any([${c.signal}, ${v.getText()}])` });
    handled.add(c);
  }
  for (const c of handled) fixes.push(c.fix);
  const answered = new Set([...handled].map((c) => c.target));
  for (const { finding, target } of located) if (finding.messageId === 'signal-ignored' && !answered.has(target)) skips.push({ target, reason: 'not-mechanical' });
  return { fixes, skips };
}
