import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { readInside } from './safe-read.js';
import type { SessionFacts } from './session.js';
import type { RecordedSession } from '../probe/session.js';
import { CLIENTS, type ClientId } from './clients.js';
import { escapeRegExp } from './regex.js';

/**
 * Where MCP clients keep their server configurations, and the servers declared there. Nothing is started:
 * every file is read once (a regular file, bounded size), parsed with a maintained parser (jsonc-parser for
 * JSON and JSON with comments, smol-toml for Codex), and each server is kept with the file and line that
 * declares it. A missing file is no news; an unreadable, malformed or oddly shaped one is reported with a
 * cause, never a crash.
 */

export { CLIENTS, type ClientId } from './clients.js';

/** project: a file of the project (shared with whoever clones it); user: the user's own; local: the user's entry for this project. */
export type Scope = 'project' | 'user' | 'local';

/** A configuration file a client reads, and where its servers sit in it. */
export interface ConfigLocation {
  client: ClientId;
  scope: Scope;
  /** Absolute path. */
  path: string;
  /** The file is under the project (else under the home). */
  inProject: boolean;
  format: 'json' | 'jsonc' | 'toml';
  /** Path of the servers object in the document (JSON), or the TOML table that holds them. */
  servers: (string | number)[];
  /** Where the project's own entry sits inside a user file (Claude Code's `projects[<dir>]`). */
  projectEntry?: boolean;
}

/** Largest configuration file read (~/.claude.json keeps history and grows). */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** The files each client reads, for a project folder and a home folder (every platform's place: a scan may look at a copied home). */
export function configLocations(project: string, home: string): ConfigLocation[] {
  const p = (...s: string[]) => join(project, ...s);
  const h = (...s: string[]) => join(home, ...s);
  const appData = (...s: string[]) => [h('.config', ...s), h('Library', 'Application Support', ...s), h('AppData', 'Roaming', ...s)];
  const out: ConfigLocation[] = [
    { client: 'claude-code', scope: 'project', path: p('.mcp.json'), inProject: true, format: 'json', servers: ['mcpServers'] },
    { client: 'claude-code', scope: 'user', path: h('.claude.json'), inProject: false, format: 'json', servers: ['mcpServers'] },
    { client: 'claude-code', scope: 'local', path: h('.claude.json'), inProject: false, format: 'json', servers: ['projects', resolve(project), 'mcpServers'], projectEntry: true },
    ...appData('Claude', 'claude_desktop_config.json').map((path): ConfigLocation => ({ client: 'claude-desktop', scope: 'user', path, inProject: false, format: 'json', servers: ['mcpServers'] })),
    { client: 'cursor', scope: 'project', path: p('.cursor', 'mcp.json'), inProject: true, format: 'json', servers: ['mcpServers'] },
    { client: 'cursor', scope: 'user', path: h('.cursor', 'mcp.json'), inProject: false, format: 'json', servers: ['mcpServers'] },
    { client: 'vscode', scope: 'project', path: p('.vscode', 'mcp.json'), inProject: true, format: 'jsonc', servers: ['servers'] },
    ...appData('Code', 'User', 'mcp.json').map((path): ConfigLocation => ({ client: 'vscode', scope: 'user', path, inProject: false, format: 'jsonc', servers: ['servers'] })),
    ...appData('Code', 'User', 'settings.json').map((path): ConfigLocation => ({ client: 'vscode', scope: 'user', path, inProject: false, format: 'jsonc', servers: ['mcp', 'servers'] })),
    { client: 'windsurf', scope: 'user', path: h('.codeium', 'windsurf', 'mcp_config.json'), inProject: false, format: 'json', servers: ['mcpServers'] },
    { client: 'codex', scope: 'user', path: h('.codex', 'config.toml'), inProject: false, format: 'toml', servers: ['mcp_servers'] },
  ];
  return out;
}

/** One server as a client would launch or reach it. */
export interface ConfiguredServer {
  client: ClientId;
  scope: Scope;
  name: string;
  /** The file as shown in reports: relative to the project, or `~/…` under the home. */
  file: string;
  /** Absolute path of the file. */
  path: string;
  line: number;
  transport: 'stdio' | 'http' | 'sse' | 'unknown';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** The entry turns the server off (`disabled: true`, `enabled = false`). */
  disabled?: boolean;
  /** Line of each field as written (`command`, `args`, `env.KEY`, `headers.KEY`, `url`, `args.3`). */
  lines: Record<string, number>;
  /** Fields whose value is not what a client accepts (a number for the command, an object for args…). */
  odd: string[];
}

export type FileProblem = 'unreadable' | 'too-large' | 'not-regular' | 'malformed' | 'unexpected-shape';

export interface ConfigFile {
  client: ClientId;
  scope: Scope;
  file: string;
  path: string;
  status: 'read' | 'missing' | FileProblem;
  /** How many servers the file declares (for this scope). */
  servers: number;
  /** Where a malformed file breaks, and what the parser said (a parser's code word, never the file's text). */
  line?: number;
  detail?: string;
  size?: number;
  limit?: number;
}

export interface Discovery {
  project: string;
  home: string;
  files: ConfigFile[];
  servers: ConfiguredServer[];
}

/** A path as reports show it: relative to the project, `~/…` under the home, else absolute. */
export function displayPath(path: string, project: string, home: string): string {
  const under = (root: string) => {
    const r = relative(root, path);
    return r && !r.startsWith('..') && !isAbsolute(r) ? r.split(sep).join('/') : undefined;
  };
  const inProject = under(project);
  if (inProject !== undefined) return inProject;
  const inHome = under(home);
  return inHome !== undefined ? `~/${inHome}` : path.split(sep).join('/');
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Parsed {
  ok: true;
  /** The servers object's entries: name, value, line of the name, line of each field. */
  entries: { name: string; value: unknown; line: number; lines: Record<string, number> }[];
  /** The servers object exists but is not an object. */
  shape?: boolean;
}
type ParseOutcome = Parsed | { ok: false; line?: number; detail: string };

/** The line of every field (and of every key one level under `env`/`headers`/`args`) of a JSON server entry. */
function jsonLines(text: string, entry: JsonNode): Record<string, number> {
  const out: Record<string, number> = {};
  for (const prop of entry.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (!k || typeof k.value !== 'string') continue;
    out[k.value] = lineAt(text, k.offset);
    if (v?.type === 'object') for (const sub of v.children ?? []) {
      const sk = sub.children?.[0];
      if (sk && typeof sk.value === 'string') out[`${k.value}.${sk.value}`] = lineAt(text, sk.offset);
    }
    if (v?.type === 'array') (v.children ?? []).forEach((item, i) => (out[`${k.value}.${i}`] = lineAt(text, item.offset)));
  }
  return out;
}

function parseJson(text: string, at: (string | number)[], comments: boolean): ParseOutcome {
  const errors: ParseError[] = [];
  let root: JsonNode | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: comments, disallowComments: !comments });
  } catch (e) {
    // A hostile file nested deeper than the parser's stack: a cause, not a crash.
    if (e instanceof RangeError) return { ok: false, detail: 'too-deep' };
    throw e;
  }
  if (errors.length || !root) {
    const e = errors[0];
    return { ok: false, ...(e ? { line: lineAt(text, e.offset) } : {}), detail: e ? printParseErrorCode(e.error) : 'empty' };
  }
  if (root.type !== 'object') return { ok: false, line: 1, detail: 'not-an-object' };
  const node = findNodeAtLocation(root, at);
  if (!node) return { ok: true, entries: [] };
  if (node.type !== 'object') return { ok: true, entries: [], shape: true };
  const entries: Parsed['entries'] = [];
  for (const prop of node.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (!k || !v || typeof k.value !== 'string') continue;
    entries.push({ name: k.value, value: getNodeValue(v), line: lineAt(text, k.offset), lines: v.type === 'object' ? jsonLines(text, v) : {} });
  }
  return { ok: true, entries };
}


/**
 * Codex: `[mcp_servers.<name>]` tables. smol-toml gives values, not positions: the line of a server is the line
 * of its table header (bare or quoted name), and a field's line the first `key =` line after it.
 */
function parseCodex(text: string): ParseOutcome {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    const line = (e as { line?: unknown }).line;
    return { ok: false, ...(typeof line === 'number' ? { line } : {}), detail: 'toml-syntax' };
  }
  const servers = doc.mcp_servers;
  if (servers === undefined) return { ok: true, entries: [] };
  if (!isObj(servers)) return { ok: true, entries: [], shape: true };
  const lines = text.split('\n');
  const entries: Parsed['entries'] = [];
  for (const [name, value] of Object.entries(servers)) {
    const header = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*(?:${escapeRegExp(name)}|"${escapeRegExp(name)}"|'${escapeRegExp(name)}')\\s*\\]`);
    let start = lines.findIndex((l) => header.test(l));
    const fieldLines: Record<string, number> = {};
    if (start >= 0) {
      for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
        const m = /^\s*([A-Za-z0-9_-]+)\s*=/.exec(lines[i]!);
        if (m && fieldLines[m[1]!] === undefined) fieldLines[m[1]!] = i + 1;
      }
    } else start = Math.max(0, lines.findIndex((l) => l.includes('mcp_servers')));
    entries.push({ name, value, line: start + 1, lines: fieldLines });
  }
  return { ok: true, entries };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
const stringMap = (v: unknown): Record<string, string> | undefined => {
  if (!isObj(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
  return out;
};

/** A client's entry as one shape (the clients agree on command/args/env/url; they differ on a few names). */
export function normalizeEntry(loc: ConfigLocation, name: string, value: unknown, line: number, lines: Record<string, number>, file: string): ConfiguredServer {
  const s: ConfiguredServer = { client: loc.client, scope: loc.scope, name, file, path: loc.path, line, transport: 'unknown', lines, odd: [] };
  if (!isObj(value)) {
    s.odd.push('entry');
    return s;
  }
  const v = value;
  if (typeof v.command === 'string') s.command = v.command;
  else if (v.command !== undefined) s.odd.push('command');
  if (v.args !== undefined) {
    const a = strings(v.args);
    if (a) s.args = a;
    else s.odd.push('args');
  }
  if (v.env !== undefined) {
    const e = stringMap(v.env);
    if (e) s.env = e;
    else s.odd.push('env');
  }
  if (typeof v.cwd === 'string') s.cwd = v.cwd;
  const url = v.url ?? v.serverUrl ?? v.httpUrl;
  if (typeof url === 'string') s.url = url;
  else if (url !== undefined) s.odd.push('url');
  const headers = v.headers ?? v.http_headers;
  if (headers !== undefined) {
    const hd = stringMap(headers);
    if (hd) s.headers = hd;
    else s.odd.push('headers');
  }
  if (v.disabled === true || v.enabled === false) s.disabled = true;
  const type = typeof v.type === 'string' ? v.type.toLowerCase() : typeof v.transport === 'string' ? v.transport.toLowerCase() : undefined;
  if (s.command !== undefined && s.url === undefined) s.transport = 'stdio';
  else if (s.url !== undefined && s.command === undefined) s.transport = type === 'sse' ? 'sse' : 'http';
  else if (type === 'stdio' && s.command) s.transport = 'stdio';
  return s;
}

/** Find every configured server of the chosen clients, with the state of every file looked at. */
export function discover(opts: { project: string; home?: string; clients?: readonly ClientId[]; /** Only the files inside the project (the MCP tool's default). */ projectOnly?: boolean }): Discovery {
  const project = resolve(opts.project);
  const home = resolve(opts.home ?? homedir());
  const want = new Set(opts.clients ?? CLIENTS);
  const files: ConfigFile[] = [];
  const servers: ConfiguredServer[] = [];
  const texts = new Map<string, ReturnType<typeof readInside>>();
  for (const loc of configLocations(project, home)) {
    if (!want.has(loc.client) || (opts.projectOnly && !loc.inProject)) continue;
    const file = displayPath(loc.path, project, home);
    // A file of the project is read inside the project (a link out of it is refused); the user's own files may be links (dotfiles).
    let read = texts.get(loc.path);
    if (!read) {
      read = loc.inProject ? readInside(project, loc.path, MAX_CONFIG_BYTES) : readInside(sep, loc.path, MAX_CONFIG_BYTES);
      texts.set(loc.path, read);
    }
    const base = { client: loc.client, scope: loc.scope, file, path: loc.path };
    if (!read.ok) {
      if (read.cause === 'missing') continue;
      const status: FileProblem = read.cause === 'too-large' ? 'too-large' : read.cause === 'not-regular' ? 'not-regular' : 'unreadable';
      // The same file read for two scopes is reported once.
      if (!files.some((f) => f.path === loc.path)) files.push({ ...base, status, servers: 0, ...(read.size !== undefined ? { size: read.size } : {}), ...(read.limit !== undefined ? { limit: read.limit } : {}) });
      continue;
    }
    const parsed = loc.format === 'toml' ? parseCodex(read.text) : parseJson(read.text, loc.servers, loc.format === 'jsonc');
    if (!parsed.ok) {
      if (!files.some((f) => f.path === loc.path)) files.push({ ...base, status: 'malformed', servers: 0, ...(parsed.line ? { line: parsed.line } : {}), detail: parsed.detail });
      continue;
    }
    if (parsed.shape) {
      files.push({ ...base, status: 'unexpected-shape', servers: 0, detail: loc.servers.join('.') });
      continue;
    }
    // The per-project entry of ~/.claude.json counts only when it exists.
    if (loc.projectEntry && parsed.entries.length === 0) continue;
    files.push({ ...base, status: 'read', servers: parsed.entries.length });
    for (const e of parsed.entries) servers.push(normalizeEntry(loc, e.name, e.value, e.line, e.lines, file));
  }
  return { project, home, files, servers };
}

/** A server as the report lists it: nothing secret (env and header values left out, secret arguments masked). */
export interface ListedServer {
  client: ClientId;
  scope: string;
  name: string;
  file: string;
  line: number;
  transport: string;
  launch?: string;
  url?: string;
  envKeys?: string[];
  headerKeys?: string[];
  disabled?: boolean;
  /** After --probe: 'answered', or why not. */
  probe?: string;
  tools?: number;
}

export interface ScanSection {
  project: string;
  home: string;
  probed: boolean;
  files: Omit<ConfigFile, 'path'>[];
  servers: ListedServer[];
}

/** A configured server and what probing it gave (run/probe-set.ts). */
export interface ProbedServer {
  server: ConfiguredServer;
  /** The key of the server in a set lock: where it is configured. */
  key: string;
  /** The name the set analysis uses: the configured name, with its client when two clients use the same one. */
  label: string;
  session?: RecordedSession;
  facts?: SessionFacts;
  /** Why the server gave no session to judge: a word (not-found, exited, timeout, ssrf code, no-launch…). */
  failure?: string;
}
