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

/**
 * The character ranges [start, end) of a bundle's modules that lie in a package `pick` accepts (given the
 * package's name, or undefined for a numeric module reached only through libraries), sorted, overlapping and
 * adjacent ranges merged. Empty unless the text has at least two modules, one of them under node_modules (a
 * bundle, not a file that happens to hold such a comment).
 */
function packageRegions(text: string, pick: (name: string | undefined) => boolean): Array<readonly [number, number]> {
  if (!text.includes('node_modules/')) return [];
  const modules = [...commentModules(text), ...mapModules(text)];
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
 * with module comments or a module map. `kept` counts the characters left besides the kept line breaks, `left` the
 * bytes (UTF-8) of the library modules left out.
 */
export function ownModules(text: string): { text: string; kept: number; left: number } | undefined {
  const regions = packageRegions(text, () => true);
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
  return { text: out, kept: out.length - blankLines, left };
}

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
