import { appTools, type UiKey } from '../probe/apps-discover.js';
import { SessionFacts } from '../facts/session.js';
import type { RepoFacts } from '../facts/repo.js';
import type { RecordedSession } from '../probe/session.js';
import { t } from './i18n.js';
import type { TargetKind } from './types.js';

/**
 * Why the report judged the target as the kind it did (`inputs.kind`), as data: the configuration, the
 * repository's files (extension.json, the ext-apps dependency, the UI extension in mcp.json, a source file linking a
 * tool to a `ui://` View), or the served
 * tools that link a `ui://` View, with the `_meta` key each uses (nested `ui.resourceUri`, the deprecated flat
 * `ui/resourceUri`, the old community id). Only for `app` and `extension`: a server needs no reason.
 */

export type KindReason =
  | { by: 'config' }
  | { by: 'extension-json' }
  | { by: 'dependency'; name: string }
  | { by: 'mcp-json'; extension: string }
  | { by: 'source'; file: string }
  | { by: 'served'; tools: { name: string; keys: UiKey[] }[]; more?: number };

export interface KindInputs {
  kind: TargetKind;
  because: KindReason[];
}

/** At most this many served App tools are named (a hostile server may list thousands). */
export const KIND_TOOLS_SHOWN = 20;

/** The served tools that link a View, over both eras, each name once, sorted. */
export function servedAppTools(session: RecordedSession): { name: string; keys: UiKey[] }[] {
  const facts = new SessionFacts(session);
  const byName = new Map<string, UiKey[]>();
  for (const era of ['modern', 'legacy'] as const) {
    for (const a of appTools(facts.listed(era, 'tools/list'))) if (!byName.has(a.name)) byName.set(a.name, a.link.keys.map((k) => k.key));
  }
  return [...byName.entries()].map(([name, keys]) => ({ name, keys })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function kindInputs(kind: TargetKind, opts: { configured: boolean; repo?: RepoFacts; session?: RecordedSession }): KindInputs | undefined {
  if (kind === 'server') return undefined;
  const because: KindReason[] = [];
  if (opts.configured) because.push({ by: 'config' });
  const repo = opts.repo;
  if (repo && kind === 'extension' && repo.has('extension.json')) because.push({ by: 'extension-json' });
  if (repo && kind === 'app') {
    const e = repo.appEvidence();
    if (e.dependency) because.push({ by: 'dependency', name: e.dependency });
    if (e.mcpJson) because.push({ by: 'mcp-json', extension: e.mcpJson });
    if (e.source) because.push({ by: 'source', file: e.source });
  }
  if (opts.session && kind === 'app') {
    const tools = servedAppTools(opts.session);
    if (tools.length) because.push({ by: 'served', tools: tools.slice(0, KIND_TOOLS_SHOWN), ...(tools.length > KIND_TOOLS_SHOWN ? { more: tools.length - KIND_TOOLS_SHOWN } : {}) });
  }
  return { kind, because };
}

/** The `_meta` key a tool uses, as written on the wire (literal, not translated). */
const KEY_TEXT: Record<UiKey, string> = { nested: '_meta.ui.resourceUri', flat: '_meta["ui/resourceUri"]', community: '_meta["io.modelcontextprotocol/ui"]' };

/**
 * One line saying why: `quote` renders text from the target (tool names, as a code span in Markdown, JSON-quoted
 * in an MCP result); our own literals (keys, file names) go through it too so that they read as code.
 */
export function kindWhyText(k: KindInputs, locale: string, quote: (s: string) => string): string {
  const R = (key: string, d?: Record<string, string | number>) => t(locale, `report.kindWhy.${key}`, d);
  const parts = k.because.map((b) => {
    switch (b.by) {
      case 'config':
        return R('config', { file: quote('.mcp-doctor.json') });
      case 'extension-json':
        return R('extensionJson', { file: quote('extension.json') });
      case 'dependency':
        return R('dependency', { name: quote(b.name) });
      case 'mcp-json':
        return R('mcpJson', { extension: quote(b.extension) });
      case 'source':
        return R('source', { file: quote(b.file) });
      case 'served':
        return R('served', {
          count: b.tools.length + (b.more ?? 0),
          tools: b.tools.map((x) => `${quote(x.name)} (${x.keys.map((key) => quote(KEY_TEXT[key])).join(', ')})`).join(', ') + (b.more ? R('more', { count: b.more }) : ''),
        });
    }
  });
  return R('line', { kind: t(locale, `kinds.${k.kind}`), reasons: parts.length ? parts.join('; ') : R('none') });
}
