import { ts } from './morph.js';

/**
 * Bundled framework code. A published server is often one file that a bundler (esbuild, tsup) built from its
 * own modules and from the packages it imports; esbuild writes each module's path as a comment line before
 * its code (`// node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js`, `// src/index.ts`), relative to
 * where it ran (`// ../../node_modules/…` when built from a workspace package). The MCP
 * frameworks' own code (the SDK's request handlers, `elicitInput`, the resource and list handlers it installs)
 * registers nothing of the audited server's: installed, it is never read; bundled, its modules are left out of
 * the index the rules search, so the bundle reads like the same package installed unbundled. The server's own
 * modules, and any other bundled package (a dependency that registers the tools, an HTTP client, a logger),
 * stay read.
 */

/** The frameworks themselves: their code registers nothing of the audited server's. */
export const FRAMEWORK = /^(?:@modelcontextprotocol\/|fastmcp$|mcp-framework$|@mastra\/mcp$|mcp-proxy$)/;

/** The package a module path lies in: its last `node_modules/<name>/` or `node_modules/@scope/name/`. */
const PACKAGE_DIR = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//;
/**
 * A pnpm store entry of a workspace or injected dependency (`node_modules/.pnpm/@acme+mcp-core@file+packages+core/…`,
 * `@link+…`, `@workspace+…`): the vendor's own package, not a library.
 */
const WORKSPACE_ENTRY = /(?:^|\/)node_modules\/\.pnpm\/[^/]*@(?:file|link|workspace)\+/;

/**
 * A module comment: a whole line naming a module path, esbuild's (`// node_modules/zod/lib/index.mjs`) or
 * rolldown's and tsdown's (`//#region node_modules/.pnpm/zod@3.24.1/node_modules/zod/lib/index.mjs`, closed by
 * `//#endregion`; its runtime helpers are `//#region rolldown:runtime`, no module path). Group 1: the marker.
 */
const MODULE_COMMENT = /^\/\/(#region | )((?:[\w@.~+-]+\/)*[\w@.~+-]+\.(?:[cm]?[jt]sx?|json))[ \t]*$/gm;
/** rolldown's end of a module: `//#endregion`, a whole line. */
const END_REGION = /^\/\/#endregion[ \t]*$/gm;

// webpack's and ncc's module maps, and rspack's (a line comment: their markers hold the characters that close a
// block comment). A module is an entry of an object keyed by its path or its id, `/***/ "./node_modules/axios/index.js":`
// (webpack with named ids) or `/***/ 1234:` (numeric ids, ncc's `__nccwpck_require__`), each closed by a `/***/ })`
// line; rspack writes `    "../node_modules/x/index.js": function(…) {` closed by `    },` at the same indent.
// webpack's module concatenation marks `;// CONCATENATED MODULE: ./node_modules/…` inside a module. A numeric
// module is named by its pathinfo comment (`!*** ./node_modules/x/y.js ***!`) or by an `// EXTERNAL MODULE: <path>`
// line over the require of its id; one named by neither is the package's own when the code outside every library
// module requires it (directly or through own modules), a library's otherwise.
const WEBPACK_HEAD = /^\/\*\*\*\/ (?:"([^"\n]+)"|(\d+)):[ \t]*$/gm;
const WEBPACK_END = /^\/\*\*\*\/ \}\)[,;]?[ \t]*$/gm;
const RSPACK_HEAD = /^([ \t]+)"((?:\.{1,2}\/)+[^"\n]+\.(?:[cm]?[jt]sx?|json))":[ \t]*(?:\(?function\b|\(\([^)\n]*\)[ \t]*=>)/gm;
const CONCATENATED = /^;?\/\/ CONCATENATED MODULE: ((?:[\w@.~+-]+\/)*[\w@.~+-]+\.(?:[cm]?[jt]sx?|json))[ \t]*$/gm;
const CONCAT_STOP = /^(?:;?\/\/ (?:CONCATENATED|EXTERNAL) MODULE: |\/\*\*\*\/ \}\))/gm;
const PATHINFO = /!\*\*\* ((?:[\w@.~+-]+\/)*[\w@.~+-]+\.(?:[cm]?[jt]sx?|json)) \*\*\*!/;
const EXTERNAL = /^\/\/ EXTERNAL MODULE: ((?:[\w@.~+-]+\/)*[\w@.~+-]+\.(?:[cm]?[jt]sx?|json))\n(?:var|let|const) [\w$]+ = [\w$]+\((\d+)\)/gm;
const REQUIRE_ID = /\b__\w*require__\(\s*(?:\/\*[^*]*\*\/\s*)?(\d+)\s*\)/g;

/** One module of a bundle: [at, end) and its path (undefined: a numeric module reached only through libraries). */
type Module = { at: number; end: number; path: string | undefined; library: boolean };

const isLibraryPath = (path: string): boolean => PACKAGE_DIR.test(path) && !WORKSPACE_ENTRY.test(path);

/** The end of the first line at or after `from` that `re` (global, multiline) matches, or undefined. */
function lineAfter(text: string, re: RegExp, from: number): { at: number; end: number } | undefined {
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? { at: m.index, end: m.index + m[0].length } : undefined;
}

/** esbuild's, tsup's and rolldown's modules: from a module comment to the next one (or its `//#endregion`). */
function commentModules(text: string): Module[] {
  const heads: Array<{ at: number; path: string; region: boolean }> = [];
  for (const m of text.matchAll(MODULE_COMMENT)) heads.push({ at: m.index, path: m[2]!, region: m[1] === '#region ' });
  if (heads.length < 2) return [];
  // A rolldown region ends at its `//#endregion` line (kept with it), not at the next module: what follows the
  // last region (the bundle's `export { … }`) and the runtime region between two modules are the bundle's own.
  const ends = heads.some((h) => h.region) ? [...text.matchAll(END_REGION)].map((m) => m.index + m[0].length) : [];
  let e = 0;
  const out: Module[] = [];
  for (let i = 0; i < heads.length; i++) {
    const { at, path, region } = heads[i]!;
    let end = heads[i + 1]?.at ?? text.length;
    if (region) {
      while (e < ends.length && ends[e]! <= at) e++;
      if (e < ends.length && ends[e]! < end) end = ends[e]!;
    }
    out.push({ at, end, path, library: isLibraryPath(path) });
  }
  return out;
}

/** webpack's, ncc's and rspack's module maps and webpack's concatenated modules (see WEBPACK_HEAD). */
function mapModules(text: string): Module[] {
  const out: Module[] = [];
  const numeric: Array<{ at: number; end: number; id: string; path: string | undefined }> = [];
  for (const m of text.matchAll(WEBPACK_HEAD)) {
    const close = lineAfter(text, WEBPACK_END, m.index + m[0].length);
    // No closing line after this head: none after a later one either (one pass over the text, not one per head).
    if (!close) break;
    if (m[1] !== undefined) out.push({ at: m.index, end: close.end, path: m[1], library: isLibraryPath(m[1]) });
    else numeric.push({ at: m.index, end: close.end, id: m[2]!, path: PATHINFO.exec(text.slice(m.index, Math.min(close.end, m.index + 600)))?.[1] });
  }
  for (const m of text.matchAll(RSPACK_HEAD)) {
    const close = lineAfter(text, new RegExp(`^${m[1]}\\}\\)?[,;]?[ \\t]*$`, 'gm'), m.index + m[0].length);
    if (close) out.push({ at: m.index, end: close.end, path: m[2]!, library: isLibraryPath(m[2]!) });
  }
  for (const m of text.matchAll(CONCATENATED)) {
    // A concatenated module ends at the next one, an external module's require, or the close of the map entry it
    // lies in; the last one of the entry code (no such line after it) stays read, as does any after it.
    const stop = lineAfter(text, CONCAT_STOP, m.index + m[0].length);
    if (!stop) break;
    out.push({ at: m.index, end: stop.at, path: m[1]!, library: isLibraryPath(m[1]!) });
  }
  if (numeric.length) {
    const named = new Map<string, string>();
    for (const m of text.matchAll(EXTERNAL)) named.set(m[2]!, m[1]!);
    const byId = new Map(numeric.map((n) => [n.id, n]));
    for (const n of numeric) n.path ??= named.get(n.id);
    // The package's own numeric modules: those the code outside every module requires, and what they require,
    // never through a module named under node_modules.
    const sorted = [...numeric].sort((a, b) => a.at - b.at);
    const own = new Set<string>();
    const queue: string[] = [];
    const visit = (from: number, to: number): void => {
      for (const r of text.slice(from, to).matchAll(REQUIRE_ID)) {
        const n = byId.get(r[1]!);
        if (n && !own.has(n.id) && !(n.path !== undefined && isLibraryPath(n.path))) {
          own.add(n.id);
          queue.push(n.id);
        }
      }
    };
    let pos = 0;
    for (const n of sorted) {
      if (n.at > pos) visit(pos, n.at);
      pos = Math.max(pos, n.end);
    }
    visit(pos, text.length);
    while (queue.length) {
      const n = byId.get(queue.pop()!)!;
      visit(n.at, n.end);
    }
    for (const n of numeric) {
      const library = n.path !== undefined ? isLibraryPath(n.path) : !own.has(n.id);
      out.push({ at: n.at, end: n.end, path: n.path, library });
    }
  }
  return out;
}

// browserify's module map (browser-pack): `({1:[function(require,module,exports){` … `},{"./helper":2,"lodash":3}],2:[…`
// … `},{}]},{},[1]);`. Each module is a function keyed by its id (a quoted path with --full-paths) and followed by
// the map of what it requires to the ids they resolve to (`undefined`: left out of the bundle). A module required
// by a bare name (`lodash`, `@scope/pkg/sub`) lies in that package, as does what it requires by a relative path;
// the package's own modules are the entries (the closing array) and what they require by a relative path. A
// module nothing requires lies in no package we can name and is a library's, as for ncc.
const BROWSERIFY_HEAD = /(?:\(\{|\],)(\d+|"[^"\n]+"):\[function\(require,module,exports\)\{$/gm;
const BROWSERIFY_DEPS = String.raw`\{(?:"[^"\n]*":(?:\d+|"[^"\n]*"|undefined),?)*\}`;
const BROWSERIFY_CLOSE = new RegExp(String.raw`^\},(${BROWSERIFY_DEPS})\]`, 'gm');
const BROWSERIFY_ENTRIES = /^\},\{\},\[((?:\d+|"[^"\n]+")(?:,(?:\d+|"[^"\n]+"))*)\]\)/;

/** The package a bare specifier names (`@scope/pkg/sub` -> `@scope/pkg`), undefined for a relative or absolute one. */
function bareName(spec: string): string | undefined {
  if (/^(?:\.{1,2}(?:\/|$)|\/)/.test(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

type BrowserifyEntry = { at: number; end: number; key: string; deps: Record<string, string> };

/** browserify's module map read whole (see BROWSERIFY_HEAD): its modules in order and its entries. */
function browserifyMap(text: string): { found: BrowserifyEntry[]; entries: string[] } | undefined {
  if (!text.includes('[function(require,module,exports){')) return undefined;
  const found: BrowserifyEntry[] = [];
  let entries: string[] | undefined;
  let next = -1;
  for (const m of text.matchAll(BROWSERIFY_HEAD)) {
    const at = m.index + m[0].indexOf(m[1]!);
    // One map whose entries follow each other, each closed before the next starts: anything else (a library that
    // ships a browserify bundle of its own, inlined in a module) is not a map we can split.
    if (entries || (next >= 0 && at !== next)) return undefined;
    const close = BROWSERIFY_CLOSE;
    close.lastIndex = m.index + m[0].length;
    const c = close.exec(text);
    if (!c) return undefined;
    let deps: Record<string, string>;
    try {
      deps = Object.fromEntries(Object.entries(JSON.parse(c[1]!.replace(/:undefined\b/g, ':null')) as Record<string, unknown>).filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)]));
    } catch {
      return undefined;
    }
    let end = c.index + c[0].length;
    // The comma between two entries goes with the module, so that what is left is still an object literal.
    if (text[end] === ',') next = ++end;
    else {
      entries = BROWSERIFY_ENTRIES.exec(text.slice(end, end + 4096))?.[1]!.split(',');
      if (!entries) return undefined;
    }
    found.push({ at, end, key: m[1]!.replace(/^"|"$/g, ''), deps });
  }
  return found.length >= 2 && entries ? { found, entries } : undefined;
}

/** The specifiers a browserify bundle resolves to one of its own modules (`./helper` is in the bundle, not beside it). */
export function browserifyResolved(text: string): ReadonlySet<string> {
  return new Set(browserifyMap(text)?.found.flatMap((f) => Object.keys(f.deps)) ?? []);
}

/** browserify's module map (see BROWSERIFY_HEAD); library modules carry `node_modules/<package>/` as their path. */
function browserifyModules(text: string): Module[] {
  const map = browserifyMap(text);
  if (!map) return [];
  const { found, entries } = map;
  const byKey = new Map(found.map((f) => [f.key, f]));
  // The package of each module: '' for the package's own, a name for a library's.
  const owner = new Map<string, string>();
  const queue: string[] = [];
  const reach = (key: string, pkg: string): void => {
    if (owner.has(key) || !byKey.has(key)) return;
    owner.set(key, pkg);
    queue.push(key);
  };
  for (const e of entries) reach(e.replace(/^"|"$/g, ''), '');
  // Own modules first (breadth-first from the entries), so that a module both reach stays the package's own.
  for (const libraries of [false, true]) {
    for (let i = 0; i < queue.length; i++) {
      const key = queue[i]!;
      const pkg = owner.get(key)!;
      for (const [spec, id] of Object.entries(byKey.get(key)!.deps)) {
        const name = bareName(spec);
        if (name === undefined) reach(id, pkg);
        else if (libraries) reach(id, name);
      }
    }
  }
  return found.map((f) => {
    const pkg = owner.get(f.key);
    const path = pkg ? `node_modules/${pkg}/` : pkg === '' ? f.key : undefined;
    return { at: f.at, end: f.end, path, library: pkg !== '' };
  });
}

/**
 * The character ranges [start, end) of a bundle's modules that lie in a package `pick` accepts (given the
 * package's name, or undefined for a numeric module reached only through libraries), sorted, overlapping and
 * adjacent ranges merged. Empty unless the text has at least two modules, one of them under node_modules (a
 * bundle, not a file that happens to hold such a comment).
 */
function packageRegions(text: string, pick: (name: string | undefined) => boolean): Array<readonly [number, number]> {
  const modules = [...(text.includes('node_modules/') ? [...commentModules(text), ...mapModules(text)] : []), ...browserifyModules(text)];
  if (modules.length < 2 || !modules.some((m) => m.path !== undefined && m.library)) return [];
  const picked = modules
    .filter((m) => m.library && pick(m.path === undefined ? undefined : PACKAGE_DIR.exec(m.path)![1]))
    .sort((a, b) => a.at - b.at || b.end - a.end);
  const out: Array<[number, number]> = [];
  for (const { at, end } of picked) {
    const last = out[out.length - 1];
    if (last && at <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([at, end]);
  }
  return out;
}

/** A bundle's modules that lie in one of the named packages (an HTTP client inlined by the bundler). */
export const libraryRegions = (text: string, names: ReadonlySet<string>): Array<readonly [number, number]> => packageRegions(text, (name) => name !== undefined && names.has(name));

/** A bundle's modules that lie in any package but the named ones (the bundled libraries other than limiters, say). */
export const packageRegionsExcept = (text: string, names: ReadonlySet<string>): Array<readonly [number, number]> => packageRegions(text, (name) => name === undefined || !names.has(name));
/** A bundle's framework modules (FRAMEWORK), left out of the index. */
export const frameworkRegions = (text: string): Array<readonly [number, number]> => packageRegions(text, (name) => name !== undefined && FRAMEWORK.test(name));

/**
 * A bundle too large to parse whole, read as its own modules: every module under node_modules is blanked (its
 * characters removed, its line breaks kept, so lines and columns of the rest are those of the file), as when the
 * package is installed and its dependencies are not the server's code. Undefined when the text is not a bundle
 * with module comments or a module map, nor one whose source map (`mapText`, the map shipped with it) names its
 * library lines (`byMap` then). `kept` counts the characters left besides the kept line breaks, `left` the
 * bytes (UTF-8) of the library modules left out.
 */
export function ownModules(text: string, mapText?: string): { text: string; kept: number; left: number; byMap: boolean } | undefined {
  let regions = packageRegions(text, () => true);
  const byMap = regions.length === 0 && mapText !== undefined;
  if (byMap) regions = sourceMapModules(text, mapText).map((m) => [m.at, m.end] as const);
  if (regions.length === 0) return undefined;
  const parts: string[] = [];
  let from = 0;
  let blankLines = 0;
  let left = 0;
  for (const [a, b] of regions) {
    parts.push(text.slice(from, a));
    const cut = text.slice(a, b);
    const breaks = cut.replace(/[^\n]+/g, '');
    left += Buffer.byteLength(cut) - breaks.length;
    parts.push(breaks);
    blankLines += breaks.length;
    from = b;
  }
  parts.push(text.slice(from));
  const out = parts.join('');
  return { text: out, kept: out.length - blankLines, left, byMap };
}

/** One Base64 VLQ digit's value, by character code (-1: not a digit). */
const VLQ = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) VLQ[c.charCodeAt(0)] = i;

/**
 * Which sources each generated line of a source map's `mappings` comes from: per line, 1 when some segment
 * maps to a library source, 2 when some maps to any other source (both bits may be set), 0 when none is mapped.
 * Undefined when the mappings do not decode.
 */
function lineSources(mappings: string, library: readonly boolean[]): Uint8Array | undefined {
  let lines = 1;
  for (let i = 0; i < mappings.length; i++) if (mappings.charCodeAt(i) === 59) lines++;
  const out = new Uint8Array(lines);
  let line = 0;
  let field = 0;
  let source = 0;
  let value = 0;
  let shift = 0;
  for (let i = 0; i <= mappings.length; i++) {
    const c = i < mappings.length ? mappings.charCodeAt(i) : 59;
    if (c === 44 || c === 59) {
      if (shift !== 0) return undefined;
      field = 0;
      if (c === 59) line++;
      continue;
    }
    const d = c < 128 ? VLQ[c]! : -1;
    if (d < 0) return undefined;
    value += (d & 31) * 2 ** shift;
    if (d & 32) {
      shift += 5;
      continue;
    }
    // A segment's second field is the source index, relative to the previous segment's (the only one read here).
    if (field === 1) {
      source += value % 2 ? -(value - 1) / 2 : value / 2;
      const lib = library[source];
      if (lib === undefined) return undefined;
      out[line]! |= lib ? 1 : 2;
    }
    field++;
    value = 0;
    shift = 0;
  }
  return out;
}

/** Brackets opened minus brackets closed in text[from, to), outside string literals and line comments (bundler glue). */
function bracketBalance(text: string, from: number, to: number): number {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < to && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < to && text[i] !== '\n') i++;
    } else if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
  }
  return depth;
}

/**
 * A bundle's library lines by the source map shipped with it (rollup and vite, which hoist every module into one
 * scope with no mark between them; parcel; any bundler that writes a map): the lines whose mapped segments all
 * come from sources under node_modules, with the unmapped lines the bundler wrote around them (see below); a line
 * any of whose segments comes from the package's own sources stays (a minified bundle of one line stays whole).
 * The caller keeps the cut only when what is left parses without errors. Empty when the map does not
 * fit the text (more lines than it has, indices past its sources), is an index map (`sections`), or names no
 * source under node_modules.
 */
function sourceMapModules(text: string, mapText: string): Module[] {
  let map: { sources?: unknown; sourceRoot?: unknown; mappings?: unknown; sections?: unknown };
  try {
    map = JSON.parse(mapText) as typeof map;
  } catch {
    return [];
  }
  if (!map || typeof map !== 'object' || map.sections !== undefined || typeof map.mappings !== 'string' || !Array.isArray(map.sources)) return [];
  const root = typeof map.sourceRoot === 'string' && map.sourceRoot !== '' ? map.sourceRoot.replace(/\/?$/, '/') : '';
  const sources = map.sources.map((s) => (typeof s === 'string' ? root + s : ''));
  const library = sources.map((s) => isLibraryPath(s));
  if (!library.some(Boolean)) return [];
  const kinds = lineSources(map.mappings, library);
  if (!kinds) return [];
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (kinds.length > starts.length) return [];
  const lineEnd = (l: number): number => (l + 1 < starts.length ? starts[l + 1]! - 1 : text.length);
  const kindOf = (l: number): number => (l < kinds.length ? (kinds[l]! & 2 ? 2 : kinds[l]!) : 0);
  const lib = new Uint8Array(starts.length);
  for (let l = 0; l < starts.length; ) {
    const k = kindOf(l);
    if (k !== 0) {
      lib[l++] = k === 1 ? 1 : 0;
      continue;
    }
    let b = l;
    while (b + 1 < starts.length && kindOf(b + 1) === 0) b++;
    const before = l > 0 ? kindOf(l - 1) : 0;
    const after = b + 1 < starts.length ? kindOf(b + 1) : 0;
    // Unmapped lines are the bundler's own. Between two library lines they are a library's. Next to a library
    // line, the ones that close what it opened (the close of a wrapper the bundler put around a library module,
    // `return x;\n}`: from the run's start to where its bracket depth first reaches its lowest) and the ones that
    // open what the library lines fill (the wrapper's head, `function requireX () {\n\tif (hasRequiredX) …`:
    // after the last line where the depth is lowest) are a library's too; the rest, the package's.
    if (before === 1 && after === 1) lib.fill(1, l, b + 1);
    else if (before === 1 || after === 1) {
      const depth: number[] = [];
      let d = 0;
      let low = 0;
      for (let i = l; i <= b; i++) {
        depth.push((d += bracketBalance(text, starts[i]!, lineEnd(i))));
        low = Math.min(low, d);
      }
      let tail = l - 1;
      if (before === 1 && low < 0) tail = l + depth.indexOf(low);
      let head = b + 1;
      if (after === 1 && d > low) head = l + depth.lastIndexOf(low) + 1;
      lib.fill(1, l, tail + 1);
      lib.fill(1, Math.max(head, tail + 1), b + 1);
    }
    l = b + 1;
  }
  const out: Module[] = [];
  for (let l = 0; l < starts.length; l++) {
    if (!lib[l]) continue;
    let last = l;
    while (last + 1 < starts.length && lib[last + 1]) last++;
    out.push({ at: starts[l]!, end: lineEnd(last), path: undefined, library: true });
    l = last;
  }
  return out;
}

/**
 * Where a bundle's source map is: its last `//# sourceMappingURL=` line (a file beside it, or inline as base64
 * JSON), else `<file>.map`. `rel` is the bundle's path in the package; a map outside the package's folder or
 * behind a URL is not followed (undefined).
 */
export function sourceMapOf(text: string, rel: string): { inline: string } | { file: string } | undefined {
  const tail = text.slice(Math.max(0, text.length - 4096));
  const url = /^\/\/[#@] sourceMappingURL=(\S+)[ \t]*$/gm;
  let last: string | undefined;
  for (const m of tail.matchAll(url)) last = m[1];
  if (last === undefined) return { file: `${rel}.map` };
  const data = /^data:application\/json;(?:charset=utf-?8;)?base64,([A-Za-z0-9+/=]+)$/i.exec(last);
  if (data) return { inline: Buffer.from(data[1]!, 'base64').toString('utf8') };
  if (/^[a-z][\w+.-]*:|^\//i.test(last)) return undefined;
  const parts = rel.split('/').slice(0, -1);
  for (const seg of decodeURIComponent(last).split('/')) {
    if (seg === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return { file: parts.join('/') };
}

/**
 * Bundlers that leave no mark between the modules they inline, recognised by their runtime helpers: rollup (and
 * vite's library mode, rollup underneath) hoists every module into one scope, its CommonJS plugin wrapping some in
 * `function requireX () { if (hasRequiredX) return x; … }` with no path; parcel names modules by hashes
 * (`parcelRequire`, `$parcel$export`); browserify's map when its structure does not read as one map.
 */
const UNSPLIT_BUNDLERS: ReadonlyArray<readonly [string, RegExp]> = [
  ['rollup', /^(?:var commonjsGlobal = typeof globalThis |function getDefaultExportFromCjs \(|function getAugmentedNamespace\(|function require\w+ \(\) \{\r?\n\tif \(hasRequire\w+\) return )/m],
  ['parcel', /\bparcelRequire(?:\w{0,8})\b|\$parcel\$(?:interopDefault|export|exportWildcard|defineInteropFlag)\b/],
  ['browserify', /\[function\(require,module,exports\)\{$/m],
];
export const unsplitBundler = (text: string): string | undefined => UNSPLIT_BUNDLERS.find(([, re]) => re.test(text))?.[0];

/**
 * Methods only the MCP SDK's own classes define (its Server/Client capability checks and the handlers McpServer
 * installs for what is registered on it). A minified bundle keeps these member names while its module comments and
 * class names are gone: a class defining one of them is the framework, not the server.
 */
const FRAMEWORK_MEMBERS: ReadonlySet<string> = new Set([
  'assertCapabilityForMethod',
  'assertRequestHandlerCapability',
  'assertNotificationCapability',
  'setToolRequestHandlers',
  'setResourceRequestHandlers',
  'setPromptRequestHandlers',
  'setCompletionRequestHandler',
]);

/** Whether a class (compiler node) is one of the SDK's own, by the members only the SDK defines. */
export function frameworkClass(c: ts.ClassLikeDeclaration): boolean {
  for (const m of c.members) {
    const name = m.name;
    if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) && FRAMEWORK_MEMBERS.has(name.text)) return true;
  }
  return false;
}

/** Whether a position lies in one of the ranges (sorted, disjoint). */
export function inRegions(regions: ReadonlyArray<readonly [number, number]>, pos: number): boolean {
  let lo = 0;
  let hi = regions.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = regions[mid]!;
    if (pos < a) hi = mid - 1;
    else if (pos >= b) lo = mid + 1;
    else return true;
  }
  return false;
}
