import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { packageRoot } from '../src/engine/paths.js';
import { fixRepository } from '../src/fix/index.js';

/**
 * Benchmark: `fix` (applied, then audited again) on every red fixture of the rules it repairs (the detectors'
 * non-conforming and absent folders), each copied into a fresh git repository. Prints per fixture the time and
 * what became of its findings, then the totals: how much is fixed, rolled back, and left (and why).
 * Run: npm run build && node dist/bench/fix.js
 */
const RULES = ['C-15-tool-annotations', 'C-4-typed-schemas', 'S-13-progress-cancellation', 'S-11-result-contract', 'C-1-bilingual', 'C-20-derived-locales', 'S-7-observable-version'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=bench@test.invalid', '-c', 'user.name=bench', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' });
const tally: Record<string, number> = {};
const t0 = performance.now();
let fixtures = 0;
for (const rule of RULES) {
  for (const state of ['non-conforming', 'absent']) {
    const folder = join(packageRoot(), 'src', 'detectors', rule, 'fixtures', state);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      const work = mkdtempSync(join(tmpdir(), 'mcp-doctor-bench-fix-'));
      const dir = join(work, name);
      try {
        cpSync(join(folder, name), dir, { recursive: true });
        git(dir, 'init', '-q');
        git(dir, 'add', '-A');
        git(dir, 'commit', '-qm', 'fixture');
        const t = performance.now();
        const res = await fixRepository({ dir, locale: 'en' });
        fixtures++;
        const counts: Record<string, number> = {};
        for (const o of res.outcomes) {
          const k = o.state + (o.reason ? `:${o.reason}` : '');
          counts[k] = (counts[k] ?? 0) + 1;
          tally[k] = (tally[k] ?? 0) + 1;
        }
        process.stdout.write(`${rule}/${state}/${name}: ${Math.round(performance.now() - t)} ms ${JSON.stringify(counts)}\n`);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  }
}
process.stdout.write(`total: ${fixtures} fixtures in ${Math.round(performance.now() - t0)} ms; ${JSON.stringify(tally)}\n`);
