import { has, t } from '../engine/i18n.js';
import type { Report } from '../engine/runner.js';
import { CATEGORIES, type State } from '../engine/types.js';
import { kindWhyText } from '../engine/kind.js';
import { scanSection } from '../scan/markdown.js';
import { appFiguresText, categoryOf, codeSpan, findingFix, findingMessage, quoteInert, reasonText, redByCategory, ruleTitle, skippedCauseData, summarize, where } from './text.js';

const ORDER: State[] = ['could-not-judge', 'present', 'not-applicable'];

/**
 * Text from a target (finding data, reasons, the target's name, suppression reasons from its configuration,
 * locations, evidence) enters the Markdown only as a code span with its control characters escaped: it can
 * open no link, HTML, heading or list item, and cannot start a line of its own (see text.ts).
 */
const md = (s: string): string => codeSpan(s);
/** Our own catalog text (rule titles): Markdown punctuation escaped so a title reads as written. */
const plain = (s: string): string => s.replace(/[\\`*_{}[\]<>()#+!|~]/g, (c) => `\\${c}`);

/** Markdown report: red results by category (security first), each finding with file:line and its remediation; then the other rules by state. */
export function renderMarkdown(report: Report, locale: string): string {
  const L = (k: string, d?: Record<string, string | number>) => t(locale, `report.${k}`, d);
  const s = summarize(report.results);
  const target = report.target.path ?? report.target.url ?? report.target.command?.join(' ') ?? '';
  const out: string[] = [];
  out.push(`# ${L('title', { target: md(target) })}`, '');
  out.push(L('tool', { name: report.tool.name, version: report.tool.version, kind: t(locale, `kinds.${report.target.kind}`) }), '');
  // Why an App (or an extension): served tool names come from the target, quoted as code spans.
  if (report.inputs?.kind) out.push(kindWhyText(report.inputs.kind, locale, md), '');
  const pkg = report.inputs?.package;
  if (pkg) out.push(L('package', { name: md(pkg.name ?? '—'), version: md(pkg.version ?? '—'), folder: md(pkg.folder), from: pkg.from }), '');
  out.push(
    `| ${t(locale, 'states.non-conforming')} | ${t(locale, 'states.absent')} | ${t(locale, 'states.could-not-judge')} | ${t(locale, 'states.present')} | ${t(locale, 'states.not-applicable')} |`,
    '|---:|---:|---:|---:|---:|',
    `| ${s.nonConforming} | ${s.absent} | ${s.couldNotJudge} | ${s.present} | ${s.notApplicable} |`,
    '',
  );
  if (report.profile === 'vet') out.push(L('profileVet'), '');
  out.push(...inputsSection(report, locale));
  out.push(...scanSection(report, locale));
  // Red results first, by category, security first (a reader vetting a server looks for danger first).
  const red = redByCategory(report.results);
  for (const cat of CATEGORIES) {
    const rs = red.filter((r) => categoryOf(r.ruleId) === cat);
    if (!rs.length) continue;
    out.push(`## ${L('redCategory', { category: t(locale, `categories.${cat}`), count: rs.length })}`, '');
    for (const r of rs) {
      const sev = t(locale, `severities.${r.severity}`);
      const sup = r.suppressed ? ` — ${L('suppressed', { reason: md(r.suppressed.reason) })}` : '';
      out.push(`### ${r.ruleId} — ${plain(ruleTitle(r.ruleId, locale))} (${t(locale, `states.${r.state}`)}, ${sev})${sup}`, '');
      if (r.parts.length > 1) {
        out.push(r.parts.map((p) => `- ${t(locale, `genres.${p.genre}`)}: ${t(locale, `states.${p.state}`)}${p.reason ? ` — ${reasonText(p.reason, locale, md) ?? ''}` : ''}`).join('\n'), '');
      }
      for (const f of r.findings) {
        const loc = where(f);
        out.push(`- ${loc ? `${codeSpan(loc)} — ` : ''}${findingMessage(r.ruleId, f, locale, md)}`);
        out.push(`  - ${L('fix')}: ${findingFix(r.ruleId, f, locale, md)}`);
        if (f.evidence !== undefined) out.push(`  - ${L('evidence')}: ${codeSpan(quoteInert(f.evidence))}`);
      }
      if (r.findings.length) out.push('');
    }
  }
  // Then the rules without findings, one line each: unjudged, present, not applicable.
  for (const state of ORDER) {
    const rs = report.results.filter((r) => r.state === state);
    if (!rs.length) continue;
    out.push(`## ${t(locale, `states.${state}`)} (${rs.length})`, '');
    for (const r of rs) {
      const parts =
        r.parts.length > 1
          ? ` (${r.parts.map((p) => `${t(locale, `genres.${p.genre}`)}: ${t(locale, `states.${p.state}`)}`).join(', ')})`
          : '';
      const why = state === 'present' ? '' : ` — ${reasonText(r.reason, locale, md) ?? ''}`;
      out.push(`- **${r.ruleId}** ${plain(ruleTitle(r.ruleId, locale))}${parts}${why}`);
    }
    out.push('');
  }
  out.push(...probeSection(report, locale));
  out.push(...appsSection(report, locale));
  return out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n';
}

/** At most this many skipped files are listed in Markdown (the JSON report has them all). */
const SKIPPED_SHOWN = 20;

/** A short "Inputs" section: how many files were read, and each file that was not, with its cause. */
function inputsSection(report: Report, locale: string): string[] {
  const files = report.inputs?.files;
  const skipped = report.inputs?.skipped ?? [];
  if (!files && !skipped.length) return [];
  const L = (k: string, d?: Record<string, string | number>) => t(locale, `report.${k}`, d);
  const out = [`## ${L('inputs')}`, ''];
  if (files) out.push(L('filesRead', { count: files.read }), '');
  if (skipped.length) {
    out.push(L('skippedCount', { count: skipped.length }), '');
    for (const f of skipped.slice(0, SKIPPED_SHOWN)) {
      const data = skippedCauseData(f);
      // The file name comes from the target: a code span on its own line, with no backtick or control character.
      out.push(`- \`${quoteInert(f.file).replace(/`/g, "'")}\` — ${md(L('skippedCause', data))}`);
    }
    if (skipped.length > SKIPPED_SHOWN) out.push(`- ${md(L('skippedMore', { count: skipped.length - SKIPPED_SHOWN }))}`);
    out.push('');
  }
  return out;
}

/** The MCP App views the host rendered: outcome, the A-5 figures against their budgets, the screenshot link. */
function appsSection(report: Report, locale: string): string[] {
  const a = report.inputs?.apps;
  if (!a) return [];
  const A = (k: string, d?: Record<string, string | number>) => t(locale, `report.apps.${k}`, d);
  // Tool names and paths come from the target or a loaded session: quoted inertly in code spans.
  const code = (v: string) => `\`${quoteInert(v).replace(/`/g, "'")}\``;
  const out = [`## ${A('title')}`, ''];
  if (a.skipped) out.push(`- ${A('skipped', { reason: code(a.skipped) })}`);
  for (const v of a.views) {
    out.push(
      `- ${code(v.tool)} — ${A('outcome', { outcome: code(v.outcome) })}; ${appFiguresText(v.figures, locale)}${v.screenshot ? `; [${A('screenshot')}](${encodeURI(v.screenshot).replace(/[()]/g, (c) => encodeURIComponent(c))})` : ''}`,
    );
  }
  out.push('');
  return out;
}

/** How the probed server was contained, and what the probe noticed on the wire (duplicates, over-deep messages). */
function probeSection(report: Report, locale: string): string[] {
  const c = report.inputs?.containment;
  const notes = report.inputs?.notes ?? [];
  if (!c && !notes.length) return [];
  const P = (k: string, d?: Record<string, string | number>) => t(locale, `report.probe.${k}`, d);
  // A loaded session is untrusted too: only known codes pick a message; a value that is not a plain word is quoted.
  const plain = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && /^[\w/.:-]{0,100}$/.test(v)) ? md(String(v)) : md(quoteInert(String(v))));
  const reason = c?.reason === undefined ? '' : has(locale, `report.probe.reasons.${c.reason}`) ? P(`reasons.${c.reason}`) : plain(c.reason);
  const out = [`## ${P('title')}`, ''];
  if (c) out.push(`- ${c.method === 'pid-namespace' ? P('namespace') : P('processGroup', { reason })}`);
  for (const n of notes) {
    if (n.kind !== 'duplicate-response' && n.kind !== 'message-too-deep') continue;
    const data: Record<string, string | number> = { connection: plain(n.connection), method: plain(n.method ?? ''), id: '', limit: '', bytes: '' };
    if (n.kind === 'duplicate-response') data.id = `\`${typeof n.id === 'number' ? n.id : quoteInert(String(n.id)).replace(/`/g, '\\u0060')}\``;
    else Object.assign(data, { limit: plain(n.limit), bytes: plain(n.bytes) });
    out.push(`- ${P(n.kind, data)}`);
  }
  out.push('');
  return out;
}
