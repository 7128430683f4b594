import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/**
 * Finding and killing the processes of one probe run by the marker in their environment
 * (MCP_DOCTOR_RUN=<marker>, read from /proc/<pid>/environ). Dependency-free and synchronous: used by the
 * launcher, in signal handlers and at exit.
 */

export const MARKER_VAR = 'MCP_DOCTOR_RUN';

/** Processes (other than ourselves) whose environment carries this exact marker. Linux only; [] elsewhere. */
export function markedPids(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const entry = `${MARKER_VAR}=${marker}`;
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      // A zombie's environ reads empty: it runs no code and is not counted.
      if (readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(entry)) out.push(Number(d));
    } catch {
      /* gone, or not readable */
    }
  }
  return out;
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* not there, or not ours */
  }
}

/**
 * Kill every process carrying the marker: stop them first (a stopped process cannot fork), scan again until
 * no new one appears, then SIGKILL them all. `spare` leaves some alone (the launcher spares the other launchers
 * of its run: two launchers sweeping at once would otherwise stop each other before either sends SIGKILL, and
 * every target would stay stopped). Returns how many were found.
 */
export function killMarked(marker: string, spare?: (pid: number) => boolean): number {
  const seen = new Set<number>();
  const spared = new Set<number>();
  for (let pass = 0; pass < 32; pass++) {
    const found = markedPids(marker).filter((p) => {
      if (seen.has(p) || spared.has(p)) return false;
      if (spare?.(p)) {
        spared.add(p);
        return false;
      }
      return true;
    });
    if (!found.length) break;
    for (const p of found) {
      seen.add(p);
      signal(p, 'SIGSTOP');
    }
  }
  for (const p of seen) signal(p, 'SIGKILL');
  return seen.size;
}

let node: string | undefined;
/**
 * Whether a process is one of our launchers (src/probe/launcher.ts): this Node executable (the link of
 * /proc/<pid>/exe) running `script` as its first argument. A target cannot pass for one without running that
 * script, which only kills marked processes and ends with its child. Launchers are the safety net when
 * mcp-doctor dies (even SIGKILLed): a sweep spares them until the targets are dead, so that a sweep cut short
 * never leaves a launcher stopped or gone while a target lives.
 */
export function isLauncherProcess(pid: number, script: string): boolean {
  try {
    node ??= realpathSync(process.execPath);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    return argv[1] === script && readlinkSync(`/proc/${pid}/exe`) === node;
  } catch {
    return false;
  }
}
