import { loadCatalog } from '../engine/catalog.js';
import { t } from '../engine/i18n.js';
import type { Finding, MessageData, Reason, RuleResult } from '../engine/types.js';

/** Rendering helpers shared by every face. Text from a target is data: it is quoted inertly, never interpreted. */

const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
export const MAX_EVIDENCE = 240;

/**
 * Quote untrusted text so that it cannot act: one line, JSON-escaped, invisible and bidi characters shown as
 * \u{…} escapes, bounded length.
 */
export function quoteInert(s: string, max = MAX_EVIDENCE): string {
  const cut = [...s].length > max ? [...s].slice(0, max).join('') + '…' : s;
  return JSON.stringify(cut).replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

export const ruleTitle = (id: string, locale: string): string => loadCatalog().text(id, locale)?.title ?? loadCatalog().text(id, 'en')?.title ?? id;

/** Data values may come from the target: a face that renders markup escapes them, never the trusted template. */
export type Escape = (s: string) => string;
const esc = (data: MessageData | undefined, e?: Escape): MessageData | undefined =>
  data && e ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? e(v) : v])) : data;

export function findingMessage(ruleId: string, f: Finding, locale: string, e?: Escape): string {
  return t(locale, `findings.${ruleId}.${f.messageId}.message`, esc(f.data, e));
}
export function findingFix(ruleId: string, f: Finding, locale: string, e?: Escape): string {
  return t(locale, `findings.${ruleId}.${f.messageId}.fix`, esc(f.data, e));
}
export function reasonText(r: Reason | undefined, locale: string, e?: Escape): string | undefined {
  return r ? t(locale, `reasons.${r.code}`, esc(r.data, e)) : undefined;
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
