import { couldNotJudge } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { SessionFacts, type Exchange } from '../../../facts/session.js';
import type { ConnectionLabel } from '../../../probe/session.js';

/**
 * Small helpers shared by the dynamic detectors: how a connection ended, the pages of one listing, and
 * bounded copies of values served by the target.
 */

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The revision the probe audits, and the 2025 floor it offers. */
export const MODERN_REVISION = '2026-07-28';
export const LEGACY_REVISION = '2025-06-18';

/** Published MCP protocol revisions. */
export const KNOWN_REVISIONS: readonly string[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

export const LIST_METHODS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'] as const;
export type ListMethod = (typeof LIST_METHODS)[number];
export const LIST_KEY: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/**
 * How a connection ended, as a token for reason and message data: the recorded outcome with `_` for `-`
 * (ICU select keys cannot hold a hyphen), or `missing` when the connection was not recorded.
 */
export const outcomeOf = (facts: SessionFacts, label: ConnectionLabel): string => (facts.connection(label)?.outcome ?? 'missing').replace(/-/g, '_');

/** Did the connection get any response at all (a result or a JSON-RPC error) to its opening request? */
export const responded = (facts: SessionFacts, label: ConnectionLabel): boolean => !!facts.exchanges(label)[0]?.response;

/** Outcomes that say nothing about the server: the request never reached it, or was stopped before it. */
export const UNREACHED = ['spawn_failed', 'blocked', 'missing'];

/**
 * For rules that apply only when 2026-07-28 is served: could-not-judge when neither era could be read or
 * the modern request never reached the server; undefined when the modern connection answered with a result
 * or the server simply did not answer it with one (the caller then says not-applicable).
 */
export function modernUnread(facts: SessionFacts): Verdict | undefined {
  if (facts.answered('modern')) return undefined;
  const outcome = outcomeOf(facts, 'modern');
  if (UNREACHED.includes(outcome)) return couldNotJudge('connection-not-run', { era: 'modern', outcome });
  return noEraServed(facts);
}

/** could-not-judge when neither era answered its opening request with a result, else undefined. */
export function noEraServed(facts: SessionFacts): Verdict | undefined {
  if (facts.servingEra()) return undefined;
  return couldNotJudge('no-era-served', { modern: outcomeOf(facts, 'modern'), legacy: outcomeOf(facts, 'legacy') });
}

/** A request's params object (empty when absent). */
export const paramsOf = (e: Exchange): Obj => (isObj(e.request.params) ? e.request.params : {});

/**
 * The exchanges of the first listing of a method: the call without a cursor, then each call that sent back
 * the nextCursor of the previous page. Stops at an error, a missing answer or a cursor the probe did not send.
 */
export function listingPages(facts: SessionFacts, label: ConnectionLabel, method: string): Exchange[] {
  const out: Exchange[] = [];
  let expect: string | undefined;
  for (const e of facts.calls(label, method)) {
    const cursor = paramsOf(e).cursor;
    if ((typeof cursor === 'string' ? cursor : undefined) !== expect) break;
    out.push(e);
    const r = SessionFacts.result(e);
    if (!r) break;
    expect = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
    if (!expect) break;
  }
  return out;
}

/** A served value, bounded, as evidence (rendered inertly by the reports). */
export function evidenceOf(v: unknown, max = 200): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A short served token (tool name, version, error code) for message data, bounded. */
export function short(v: unknown, max = 64): string {
  const s = typeof v === 'string' ? v : evidenceOf(v, max);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}
