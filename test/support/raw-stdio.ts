import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI } from './run.js';

/** A raw JSON-RPC client over stdio: evidence is the bytes on the wire, never an SDK's parsed objects. */
export class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly received: Record<string, unknown>[] = [];
  readonly nonJson: string[] = [];
  private waiters = new Map<string | number, (m: Record<string, unknown>) => void>();
  private nextId = 1;

  constructor(env: NodeJS.ProcessEnv = {}, opts: { cwd?: string } = {}) {
    this.child = spawn(process.execPath, [CLI, 'serve'], {
      cwd: opts.cwd,
      env: { ...process.env, MCP_DOCTOR_LOCALE: '', LC_ALL: 'C', LC_MESSAGES: 'C', LANG: 'C', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.resume();
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line);
      } catch {
        this.nonJson.push(line);
        return;
      }
      this.received.push(msg);
      const w = msg.id !== undefined ? this.waiters.get(msg.id as string | number) : undefined;
      if (w) {
        this.waiters.delete(msg.id as string | number);
        w(msg);
      }
    });
  }

  notify(method: string, params?: unknown): void {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) }) + '\n');
  }

  request(method: string, params?: unknown, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timeout waiting for ${method}`)), timeoutMs);
      this.waiters.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }) + '\n');
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
      this.child.kill('SIGTERM');
    });
  }
}

export const MODERN = '2026-07-28';
export const envelope = (extra: Record<string, unknown> = {}) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  },
  ...extra,
});
