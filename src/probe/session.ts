/**
 * A recorded live session: every message that crossed the wire, in each protocol era, on its own
 * connection. Detectors judge these records only — never a client SDK's parsed objects, which strip
 * `resultType` and invent `ttlMs`/`cacheScope` (observed on SDK 2.4.0).
 * A session is saved as JSON (`--save-session`) and judged again offline (`--from-session`).
 */

import type { AppsRecord } from './apps-record.js';
import { MAX_NOTES, type Connection, type HttpExchange, type SessionNote } from './wire.js';

export const SESSION_FORMAT = 'mcp-doctor-session/1';

export { MAX_NOTES, type Connection, type ConnectionLabel, type HttpExchange, type JsonRpc, type SessionNote, type WireMessage } from './wire.js';

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
  /** How a stdio target was contained (a PID namespace, or the process-group fallback and why). */
  containment?: { method: 'pid-namespace' | 'process-group'; reason?: string };
}

export const isSession = (v: unknown): v is RecordedSession =>
  typeof v === 'object' && v !== null && (v as { format?: unknown }).format === SESSION_FORMAT && Array.isArray((v as { connections?: unknown }).connections);

/**
 * Deepest nesting accepted in one message. Real messages (a tool list with nested JSON Schemas) stay far below;
 * a hostile 100k-deep message would blow the stack of every recursive walk downstream (JSON.stringify included).
 */
export const MAX_MESSAGE_DEPTH = 256;

/** Is any object or array in `v` nested deeper than `max`? Iterative: safe on any depth. */
export function depthExceeds(v: unknown, max: number = MAX_MESSAGE_DEPTH): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (d > max) return true;
    for (const c of Object.values(x as object)) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

const scalarId = (m: unknown): string | number | undefined => {
  const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
  return typeof id === 'number' || (typeof id === 'string' && id.length <= 200) ? id : undefined;
};

/** The note that stands for an over-deep message (its id and method when they are scalars). */
export function tooDeepNote(message: unknown, at: number, bytes: number): SessionNote {
  const method = typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined;
  const id = scalarId(message);
  return { kind: 'message-too-deep', at, bytes, limit: MAX_MESSAGE_DEPTH, ...(id !== undefined ? { id } : {}), ...(typeof method === 'string' ? { method: method.slice(0, 200) } : {}) };
}

/**
 * A session read from a file is as untrusted as a live target: every over-deep message is replaced by its note,
 * as on intake. Returns false when something else in the file is still over-deep (not a session we wrote).
 */
export function capSessionDepth(session: RecordedSession): boolean {
  const cap = (messages: unknown[] | undefined, onNote: (n: SessionNote) => void, wrapped: boolean) => {
    if (!Array.isArray(messages)) return;
    for (let i = 0; i < messages.length; i++) {
      const w = messages[i] as { message?: unknown; at?: unknown } | undefined;
      const m = wrapped ? w?.message : w;
      if (typeof m !== 'object' || m === null || !depthExceeds(m)) continue;
      onNote(tooDeepNote(m, typeof w?.at === 'number' ? w.at : 0, 0));
      messages.splice(i--, 1);
    }
  };
  for (const c of session.connections) {
    if (typeof c !== 'object' || c === null) return false;
    const note = (n: SessionNote) => (c.notes = [...(Array.isArray(c.notes) ? c.notes : []), n].slice(0, MAX_NOTES));
    cap(c.messages, note, true);
    for (const x of Array.isArray(c.http) ? c.http : []) cap(x?.response?.messages, note, false);
  }
  for (const x of Array.isArray(session.httpChecks) ? session.httpChecks : []) if (x?.response) cap(x.response.messages, () => undefined, false);
  // Headroom for the session's own envelope around a message.
  return !depthExceeds(session, MAX_MESSAGE_DEPTH + 16);
}
