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

/**
 * The character ranges [start, end) of a bundle's modules that lie in a package `pick` accepts: from a module
 * comment naming a file under `node_modules/<package>/` to the next module comment (adjacent ranges merged).
 * Empty unless the text has at least two module comments, one of them under node_modules (a bundle, not a file
 * that happens to hold such a comment).
 */
function packageRegions(text: string, pick: (name: string) => boolean): Array<readonly [number, number]> {
  if (!text.includes('node_modules/')) return [];
  const heads: Array<{ at: number; path: string; region: boolean }> = [];
  for (const m of text.matchAll(MODULE_COMMENT)) heads.push({ at: m.index, path: m[2]!, region: m[1] === '#region ' });
  if (heads.length < 2) return [];
  // A rolldown region ends at its `//#endregion` line (kept with it), not at the next module: what follows the
  // last region (the bundle's `export { … }`) and the runtime region between two modules are the bundle's own.
  const ends = heads.some((h) => h.region) ? [...text.matchAll(END_REGION)].map((m) => m.index + m[0].length) : [];
  let e = 0;
  const out: Array<readonly [number, number]> = [];
  for (let i = 0; i < heads.length; i++) {
    const { at, path, region } = heads[i]!;
    const name = PACKAGE_DIR.exec(path)?.[1];
    if (!name || WORKSPACE_ENTRY.test(path) || !pick(name)) continue;
    let end = heads[i + 1]?.at ?? text.length;
    if (region) {
      while (e < ends.length && ends[e]! <= at) e++;
      if (e < ends.length && ends[e]! < end) end = ends[e]!;
    }
    const last = out[out.length - 1];
    if (last && last[1] === at) out[out.length - 1] = [last[0], end];
    else out.push([at, end]);
  }
  return out;
}

/** A bundle's modules that lie in one of the named packages (an HTTP client inlined by the bundler). */
export const libraryRegions = (text: string, names: ReadonlySet<string>): Array<readonly [number, number]> => packageRegions(text, (name) => names.has(name));

/** A bundle's modules that lie in any package but the named ones (the bundled libraries other than limiters, say). */
export const packageRegionsExcept = (text: string, names: ReadonlySet<string>): Array<readonly [number, number]> => packageRegions(text, (name) => !names.has(name));
/** A bundle's framework modules (FRAMEWORK), left out of the index. */
export const frameworkRegions = (text: string): Array<readonly [number, number]> => packageRegions(text, (name) => FRAMEWORK.test(name));

/**
 * A bundle too large to parse whole, read as its own modules: every module under node_modules is blanked (its
 * characters removed, its line breaks kept, so lines and columns of the rest are those of the file), as when the
 * package is installed and its dependencies are not the server's code. Undefined when the text is not a bundle
 * with module comments. `kept` counts the characters left besides the kept line breaks.
 */
export function ownModules(text: string): { text: string; kept: number } | undefined {
  const regions = packageRegions(text, () => true);
  if (regions.length === 0) return undefined;
  const parts: string[] = [];
  let from = 0;
  let blankLines = 0;
  for (const [a, b] of regions) {
    parts.push(text.slice(from, a));
    const breaks = text.slice(a, b).replace(/[^\n]+/g, '');
    parts.push(breaks);
    blankLines += breaks.length;
    from = b;
  }
  parts.push(text.slice(from));
  const out = parts.join('');
  return { text: out, kept: out.length - blankLines };
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
