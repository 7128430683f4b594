import { loadCatalog } from '../engine/catalog.js';
import type { Report } from '../engine/runner.js';
import { findingFix, findingMessage, reasonText, ruleTitle, summarize } from './text.js';

/** The JSON report (a fixed contract other tools script against). Messages are rendered in `locale`; ids and data stay. */
export function toJson(report: Report, locale: string) {
  return {
    tool: report.tool,
    target: report.target,
    ...(report.profile ? { profile: report.profile } : {}),
    ...(report.inputs ? { inputs: report.inputs } : {}),
    ...(report.scan ? { scan: report.scan } : {}),
    locale,
    summary: summarize(report.results),
    results: report.results.map((r) => ({
      ruleId: r.ruleId,
      title: ruleTitle(r.ruleId, locale),
      state: r.state,
      severity: r.severity,
      category: loadCatalog().byId.get(r.ruleId)?.category ?? 'publishing',
      ...(r.reason ? { reason: { code: r.reason.code, data: r.reason.data, message: reasonText(r.reason, locale) } } : {}),
      ...(r.suppressed ? { suppressed: r.suppressed } : {}),
      parts: r.parts.map((p) => ({
        genre: p.genre,
        state: p.state,
        ...(p.reason ? { reason: { code: p.reason.code, data: p.reason.data, message: reasonText(p.reason, locale) } } : {}),
      })),
      findings: r.findings.map((f) => ({
        messageId: f.messageId,
        message: findingMessage(r.ruleId, f, locale),
        remediation: findingFix(r.ruleId, f, locale),
        ...(f.data ? { data: f.data } : {}),
        ...(f.location ? { location: f.location } : {}),
        ...(f.evidence !== undefined ? { evidence: f.evidence } : {}),
      })),
    })),
  };
}

export const renderJson = (report: Report, locale: string): string => JSON.stringify(toJson(report, locale), null, 2) + '\n';
