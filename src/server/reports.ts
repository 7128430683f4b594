import { randomUUID } from 'node:crypto';

/**
 * Full reports of the audits and probes this server ran, readable at mcp-doctor://reports/{id} for the life of
 * the process (one store per process: over HTTP a server is built for every request). Bounded: the last
 * MAX_REPORTS reports, each at most MAX_REPORT_BYTES of JSON (the caller bounds it before storing).
 * Ids are random, so one caller cannot guess another's report.
 */
export const REPORT_URI_PREFIX = 'mcp-doctor://reports/';
export const MAX_REPORTS = 20;
export const MAX_REPORT_BYTES = 2_000_000;

export interface StoredReport {
  text: string;
  mimeType: 'application/json' | 'text/html';
}
const reports = new Map<string, StoredReport>();

/**
 * Keep a rendered report (the JSON report, or its HTML page); returns its URI. The oldest report goes when the
 * store is full.
 */
export function keepReport(text: string, mimeType: StoredReport['mimeType'] = 'application/json'): string {
  const id = randomUUID();
  reports.set(id, { text, mimeType });
  while (reports.size > MAX_REPORTS) reports.delete(reports.keys().next().value!);
  return `${REPORT_URI_PREFIX}${id}`;
}

/** The report kept under `id`, or undefined (never kept, or dropped as the store filled). */
export const storedReport = (id: string): StoredReport | undefined => reports.get(id);

/** The ids kept, oldest first. */
export const storedIds = (): string[] => [...reports.keys()];
