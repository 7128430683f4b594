/**
 * A recorded live session: every message that crossed the wire, in each protocol era, on its own
 * connection. Detectors judge these records only — never a client SDK's parsed objects, which strip
 * `resultType` and invent `ttlMs`/`cacheScope` (observed on SDK 2.4.0).
 * A session is saved as JSON (`--save-session`) and judged again offline (`--from-session`).
 */

import type { AppsRecord } from '../apps/record.js';

export const SESSION_FORMAT = 'mcp-doctor-session/1';

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
  durationMs: number;
}

export interface RecordedSession {
  format: typeof SESSION_FORMAT;
  tool: { name: string; version: string };
  target: { transport: 'stdio'; command: string[]; cwd?: string } | { transport: 'http'; url: string };
  startedAt: string;
  durationMs: number;
  /** What the probe did beyond listing (for transparency: tools it called, and how). */
  actions: { kind: string; detail: string }[];
  connections: Connection[];
  /** HTTP-only transport checks (hostile Origin, bad headers, auth challenge), when the target is HTTP. */
  httpChecks?: HttpExchange[];
  /** The MCP Apps host harness (src/apps): the Views rendered, when the server serves UI resources. */
  apps?: AppsRecord;
}

export const isSession = (v: unknown): v is RecordedSession =>
  typeof v === 'object' && v !== null && (v as { format?: unknown }).format === SESSION_FORMAT && Array.isArray((v as { connections?: unknown }).connections);
