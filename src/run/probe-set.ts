import { dirname } from 'node:path';
import { readInside } from '../facts/safe-read.js';
import { SessionFacts } from '../facts/session.js';
import { buildLock, isSetLock, SET_LOCK_FORMAT, type SetLock, type SetLockEntry } from '../facts/lock.js';
import { neverAnswered, ProbeInputError, ProbeUnreachable, recordSession } from './probe.js';
import type { RecordedSession } from '../probe/session.js';
import type { ConfiguredServer, ProbedServer } from '../facts/client-configs.js';

/**
 * Probing a set of configured servers (only on request: it starts every one). Each server goes through the
 * probe's own path (recordSession): a stdio server with the scrubbed environment plus the variables its
 * configuration gives it, in its configured folder (else the project), contained and killed with its
 * process tree; a remote one through the SSRF policy, with its configured headers. At most `concurrency`
 * servers run at once.
 */

export type { ProbedServer } from '../facts/client-configs.js';

export const serverKey = (s: ConfiguredServer): string => `${s.client}:${s.scope}:${s.name}`;

/** Labels unique within the set: the name, or `name (client, scope)` when the name is used more than once. */
export function labels(servers: readonly ConfiguredServer[]): string[] {
  const count = new Map<string, number>();
  for (const s of servers) count.set(s.name, (count.get(s.name) ?? 0) + 1);
  return servers.map((s) => ((count.get(s.name) ?? 0) > 1 ? `${s.name} (${s.client}, ${s.scope})` : s.name));
}

export interface SetProbeOptions {
  project: string;
  concurrency?: number;
  timeoutMs?: number;
  allowPrivate?: boolean;
  signal?: AbortSignal;
  onServer?: (label: string) => void;
}

async function probeOne(s: ConfiguredServer, opts: SetProbeOptions): Promise<{ session?: RecordedSession; failure?: string }> {
  if (s.disabled) return { failure: 'disabled' };
  try {
    let session: RecordedSession;
    if (s.transport === 'stdio' && s.command) {
      session = await recordSession({ command: [s.command, ...(s.args ?? [])], cwd: s.cwd ?? opts.project, env: s.env ?? {}, timeoutMs: opts.timeoutMs, signal: opts.signal });
    } else if ((s.transport === 'http' || s.transport === 'sse') && s.url) {
      session = await recordSession({ url: s.url, headers: Object.fromEntries(Object.entries(s.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])), allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs, signal: opts.signal });
    } else return { failure: 'no-launch' };
    const silent = neverAnswered(session);
    return silent ? { session, failure: silent.cause } : { session };
  } catch (e) {
    if (e instanceof ProbeUnreachable) return { failure: e.data.cause };
    if (e instanceof ProbeInputError) return { failure: e.code };
    return { failure: 'probe-error' };
  }
}

export async function probeSet(servers: readonly ConfiguredServer[], opts: SetProbeOptions): Promise<ProbedServer[]> {
  const names = labels(servers);
  const out: ProbedServer[] = servers.map((server, i) => ({ server, key: serverKey(server), label: names[i]! }));
  let next = 0;
  const worker = async () => {
    while (next < out.length) {
      const p = out[next++]!;
      if (opts.signal?.aborted) {
        p.failure = 'cancelled';
        continue;
      }
      opts.onServer?.(p.label);
      const r = await probeOne(p.server, opts);
      if (r.session) p.session = r.session;
      if (r.failure) p.failure = r.failure;
      else if (r.session) p.facts = new SessionFacts(r.session);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, out.length)) }, worker));
  return out;
}

/** The set lock of the servers that answered (`pin --scan`), sorted by key. */
export function setLockOf(probed: readonly ProbedServer[]): SetLock {
  const servers: SetLockEntry[] = [];
  for (const p of probed) {
    if (!p.session || p.failure) continue;
    const lock = buildLock(p.session);
    if (!lock) continue;
    servers.push({ key: p.key, client: p.server.client, scope: p.server.scope, name: p.server.name, server: lock.server, items: lock.items });
  }
  servers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { format: SET_LOCK_FORMAT, servers };
}

/** The set lock in `file`: undefined when there is none, 'invalid' when the file is not one. */
export function readSetLock(file: string): SetLock | undefined | 'invalid' {
  const r = readInside(dirname(file), file, MAX_LOCK_BYTES);
  if (!r.ok) return r.cause === 'missing' ? undefined : 'invalid';
  try {
    const v: unknown = JSON.parse(r.text);
    return isSetLock(v) ? v : 'invalid';
  } catch {
    return 'invalid';
  }
}

const MAX_LOCK_BYTES = 32 * 1024 * 1024;
