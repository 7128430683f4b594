import { loadCatalog, type RuleText } from '../engine/catalog.js';
import { t } from '../engine/i18n.js';
import { DETECTOR_GENRES } from '../detectors/genres.js';
import type { Report } from '../engine/runner.js';
import type { AuditOptions } from './audit.js';
import { isRed, severityRank, type RuleResult, type Severity, type RuleMeta, type Genre } from '../engine/types.js';

/** The engine's public API for the faces (CLI, MCP server). No face holds logic of its own. */

export { UnknownRuleError, AuditCancelled } from '../engine/errors.js';
export { RootUnreadable } from '../engine/errors.js';
export type { Report, AuditOptions };

/**
 * Run an audit. The analyser (ts-morph, the Python grammar, ajv, the detectors) is loaded on the first call, not
 * when a face starts: `serve`, `rules` and `explain` answer without it.
 */
export async function audit(opts: AuditOptions): Promise<Report> {
  const runner = await import('./audit.js');
  return runner.audit(opts);
}

export type FailOn = Severity | 'none';
export const FAIL_ON: readonly FailOn[] = ['error', 'warning', 'note', 'none'];

/** Red results that fail the run at this threshold (suppressed and baselined ones do not). */
export function failing(results: RuleResult[], failOn: FailOn = 'note'): RuleResult[] {
  if (failOn === 'none') return [];
  return results.filter((r) => isRed(r.state) && !r.suppressed && severityRank(r.severity) >= severityRank(failOn));
}

export interface RuleListing extends RuleMeta {
  title: string;
  summary: string;
  titles: Record<string, string>;
  /** Genres for which a detector exists. */
  detectors: Genre[];
}

export function listRules(locale: string, locales: string[]): RuleListing[] {
  const c = loadCatalog();
  return c.rules.map((r) => ({
    ...r,
    title: c.text(r.id, locale)?.title ?? r.id,
    summary: c.text(r.id, locale)?.summary ?? '',
    titles: Object.fromEntries(locales.map((l) => [l, c.text(r.id, l)?.title ?? ''])),
    detectors: [...(DETECTOR_GENRES[r.id] ?? [])],
  }));
}

export function explainRule(id: string, locale: string): { meta: RuleMeta; text: RuleText } | undefined {
  const c = loadCatalog();
  const meta = c.byId.get(id.toUpperCase());
  const text = meta && (c.text(meta.id, locale) ?? c.text(meta.id, 'en'));
  return meta && text ? { meta, text } : undefined;
}

/** A rule's text as a standalone markdown document (title, summary, metadata lines, body), in `locale`. */
export function ruleMarkdown(id: string, locale: string): string | undefined {
  const e = explainRule(id, locale);
  if (!e) return undefined;
  const genres = e.meta.genres.map((g) => t(locale, `genres.${g}`)).join(' + ');
  const lines = [
    `# ${e.meta.id} — ${e.text.title}`,
    '',
    e.text.summary,
    '',
    `- ${t(locale, 'ruleDoc.labels.genres')} ${genres}`,
    `- ${t(locale, 'ruleDoc.labels.severity')} ${t(locale, `severities.${e.meta.severity}`)}`,
    `- ${t(locale, 'ruleDoc.labels.category')} ${t(locale, `categories.${e.meta.category}`)}`,
  ];
  // How the parts make the verdict, for a rule judged by more than one part.
  if (e.meta.genres.length > 1) lines.push(`- ${t(locale, 'ruleDoc.labels.combine')} ${t(locale, `ruleDoc.combine.${e.meta.combine ?? 'any-unjudged'}`)}`);
  if (e.text.condition) lines.push(`- ${t(locale, 'ruleDoc.labels.condition')} ${e.text.condition}`);
  lines.push('', e.text.body, '');
  return lines.join('\n');
}
