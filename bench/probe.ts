import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ownCpuMs } from './cpu.js';

/**
 * Benchmark, in one run and interleaved: `mcp-doctor probe` of a stdio reference server
 * (@modelcontextprotocol/server-everything) as a user runs it (CLI, every check, judging included) in its two
 * paths — the default, which also reads the server's package (the static parts), and `--no-source`, which judges
 * the served session only — against the bare cost of starting that server and completing one initialize, and
 * against the Inspector CLI's one `tools/list` (@modelcontextprotocol/inspector --cli … --method tools/list).
 * Prints the medians, the ratios and each path's peak RSS, then where the time goes: the CPU time of mcp-doctor
 * itself and of the targets it started, against the CPU time the bare target spends to its answer, and the
 * shortest wall time that CPU allows on this machine's cores. Run: npm run bench:probe [-- <rounds>]
 */
const require = createRequire(import.meta.url);
const pkgDir = (name: string) => join(require.resolve(`${name}/package.json`), '..');
const everything = join(pkgDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
const inspector = join(pkgDir('@modelcontextprotocol/inspector'), 'clients', 'launcher', 'build', 'index.js');
const cli = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const maxrss = fileURLToPath(new URL('./maxrss.js', import.meta.url));
const rounds = Number(process.argv[2] ?? 5);

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-probe', version: '1' } },
});

/** Spawn the reference server, send initialize, stop the clock at its answer (and read the CPU time it spent to
 * get there), then end it. */
function bare(): Promise<{ ms: number; cpuMs?: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [everything, 'stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          if ((JSON.parse(line) as { id?: unknown }).id === 1) {
            const ms = performance.now() - t0;
            const cpuMs = child.pid ? ownCpuMs(child.pid) : undefined;
            child.once('exit', () => resolve({ ms, cpuMs }));
            child.kill('SIGTERM');
            return;
          }
        } catch {
          /* not a message */
        }
      }
    });
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.stdin.write(INITIALIZE + '\n');
  });
}

/** Run a program to its end; wall time and its stderr. */
function timed(args: string[]): Promise<{ ms: number; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, stderr, code }));
  });
}

async function probe(extra: string[] = []): Promise<{ ms: number; rssMb: number; cpu?: { own: number; targets: number } }> {
  const r = await timed(['--import', maxrss, cli, 'probe', '--format', 'json', '--quiet', ...extra, '--', process.execPath, everything, 'stdio']);
  const kb = /bench-maxrss-kb (\d+)/.exec(r.stderr);
  if (!kb || (r.code !== 0 && r.code !== 1)) throw new Error(`probe failed (exit ${r.code}): ${r.stderr.slice(-500)}`);
  const cpu = /bench-cpu-ms (\d+) (\d+)/.exec(r.stderr);
  return { ms: r.ms, rssMb: Number(kb[1]) / 1024, ...(cpu ? { cpu: { own: Number(cpu[1]), targets: Number(cpu[2]) } } : {}) };
}

async function inspectorList(): Promise<number> {
  const r = await timed([inspector, '--cli', process.execPath, everything, 'stdio', '--method', 'tools/list']);
  if (r.code !== 0) throw new Error(`inspector failed (exit ${r.code}): ${r.stderr.slice(-500)}`);
  return r.ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// Warm the file cache once each.
await bare();
await probe();
await probe(['--no-source']);
await inspectorList();
const b: number[] = [];
const bcpu: number[] = [];
const pcpu: { own: number; targets: number }[] = [];
const dcpu: { own: number; targets: number }[] = [];
const p: number[] = [];
const rss: number[] = [];
const d: number[] = [];
const drss: number[] = [];
const i: number[] = [];
for (let k = 0; k < rounds; k++) {
  const x = await bare();
  b.push(x.ms);
  if (x.cpuMs !== undefined) bcpu.push(x.cpuMs);
  const r = await probe();
  p.push(r.ms);
  rss.push(r.rssMb);
  if (r.cpu) pcpu.push(r.cpu);
  const o = await probe(['--no-source']);
  d.push(o.ms);
  drss.push(o.rssMb);
  if (o.cpu) dcpu.push(o.cpu);
  i.push(await inspectorList());
}
const mb = median(b);
const mp = median(p);
const md = median(d);
const mi = median(i);
const cores = availableParallelism();
/** CPU medians of one path, and the shortest wall time that CPU allows: all of it (mcp-doctor's threads and the
 * targets') spread perfectly over the machine's cores; and the CPU the goal leaves mcp-doctor once its targets
 * have theirs. */
const cpuLine = (name: string, xs: { own: number; targets: number }[]) => {
  if (!xs.length) return `${name}: CPU time not readable here (no /proc)`;
  const own = median(xs.map((c) => c.own));
  const targets = median(xs.map((c) => c.targets));
  const floor = (own + targets) / cores;
  const starts = bcpu.length ? ` (${(targets / median(bcpu)).toFixed(1)}× the bare target's)` : '';
  const left = 3 * mb * cores - targets;
  return `${name}: CPU ${own} ms mcp-doctor + ${targets} ms its targets${starts}; spread perfectly over ${cores} cores, no run is shorter than ${floor.toFixed(0)} ms = ${(floor / mb).toFixed(2)}× bare; 3× bare leaves mcp-doctor ${left.toFixed(0)} ms of CPU`;
};
const mem = (xs: number[]) => `peak RSS ${median(xs).toFixed(0)} MB median, ${Math.max(...xs).toFixed(0)} MB max (goal ≤ 120)`;
process.stdout.write(
  [
    `target: server-everything (stdio), ${rounds} rounds interleaved, medians (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`,
    `bare spawn + initialize: ${mb.toFixed(0)} ms`,
    `mcp-doctor probe, default (package read too, every check, judged): ${mp.toFixed(0)} ms — ${(mp / mb).toFixed(2)}× bare (goal ≤ 3); ${mem(rss)}`,
    `mcp-doctor probe --no-source (served session only, judged): ${md.toFixed(0)} ms — ${(md / mb).toFixed(2)}× bare (goal ≤ 3); ${mem(drss)}`,
    `Inspector CLI tools/list: ${mi.toFixed(0)} ms — ${(mi / mb).toFixed(2)}× bare`,
    `where the time goes (CPU time, medians): the bare target spends ${bcpu.length ? `${median(bcpu)} ms` : 'n/a'} to its answer`,
    cpuLine('  default', pcpu),
    cpuLine('  --no-source', dcpu),
  ].join('\n') + '\n',
);
