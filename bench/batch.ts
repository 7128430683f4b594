import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import pidtree from 'pidtree';
import { serveMain, startRegistry } from '../test/support/batch-registry.js';

/**
 * Benchmark: `mcp-doctor batch` throughput (servers judged per minute) at concurrency 1, 2 and 4, and the peak
 * memory of the whole process tree (mcp-doctor, npm, the servers), sampled from /proc every 100 ms. The
 * servers are N tiny raw MCP servers published to a Verdaccio registry started here on 127.0.0.1 (no
 * network): the figure is install + probe + judging, not the download of real packages.
 * Run: npm run bench:batch [-- <servers>]
 */
const cli = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const n = Number(process.argv[2] ?? 12);

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpd-bench-batch-'));
const reg = await startRegistry(tmp);
try {
  const names = Array.from({ length: n }, (_, i) => `mcpd-bench-${String(i).padStart(3, '0')}`);
  for (const name of names) await reg.publish(name, '1.0.0', serveMain(name));
  const list = join(tmp, 'list.txt');
  writeFileSync(list, names.map((x) => `${x}@1.0.0`).join('\n') + '\n');
  const rows: string[] = [];
  for (const concurrency of [1, 2, 4]) {
    const out = join(tmp, `out-${concurrency}`);
    const t0 = Date.now();
    const child = execa(process.execPath, [cli, 'batch', list, '--output', out, '--registry', reg.url, '--concurrency', String(concurrency), '-q'], { reject: false, env: { npm_config_userconfig: reg.npmrc } });
    let peakTree = 0;
    let peakSelf = 0;
    const timer = setInterval(async () => {
      if (!child.pid) return;
      const pids = [child.pid, ...(await pidtree(child.pid).catch(() => [] as number[]))];
      peakTree = Math.max(peakTree, pids.reduce((s, p) => s + rssKb(p), 0));
      peakSelf = Math.max(peakSelf, rssKb(child.pid));
    }, 100);
    const r = await child;
    clearInterval(timer);
    const ms = Date.now() - t0;
    if (r.exitCode !== 0) throw new Error(`batch failed at concurrency ${concurrency}: ${r.stderr}`);
    const perMin = (n / ms) * 60_000;
    rows.push(`| ${concurrency} | ${n} | ${(ms / 1000).toFixed(1)} s | ${perMin.toFixed(1)} | ${(peakSelf / 1024).toFixed(0)} MiB | ${(peakTree / 1024).toFixed(0)} MiB |`);
    rmSync(out, { recursive: true, force: true });
  }
  process.stdout.write(['| concurrency | servers | wall time | servers/min | peak RSS, mcp-doctor | peak RSS, whole tree |', '|---|---|---|---|---|---|', ...rows].join('\n') + '\n');
} finally {
  reg.stop();
  rmSync(tmp, { recursive: true, force: true });
}
