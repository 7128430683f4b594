import { couldNotJudge } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { SessionFacts } from '../../../facts/session.js';
import type { ConnectionLabel } from '../../../probe/session.js';
import { isObj, LEGACY_REVISION, listingPages, MODERN_REVISION, noEraServed, outcomeOf, short, type Obj } from './dynamic-support.js';

/**
 * What a server puts in front of the model, read from a recorded session: the served tools of the era
 * that answered, and every served text (names, titles, descriptions, schema strings, instructions) of
 * every era that answered, each with a short `where` label for finding data.
 */

/** The revision label of a connection, for message and reason data. */
export const revisionOf = (era: ConnectionLabel): string => (era === 'modern' ? MODERN_REVISION : LEGACY_REVISION);

/** The eras that answered their opening request, modern first. */
export const answeredEras = (facts: SessionFacts): ConnectionLabel[] => (['modern', 'legacy'] as const).filter((l) => facts.answered(l));

export type ServedTools = { ok: true; era: ConnectionLabel; tools: Obj[]; /** every page of tools/list was read */ complete: boolean } | { ok: false; verdict: Verdict };

/**
 * The tools served by the era that answered (modern preferred). could-not-judge when no era answered or
 * when tools/list failed although the tools capability is declared; an empty list when it is not declared.
 * `complete` says whether the listing was read to its last page: a clean verdict needs it (see
 * unreadToolPages).
 */
export function servedTools(facts: SessionFacts): ServedTools {
  const none = noEraServed(facts);
  if (none) return { ok: false, verdict: none };
  const era = facts.servingEra()!;
  if (!facts.capabilities(era).tools) return { ok: true, era, tools: [], complete: true };
  const first = facts.calls(era, 'tools/list')[0];
  if (!SessionFacts.result(first)) {
    const err = SessionFacts.error(first);
    const detail = err ? short(`${String(err.code)} ${String(err.message ?? '')}`.trim(), 120) : outcomeOf(facts, era);
    return { ok: false, verdict: couldNotJudge('tools-list-failed', { revision: revisionOf(era), detail }) };
  }
  return { ok: true, era, tools: facts.listed(era, 'tools/list'), complete: listReadToEnd(facts, era, 'tools/list') };
}

type ListMethod = 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';
const LISTS: [capability: string, method: ListMethod][] = [
  ['tools', 'tools/list'],
  ['prompts', 'prompts/list'],
  ['resources', 'resources/list'],
  ['resources', 'resources/templates/list'],
];
/** JSON-RPC "method not found": a server that answers so for a list serves nothing of that kind. */
const METHOD_NOT_FOUND = -32601;

/**
 * Was this list read to its end in this era: asked, answered with a result on every page, and its last
 * page has no nextCursor? A list the server does not implement (method not found) is read: it is empty.
 */
export function listReadToEnd(facts: SessionFacts, era: ConnectionLabel, method: ListMethod): boolean {
  const pages = listingPages(facts, era, method);
  const last = pages[pages.length - 1];
  if (!last) return false;
  const r = SessionFacts.result(last);
  if (r) return typeof r.nextCursor !== 'string';
  return pages.length === 1 && SessionFacts.error(last)?.code === METHOD_NOT_FOUND;
}

/**
 * The first list a server declares (by its capabilities, in an era that answered) that the session did not
 * read to its end, if any. A live part that judges "everything the server serves" is decided only when
 * there is none: a failed or truncated list leaves texts unread, and a clean verdict on part of them is
 * not earned. Item kinds the server does not declare are not served and need no reading.
 */
export function unreadServedList(facts: SessionFacts, kinds: readonly string[] = ['tools', 'prompts', 'resources']): { method: ListMethod; revision: string } | undefined {
  for (const era of answeredEras(facts)) {
    const caps = facts.capabilities(era);
    for (const [cap, method] of LISTS) {
      if (!kinds.includes(cap) || !caps[cap]) continue;
      if (!listReadToEnd(facts, era, method)) return { method, revision: revisionOf(era) };
    }
  }
  return undefined;
}

/**
 * A verdict that is only earned on a complete reading: red stands on what was read, but a clean or
 * not-applicable verdict over a reading with a gap (`gap`, when there is one) becomes that gap.
 */
export const earnedOn = (v: Verdict, gap: Verdict | undefined): Verdict => (gap && (v.state === 'present' || v.state === 'not-applicable') ? gap : v);

/** The verdict for a clean judgement over a tools listing that was not read to its end, if so. */
export function unreadToolPages(served: Extract<ServedTools, { ok: true }>): Verdict | undefined {
  return served.complete ? undefined : couldNotJudge('served-list-incomplete', { method: 'tools/list', revision: revisionOf(served.era) });
}

/** A tool's name as served, or its JSON when it is not a string. */
export const toolName = (t: Obj): string => (typeof t.name === 'string' ? t.name : short(t.name ?? null));

export interface ServedText {
  /** Where the text was served, e.g. `tool get_weather description`, `tool x inputSchema.properties.city.description`. */
  where: string;
  text: string;
  /** What the text is. `key` is a property name inside a schema. */
  field: 'name' | 'title' | 'description' | 'instructions' | 'schema' | 'key' | 'uri' | 'argument';
  /** The item it belongs to. */
  owner: { kind: 'tool' | 'prompt' | 'resource' | 'template' | 'server'; name: string };
  /** For a schema string: the property whose keyword this is (`sidenote` in `properties.sidenote.description`). */
  property?: string;
  /** For a schema string: the keyword (`description`, `enum`, `default`, `title`…). */
  keyword?: string;
}

const MAX_DEPTH = 16;
const MAX_TEXTS = 5000;

/** Every string in a JSON Schema, with property names, and the property each keyword belongs to. */
function schemaTexts(schema: unknown, base: string, owner: ServedText['owner'], out: ServedText[]): void {
  const walk = (node: unknown, path: string[], property: string | undefined, keyword: string | undefined, depth: number): void => {
    if (out.length >= MAX_TEXTS || depth > MAX_DEPTH) return;
    if (typeof node === 'string') {
      out.push({ where: `${owner.kind} ${owner.name} ${[base, ...path].join('.')}`, text: node, field: 'schema', owner, property, keyword });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, [...path, String(i)], property, keyword, depth + 1));
      return;
    }
    if (!isObj(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && isObj(v)) {
        for (const [name, sub] of Object.entries(v)) {
          out.push({ where: `${owner.kind} ${owner.name} ${[base, ...path, 'properties'].join('.')}`, text: name, field: 'key', owner, property: name });
          walk(sub, [...path, 'properties', name], name, undefined, depth + 1);
        }
      } else walk(v, [...path, k], property, keyword ?? k, depth + 1);
    }
  };
  walk(schema, [], undefined, undefined, 0);
}

/** Every text the server served to the model, in every era that answered; the same text at the same place once. */
export function servedTexts(facts: SessionFacts): ServedText[] {
  const out: ServedText[] = [];
  const str = (v: unknown): v is string => typeof v === 'string' && v !== '';
  for (const era of answeredEras(facts)) {
    const opening = facts.opening(era) ?? {};
    const info = facts.serverInfo(era);
    const server = { kind: 'server' as const, name: str(info?.name) ? info!.name! : '' };
    if (str(opening.instructions)) out.push({ where: 'server instructions', text: opening.instructions, field: 'instructions', owner: server });
    if (str(info?.name)) out.push({ where: 'server name', text: info!.name!, field: 'name', owner: server });
    const title = (info as Obj | undefined)?.title;
    if (str(title)) out.push({ where: 'server title', text: title, field: 'title', owner: server });

    const items: [ServedText['owner']['kind'], 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list', string][] = [
      ['tool', 'tools/list', 'name'],
      ['prompt', 'prompts/list', 'name'],
      ['resource', 'resources/list', 'uri'],
      ['template', 'resources/templates/list', 'uriTemplate'],
    ];
    for (const [kind, method, idKey] of items) {
      for (const item of facts.listed(era, method)) {
        const id = str(item[idKey]) ? (item[idKey] as string) : str(item.name) ? (item.name as string) : short(item[idKey] ?? null);
        const owner = { kind, name: id };
        const at = (field: string) => `${kind} ${id} ${field}`;
        if (str(item.name)) out.push({ where: at('name'), text: item.name, field: 'name', owner });
        if (kind === 'resource' || kind === 'template') {
          if (str(item[idKey])) out.push({ where: at(idKey), text: item[idKey] as string, field: 'uri', owner });
        }
        if (str(item.title)) out.push({ where: at('title'), text: item.title, field: 'title', owner });
        if (str(item.description)) out.push({ where: at('description'), text: item.description, field: 'description', owner });
        if (kind === 'tool') {
          for (const key of ['inputSchema', 'outputSchema'] as const) if (item[key] !== undefined) schemaTexts(item[key], key, owner, out);
          const ann = item.annotations;
          if (isObj(ann) && str(ann.title)) out.push({ where: at('annotations.title'), text: ann.title, field: 'title', owner });
        }
        if (kind === 'prompt' && Array.isArray(item.arguments)) {
          for (const a of item.arguments.filter(isObj)) {
            const name = str(a.name) ? a.name : '';
            if (name) out.push({ where: at(`argument ${name}`), text: name, field: 'argument', owner, property: name });
            if (str(a.description)) out.push({ where: at(`argument ${name} description`), text: a.description, field: 'schema', owner, property: name, keyword: 'description' });
            if (str(a.title)) out.push({ where: at(`argument ${name} title`), text: a.title, field: 'schema', owner, property: name, keyword: 'title' });
          }
        }
      }
    }
  }
  const seen = new Set<string>();
  return out.filter((t) => {
    const k = `${t.where}\u0000${t.text}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The names of the tools a server serves, in every era that answered. */
export function ownToolNames(facts: SessionFacts): Set<string> {
  const names = new Set<string>();
  for (const era of answeredEras(facts)) for (const t of facts.listed(era, 'tools/list')) if (typeof t.name === 'string') names.add(t.name);
  return names;
}

/** A bounded excerpt of `text` around [start, end), for evidence; never cuts a surrogate pair. */
export function excerpt(text: string, start: number, end: number, context = 60, max = 200): string {
  const low = (i: number) => i > 0 && i < text.length && /[\uDC00-\uDFFF]/.test(text[i]!);
  let from = Math.max(0, start - context);
  if (low(from)) from--;
  let to = Math.min(text.length, Math.max(end + context, from + 1), from + max);
  if (low(to)) to++;
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
