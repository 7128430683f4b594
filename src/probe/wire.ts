/**
 * What crossed the wire on one connection of a probe: the JSON-RPC messages, the HTTP exchanges, the notes on
 * what was odd, and how the connection ended. A recorded session (probe/session.ts) is a list of these.
 */

export type JsonRpc = Record<string, unknown> & { jsonrpc?: string; id?: string | number | null; method?: string; params?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };

export interface WireMessage {
  dir: 'out' | 'in';
  /** Milliseconds since the connection started. */
  at: number;
  message: JsonRpc;
}

/** One HTTP exchange (Streamable HTTP targets). Bodies are bounded. */
export interface HttpExchange {
  label: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean; messages: JsonRpc[] };
  error?: string;
  at: number;
}

/** 'app': the MCP Apps host harness's own connection (kept in `apps`, not in `connections`). */
export type ConnectionLabel = 'modern' | 'legacy' | 'negotiation' | 'locale' | 'app';

/**
 * What the probe noticed on the wire beyond the messages themselves, as data:
 * - `duplicate-response`: a second response for an id already answered. The client acts on the first, so the
 *   first is judged; the duplicate stays in `messages` as evidence.
 * - `message-too-deep`: a message nested deeper than MAX_MESSAGE_DEPTH, replaced by this note (it is not in
 *   `messages`), so that nothing downstream — judging, saving — walks it.
 */
export type SessionNote =
  | { kind: 'duplicate-response'; at: number; id: string | number; method?: string }
  | { kind: 'message-too-deep'; at: number; bytes: number; limit: number; id?: string | number; method?: string };

/** Notes kept per connection (a hostile server can send a million duplicates). */
export const MAX_NOTES = 50;

export interface Connection {
  label: ConnectionLabel;
  /** For a 'locale' connection: the locale asked for (through LANG / LC_ALL). */
  locale?: string;
  /** What happened: answered, refused (a JSON-RPC error), timeout, crashed (exit), or failed to start. */
  outcome: 'answered' | 'refused' | 'timeout' | 'exited' | 'spawn-failed' | 'http-error' | 'blocked';
  detail?: string;
  messages: WireMessage[];
  /** Lines on stdout that were not JSON-RPC, bounded. */
  noise: string[];
  /** Tail of stderr, bounded. */
  stderr: string;
  /** True when the capture bounds cut something. */
  truncated: boolean;
  exit?: { code: number | null; signal: string | null };
  http?: HttpExchange[];
  /** Duplicate responses, over-deep messages (bounded). */
  notes?: SessionNote[];
  durationMs: number;
}
