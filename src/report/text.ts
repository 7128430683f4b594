import { loadCatalog } from '../engine/catalog.js';
import { isSelectElement, parse, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { raw, t } from '../engine/i18n.js';
import { CATEGORIES, isRed, type Category, type Finding, type MessageData, type Reason, type RuleResult } from '../engine/types.js';

/**
 * Rendering helpers shared by every face. Text from a target (tool names, descriptions, errors, file names,
 * patterns, evidence) is data: it is quoted inertly, never interpreted — by a terminal (escape sequences),
 * by a Markdown viewer (links, HTML, list items), or by a reader (a forged line that looks like ours).
 *
 * What each face does with a string a target wrote:
 * - terminal and MCP tool text: quoteInert — one line in JSON quotes, control and invisible characters
 *   written as escapes, bounded length;
 * - Markdown: codeSpan — the same escapes, inside a code span whose backtick fence is longer than any run
 *   of backticks inside, so nothing in it is Markdown;
 * - SARIF message text: quoteInert, with square brackets escaped so no embedded link can be formed;
 * - JSON: faithful data (JSON's own escaping), as a program reading it needs the exact bytes. A consumer
 *   that prints JSON strings to a terminal must escape them itself.
 */

/**
 * Characters a target's text may not carry to a terminal or a document: every C0 control (line breaks and
 * tabs too: a forged line is an attack), DEL, every C1 control, bidi embeddings, overrides and isolates
 * (U+202A-202E, U+2066-2069), U+2028/2029 line and paragraph separators, and invisible formatting characters
 * (zero-width, soft hyphen, tag characters, variation selectors, interlinear annotations).
 */
const UNSAFE =
  /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
export const MAX_EVIDENCE = 240;
/** The longest data value (a file path, a tool name) shown in full. */
export const MAX_DATA = 400;

const hex = (c: string) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`;

/** Cut to `max` code points, marking the cut. */
export const cutTo = (s: string, max: number): string => {
  const cps = [...s];
  return cps.length > max ? cps.slice(0, max).join('') + '…' : s;
};

/** Write every unsafe character as a visible escape (\n, \t, \r, \u{1B}…); nothing else changes. */
export const escapeControls = (s: string): string => s.replace(UNSAFE, (c) => NAMED[c] ?? hex(c));

/**
 * Quote untrusted text so that it cannot act: one line, JSON-escaped, invisible and bidi characters shown as
 * \u{…} escapes, bounded length.
 */
export function quoteInert(s: string, max = MAX_EVIDENCE): string {
  // JSON.stringify escapes C0 and quotes; U+2028/2029 and the rest of UNSAFE are left to escapeControls.
  return escapeControls(JSON.stringify(cutTo(s, max)));
}

/**
 * Untrusted text as one Markdown code span: controls escaped, and a backtick fence longer than any run of
 * backticks inside (padded with a space where CommonMark would otherwise eat a backtick or a space).
 */
export function codeSpan(s: string, max = MAX_DATA): string {
  const body = escapeControls(cutTo(s, max));
  if (body === '') return '`""`';
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || (body.startsWith(' ') && body.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** SARIF message text: quoted inertly, square brackets escaped (SARIF §3.11.6) so no embedded link is formed. */
export const sarifInert = (s: string): string => quoteInert(s, MAX_DATA).replace(/[[\]]/g, (c) => `\\${c}`);

/** Untrusted text on a terminal where it is embedded in a line of ours: controls escaped, bounded, not quoted. */
export const terminalInert = (s: string, max = MAX_DATA): string => escapeControls(cutTo(s, max));

/** A rule's category (rules/catalog); an id outside the catalog counts as publishing. */
export const categoryOf = (id: string): Category => loadCatalog().byId.get(id)?.category ?? 'publishing';

/** Red results, security first, then protocol, then publishing; non-conforming before absent; then in report order. */
export function redByCategory(results: RuleResult[]): RuleResult[] {
  const rank = (id: string) => CATEGORIES.indexOf(categoryOf(id));
  const order = new Map(results.map((r, i) => [r, i]));
  return results
    .filter((r) => isRed(r.state))
    .sort((a, b) => rank(a.ruleId) - rank(b.ruleId) || (a.state === b.state ? 0 : a.state === 'non-conforming' ? -1 : 1) || order.get(a)! - order.get(b)!);
}

export const ruleTitle = (id: string, locale: string): string => loadCatalog().text(id, locale)?.title ?? loadCatalog().text(id, 'en')?.title ?? id;

/** Data values may come from the target: a face that renders markup escapes them, never the trusted template. */
export type Escape = (s: string) => string;

/** The select arguments of a template and their keys (cached): `{era, select, legacy {…} other {…}}`. */
const selectCache = new Map<string, Map<string, Set<string>>>();
function selectKeys(template: string): Map<string, Set<string>> {
  let m = selectCache.get(template);
  if (m) return m;
  m = new Map();
  try {
    const stack: MessageFormatElement[][] = [parse(template, { ignoreTag: true })];
    while (stack.length) {
      for (const el of stack.pop()!) {
        if (isSelectElement(el)) {
          const keys = m.get(el.value) ?? new Set<string>();
          for (const k of Object.keys(el.options)) if (k !== 'other') keys.add(k);
          m.set(el.value, keys);
        }
        if ('options' in el) for (const o of Object.values(el.options)) stack.push(o.value);
        if ('children' in el) stack.push(el.children);
      }
    }
  } catch {
    /* an unparsable template is rendered as-is by t() */
  }
  selectCache.set(template, m);
  return m;
}

/**
 * Format a message whose data may come from a target: every string value goes through `e`, except a value
 * that is one of the keys of a select argument (our own words, e.g. an era name), which picks its branch.
 */
export function formatUntrusted(locale: string, key: string, data: MessageData | undefined, e?: Escape): string {
  if (!data || !e) return t(locale, key, data);
  const selects = selectKeys(raw(locale, key) ?? '');
  const safe = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' && !selects.get(k)?.has(v) ? e(v) : v]));
  return t(locale, key, safe);
}

export function findingMessage(ruleId: string, f: Finding, locale: string, e?: Escape): string {
  return formatUntrusted(locale, `findings.${ruleId}.${f.messageId}.message`, f.data, e);
}
/**
 * The remediation of a finding. A finding in Python source takes the message's `fixPython` text when it has one
 * (the same defect mended with the Python SDK's words: FastMCP, `McpError`, pydantic…), otherwise its `fix`.
 */
export function findingFix(ruleId: string, f: Finding, locale: string, e?: Escape): string {
  const base = `findings.${ruleId}.${f.messageId}`;
  const key = isPythonFile(f.location?.file) && raw(locale, `${base}.fixPython`) !== undefined ? `${base}.fixPython` : `${base}.fix`;
  return formatUntrusted(locale, key, f.data, e);
}
const isPythonFile = (file: string | undefined): boolean => !!file && /\.pyi?$/i.test(file);
export function reasonText(r: Reason | undefined, locale: string, e?: Escape): string | undefined {
  return r ? formatUntrusted(locale, `reasons.${r.code}`, r.data, e) : undefined;
}
export const where = (f: Finding): string | undefined =>
  f.location ? `${f.location.file}${f.location.line ? `:${f.location.line}` : ''}${f.location.column ? `:${f.location.column}` : ''}` : undefined;

export function summarize(results: RuleResult[]) {
  const count = (s: string) => results.filter((r) => r.state === s).length;
  return {
    present: count('present'),
    absent: count('absent'),
    nonConforming: count('non-conforming'),
    couldNotJudge: count('could-not-judge'),
    notApplicable: count('not-applicable'),
    suppressed: results.filter((r) => r.suppressed).length,
  };
}

/** The A-5 figures of a rendered View against their budgets, in words: our own text (numbers and units only). */
export function appFiguresText(
  f: { bundleGzipBytes?: number; firstRenderMs?: number; roundTripP95Ms?: number; roundTrips: number; heapBytes?: number },
  locale: string,
): string {
  const A = (k: string, d?: Record<string, string | number>) => t(locale, `report.apps.${k}`, d);
  const fig = (n: number | undefined, unit: string) => (n === undefined ? A('none') : `${Math.round(n)} ${unit}`);
  return A('figures', { bundle: fig(f.bundleGzipBytes, A('bytes')), render: fig(f.firstRenderMs, 'ms'), p95: fig(f.roundTripP95Ms, 'ms'), trips: f.roundTrips, heap: fig(f.heapBytes, A('bytes')) });
}

/** The data of the message that says why a file was not read (report.skippedCause). */
export const skippedCauseData = (f: { cause: string; size?: number; limit?: number; bundler?: string }): Record<string, string | number> => ({
  cause: f.cause,
  ...(f.size !== undefined ? { size: f.size } : {}),
  ...(f.limit !== undefined ? { limit: f.limit } : {}),
  ...(f.bundler !== undefined ? { bundler: f.bundler } : {}),
});
