/**
 * Which served tools are App tools, and how they link their UI. The MCP Apps specification links a tool to
 * its View with the nested `_meta.ui.resourceUri`; the flat `_meta["ui/resourceUri"]` is the deprecated form
 * (read for A-6, still honoured when rendering), and `_meta["io.modelcontextprotocol/ui"]` is the older
 * community form that used the extension id as a `_meta` key.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const NESTED_KEY = 'ui.resourceUri';
export const FLAT_KEY = 'ui/resourceUri';
export const COMMUNITY_KEY = 'io.modelcontextprotocol/ui';
export const APP_MIME = 'text/html;profile=mcp-app';
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

export type UiKey = 'nested' | 'flat' | 'community';

export interface UiLink {
  /** The ui:// resource the tool renders with (nested form preferred, as hosts do). */
  uri: string;
  /** Every form present in `_meta`, with its value. */
  keys: { key: UiKey; uri: string }[];
  /** `_meta.ui.visibility` as served (default: model and app). */
  visibility: string[];
}

const uiString = (v: unknown): string | undefined => (typeof v === 'string' && v.startsWith('ui://') ? v : undefined);

/** The UI a tool's `_meta` links, in any of the three forms, or undefined. */
export function uiLinkOf(meta: unknown): UiLink | undefined {
  if (!isObj(meta)) return undefined;
  const keys: UiLink['keys'] = [];
  const nested = isObj(meta.ui) ? uiString(meta.ui.resourceUri) : undefined;
  if (nested) keys.push({ key: 'nested', uri: nested });
  const flat = uiString(meta[FLAT_KEY]);
  if (flat) keys.push({ key: 'flat', uri: flat });
  const community = meta[COMMUNITY_KEY];
  const c = uiString(community) ?? (isObj(community) ? uiString(community.resourceUri) : undefined);
  if (c) keys.push({ key: 'community', uri: c });
  if (!keys.length) return undefined;
  const vis = isObj(meta.ui) && Array.isArray(meta.ui.visibility) ? meta.ui.visibility.filter((x): x is string => typeof x === 'string') : ['model', 'app'];
  return { uri: keys[0]!.uri, keys, visibility: vis };
}

export interface AppTool {
  name: string;
  link: UiLink;
  tool: Obj;
}

/** App tools of a tools/list, sorted by name, each name once. */
export function appTools(tools: readonly Obj[]): AppTool[] {
  const out = new Map<string, AppTool>();
  for (const t of tools) {
    if (typeof t.name !== 'string' || out.has(t.name)) continue;
    const link = uiLinkOf(t._meta);
    if (link) out.set(t.name, { name: t.name, link, tool: t });
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** True when a tool may be called by the View (its visibility includes "app"). */
export const callableByApp = (t: Obj): boolean => {
  const l = uiLinkOf(t._meta);
  if (l) return l.visibility.includes('app');
  const meta = isObj(t._meta) && isObj(t._meta.ui) ? t._meta.ui : undefined;
  return !(meta && Array.isArray(meta.visibility) && !meta.visibility.includes('app'));
};

/**
 * Does a call of this tool need an explicit user confirmation? Yes unless the tool is annotated
 * read-only, or annotated both not destructive and idempotent. A tool without annotations needs one; so does a
 * tool annotated only `destructiveHint: false` (the standard: never on that hint alone).
 */
export function needsConfirmation(tool: Obj | undefined): boolean {
  const a = tool && isObj(tool.annotations) ? tool.annotations : undefined;
  if (!a) return true;
  if (a.readOnlyHint === true) return false;
  return !(a.destructiveHint === false && a.idempotentHint === true);
}

/** Why a tool needs a confirmation, as a stable code for findings. */
export function confirmationCause(tool: Obj | undefined): 'not-annotated' | 'destructive' | 'not-idempotent' | 'none' {
  if (!needsConfirmation(tool)) return 'none';
  const a = tool && isObj(tool.annotations) ? tool.annotations : undefined;
  if (!a) return 'not-annotated';
  if (a.destructiveHint !== false) return 'destructive';
  return 'not-idempotent';
}
