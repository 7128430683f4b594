import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { audit } from '../src/run/audit.js';

/**
 * Verdict snapshot of static audits, for checking that a change (a memory or speed one) leaves every verdict as
 * it was: per folder and rule, the state, the reason, the number of findings and a digest of the findings
 * (ids, data, locations), plus the report's inputs. Nothing is timed.
 * Run: node dist/bench/verdicts.js save <out.json> <dir>...   then   node dist/bench/verdicts.js compare <out.json>
 * (compare audits the same folders again and lists every difference; exit code 1 when there is one).
 * Arguments that are not folders are skipped (a shell glob over fixtures also lists files); a folder whose audit
 * fails (an unreadable .mcp-doctor.json, on purpose in some fixtures) is recorded with its error instead of
 * stopping the run, so that a change to that error shows up too.
 */
type Snapshot = Record<string, Record<string, { state: string; reason?: unknown; findings: number; digest: string }> & { '#inputs'?: never }>;

async function snapshot(dirs: string[]): Promise<{ verdicts: Snapshot; inputs: Record<string, string> }> {
  const verdicts: Snapshot = {};
  const inputs: Record<string, string> = {};
  for (const d of dirs) {
    let report: Awaited<ReturnType<typeof audit>>;
    try {
      report = await audit({ target: { path: resolve(d) } });
    } catch (e) {
      verdicts[d] = { '#error': { state: 'audit-failed', reason: e instanceof Error ? `${e.name}: ${e.message}` : String(e), findings: 0, digest: '' } } as Snapshot[string];
      inputs[d] = '';
      continue;
    }
    const rules: Snapshot[string] = {};
    for (const r of report.results) {
      const digest = createHash('sha256').update(JSON.stringify(r.findings)).digest('hex').slice(0, 16);
      rules[r.ruleId] = { state: r.state, ...(r.reason ? { reason: r.reason } : {}), findings: r.findings.length, digest };
    }
    verdicts[d] = rules;
    inputs[d] = createHash('sha256').update(JSON.stringify(report.inputs ?? {})).digest('hex').slice(0, 16);
  }
  return { verdicts, inputs };
}

const [, , mode, out, ...args] = process.argv;
const isDir = (d: string): boolean => {
  try {
    return statSync(d).isDirectory();
  } catch {
    return false;
  }
};
const dirs = args.filter(isDir);
if (mode === 'save') {
  const snap = await snapshot(dirs);
  writeFileSync(out!, JSON.stringify({ dirs, ...snap }, null, 1));
  const n = Object.values(snap.verdicts).reduce((s, r) => s + Object.values(r).reduce((a, v) => a + v.findings, 0), 0);
  process.stdout.write(`saved ${dirs.length} folders, ${n} findings\n`);
} else if (mode === 'compare') {
  const before = JSON.parse(readFileSync(out!, 'utf8')) as { dirs: string[]; verdicts: Snapshot; inputs: Record<string, string> };
  const now = await snapshot(before.dirs);
  const diffs: string[] = [];
  for (const d of before.dirs) {
    if (before.inputs[d] !== now.inputs[d]) diffs.push(`${d}: inputs differ`);
    const a = before.verdicts[d]!;
    const b = now.verdicts[d]!;
    for (const id of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (JSON.stringify(a[id]) !== JSON.stringify(b[id])) diffs.push(`${d} ${id}: ${JSON.stringify(a[id])} -> ${JSON.stringify(b[id])}`);
    }
  }
  process.stdout.write(diffs.length ? diffs.join('\n') + '\n' : `same verdicts, findings and inputs in ${before.dirs.length} folders\n`);
  process.exitCode = diffs.length ? 1 : 0;
} else {
  process.stderr.write('usage: verdicts.js save <out.json> <dir>... | compare <out.json>\n');
  process.exitCode = 2;
}
