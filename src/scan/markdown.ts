import { t } from '../engine/i18n.js';
import type { Report } from '../engine/runner.js';
import { codeSpan } from '../report/text.js';

/**
 * The scan's part of the Markdown report: every client file looked at, with its state, and every configured
 * server with where it is declared. File names, server names and launch lines come from configuration files
 * (a project's may be hostile): each is a code span.
 */
export function scanSection(report: Report, locale: string): string[] {
  const scan = report.scan;
  if (!scan) return [];
  const S = (k: string, d?: Record<string, string | number>) => t(locale, `report.scan.${k}`, d);
  const out = [`## ${S('title')}`, '', `### ${S('files')}`, ''];
  if (!scan.files.length) out.push(S('noFiles'));
  for (const f of scan.files) {
    const status = f.status.replace(/-/g, '_');
    out.push(`- ${S('file', { file: codeSpan(f.file), client: f.client, scope: f.scope, status, servers: f.servers, line: f.line ?? 0, size: f.size ?? 0, limit: f.limit ?? 0 })}`);
  }
  out.push('', `### ${S('servers')}`, '');
  for (const s of scan.servers) {
    const launch = codeSpan(s.launch ?? s.url ?? '—');
    const probe = s.probe !== undefined ? ` — ${S('probe', { probe: codeSpan(s.probe + (s.tools !== undefined ? ` (${s.tools} tools)` : '')) })}` : '';
    out.push(`- ${S('server', { name: codeSpan(s.name), client: s.client, scope: s.scope, where: codeSpan(`${s.file}:${s.line}`), transport: s.transport, launch })}${probe}`);
  }
  if (!scan.probed) out.push('', S('notProbed'));
  out.push('');
  return out;
}
