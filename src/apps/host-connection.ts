import { checkUrl } from '../probe/ssrf.js';
import { HttpConnection } from '../probe/http.js';
import { CLIENT_INFO, LEGACY, MODERN, envelope, resultOf } from '../probe/scenario.js';
import type { Connection, JsonRpc } from '../probe/session.js';
import { DEFAULT_LIMITS, StdioConnection, type Answer, type Limits, type StdioTarget } from '../probe/stdio.js';
import { APP_MIME, UI_EXTENSION } from '../probe/apps-discover.js';

/**
 * The host's own MCP connection to the App server: one more connection (a new process for stdio), in the
 * era the probe saw the server answer, declaring the MCP Apps extension as a host does
 * (`extensions["io.modelcontextprotocol/ui"].mimeTypes`). Every message is recorded raw, like the probe's.
 */

export type HostTarget = { stdio: StdioTarget } | { http: { url: string; headers?: Record<string, string>; allowPrivate?: boolean } };

export const UI_CAPABILITY = { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME] } } };

export interface HostConnection {
  readonly era: 'modern' | 'legacy';
  request(method: string, params?: Record<string, unknown>): Promise<Answer>;
  close(): Promise<Connection>;
  readonly record: Connection;
}

const hostInfo = { ...CLIENT_INFO, name: 'mcp-doctor-apps-host' };

/** Open, and open the session (server/discover or initialize). Undefined with the connection record when it failed. */
export async function openHostConnection(target: HostTarget, era: 'modern' | 'legacy', limits: Partial<Limits> = {}): Promise<{ conn?: HostConnection; record: Connection; failure?: string }> {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const p = (x: Record<string, unknown> = {}) =>
    era === 'modern' ? envelope({ ...x, _meta: { 'io.modelcontextprotocol/clientCapabilities': UI_CAPABILITY, 'io.modelcontextprotocol/clientInfo': hostInfo, ...((x._meta as object) ?? {}) } }) : x;
  if ('stdio' in target) {
    const c = new StdioConnection('app', target.stdio, lim);
    if (!c.start()) return { record: await c.close(), failure: c.record.detail ?? 'spawn-failed' };
    const conn: HostConnection = { era, record: c.record, request: (m, x) => c.request(m, p(x)), close: () => c.close() };
    const open = era === 'modern' ? await c.request('server/discover', p()) : await c.request('initialize', { protocolVersion: LEGACY, capabilities: UI_CAPABILITY, clientInfo: hostInfo });
    if (!resultOf(open)) return { record: await c.close(), failure: describe(open) };
    if (era === 'legacy') c.notify('notifications/initialized');
    return { conn, record: c.record };
  }
  const verdict = await checkUrl(target.http.url, { allowPrivate: !!target.http.allowPrivate });
  if (!verdict.ok) return { record: { label: 'app', outcome: 'blocked', detail: verdict.code, messages: [], noise: [], stderr: '', truncated: false, durationMs: 0 }, failure: verdict.code };
  const h = new HttpConnection('app', { url: verdict.url, address: verdict.address, family: verdict.family, addresses: verdict.addresses, headers: { ...(target.http.headers ?? {}) } }, lim, era === 'modern');
  const conn: HostConnection = { era, record: h.record, request: (m, x) => h.request(m, p(x)), close: async () => h.close() };
  const open = era === 'modern' ? await h.request('server/discover', p()) : await h.request('initialize', { protocolVersion: LEGACY, capabilities: UI_CAPABILITY, clientInfo: hostInfo });
  const r = resultOf(open);
  if (!r) return { record: h.close(), failure: describe(open) };
  if (era === 'legacy') {
    const sid = h.record.http?.at(-1)?.response?.headers['mcp-session-id'];
    if (sid) h.sticky['mcp-session-id'] = sid;
    h.sticky['mcp-protocol-version'] = typeof r.protocolVersion === 'string' ? r.protocolVersion : LEGACY;
    await h.notify('notifications/initialized');
  } else h.sticky['mcp-protocol-version'] = MODERN;
  return { conn, record: h.record };
}

function describe(a: Answer): string {
  if (a.kind !== 'response') return a.kind;
  const e = (a.message as JsonRpc).error;
  return e ? `error ${String(e.code)}` : 'no result';
}

/** Every page of a list method (bounded). */
export async function listAll(c: HostConnection, method: string, key: string, maxPages = 10): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const r = resultOf(await c.request(method, cursor ? { cursor } : {}));
    if (!r) break;
    const items = r[key];
    if (Array.isArray(items)) out.push(...items.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)));
    cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return out;
}
