import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { scrubbedEnv } from '../src/probe/env.js';
import { probeStdio } from '../src/probe/probe.js';
import { LEGACY, CLIENT_INFO } from '../src/probe/scenario.js';
import { StdioConnection, DEFAULT_LIMITS } from '../src/probe/stdio.js';

/**
 * Benchmark: a full probe of a stdio reference server (@modelcontextprotocol/server-everything), as a
 * ratio to the bare cost, measured in the same run, of starting that server and completing one initialize.
 * Run: npm run bench:probe [-- <rounds>]
 */
const require = createRequire(import.meta.url);
const everything = join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js');
const target = { command: process.execPath, args: [everything, 'stdio'], env: scrubbedEnv() };
const rounds = Number(process.argv[2] ?? 5);

async function bare(): Promise<number> {
  const t0 = performance.now();
  const c = new StdioConnection('legacy', target, DEFAULT_LIMITS);
  c.start();
  const a = await c.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO });
  if (a.kind !== 'response') throw new Error(`initialize got ${a.kind}`);
  const t = performance.now() - t0;
  await c.close();
  return t;
}

async function full(): Promise<number> {
  const t0 = performance.now();
  await probeStdio({ target, limits: { requestTimeoutMs: 5000 } });
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
await bare(); // warm the file cache
const b: number[] = [];
const f: number[] = [];
for (let i = 0; i < rounds; i++) {
  b.push(await bare());
  f.push(await full());
}
const mb = median(b);
const mf = median(f);
process.stdout.write(
  [
    `target: server-everything (stdio), ${rounds} rounds, medians`,
    `baseline (spawn + one initialize): ${mb.toFixed(0)} ms`,
    `full probe (3 connections, both eras, lists, error probes): ${mf.toFixed(0)} ms`,
    `ratio full/baseline: ${(mf / mb).toFixed(2)}`,
  ].join('\n') + '\n',
);
