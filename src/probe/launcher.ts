import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { isLauncherProcess, killMarked, MARKER_VAR, signal } from './proc.js';

/**
 * The launcher of the process-group containment (used when no PID namespace is available): started by
 * mcp-doctor with the scrubbed environment and the run marker, it starts the target in its own process group
 * with the same stdin/stdout/stderr, so the target's parent holds no secret of mcp-doctor's environment. When
 * the target exits, or when mcp-doctor goes away (fd 3, a pipe only mcp-doctor holds, reaches its end), it
 * kills the target's group and every process carrying the marker, then ends the same way the target did.
 *
 *   node launcher.js <executable> [args...]
 */

const [executable, ...args] = process.argv.slice(2);
const marker = process.env[MARKER_VAR];

if (!executable) {
  process.stderr.write('mcp-doctor launcher: no command\n');
  process.exit(2);
}

const child = spawn(executable, args, { stdio: 'inherit', detached: true });

/** Other launchers (a target's own launch of this script) are spared like ours: see isLauncherProcess. */
const self = process.argv[1]!;
const isLauncher = (pid: number): boolean => isLauncherProcess(pid, self);

/** Kill the target's group and every marked process but the other launchers; how many were found. */
function sweep(): number {
  if (child.pid) signal(-child.pid, 'SIGKILL');
  return marker ? killMarked(marker, isLauncher) : 0;
}

child.on('error', (e) => {
  process.stderr.write(`mcp-doctor launcher: cannot start ${executable}: ${e.message}\n`);
  sweep();
  process.exit(127);
});

child.on('exit', (code, sig) => {
  sweep();
  if (sig) {
    process.removeAllListeners(sig);
    process.exitCode = 128 + (constants.signals[sig] ?? 0);
    signal(process.pid, sig);
  } else process.exit(code ?? 1);
});

// mcp-doctor holds the other end of fd 3: its end means mcp-doctor is gone (even killed without cleanup).
try {
  const parent = new Socket({ fd: 3, readable: true, writable: false });
  // A target may be forking at that very moment (a daemon's child about to start its own child, another start
  // of the target still loading on a busy machine): sweep every 100 ms until half a second passes with nothing
  // found (at most 5 s), so that a process born during a sweep is caught by a later one.
  let going = false;
  const gone = () => {
    if (going) return;
    going = true;
    sweep();
    let passes = 0;
    let quiet = 0;
    setInterval(() => {
      quiet = sweep() > 0 ? 0 : quiet + 1;
      if (quiet >= 5 || ++passes >= 50) process.exit(137);
    }, 100);
  };
  parent.on('end', gone);
  parent.on('error', gone);
  parent.on('close', gone);
  parent.resume();
} catch {
  /* started without fd 3 (by hand): nothing to watch */
}

// A signal to the launcher ends the target too.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(sig, () => {
    sweep();
    process.exit(128 + (constants.signals[sig] ?? 0));
  });
}
