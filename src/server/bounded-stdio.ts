import { PassThrough, type Readable, type Writable } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * A bounded line reader in front of the SDK's stdio transport.
 *
 * The SDK's reader holds a whole line in memory and, past its 10 MB limit, closes the transport: the server then
 * exits. Here every inbound line is measured as it arrives. A line longer than `maxLineBytes` is dropped while it
 * streams in (only its first and last few kilobytes are kept, to read its id), answered with a JSON-RPC error, and
 * the server keeps serving. A line that is not JSON gets -32700, valid JSON that is not a JSON-RPC message gets
 * -32600; only well-formed messages reach the SDK.
 */

/** Largest inbound message we accept. Our tools take short arguments; 1 MiB leaves a wide margin. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Bytes kept from each end of an over-long line to recover its id. */
const EDGE_BYTES = 4096;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

type Id = string | number | null;
export type Rejection = { code: typeof PARSE_ERROR | typeof INVALID_REQUEST; id: Id; cause: 'too-large' | 'not-json' | 'not-json-rpc'; size?: number };

// The id as the first member (or after "jsonrpc"/"method" with string values) at the start of a line, or as the
// last member at its end. In a well-formed line these are members of the top-level object: the head pattern
// starts at its opening brace, and the final `}` of a line closes the top-level object.
const STR = String.raw`"(?:[^"\\\n]|\\.){0,256}"`;
const ID = String.raw`(-?\d{1,16}|${STR})`;
const HEAD = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*${STR}\s*,)*\s*"id"\s*:\s*${ID}\s*[,}]`);
const TAIL = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of a message from the first and last bytes of its line, when it sits where serialisers put it; else null. */
export function recoverId(head: string, tail: string): Id {
  const m = HEAD.exec(head) ?? TAIL.exec(tail);
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(m[1]!);
    return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v)) ? v : null;
  } catch {
    return null;
  }
}

const idOf = (v: unknown): Id => {
  const id = v && typeof v === 'object' && !Array.isArray(v) ? (v as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
};

/**
 * Splits a byte stream into lines. Each line of at most `max` bytes goes to `onLine`; a longer one is never held:
 * `onTooLong` gets its size and first and last bytes.
 */
export class LineGate {
  private parts: Buffer[] = [];
  private size = 0;
  private head: Buffer | undefined;
  private tail = Buffer.alloc(0);

  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: (size: number, head: Buffer, tail: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  private take(piece: Buffer): void {
    if (!piece.length) return;
    this.size += piece.length;
    if (this.head) {
      this.tail = Buffer.concat([this.tail, piece.subarray(-EDGE_BYTES)]).subarray(-EDGE_BYTES);
      return;
    }
    this.parts.push(piece);
    if (this.size <= this.max) return;
    // Over the limit: keep the edges, let go of the rest.
    const all = Buffer.concat(this.parts);
    this.head = Buffer.from(all.subarray(0, EDGE_BYTES));
    this.tail = Buffer.from(all.subarray(-EDGE_BYTES));
    this.parts = [];
  }

  private endLine(): void {
    const { head, tail, size, parts } = this;
    this.parts = [];
    this.size = 0;
    this.head = undefined;
    this.tail = Buffer.alloc(0);
    if (head) this.onTooLong(size, head, tail);
    else if (parts.length) this.onLine(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  }
}

/**
 * Judges one complete line: the message to hand to the SDK, a rejection to answer, or nothing (a blank line).
 */
export function screenLine(line: Buffer): { forward: true } | { forward: false; rejection?: Rejection } {
  const text = line.toString('utf8');
  if (!text.trim()) return { forward: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { forward: false, rejection: { code: PARSE_ERROR, id: null, cause: 'not-json' } };
  }
  try {
    parseJSONRPCMessage(value);
  } catch {
    return { forward: false, rejection: { code: INVALID_REQUEST, id: idOf(value), cause: 'not-json-rpc' } };
  }
  return { forward: true };
}

export interface BoundedStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  maxLineBytes?: number;
  /** The text of the error answered for a rejected line. */
  message: (r: Rejection, limit: number) => string;
  onRejected?: (r: Rejection) => void;
}

/**
 * The SDK's StdioServerTransport reading from a gate over stdin instead of stdin itself: only screened lines
 * reach it; rejected lines are answered through it.
 */
export function boundedStdioTransport(opts: BoundedStdioOptions): StdioServerTransport {
  const stdin = opts.stdin ?? process.stdin;
  const limit = opts.maxLineBytes ?? MAX_MESSAGE_BYTES;
  const inner = new PassThrough();
  const transport = new StdioServerTransport(inner, opts.stdout ?? process.stdout);
  const answer = (r: Rejection) => {
    opts.onRejected?.(r);
    const reply = { jsonrpc: '2.0', id: r.id, error: { code: r.code, message: opts.message(r, limit), ...(r.size !== undefined ? { data: { size: r.size, limit } } : {}) } };
    transport.send(reply as unknown as JSONRPCMessage).catch(() => undefined);
  };
  const gate = new LineGate(
    limit,
    (line) => {
      const s = screenLine(line);
      if (s.forward) {
        if (!inner.writableEnded) inner.write(Buffer.concat([line, Buffer.from('\n')]));
      } else if (s.rejection) answer(s.rejection);
    },
    (size, head, tail) => answer({ code: INVALID_REQUEST, id: recoverId(head.toString('utf8'), tail.toString('utf8')), cause: 'too-large', size }),
  );
  stdin.on('data', (chunk: Buffer | string) => gate.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  const end = () => {
    if (!inner.writableEnded) inner.end();
  };
  stdin.once('end', end);
  stdin.once('close', end);
  stdin.on('error', (e) => inner.destroy(e));
  return transport;
}
