import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/**
 * Benchmark: time from spawn to the answer to `initialize` (what Claude Code waits for at every session start),
 * for mcp-doctor's own server (`mcp-doctor serve`) and for a minimal reference server
 * (@modelcontextprotocol/server-everything, stdio), interleaved in one run; medians and their ratio.
 * Run: npm run bench:startup [-- <rounds>]
 */
const require = createRequire(import.meta.url);
const everything = join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js');
const cli = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const rounds = Number(process.argv[2] ?? 9);

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-startup', version: '1' } },
});

/** Spawn, send initialize at once, stop the clock at the first line that answers id 1; then end the process. */
function timeToInitialize(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer to initialize from ${args.join(' ')}`));
    }, 60_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          if ((JSON.parse(line) as { id?: unknown }).id === 1) {
            const ms = performance.now() - t0;
            clearTimeout(timer);
            child.once('exit', () => resolve(ms));
            child.kill('SIGTERM');
            return;
          }
        } catch {
          /* not a message */
        }
      }
    });
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.stdin.write(INITIALIZE + '\n');
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ours = [cli, 'serve'];
const reference = [everything, 'stdio'];
// Warm the file cache once each.
await timeToInitialize(ours);
await timeToInitialize(reference);
const a: number[] = [];
const b: number[] = [];
for (let i = 0; i < rounds; i++) {
  a.push(await timeToInitialize(ours));
  b.push(await timeToInitialize(reference));
}
const ma = median(a);
const mb = median(b);
process.stdout.write(
  [
    `spawn → answer to initialize, ${rounds} rounds interleaved, medians (${new Date().toISOString().slice(0, 10)}, Node ${process.version})`,
    `mcp-doctor serve: ${ma.toFixed(0)} ms`,
    `server-everything (reference): ${mb.toFixed(0)} ms`,
    `ratio mcp-doctor/reference: ${(ma / mb).toFixed(2)} (goal ≤ 1.20)`,
  ].join('\n') + '\n',
);
