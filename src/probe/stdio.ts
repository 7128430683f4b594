import { execa, type ResultPromise } from 'execa';
import pidtree from 'pidtree';
import { log } from '../engine/log.js';
import type { Connection, ConnectionLabel, JsonRpc, WireMessage } from './session.js';

/**
 * One stdio connection to an untrusted program: started without a shell, with the environment we give
 * it, bounded capture, per-request timeouts, and its whole process tree killed at the end.
 */

export interface StdioTarget {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
}

export interface Limits {
  requestTimeoutMs: number;
  /** Upper bound for one whole connection. */
  connectionTimeoutMs: number;
  /** Bytes of stdout kept per connection. */
  maxCaptureBytes: number;
  /** Longest single line accepted as a message. */
  maxLineBytes: number;
  maxNoiseLines: number;
  maxStderrBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  requestTimeoutMs: 10_000,
  connectionTimeoutMs: 60_000,
  maxCaptureBytes: 8 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
  maxNoiseLines: 50,
  maxStderrBytes: 16 * 1024,
};

export type Answer = { kind: 'response'; message: JsonRpc } | { kind: 'timeout' } | { kind: 'closed' };

export class StdioConnection {
  readonly record: Connection;
  private child?: ResultPromise;
  private readonly started = Date.now();
  private pending = new Map<string | number, (a: Answer) => void>();
  private nextId = 1;
  private buf: Buffer[] = [];
  private bufLen = 0;
  private discarding = false;
  private captured = 0;
  private exited = false;
  private deadline?: NodeJS.Timeout;

  constructor(
    label: ConnectionLabel,
    private readonly target: StdioTarget,
    private readonly limits: Limits = DEFAULT_LIMITS,
  ) {
    this.record = { label, outcome: 'answered', messages: [], noise: [], stderr: '', truncated: false, durationMs: 0 };
  }

  start(): boolean {
    // Every launched process is logged (S-21): what, where, with which environment keys — never their values.
    log.info({ command: this.target.command, args: this.target.args.length, cwd: this.target.cwd, envKeys: Object.keys(this.target.env).sort(), connection: this.record.label }, 'probe: starting the target');
    try {
      this.child = execa(this.target.command, this.target.args, {
        cwd: this.target.cwd,
        env: this.target.env,
        extendEnv: false,
        shell: false,
        detached: true,
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
        buffer: false,
        reject: false,
        cleanup: true,
      });
    } catch (e) {
      this.record.outcome = 'spawn-failed';
      this.record.detail = (e as Error).message;
      return false;
    }
    const child = this.child;
    child.stdout!.on('data', (d: Buffer) => this.onStdout(d));
    child.stderr!.on('data', (d: Buffer) => {
      this.record.stderr = (this.record.stderr + d.toString('utf8')).slice(-this.limits.maxStderrBytes);
    });
    child.stdin!.on('error', () => undefined);
    child.stdout!.on('end', () => {
      // A last line written without a newline before exit still counts.
      if (this.bufLen > 0 || this.discarding) this.line();
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.record.exit = { code, signal };
      for (const w of this.pending.values()) w({ kind: 'closed' });
      this.pending.clear();
    });
    child.on('error', (e) => {
      if (!this.exited && this.record.messages.length === 0) {
        this.record.outcome = 'spawn-failed';
        this.record.detail = e.message;
      }
    });
    void child.then((r) => {
      if (r.failed && r.code === 'ENOENT') {
        this.record.outcome = 'spawn-failed';
        this.record.detail = r.shortMessage;
      }
    });
    this.deadline = setTimeout(() => void this.close(), this.limits.connectionTimeoutMs);
    return true;
  }

  get alive(): boolean {
    return !!this.child && !this.exited;
  }

  private log(dir: WireMessage['dir'], message: JsonRpc): void {
    this.record.messages.push({ dir, at: Date.now() - this.started, message });
  }

  private onStdout(d: Buffer): void {
    let start = 0;
    for (let i = 0; i < d.length; i++) {
      if (d[i] !== 0x0a) continue;
      this.push(d.subarray(start, i));
      this.line();
      start = i + 1;
    }
    if (start < d.length) this.push(d.subarray(start));
  }

  private push(chunk: Buffer): void {
    if (this.discarding) return;
    if (this.bufLen + chunk.length > this.limits.maxLineBytes) {
      this.discarding = true;
      this.record.truncated = true;
      this.buf = [];
      this.bufLen = 0;
      return;
    }
    this.buf.push(Buffer.from(chunk));
    this.bufLen += chunk.length;
  }

  private line(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    const raw = Buffer.concat(this.buf).toString('utf8').replace(/\r$/, '');
    this.buf = [];
    this.bufLen = 0;
    this.captured += raw.length;
    if (raw.trim() === '') {
      // Not a message either: a blank line on stdout is noise too.
      this.noise(raw);
      return;
    }
    if (this.captured > this.limits.maxCaptureBytes) {
      this.record.truncated = true;
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      this.noise(raw);
      return;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || (msg as JsonRpc).jsonrpc !== '2.0') {
      this.noise(raw);
      return;
    }
    const m = msg as JsonRpc;
    this.log('in', m);
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      // A request from the server (ping, roots/list, elicitation/create…): we are not a full client.
      this.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'mcp-doctor probe does not serve client requests' } });
      return;
    }
    if (m.id !== undefined && m.id !== null && m.method === undefined) {
      const w = this.pending.get(m.id);
      if (w) {
        this.pending.delete(m.id);
        w({ kind: 'response', message: m });
      }
    }
  }

  private noise(line: string): void {
    if (this.record.noise.length < this.limits.maxNoiseLines) this.record.noise.push(line.length > 500 ? line.slice(0, 500) + '…' : line);
    else this.record.truncated = true;
  }

  private send(message: JsonRpc): void {
    if (!this.alive) return;
    this.log('out', message);
    this.child!.stdin!.write(JSON.stringify(message) + '\n');
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) });
  }

  request(method: string, params?: unknown, timeoutMs = this.limits.requestTimeoutMs): Promise<Answer> {
    if (!this.alive) return Promise.resolve({ kind: 'closed' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ kind: 'timeout' });
      }, timeoutMs);
      this.pending.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    });
  }

  /** End the connection and kill the whole process tree. */
  async close(): Promise<Connection> {
    if (this.deadline) clearTimeout(this.deadline);
    const child = this.child;
    if (child?.pid && !this.exited) {
      child.stdin?.end();
      await new Promise((r) => setTimeout(r, 100));
    }
    if (child?.pid) await killTree(child.pid);
    if (child && !this.exited) await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 2000))]);
    this.record.durationMs = Date.now() - this.started;
    return this.record;
  }
}

/** Kill a detached child's process group and every descendant still attached to it. */
export async function killTree(pid: number): Promise<void> {
  let descendants: number[] = [];
  try {
    descendants = await pidtree(pid);
  } catch {
    /* already gone */
  }
  for (const target of [-pid, pid, ...descendants]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      /* not there */
    }
  }
}
