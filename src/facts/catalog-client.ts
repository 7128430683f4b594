import { resolve } from 'node:path';
import type { Got, CatalogAnswer } from './gate.js';
import { beginRun, endRun, launchPlan, newRunMarker } from '../probe/contain.js';
import { scrubbedEnv } from '../probe/env.js';
import { HttpConnection, type HttpTarget } from '../probe/http.js';
import { resolveCommand } from '../probe/command.js';
import { CLIENT_INFO, LEGACY, type Requester } from '../probe/scenario.js';
import { checkUrl } from '../probe/ssrf.js';
import { Deadline, DEFAULT_LIMITS, StdioConnection, type Answer } from '../probe/stdio.js';

/**
 * C-14: ask the organisation's component catalogue (an MCP server named by the policy) for the package, with
 * the probe's own connections (raw JSON-RPC, the same containment and limits as a probe): initialize,
 * tools/list, then a call of the search tool with `{ query: <package name> }`. The answer is read from the raw
 * result: `structuredContent` (an array, or an object holding one), else the JSON of its text content. Only
 * entries whose `name` is the package's name are kept (at most MAX_ENTRIES). The catalogue's text is data.
 */

export const MAX_ENTRIES = 50;

export interface CatalogTarget {
  command?: string[];
  url?: string;
  searchTool: string;
  /** The folder a command runs in. */
  cwd: string;
  allowPrivate?: boolean;
  timeoutMs?: number;
}

const resultOf = (a: Answer): Record<string, unknown> | undefined =>
  a.kind === 'response' && typeof a.message.result === 'object' && a.message.result !== null ? (a.message.result as Record<string, unknown>) : undefined;

const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)) : [];

/** The entries of a search result: an array, or the first array field of an object (results, components, items…). */
export function entriesOf(result: Record<string, unknown>): Record<string, unknown>[] | undefined {
  const fromValue = (v: unknown): Record<string, unknown>[] | undefined => {
    if (Array.isArray(v)) return objects(v);
    if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      for (const k of ['results', 'components', 'items', 'entries', 'matches']) if (Array.isArray(o[k])) return objects(o[k]);
      if (typeof o.name === 'string') return [o];
    }
    return undefined;
  };
  const s = fromValue(result.structuredContent);
  if (s) return s;
  for (const c of objects(result.content)) {
    if (c.type !== 'text' || typeof c.text !== 'string') continue;
    try {
      const e = fromValue(JSON.parse(c.text));
      if (e) return e;
    } catch {
      /* not JSON: no entries in this block */
    }
  }
  return undefined;
}

async function search(c: Requester, name: string, tool: string): Promise<Got<CatalogAnswer>> {
  const init = await c.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO });
  if (!resultOf(init)) return { ok: false, reason: { code: 'catalog-unreachable', data: { error: init.kind === 'response' ? 'initialize refused' : init.kind } } };
  const list = resultOf(await c.request('tools/list', {}));
  const tools = objects(list?.tools).map((t) => t.name);
  if (!tools.includes(tool)) return { ok: false, reason: { code: 'catalog-search-tool-missing', data: { tool } } };
  const call = await c.request('tools/call', { name: tool, arguments: { query: name } });
  const r = resultOf(call);
  if (!r || r.isError === true) return { ok: false, reason: { code: 'catalog-search-failed', data: { tool, error: call.kind === 'response' && !r ? 'error response' : r ? 'isError' : call.kind } } };
  const entries = entriesOf(r);
  if (!entries) return { ok: false, reason: { code: 'catalog-answer-unreadable', data: { tool } } };
  return { ok: true, value: { tool, entries: entries.filter((e) => e.name === name).slice(0, MAX_ENTRIES) } };
}

/** Query the catalogue for `name`; every failure is a reason (never an empty catalogue). */
export async function queryCatalog(target: CatalogTarget, name: string): Promise<Got<CatalogAnswer>> {
  const limits = { ...DEFAULT_LIMITS, overallMs: target.timeoutMs ?? 30_000, connectionTimeoutMs: target.timeoutMs ?? 30_000 };
  if (target.url) {
    const v = await checkUrl(target.url, { allowPrivate: !!target.allowPrivate });
    if (!v.ok) return { ok: false, reason: { code: 'catalog-url-refused', data: { url: target.url, why: v.code } } };
    const t: HttpTarget = { url: v.url, address: v.address, family: v.family, addresses: v.addresses, headers: {} };
    const c = new HttpConnection('legacy', t, limits, false, new Deadline(limits.overallMs));
    try {
      return await search(c, name, target.searchTool);
    } finally {
      c.close();
    }
  }
  const [command, ...args] = target.command ?? [];
  if (!command) return { ok: false, reason: { code: 'catalog-not-named' } };
  const cwd = resolve(target.cwd);
  const env = scrubbedEnv();
  const executable = resolveCommand(command, cwd, env);
  if (!executable) return { ok: false, reason: { code: 'catalog-unreachable', data: { error: `command not found: ${command}` } } };
  const plan = await launchPlan();
  const run = { plan, marker: newRunMarker(), deadline: new Deadline(limits.overallMs) };
  beginRun(run.marker);
  const c = new StdioConnection('legacy', { command, executable, args, cwd, env }, limits, run);
  try {
    if (!c.start()) return { ok: false, reason: { code: 'catalog-unreachable', data: { error: 'the command did not start' } } };
    return await search(c, name, target.searchTool);
  } finally {
    await c.close();
    endRun(run.marker);
  }
}
