import { createHash } from 'node:crypto';
import { SessionFacts } from './session.js';
import type { RecordedSession } from '../probe/session.js';

/**
 * The lock of served definitions (X-3, rug pulls): `mcp-doctor pin` writes what a server serves — tools,
 * prompts, resources, templates, with annotations and schemas — as hashes plus readable copies. A later
 * probe compares what is served with the committed lock.
 */

export const LOCK_FORMAT = 'mcp-doctor-lock/1';
export const LOCK_FILE = 'mcp-doctor.lock.json';

export type LockKind = 'tool' | 'prompt' | 'resource' | 'template';

export interface LockItem {
  kind: LockKind;
  key: string;
  sha256: string;
  definition: Record<string, unknown>;
}

export interface Lock {
  format: typeof LOCK_FORMAT;
  server: { name?: string; version?: string };
  items: LockItem[];
}

/** JSON with object keys sorted at every depth, so equal definitions hash equally. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

const FIELDS: Record<LockKind, [method: 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list', key: string, fields: string[]]> = {
  tool: ['tools/list', 'name', ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']],
  prompt: ['prompts/list', 'name', ['name', 'title', 'description', 'arguments']],
  resource: ['resources/list', 'uri', ['uri', 'name', 'title', 'description', 'mimeType']],
  template: ['resources/templates/list', 'uriTemplate', ['uriTemplate', 'name', 'title', 'description', 'mimeType']],
};

/** The served definitions of a session, from the era that answered (modern preferred). */
export function servedDefinitions(s: SessionFacts): LockItem[] | undefined {
  const era = s.servingEra();
  if (!era) return undefined;
  const items: LockItem[] = [];
  for (const [kind, [method, key, fields]] of Object.entries(FIELDS) as [LockKind, (typeof FIELDS)[LockKind]][]) {
    for (const o of s.listed(era, method)) {
      const definition = pick(o, fields);
      items.push({ kind, key: String(o[key]), sha256: createHash('sha256').update(canonical(definition)).digest('hex'), definition });
    }
  }
  const order = ['tool', 'prompt', 'resource', 'template'];
  return items.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function buildLock(session: RecordedSession): Lock | undefined {
  const s = new SessionFacts(session);
  const items = servedDefinitions(s);
  if (!items) return undefined;
  const info = s.serverInfo(s.servingEra()!) ?? {};
  return { format: LOCK_FORMAT, server: { name: info.name, version: info.version }, items };
}

export const isLock = (v: unknown): v is Lock => typeof v === 'object' && v !== null && (v as Lock).format === LOCK_FORMAT && Array.isArray((v as Lock).items);

/**
 * One lock for a set of configured servers (`mcp-doctor pin --scan`): each server's served definitions under a
 * key that says where it is configured (client, scope, name). `scan --probe` compares what each server serves
 * now with its entry and reports drift per server and item.
 */
export const SET_LOCK_FORMAT = 'mcp-doctor-set-lock/1';
export const SET_LOCK_FILE = 'mcp-doctor.scan-lock.json';

export interface SetLockEntry {
  key: string;
  client: string;
  scope: string;
  name: string;
  server: Lock['server'];
  items: LockItem[];
}

export interface SetLock {
  format: typeof SET_LOCK_FORMAT;
  servers: SetLockEntry[];
}

export const isSetLock = (v: unknown): v is SetLock =>
  typeof v === 'object' && v !== null && (v as SetLock).format === SET_LOCK_FORMAT && Array.isArray((v as SetLock).servers) && (v as SetLock).servers.every((s) => typeof s?.key === 'string' && Array.isArray(s.items));

export interface Drift {
  kind: LockKind;
  key: string;
  change: 'added' | 'removed' | 'changed';
}

/** What changed between locked and served items (sorted by kind, key). */
export function itemDrift(locked: readonly LockItem[], served: readonly LockItem[]): Drift[] {
  const id = (i: LockItem) => `${i.kind}\0${i.key}`;
  const before = new Map(locked.map((i) => [id(i), i]));
  const after = new Map(served.map((i) => [id(i), i]));
  const out: Drift[] = [];
  for (const [k, i] of after) {
    const b = before.get(k);
    if (!b) out.push({ kind: i.kind, key: i.key, change: 'added' });
    else if (b.sha256 !== i.sha256) out.push({ kind: i.kind, key: i.key, change: 'changed' });
  }
  for (const [k, i] of before) if (!after.has(k)) out.push({ kind: i.kind, key: i.key, change: 'removed' });
  const order = ['tool', 'prompt', 'resource', 'template'];
  return out.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
