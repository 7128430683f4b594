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

const reports = new Map<string, string>();

/** Keep `json` (a rendered report); returns its URI. The oldest report goes when the store is full. */
export function keepReport(json: string): string {
  const id = randomUUID();
  reports.set(id, json);
  while (reports.size > MAX_REPORTS) reports.delete(reports.keys().next().value!);
  return `${REPORT_URI_PREFIX}${id}`;
}

/** The report kept under `id`, or undefined (never kept, or dropped as the store filled). */
export const storedReport = (id: string): string | undefined => reports.get(id);

/** The ids kept, oldest first. */
export const storedIds = (): string[] => [...reports.keys()];
