import { childrenCpuMs } from './cpu.js';

/**
 * Preloaded (--import) by bench:probe into the CLI it times: reports at exit, on stderr, the process's peak RSS
 * (kB) and its CPU time (ms): its own (every thread) and that of the children it has waited for (the probe's
 * targets, which it ends and reaps before it exits; from /proc, Linux only).
 */
process.on('exit', () => {
  const own = process.cpuUsage();
  process.stderr.write(`\nbench-maxrss-kb ${process.resourceUsage().maxRSS}\n`);
  process.stderr.write(`bench-cpu-ms ${Math.round((own.user + own.system) / 1000)} ${childrenCpuMs('self') ?? 'n/a'}\n`);
});
