import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { t } from '../engine/i18n.js';
import { terminalInert } from '../report/text.js';
import { parseList } from './list.js';
import { mergeOutputs, scoreboardHtml } from './merge.js';
import { runBatch } from './run.js';
import { parseShard } from './shard.js';

/** A usage error of batch or merge: the CLI prints it with the help hint and exits 2. */
export class BatchUsageError extends Error {}

const MAX_LIST_BYTES = 32 * 1024 * 1024;

export async function cmdBatch(argv: string[], locale: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      registry: { type: 'string' },
      concurrency: { type: 'string' },
      'timeout-ms': { type: 'string' },
      shard: { type: 'string' },
      locale: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
    },
  });
  const file = positionals[0];
  if (positionals.length !== 1 || !file || !existsSync(file) || !statSync(file).isFile() || statSync(file).size > MAX_LIST_BYTES) throw new BatchUsageError(t(locale, 'cli.errors.batchList', { path: file ?? '' }));
  if (!values.output) throw new BatchUsageError(t(locale, 'cli.errors.batchOutput'));
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : 2;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) throw new BatchUsageError(t(locale, 'cli.errors.batchConcurrency', { value: values.concurrency ?? '' }));
  const timeoutMs = values['timeout-ms'] !== undefined ? Number(values['timeout-ms']) : undefined;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1000)) throw new BatchUsageError(t(locale, 'cli.errors.timeout'));
  const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
  if (values.shard !== undefined && !shard) throw new BatchUsageError(t(locale, 'cli.errors.batchShard', { value: values.shard }));
  let list;
  try {
    list = parseList(readFileSync(file, 'utf8'));
  } catch {
    throw new BatchUsageError(t(locale, 'cli.errors.batchListInvalid', { path: file }));
  }
  const say = (s: string) => {
    if (!values.quiet) process.stderr.write(s + '\n');
  };
  if (list.skipped.length) say(t(locale, 'batch.skippedList', { count: list.skipped.length }));
  (await import('../probe/contain.js')).installSignalCleanup();
  const { loopbackOnly } = await import('./run.js');
  say(t(locale, (await loopbackOnly()) ? 'batch.network.loopback-only' : 'batch.network.host'));
  const summary = await runBatch(list.entries, {
    out: resolve(values.output),
    registry: values.registry,
    concurrency,
    timeoutMs,
    shard,
    locale,
    onEvent: (e) => {
      const server = terminalInert(`${e.name}@${e.version}`);
      say(t(locale, `batch.progress.${e.kind}`, { done: e.done, total: e.total, server, status: e.status ? t(locale, `batch.status.${e.status}`) : '' }));
    },
  });
  say(t(locale, 'batch.summary', { ...summary }));
  return summary.failed ? 1 : 0;
}

export function cmdMerge(argv: string[], locale: string): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' }, locale: { type: 'string' }, quiet: { type: 'boolean', short: 'q' } },
  });
  if (!positionals.length) throw new BatchUsageError(t(locale, 'cli.errors.mergeInputs'));
  for (const p of positionals) if (!existsSync(p) || !statSync(p).isDirectory()) throw new BatchUsageError(t(locale, 'cli.errors.notAFolder', { path: p }));
  if (!values.output) throw new BatchUsageError(t(locale, 'cli.errors.batchOutput'));
  const merged = mergeOutputs(positionals.map((p) => resolve(p)));
  const out = resolve(values.output);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.json'), JSON.stringify({ format: merged.format, results: merged.results }, null, 2) + '\n');
  writeFileSync(join(out, 'scoreboard.json'), JSON.stringify({ format: merged.format, scoreboard: merged.scoreboard }, null, 2) + '\n');
  writeFileSync(join(out, 'scoreboard.html'), scoreboardHtml(merged.scoreboard, locale));
  if (!values.quiet) process.stderr.write(t(locale, 'batch.merged', { count: merged.results.length, dir: terminalInert(values.output) }) + '\n');
  return 0;
}
