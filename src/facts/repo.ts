import { readdirSync, statSync } from 'node:fs';
import { posix, relative, resolve } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { globSync } from 'tinyglobby';
import type { TargetKind } from '../engine/types.js';
import { RootUnreadable } from '../engine/errors.js';
import { linksAppView } from './app-link.js';
import { isTestPath, SOURCE_FILE as APP_SOURCE } from './source-paths.js';
import { jsonErrorWhere, readInside, scanInside, type ReadCause, type SafeRead } from './safe-read.js';

/**
 * Facts about a repository or package folder, gathered once per audit. Files are listed once
 * (respecting .gitignore, skipping node_modules and .git, never following a symlink); file contents and parsed
 * manifests are read lazily and memoised, so every detector sees the same bytes. Every read goes through
 * facts/safe-read: regular files inside the root only, never blocking, with a size cap.
 */

export type Read<T> =
  | { ok: true; value: T; file: string }
  | { ok: false; file: string; problem: ReadCause | 'invalid-json'; detail?: string; size?: number; limit?: number };

/** Manifests, READMEs and other texts read whole (sources have their own limits: see facts/ts-source). */
export const MAX_TEXT_BYTES = 2 * 1024 * 1024;
const ALWAYS_SKIPPED = ['**/node_modules/**', '.git/**'];
const APPS_SDK = '@modelcontextprotocol/ext-apps';
/** Source that is not the published server: dependencies, examples, docs, development pages. */
const NOT_PUBLISHED_SOURCE = /(^|\/)(node_modules|examples?|docs?|demos?|playground|stories|storybook|\.storybook|templates?)\//;
const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** Test doubles shipped beside the code (a host's mock App server exported as `./testing`): not the package's own App. */
const TEST_DOUBLES = /(^|\/)(testing|mocks?|__mocks__|fixtures?)\//;

export { RootUnreadable } from '../engine/errors.js';

/** A folder under the root that could not be listed: its files were not read. */
export interface UnlistedDir {
  /** Relative path with a trailing slash. */
  file: string;
  cause: 'unreadable';
}

export class RepoFacts {
  readonly root: string;
  /** All files (relative, forward slashes), sorted. */
  readonly files: string[];
  private readonly texts = new Map<string, Read<string>>();
  private readonly jsons = new Map<string, Read<unknown>>();

  /** Folders of the tree that could not be listed (their files are missing from `files`). */
  readonly unlisted: readonly UnlistedDir[];

  /** Whether the tree's .gitignore files leave a path out (a build output of a checkout), whether or not it exists. */
  readonly ignored: (rel: string) => boolean;

  private constructor(root: string, files: string[], unlisted: UnlistedDir[] = [], ignored: (rel: string) => boolean = () => false) {
    this.root = root;
    this.files = files;
    this.unlisted = unlisted;
    this.ignored = ignored;
  }

  /**
   * Gather the file list. Throws if the root is not a folder (Error) or cannot be listed (RootUnreadable).
   * Symlinks are not listed; a sub-folder that cannot be listed is kept in `unlisted`.
   */
  static gather(root: string, ignorePaths: string[] = []): RepoFacts {
    let st;
    try {
      st = statSync(root);
    } catch {
      throw new Error('not a folder');
    }
    if (!st.isDirectory()) throw new Error('not a folder');
    try {
      readdirSync(root);
    } catch {
      throw new RootUnreadable(root);
    }
    const base = resolve(root);
    const unlisted: UnlistedDir[] = [];
    const all = globSync(['**/*'], {
      cwd: root,
      dot: true,
      ignore: [...ALWAYS_SKIPPED, ...ignorePaths],
      onlyFiles: true,
      followSymbolicLinks: false,
      // The crawler drops folders it cannot list without a word: note them, so that the report can say so.
      fs: {
        readdirSync: ((path: string, options: never) => {
          try {
            return readdirSync(path, options);
          } catch (e) {
            const rel = relative(base, resolve(path)).split('\\').join('/');
            if (rel && !rel.startsWith('..')) unlisted.push({ file: rel + '/', cause: 'unreadable' });
            throw e;
          }
        }) as typeof readdirSync,
      },
    });
    const ig = loadGitignores(root, all);
    const files = all.filter((f) => !ig.ignores(f)).sort();
    unlisted.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return new RepoFacts(root, files, unlisted.filter((u) => !ig.ignores(u.file)), (rel) => {
      try {
        return ig.ignores(rel);
      } catch {
        return false;
      }
    });
  }

  /** Throw RootUnreadable when a folder exists but cannot be listed (other problems are left to gather). */
  static checkRoot(root: string): void {
    let dir = false;
    try {
      dir = statSync(root).isDirectory();
    } catch {
      return;
    }
    if (!dir) return;
    try {
      readdirSync(root);
    } catch {
      throw new RootUnreadable(root);
    }
  }

  /** Texts read whole so far (manifests, READMEs…), in path order. */
  readFiles(): string[] {
    return [...this.texts.values()].filter((r) => r.ok).map((r) => r.file).sort();
  }

  /** Texts asked for that exist but could not be read (too large, not a regular file, outside the root, unreadable). */
  skippedTexts(): { file: string; cause: string; size?: number; limit?: number }[] {
    const out: { file: string; cause: string; size?: number; limit?: number }[] = [];
    for (const r of this.texts.values()) {
      if (r.ok || r.problem === 'missing' || r.problem === 'invalid-json') continue;
      out.push({ file: r.file, cause: r.problem, ...(r.size !== undefined ? { size: r.size, limit: r.limit } : {}) });
    }
    return out;
  }

  /** A repository over a given file list (tests and benchmarks). */
  static of(root: string, files: string[]): RepoFacts {
    return new RepoFacts(root, [...files].sort());
  }

  private fileSet?: Set<string>;
  has(rel: string): boolean {
    return (this.fileSet ??= new Set(this.files)).has(rel);
  }

  /** Files under a folder (prefix match on a path segment). */
  under(dir: string): string[] {
    const p = dir.endsWith('/') ? dir : dir + '/';
    return this.files.filter((f) => f.startsWith(p));
  }

  hasDir(dir: string): boolean {
    return this.under(dir).length > 0;
  }

  text(rel: string): Read<string> {
    const hit = this.texts.get(rel);
    if (hit) return hit;
    let r: Read<string>;
    if (!this.has(rel)) r = { ok: false, file: rel, problem: 'missing' };
    else {
      const got = readInside(this.root, rel, MAX_TEXT_BYTES);
      r = got.ok
        ? { ok: true, file: rel, value: got.text }
        : { ok: false, file: rel, problem: got.cause, detail: got.cause, ...(got.size !== undefined ? { size: got.size, limit: got.limit } : {}) };
    }
    this.texts.set(rel, r);
    return r;
  }

  /**
   * A listed file's text read with its own limit and NOT memoised (sources: the parsed tree keeps what is
   * needed, and a file that is dropped can be freed).
   */
  source(rel: string, maxBytes: number): SafeRead {
    if (!this.has(rel)) return { ok: false, cause: 'missing' };
    return readInside(this.root, rel, maxBytes);
  }

  /** Which of some patterns occur in a listed file, read in chunks (for files too large to parse). */
  scan(rel: string, patterns: readonly RegExp[], maxBytes: number): ReturnType<typeof scanInside> {
    if (!this.has(rel)) return { ok: false, cause: 'missing' };
    return scanInside(this.root, rel, patterns, { maxBytes });
  }

  json(rel: string): Read<unknown> {
    const hit = this.jsons.get(rel);
    if (hit) return hit;
    const t = this.text(rel);
    let r: Read<unknown>;
    if (!t.ok) r = t;
    else {
      try {
        r = { ok: true, file: rel, value: JSON.parse(t.value) };
      } catch (e) {
        // The parser's message quotes the file's content: only the position is kept.
        r = { ok: false, file: rel, problem: 'invalid-json', detail: jsonErrorWhere(e, t.value) };
      }
    }
    this.jsons.set(rel, r);
    return r;
  }

  /** A JSON file that must be an object. */
  object(rel: string): Read<Record<string, unknown>> {
    const r = this.json(rel);
    if (!r.ok) return r;
    if (typeof r.value !== 'object' || r.value === null || Array.isArray(r.value)) {
      return { ok: false, file: rel, problem: 'invalid-json', detail: 'not a JSON object' };
    }
    return r as Read<Record<string, unknown>>;
  }

  /** 1-based line of the first occurrence of `needle` in a file (for locations), or undefined. */
  lineOf(rel: string, needle: string | RegExp): number | undefined {
    const t = this.text(rel);
    if (!t.ok) return undefined;
    const lines = t.value.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (typeof needle === 'string' ? lines[i]!.includes(needle) : needle.test(lines[i]!)) return i + 1;
    }
    return undefined;
  }

  /** Line of a top-level JSON key in a manifest (good enough for a location; the value is read with JSON.parse). */
  keyLine(rel: string, key: string): number | undefined {
    return this.lineOf(rel, `"${key}"`);
  }

  /** The first existing file among candidates (case-sensitive). */
  first(...candidates: string[]): string | undefined {
    return candidates.find((c) => this.has(c));
  }

  private hostsOnly?: boolean;

  /**
   * True when the package uses the MCP Apps SDK only as a host: some source file imports its
   * `app-bridge` entry and none imports an author's entry (the package itself, `/server`, `/react`…).
   * Such a package renders other servers' Apps (an inspector, an auditor); it serves none of its own.
   * Test and fixture folders are left out (their Apps are samples, not the published object).
   */
  hostsAppsOnly(): boolean {
    if (this.hostsOnly !== undefined) return this.hostsOnly;
    const IMPORT = String.raw`(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]@modelcontextprotocol/ext-apps`;
    const bridge = new RegExp(IMPORT + String.raw`/app-bridge['"]`);
    const author = new RegExp(IMPORT + String.raw`(?!/app-bridge['"])(?:/[\w./-]+)?['"]`);
    let bridged = false;
    let authored = false;
    for (const f of this.files) {
      if (!APP_SOURCE.test(f) || isTestPath(f)) continue;
      const r = this.scan(f, [bridge, author], MAX_TEXT_BYTES);
      if (!r.ok) continue;
      if (r.matched.includes(bridge)) bridged = true;
      if (r.matched.includes(author)) {
        authored = true;
        break;
      }
    }
    this.hostsOnly = bridged && !authored;
    return this.hostsOnly;
  }

  private linkingFile?: string | null;

  /**
   * The first source file of the package (JavaScript, TypeScript or Python; not a test, a declaration file, an
   * example, a doc or a dependency) that links a tool to a `ui://` View: it writes a `ui://` URI and, in the same
   * file, the key that links it (`resourceUri:` as in `_meta: { ui: { resourceUri } }`, the flat `"ui/resourceUri"`)
   * or the App's MIME type (`text/html;profile=mcp-app`). A package that serves Views this way is an App even when
   * its package.json does not name the MCP Apps SDK (the SDK bundled into the build, the View built by another
   * workspace, the registration written against the plain MCP SDK). Read in chunks, once. A JavaScript/TypeScript
   * file that matches is then read as code (facts/app-link): comments, a bundle's library modules and a client
   * reading `_meta.ui` do not count, nor do test doubles shipped under `testing/`, `mocks/` or `fixtures/`.
   */
  appLinkingSource(): string | undefined {
    if (this.linkingFile !== undefined) return this.linkingFile ?? undefined;
    this.linkingFile = null;
    const uri = /["'`]ui:\/\/[\w$-]/;
    const link = /\bresourceUri["']?\s*:|["'`]ui\/resourceUri["'`]|text\/html;\s*profile=mcp-app/;
    for (const f of this.files) {
      if (!(APP_SOURCE.test(f) || f.endsWith('.py')) || /\.d\.[cm]?ts$/.test(f) || isTestPath(f) || NOT_PUBLISHED_SOURCE.test(f) || TEST_DOUBLES.test(f)) continue;
      const r = this.scan(f, [uri, link], MAX_TEXT_BYTES);
      if (!r.ok || r.matched.length !== 2) continue;
      // JavaScript/TypeScript: read as code (no comment, no bundled library, the link in a registration).
      const code = APP_SOURCE.test(f) ? this.source(f, MAX_TEXT_BYTES) : undefined;
      if (!code || (code.ok && linksAppView(f, code.text))) {
        this.linkingFile = f;
        break;
      }
    }
    return this.linkingFile ?? undefined;
  }

  /**
   * What in the folder says it publishes an App: the MCP Apps SDK as a dependency (unless the source only hosts
   * Apps), the UI extension declared in mcp.json, or (without either) a source file that links a tool to a `ui://`
   * View (appLinkingSource). Read once; `kind()` and the report's reasons share it.
   */
  appEvidence(): { dependency?: string; mcpJson?: string; source?: string } {
    const pj = this.object('package.json');
    const deps = pj.ok ? { ...(pj.value.dependencies as object), ...(pj.value.devDependencies as object) } : {};
    const mcp = this.object('mcp.json');
    const exts = mcp.ok ? ((mcp.value.capabilities as Record<string, unknown> | undefined)?.extensions as unknown) : undefined;
    const out = {
      ...(APPS_SDK in deps && !this.hostsAppsOnly() ? { dependency: APPS_SDK } : {}),
      ...(Array.isArray(exts) && exts.includes(UI_EXTENSION) ? { mcpJson: UI_EXTENSION } : {}),
    };
    if (out.dependency || out.mcpJson || (APPS_SDK in deps && this.hostsAppsOnly())) return out;
    const source = this.appLinkingSource();
    return source ? { ...out, source } : out;
  }

  /** What kind of object this folder publishes. */
  kind(): TargetKind {
    if (this.has('extension.json')) return 'extension';
    const e = this.appEvidence();
    return e.dependency || e.mcpJson || e.source ? 'app' : 'server';
  }
}

/** Build one matcher from every .gitignore in the tree, each scoped to its own folder. */
function loadGitignores(root: string, all: string[]): Ignore {
  const ig = ignore();
  const gitignores = all.filter((f) => f === '.gitignore' || f.endsWith('/.gitignore')).sort((a, b) => a.length - b.length);
  for (const gi of gitignores) {
    const base = posix.dirname(gi);
    const got = readInside(root, gi, MAX_TEXT_BYTES);
    if (!got.ok) continue;
    const body = got.text;
    for (const rawLine of body.split(/\r?\n/)) {
      const line = rawLine.trim();
      if (!line || line.startsWith('#')) continue;
      if (base === '.') ig.add(line);
      else {
        const neg = line.startsWith('!');
        const pat = neg ? line.slice(1) : line;
        const anchored = pat.startsWith('/') ? pat.slice(1) : pat.includes('/') && !pat.endsWith('/') ? pat : `**/${pat}`;
        ig.add(`${neg ? '!' : ''}${base}/${anchored}`);
      }
    }
  }
  return ig;
}

// jsonErrorWhere lives in safe-read.ts (config reads JSON without loading this module).
export { jsonErrorWhere } from './safe-read.js';
