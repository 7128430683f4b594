import { SessionFacts } from '../facts/session.js';
import { exercisesOf, type ExerciseOption } from '../probe/scenario.js';
import type { RecordedSession } from '../probe/session.js';
import type { StdioTarget } from '../probe/stdio.js';
import { appTools } from '../probe/apps-discover.js';
import type { HarnessBrowser, HarnessLimits } from './harness.js';
import { APPS_RECORD_FORMAT } from '../probe/apps-record.js';
import type { HostTarget } from './host-connection.js';

/**
 * The App part of a probe: after the default requests, when the server lists a tool linked to a `ui://`
 * resource, run the host harness (src/apps/harness.ts) and keep what it recorded in `session.apps`. With
 * `browser: false` (`--no-browser`) the harness does not run and the record says so; the browser-judged parts
 * then could-not-judge with that reason. A server without App tools gets no `apps` record at all.
 */

export interface AppsProbeOptions {
  /** false: do not start a browser (--no-browser). */
  browser?: boolean;
  /** Where to save a PNG of each rendered View (--artifacts DIR). */
  artifactsDir?: string;
  exercise?: ExerciseOption;
  signal?: AbortSignal;
  onStep?: (s: string) => void;
  /** A browser to reuse (tests, benchmarks). */
  reuse?: HarnessBrowser;
  /** A browser launch started while the probe's sessions ran (`--exercise app`): used, or closed when unused. */
  launching?: Promise<HarnessBrowser>;
  limits?: Partial<HarnessLimits>;
}

/** True when the recorded session lists at least one App tool. */
export function servesApps(session: RecordedSession): boolean {
  const facts = new SessionFacts(session);
  return (['modern', 'legacy'] as const).some((era) => appTools(facts.listed(era, 'tools/list')).length > 0);
}

/** The era for the host's connection: legacy when it answered (the Apps SDK's floor), else modern. */
function eraOf(session: RecordedSession): 'modern' | 'legacy' {
  const facts = new SessionFacts(session);
  return facts.listed('legacy', 'tools/list').length ? 'legacy' : 'modern';
}

export async function attachApps(session: RecordedSession, target: HostTarget, opts: AppsProbeOptions = {}): Promise<RecordedSession> {
  if (!servesApps(session) || opts.browser === false || opts.reuse) await closeLaunch(opts.launching);
  if (!servesApps(session)) return session;
  const exercise = exercisesOf(opts.exercise);
  if (opts.browser === false) {
    session.apps = { format: APPS_RECORD_FORMAT, skipped: { code: 'apps-no-browser' }, exercise, views: [], durationMs: 0 };
    return session;
  }
  // Loaded only for an App: a probe of a plain server never loads the bridge or the browser driver.
  const { runHarness } = await import('./harness.js');
  session.apps = await runHarness({
    target,
    era: eraOf(session),
    exercise,
    ...(opts.artifactsDir ? { artifactsDir: opts.artifactsDir } : {}),
    ...(opts.reuse ? { browser: opts.reuse } : opts.launching ? { launching: opts.launching } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onStep ? { onStep: opts.onStep } : {}),
  });
  return session;
}

/** The host target of a stdio probe. */
export const stdioHost = (t: StdioTarget): HostTarget => ({ stdio: t });

/**
 * With `--exercise app` the user expects an App: the browser launches while the server's sessions run, so that
 * its start-up overlaps them. Undefined when no browser is wanted.
 */
export function earlyBrowser(opts: { browser?: boolean; exercise?: ExerciseOption }): Promise<HarnessBrowser> | undefined {
  if (opts.browser === false || !exercisesOf(opts.exercise).includes('app')) return undefined;
  const launching = import('./harness.js').then((m) => m.startHarnessBrowser());
  launching.catch(() => undefined); // a failed launch is reported by the harness, when it is used
  return launching;
}

/** Close a launch that will not be used (settled either way). */
export async function closeLaunch(launching: Promise<HarnessBrowser> | undefined): Promise<void> {
  const b = await launching?.catch(() => undefined);
  await b?.close();
}
