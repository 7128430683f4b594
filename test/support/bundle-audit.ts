import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { audit } from '../../src/run/audit.js';
import { DEFAULT_PARSE_BUDGET } from '../../src/facts/budget.js';

/** Shared by the tests of bundles over the per-file limit (bundle-over-limit, bundle-unmarked). */
export type AuditReport = Awaited<ReturnType<typeof audit>>;

export const staticPart = (r: AuditReport, id: string) => r.results.find((x) => x.ruleId === id)?.parts.find((p) => p.genre === 'static');

export const stateOf = (r: AuditReport, id: string): string => {
  const p = staticPart(r, id);
  return `${p?.state}:${p?.reason?.code ?? ''}`;
};

/** The 1-based line of the chat-bot fixtures' token log. */
export const redLine = (text: string) => text.split('\n').findIndex((l) => l.includes('Parley bot logged in with token')) + 1;

/**
 * Audits `dir`, whose `file` is over the per-file limit, and checks that X-7 and C-6 are red on the bundle's line of
 * the token log: the package's own code in the bundle was read. Returns the report.
 */
export async function assertOwnLineRed(dir: string, file: string): Promise<AuditReport> {
  const text = readFileSync(join(dir, file), 'utf8');
  assert.ok(Buffer.byteLength(text) > DEFAULT_PARSE_BUDGET, 'the bundle is over the per-file limit');
  const r = await audit({ target: { path: dir } });
  for (const id of ['X-7', 'C-6']) {
    const p = staticPart(r, id);
    assert.equal(p?.state, 'non-conforming', `${id}: ${stateOf(r, id)}`);
    const lines = p!.findings.filter((f) => f.location?.file === file).map((f) => f.location?.line);
    assert.ok(lines.includes(redLine(text)), `${id} names the line of the bundle (${lines.join(',')})`);
  }
  return r;
}
