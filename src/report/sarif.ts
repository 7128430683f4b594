import type { ReportingDescriptor, Result } from 'sarif';
import { SarifBuilder, SarifResultBuilder, SarifRuleBuilder, SarifRunBuilder } from 'node-sarif-builder';
import { appFigures } from '../apps/report-inputs.js';
import { loadCatalog } from '../engine/catalog.js';
import type { Report } from '../engine/runner.js';
import type { Severity, State } from '../engine/types.js';
import { findingFix, findingMessage, reasonText, ruleTitle, sarifInert, terminalInert } from './text.js';

const LEVEL: Record<Severity, Result.level> = { error: 'error', warning: 'warning', note: 'note' };
const KIND: Record<State, Result.kind> = {
  present: 'pass',
  absent: 'fail',
  'non-conforming': 'fail',
  'could-not-judge': 'open',
  'not-applicable': 'notApplicable',
};

/**
 * A file path relative to the audited root as a SARIF `artifactLocation.uri`: a relative URI reference
 * (RFC 3986), each segment percent-encoded as UTF-8 (spaces, line breaks, escapes, `%`, `#`, `?`, `:`,
 * non-ASCII), so that decoding it gives the file name back. Lone surrogates become U+FFFD first.
 */
export function fileUri(file: string): string {
  const wellFormed = file.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return wellFormed.split('/').map(encodeURIComponent).join('/');
}

/** SARIF 2.1.0: one reportingDescriptor per rule (help from the catalog in `locale`), one result per finding. */
export function renderSarif(report: Report, locale: string): string {
  const catalog = loadCatalog();
  const run = new SarifRunBuilder().initSimple({ toolDriverName: report.tool.name, toolDriverVersion: report.tool.version });
  run.run.tool.driver.language = locale;
  const index = new Map<string, number>();
  // the four figures of each rendered View against their budgets ride on every A-5 result, as data.
  const figures = appFigures(report.inputs?.apps);
  const props = (ruleId: string) => (ruleId === 'A-5' && figures.length ? { appFigures: figures } : {});
  for (const r of report.results) {
    const meta = catalog.byId.get(r.ruleId);
    const text = catalog.text(r.ruleId, locale) ?? catalog.text(r.ruleId, 'en');
    const rule: ReportingDescriptor = {
      id: r.ruleId,
      name: meta?.slug,
      shortDescription: { text: ruleTitle(r.ruleId, locale) },
      fullDescription: { text: text?.summary || ruleTitle(r.ruleId, locale) },
      help: { text: text?.body ?? r.ruleId, markdown: text?.body ?? r.ruleId },
      defaultConfiguration: { level: LEVEL[r.severity] },
      properties: { family: meta?.family, genres: meta?.genres, tags: [meta?.family ?? '', ...(meta?.genres ?? [])] },
    };
    index.set(r.ruleId, index.size);
    run.addRule(new SarifRuleBuilder(rule));
  }
  for (const r of report.results) {
    const base = {
      ruleId: r.ruleId,
      ruleIndex: index.get(r.ruleId),
      kind: KIND[r.state],
      ...(r.suppressed ? { suppressions: [{ kind: 'external' as const, justification: terminalInert(r.suppressed.reason) }] } : {}),
    };
    if (r.findings.length === 0) {
      const msg = reasonText(r.reason, locale, sarifInert) ?? ruleTitle(r.ruleId, locale);
      const p = props(r.ruleId);
      run.addResult(new SarifResultBuilder({ ...base, level: r.state === 'absent' || r.state === 'non-conforming' ? LEVEL[r.severity] : 'none', message: { text: msg }, ...(Object.keys(p).length ? { properties: p } : {}) }));
      continue;
    }
    for (const f of r.findings) {
      const res: Result = {
        ...base,
        level: LEVEL[r.severity],
        message: { text: `${findingMessage(r.ruleId, f, locale, sarifInert)} ${findingFix(r.ruleId, f, locale, sarifInert)}` },
        partialFingerprints: { 'mcpDoctor/v1': `${r.ruleId}|${f.messageId}|${f.location?.file ?? ''}` },
        properties: { messageId: f.messageId, ...(f.evidence !== undefined ? { evidence: f.evidence } : {}), ...props(r.ruleId) },
      };
      if (f.location) {
        res.locations = [
          {
            physicalLocation: {
              artifactLocation: { uri: fileUri(f.location.file), uriBaseId: '%SRCROOT%' },
              ...(f.location.line ? { region: { startLine: f.location.line, ...(f.location.column ? { startColumn: f.location.column } : {}) } } : {}),
            },
          },
        ];
      }
      run.addResult(new SarifResultBuilder(res));
    }
  }
  const log = new SarifBuilder();
  log.addRun(run);
  return log.buildSarifJsonString({ indent: true }) + '\n';
}
