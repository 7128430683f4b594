import { couldNotJudge } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { SessionFacts, type Exchange } from '../../../facts/session.js';
import type { ConnectionLabel } from '../../../probe/session.js';

/**
 * Small helpers shared by the dynamic detectors: how a connection ended, the pages of one listing, and
 * bounded copies of values served by the target.
 */

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The revision the probe audits, and the 2025 floor it offers. */
export const MODERN_REVISION = '2026-07-28';
export const LEGACY_REVISION = '2025-06-18';

/** Published MCP protocol revisions. */
export const KNOWN_REVISIONS: readonly string[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

export const LIST_METHODS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'] as const;
export type ListMethod = (typeof LIST_METHODS)[number];
export const LIST_KEY: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/**
 * How a connection ended, as a token for reason and message data: the recorded outcome with `_` for `-`
 * (ICU select keys cannot hold a hyphen), or `missing` when the connection was not recorded.
 */
export const outcomeOf = (facts: SessionFacts, label: ConnectionLabel): string => (facts.connection(label)?.outcome ?? 'missing').replace(/-/g, '_');

/** Did the connection get any response at all (a result or a JSON-RPC error) to its opening request? */
export const responded = (facts: SessionFacts, label: ConnectionLabel): boolean => !!facts.exchanges(label)[0]?.response;

/** Outcomes that say nothing about the server: the request never reached it, or was stopped before it. */
export const UNREACHED = ['spawn_failed', 'blocked', 'missing'];

/**
 * For rules that apply only when 2026-07-28 is served: could-not-judge when neither era could be read or
 * the modern request never reached the server; undefined when the modern connection answered with a result
 * or the server simply did not answer it with one (the caller then says not-applicable).
 */
export function modernUnread(facts: SessionFacts): Verdict | undefined {
  if (facts.answered('modern')) return undefined;
  const outcome = outcomeOf(facts, 'modern');
  if (UNREACHED.includes(outcome)) return couldNotJudge('connection-not-run', { era: 'modern', outcome });
  return noEraServed(facts);
}

/** could-not-judge when neither era answered its opening request with a result, else undefined. */
export function noEraServed(facts: SessionFacts): Verdict | undefined {
  if (facts.servingEra()) return undefined;
  return couldNotJudge('no-era-served', { modern: outcomeOf(facts, 'modern'), legacy: outcomeOf(facts, 'legacy') });
}

/** A request's params object (empty when absent). */
export const paramsOf = (e: Exchange): Obj => (isObj(e.request.params) ? e.request.params : {});

/**
 * The exchanges of the first listing of a method: the call without a cursor, then each call that sent back
 * the nextCursor of the previous page. Stops at an error, a missing answer or a cursor the probe did not send.
 */
export function listingPages(facts: SessionFacts, label: ConnectionLabel, method: string): Exchange[] {
  const out: Exchange[] = [];
  let expect: string | undefined;
  for (const e of facts.calls(label, method)) {
    const cursor = paramsOf(e).cursor;
    if ((typeof cursor === 'string' ? cursor : undefined) !== expect) break;
    out.push(e);
    const r = SessionFacts.result(e);
    if (!r) break;
    expect = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
    if (!expect) break;
  }
  return out;
}

/** The identity of a list item: its URI, URI template or name (the whole item when it has none). */
export const itemKey = (item: Obj): string =>
  typeof item.uri === 'string' ? `uri:${item.uri}` : typeof item.uriTemplate === 'string' ? `tpl:${item.uriTemplate}` : typeof item.name === 'string' ? `name:${item.name}` : JSON.stringify(item);

/** What an item is called in a quoted order: its name, URI or URI template as served. */
const itemLabel = (item: Obj): string => (typeof item.uri === 'string' ? item.uri : typeof item.uriTemplate === 'string' ? item.uriTemplate : typeof item.name === 'string' ? item.name : evidenceOf(item.name ?? null, 60));

/** One walk of a list: the items of each page answered with a result (their keys), and whether its last page closed it (no nextCursor). */
export interface Walk {
  pages: { keys: string[]; items: Obj[] }[];
  complete: boolean;
}

/** Walks gathered once per session facts, connection and method. */
const walksMemo = new WeakMap<SessionFacts, Map<string, Walk[]>>();

/**
 * Every walk of a list method on one connection, in order: each call without a cursor starts one, and the calls
 * that sent back the previous page's nextCursor continue it. A call with any other cursor (the probe's made-up
 * one) ends the walk in progress; a page without a result ends its walk.
 */
export function listingWalks(facts: SessionFacts, label: ConnectionLabel, method: ListMethod): Walk[] {
  let memo = walksMemo.get(facts);
  if (!memo) walksMemo.set(facts, (memo = new Map()));
  const key = `${label} ${method}`;
  let walks = memo.get(key);
  if (!walks) memo.set(key, (walks = readWalks(facts, label, method)));
  return walks;
}

function readWalks(facts: SessionFacts, label: ConnectionLabel, method: ListMethod): Walk[] {
  const walks: Walk[] = [];
  let current: Walk | undefined;
  let expect: string | undefined;
  for (const e of facts.calls(label, method)) {
    const c = paramsOf(e).cursor;
    const cursor = typeof c === 'string' ? c : undefined;
    if (cursor === undefined) walks.push((current = { pages: [], complete: false }));
    else if (!current || cursor !== expect) {
      current = undefined;
      continue;
    }
    const r = SessionFacts.result(e);
    if (!r) {
      current = undefined;
      continue;
    }
    const items = Array.isArray(r[LIST_KEY[method]]) ? (r[LIST_KEY[method]] as unknown[]).filter(isObj) : [];
    current.pages.push({ keys: items.map(itemKey), items });
    expect = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
    if (!expect) {
      current.complete = true;
      current = undefined;
    }
  }
  return walks.filter((w) => w.pages.length > 0);
}

const walkKeys = (w: Walk): string[] => w.pages.flatMap((p) => p.keys);
const walkItems = (w: Walk): Obj[] => w.pages.flatMap((p) => p.items);

/** Items of a walk served again on a later page of the same walk (a repeat inside one page is not paging), the first 50. */
export function repeatedAcrossPages(w: Walk): string[] {
  const firstPage = new Map<string, number>();
  const out = new Set<string>();
  w.pages.forEach((p, i) => {
    p.keys.forEach((k, j) => {
      const at = firstPage.get(k);
      if (at === undefined) firstPage.set(k, i);
      else if (at < i && out.size < 50) out.add(itemLabel(p.items[j]!));
    });
  });
  return [...out];
}

/** Did two walks serve the same items in the same order (compared whole when both are complete, else by first page)? */
export function sameSequence(a: Walk, b: Walk): boolean {
  const [x, y] = a.complete && b.complete ? [walkKeys(a), walkKeys(b)] : [a.pages[0]!.keys, b.pages[0]!.keys];
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

export type OrderComparison = { kind: 'same' } | { kind: 'reordered'; first: string[]; second: string[] } | { kind: 'set-changed' };

/**
 * How two walks order their items: compared whole when both are complete, else by their first pages. When the
 * sets differ, the items both served are compared in their relative order (a set that changed says nothing
 * about order); fewer than two such items compare nothing ('set-changed').
 */
export function compareOrder(a: Walk, b: Walk): OrderComparison {
  const whole = a.complete && b.complete;
  const side = (w: Walk) => (whole ? { keys: walkKeys(w), items: walkItems(w) } : w.pages[0]!);
  const [x, y] = [side(a), side(b)];
  if (x.keys.length === y.keys.length && x.keys.every((k, i) => k === y.keys[i])) return { kind: 'same' };
  const inX = new Set(x.keys);
  const inY = new Set(y.keys);
  const keep = (s: { keys: string[]; items: Obj[] }, other: Set<string>) => {
    const seen = new Set<string>();
    const out: { keys: string[]; items: Obj[] } = { keys: [], items: [] };
    s.keys.forEach((k, i) => {
      if (!other.has(k) || seen.has(k)) return;
      seen.add(k);
      out.keys.push(k);
      out.items.push(s.items[i]!);
    });
    return out;
  };
  const [cx, cy] = [keep(x, inY), keep(y, inX)];
  if (cx.keys.length < 2) return { kind: 'set-changed' };
  if (cx.keys.every((k, i) => k === cy.keys[i])) return { kind: 'same' };
  // Labels only for the stretch a quote can show (twoOrders starts just before the first difference).
  let at = 0;
  while (cx.keys[at] === cy.keys[at]) at++;
  const from = Math.max(0, at - 1);
  const label = (items: Obj[]) => [...Array<string>(from).fill(''), ...items.slice(from, from + 200).map(itemLabel)];
  return { kind: 'reordered', first: label(cx.items), second: label(cy.items) };
}

/**
 * Two orders quoted for evidence, from just before the first place they differ, each bounded: `a, b, …` on
 * each side of a ` | `.
 */
export function twoOrders(x: readonly string[], y: readonly string[], max = 190): string {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const from = Math.max(0, i - 1);
  const side = (s: readonly string[]) => {
    let out = from > 0 ? '…, ' : '';
    for (let k = from; k < s.length; k++) {
      const next = `${s[k]}${k + 1 < s.length ? ', ' : ''}`;
      if (out.length + next.length > max) return out + '…';
      out += next;
    }
    return out;
  };
  return `${side(x)} | ${side(y)}`;
}

/** A served value, bounded, as evidence (rendered inertly by the reports). */
export function evidenceOf(v: unknown, max = 200): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A short served token (tool name, version, error code) for message data, bounded. */
export function short(v: unknown, max = 64): string {
  const s = typeof v === 'string' ? v : evidenceOf(v, max);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}
