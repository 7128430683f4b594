import type { SourceFile } from './morph.js';
import type { FileNotRead } from './not-read.js';
import type { SafeRead } from './safe-read.js';
import { parseBudget } from './budget.js';

/**
 * The limits of the JavaScript/TypeScript source reading, the pattern screen of files too large to parse, and
 * which files are generated output; shared by facts/ts-source (its own files) and facts/published (the
 * dependencies it follows).
 */

/** The largest file parsed, whatever the budget. */
export const MAX_FILE_PARSE_BYTES = 6 * 1024 * 1024;

/**
 * Limits of the source reading, per file and per audit: a file up to `parseBytes` (6 MB, or the budget when it
 * is smaller) is parsed while the audit's `totalParseBytes` (parseBudget) last; a larger one (or one past the
 * budget) is read in chunks by the pattern screen (up to `scanBytes`) and named as not read when it shows code
 * the rules look for; a tree nested deeper than `maxDepth` syntax levels is not judged (the recursive walks of
 * the detectors would overflow the stack on it).
 */
export const SOURCE_LIMITS = {
  get parseBytes(): number {
    return Math.min(MAX_FILE_PARSE_BYTES, parseBudget());
  },
  get totalParseBytes(): number {
    return parseBudget();
  },
  scanBytes: 256 * 1024 * 1024,
  /** A bundle up to this size that is too large to parse whole is read as its own modules (facts/bundle-regions: esbuild/tsup/bun/rolldown module comments, webpack/ncc/rspack/browserify module maps, or the source map shipped with it). */
  bundleBytes: 64 * 1024 * 1024,
  maxDepth: 1200,
  maxFiles: 20_000,
};

/**
 * The pattern screen for a file that is not parsed: any sign of code that runs commands, touches files or the
 * network, reads the environment, writes output, or registers MCP tools, prompts or resources. A file that
 * shows none (a data table, an inlined asset) cannot change a verdict; one that shows any makes the rules that
 * read code could-not-judge, naming it.
 */
export const SCREEN_PATTERNS: readonly RegExp[] = [
  /\b(?:child_process|exec|execSync|execFile|execFileSync|execa|spawn|spawnSync|fork|eval|Function|vm|shelljs|zx)\b/,
  /\b(?:fetch|axios|got|ky|undici|request|XMLHttpRequest|WebSocket|http|https|http2|net|tls|dgram|dns|listen|createServer|goto|navigate)\b/,
  /\b(?:fs|promises|readFile|readFileSync|writeFile|writeFileSync|createReadStream|createWriteStream|open|openSync|readdir|unlink|rm|rmSync|mkdir|rename|copyFile|stat)\b/,
  /\b(?:process|env|stdout|stderr|console|require|import|globalThis|window|document)\b/,
  /\b(?:registerTool|registerPrompt|registerResource|setRequestHandler|addTool|addPrompt|addResource|addResourceTemplate|inputSchema|McpServer|Server|FastMCP|tool|prompt|resource)\b/,
];

/** Generated output: under dist, build, out or coverage, or a minified file. */
const GENERATED_DIRS = new Set(['dist', 'build', 'out', 'coverage']);
export const isGeneratedPath = (rel: string): boolean => rel.split('/').slice(0, -1).some((s) => GENERATED_DIRS.has(s)) || /\.min\.[cm]?js$/.test(rel);

/** What facts/published adds the files of a followed dependency to (facts/ts-source's SourceSet). */
export interface SourceSetLike {
  readonly files: Map<string, SourceFile>;
  readonly unread: FileNotRead[];
  /** Files not parsed that cannot change a verdict (listed in the report's skipped inputs). */
  readonly screened: FileNotRead[];
  readonly dependencies: { name: string; folder: string; files: number }[];
  /** Bare module specifiers of the followed dependencies -> the parsed file they resolve to (`@a/b` -> `node_modules/@a/b/dist/index.js`). */
  readonly entries?: Map<string, string>;
  add(
    rel: string,
    read: (limit: number) => SafeRead,
    scan: () => { ok: true; matched: RegExp[]; size: number } | { ok: false; cause: string; size?: number; limit?: number },
    /** Reads another file of the package (a bundle's source map beside it). */
    readBeside?: (rel: string, limit: number) => SafeRead,
  ): SourceFile | undefined;
}
