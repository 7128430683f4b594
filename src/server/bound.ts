import type { Report } from '../engine/runner.js';
import { AuditCancelled } from '../engine/errors.js';
import { toJson } from '../report/json.js';

/**
 * A JSON report served by this server is bounded (the SDK's stdio peers drop lines over 10 MB, and the server
 * keeps the last reports in memory, reports.ts): at most a number of findings per rule (each result says how
 * many it left out), and at most a number of bytes in all, reached by cutting findings further, then details.
 * The report says what was cut and how to get everything (the CLI). Tool results themselves are the compact
 * form (compact.ts); this bounds the full report they link to. Only the kept findings are rendered, so the cost
 * of a huge report is never paid here.
 */
export const FINDINGS_PER_RULE = 10;
export const MAX_RESULT_BYTES = 200_000;
const CAPS = [FINDINGS_PER_RULE, 3, 1, 0];

export type Json = ReturnType<typeof toJson>;
type ResultOut = Json['results'][number] & { omittedFindings?: number };
export interface Truncation {
  findingsPerRule: number;
  omittedFindings: number;
  detailsDropped: boolean;
  fullReport: string;
}
export type BoundedJson = Omit<Json, 'results'> & { results: ResultOut[]; truncated?: Truncation };

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/**
 * The JSON report of `report`, bounded. `fullReport` is the sentence telling how to get everything.
 * Throws AuditCancelled as soon as `signal` is aborted.
 */
export function boundedJson(report: Report, locale: string, fullReport: string, signal?: AbortSignal, limits = { perRule: FINDINGS_PER_RULE, maxBytes: MAX_RESULT_BYTES }): BoundedJson {
  const caps = [limits.perRule, ...CAPS.filter((c) => c < limits.perRule)];
  const counts = report.results.map((r) => r.findings.length);
  const omittedAt = (cap: number) => counts.reduce((a, n) => a + Math.max(0, n - cap), 0);
  let out: BoundedJson | undefined;
  for (const cap of caps) {
    if (signal?.aborted) throw new AuditCancelled();
    const capped: Report = { ...report, results: report.results.map((r) => (r.findings.length > cap ? { ...r, findings: r.findings.slice(0, cap) } : r)) };
    const json = toJson(capped, locale);
    const results: ResultOut[] = json.results.map((r, i) => (counts[i]! > cap ? { ...r, omittedFindings: counts[i]! - cap } : r));
    const omitted = omittedAt(cap);
    out = { ...json, results, ...(omitted ? { truncated: { findingsPerRule: cap, omittedFindings: omitted, detailsDropped: false, fullReport } } : {}) };
    if (bytes(out) <= limits.maxBytes) return out;
  }
  if (signal?.aborted) throw new AuditCancelled();
  // Still too big without any finding (long reasons from a target, a long command line): keep each rule's verdict.
  const json = out!;
  const results: ResultOut[] = json.results.map((r, i) => ({
    ruleId: r.ruleId,
    title: r.title,
    state: r.state,
    severity: r.severity,
    category: r.category,
    ...(r.suppressed ? { suppressed: { ...r.suppressed, reason: r.suppressed.reason.slice(0, 240) } } : {}),
    parts: [],
    findings: [],
    ...(counts[i] ? { omittedFindings: counts[i] } : {}),
  }));
  return { ...json, results, truncated: { findingsPerRule: 0, omittedFindings: omittedAt(0), detailsDropped: true, fullReport } };
}
