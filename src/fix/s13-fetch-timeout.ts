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
function boundCall(call: Node, text: string, file: string, r: Reading): TextEdit[] | undefined {
  if (!Node.isCallExpression(call)) return undefined;
  const req = httpRequestOf(call, r.sources());
  if (!req) return undefined;
  const args = call.getArguments();
  const signal = `signal: AbortSignal.timeout(${FETCH_TIMEOUT_MS})`;
  const after = (n: Node, s: string): TextEdit[] => [{ file, start: n.getEnd(), end: n.getEnd(), text: `, ${s}` }];
  if (req.library === 'fetch' || req.library === 'undici') {
    if (args.length === 1) return after(args[0]!, `{ ${signal} }`);
    if (args.length === 2) return propertyIn(text, file, args[1]!, signal);
    return undefined;
  }
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

export function fixTimeouts(r: Reading): FixerResult {
  const fixes: Fix[] = [];
  // A handler that ignores the cancellation signal: threading it through is not mechanical.
  const { located, skips } = locate(r, 'S-13', ['outbound-without-timeout', 'signal-ignored'], (f) => f.messageId === 'outbound-without-timeout');
  for (const { target, file, line, sf, text } of located) {
    let edits: TextEdit[] | undefined;
    for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      if (positionOf(call).line !== line) continue;
      edits = boundCall(call, text, file, r);
      if (edits) break;
    }
    if (edits) fixes.push({ targets: [target], edits });
    else skips.push({ target, reason: 'not-mechanical' });
  }
  return { fixes, skips };
}
