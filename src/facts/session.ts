import type { Connection, ConnectionLabel, HttpExchange, JsonRpc, RecordedSession } from '../probe/session.js';

/**
 * Read-only views over a recorded session, for dynamic detectors. Everything here is derived from the raw
 * messages on the wire.
 */

export interface Exchange {
  request: JsonRpc;
  /** Undefined when nothing answered (timeout, exit). */
  response?: JsonRpc;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class SessionFacts {
  constructor(readonly session: RecordedSession) {}

  /** A connection of the probe, or (label 'app') the App host harness's connection, which declared the UI extension. */
  connection(label: ConnectionLabel): Connection | undefined {
    return this.session.connections.find((c) => c.label === label) ?? (label === 'app' ? this.session.apps?.connection : undefined);
  }

  /** Request/response pairs of a connection, in order. */
  exchanges(label: ConnectionLabel): Exchange[] {
    const c = this.connection(label);
    if (!c) return [];
    // The first response for an id is the answer: a client acts on it and drops a later duplicate (the probe
    // records duplicates as notes), so a poisoned answer cannot hide behind a clean second one.
    const responses = new Map<unknown, JsonRpc>();
    for (const m of c.messages) {
      if (m.dir === 'in' && m.message.method === undefined && m.message.id != null && !responses.has(m.message.id)) responses.set(m.message.id, m.message);
    }
    return c.messages
      .filter((m) => m.dir === 'out' && m.message.method !== undefined && m.message.id != null)
      .map((m) => ({ request: m.message, response: responses.get(m.message.id) }));
  }

  /** Exchanges for one method. */
  calls(label: ConnectionLabel, method: string): Exchange[] {
    return this.exchanges(label).filter((e) => e.request.method === method);
  }

  /** The result object of a response, if it is a result. */
  static result(e: Exchange | undefined): Obj | undefined {
    return e?.response && isObj(e.response.result) ? e.response.result : undefined;
  }

  static error(e: Exchange | undefined): { code?: unknown; message?: unknown; data?: unknown } | undefined {
    return e?.response && isObj(e.response.error) ? (e.response.error as { code?: unknown }) : undefined;
  }

  /** Did this era answer its opening request with a result? */
  answered(label: ConnectionLabel): boolean {
    const first = this.exchanges(label)[0];
    return !!SessionFacts.result(first);
  }

  /** The opening result: DiscoverResult (modern) or InitializeResult (legacy, negotiation). */
  opening(label: ConnectionLabel): Obj | undefined {
    return SessionFacts.result(this.exchanges(label)[0]);
  }

  capabilities(label: ConnectionLabel): Obj {
    const o = this.opening(label);
    return o && isObj(o.capabilities) ? o.capabilities : {};
  }

  /** Server name/version as served: modern `_meta["io.modelcontextprotocol/serverInfo"]`, legacy `serverInfo`. */
  serverInfo(label: ConnectionLabel): { name?: string; version?: string } | undefined {
    const o = this.opening(label);
    if (!o) return undefined;
    const info = label === 'modern' ? (isObj(o._meta) ? o._meta['io.modelcontextprotocol/serverInfo'] : undefined) : o.serverInfo;
    return isObj(info) ? (info as { name?: string; version?: string }) : undefined;
  }

  /** Items of a list method across its pages (first listing only: pages linked by nextCursor from the first call). */
  listed(label: ConnectionLabel, method: 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list'): Obj[] {
    const key = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resourceTemplates' }[method];
    const out: Obj[] = [];
    let expectCursor: string | undefined;
    for (const e of this.calls(label, method)) {
      const params = isObj(e.request.params) ? e.request.params : {};
      const cursor = typeof params.cursor === 'string' ? params.cursor : undefined;
      if (cursor !== expectCursor) break;
      const r = SessionFacts.result(e);
      if (!r) break;
      const items = r[key];
      if (Array.isArray(items)) out.push(...items.filter(isObj));
      expectCursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
      if (!expectCursor) break;
    }
    return out;
  }

  /** The first era that answered, preferring modern. */
  servingEra(): ConnectionLabel | undefined {
    return this.answered('modern') ? 'modern' : this.answered('legacy') ? 'legacy' : undefined;
  }

  /** Tools as served, from the era that answered (modern preferred). */
  tools(): Obj[] {
    const era = this.servingEra();
    return era ? this.listed(era, 'tools/list') : [];
  }

  /** Every server→client message of a connection that is a result (for S-2), with its request method. */
  results(label: ConnectionLabel): { method: string; result: Obj }[] {
    return this.exchanges(label)
      .filter((e) => isObj(e.response?.result))
      .map((e) => ({ method: String(e.request.method), result: e.response!.result as Obj }));
  }

  isHttp(): boolean {
    return this.session.target.transport === 'http';
  }

  /** A transport check of an HTTP session (hostile-origin, unsupported-protocol-version, header-mismatch, …). */
  httpCheck(label: string): HttpExchange | undefined {
    return this.session.httpChecks?.find((x) => x.label === label);
  }

  /** The HTTP exchanges of one connection. */
  http(label: ConnectionLabel): HttpExchange[] {
    return this.connection(label)?.http ?? [];
  }

  /** Was the target on a loopback address? */
  loopback(): boolean {
    if (this.session.target.transport !== 'http') return false;
    const host = new URL(this.session.target.url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  }

  noise(): { label: ConnectionLabel; line: string }[] {
    return this.session.connections.flatMap((c) => c.noise.map((line) => ({ label: c.label, line })));
  }
}
