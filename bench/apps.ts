import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pidtree from 'pidtree';
import { packageRoot } from '../src/engine/paths.js';
import { probeAndJudge } from '../src/probe/run.js';

/**
 * Benchmark (not a timed test): one full probe of an MCP App — the vanilla notes fixture App, or the command
 * after `--` — with the host harness rendering it in Chromium, against the same probe with --no-browser; and
 * the peak resident memory of the browser's processes (sampled every 100 ms from /proc).
 * Run: npm run bench:apps [-- <rounds>] [-- <command> [args...]]
 */
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const rounds = Number((dash >= 0 ? argv.slice(0, dash) : argv)[0] ?? 3);
const fixture = join(packageRoot(), 'src', 'detectors', 'A-2-single-file-bundle', 'fixtures', 'present', 'vanilla-notes');
const command = dash >= 0 ? argv.slice(dash + 1) : ['node', 'server.mjs'];
const cwd = dash >= 0 ? process.cwd() : fixture;

/** Resident memory (bytes) of our descendant processes whose command line names Chromium. */
async function browserRss(): Promise<number> {
  const pids = await pidtree(process.pid).catch(() => [] as number[]);
  let total = 0;
  for (const p of pids) {
    try {
      if (!/chrom/i.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'))) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      /* gone */
    }
  }
  return total;
}

async function once(browser: boolean): Promise<{ ms: number; peak: number }> {
  let peak = 0;
  const timer = setInterval(() => void browserRss().then((r) => (peak = Math.max(peak, r))), 100);
  const t0 = performance.now();
  try {
    await probeAndJudge({ command, cwd, exercise: ['app'], rules: ['A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'A-6', 'A-7'], apps: { browser } });
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - t0, peak };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const withB: { ms: number; peak: number }[] = [];
const without: number[] = [];
for (let i = 0; i < rounds; i++) {
  without.push((await once(false)).ms);
  withB.push(await once(true));
}
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
process.stdout.write(
  `App probe (${command.join(' ')}), ${rounds} rounds, medians:\n` +
    `  without the browser (--no-browser): ${median(without).toFixed(0)} ms\n` +
    `  with the browser:                   ${median(withB.map((x) => x.ms)).toFixed(0)} ms\n` +
    `  peak RSS of the browser processes:  ${mb(median(withB.map((x) => x.peak)))} MB (max ${mb(Math.max(...withB.map((x) => x.peak)))} MB)\n`,
);
