import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import type { SessionFacts } from '../../../facts/session.js';
import type { HttpExchange } from '../../../probe/session.js';

/** Shared reading of recorded HTTP transport checks. */

export function requireHttp(s: SessionFacts): Verdict | undefined {
  return s.isHttp() ? undefined : notApplicable('not-http');
}

/** The recorded check, or could-not-judge when it got no HTTP answer. */
export function checkOrUnjudged(s: SessionFacts, label: string): HttpExchange | Verdict {
  const ex = s.httpCheck(label);
  if (!ex) return couldNotJudge('http-check-missing', { check: label });
  if (!ex.response) return couldNotJudge('http-check-failed', { check: label, error: ex.error ?? 'no response' });
  return ex;
}

export const isVerdict = (v: unknown): v is Verdict => typeof v === 'object' && v !== null && 'state' in v && 'findings' in v;

/** JSON-RPC error code carried by an HTTP response body, if any. */
export function rpcErrorCode(ex: HttpExchange): number | undefined {
  const e = ex.response?.messages.find((m) => m.error)?.error as { code?: unknown } | undefined;
  return typeof e?.code === 'number' ? e.code : undefined;
}

/** An auth wall answers before the check can be observed. */
export const authFirst = (ex: HttpExchange): boolean => ex.response?.status === 401;
