import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { answerToServer, type Answer, type Deadline, type Limits } from './stdio.js';
import { depthExceeds, MAX_NOTES, tooDeepNote, type Connection, type ConnectionLabel, type HttpExchange, type JsonRpc, type SessionNote } from './session.js';

/**
 * Streamable HTTP, as an untrusted peer: one POST per message, the connection pinned to the address the
 * SSRF policy checked, no redirects followed, bounded bodies and timeouts. Every exchange is recorded.
 */

export interface HttpTarget {
  url: URL;
  /** The address checked by the SSRF policy; the socket connects there whatever DNS says later. */
  address: string;
  family: 4 | 6;
  /** Every address the SSRF policy checked for the name (the socket may use any of them, no other). */
  addresses?: { address: string; family: 4 | 6 }[];
  headers: Record<string, string>;
}

/**
 * The DNS lookup of a request, pinned to the checked addresses. Node asks with `{ all: true }` when it
 * tries several addresses in turn (happy eyeballs, autoSelectFamily), and then wants an array; otherwise
 * one address. Either way only checked addresses are given, and a family filter is honoured.
 */
export function pinnedLookup(target: Pick<HttpTarget, 'address' | 'family' | 'addresses'>) {
  const checked = target.addresses?.length ? target.addresses : [{ address: target.address, family: target.family }];
  return (_host: string, o: { all?: boolean; family?: number | string }, cb: (...a: unknown[]) => void): void => {
    const fam = o.family === 'IPv4' ? 4 : o.family === 'IPv6' ? 6 : Number(o.family) || 0;
    const list = fam ? checked.filter((a) => a.family === fam) : checked;
    if (!list.length) {
      cb(Object.assign(new Error('no checked address of the family asked for'), { code: 'ENOTFOUND' }));
      return;
    }
    if (o.all) cb(null, list.map((a) => ({ address: a.address, family: a.family })));
    else cb(null, list[0]!.address, list[0]!.family);
  };
}

const MAX_BODY = 4 * 1024 * 1024;
/** Answers to server requests kept in the record; past that they are still sent, and the record says truncated. */
const MAX_KEPT_REPLIES = 200;

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The JSON-RPC messages of a body; an over-deep one is replaced by a note in `notes` (never kept). */
export function parseBody(contentType: string, body: string, notes?: SessionNote[], at = 0): JsonRpc[] {
  const sink = messageSink(contentType, notes, at);
  sink.feed(body);
  return sink.end();
}

/**
 * The JSON-RPC messages of a body read as it streams: an event stream is parsed event by event (each message is
 * given to `onMessage` as soon as its event ends), any other body once whole.
 */
function messageSink(contentType: string, notes?: SessionNote[], at = 0, onMessage?: (m: JsonRpc) => void) {
  const out: JsonRpc[] = [];
  const push = (s: string) => {
    try {
      const v = JSON.parse(s) as unknown;
      for (const m of Array.isArray(v) ? v : [v]) {
        if (typeof m !== 'object' || m === null) continue;
        if (depthExceeds(m)) notes?.push(tooDeepNote(m, at, s.length));
        else {
          out.push(m as JsonRpc);
          onMessage?.(m as JsonRpc);
        }
      }
    } catch {
      /* not JSON: kept in the raw body */
    }
  };
  if (contentType.includes('text/event-stream')) {
    const p = createParser({ onEvent: (e) => push(e.data) });
    return { feed: (text: string) => p.feed(text), end: () => out };
  }
  let whole = '';
  return {
    feed: (text: string) => void (whole += text),
    end: () => {
      if (whole.trim()) push(whole);
      return out;
    },
  };
}

/** One raw HTTP exchange, recorded. */
export function send(
  target: HttpTarget,
  opts: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    label: string;
    timeoutMs: number;
    started: number;
    deadline?: Deadline;
    notes?: SessionNote[];
    /** Each message of the response as soon as it is read (an event stream's events as they arrive). */
    onMessage?: (m: JsonRpc) => void;
    /** Longest body read (default 4 MiB); past it the body is cut and the exchange says truncated. */
    maxBodyBytes?: number;
  },
): Promise<HttpExchange> {
  // The whole exchange — connecting, headers, body — ends by the request timeout and by the probe's deadline.
  const timeoutMs = opts.deadline ? opts.deadline.bound(opts.timeoutMs) : opts.timeoutMs;
  const url = new URL(opts.path ?? target.url.pathname + target.url.search, target.url);
  const headers = { ...target.headers, ...opts.headers };
  const ex: HttpExchange = {
    label: opts.label,
    request: { method: opts.method ?? 'POST', url: url.href, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) },
    at: Date.now() - opts.started,
  };
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
    method: ex.request.method,
    headers: { ...headers, ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) },
    lookup: pinnedLookup(target) as never,
    timeout: timeoutMs,
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ex.error = 'timeout';
      if (opts.deadline && timeoutMs < opts.timeoutMs) opts.deadline.hit = true;
      req.destroy();
      resolve(ex);
    }, timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      if (!ex.error) ex.error = e.message;
      resolve(ex);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const headersOut = flatHeaders(res.headers);
      const sink = messageSink(headersOut['content-type'] ?? '', opts.notes, ex.at, opts.onMessage);
      const decoder = new StringDecoder('utf8');
      res.on('data', (d: Buffer) => {
        size += d.length;
        if (size > (opts.maxBodyBytes ?? MAX_BODY)) {
          truncated = true;
          res.destroy();
          return;
        }
        chunks.push(d);
        sink.feed(decoder.write(d));
      });
      let ended = false;
      const done = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        sink.feed(decoder.end());
        const body = Buffer.concat(chunks).toString('utf8');
        ex.response = { status: res.statusCode ?? 0, headers: headersOut, body, truncated, messages: sink.end() };
        resolve(ex);
      };
      res.on('end', done);
      res.on('close', done);
    });
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** An MCP connection over Streamable HTTP for one era (a Requester for the shared scenario). */
export class HttpConnection {
  readonly record: Connection;
  private readonly started = Date.now();
  private nextId = 1;
  /** Headers every request of this connection carries (protocol version, session id after initialize). */
  readonly sticky: Record<string, string> = {};

  constructor(
    label: ConnectionLabel,
    private readonly target: HttpTarget,
    private readonly limits: Limits,
    private readonly modern: boolean,
    private readonly deadline?: Deadline,
  ) {
    this.record = { label, outcome: 'answered', messages: [], noise: [], stderr: '', truncated: false, durationMs: 0, http: [] };
  }

  /** Ids answered once already (with their method): a second response is a duplicate. */
  private answered = new Map<string, string>();

  private note(n: SessionNote): void {
    this.record.notes ??= [];
    if (this.record.notes.length < MAX_NOTES) this.record.notes.push(n);
    else this.record.truncated = true;
  }

  private headersFor(method: string, params: unknown): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...this.sticky };
    if (this.modern) {
      h['mcp-protocol-version'] = '2026-07-28';
      h['mcp-method'] = method;
      const p = (params ?? {}) as { name?: unknown; uri?: unknown };
      if (method === 'tools/call' || method === 'prompts/get') {
        if (typeof p.name === 'string') h['mcp-name'] = p.name;
      } else if (method === 'resources/read' && typeof p.uri === 'string') h['mcp-name'] = p.uri;
    }
    return h;
  }

  /** Answers to the server's own requests, sent one after the other (a flood of requests is answered in turn). */
  private replies: Promise<void> = Promise.resolve();
  private repliesSent = 0;

  /**
   * A request from the server, read on a response's event stream: answered at once, the way the stdio probe
   * answers it (an elicitation declined, anything else a JSON-RPC error; never data), POSTed to the endpoint
   * with the connection's headers. The server may be waiting for it before it ends its response.
   */
  private answerServer(m: JsonRpc): void {
    const reply = answerToServer(m);
    this.replies = this.replies.then(async () => {
      if (this.deadline?.expired) return;
      const at = Date.now() - this.started;
      const keep = this.repliesSent++ < MAX_KEPT_REPLIES;
      if (keep) this.record.messages.push({ dir: 'out', at, message: reply });
      else this.record.truncated = true;
      const ex = await send(this.target, {
        label: `${this.record.label} response to ${String(m.method)}`,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...this.sticky, ...(this.modern ? { 'mcp-protocol-version': '2026-07-28' } : {}) },
        body: JSON.stringify(reply),
        timeoutMs: this.limits.requestTimeoutMs,
        started: this.started,
        deadline: this.deadline,
      });
      if (keep) this.record.http!.push(ex);
    });
  }

  private async post(message: JsonRpc): Promise<HttpExchange> {
    this.record.messages.push({ dir: 'out', at: Date.now() - this.started, message });
    const notes: SessionNote[] = [];
    const ex = await send(this.target, {
      onMessage: (m) => {
        if (m.method !== undefined && m.id !== undefined && m.id !== null) this.answerServer(m);
      },
      label: `${this.record.label} ${String(message.method)}`,
      headers: this.headersFor(String(message.method), message.params),
      body: JSON.stringify(message),
      timeoutMs: this.limits.requestTimeoutMs,
      started: this.started,
      deadline: this.deadline,
      notes,
      maxBodyBytes: this.limits.maxBodyBytes,
    });
    this.record.http!.push(ex);
    for (const n of notes) this.note(n);
    for (const m of ex.response?.messages ?? []) {
      this.record.messages.push({ dir: 'in', at: ex.at, message: m });
      if (m.method !== undefined || m.id === undefined || m.id === null) continue;
      const key = JSON.stringify(m.id);
      if (this.answered.has(key)) this.note({ kind: 'duplicate-response', at: ex.at, id: m.id, ...(this.answered.get(key) ? { method: this.answered.get(key) } : {}) });
      else if (m.id === message.id) this.answered.set(key, String(message.method));
    }
    if (ex.response?.truncated) this.record.truncated = true;
    return ex;
  }

  async request(method: string, params?: unknown): Promise<Answer> {
    if (this.deadline?.expired) {
      this.deadline.hit = true;
      return { kind: 'timeout' };
    }
    const id = this.nextId++;
    const ex = await this.post({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    if (ex.error === 'timeout') return { kind: 'timeout' };
    if (!ex.response) return { kind: 'closed' };
    const m = ex.response.messages.find((x) => x.id === id && x.method === undefined);
    if (m) return { kind: 'response', message: m };
    // A transport-level refusal (400/401/403/404/405…) without a JSON-RPC body: record it as an error.
    const synthetic: JsonRpc = { jsonrpc: '2.0', id, error: { code: -1, message: `HTTP ${ex.response.status}`, data: { httpStatus: ex.response.status, synthetic: true } } };
    return { kind: 'response', message: synthetic };
  }

  async notify(method: string, params?: unknown): Promise<void> {
    if (this.deadline?.expired) return;
    await this.post({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) });
  }

  close(): Connection {
    this.record.durationMs = Date.now() - this.started;
    return this.record;
  }
}
