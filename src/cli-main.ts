import { existsSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { audit, explainRule, failing, FAIL_ON, listRules, RootUnreadable, ruleMarkdown, UnknownRuleError, type FailOn, type Report } from './run/api.js';
// The config schema, the package reader and the client-config parsers load with the command that needs them:
// `serve`, `rules` and `explain` start without them.
import { ConfigError, configErrorText } from './engine/errors.js';
import { defaultLocale, isLocale, locales, t } from './engine/i18n.js';
import { LAUNCHER_PID } from './engine/launcher.js';
import { log } from './engine/log.js';
import { ownPackage } from './engine/paths.js';
import { formatUntrusted, quoteInert, summarize, terminalInert } from './report/text.js';
import { parseEnvPairs } from './probe/env.js';
import { ProbeInputError, ProbeUnreachable, unreachableText } from './probe/outcome.js';
import { EXERCISES, type Exercise } from './probe/exercises.js';
import type { RecordedSession } from './probe/session.js';
import { SET_LOCK_FILE } from './facts/lock.js';
import { CLIENTS, type ClientId } from './facts/clients.js';
import { PROFILES, type Profile } from './engine/types.js';

/**
 * The CLI face. Exit codes: 0 no red finding at or above --fail-on; 1 red findings; 2 usage error;
 * 3 the audit could not run.
 */
export const EXIT = { ok: 0, findings: 1, usage: 2, failed: 3 } as const;

class UsageError extends Error {}

const FORMATS = ['json', 'markdown', 'sarif', 'html'] as const;
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
  profile: { type: 'string' },
  locale: { type: 'string' },
  rules: { type: 'string' },
  'fail-on': { type: 'string' },
  output: { type: 'string', short: 'o' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

function reportSettings(values: { format?: string; locale?: string; 'fail-on'?: string; profile?: string }): { locale: string; format: Format; failOn: FailOn; profile: Profile } {
  const locale = pickLocale(values.locale);
  const format = pickFormat(values.format, locale);
  const failOn = (values['fail-on'] ?? 'note') as FailOn;
  if (!FAIL_ON.includes(failOn)) throw new UsageError(t(locale, 'cli.errors.failOn', { value: failOn, values: FAIL_ON.join(', ') }));
  const profile = (values.profile ?? 'standard') as Profile;
  if (!PROFILES.includes(profile)) throw new UsageError(t(locale, 'cli.errors.profile', { value: profile, values: PROFILES.join(', ') }));
  return { locale, format, failOn, profile };
}

/** Render the report, say the summary on stderr, and turn red results into the exit code. */
async function finish(report: Report, s: { locale: string; format: Format; failOn: FailOn }, values: { output?: string; quiet?: boolean }): Promise<number> {
  // Each renderer is loaded when asked for (the SARIF builder only for --format sarif).
  const render = {
    json: async () => (await import('./report/json.js')).renderJson,
    markdown: async () => (await import('./report/markdown.js')).renderMarkdown,
    sarif: async () => (await import('./report/sarif.js')).renderSarif,
    html: async () => (await import('./report/html.js')).renderHtml,
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
    profile: settings.profile,
    onProgress: tty ? ({ done, total, ruleId }) => process.stderr.write(`\r${t(locale, 'cli.progress', { done, total, ruleId })}   `) : undefined,
  });
  if (tty) process.stderr.write('\r\x1b[2K');
  if (report.target.path) report.target.path = positionals[0]!;
  return finish(report, settings, values);
}

/**
 * `gate [DIR]`: the gate genre on a release candidate (the folder, default the current one). Gathers the
 * packed artefact (npm pack, or --tarball), git at HEAD, the CI context, the registry metadata (a saved file,
 * or the registry unless --offline) and, when the policy names one, the component catalogue (a command only
 * with --allow-catalog-command); then judges every rule (static and gate parts; dynamic parts that need a
 * running server stay could-not-judge).
 */
async function cmdGate(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...REPORT_OPTIONS,
      config: { type: 'string' },
      verbose: { type: 'boolean' },
      tarball: { type: 'string' },
      'registry-metadata': { type: 'string' },
      attestations: { type: 'string' },
      ci: { type: 'string' },
      offline: { type: 'boolean' },
      'allow-catalog-command': { type: 'boolean' },
      'allow-private': { type: 'boolean' },
    },
  });
  const settings = reportSettings(values);
  const { locale } = settings;
  if (positionals.length > 1) throw new UsageError(t(locale, 'cli.errors.gateDir'));
  const given = positionals[0] ?? '.';
  const dir = resolve(given);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(t(locale, 'cli.errors.notAFolder', { path: given }));
  if (values.ci !== undefined && values.ci !== 'github') throw new UsageError(t(locale, 'cli.errors.ci', { value: values.ci, values: 'github' }));
  if (values.tarball && !(existsSync(values.tarball) && statSync(values.tarball).isFile())) throw new UsageError(t(locale, 'cli.errors.fileMissing', { path: values.tarball }));
  const { gateAndJudge } = await import('./run/gate.js');
  const report = await gateAndJudge({
    root: dir,
    configPath: values.config ? resolve(values.config) : undefined,
    tarball: values.tarball ? resolve(values.tarball) : undefined,
    registryMetadata: values['registry-metadata'] ? resolve(values['registry-metadata']) : undefined,
    attestations: values.attestations ? resolve(values.attestations) : undefined,
    ci: values.ci === 'github' ? 'github' : undefined,
    offline: values.offline,
    allowCatalogCommand: values['allow-catalog-command'],
    allowPrivate: values['allow-private'],
    rules: values.rules?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
    verbose: values.verbose,
  });
  report.target.path = given;
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
  const lines = [
    `| ${t(locale, 'cli.rulesTable.id')} | ${t(locale, 'cli.rulesTable.category')} | ${t(locale, 'cli.rulesTable.title')} | ${t(locale, 'cli.rulesTable.genres')} | ${t(locale, 'cli.rulesTable.detectors')} |`,
    '|---|---|---|---|---|',
  ];
  for (const r of rules) {
    const det = r.detectors.length ? r.detectors.map((g) => t(locale, `genres.${g}`)).join(' + ') : t(locale, 'cli.rulesTable.none');
    lines.push(`| ${r.id} | ${t(locale, `categories.${r.category}`)} | ${r.title} | ${r.genres.map((g) => t(locale, `genres.${g}`)).join(' + ')} | ${det} |`);
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
      'no-source': { type: 'boolean' },
      env: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      'allow-private': { type: 'boolean' },
      exercise: { type: 'string', multiple: true },
      'no-browser': { type: 'boolean' },
      artifacts: { type: 'string' },
      'save-session': { type: 'string' },
      'from-session': { type: 'string' },
    },
  });
  const settings = reportSettings(values);
  const { locale } = settings;
  if (positionals.length) throw new UsageError(t(locale, 'cli.errors.probeDash'));
  const sources = [command?.length ? 1 : 0, values.url ? 1 : 0, values['from-session'] ? 1 : 0].reduce((a, b) => a + b, 0);
  if (sources !== 1) throw new UsageError(t(locale, 'cli.errors.probeTarget'));
  if (values.source !== undefined && values['no-source']) throw new UsageError(t(locale, 'cli.errors.sourceAndNoSource'));
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
  const { neverAnswered, probeAndJudge, recordSession } = await import('./run/probe.js');
  installSignalCleanup();
  const unreachable = (e: ProbeUnreachable) => {
    if (tty) process.stderr.write('\r\x1b[2K');
    // The command, the exit data and the stderr tail come from the target: escaped for the terminal.
    process.stderr.write(`mcp-doctor: ${unreachableText(e.data, locale, (v) => terminalInert(v))}\n`);
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
    const { buildLock, LOCK_FILE } = await import('./facts/lock.js');
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
      // MCP Apps: --no-browser skips the host harness; --artifacts DIR keeps a PNG of each rendered View.
      apps: { browser: !values['no-browser'], ...(values.artifacts ? { artifactsDir: resolve(values.artifacts) } : {}) },
      cwd: values.cwd,
      source: values.source,
      noSource: values['no-source'],
      env,
      timeoutMs,
      saveSession: values['save-session'],
      fromSession: values['from-session'],
      rules: values.rules?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
      profile: settings.profile,
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

/** `--client` values, comma-separated or repeated. */
function parseClients(values: string[] | undefined, locale: string): ClientId[] | undefined {
  if (!values?.length) return undefined;
  const out = new Set<ClientId>();
  for (const v of values.flatMap((x) => x.split(',')).map((x) => x.trim().toLowerCase()).filter(Boolean)) {
    if (!(CLIENTS as readonly string[]).includes(v)) throw new UsageError(t(locale, 'cli.errors.scanClient', { value: v, values: CLIENTS.join(', ') }));
    out.add(v as ClientId);
  }
  return [...out];
}

/**
 * `mcp-doctor scan`: the MCP servers configured for a project and a user, judged from their configuration
 * files; with --probe, every one is started (as `probe` does) and the set is judged across servers (X-2, X-8)
 * and against the set lock (X-3). `pin --scan` writes that lock.
 */
async function cmdScan(argv: string[], mode: 'scan' | 'pin' = 'scan'): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...REPORT_OPTIONS,
      project: { type: 'string' },
      home: { type: 'string' },
      client: { type: 'string', multiple: true },
      probe: { type: 'boolean' },
      lock: { type: 'string' },
      'allow-private': { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      concurrency: { type: 'string' },
    },
  });
  const settings = reportSettings(values);
  const { locale } = settings;
  if (positionals.length) throw new UsageError(t(locale, 'cli.errors.command', { command: positionals[0]! }));
  const project = resolve(values.project ?? '.');
  if (!existsSync(project) || !statSync(project).isDirectory()) throw new UsageError(t(locale, 'cli.errors.notAFolder', { path: values.project ?? '.' }));
  if (values.home !== undefined && (!existsSync(values.home) || !statSync(values.home).isDirectory())) throw new UsageError(t(locale, 'cli.errors.notAFolder', { path: values.home }));
  const timeoutMs = values['timeout-ms'] !== undefined ? Number(values['timeout-ms']) : undefined;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1000)) throw new UsageError(t(locale, 'cli.errors.timeout'));
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) throw new UsageError(t(locale, 'cli.errors.command', { command: `--concurrency ${values.concurrency}` }));
  const clients = parseClients(values.client, locale);
  const lockFile = values.lock ? resolve(values.lock) : resolve(project, SET_LOCK_FILE);
  const onServer = values.quiet ? undefined : (label: string) => process.stderr.write(`${t(locale, 'cli.scanProbing', { server: terminalInert(label) })}\n`);
  if (mode === 'pin' || values.probe) (await import('./probe/contain.js')).installSignalCleanup();
  if (mode === 'pin') {
    const { probeSet, setLockOf } = await import('./run/probe-set.js');
    const { discover } = await import('./facts/client-configs.js');
    const discovery = discover({ project, home: values.home, clients });
    const probed = await probeSet(discovery.servers, { project, concurrency, timeoutMs, allowPrivate: values['allow-private'], onServer });
    const lock = setLockOf(probed);
    if (!lock.servers.length) {
      process.stderr.write(`mcp-doctor: ${t(locale, 'cli.errors.scanNothing')}\n`);
      return EXIT.failed;
    }
    const file = values.output ? resolve(values.output) : lockFile;
    writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
    if (!values.quiet) process.stderr.write(t(locale, 'cli.pinnedSet', { count: lock.servers.length, file }) + '\n');
    return EXIT.ok;
  }
  const { scanAndJudge, SetLockInvalid } = await import('./run/scan.js');
  const rules = values.rules?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  try {
    const report = await scanAndJudge({
      project,
      home: values.home,
      clients,
      rules,
      ...(values.probe ? { probe: { lockFile, concurrency, timeoutMs, allowPrivate: values['allow-private'], onServer } } : {}),
    });
    return finish(report!, settings, values);
  } catch (e) {
    if (e instanceof SetLockInvalid) throw new UsageError(t(locale, 'cli.errors.lockInvalid', { file: e.file }));
    throw e;
  }
}

/** `batch` and `merge` (src/batch/): registry-scale audits, loaded only for these commands. */
async function cmdBatchOrMerge(cmd: 'batch' | 'merge', argv: string[]): Promise<number> {
  const i = argv.findIndex((a) => a === '--locale' || a.startsWith('--locale='));
  const locale = pickLocale(i < 0 ? undefined : argv[i]!.includes('=') ? argv[i]!.slice('--locale='.length) : argv[i + 1]);
  const { BatchUsageError, cmdBatch, cmdMerge } = await import('./batch/cli.js');
  try {
    return cmd === 'batch' ? await cmdBatch(argv, locale) : cmdMerge(argv, locale);
  } catch (e) {
    if (e instanceof BatchUsageError) throw new UsageError(e.message);
    throw e;
  }
}

/** `fix` (src/fix/): the mechanical repairs, loaded only for this command. */
async function cmdFixDir(argv: string[]): Promise<number> {
  const i = argv.findIndex((a) => a === '--locale' || a.startsWith('--locale='));
  const locale = pickLocale(i < 0 ? undefined : argv[i]!.includes('=') ? argv[i]!.slice('--locale='.length) : argv[i + 1]);
  const { FixUsageError, cmdFix } = await import('./fix/cli.js');
  try {
    return await cmdFix(argv, locale);
  } catch (e) {
    if (e instanceof FixUsageError) throw new UsageError(e.message);
    throw e;
  }
}

/** Commands that have a help text (cli.help.<command>). */
const COMMANDS = ['audit', 'probe', 'pin', 'scan', 'gate', 'batch', 'merge', 'fix', 'explain', 'rules', 'serve', 'help'] as const;
const isCommand = (c: string | undefined): c is (typeof COMMANDS)[number] => (COMMANDS as readonly string[]).includes(c ?? '');

/**
 * `<command> --help` or `-h` among the command's own arguments (before `--`: what follows is the target's
 * command line). The help is in --locale when it names a known locale, else in the default locale.
 */
function helpAsked(args: string[]): { locale: string } | undefined {
  const dash = args.indexOf('--');
  const own = dash >= 0 ? args.slice(0, dash) : args;
  if (!own.includes('--help') && !own.includes('-h')) return undefined;
  const i = own.findIndex((a) => a === '--locale' || a.startsWith('--locale='));
  const v = i < 0 ? undefined : own[i]!.includes('=') ? own[i]!.slice('--locale='.length) : own[i + 1];
  return { locale: v !== undefined && isLocale(v) ? v : defaultLocale() };
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const locale = defaultLocale();
  try {
    const help = isCommand(cmd) ? helpAsked(rest) : undefined;
    if (help) {
      process.stdout.write(t(help.locale, `cli.help.${cmd}`) + '\n');
      return EXIT.ok;
    }
    if (cmd === 'help' && rest.length) {
      if (!isCommand(rest[0])) throw new UsageError(t(locale, 'cli.errors.command', { command: rest[0]! }));
      process.stdout.write(t(helpAsked([...rest, '--help'])!.locale, `cli.help.${rest[0]}`) + '\n');
      return EXIT.ok;
    }
    switch (cmd) {
      case 'audit':
        return await cmdAudit(rest);
      case 'probe':
        return await cmdProbe(rest);
      case 'pin':
        return rest.includes('--scan') ? await cmdScan(rest.filter((a) => a !== '--scan'), 'pin') : await cmdProbe(rest, 'pin');
      case 'scan':
        return await cmdScan(rest);
      case 'gate':
        return await cmdGate(rest);
      case 'batch':
      case 'merge':
        return await cmdBatchOrMerge(cmd, rest);
      case 'fix':
        return await cmdFixDir(rest);
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

// Started by the launcher (src/cli.ts) with a heap ceiling: leave when the launcher is gone, so nothing outlives it.
if (LAUNCHER_PID !== undefined) {
  setInterval(() => {
    if (process.ppid !== LAUNCHER_PID) process.kill(process.pid, 'SIGTERM');
  }, 250).unref();
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
