import { failing, type FailOn, type Report } from '../run/api.js';
import { t } from '../engine/i18n.js';
import { kindWhyText, type KindInputs } from '../engine/kind.js';
import { loadCatalog } from '../engine/catalog.js';
import { CATEGORIES, isRed, type Category, type MessageData, type RuleResult, type Severity, type State } from '../engine/types.js';
import { categoryOf, cutTo, findingMessage, quoteInert, reasonText, redByCategory, ruleTitle, summarize, where } from '../report/text.js';

/**
 * The result of audit_repository and probe_endpoint, sized for a model (Claude Code forwards structuredContent
 * into the context and drops the text): the verdict counts, each red rule with its first findings (one line each,
 * file:line first), the unjudged rules grouped by reason code, nothing for present / not-applicable rules beyond
 * their count, and the URI of the full report (resources/read). The whole stays under COMPACT_TOKENS tokens
 * (o200k, the tokenizer C-21 measures with) by showing fewer findings per rule, then no titles; every red rule
 * stays named whatever the size of the audit.
 */
export const COMPACT_TOKENS = 1_400;
/** Findings shown per red rule before the token budget asks for fewer. */
export const COMPACT_FINDINGS = 3;
/** A finding line, a target string (command argument, path, URL) in the compact result: at most this many characters. */
const LINE_MAX = 160;

export interface RedOut {
  ruleId: string;
  title?: string;
  category: Category;
  severity: Severity;
  state: State;
  /** Why the rule could not be judged or does not apply (full form). */
  reason?: { code: string; data?: MessageData; message?: string };
  /** One line per finding shown: `file:line message`, target text quoted inertly. */
  findings: string[];
  /** Findings of this rule not shown here (the full report has them). */
  more?: number;
  suppressed?: true;
}
export interface UnjudgedOut {
  code: string;
  count: number;
  rules: string[];
}
export interface CompactOut {
  tool: Report['tool'];
  target: { kind: Report['target']['kind']; path?: string; command?: string[]; url?: string };
  locale: string;
  profile?: Report['profile'];
  summary: ReturnType<typeof summarize>;
  failing: number;
  red: RedOut[];
  couldNotJudge: UnjudgedOut[];
  /** URI of the full report (resources/read), while the server keeps it. */
  report?: string;
  /** detail=full: every rule, in the report's order, with up to FULL_FINDINGS findings each. */
  results?: RedOut[];
}

/** Findings per rule in the full form, then fewer while its JSON exceeds FULL_MAX_BYTES. */
export const FULL_FINDINGS = 10;
export const FULL_MAX_BYTES = 200_000;

/** A finding in one line: where, then what, target text quoted inertly. */
function findingLine(r: RuleResult, i: number, locale: string): string {
  const f = r.findings[i]!;
  const at = where(f);
  return cutTo(`${at ? `${quoteInert(at, LINE_MAX)} ` : ''}${findingMessage(r.ruleId, f, locale, (s) => quoteInert(s, LINE_MAX))}`, LINE_MAX);
}

/** Unjudged rules grouped by reason code: most frequent first, then by code. */
function unjudged(results: RuleResult[]): UnjudgedOut[] {
  const by = new Map<string, string[]>();
  for (const r of results) {
    if (r.state !== 'could-not-judge') continue;
    const code = r.reason?.code ?? 'unknown';
    by.set(code, [...(by.get(code) ?? []), r.ruleId]);
  }
  return [...by.entries()].map(([code, rules]) => ({ code, count: rules.length, rules })).sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

let count: ((s: string) => number) | undefined;
/** Tokens of a JSON value with the o200k tokenizer (src/tokens/count.ts), loaded the first time a result is built. */
export async function jsonTokens(v: unknown): Promise<number> {
  count ??= (await import('../tokens/count.js')).countTokens;
  return count(JSON.stringify(v));
}

/** The compact result of `report`; `uri` names the full report. */
export async function compactResult(report: Report, locale: string, failOn: FailOn, uri: string | undefined, detail: 'summary' | 'full' = 'summary', budget = COMPACT_TOKENS): Promise<CompactOut> {
  const red = redByCategory(report.results);
  const tg = report.target;
  const head = {
    tool: report.tool,
    target: {
      kind: tg.kind,
      ...(tg.path !== undefined ? { path: cutTo(tg.path, LINE_MAX) } : {}),
      ...(tg.command ? { command: tg.command.slice(0, 16).map((a) => cutTo(a, LINE_MAX)) } : {}),
      ...(tg.url !== undefined ? { url: cutTo(tg.url, LINE_MAX) } : {}),
    },
    locale,
    ...(report.profile ? { profile: report.profile } : {}),
    summary: summarize(report.results),
    failing: failing(report.results, failOn).length,
  };
  const tail = { couldNotJudge: unjudged(report.results), ...(uri ? { report: uri } : {}) };
  // Every red rule is named; findings are added in rounds (the first finding of every rule, security first, then
  // the second…), each only while the result stays within the budget. With titles, unless dropping them shows more.
  const fill = async (titles: boolean): Promise<{ out: CompactOut; shown: number }> => {
    const lines = red.map((r) => ruleLine(r, locale, 0, titles));
    const out = (): CompactOut => ({ ...head, red: lines, ...tail });
    let total = await jsonTokens(out());
    let shown = 0;
    for (let round = 0; round < COMPACT_FINDINGS; round++) {
      for (const [i, r] of red.entries()) {
        if (r.findings.length <= round || lines[i]!.findings.length !== round) continue;
        const line = findingLine(r, round, locale);
        const cost = (await jsonTokens(line)) + 1; // the line and its comma
        if (total + cost > budget) continue;
        const more = r.findings.length - round - 1;
        const { suppressed, ...rest } = lines[i]!;
        lines[i] = { ...rest, findings: [...rest.findings, line], more: more || undefined, ...(suppressed ? { suppressed } : {}) };
        if (!more) delete lines[i]!.more;
        total += cost;
        shown++;
      }
    }
    // The sum of the parts is an estimate: the whole is measured, and lines come off the end until it fits.
    let o = out();
    for (let i = red.length - 1; (await jsonTokens(o)) > budget && i >= 0; ) {
      const l = lines[i]!;
      if (!l.findings.length) {
        i--;
        continue;
      }
      lines[i] = { ...l, findings: l.findings.slice(0, -1), more: (l.more ?? 0) + 1 };
      shown--;
      o = out();
    }
    return { out: o, shown };
  };
  const withTitles = await fill(true);
  const bare = withTitles.shown < red.reduce((a, r) => a + Math.min(COMPACT_FINDINGS, r.findings.length), 0) ? await fill(false) : undefined;
  const out = bare && bare.shown > withTitles.shown ? bare.out : withTitles.out;
  if (detail === 'full') {
    for (const perRule of [FULL_FINDINGS, 3, 1, 0]) {
      const full = { ...out, results: report.results.map((r) => ruleLine(r, locale, perRule, true, true)) };
      if (perRule === 0 || Buffer.byteLength(JSON.stringify(full)) <= FULL_MAX_BYTES) return full;
    }
  }
  return out;
}

/** One rule as a line of the result: verdict, up to `perRule` findings, and (full form) its reason, quoted inertly. */
function ruleLine(r: RuleResult, locale: string, perRule: number, titles: boolean, withReason = false): RedOut {
  const shown = Math.min(perRule, r.findings.length);
  const q = (s: string) => quoteInert(s, LINE_MAX);
  return {
    ruleId: r.ruleId,
    ...(titles ? { title: ruleTitle(r.ruleId, locale) } : {}),
    category: categoryOf(r.ruleId),
    severity: r.severity,
    state: r.state,
    ...(withReason && r.reason
      ? { reason: { code: r.reason.code, ...(r.reason.data ? { data: Object.fromEntries(Object.entries(r.reason.data).map(([k, v]) => [k, typeof v === 'string' ? cutTo(v, LINE_MAX) : v])) } : {}), message: cutTo(reasonText(r.reason, locale, q) ?? '', 2 * LINE_MAX) } }
      : {}),
    findings: Array.from({ length: shown }, (_, i) => findingLine(r, i, locale)),
    ...(r.findings.length > shown ? { more: r.findings.length - shown } : {}),
    ...(r.suppressed ? { suppressed: true as const } : {}),
  };
}

/** The same facts as text, for clients that show the text and not the structured content. */
export function compactText(c: CompactOut, locale: string, path: string, cli: string, kind?: KindInputs): string {
  const S = (k: string, d?: Record<string, string | number>) => t(locale, `server.${k}`, d);
  const lines = [S('auditSummary', { ...c.summary, failing: c.failing, path })];
  // Why the target is an App (or an extension), in one line; served tool names quoted inertly.
  if (kind) lines.push(cutTo(kindWhyText(kind, locale, (v) => quoteInert(v, LINE_MAX)), 4 * LINE_MAX));
  if (c.profile) lines.push(S('compact.profile', { profile: c.profile }));
  for (const cat of CATEGORIES) {
    const rs = c.red.filter((r) => r.category === cat);
    if (!rs.length) continue;
    lines.push(S('compact.category', { category: t(locale, `categories.${cat}`), count: rs.length }));
    for (const r of rs) {
      const head = `${r.ruleId}${r.title ? ` ${r.title}` : ''} (${t(locale, `states.${r.state}`)}, ${t(locale, `severities.${r.severity}`)}${r.suppressed ? `, ${S('compact.suppressed')}` : ''})`;
      lines.push(`- ${head}`);
      for (const f of r.findings) lines.push(`  - ${f}`);
      if (r.more) lines.push(`  - ${S('compact.more', { count: r.more })}`);
    }
  }
  for (const u of c.couldNotJudge) lines.push(S('compact.unjudged', { code: u.code, count: u.count, rules: u.rules.join(', ') }));
  // detail=full: every other rule, one line each with its reason (the red ones are above).
  for (const r of c.results ?? []) {
    if (isRed(r.state)) continue;
    lines.push(`- ${r.ruleId}${r.title ? ` ${r.title}` : ''}: ${t(locale, `states.${r.state}`)}${r.reason?.message ? ` — ${r.reason.message}` : ''}`);
  }
  lines.push(c.report ? S('compact.fullReport', { uri: c.report, cli }) : S('compact.fullReportCli', { cli }));
  return lines.join('\n');
}
