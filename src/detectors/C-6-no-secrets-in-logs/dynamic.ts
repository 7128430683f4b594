import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import { isObj, noEraServed, short, type Obj } from '../support/live/dynamic-support.js';
import { answeredEras } from '../support/live/dynamic-text.js';
import { ABSOLUTE_PATHS, maskSecret, SECRETS, STACK_FRAMES } from './leaks.js';

/**
 * C-6 — no internals in what clients receive (dynamic). The probe sends bad inputs (an unknown tool,
 * arguments that fail the schema, an invalid cursor, an unsupported protocol version); every JSON-RPC
 * error and every `isError` result on the recorded connections is read for stack frames, absolute paths
 * and well-known secret shapes (registry in leaks.ts).
 */

/** Every string inside a value, bounded. */
function strings(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8 || out.length > 200) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out, depth + 1));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) if (k !== '_meta') strings(x, out, depth + 1);
  return out;
}

/** A compact label of the request that drew the error: method, then tool name and arguments or cursor. */
function requestLabel(req: Obj): string {
  const p = isObj(req.params) ? req.params : {};
  const method = String(req.method);
  if (method === 'tools/call') {
    const args = isObj(p.arguments) && Object.keys(p.arguments).length ? ` ${JSON.stringify(p.arguments)}` : '';
    return short(`${method} ${String(p.name)}${args}`, 120);
  }
  if (typeof p.cursor === 'string') return short(`${method} cursor ${JSON.stringify(p.cursor)}`, 120);
  if (method === 'initialize' && typeof p.protocolVersion === 'string') return `${method} ${p.protocolVersion}`;
  return method;
}

export default defineDetector({
  ruleId: 'C-6',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'stack-trace-in-error': ['request', 'channel'],
    'path-in-error': ['request', 'channel'],
    'secret-in-error': ['request', 'kind', 'channel'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const findings: Finding[] = [];
    const seen = new Set<string>();
    const add = (messageId: string, data: Record<string, string>, evidence: string) => {
      const key = `${messageId}|${JSON.stringify(data)}`;
      if (seen.has(key)) return;
      seen.add(key);
      findings.push({ messageId, data, evidence });
    };
    let errors = 0;
    for (const conn of session.session.connections) {
      for (const e of session.exchanges(conn.label)) {
        const err = SessionFacts.error(e);
        const res = SessionFacts.result(e);
        const texts = err ? strings([err.message, err.data]) : res && res.isError === true ? strings([res.content, res.structuredContent]) : undefined;
        if (!texts) continue;
        errors++;
        // What was seen: a JSON-RPC error, or a result flagged isError (its content is the error's text).
        const channel = err ? 'jsonrpc' : 'error-result';
        const request = requestLabel(e.request);
        for (const text of texts) {
          for (const p of STACK_FRAMES) {
            const m = p.re.exec(text);
            if (m) add('stack-trace-in-error', { request, channel }, m[0].trim().slice(0, 200));
          }
          for (const p of ABSOLUTE_PATHS) {
            const m = p.re.exec(text);
            if (m) add('path-in-error', { request, channel }, m[0].replace(/(?::\d+){1,2}$/, '').replace(/[.:]+$/, '').slice(0, 200));
          }
          for (const p of SECRETS) {
            const m = p.re.exec(text);
            if (m) add('secret-in-error', { request, kind: p.id, channel }, maskSecret(m[0]));
          }
        }
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (errors === 0 && !answeredEras(session).some((era) => session.capabilities(era).tools)) return notApplicable('no-tools-served');
    return present();
  },
});
