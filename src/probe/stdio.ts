import { execa, type ResultPromise } from 'execa';
import pidtree from 'pidtree';
import { log } from '../engine/log.js';
import { killTarget, MARKER_VAR, trackPid, untrackPid, type LaunchPlan } from './contain.js';
import { depthExceeds, MAX_NOTES, tooDeepNote, type Connection, type ConnectionLabel, type JsonRpc, type SessionNote, type WireMessage } from './session.js';

/**
 * One stdio connection to an untrusted program: started without a shell, with the environment we give
 * it, inside the containment of the run (a PID namespace, or the launcher), bounded capture, per-request
 * timeouts bounded by the probe's overall deadline, and every process of the run killed at the end.
 */

export interface StdioTarget {
  /** The command as given (recorded in the session). */
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** The resolved program to start (absolute path); defaults to `command`. */
  executable?: string;
}

export interface Limits {
  /** Upper bound for the whole probe: every connection, every request, the HTTP checks. */
  overallMs: number;
  requestTimeoutMs: number;
  /** Upper bound for one whole connection. */
  connectionTimeoutMs: number;
  /** Bytes of stdout kept per connection. */
  maxCaptureBytes: number;
  /** Longest single line accepted as a message. */
  maxLineBytes: number;
  maxNoiseLines: number;
  maxStderrBytes: number;
  /** Longest HTTP response body read (default 4 MiB). */
  maxBodyBytes?: number;
}

export const DEFAULT_LIMITS: Limits = {
  overallMs: 60_000,
  requestTimeoutMs: 10_000,
  connectionTimeoutMs: 60_000,
  maxCaptureBytes: 8 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
  maxNoiseLines: 50,
  maxStderrBytes: 16 * 1024,
};

export type Answer = { kind: 'response'; message: JsonRpc } | { kind: 'timeout' } | { kind: 'closed' };

/** Below this many milliseconds left, a request is not worth sending. */
const MIN_USEFUL_MS = 50;

/** One overall deadline for a whole probe. */
export class Deadline {
  readonly at: number;
  /** Set when a request was cut or skipped because the deadline passed. */
  hit = false;
  constructor(readonly ms: number) {
    this.at = Date.now() + ms;
  }
  remaining(): number {
    return this.at - Date.now();
  }
  get expired(): boolean {
    return this.remaining() < MIN_USEFUL_MS;
  }
  /** A timeout that does not run past the deadline. */
  bound(ms: number): number {
    return Math.max(0, Math.min(ms, this.remaining()));
  }
}

/** What a connection shares with the rest of its probe: the containment, the run marker, the deadline. */
export interface RunContext {
  plan: LaunchPlan;
  marker: string;
  deadline: Deadline;
}

/** A JSON-RPC id as a map key (1 and "1" are different ids). */
const idKey = (id: unknown): string => JSON.stringify(id);

export class StdioConnection {
  readonly record: Connection;
  private child?: ResultPromise;
  private readonly started = Date.now();
  private pending = new Map<string, (a: Answer) => void>();
  /** Ids answered once already, with their method: a second response is a duplicate. */
  private answered = new Map<string, string>();
  private sent = new Map<string, string>();
  private nextId = 1;
  private buf: Buffer[] = [];
  private bufLen = 0;
  private discarding = false;
  /** The start of a line past maxLineBytes (kept while the rest is discarded): enough to tell noise from JSON. */
  private discardedHead = '';
  private captured = 0;
  private exited = false;
  /** We are ending the connection: waiters still pending timed out, the target did not exit by itself. */
  private closing = false;
  private timer?: NodeJS.Timeout;
  private readonly deadline?: Deadline;

  constructor(
    label: ConnectionLabel,
    private readonly target: StdioTarget,
    private readonly limits: Limits = DEFAULT_LIMITS,
    private readonly run?: RunContext,
  ) {
    this.record = { label, outcome: 'answered', messages: [], noise: [], stderr: '', truncated: false, durationMs: 0 };
    this.deadline = run?.deadline;
  }

  private note(n: SessionNote): void {
    this.record.notes ??= [];
    if (this.record.notes.length < MAX_NOTES) this.record.notes.push(n);
    else this.record.truncated = true;
  }

  private settle(a: Answer): void {
    for (const w of this.pending.values()) w(a);
    this.pending.clear();
  }

  start(): boolean {
    // Every launched process is logged (S-21): what, where, with which environment keys — never their values.
    log.info(
      { command: this.target.command, args: this.target.args.length, cwd: this.target.cwd, envKeys: Object.keys(this.target.env).sort(), connection: this.record.label, containment: this.run?.plan.method },
      'probe: starting the target',
    );
    const executable = this.target.executable ?? this.target.command;
    const launch = this.run ? this.run.plan.wrap(executable, this.target.args) : { file: executable, args: this.target.args, ipc: false };
    const env = this.run ? { ...this.target.env, [MARKER_VAR]: this.run.marker } : this.target.env;
    try {
      this.child = execa(launch.file, launch.args, {
        cwd: this.target.cwd,
        env,
        extendEnv: false,
        shell: false,
        detached: true,
        // fd 3 (launcher only): a pipe whose end tells the launcher that mcp-doctor is gone.
        stdio: launch.ipc ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
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
    if (child.pid && this.run) trackPid(this.run.marker, child.pid);
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
      this.settle(this.closing ? { kind: 'timeout' } : { kind: 'closed' });
    });
    child.on('error', (e) => {
      // Could not start (or lost): nothing will answer, so nobody waits for it.
      if (!this.exited && this.record.messages.every((m) => m.dir === 'out')) {
        this.record.outcome = 'spawn-failed';
        this.record.detail = e.message;
      }
      this.exited = true;
      this.settle({ kind: 'closed' });
    });
    void child.then((r) => {
      if (r.failed && r.code === 'ENOENT') {
        this.record.outcome = 'spawn-failed';
        this.record.detail = r.shortMessage;
      }
    });
    const budget = this.deadline ? this.deadline.bound(this.limits.connectionTimeoutMs) : this.limits.connectionTimeoutMs;
    this.timer = setTimeout(() => void this.close(), budget);
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
      this.discardedHead = Buffer.concat([...this.buf, chunk]).subarray(0, 600).toString('utf8');
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
      // A line too long to read whole: one that does not even start like a JSON object is noise on stdout
      // whatever follows; one that does may be an oversized message, which is only a truncation.
      if (!/^\s*\{/.test(this.discardedHead)) this.noise(this.discardedHead);
      this.discardedHead = '';
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
    const at = Date.now() - this.started;
    if (depthExceeds(msg)) {
      // Not kept: nothing downstream (judging, saving) may walk it. A response still ends its wait.
      const n = tooDeepNote(msg, at, raw.length);
      if (n.kind === 'message-too-deep' && n.method === undefined && n.id !== undefined) {
        n.method = this.sent.get(idKey(n.id));
        this.answer({ jsonrpc: '2.0', id: n.id, error: { code: -32700, message: 'message too deep', data: { synthetic: true, reason: 'message-too-deep' } } });
      }
      this.note(n);
      return;
    }
    const m = msg as JsonRpc;
    this.log('in', m);
    if (m.method !== undefined && m.id !== undefined && m.id !== null) {
      // A request from the server. An elicitation is declined (the probe declares form elicitation so that a
      // server shows what it asks for; no user is there to answer). Anything else (ping, roots/list…): we are
      // not a full client.
      this.send(answerToServer(m));
      return;
    }
    if (m.id !== undefined && m.id !== null && m.method === undefined) this.answer(m);
  }

  /** A response: the first for an id is the answer (a client acts on it); a later one is a duplicate. */
  private answer(m: JsonRpc): void {
    const key = idKey(m.id);
    const w = this.pending.get(key);
    if (w) {
      this.pending.delete(key);
      this.answered.set(key, this.sent.get(key) ?? '');
      w({ kind: 'response', message: m });
    } else if (this.answered.has(key)) {
      const method = this.answered.get(key);
      this.note({ kind: 'duplicate-response', at: Date.now() - this.started, id: m.id as string | number, ...(method ? { method } : {}) });
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
    if (this.deadline?.expired) {
      this.deadline.hit = true;
      return Promise.resolve({ kind: 'timeout' });
    }
    const wait = this.deadline ? this.deadline.bound(timeoutMs) : timeoutMs;
    const id = this.nextId++;
    const key = idKey(id);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        if (this.deadline && wait < timeoutMs) this.deadline.hit = true;
        resolve({ kind: 'timeout' });
      }, wait);
      this.pending.set(key, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.sent.set(key, method);
      this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    });
  }

  /** End the connection and kill every process of the target. */
  async close(): Promise<Connection> {
    if (this.timer) clearTimeout(this.timer);
    this.closing = true;
    const child = this.child;
    if (child?.pid && !this.exited) {
      child.stdin?.end();
      // A server that exits when its input ends is done at once; the others get 100 ms before the kill.
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        child.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
    }
    if (child?.pid) await killTree(child.pid, this.run?.marker);
    if (child && !this.exited) {
      // The 2 s wait is cleared when the process exits first: a pending timer would hold mcp-doctor itself open.
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => (wait = setTimeout(r, 2000)))]);
      clearTimeout(wait);
    }
    if (child?.pid && this.run) untrackPid(this.run.marker, child.pid);
    this.settle({ kind: 'timeout' });
    this.record.durationMs = Date.now() - this.started;
    return this.record;
  }
}

/**
 * Kill a detached child's process group, every descendant still attached to it (and their groups), and, with
 * a run marker, every process that carries it — a daemon that left the tree included.
 */
export async function killTree(pid: number, marker?: string): Promise<void> {
  let descendants: number[] = [];
  try {
    descendants = await pidtree(pid);
  } catch {
    /* already gone */
  }
  // The targets first, the process we started (the launcher, the safety net) last: see killTarget.
  for (const d of descendants) killTarget(d, undefined);
  killTarget(pid, marker);
}

/**
 * The probe's answer to a request from the server, over any transport: an elicitation is declined (the probe
 * declares form elicitation so that a server shows what it asks for; no user is there to answer), anything else
 * (sampling, roots, ping…) gets a JSON-RPC error: the probe is not a full client. Never any data.
 */
export function answerToServer(m: JsonRpc): JsonRpc {
  if (m.method === 'elicitation/create') return { jsonrpc: '2.0', id: m.id, result: { action: 'decline' } };
  return { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'mcp-doctor probe does not serve client requests' } };
}
