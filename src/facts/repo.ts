import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { globSync } from 'tinyglobby';
import type { TargetKind } from '../engine/types.js';

/**
 * Facts about a repository or package folder, gathered once per audit. Files are listed once
 * (respecting .gitignore, skipping node_modules and .git); file contents and parsed manifests are read
 * lazily and memoised, so every detector sees the same bytes.
 */

export type Read<T> =
  | { ok: true; value: T; file: string }
  | { ok: false; file: string; problem: 'missing' | 'unreadable' | 'invalid-json' | 'too-large'; detail?: string };

const MAX_TEXT_BYTES = 2 * 1024 * 1024;
const ALWAYS_SKIPPED = ['**/node_modules/**', '.git/**'];

export class RepoFacts {
  readonly root: string;
  /** All files (relative, forward slashes), sorted. */
  readonly files: string[];
  private readonly texts = new Map<string, Read<string>>();
  private readonly jsons = new Map<string, Read<unknown>>();

  private constructor(root: string, files: string[]) {
    this.root = root;
    this.files = files;
  }

  /** Gather the file list. Throws if the root is not a readable folder (the runner turns that into could-not-judge). */
  static gather(root: string, ignorePaths: string[] = []): RepoFacts {
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      throw new Error(`not a folder: ${root}`);
    }
    const all = globSync(['**/*'], {
      cwd: root,
      dot: true,
      ignore: [...ALWAYS_SKIPPED, ...ignorePaths],
      onlyFiles: true,
      followSymbolicLinks: false,
    });
    const ig = loadGitignores(root, all);
    const files = all.filter((f) => !ig.ignores(f)).sort();
    return new RepoFacts(root, files);
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
    const abs = join(this.root, rel);
    if (!this.has(rel)) r = { ok: false, file: rel, problem: 'missing' };
    else {
      try {
        const size = statSync(abs).size;
        if (size > MAX_TEXT_BYTES) r = { ok: false, file: rel, problem: 'too-large', detail: String(size) };
        else r = { ok: true, file: rel, value: readFileSync(abs, 'utf8') };
      } catch (e) {
        r = { ok: false, file: rel, problem: 'unreadable', detail: (e as Error).message };
      }
    }
    this.texts.set(rel, r);
    return r;
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
        r = { ok: false, file: rel, problem: 'invalid-json', detail: (e as Error).message };
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

  /** What kind of object this folder publishes. */
  kind(): TargetKind {
    if (this.has('extension.json')) return 'extension';
    const pj = this.object('package.json');
    const deps = pj.ok ? { ...(pj.value.dependencies as object), ...(pj.value.devDependencies as object) } : {};
    const mcp = this.object('mcp.json');
    const exts = mcp.ok ? ((mcp.value.capabilities as Record<string, unknown> | undefined)?.extensions as unknown) : undefined;
    if ('@modelcontextprotocol/ext-apps' in deps) return 'app';
    if (Array.isArray(exts) && exts.includes('io.modelcontextprotocol/ui')) return 'app';
    return 'server';
  }
}

/** Build one matcher from every .gitignore in the tree, each scoped to its own folder. */
function loadGitignores(root: string, all: string[]): Ignore {
  const ig = ignore();
  const gitignores = all.filter((f) => f === '.gitignore' || f.endsWith('/.gitignore')).sort((a, b) => a.length - b.length);
  for (const gi of gitignores) {
    const base = posix.dirname(gi);
    let body: string;
    try {
      body = readFileSync(join(root, gi), 'utf8');
    } catch {
      continue;
    }
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
