import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import type { SessionFacts } from '../../../facts/session.js';
import { appTools, type AppTool } from '../../../probe/apps-discover.js';
import type { AppsRecord, NetworkAttempt, ViewRun } from '../../../probe/apps-record.js';
import { HOST_ORIGIN, SANDBOX_ORIGIN, VIEW_PATH } from '../../../apps/host-pages.js';
import { noEraServed, type Obj } from '../live/dynamic-support.js';

/**
 * Shared reading of the MCP Apps host harness's record (session.apps, src/probe/apps-record.ts) for the dynamic
 * parts of A-2..A-7: which App tools the server lists, which Views were rendered, and the network attempts that
 * belong to a View (the browser's own start-up traffic, seen by the guard before the View was requested, is not
 * the View's).
 */

export interface AppsInput {
  record: AppsRecord;
  /** App tools as listed (both eras, by name). */
  apps: AppTool[];
  /** Every listed tool by name. */
  tools: Map<string, Obj>;
  /** The Views that were rendered. */
  rendered: ViewRun[];
}

/** Every listed tool (both eras), by name, first listing wins. */
export function listedTools(facts: SessionFacts): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const era of ['modern', 'legacy'] as const) for (const t of facts.listed(era, 'tools/list')) if (typeof t.name === 'string' && !out.has(t.name)) out.set(t.name, t);
  return out;
}

/** The App tools the session lists (n/a when none), or the verdict that stops the judgement. */
export function appsListed(facts: SessionFacts): { apps: AppTool[]; tools: Map<string, Obj> } | Verdict {
  const none = noEraServed(facts);
  if (none) return none;
  const tools = listedTools(facts);
  const apps = appTools([...tools.values()]);
  if (!apps.length) return notApplicable('no-ui-tool-served');
  return { apps, tools };
}

/** The harness's record with at least one rendered View, or why the browser part cannot be judged. */
export function renderedApps(facts: SessionFacts): AppsInput | Verdict {
  const listed = appsListed(facts);
  if ('state' in listed) return listed;
  const record = facts.session.apps;
  if (!record) return couldNotJudge('apps-not-recorded');
  if (record.skipped) return couldNotJudge(record.skipped.code, record.skipped.data);
  const rendered = record.views.filter((v) => v.outcome === 'rendered');
  if (!rendered.length) {
    const v = record.views[0];
    return couldNotJudge('apps-not-rendered', { tools: listed.apps.map((a) => a.name).join(', '), outcome: v ? `${v.read}/${v.outcome}${v.limitBytes ? ` > ${v.limitBytes}` : ''}` : 'none' });
  }
  return { record, ...listed, rendered };
}

/** Is this a request of our own host (the host page, the sandbox proxy, the View document itself)? */
function ownRequest(url: string): boolean {
  return url === HOST_ORIGIN + '/' || url.startsWith(`${SANDBOX_ORIGIN}/sandbox.html`) || /^(about|data|blob):/.test(url) || (url.startsWith(SANDBOX_ORIGIN + VIEW_PATH) && !url.slice((SANDBOX_ORIGIN + VIEW_PATH).length).includes('/'));
}

/** The network attempts of a View (its own, after its document was requested), one per origin, sorted. */
export function viewAttempts(v: ViewRun): NetworkAttempt[] {
  const byOrigin = new Map<string, NetworkAttempt>();
  for (const a of v.network) {
    if (a.via === 'guard' && a.at < 0) continue;
    if (ownRequest(a.url)) continue;
    const key = a.url.startsWith(SANDBOX_ORIGIN) ? a.url : a.origin;
    if (!byOrigin.has(key)) byOrigin.set(key, a);
  }
  return [...byOrigin.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, a]) => a);
}

/** A tools/call the View sent, with the response the host gave it (when it did). */
export interface ViewCall {
  id: string | number;
  name: string;
  sentAt: number;
  answeredAt?: number;
  /** The host refused it (the user did not allow the tool with --exercise). */
  refused: boolean;
}

export const REFUSAL_PREFIX = 'mcp-doctor did not run the tool';

export function viewCalls(v: ViewRun): ViewCall[] {
  const out: ViewCall[] = [];
  for (const m of v.bridge) {
    if (m.dir !== 'from-view' || m.message.method !== 'tools/call' || (typeof m.message.id !== 'string' && typeof m.message.id !== 'number')) continue;
    const p = (m.message.params ?? {}) as Obj;
    const answer = v.bridge.find((x) => x.dir === 'to-view' && x.message.id === m.message.id && !x.message.method && x.at >= m.at);
    const result = answer?.message.result as Obj | undefined;
    const content = result && Array.isArray(result.content) ? (result.content as Obj[]) : [];
    const refused = result?.isError === true && content.some((c) => typeof c.text === 'string' && c.text.startsWith(REFUSAL_PREFIX));
    out.push({ id: m.message.id, name: typeof p.name === 'string' ? p.name : '', sentAt: m.at, ...(answer ? { answeredAt: answer.at } : {}), refused });
  }
  return out;
}

/** The p-th percentile (nearest rank) of some figures. */
export function percentile(xs: readonly number[], p: number): number | undefined {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** HTML bundles of a repository (built Views): *.html under dist/, build/, out/ or public/, any depth. */
/** A built single-file View larger than this is not read (named as file-not-read), by every part that reads it. */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

export const BUNDLE_DIRS = /(^|\/)(dist|build|out|public|ui-dist)\//;
export const isBundleHtml = (f: string): boolean => /\.html?$/i.test(f) && BUNDLE_DIRS.test(f);

/**
 * The View's HTML as the server served it to our host: the raw `resources/read` answer on the host's own connection
 * (record.connection), by ui:// URI. Undefined when that answer was not recorded or holds no text.
 */
export function servedViewHtml(record: AppsRecord, uri: string): string | undefined {
  const msgs = record.connection?.messages ?? [];
  for (const out of msgs) {
    if (out.dir !== 'out' || out.message.method !== 'resources/read') continue;
    const p = (out.message.params ?? {}) as Obj;
    if (p.uri !== uri) continue;
    const answer = msgs.find((m) => m.dir === 'in' && m.message.id === out.message.id && !m.message.method);
    const result = answer?.message.result as Obj | undefined;
    const contents = result && Array.isArray(result.contents) ? (result.contents as Obj[]) : [];
    for (const c of contents) {
      if (typeof c.text === 'string' && c.text) return c.text;
      if (typeof c.blob === 'string' && c.blob) return Buffer.from(c.blob, 'base64').toString('utf8');
    }
  }
  return undefined;
}

/**
 * Could this View code call a server tool? A text reading, cheap enough for a probe that loads no parser: a method
 * call `.callServerTool(` / `.callTool(` (the App and the MCP client; neither library calls them itself), a JSON-RPC
 * message written out with `method: "tools/call", params: {…}`, or "tools/call" handed with an object literal to a
 * named request helper (`request('tools/call', { name })`). What the bundled libraries hold is no call: their
 * schema tables (`P("tools/call")`), their handler for calls from the host (`replaceRequestHandler("tools/call", fn)`)
 * and the body of callServerTool itself (`request({ method: "tools/call", params: p })`). A script loaded from elsewhere (`<script src>`) is code not read: undefined.
 */
export function viewCodeMayCallTools(html: string): boolean | undefined {
  if (/<script\b[^>]*\bsrc\s*=/i.test(html)) return undefined;
  return /\.\s*(?:callServerTool|callTool)\s*\(|\bmethod\s*:\s*(["'`])tools\/call\1\s*,\s*params\s*:\s*\{|(?<![\w$])[A-Za-z_$][\w$]{2,}\s*\(\s*(["'`])tools\/call\2\s*,\s*\{/.test(html);
}
