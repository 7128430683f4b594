import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import which from 'which';
import { OWNER_PID } from '../engine/launcher.js';
import { log } from '../engine/log.js';
import { isLauncherProcess, killMarked, MARKER_VAR, signal } from './proc.js';

/**
 * Containment of what the probe starts (issue 10). On Linux, when permitted, the target runs in its own PID
 * namespace (`unshare --pid --fork --kill-child --mount-proc`, util-linux, started without a shell): its own
 * /proc hides mcp-doctor's process and environment, and when the namespace's first process dies the kernel
 * kills every other process in it — daemons that setsid() and double-fork included. `setpriv --pdeathsig KILL`
 * in front of unshare kills the namespace even when mcp-doctor itself is killed without a chance to clean up.
 *
 * Otherwise (another OS, unshare missing or refused, or MCP_DOCTOR_CONTAINMENT=process-group) the target is
 * started by a small launcher that holds the scrubbed environment (so the target's parent holds no secret) and
 * that kills the target when mcp-doctor goes away. In both methods every process started for a probe carries a
 * per-run marker in its environment (MCP_DOCTOR_RUN=<mcp-doctor pid>.<random>): at the end of each connection,
 * of each probe, on SIGINT/SIGTERM/SIGHUP and at exit, every process still carrying a live marker is frozen and
 * killed (found through /proc/<pid>/environ on Linux, through the process tree elsewhere).
 */

export type ContainmentMethod = 'pid-namespace' | 'process-group';
/** Why there is no PID namespace: a stable code, rendered through i18n (report.probe.reasons.<reason>). */
export type ContainmentReason = 'not-linux' | 'disabled' | 'unshare-missing' | 'unshare-refused';

export interface Containment {
  method: ContainmentMethod;
  reason?: ContainmentReason;
}

/** How to start one target under the containment chosen for this machine. */
export interface LaunchPlan extends Containment {
  wrap(executable: string, args: string[]): { file: string; args: string[]; ipc: boolean };
}

export { MARKER_VAR };

/** A fresh marker for one probe: the prefix (the pid of the mcp-doctor the user started) lets a test or an operator find a run's processes. */
export const newRunMarker = (): string => `${OWNER_PID}.${randomBytes(8).toString('hex')}`;

const LAUNCHER = fileURLToPath(new URL('./launcher.js', import.meta.url));
const NAMESPACE_FLAGS = [
  ['--pid', '--fork', '--kill-child', '--mount-proc'],
  // Without root: a user namespace that maps the current user to itself (no fake root for the target).
  ['--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--mount-proc'],
];

async function works(file: string, args: string[]): Promise<boolean> {
  // Inside a working namespace the first process is pid 1 and /proc is the namespace's own: `readlink /proc/self`
  // run as that first process prints 1 (a /proc left over from the host would print its host pid). Without
  // readlink, a one-line Node check that also counts the processes it sees (a Node start costs more).
  const readlink = which.sync('readlink', { nothrow: true });
  const check = "process.exit(process.pid === 1 && require('fs').readdirSync('/proc').filter((d) => /^\\d+$/.test(d)).length <= 2 ? 0 : 1)";
  const probe = readlink ? [readlink, '/proc/self'] : [process.execPath, '-e', check];
  // Every launched process is logged (S-21): here a one-line check of the namespace, run once per process.
  log.debug({ file, args: [...args, '--', ...probe] }, 'probe: checking whether targets can run in their own PID namespace');
  try {
    const r = await execa(file, [...args, '--', ...probe], { reject: false, timeout: 10_000, env: { PATH: process.env.PATH ?? '' }, extendEnv: false, stdin: 'ignore' });
    return r.exitCode === 0 && (!readlink || String(r.stdout).trim() === '1');
  } catch {
    return false;
  }
}

async function detect(): Promise<LaunchPlan> {
  const fallback = (reason: ContainmentReason): LaunchPlan => ({
    method: 'process-group',
    reason,
    wrap: (executable, args) => ({ file: process.execPath, args: [LAUNCHER, executable, ...args], ipc: true }),
  });
  if (process.platform !== 'linux') return fallback('not-linux');
  if (process.env.MCP_DOCTOR_CONTAINMENT === 'process-group') return fallback('disabled');
  const unshare = which.sync('unshare', { nothrow: true });
  if (!unshare) return fallback('unshare-missing');
  const setpriv = which.sync('setpriv', { nothrow: true });
  const envBin = which.sync('env', { nothrow: true });
  for (const flags of NAMESPACE_FLAGS) {
    const prefixes = setpriv ? [[setpriv, '--pdeathsig', 'KILL', '--', unshare, ...flags], [unshare, ...flags]] : [[unshare, ...flags]];
    for (const [file, ...pre] of prefixes) {
      if (await works(file!, pre)) {
        log.debug({ file, args: pre }, 'probe: targets run in their own PID namespace');
        // The run's marker stays with our wrappers (where a sweep finds them): `env -u` drops it before the target
        // starts, so the target sees only the scrubbed environment (the namespace, not the marker, contains it).
        const unset = envBin ? [envBin, '-u', MARKER_VAR, '--'] : [];
        return { method: 'pid-namespace', wrap: (executable, args) => ({ file: file!, args: [...pre, '--', ...unset, executable, ...args], ipc: false }) };
      }
    }
  }
  return fallback('unshare-refused');
}

let cached: Promise<LaunchPlan> | undefined;

/** The containment of this machine, probed once and cached. */
export function launchPlan(): Promise<LaunchPlan> {
  cached ??= detect();
  return cached;
}

/** One of our launchers (they carry the marker too; see isLauncherProcess). */
export const isOurLauncher = (pid: number): boolean => isLauncherProcess(pid, LAUNCHER);

/**
 * Kill a started target: every process carrying the run's marker but our launcher first, then the process
 * group and the process we started, then whatever still carries the marker. The launcher goes last: if
 * mcp-doctor is killed halfway, it is still there, running, to finish the sweep.
 */
export function killTarget(pid: number | undefined, marker: string | undefined): void {
  if (marker) killMarked(marker, isOurLauncher);
  if (pid) {
    signal(-pid, 'SIGKILL');
    signal(pid, 'SIGKILL');
  }
  if (marker) killMarked(marker);
}

/** Runs in flight: marker → pids of the processes we started directly (unshare or launcher). */
const live = new Map<string, Set<number>>();

function killAllNow(): void {
  for (const [marker, pids] of live) {
    killMarked(marker, isOurLauncher);
    for (const pid of pids) killTarget(pid, undefined);
    killMarked(marker);
  }
}

let exitHook = false;

/** A probe run begins: its marker is swept at exit and on the signals the CLI handles. */
export function beginRun(marker: string): void {
  if (!live.has(marker)) live.set(marker, new Set());
  if (!exitHook) {
    exitHook = true;
    process.on('exit', killAllNow);
  }
}

export function trackPid(marker: string, pid: number): void {
  beginRun(marker);
  live.get(marker)!.add(pid);
}

export function untrackPid(marker: string, pid: number): void {
  live.get(marker)?.delete(pid);
}

/** A probe run ends: one last sweep for anything still carrying its marker. */
export function endRun(marker: string): void {
  let n = killMarked(marker, isOurLauncher);
  for (const pid of live.get(marker) ?? []) killTarget(pid, undefined);
  n += killMarked(marker);
  if (n) log.info({ count: n }, 'probe: killed processes of the target that outlived their connection');
  live.delete(marker);
}

let handlers = false;

/**
 * For the CLI (probe, pin): on SIGINT, SIGTERM or SIGHUP, kill every target of every run in flight,
 * then exit with 128 + the signal number. Installed once.
 */
export function installSignalCleanup(): void {
  if (handlers) return;
  handlers = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      killAllNow();
      process.exit(128 + (constants.signals[sig] ?? 0));
    });
  }
}
