import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import which from 'which';
import { failing } from '../run/api.js';
import { log } from '../engine/log.js';
import type { Report } from '../run/api.js';
import { toJson } from '../report/json.js';
import type { BatchEntry } from './list.js';
import { shardOf } from './shard.js';

/**
 * `mcp-doctor batch`: each npm package of a list installed with its scripts off into its own folder, then
 * probed and judged by the probe's own path (probeAndJudge: scrubbed environment, contained process tree,
 * bounded output), at most `concurrency` at once, each within a deadline. The target runs in a fresh network
 * namespace (`unshare -rn`: only a loopback, no route out) where the machine allows it; otherwise on the
 * host's network, and each result says which. One result file per package and version in `<out>/results`: a
 * package already judged at that version is skipped, so a cut run resumes where it stopped.
 */

export const RESULT_FORMAT = 'mcp-doctor-batch-result/1';

export type BatchStatus = 'judged' | 'install-failed' | 'no-bin' | 'unreachable' | 'timeout' | 'error';
export type Network = 'loopback-only' | 'host';

export interface BatchResult {
  format: typeof RESULT_FORMAT;
  name: string;
  /** The version asked for in the list. */
  requested: string;
  /** The version installed and judged (when the install got that far). */
  version?: string;
  status: BatchStatus;
  /** A short word on why the server was not judged (npm's exit, the probe's cause). */
  cause?: string;
  network: Network;
  ms: number;
  /** The report, as `--format json` gives it. */
  report?: ReturnType<typeof toJson>;
  red?: number;
}

export interface BatchOptions {
  out: string;
  registry?: string;
  concurrency?: number;
  timeoutMs?: number;
  shard?: { index: number; count: number };
  locale: string;
  onEvent?: (e: { kind: 'skip' | 'start' | 'done'; name: string; version: string; status?: BatchStatus; done: number; total: number }) => void;
}

/** A file name for a package at a version: scope slash and odd characters replaced, stable. */
export const resultFile = (name: string, version: string): string => `${`${name}@${version}`.replace(/[^A-Za-z0-9._@-]/g, '_')}.json`;

let netns: Promise<boolean> | undefined;
/** Whether `unshare -rn` works here (a user and network namespace without privileges). */
export function loopbackOnly(): Promise<boolean> {
  netns ??= (async () => {
    if (process.platform !== 'linux' || process.env.MCP_DOCTOR_BATCH_NETWORK === 'host') return false;
    const unshare = which.sync('unshare', { nothrow: true });
    if (!unshare) return false;
    const sub = execa(unshare, ['-rn', '--', process.execPath, '-e', '0'], { reject: false, timeout: 10_000, extendEnv: false, env: { PATH: process.env.PATH ?? '' }, stdin: 'ignore' });
    log.debug({ command: unshare, args: ['-rn', '--', process.execPath, '-e', '0'], pid: sub.pid }, 'batch: checking for a loopback-only namespace');
    const r = await sub;
    return r.exitCode === 0;
  })();
  return netns;
}

/** The program of an installed package: its bin named like the package, else its only or first bin. */
function binOf(pkgDir: string, name: string): string | undefined {
  let manifest: { bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return undefined;
  }
  const bin = manifest.bin;
  if (typeof bin === 'string') return join(pkgDir, bin);
  if (bin && typeof bin === 'object') {
    const names = Object.keys(bin).sort();
    const pick = bin[basename(name)] ?? (names.length ? bin[names[0]!] : undefined);
    return pick ? join(pkgDir, pick) : undefined;
  }
  return undefined;
}

/** The results already in the output folder, by file name. */
export function readResults(dir: string): BatchResult[] {
  if (!existsSync(dir)) return [];
  const out: BatchResult[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    try {
      const v = JSON.parse(readFileSync(join(dir, f), 'utf8')) as BatchResult;
      if (v?.format === RESULT_FORMAT && typeof v.name === 'string') out.push(v);
    } catch {
      // a file cut mid-write is judged again
    }
  }
  return out;
}

async function one(e: BatchEntry, opts: BatchOptions, network: Network): Promise<BatchResult> {
  const started = Date.now();
  const deadline = opts.timeoutMs ?? 120_000;
  const base = { format: RESULT_FORMAT, name: e.name, requested: e.version, network } as const;
  const done = (r: Partial<BatchResult> & { status: BatchStatus }): BatchResult => ({ ...base, ...r, ms: Date.now() - started });
  const work = join(opts.out, 'work', resultFile(e.name, e.version).replace(/\.json$/, ''));
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const cancel = AbortSignal.timeout(deadline);
  try {
    const npm = which.sync('npm', { nothrow: true });
    if (!npm) return done({ status: 'install-failed', cause: 'npm-missing' });
    const args = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--prefix', work, `${e.name}@${e.version}`];
    if (opts.registry) args.push('--registry', opts.registry);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work };
    if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
    const sub = execa(npm, args, { reject: false, cancelSignal: cancel, forceKillAfterDelay: 2000, extendEnv: false, env, stdin: 'ignore', cwd: work, maxBuffer: 1_000_000 });
    log.debug({ command: npm, args, pid: sub.pid }, 'batch: npm install');
    const r = await sub;
    if (cancel.aborted) return done({ status: 'timeout', cause: 'install' });
    if (r.exitCode !== 0) return done({ status: 'install-failed', cause: `npm-exit-${r.exitCode ?? 'signal'}` });
    const pkgDir = join(work, 'node_modules', ...e.name.split('/'));
    let version: string | undefined;
    try {
      version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version?: string }).version;
    } catch {
      return done({ status: 'install-failed', cause: 'no-package' });
    }
    const bin = binOf(pkgDir, e.name);
    if (!bin || !existsSync(bin)) return done({ status: 'no-bin', version });
    const unshare = network === 'loopback-only' ? which.sync('unshare', { nothrow: true }) : null;
    const command = unshare ? [unshare, '-rn', '--', process.execPath, bin] : [process.execPath, bin];
    const left = deadline - (Date.now() - started);
    if (left < 1000) return done({ status: 'timeout', cause: 'install', version });
    const { probeAndJudge, ProbeUnreachable } = await import('../run/probe.js');
    let report: Report;
    try {
      ({ report } = await probeAndJudge({ command, cwd: pkgDir, source: pkgDir, env: {}, timeoutMs: left, signal: cancel, apps: { browser: false } }));
    } catch (err) {
      if (err instanceof ProbeUnreachable) return done({ status: cancel.aborted ? 'timeout' : 'unreachable', cause: err.data.cause, version });
      throw err;
    }
    if (cancel.aborted) return done({ status: 'timeout', cause: 'probe', version });
    report.target = { ...report.target, command: [e.name + '@' + (version ?? e.version)], path: undefined };
    return done({ status: 'judged', version, report: toJson(report, opts.locale), red: failing(report.results).length });
  } catch (err) {
    return done({ status: cancel.aborted ? 'timeout' : 'error', cause: (err as Error)?.name ?? 'error' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface BatchSummary {
  network: Network;
  total: number;
  skipped: number;
  judged: number;
  failed: number;
}

export async function runBatch(entries: readonly BatchEntry[], opts: BatchOptions): Promise<BatchSummary> {
  const resultsDir = join(opts.out, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const mine = opts.shard ? entries.filter((e) => shardOf(e.name, opts.shard!.count) === opts.shard!.index) : [...entries];
  const have = new Set(readResults(resultsDir).map((r) => resultFile(r.name, r.requested)));
  const network: Network = (await loopbackOnly()) ? 'loopback-only' : 'host';
  const todo = mine.filter((e) => !have.has(resultFile(e.name, e.version)));
  const summary: BatchSummary = { network, total: mine.length, skipped: mine.length - todo.length, judged: 0, failed: 0 };
  let count = summary.skipped;
  for (const e of mine) if (have.has(resultFile(e.name, e.version))) opts.onEvent?.({ kind: 'skip', name: e.name, version: e.version, done: count, total: mine.length });
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const e = todo[next++]!;
      opts.onEvent?.({ kind: 'start', name: e.name, version: e.version, done: count, total: mine.length });
      const r = await one(e, opts, network);
      // Written whole, then renamed: a run cut mid-write leaves no half result that would be skipped.
      const file = join(resultsDir, resultFile(e.name, e.version));
      writeFileSync(file + '.tmp', JSON.stringify(r) + '\n');
      const { renameSync } = await import('node:fs');
      renameSync(file + '.tmp', file);
      if (r.status === 'judged') summary.judged++;
      else summary.failed++;
      count++;
      opts.onEvent?.({ kind: 'done', name: e.name, version: e.version, status: r.status, done: count, total: mine.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 2, todo.length)) }, worker));
  return summary;
}
