#!/usr/bin/env node
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { audit, failing, FAIL_ON, listRules, RootUnreadable, ruleMarkdown, UnknownRuleError, type FailOn, type Report } from './engine/api.js';
import { ConfigError, configErrorText } from './engine/config.js';
import { defaultLocale, isLocale, locales, t } from './engine/i18n.js';
import { log } from './engine/log.js';
import { ownPackage } from './engine/paths.js';
import { formatUntrusted, quoteInert, summarize, terminalInert } from './report/text.js';
import { parseEnvPairs } from './probe/env.js';
import { ProbeInputError, ProbeUnreachable, unreachableText } from './probe/outcome.js';
import { EXERCISES, type Exercise } from './probe/exercises.js';
import type { RecordedSession } from './probe/session.js';

/**
 * The CLI face. Exit codes: 0 no red finding at or above --fail-on; 1 red findings; 2 usage error;
 * 3 the audit could not run.
 */
export const EXIT = { ok: 0, findings: 1, usage: 2, failed: 3 } as const;

class UsageError extends Error {}

const FORMATS = ['json', 'markdown', 'sarif'] as const;
type Format = (typeof FORMATS)[number];

function pickLocale(v: string | undefined): string {
  if (v === undefined) return defaultLocale();
  if (!isLocale(v)) throw new UsageError(t(defaultLocale(), 'cli.errors.locale', { value: v, locales: locales().join(', ') }));
  return v;
}

function pickFormat(v: string | undefined, locale: string, allowed: readonly string[] = FORMATS): Format {
  const f = v ?? 'markdown';
  if (!allowed.includes(f)) throw new UsageError(t(locale, 'cli.errors.format', { value: f, formats: allowed.join(', ') }));
  return f as Format;
}

function emit(text: string, output: string | undefined): void {
  if (output) writeFileSync(output, text);
  else process.stdout.write(text);
}

/** Options every reporting command takes (audit, probe). */
const REPORT_OPTIONS = {
  format: { type: 'string' },
  locale: { type: 'string' },
  rules: { type: 'string' },
  'fail-on': { type: 'string' },
  output: { type: 'string', short: 'o' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

function reportSettings(values: { format?: string; locale?: string; 'fail-on'?: string }): { locale: string; format: Format; failOn: FailOn } {
  const locale = pickLocale(values.locale);
  const format = pickFormat(values.format, locale);
  const failOn = (values['fail-on'] ?? 'note') as FailOn;
  if (!FAIL_ON.includes(failOn)) throw new UsageError(t(locale, 'cli.errors.failOn', { value: failOn, values: FAIL_ON.join(', ') }));
  return { locale, format, failOn };
}

/** Render the report, say the summary on stderr, and turn red results into the exit code. */
async function finish(report: Report, s: { locale: string; format: Format; failOn: FailOn }, values: { output?: string; quiet?: boolean }): Promise<number> {
  // Each renderer is loaded when asked for (the SARIF builder only for --format sarif).
  const render = {
    json: async () => (await import('./report/json.js')).renderJson,
    markdown: async () => (await import('./report/markdown.js')).renderMarkdown,
    sarif: async () => (await import('./report/sarif.js')).renderSarif,
  }[s.format];
  emit((await render())(report, s.locale), values.output);
  const red = failing(report.results, s.failOn);
  if (!values.quiet) process.stderr.write(t(s.locale, 'cli.summary', { ...summarize(report.results), failing: red.length }) + '\n');
  return red.length ? EXIT.findings : EXIT.ok;
}

async function cmdAudit(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...REPORT_OPTIONS, config: { type: 'string' }, verbose: { type: 'boolean' } },
  });
  const settings = reportSettings(values);
  const { locale } = settings;
  if (positionals.length !== 1) throw new UsageError(t(locale, 'cli.errors.auditDir'));
  const dir = resolve(positionals[0]!);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(t(locale, 'cli.errors.notAFolder', { path: positionals[0]! }));
  const rules = values.rules?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const tty = process.stderr.isTTY && !values.quiet;
  const report = await audit({
    target: { path: dir },
    rules,
    configPath: values.config ? resolve(values.config) : undefined,
    verbose: values.verbose,
    onProgress: tty ? ({ done, total, ruleId }) => process.stderr.write(`\r${t(locale, 'cli.progress', { done, total, ruleId })}   `) : undefined,
  });
  if (tty) process.stderr.write('\r\x1b[2K');
  if (report.target.path) report.target.path = positionals[0]!;
  return finish(report, settings, values);
}

function cmdExplain(argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { locale: { type: 'string' } } });
  const locale = pickLocale(values.locale);
  if (positionals.length !== 1) throw new UsageError(t(locale, 'cli.errors.explainId'));
  const text = ruleMarkdown(positionals[0]!.toUpperCase(), locale);
  if (!text) throw new UsageError(t(locale, 'cli.errors.unknownRule', { id: positionals[0]! }));
  process.stdout.write(text);
  return EXIT.ok;
}

function cmdRules(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { locale: { type: 'string' }, format: { type: 'string' } } });
  const locale = pickLocale(values.locale);
  const format = pickFormat(values.format, locale, ['json', 'markdown']);
  const rules = listRules(locale, locales());
  if (format === 'json') {
    process.stdout.write(JSON.stringify({ tool: ownPackage(), locales: locales(), rules }, null, 2) + '\n');
    return EXIT.ok;
  }
  const lines = [`| ${t(locale, 'cli.rulesTable.id')} | ${t(locale, 'cli.rulesTable.title')} | ${t(locale, 'cli.rulesTable.genres')} | ${t(locale, 'cli.rulesTable.detectors')} |`, '|---|---|---|---|'];
  for (const r of rules) {
    const det = r.detectors.length ? r.detectors.map((g) => t(locale, `genres.${g}`)).join(' + ') : t(locale, 'cli.rulesTable.none');
    lines.push(`| ${r.id} | ${r.title} | ${r.genres.map((g) => t(locale, `genres.${g}`)).join(' + ')} | ${det} |`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

async function cmdServe(): Promise<number> {
  // probe_endpoint starts targets: the server's own SIGTERM/SIGINT handler ends with process.exit, and every
  // run in flight is swept at exit (src/probe/contain.ts).
  const { serve } = await import('./server/stdio.js');
  await serve();
  return -1; // keep running
}

/** `--exercise` values, repeated or comma-separated: the opt-ins beyond the default requests. */
function parseExercise(values: string[] | undefined, locale: string): Exercise[] | undefined {
  if (!values?.length) return undefined;
  const out = new Set<Exercise>();
  for (const v of values.flatMap((x) => x.split(',')).map((x) => x.trim())) {
    if (!(EXERCISES as readonly string[]).includes(v)) throw new UsageError(t(locale, 'cli.errors.exercise', { value: v, values: EXERCISES.join(', ') }));
    out.add(v as Exercise);
  }
  return [...out].sort();
}

async function cmdProbe(argv: string[], mode: 'probe' | 'pin' = 'probe'): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      ...REPORT_OPTIONS,
      cwd: { type: 'string' },
      source: { type: 'string' },
      env: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      'allow-private': { type: 'boolean' },
      exercise: { type: 'string', multiple: true },
      'save-session': { type: 'string' },
      'from-session': { type: 'string' },
    },
  });
  const settings = reportSettings(values);
  const { locale } = settings;
  if (positionals.length) throw new UsageError(t(locale, 'cli.errors.probeDash'));
  const sources = [command?.length ? 1 : 0, values.url ? 1 : 0, values['from-session'] ? 1 : 0].reduce((a, b) => a + b, 0);
  if (sources !== 1) throw new UsageError(t(locale, 'cli.errors.probeTarget'));
  const timeoutMs = values['timeout-ms'] !== undefined ? Number(values['timeout-ms']) : undefined;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1000)) throw new UsageError(t(locale, 'cli.errors.timeout'));
  let env: Record<string, string>;
  try {
    env = parseEnvPairs(values.env ?? []);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const exercise = parseExercise(values.exercise, locale);
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(t(locale, 'cli.errors.header', { value: h }));
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  const tty = process.stderr.isTTY && !values.quiet;
  // Ctrl-C or SIGTERM mid-probe: every process of the target is killed before mcp-doctor exits (130, 143).
  // The probe, the containment and the analyser load here, not when the CLI starts (`rules`, `explain`, `serve`).
  const { installSignalCleanup } = await import('./probe/contain.js');
  const { neverAnswered, probeAndJudge, recordSession } = await import('./probe/run.js');
  installSignalCleanup();
  const unreachable = (e: ProbeUnreachable) => {
    if (tty) process.stderr.write('\r\x1b[2K');
    process.stderr.write(`mcp-doctor: ${unreachableText(e.data, locale, (s) => terminalInert(s))}\n`);
    return EXIT.failed;
  };
  if (mode === 'pin') {
    let session: RecordedSession;
    try {
      session = await recordSession({ command, url: values.url, headers, allowPrivate: values['allow-private'], cwd: values.cwd, env, timeoutMs, fromSession: values['from-session'] });
      const silent = neverAnswered(session);
      if (silent) throw new ProbeUnreachable(silent);
    } catch (e) {
      if (e instanceof ProbeInputError) throw new UsageError(formatUntrusted(locale, `cli.errors.${e.code}`, e.data, quoteInert));
      if (e instanceof ProbeUnreachable) return unreachable(e);
      throw e;
    }
    const { buildLock, LOCK_FILE } = await import('./probe/lock.js');
    const lock = buildLock(session);
    if (!lock) {
      process.stderr.write(`mcp-doctor: ${t(locale, 'cli.errors.pinNoAnswer')}\n`);
      return EXIT.failed;
    }
    const file = values.output ?? resolve(values.cwd ?? '.', LOCK_FILE);
    writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
    if (!values.quiet) process.stderr.write(t(locale, 'cli.pinned', { count: lock.items.length, file }) + '\n');
    return EXIT.ok;
  }
  let result;
  try {
    result = await probeAndJudge({
      command,
      url: values.url,
      headers,
      exercise,
      allowPrivate: values['allow-private'],
      cwd: values.cwd,
      source: values.source,
      env,
      timeoutMs,
      saveSession: values['save-session'],
      fromSession: values['from-session'],
      rules: values.rules?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
      // A step names served tools: their control characters are escaped before they reach the terminal.
      onStep: values.quiet ? undefined : (step) => process.stderr.write(tty ? `\r\x1b[2K${t(locale, 'cli.probeStep', { step: terminalInert(step) })}` : `${t(locale, 'cli.probeStep', { step: terminalInert(step) })}\n`),
    });
  } catch (e) {
    if (e instanceof ProbeUnreachable) return unreachable(e);
    if (e instanceof ProbeInputError) {
      const msg = formatUntrusted(locale, `cli.errors.${e.code}`, e.data, quoteInert);
      throw new UsageError(msg);
    }
    throw e;
  }
  if (tty) process.stderr.write('\r\x1b[2K');
  return finish(result.report, settings, values);
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const locale = defaultLocale();
  try {
    switch (cmd) {
      case 'audit':
        return await cmdAudit(rest);
      case 'probe':
        return await cmdProbe(rest);
      case 'pin':
        return await cmdProbe(rest, 'pin');
      case 'explain':
        return cmdExplain(rest);
      case 'rules':
        return cmdRules(rest);
      case 'serve':
        return await cmdServe();
      case '--version':
      case '-v':
        process.stdout.write(ownPackage().version + '\n');
        return EXIT.ok;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(t(locale, 'cli.usage', { version: ownPackage().version }) + '\n');
        return cmd === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(t(locale, 'cli.errors.command', { command: cmd }));
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`mcp-doctor: ${(e as Error).message}\n${t(locale, 'cli.seeHelp')}\n`);
      return EXIT.usage;
    }
    if (e instanceof UnknownRuleError) {
      process.stderr.write(`mcp-doctor: ${t(locale, 'cli.errors.unknownRule', { id: e.ids.join(', ') })}\n`);
      return EXIT.usage;
    }
    if (e instanceof ConfigError) {
      process.stderr.write(`mcp-doctor: ${configErrorText(e, locale)}\n`);
      return EXIT.usage;
    }
    if (e instanceof RootUnreadable) {
      process.stderr.write(`mcp-doctor: ${t(locale, 'cli.errors.rootUnreadable', { path: e.path })}\n`);
      return EXIT.failed;
    }
    log.error({ err: e }, 'audit failed');
    process.stderr.write(`mcp-doctor: ${t(locale, 'cli.errors.failed', { error: terminalInert(String((e as Error)?.message ?? e)) })}\n`);
    return EXIT.failed;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
