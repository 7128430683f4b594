import { join } from 'node:path';
import { escapeUTF8 } from 'entities';
import { t } from '../engine/i18n.js';
import { FAMILIES, severityRank, type Severity } from '../engine/types.js';
import { readResults, type BatchResult } from './run.js';

/**
 * `mcp-doctor merge`: the result files of several batch outputs (one per shard) joined into one report (every
 * result, in a deterministic order: name, then requested version) and a scoreboard: per server the version
 * judged, its status, the red findings counted by family and its worst findings (highest severity first).
 */

export const MERGED_FORMAT = 'mcp-doctor-batch/1';

export interface ScoreRow {
  name: string;
  requested: string;
  version?: string;
  status: BatchResult['status'];
  cause?: string;
  network: BatchResult['network'];
  /** Red results (absent or non-conforming, not suppressed) by family. */
  red: Record<string, number>;
  worst: { ruleId: string; severity: Severity; state: string }[];
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function scoreRow(r: BatchResult): ScoreRow {
  const red: Record<string, number> = Object.fromEntries(FAMILIES.map((f) => [f, 0]));
  const reds = (r.report?.results ?? []).filter((x) => (x.state === 'absent' || x.state === 'non-conforming') && !x.suppressed);
  for (const x of reds) {
    const fam = x.ruleId.split('-')[0]!;
    red[fam] = (red[fam] ?? 0) + 1;
  }
  const worst = [...reds]
    .sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || cmp(a.ruleId, b.ruleId))
    .slice(0, 3)
    .map((x) => ({ ruleId: x.ruleId, severity: x.severity, state: x.state }));
  return { name: r.name, requested: r.requested, ...(r.version ? { version: r.version } : {}), status: r.status, ...(r.cause ? { cause: r.cause } : {}), network: r.network, red, worst };
}

export function mergeOutputs(dirs: readonly string[]): { format: typeof MERGED_FORMAT; results: BatchResult[]; scoreboard: ScoreRow[] } {
  const byKey = new Map<string, BatchResult>();
  for (const d of dirs) for (const r of readResults(join(d, 'results'))) byKey.set(`${r.name}\u0000${r.requested}`, r);
  const results = [...byKey.values()].sort((a, b) => cmp(a.name, b.name) || cmp(a.requested, b.requested));
  // The time each run took is not part of the merged report: two merges of the same results are identical.
  for (const r of results) r.ms = 0;
  return { format: MERGED_FORMAT, results, scoreboard: results.map(scoreRow) };
}

/** The scoreboard as one self-contained HTML page: every text from a package is escaped (entities). */
export function scoreboardHtml(rows: readonly ScoreRow[], locale: string): string {
  const e = (s: string) => escapeUTF8(s);
  const head = [t(locale, 'batch.board.server'), t(locale, 'batch.board.version'), t(locale, 'batch.board.status'), ...FAMILIES, t(locale, 'batch.board.worst')];
  const body = rows
    .map((r) => {
      const worst = r.worst.map((w) => `${e(w.ruleId)} (${e(t(locale, `severities.${w.severity}`))})`).join(', ');
      const status = e(t(locale, `batch.status.${r.status}`)) + (r.cause ? ` <code>${e(r.cause)}</code>` : '');
      return `<tr><td><code>${e(r.name)}</code></td><td><code>${e(r.version ?? r.requested)}</code></td><td>${status}</td>${FAMILIES.map((f) => `<td>${r.red[f] ?? 0}</td>`).join('')}<td>${worst}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="${e(locale)}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${e(t(locale, 'batch.board.title'))}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left}</style>
</head><body><h1>${e(t(locale, 'batch.board.title'))}</h1>
<p>${e(t(locale, 'batch.board.legend'))}</p>
<table><thead><tr>${head.map((h) => `<th scope="col">${e(h)}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody></table></body></html>
`;
}
