import { createHash } from 'node:crypto';
import { escapeUTF8 } from 'entities';
import { loadCatalog } from '../engine/catalog.js';
import { t } from '../engine/i18n.js';
import { kindWhyText } from '../engine/kind.js';
import type { Report } from '../engine/runner.js';
import { CATEGORIES, FAMILIES, STATES, type RuleResult, type State } from '../engine/types.js';
import { appFiguresText, categoryOf, escapeControls, cutTo, findingFix, findingMessage, MAX_DATA, quoteInert, reasonText, redByCategory, ruleTitle, skippedCauseData, summarize, where } from './text.js';

/**
 * HTML report: one self-contained page a person opens in a browser. No network: no external script, style,
 * font or image, and a Content-Security-Policy that allows only the page's own inline style and script (by
 * hash), so nothing else can run or load even if a string escaped. Every label comes from i18n/<locale>.json.
 *
 * Text from a target (tool names, descriptions, file names, errors, evidence, suppression reasons) is data: its
 * control and invisible characters are written as escapes (text.ts), then it is HTML-escaped and shown inside
 * <code>. Our own messages are escaped too, so a stray `<` in a translation is shown, not parsed. Untrusted values
 * enter a message through placeholders: the message is escaped whole and each placeholder is put back as code.
 *
 * Filters (by family and state) are a small inline script; without it every finding is shown.
 */

const esc = (s: string): string => escapeUTF8(s);
/** Untrusted text as inert HTML: controls escaped, bounded, HTML-escaped, in a code element. */
const code = (s: string, max = MAX_DATA): string => `<code>${esc(escapeControls(cutTo(s, max)))}</code>`;

/**
 * Render a message of ours whose placeholders may carry a target's text: each untrusted value is swapped for a
 * token that cannot occur in our templates (NUL-delimited), the message is HTML-escaped whole, then each token
 * is replaced by the value's inert code element.
 */
function withUntrusted(render: (e: (s: string) => string) => string): string {
  const values: string[] = [];
  const text = render((s) => `\u0000${values.push(s) - 1}\u0000`);
  return ours(text).replace(/\u0000(\d+)\u0000/g, (_, i: string) => code(values[Number(i)] ?? ''));
}

/** Our own message text, escaped, with its `code` spans (commands, option names) shown as code. */
const ours = (s: string): string => esc(s).replace(/`([^`\u0000]+)`/g, '<code>$1</code>');

const familyOf = (id: string): string => id.split('-')[0] ?? id;

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1a1a1a;--muted:#555;--line:#d0d0d0;--red:#a4001d;--amber:#7a4b00;--green:#14622a;--card:#f6f6f6}
@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#ececec;--muted:#b8b8b8;--line:#444;--red:#ff8a9a;--amber:#ffc266;--green:#8fe0a3;--card:#1e1e1e}}
body{margin:0 auto;max-width:72rem;padding:1rem 1.5rem;font:16px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid var(--line)}h3{font-size:1.05rem;margin:.2rem 0}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid var(--line);padding:.25rem .6rem;text-align:right}th{text-align:left}
code{font-family:ui-monospace,monospace;font-size:.9em;background:var(--card);padding:0 .2em;overflow-wrap:anywhere;white-space:pre-wrap}
.muted{color:var(--muted)}.rule{border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;margin:.8rem 0;background:var(--bg)}
.state-non-conforming .state,.state-absent .state{color:var(--red);font-weight:600}.state-could-not-judge .state{color:var(--amber);font-weight:600}
.state-present .state,.state-not-applicable .state{color:var(--green)}
ul.findings{padding-left:1.2rem}ul.findings>li{margin:.5rem 0}.fix{margin:.2rem 0 0}
fieldset{border:1px solid var(--line);display:inline-block;margin:.3rem .6rem .3rem 0}label{margin-right:.8rem;white-space:nowrap}
details{margin-top:.4rem}summary{cursor:pointer}.ruletext{white-space:pre-wrap;font-size:.9em}
`.trim();

/** Hide every element whose family or state is unticked; the form is shown only when this script runs. */
const SCRIPT = `
(function(){var f=document.getElementById('filters');if(!f)return;f.hidden=false;
function on(n){var s={};f.querySelectorAll('input[name="'+n+'"]').forEach(function(i){s[i.value]=i.checked});return s}
function apply(){var fa=on('family'),st=on('state');document.querySelectorAll('[data-family]').forEach(function(e){
e.hidden=!(fa[e.getAttribute('data-family')]&&st[e.getAttribute('data-state')])})}
f.addEventListener('change',apply);apply()})();
`.trim();

const hash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const CSP = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src 'none'; base-uri 'none'; form-action 'none'`;

/** The HTML report of a run (audit, probe, scan, gate) in `locale`. Deterministic for a given report. */
export function renderHtml(report: Report, locale: string): string {
  const L = (k: string, d?: Record<string, string | number>) => t(locale, `report.${k}`, d);
  const H = (k: string, d?: Record<string, string | number>) => t(locale, `report.html.${k}`, d);
  const st = (s: State) => t(locale, `states.${s}`);
  const target = report.target.path ?? report.target.url ?? report.target.command?.join(' ') ?? '';
  const s = summarize(report.results);
  const out: string[] = [];
  out.push(
    '<!doctype html>',
    `<html lang="${esc(locale)}">`,
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(H('pageTitle', { target: escapeControls(cutTo(target, 120)) }))}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `<h1>${withUntrusted((e) => L('title', { target: e(target) }))}</h1>`,
    `<p class="muted">${esc(L('tool', { name: report.tool.name, version: report.tool.version, kind: t(locale, `kinds.${report.target.kind}`) }))}</p>`,
  );
  if (report.inputs?.kind) out.push(`<p>${withUntrusted((e) => kindWhyText(report.inputs!.kind!, locale, e))}</p>`);
  const pkg = report.inputs?.package;
  if (pkg) out.push(`<p>${withUntrusted((e) => L('package', { name: e(pkg.name ?? '—'), version: e(pkg.version ?? '—'), folder: e(pkg.folder), from: pkg.from }))}</p>`);
  if (report.profile === 'vet') out.push(`<p>${esc(L('profileVet'))}</p>`);
  out.push('</header>', '<main>');

  // Summary: counts by state, then by family and state.
  const shownStates: State[] = ['non-conforming', 'absent', 'could-not-judge', 'present', 'not-applicable'];
  out.push(`<section aria-labelledby="summary"><h2 id="summary">${esc(H('summary'))}</h2>`);
  out.push('<table>', `<caption class="muted">${esc(H('byState'))}</caption>`, '<tr>' + shownStates.map((x) => `<th scope="col">${esc(st(x))}</th>`).join('') + '</tr>');
  out.push(`<tr><td>${s.nonConforming}</td><td>${s.absent}</td><td>${s.couldNotJudge}</td><td>${s.present}</td><td>${s.notApplicable}</td></tr>`, '</table>');
  const families = FAMILIES.filter((f) => report.results.some((r) => familyOf(r.ruleId) === f));
  out.push('<table>', `<caption class="muted">${esc(H('byFamily'))}</caption>`);
  out.push(`<tr><th scope="col">${esc(H('family'))}</th>` + shownStates.map((x) => `<th scope="col">${esc(st(x))}</th>`).join('') + '</tr>');
  for (const f of families) {
    const rs = report.results.filter((r) => familyOf(r.ruleId) === f);
    out.push(`<tr><th scope="row">${esc(H(`families.${f}`))}</th>` + shownStates.map((x) => `<td>${rs.filter((r) => r.state === x).length}</td>`).join('') + '</tr>');
  }
  out.push('</table>');
  if (s.suppressed) out.push(`<p>${esc(H('suppressedCount', { count: s.suppressed }))}</p>`);
  out.push('</section>');

  // Filters: hidden until the script runs, so a page without script shows everything.
  out.push(`<form id="filters" hidden aria-label="${esc(H('filters'))}">`);
  out.push(`<fieldset><legend>${esc(H('family'))}</legend>` + families.map((f) => `<label><input type="checkbox" name="family" value="${esc(f)}" checked> ${esc(H(`families.${f}`))}</label>`).join('') + '</fieldset>');
  out.push(`<fieldset><legend>${esc(H('state'))}</legend>` + STATES.map((x) => `<label><input type="checkbox" name="state" value="${esc(x)}" checked> ${esc(st(x))}</label>`).join('') + '</fieldset>');
  out.push('</form>');

  // Red results by category, security first; each finding with its place, message, remedy and evidence.
  const red = redByCategory(report.results);
  for (const cat of CATEGORIES) {
    const rs = red.filter((r) => categoryOf(r.ruleId) === cat);
    if (!rs.length) continue;
    out.push(`<section><h2>${esc(L('redCategory', { category: t(locale, `categories.${cat}`), count: rs.length }))}</h2>`);
    for (const r of rs) out.push(ruleArticle(r, locale, true));
    out.push('</section>');
  }
  // Then every other rule by state.
  for (const state of ['could-not-judge', 'present', 'not-applicable'] as State[]) {
    const rs = report.results.filter((r) => r.state === state);
    if (!rs.length) continue;
    out.push(`<section><h2>${esc(`${st(state)} (${rs.length})`)}</h2>`);
    for (const r of rs) out.push(ruleArticle(r, locale, false));
    out.push('</section>');
  }
  out.push(...scanSection(report, locale), ...appsSection(report, locale), ...skippedSection(report, locale));
  out.push('</main>', `<script>${SCRIPT}</script>`, '</body>', '</html>');
  return out.join('\n') + '\n';
}

/** One rule: its id, title, state and severity, the parts' states, its findings (red only) and its rule text. */
function ruleArticle(r: RuleResult, locale: string, withFindings: boolean): string {
  const L = (k: string, d?: Record<string, string | number>) => t(locale, `report.${k}`, d);
  const H = (k: string, d?: Record<string, string | number>) => t(locale, `report.html.${k}`, d);
  const out: string[] = [];
  out.push(`<article class="rule state-${esc(r.state)}" data-family="${esc(familyOf(r.ruleId))}" data-state="${esc(r.state)}" id="rule-${esc(r.ruleId)}">`);
  out.push(
    `<h3>${esc(`${r.ruleId} — ${ruleTitle(r.ruleId, locale)}`)} <span class="state">(${esc(t(locale, `states.${r.state}`))})</span> <span class="muted">${esc(t(locale, `severities.${r.severity}`))}</span></h3>`,
  );
  if (r.suppressed) out.push(`<p>${withUntrusted((e) => L('suppressed', { reason: e(r.suppressed!.reason) }))}</p>`);
  if (r.parts.length > 1) {
    out.push('<ul>');
    for (const p of r.parts) {
      const why = p.reason ? ` — ${withUntrusted((e) => reasonText(p.reason, locale, e) ?? '')}` : '';
      out.push(`<li>${esc(`${t(locale, `genres.${p.genre}`)}: ${t(locale, `states.${p.state}`)}`)}${why}</li>`);
    }
    out.push('</ul>');
  } else if (r.state !== 'present' && r.reason) {
    out.push(`<p>${withUntrusted((e) => reasonText(r.reason, locale, e) ?? '')}</p>`);
  }
  if (withFindings && r.findings.length) {
    out.push('<ul class="findings">');
    for (const f of r.findings) {
      const loc = where(f);
      out.push('<li>');
      out.push(`<div>${loc ? `${code(loc)} — ` : ''}${withUntrusted((e) => findingMessage(r.ruleId, f, locale, e))}</div>`);
      out.push(`<p class="fix"><strong>${esc(L('fix'))}:</strong> ${withUntrusted((e) => findingFix(r.ruleId, f, locale, e))}</p>`);
      if (f.evidence !== undefined) out.push(`<p class="fix"><strong>${esc(L('evidence'))}:</strong> ${code(quoteInert(f.evidence))}</p>`);
      out.push('</li>');
    }
    out.push('</ul>');
  }
  const text = withFindings ? ruleTextOf(r.ruleId, locale) : undefined;
  if (text) out.push(`<details><summary>${esc(H('ruleText', { id: r.ruleId }))}</summary><div class="ruletext">${esc(text)}</div></details>`);
  out.push(`<p class="muted">${esc(H('ruleRef', { id: r.ruleId }))} <code>${esc(`mcp-doctor://rules/${locale}/${r.ruleId}`)}</code></p>`);
  out.push('</article>');
  return out.join('\n');
}

/** The rule's own text (our catalog, in `locale`), shown as plain text: what it checks, why, how to fix. */
const ruleTextOf = (id: string, locale: string): string | undefined => (loadCatalog().text(id, locale) ?? loadCatalog().text(id, 'en'))?.body;

/** The scan's client files and configured servers (names, paths and launch lines come from configuration files). */
function scanSection(report: Report, locale: string): string[] {
  const scan = report.scan;
  if (!scan) return [];
  const T = (k: string) => esc(t(locale, `report.scan.${k}`));
  const out = [`<section><h2>${T('title')}</h2>`, `<h3>${T('files')}</h3>`];
  if (!scan.files.length) out.push(`<p>${T('noFiles')}</p>`);
  else {
    out.push('<ul>');
    for (const f of scan.files) {
      const status = f.status.replace(/-/g, '_');
      out.push(`<li>${withUntrusted((e) => t(locale, 'report.scan.file', { file: e(f.file), client: f.client, scope: f.scope, status, servers: f.servers, line: f.line ?? 0, size: f.size ?? 0, limit: f.limit ?? 0 }))}</li>`);
    }
    out.push('</ul>');
  }
  out.push(`<h3>${T('servers')}</h3>`, '<ul>');
  for (const v of scan.servers) {
    const probe = v.probe !== undefined ? ` — ${withUntrusted((e) => t(locale, 'report.scan.probe', { probe: e(v.probe + (v.tools !== undefined ? ` (${v.tools} tools)` : '')) }))}` : '';
    out.push(`<li>${withUntrusted((e) => t(locale, 'report.scan.server', { name: e(v.name), client: v.client, scope: v.scope, where: e(`${v.file}:${v.line}`), transport: v.transport, launch: e(v.launch ?? v.url ?? '—') }))}${probe}</li>`);
  }
  out.push('</ul>');
  if (!scan.probed) out.push(`<p>${T('notProbed')}</p>`);
  out.push('</section>');
  return out;
}

/** The MCP App views the host rendered: outcome and the A-5 figures (tool names and paths come from the target). */
function appsSection(report: Report, locale: string): string[] {
  const a = report.inputs?.apps;
  if (!a) return [];
  const A = (k: string, d?: Record<string, string | number>) => t(locale, `report.apps.${k}`, d);
  const out = [`<section><h2>${esc(A('title'))}</h2>`, '<ul>'];
  if (a.skipped) out.push(`<li>${withUntrusted((e) => A('skipped', { reason: e(a.skipped!) }))}</li>`);
  for (const v of a.views) {
    const figures = appFiguresText(v.figures, locale);
    const shot = v.screenshot ? `; ${esc(A('screenshot'))} ${code(v.screenshot)}` : '';
    out.push(`<li>${code(v.tool)} — ${withUntrusted((e) => A('outcome', { outcome: e(v.outcome) }))}; ${esc(figures)}${shot}</li>`);
  }
  out.push('</ul></section>');
  return out;
}

/** Files that were not read, with their cause (the JSON report has them all). */
function skippedSection(report: Report, locale: string): string[] {
  const skipped = report.inputs?.skipped ?? [];
  const files = report.inputs?.files;
  if (!files && !skipped.length) return [];
  const L = (k: string, d?: Record<string, string | number>) => t(locale, `report.${k}`, d);
  const out = [`<section><h2>${esc(L('inputs'))}</h2>`];
  if (files) out.push(`<p>${esc(L('filesRead', { count: files.read }))}</p>`);
  if (skipped.length) {
    out.push(`<p>${esc(L('skippedCount', { count: skipped.length }))}</p>`, '<ul>');
    for (const f of skipped.slice(0, 100)) {
      out.push(`<li>${code(f.file)} — ${esc(L('skippedCause', skippedCauseData(f)))}</li>`);
    }
    out.push('</ul>');
  }
  out.push('</section>');
  return out;
}
