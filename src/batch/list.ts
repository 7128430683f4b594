import npa from 'npm-package-arg';

/**
 * The list `mcp-doctor batch` reads: npm `name@version` lines (blank lines and `#` comments skipped), a
 * `server.json` of the official MCP registry format, or an export of the registry's API (`{ servers: [...] }`,
 * each entry a server.json or `{ server: server.json, _meta }`). Only npm packages are batched: the others are
 * counted as skipped, with their registry type.
 */

export interface BatchEntry {
  name: string;
  /** An exact version, a range or a tag ('latest' when the line gives none). */
  version: string;
}

export interface ParsedList {
  entries: BatchEntry[];
  /** Packages of another registry type (pypi, oci…) or lines that are not npm specs. */
  skipped: { what: string; why: 'not-npm' | 'bad-line' }[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length ? v : undefined);

/** npm packages of one server.json (the 2025 schema's registryType/identifier, and the older registry_type/name). */
function fromServerJson(s: Json, out: ParsedList): void {
  const packages = Array.isArray(s.packages) ? s.packages : [];
  for (const p of packages) {
    if (!isObj(p)) continue;
    const type = str(p.registryType) ?? str(p.registry_type) ?? str(p.registry_name) ?? '';
    const name = str(p.identifier) ?? str(p.name);
    if (!name) continue;
    if (type !== 'npm') {
      out.skipped.push({ what: `${type || '?'}:${name}`, why: 'not-npm' });
      continue;
    }
    out.entries.push({ name, version: str(p.version) ?? str(s.version) ?? 'latest' });
  }
}

export function parseList(text: string): ParsedList {
  const out: ParsedList = { entries: [], skipped: [] };
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const v: unknown = JSON.parse(trimmed);
    const items = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.servers) ? v.servers : [v];
    for (const it of items) {
      if (!isObj(it)) continue;
      fromServerJson(isObj(it.server) ? it.server : it, out);
    }
  } else {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.replace(/#.*$/, '').trim();
      if (!line) continue;
      try {
        const spec = npa(line);
        if (!spec.registry || !spec.name) throw new Error('not a registry spec');
        out.entries.push({ name: spec.name, version: spec.rawSpec && spec.rawSpec !== '*' ? spec.rawSpec : 'latest' });
      } catch {
        out.skipped.push({ what: line, why: 'bad-line' });
      }
    }
  }
  // One entry per name@version, in a stable order.
  const seen = new Set<string>();
  out.entries = out.entries.filter((e) => (seen.has(`${e.name}@${e.version}`) ? false : (seen.add(`${e.name}@${e.version}`), true)));
  return out;
}
