import type { Profile } from '../engine/types.js';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Report, ReportInputs } from '../engine/runner.js';
import { scrubbedEnv } from '../probe/env.js';
import { resolveCommand } from '../probe/command.js';
import { probeHttp, probeStdio, SsrfRefused } from '../probe/probe.js';
import { capSessionDepth, isSession, type Connection, type RecordedSession } from '../probe/session.js';
import type { ExerciseOption } from '../probe/scenario.js';
import { inferPackage, isInside, packageCacheRoots, readManifest, type PackageFrom } from '../probe/package-of.js';
import type { Reason } from '../engine/types.js';
import { attachApps, closeLaunch, earlyBrowser } from '../apps/probe-hook.js';
import { appsInputs } from '../apps/report-inputs.js';
import type { HostTarget } from '../apps/host-connection.js';
import type { HarnessBrowser } from '../apps/harness.js';
import { printedHttpUrl, ProbeInputError, ProbeUnreachable, stderrTail, type Unreachable } from '../probe/outcome.js';

// Kept light for the faces (the server answers before the analyser loads): outcome.ts.
export { ProbeInputError, ProbeUnreachable, stderrTail, unreachableText, type Unreachable } from '../probe/outcome.js';
export { resolveCommand } from '../probe/command.js';

/**
 * The dynamic audit, shared by the CLI (`mcp-doctor probe`) and the MCP tool (`probe_endpoint`):
 * record a session (or load one), then judge it, with the package folder when one is given.
 */

export interface ProbeRequest {
  command?: string[];
  url?: string;
  cwd?: string;
  /** The package folder to read with the session (static parts, S-7's reference version, X-3's lock). Default:
   * the package of the launched command (package-of.ts), else a package in --cwd. */
  source?: string;
  /** Read no package at all (--no-source): only the session is judged, and the parts that read the source say
   * `source-skipped`. Nothing of the static analyser (ts-morph, the Python grammar) is loaded then. */
  noSource?: boolean;
  /** When set (the MCP server's allowed roots), a package inferred from the command is read only inside them
   * (a package in npx's or uv's cache of this process's environment excepted: the command named it for download). */
  sourceRoots?: string[];
  env?: Record<string, string>;
  /** Extra HTTP headers (e.g. Authorization) for --url. */
  headers?: Record<string, string>;
  /** Allow private address ranges for --url. */
  allowPrivate?: boolean;
  timeoutMs?: number;
  fromSession?: string;
  /** Opt-ins beyond the default requests (scenario.ts): send invalid arguments to a tool, call read-only tools. */
  exercise?: ExerciseOption;
  saveSession?: string;
  rules?: string[];
  /** Which categories of rules are judged (`vet`: security and protocol only). */
  profile?: Profile;
  signal?: AbortSignal;
  onStep?: (step: string) => void;
  onProgress?: (p: { done: number; total: number; ruleId: string }) => void;
  /** The MCP Apps host harness: false skips the browser (--no-browser); artifactsDir keeps a PNG per View. */
  apps?: { browser?: boolean; artifactsDir?: string };
}

export function loadSession(file: string): RecordedSession {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProbeInputError('sessionUnreadable', { file, error: (e as Error).message });
  }
  // As untrusted as a live target: over-deep messages are replaced by notes before anything walks them.
  if (!isSession(raw) || !capSessionDepth(raw)) throw new ProbeInputError('sessionInvalid', { file });
  return raw;
}

/**
 * The limits of one probe, the same for stdio and HTTP: one overall deadline (--timeout-ms, default 60 s)
 * bounds everything; a request waits at most a sixth of it (1 to 10 s), a connection at most a third.
 */
export function probeLimits(timeoutMs: number | undefined): { overallMs: number; requestTimeoutMs: number; connectionTimeoutMs: number } {
  const overallMs = timeoutMs ?? 60_000;
  return {
    overallMs,
    requestTimeoutMs: Math.min(10_000, overallMs, Math.max(1000, Math.floor(overallMs / 6))),
    connectionTimeoutMs: Math.min(overallMs, Math.max(1000, Math.floor(overallMs / 3))),
  };
}

/**
 * Locales to ask for (C-20): English as the baseline, then every other <locale>.json of the package's i18n
 * folder; nothing when the package declares English only.
 */
export function declaredLocales(dir: string): string[] {
  for (const sub of ['i18n', 'src/i18n', 'locales', 'src/locales']) {
    const d = resolve(dir, sub);
    if (!existsSync(d) || !statSync(d).isDirectory()) continue;
    return readdirSync(d)
      .filter((f) => /^[a-z]{2,3}(?:-[A-Za-z]{2,4})?\.json$/.test(f))
      .map((f) => f.slice(0, -5))
      .filter((l) => l !== 'en')
      .sort()
      .reduce<string[]>((acc, l) => (acc.length ? [...acc, l] : ['en', l]), []);
  }
  return [];
}

/** The package folder a probe reads with its session, and where it came from. */
export interface ProbeSource {
  folder: string;
  from: PackageFrom;
  name?: string;
  version?: string;
}

/**
 * Which package folder to read with the session: --source as given; else the package of the launched
 * command (the recorded command and working directory when judging a saved session); else --cwd when it
 * holds a package manifest. `refused` says why no package is read (--no-source, or an inferred package outside the allowed roots).
 */
export function probeSource(req: ProbeRequest, session?: RecordedSession): { source?: ProbeSource; refused?: Reason } {
  if (req.noSource) return { refused: { code: 'source-skipped' } };
  if (req.source !== undefined) {
    const dir = resolve(req.source);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ProbeInputError('notAFolder', { path: req.source });
    const folder = realpathSync(dir);
    const m = readManifest(folder);
    return { source: { folder, from: 'source', ...(m?.name ? { name: m.name } : {}), ...(m?.version ? { version: m.version } : {}) } };
  }
  const recorded = session?.target.transport === 'stdio' ? session.target : undefined;
  const command = req.command ?? recorded?.command;
  const cwd = req.cwd ? resolve(req.cwd) : (recorded?.cwd ?? process.cwd());
  if (command?.length) {
    const inferred = inferPackage(command, { cwd, env: scrubbedEnv(req.env ?? {}) });
    if (inferred) {
      // The cache exemption holds for the caches of this process's own environment, not for a cache folder the
      // caller could point anywhere through env.
      const cached = inferred.cached && isInside(inferred.folder, packageCacheRoots(scrubbedEnv()));
      if (req.sourceRoots && !cached && !isInside(inferred.folder, req.sourceRoots)) {
        return { refused: { code: 'package-outside-roots', data: { folder: inferred.folder } } };
      }
      const { folder, name, version } = inferred;
      return { source: { folder, from: 'command', ...(name ? { name } : {}), ...(version ? { version } : {}) } };
    }
  }
  if (req.cwd) {
    const m = readManifest(cwd);
    if (m) return { source: { folder: realpathSync(cwd), from: 'cwd', ...(m.name ? { name: m.name } : {}), ...(m.version ? { version: m.version } : {}) } };
  }
  return {};
}

export async function recordSession(req: ProbeRequest): Promise<RecordedSession> {
  if (req.fromSession) return loadSession(req.fromSession);
  const launching = earlyBrowser({ browser: req.apps?.browser, exercise: req.exercise });
  try {
    return await recordLive(req, launching);
  } catch (e) {
    await closeLaunch(launching);
    throw e;
  }
}

async function recordLive(req: ProbeRequest, launching: Promise<HarnessBrowser> | undefined): Promise<RecordedSession> {
  const limits = probeLimits(req.timeoutMs);
  if (req.url) {
    try {
      const s = await probeHttp({ url: req.url, exercise: req.exercise, headers: req.headers, allowPrivate: req.allowPrivate, signal: req.signal, onStep: req.onStep, limits });
      return await withApps(s, { http: { url: req.url, headers: req.headers, allowPrivate: req.allowPrivate } }, req, launching);
    } catch (e) {
      if (e instanceof SsrfRefused) throw new ProbeInputError(e.code, e.data);
      throw e;
    }
  }
  if (!req.command?.length) throw new ProbeInputError('probeTarget');
  const cwd = req.cwd ? resolve(req.cwd) : process.cwd();
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new ProbeInputError('notAFolder', { path: req.cwd ?? cwd });
  const [command, ...args] = req.command;
  // Locales come from the package read with the session (C-20); an npx package not yet downloaded has none yet.
  const before = probeSource(req).source;
  const env = scrubbedEnv(req.env ?? {});
  // A missing program fails here, at once: no connection is attempted, nothing waits for a timeout.
  const executable = resolveCommand(command!, cwd, env);
  if (!executable) throw new ProbeUnreachable({ cause: 'not-found', command: command!, cwd });
  const target = { command: command!, executable, args, cwd, env };
  const s = await probeStdio({
    locales: before ? declaredLocales(before.folder) : undefined,
    target,
    limits,
    signal: req.signal,
    onStep: req.onStep,
    exercise: req.exercise,
  });
  return withApps(s, { stdio: target }, req, launching);
}

/** The App part of the probe (src/apps/probe-hook.ts), when the server lists App tools. */
function withApps(s: RecordedSession, target: HostTarget, req: ProbeRequest, launching?: Promise<HarnessBrowser>): Promise<RecordedSession> {
  return attachApps(s, target, { ...req.apps, exercise: req.exercise, signal: req.signal, onStep: req.onStep, ...(launching ? { launching } : {}) });
}

/** Did the target answer anything: a JSON-RPC message (even one too deep to keep), or an HTTP response? */
const answeredSomething = (c: Connection): boolean =>
  c.messages.some((m) => m.dir === 'in') || !!c.notes?.some((n) => n.kind === 'message-too-deep') || !!c.http?.some((x) => x.response);

/**
 * When no connection received anything, there is nothing to judge: a report would be 60 could-not-judge and
 * exit 0. Returns why instead (the first connection's outcome, its exit and the tail of its stderr).
 */
export function neverAnswered(session: RecordedSession): Unreachable | undefined {
  if (session.connections.some(answeredSomething)) return undefined;
  const first = session.connections[0];
  const outcome = first?.outcome;
  const cause: Unreachable['cause'] =
    outcome === 'spawn-failed' || outcome === 'http-error' || outcome === 'blocked' ? outcome : first?.exit && outcome === 'exited' ? 'exited' : 'timeout';
  const stderr = session.connections.map((c) => c.stderr).find((x) => x.trim());
  const error = first?.detail ?? first?.http?.find((x) => x.error)?.error;
  // A program that prints where it listens over HTTP (the published MCP Apps examples without --stdio).
  const printed = session.target.transport === 'stdio' ? session.connections.map((c) => printedHttpUrl(c.noise)).find(Boolean) : undefined;
  return {
    cause,
    ...(session.target.transport === 'stdio' ? { command: session.target.command.join(' ').slice(0, 500) } : { url: session.target.url }),
    ...(first?.exit ? { exit: first.exit } : {}),
    ...(error && error !== 'deadline' ? { error: stderrTail(error, 3, 300) } : {}),
    ...(stderr ? { stderr: stderrTail(stderr) } : {}),
    ...(printed ? { printedUrl: printed } : {}),
  };
}

/** The report's `inputs` this stream owns: containment and wire notes, from the session. */
export function sessionInputs(session: RecordedSession): ReportInputs {
  const notes = session.connections.flatMap((c) => (c.notes ?? []).map((n) => ({ connection: c.label, ...n })));
  return { ...(session.containment ? { containment: session.containment } : {}), ...(notes.length ? { notes } : {}) };
}

export async function probeAndJudge(req: ProbeRequest): Promise<{ session: RecordedSession; report: Report }> {
  if (req.source !== undefined) probeSource(req); // a wrong --source is a usage error before anything runs
  // The analyser loads while the target starts (two processes, two cores), not before.
  const runner = import('./audit.js');
  runner.catch(() => undefined);
  const session = await recordSession(req);
  // Saved first, even when nothing answered: the session shows what was tried.
  if (req.saveSession) writeFileSync(req.saveSession, JSON.stringify(session, null, 2) + '\n');
  const silent = neverAnswered(session);
  if (silent) throw new ProbeUnreachable(silent);
  // The package is read with the session: static parts, S-7's reference version, X-3's lock, source links.
  // Inferred after the run too, so that a package npx has just downloaded is found.
  const { source, refused } = probeSource(req, session);
  const target = session.target.transport === 'stdio' ? { command: session.target.command } : { url: session.target.url };
  const { audit } = await runner;
  const report = await audit({
    target: { ...target, ...(source ? { path: source.folder } : {}) },
    ...(source ? { package: { from: source.from, name: source.name, version: source.version } } : {}),
    ...(refused ? { repoReason: refused } : {}),
    session,
    rules: req.rules,
    profile: req.profile,
    signal: req.signal,
    onProgress: req.onProgress,
  });
  const inputs = sessionInputs(session);
  if (Object.keys(inputs).length) report.inputs = { ...report.inputs, ...inputs };
  if (session.apps) report.inputs = { ...report.inputs, apps: appsInputs(session.apps) };
  return { session, report };
}
