/**
 * The `mcp-doctor fix [dir]` command (src/cli-main.ts hands it its arguments). Text output: the diff (dry run) or
 * the files written, then one line per finding with what became of it; `--format json` gives the FixResult.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { t } from '../engine/i18n.js';
import { terminalInert } from '../report/text.js';
import { FIXABLE, FixRefused, fixRepository, type FixResult } from './index.js';
import { outcomeLine, summaryOf } from './render.js';

/** A usage error or a refusal of fix: the CLI prints it with the help hint and exits 2. */
export class FixUsageError extends Error {}

const FORMATS = ['text', 'json'] as const;

export async function cmdFix(argv: string[], locale: string): Promise<number> {
  // After `--`: the command that starts the server, for S-7 (judged on the running server).
  const dash = argv.indexOf('--');
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
  const { values, positionals } = parseArgs({
    args: dash >= 0 ? argv.slice(0, dash) : argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean' },
      force: { type: 'boolean' },
      rules: { type: 'string' },
      format: { type: 'string' },
      locale: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
    },
  });
  if (positionals.length > 1) throw new FixUsageError(t(locale, 'cli.errors.fixDir'));
  const path = positionals[0] ?? '.';
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new FixUsageError(t(locale, 'cli.errors.notAFolder', { path }));
  const format = values.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) throw new FixUsageError(t(locale, 'cli.errors.format', { value: format, formats: FORMATS.join(', ') }));
  const rules = values.rules?.split(',').map((s) => s.trim()).filter(Boolean);
  let res: FixResult;
  try {
    res = await fixRepository({ dir, rules, dryRun: values['dry-run'], force: values.force, locale, ...(command?.length ? { command } : {}) });
  } catch (e) {
    if (e instanceof FixRefused) {
      const key = e.code === 'dirty-tree' ? 'cli.errors.fixDirty' : e.code === 'not-git' ? 'cli.errors.fixNotGit' : 'cli.errors.fixRules';
      throw new FixUsageError(t(locale, key, { path: terminalInert(path), ...e.data }));
    }
    throw e;
  }
  const left = res.outcomes.filter((o) => o.state !== 'fixed' && o.state !== 'planned').length;
  if (format === 'json') {
    process.stdout.write(JSON.stringify(res, null, 2) + '\n');
    return left ? 1 : 0;
  }
  const out: string[] = [];
  if (res.dryRun && res.diff) out.push(res.diff.trimEnd(), '');
  for (const o of res.outcomes) out.push(outcomeLine(o, locale));
  if (out.length) process.stdout.write(out.join('\n') + '\n');
  if (!values.quiet) {
    const say = (s: string) => process.stderr.write(s + '\n');
    if (!res.outcomes.length) say(t(locale, 'fix.nothing', { rules: (rules?.length ? rules : [...FIXABLE]).join(', ') }));
    else say(summaryOf(res, locale));
    if (res.written.length) say(t(locale, 'fix.written', { count: res.written.length, files: res.written.map((f) => terminalInert(f)).join(', ') }));
    if (res.dryRun) say(t(locale, 'fix.dryRun'));
  }
  return left ? 1 : 0;
}
