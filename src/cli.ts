#!/usr/bin/env node
/**
 * The `mcp-doctor` command. It runs the CLI (src/cli-main.ts) in a node process with a heap ceiling
 * (src/engine/heap.ts): when node was started without one, this process starts the CLI again in a child with
 * `--max-old-space-size`, the same arguments, standard streams and environment, passes on the signals it gets,
 * and exits as the child did. The child leaves within a second if this process dies (it watches its parent).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hasHeapFlag, heapCeilingMb } from './engine/heap.js';

// Commands that read no source (explain, rules, help) run here at once: a second node start costs ~150 ms.
const READS_NOTHING = new Set(['explain', 'rules', 'help', '--help', '-h', '--version', '-v']);
const ceiling = READS_NOTHING.has(process.argv[2] ?? 'help') ? undefined : heapCeilingMb();
if (ceiling === undefined || hasHeapFlag(process.execArgv, process.env.NODE_OPTIONS)) {
  await import('./cli-main.js');
} else {
  const main = fileURLToPath(new URL('./cli-main.js', import.meta.url));
  const child = spawn(process.execPath, [`--max-old-space-size=${ceiling}`, ...process.execArgv, main, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, MCP_DOCTOR_LAUNCHER_PID: String(process.pid) },
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, () => child.kill(s));
  child.on('error', (e) => {
    process.stderr.write(`mcp-doctor: ${e.message}\n`);
    process.exitCode = 3;
  });
  child.on('exit', async (code, signal) => {
    if (signal === 'SIGABRT') {
      // V8 aborts the process when the heap cannot stay under the ceiling.
      const { t, defaultLocale } = await import('./engine/i18n.js');
      process.stderr.write(`mcp-doctor: ${t(defaultLocale(), 'cli.errors.heap', { mb: String(ceiling) })}\n`);
      process.exitCode = 3;
    } else if (signal) {
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    } else process.exitCode = code ?? 3;
  });
}
