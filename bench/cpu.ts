import { readFileSync } from 'node:fs';

/** CPU time from /proc/<pid>/stat (Linux; undefined elsewhere or when the process is gone), in ms. */
export const ownCpuMs = (pid: number | 'self'): number | undefined => statCpuMs(pid, 11);
/** CPU time of the children a process has waited for (cutime + cstime), in ms. */
export const childrenCpuMs = (pid: number | 'self'): number | undefined => statCpuMs(pid, 13);

/** Fields of /proc/<pid>/stat after the command name, from the state (field 3): utime and stime are at 11 and 12,
 * cutime and cstime at 13 and 14, in clock ticks (USER_HZ, 100 per second on Linux). */
function statCpuMs(pid: number | 'self', first: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[first]) + Number(f[first + 1]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
