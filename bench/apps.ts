import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pidtree from 'pidtree';
import { packageRoot } from '../src/engine/paths.js';

/**
 * Benchmark (not a timed test): `mcp-doctor probe --exercise app` of an MCP App — the vanilla notes fixture App,
 * or the command after `--` — as a user runs it (the CLI in its own process, every rule, until it exits), with the
 * host harness rendering the Views in Chromium, against the same command with --no-browser, in interleaved rounds;
 * and the peak resident memory of the browser's processes summed (sampled every 100 ms from /proc).
 * Run: npm run bench:apps [-- <rounds>] [-- <command> [args...]]
 */
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const rounds = Number((dash >= 0 ? argv.slice(0, dash) : argv)[0] ?? 3);
const fixture = join(packageRoot(), 'src', 'detectors', 'A-2-single-file-bundle', 'fixtures', 'present', 'vanilla-notes');
const command = dash >= 0 ? argv.slice(dash + 1) : ['node', 'server.mjs'];
const cwd = dash >= 0 ? process.cwd() : fixture;

/** Resident memory (bytes) of the descendant processes of `root` whose command line names Chromium. */
async function browserRss(root: number): Promise<number> {
  const pids = await pidtree(root).catch(() => [] as number[]);
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

const cli = join(packageRoot(), 'dist', 'src', 'cli.js');

async function once(browser: boolean): Promise<{ ms: number; peak: number }> {
  let peak = 0;
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'probe', '--exercise', 'app', '--format', 'json', ...(browser ? [] : ['--no-browser']), '--', ...command], { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
  const timer = setInterval(() => void browserRss(child.pid!).then((r) => (peak = Math.max(peak, r))), 100);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearInterval(timer);
  if (code !== 0 && code !== 1) throw new Error(`mcp-doctor probe exited ${code}`);
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
  `mcp-doctor probe --exercise app -- ${command.join(' ')}: ${rounds} interleaved rounds, medians, until exit:\n` +
    `  without the browser (--no-browser): ${median(without).toFixed(0)} ms\n` +
    `  with the browser:                   ${median(withB.map((x) => x.ms)).toFixed(0)} ms (ratio ${(median(withB.map((x) => x.ms)) / median(without)).toFixed(2)})\n` +
    `  peak RSS of the browser processes:  ${mb(median(withB.map((x) => x.peak)))} MB (max ${mb(Math.max(...withB.map((x) => x.peak)))} MB)\n`,
);
