import { realpathSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { exports as resolveExports, imports as resolveImports } from 'resolve.exports';
import { ts, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { locateInside, readInside, scanInside } from './safe-read.js';
import { browserifyResolved, FRAMEWORK } from './bundle-regions.js';
import { escapeRegExp } from './regex.js';
import { isGeneratedPath, SCREEN_PATTERNS, SOURCE_LIMITS, type SourceSetLike as SourceSet } from './source-limits.js';

/**
 * What the published object is, read from its package.json: the entry points (`bin`, `main`, `module`,
 * `exports`), the files they reach, which generated folders stand for source that is present, and the
 * dependencies a wrapper package registers its tools in.
 *
 *   - Generated output (dist, build, out, coverage, *.min.js) is left out of the server model only when the
 *     source it is compiled from is present: a tsconfig whose outDir is that folder, or a file of it whose
 *     counterpart is in `src/` (dist/x.js <- src/x.ts). A published package (a `bin/` launcher over `dist/`)
 *     is read whole.
 *   - A package that registers no tool in its own files, and whose entry points import a declared dependency
 *     (not an MCP SDK), is a wrapper — often a launcher of a few lines over the vendor's core package
 *     (`require('@acme/core/lib/mcp/program')`, `import { start } from '@acme/core/mcp'`): the imports are
 *     followed into the dependency's installed folder (node_modules next to the package or up the tree), from
 *     the subpaths imported (resolved through its `exports` as Node does, `require` before `import` for a
 *     require()) through the files they reach by relative imports, bounded by DEPENDENCY_LIMITS and the parse
 *     budget; its files join the parsed sources as `node_modules/<name>/<path>` when they register something.
 *     The server's part of the dependency (what registers, what it leads to, what leads to it) is read first;
 *     a file of it that cannot be read is named in `unread` with its cause, a file of the rest (a command-line
 *     layer, a vendored bundle, modules past the limits) in `screened` (readDependency). For a package with a
 *     `bin` that uses no MCP framework itself, a dependency that cannot be read this way (not installed, no
 *     registration within the limits) is named in the parsed sources' `unread` list, so the rules that read
 *     code say could-not-judge naming it. Dependencies are looked up in the package's own
 *     node_modules, and up the tree only while the package itself lies in a node_modules folder (an installed
 *     package), as Node resolves them — never in the node_modules of an unrelated folder above a checkout.
 */

export const DEPENDENCY_LIMITS = {
  /** Packages followed from the audited one (a dependency of a dependency is depth 2). */
  depth: 2,
  /** Files read from one dependency. */
  files: 400,
  /** Bytes read from one dependency. */
  bytes: 12 * 1024 * 1024,
  /**
   * Dependencies followed in all. An HTTP framework a launcher imports (express: about thirty small packages one
   * level down) is walked whole within it; past it a package is named with 'too-many-dependencies' and this
   * count, never with the byte limit of one dependency (it was not measured).
   */
  packages: 40,
};


/** Text that shows a registration (a cheap screen; the server model reads the syntax). */
const REGISTRATION = /\b(?:registerTool|registerPrompt|registerResource|setRequestHandler|addTool|addPrompt|addResource|addResourceTemplate|inputSchema)\b|\.tool\s*\(/;

const SOURCE_EXT = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const EXTS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];

const asObject = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Every path string in an `exports` value (conditions and subpaths; type declarations left out). */
function exportTargets(v: unknown, out: string[], key = ''): void {
  if (typeof v === 'string') {
    if (key !== 'types' && !v.endsWith('.d.ts') && !v.endsWith('package.json')) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) exportTargets(x, out, key);
  else {
    const o = asObject(v);
    if (o) for (const [k, x] of Object.entries(o)) exportTargets(x, out, k);
  }
}

/** The entry points a package.json declares, as paths relative to its folder (may not exist). */
export function declaredEntries(pkg: Record<string, unknown>): string[] {
  const out: string[] = [];
  const bin = pkg.bin;
  if (typeof bin === 'string') out.push(bin);
  else for (const v of Object.values(asObject(bin) ?? {})) if (typeof v === 'string') out.push(v);
  for (const k of ['main', 'module']) if (typeof pkg[k] === 'string') out.push(pkg[k] as string);
  exportTargets(pkg.exports, out);
  return [...new Set(out.map((p) => posix.normalize(p.replace(/\\/g, '/')).replace(/^\.\//, '')).filter((p) => p && !p.startsWith('..') && !p.includes('*')))];
}

/** The file a path names in a set of known files: as written, with a source extension, or as a folder's index. */
function pickFile(base: string, has: (rel: string) => boolean): string | undefined {
  const stem = base.replace(/\.[cm]?[jt]sx?$/, '');
  for (const c of [base, ...EXTS.map((e) => stem + e), ...EXTS.map((e) => `${base}/index${e}`)]) if (has(c)) return c;
  return undefined;
}

/**
 * The relative modules a file needs to run: import and export-from declarations, `require('…')` and `import('…')`
 * with a literal path or one built from `__dirname`/`import.meta.url` and literals (`path.join(__dirname,
 * '../dist/index.js')`, `new URL('../dist/index.js', import.meta.url)`). A load that the code expects may fail (inside
 * a `try` with a `catch`, or an `import()` followed by `.catch(…)`) is optional and left out.
 */
function requiredModules(text: string): string[] {
  let sf: ts.SourceFile;
  try {
    sf = ts.createSourceFile('entry.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  } catch {
    return [];
  }
  const out: string[] = [];
  const literal = (n: ts.Node | undefined): string | undefined => (n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined);
  const fromDir = (n: ts.Node | undefined): string | undefined => {
    if (!n) return undefined;
    const l = literal(n);
    if (l !== undefined) return l;
    // path.join(__dirname, '..', 'dist/index.js') / path.resolve(__dirname, '…')
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ['join', 'resolve'].includes(n.expression.name.text)) {
      const [first, ...rest] = n.arguments;
      if (!first || !ts.isIdentifier(first) || first.text !== '__dirname' || !rest.length) return undefined;
      const parts = rest.map(literal);
      return parts.every((p) => p !== undefined) ? './' + posix.join(...(parts as string[])) : undefined;
    }
    // new URL('../dist/index.js', import.meta.url)
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'URL' && n.arguments?.length === 2) {
      const base = n.arguments[1]!;
      if (ts.isPropertyAccessExpression(base) && base.name.text === 'url' && ts.isMetaProperty(base.expression)) return literal(n.arguments[0]);
    }
    return undefined;
  };
  const optional = (n: ts.Node): boolean => {
    for (let p: ts.Node | undefined = n.parent, c: ts.Node = n; p; c = p, p = p.parent) {
      if (ts.isTryStatement(p) && p.tryBlock === c && p.catchClause) return true;
      if (ts.isPropertyAccessExpression(p) && p.expression === c && p.name.text === 'catch') return true;
      if (ts.isFunctionLike(p)) return false;
    }
    return false;
  };
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      const l = literal(n.moduleSpecifier);
      if (l !== undefined && !(ts.isImportDeclaration(n) && n.importClause?.isTypeOnly)) out.push(l);
    } else if (ts.isCallExpression(n) && n.arguments.length >= 1) {
      const isRequire = ts.isIdentifier(n.expression) && n.expression.text === 'require';
      const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword;
      if ((isRequire || isImport) && !optional(n)) {
        let spec = fromDir(n.arguments[0]);
        if (spec !== undefined) {
          if (spec.startsWith('file:')) spec = undefined;
          else if (!spec.startsWith('.') && !spec.startsWith('/') && fromDir(n.arguments[0]) !== literal(n.arguments[0])) spec = './' + spec;
        }
        if (spec !== undefined) out.push(spec);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * Modules the package's entry points need that are not in the audited tree: a `bin` file that is missing, or a
 * relative import of a `bin`, `main` or `module` file that resolves to nothing (`bin/cli.js` importing
 * `../dist/index.js` when `dist/` was not shipped). The server's code is then not there to read, so a part
 * that read code cannot come out clean: each is named with the cause 'not-shipped' (engine/runner). Not counted:
 * a checkout whose TypeScript source is present (its build output is compiled from what is read), a path the
 * tree's .gitignore leaves out (a build output of a checkout), a generated file whose counterpart is in `src/`
 * beside its folder (dist/cli.js <- src/cli.js: a package of a monorepo whose .gitignore lies above it), a JSON or
 * native file required without its extension, a load the code expects may fail (requiredModules), and a tree with
 * no package.json or none of these fields.
 */
export function missingEntryModules(repo: RepoFacts, own: readonly string[]): { file: string; cause: string }[] {
  if (own.some((f) => /\.[cm]?tsx?$/.test(f))) return [];
  const r = repo.object('package.json');
  if (!r.ok) return [];
  const pkg = r.value;
  const norm = (p: string): string => posix.normalize(p.replace(/\\/g, '/')).replace(/^\.\//, '');
  const declared: string[] = [];
  if (typeof pkg.bin === 'string') declared.push(pkg.bin);
  else for (const v of Object.values(asObject(pkg.bin) ?? {})) if (typeof v === 'string') declared.push(v);
  const bins = declared.map(norm);
  const mains = ['main', 'module'].flatMap((k) => (typeof pkg[k] === 'string' ? [pkg[k] as string] : []));
  const has = (rel: string): boolean => repo.has(rel);
  const out = new Map<string, { file: string; cause: string }>();
  const missing = (rel: string): void => {
    if (!rel || rel.startsWith('..') || repo.ignored(rel)) return;
    out.set(rel, { file: rel, cause: 'not-shipped' });
  };
  const entries = new Set<string>();
  const builtFromSource = (rel: string): boolean => {
    const gen = generatedFolderOf(rel);
    return !!gen && !!pickFile(`${gen.slice(0, gen.lastIndexOf('/', gen.length - 2) + 1)}src/${rel.slice(gen.length)}`, has);
  };
  for (const b of bins) {
    const f = pickFile(b, has);
    if (f) entries.add(f);
    else if (!builtFromSource(b)) missing(b);
  }
  for (const m of mains.map(norm)) {
    const f = pickFile(m, has);
    if (f) entries.add(f);
  }
  for (const f of entries) {
    if (!SOURCE_EXT.test(f) && !bins.includes(f)) continue;
    const t = repo.source(f, 1024 * 1024);
    if (!t.ok) continue;
    const inBundle = browserifyResolved(t.text);
    for (const spec of requiredModules(t.text)) {
      if (!spec.startsWith('./') && !spec.startsWith('../')) continue;
      if (inBundle.has(spec)) continue;
      if (/\.(?:json|node|css|wasm|html|txt|md)$/.test(spec)) continue;
      const target = norm(posix.join(posix.dirname(f), spec));
      if (pickFile(target, has) || has(`${target}.json`) || has(`${target}.node`)) continue;
      if (builtFromSource(target)) continue;
      missing(target);
    }
  }
  return [...out.values()];
}

/** Module specifiers a file imports (import, export from, require, import()), read by the compiler's own pre-processor. */
export function importsOfText(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** Bare specifier -> package name and subpath: `@a/b/c/d` -> ['@a/b', 'c/d']. Undefined for builtins and relative paths. */
export function packageOf(spec: string): { name: string; sub: string } | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || spec.startsWith('#')) return undefined;
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  if (parts.length < n || parts.slice(0, n).some((p) => !p)) return undefined;
  return { name: parts.slice(0, n).join('/'), sub: parts.slice(n).join('/') };
}

const BUILTINS = new Set(['assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto', 'dgram', 'diagnostics_channel', 'dns', 'domain', 'events', 'fs', 'http', 'http2', 'https', 'inspector', 'module', 'net', 'os', 'path', 'perf_hooks', 'process', 'punycode', 'querystring', 'readline', 'repl', 'stream', 'string_decoder', 'sys', 'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi', 'worker_threads', 'zlib']);

/* ------------------------------------------------------------------ the server model's files */

/** Whether the source a generated folder is compiled from is present (see the file header). */
function compiledFromPresentSource(folder: string, own: ReadonlySet<string>, repo: RepoFacts, generatedFiles: string[]): boolean {
  const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/', folder.length - 2) + 1) : '';
  const name = folder.slice(parent.length, -1);
  // A tsconfig beside the folder (or at the root) whose outDir is the folder, with own source under its parent.
  for (const tc of [`${parent}tsconfig.json`, `${parent}tsconfig.build.json`]) {
    const r = repo.json(tc);
    const out = r.ok ? asObject(asObject(r.value)?.compilerOptions)?.outDir : undefined;
    if (typeof out === 'string' && posix.normalize(out.replace(/^\.\//, '')).replace(/\/$/, '') === name) {
      if ([...own].some((f) => f.startsWith(parent) && /\.[cm]?tsx?$/.test(f))) return true;
    }
  }
  // A file of the folder whose counterpart is in src/ (or beside the folder): dist/a/b.js <- src/a/b.ts.
  for (const g of generatedFiles) {
    const rest = g.slice(folder.length).replace(/\.(?:[cm]?js|jsx|mjs|cjs)$/, '');
    if (!rest || rest === g) continue;
    for (const base of [`${parent}src/${rest}`, `${parent}${rest}`, `${parent}lib/${rest}`]) {
      if (['.ts', '.tsx', '.mts', '.cts'].some((e) => own.has(base + e))) return true;
    }
  }
  return false;
}

/** The generated folder (prefix ending in '/') a path is under, or '' for a minified file outside one. */
function generatedFolderOf(rel: string): string {
  const parts = rel.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (['dist', 'build', 'out', 'coverage'].includes(parts[i]!)) return parts.slice(0, i + 1).join('/') + '/';
  return '';
}

/**
 * The files the server model reads: the parsed sources minus generated output whose source is present
 * (coverage reports and minified files always left out unless nothing else is there). Dependencies followed
 * into node_modules are kept.
 */
export function selectModelFiles(files: ReadonlyMap<string, SourceFile>, repo: RepoFacts): string[] {
  const all = [...files.keys()];
  const own = new Set(all.filter((f) => !isGeneratedPath(f) && !f.startsWith('node_modules/')));
  const byFolder = new Map<string, string[]>();
  for (const f of all) {
    if (!isGeneratedPath(f) || f.startsWith('node_modules/')) continue;
    const folder = generatedFolderOf(f);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), f]);
  }
  const kept = all.filter((f) => !isGeneratedPath(f) || f.startsWith('node_modules/'));
  for (const [folder, list] of byFolder) {
    if (folder === '' || folder.split('/').at(-2) === 'coverage') continue;
    if (!compiledFromPresentSource(folder, own, repo, list)) kept.push(...list.filter((f) => !/\.min\.[cm]?js$/.test(f)));
  }
  const out = kept.length ? kept : all;
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/* ------------------------------------------------------------------ dependencies */

/**
 * The installed folder of a package (real path), or undefined: in `<from>/node_modules`, then — only while
 * `from` lies inside a node_modules folder (an installed package) — in the node_modules folders above it.
 */
export function installedFolder(from: string, name: string): string | undefined {
  let dir: string;
  try {
    dir = realpathSync(from);
  } catch {
    return undefined;
  }
  const parts = dir.split(sep);
  const inside = parts.lastIndexOf('node_modules');
  const candidates = [join(dir, 'node_modules', ...name.split('/'))];
  // Above an installed package: every node_modules folder between it and the outermost one that holds it.
  for (let i = parts.length - 1; inside >= 0 && i >= 0; i--) {
    if (parts[i] === 'node_modules' && i <= inside) candidates.push(join(parts.slice(0, i + 1).join(sep) || sep, ...name.split('/')));
  }
  for (const c of candidates) {
    try {
      if (statSync(c).isDirectory()) return realpathSync(c);
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/**
 * The file a package's subpath resolves to (its `exports`, else the path itself or `main`), relative to its folder.
 * `required`: the subpath is loaded by `require()`, so the `require` condition comes before `import` (as Node
 * picks the CommonJS build for it).
 */
export function entryOfPackage(pkg: Record<string, unknown>, sub: string, exists: (rel: string) => boolean, required = false): string | undefined {
  const target = sub ? `./${sub}` : '.';
  if (pkg.exports !== undefined) {
    const esm = { conditions: ['node'] };
    const cjs = { conditions: ['node'], require: true };
    for (const opts of required ? [cjs, esm] : [esm, cjs]) {
      try {
        const r = resolveExports(pkg, target, opts);
        for (const p of r ?? []) {
          const f = pickFile(posix.normalize(p.replace(/^\.\//, '')), exists);
          if (f) return f;
        }
      } catch {
        /* not exported under these conditions */
      }
    }
    return undefined;
  }
  if (sub) return pickFile(posix.normalize(sub), exists);
  const main = typeof pkg.main === 'string' ? pkg.main : typeof pkg.module === 'string' ? pkg.module : 'index.js';
  return pickFile(posix.normalize(main.replace(/^\.\//, '')), exists);
}

interface Candidate {
  name: string;
  /** The subpaths imported (`lib/mcp/program` for `@a/core/lib/mcp/program`; '' for the package itself). */
  subs: string[];
  /** The subpaths loaded by `require()` (resolved with the `require` condition first). */
  required: Set<string>;
  /** The folder whose node_modules (or above) the package is looked up from. */
  from: string;
  depth: number;
}

/** Whether a file loads a module specifier by `require()` (not `import`). */
const isRequired = (text: string, spec: string): boolean => new RegExp(`\\brequire\\s*\\(\\s*['"\`]${escapeRegExp(spec)}['"\`]\\s*\\)`).test(text);

type DepOutcome = { ok: true; registers: boolean } | { ok: false; cause: 'dependency-not-installed' | 'dependency-too-large' | 'dependency-too-many-files' | 'unreadable'; limit?: number };

/** One file of a dependency met while its imports are followed. */
interface Met {
  /** Its text, when it was read whole (undefined for a file too large to parse, or not read). */
  text?: string;
  /** Why it was not read whole ('too-large' files are handed to the source set, which screens them). */
  cause?: string;
  size?: number;
  limit?: number;
  /** The files of the dependency it imports (relative imports and the package's own subpaths). */
  imports: string[];
}

/**
 * Read the files of one dependency reached from its imported entries (bounded), and add them to the set when
 * one of them registers something. New bare imports of those files are returned for the next depth.
 *
 * The imports are followed best first: the files a registering file leads to, then the files under an entry's
 * folder (`lib/mcp/` for `lib/mcp/program.js`), then the rest, until DEPENDENCY_LIMITS stop the walk. The
 * server's part is the files that register, the files they lead to and the files that lead to them; the
 * dependency's other reached files (a command-line layer, a vendored utility bundle, a test runner) are parsed
 * after it while the budget lasts. A file of the server's part that is not read is named in `unread` (the rules
 * cannot be clean over it); another one is listed with the screened files (the report's skipped inputs).
 */
function readDependency(c: Candidate, set: SourceSet, next: Candidate[], force = false): DepOutcome {
  const folder = installedFolder(c.from, c.name);
  if (!folder) return { ok: false, cause: 'dependency-not-installed' };
  const pj = readInside(folder, 'package.json', 1024 * 1024);
  let pkg: Record<string, unknown> | undefined;
  try {
    pkg = pj.ok ? asObject(JSON.parse(pj.text)) : undefined;
  } catch {
    pkg = undefined;
  }
  if (!pkg) return { ok: false, cause: 'unreadable' };
  const exists = (rel: string): boolean => SOURCE_EXT.test(rel) && locateInside(folder, rel).ok;
  const entryOf = new Map<string, string>();
  for (const sub of c.subs) {
    const e = entryOfPackage(pkg, sub, exists, c.required.has(sub));
    if (e) entryOf.set(sub, e);
  }
  if (!entryOf.size) return { ok: false, cause: 'unreadable' };
  // The most specific folders of the entries (`lib/mcp/` rather than `lib/` when both are imported).
  const folders = [...new Set([...entryOf.values()].map((e) => (posix.dirname(e) === '.' ? '' : posix.dirname(e) + '/')))];
  const entryDirs = folders.filter((d) => !folders.some((o) => o !== d && o.startsWith(d)));
  const deps = new Set([...Object.keys(asObject(pkg.dependencies) ?? {}), ...Object.keys(asObject(pkg.optionalDependencies) ?? {})]);
  const met = new Map<string, Met>();
  /** Files that register, and the files they lead to. */
  const downstream = new Set<string>();
  const registering = new Set<string>();
  // Best first: [led to by a registering file, under an entry's folder, the rest].
  const queues: string[][] = [[], [], []];
  const enqueue = (rel: string, from: string | undefined): void => {
    if (met.has(rel)) return;
    const rank = from !== undefined && downstream.has(from) ? 0 : entryDirs.some((d) => rel.startsWith(d)) ? 1 : 2;
    queues[rank]!.push(rel);
  };
  for (const e of new Set(entryOf.values())) enqueue(e, undefined);
  let bytes = 0;
  let stop: { cause: string; limit: number } | undefined;
  const bare: Candidate[] = [];
  for (;;) {
    const rank = queues.findIndex((q) => q.length > 0);
    if (rank < 0) break;
    const rel = queues[rank]!.shift()!;
    if (met.has(rel)) continue;
    if (!stop && met.size >= DEPENDENCY_LIMITS.files) stop = { cause: 'too-many-files', limit: DEPENDENCY_LIMITS.files };
    if (!stop && bytes >= DEPENDENCY_LIMITS.bytes) stop = { cause: 'budget', limit: DEPENDENCY_LIMITS.bytes };
    if (stop) {
      // Past the dependency's limits: named, not read (a file a registering file leads to is the server's).
      met.set(rel, { cause: stop.cause, limit: stop.limit, imports: [] });
      if (rank === 0) downstream.add(rel);
      continue;
    }
    const t = readInside(folder, rel, Math.min(SOURCE_LIMITS.parseBytes, DEPENDENCY_LIMITS.bytes - bytes));
    if (!t.ok) {
      met.set(rel, { cause: t.cause, size: t.size, limit: t.limit, imports: [] });
      // A file too large to read whole that shows a registration (a bundle of the server) is the server's.
      if (t.cause === 'too-large') {
        const sc = scanInside(folder, rel, [REGISTRATION], { maxBytes: SOURCE_LIMITS.scanBytes });
        if (!sc.ok || sc.matched.length) registering.add(rel);
      }
      if (rank === 0 || registering.has(rel)) downstream.add(rel);
      continue;
    }
    bytes += t.size;
    const imports: string[] = [];
    met.set(rel, { text: t.text, size: t.size, imports });
    if (REGISTRATION.test(t.text)) registering.add(rel);
    if (rank === 0 || registering.has(rel)) downstream.add(rel);
    for (const spec of importsOfText(t.text)) {
      let f: string | undefined;
      if (spec.startsWith('.')) {
        f = pickFile(posix.normalize(posix.join(posix.dirname(rel), spec)), exists);
      } else {
        const p = packageOf(spec);
        const req = isRequired(t.text, spec);
        if (p && p.name === c.name) f = entryOfPackage(pkg, p.sub, exists, req);
        else if (p && deps.has(p.name) && !FRAMEWORK.test(p.name) && !BUILTINS.has(p.name)) bare.push({ name: p.name, subs: [p.sub], required: new Set(req ? [p.sub] : []), from: folder, depth: c.depth + 1 });
      }
      if (f && !f.startsWith('..')) {
        imports.push(f);
        enqueue(f, rel);
      }
    }
  }
  if (!registering.size && !force) {
    next.push(...bare);
    // Nothing registers in what was read, and the walk stopped short: the tools may be past the limits.
    // Named for the limit that stopped it: the bytes, or the count of files, read from one dependency.
    if (stop) return { ok: false, cause: stop.cause === 'too-many-files' ? 'dependency-too-many-files' : 'dependency-too-large', limit: stop.limit };
    return { ok: true, registers: false };
  }
  // The server's part: what registers, what it leads to, and what leads to it.
  const part = new Set(force && !registering.size ? met.keys() : downstream);
  const importers = new Map<string, string[]>();
  for (const [rel, m] of met) for (const f of m.imports) importers.set(f, [...(importers.get(f) ?? []), rel]);
  const up = [...registering];
  while (up.length) {
    for (const i of importers.get(up.shift()!) ?? []) {
      if (!part.has(i)) {
        part.add(i);
        up.push(i);
      }
    }
  }
  const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const order = [...[...part].sort(byPath), ...[...met.keys()].filter((f) => !part.has(f)).sort(byPath)];
  let added = 0;
  for (const rel of order) {
    const m = met.get(rel)!;
    const vrel = `node_modules/${c.name}/${rel}`;
    if (set.files.has(vrel)) continue;
    const before = set.unread.length;
    if (m.text === undefined && m.cause !== 'too-large') {
      set.unread.push({ file: vrel, cause: m.cause ?? 'unreadable', ...(m.limit !== undefined ? { limit: m.limit } : {}) });
    } else {
      const text = m.text;
      const sf = set.add(
        vrel,
        (limit) =>
          text === undefined
            ? readInside(folder, rel, limit)
            : text.length <= limit
              ? { ok: true, text, size: Buffer.byteLength(text) }
              : { ok: false, cause: 'too-large', size: Buffer.byteLength(text), limit },
        () => (text === undefined ? scanInside(folder, rel, SCREEN_PATTERNS, { maxBytes: SOURCE_LIMITS.scanBytes }) : { ok: true, matched: SCREEN_PATTERNS.filter((re) => re.test(text)), size: Buffer.byteLength(text) }),
      );
      if (sf) added++;
    }
    // A file outside the server's part that was not read is listed, not named as holding the server's code.
    if (!part.has(rel) && set.unread.length > before) set.screened.push(...set.unread.splice(before));
  }
  set.dependencies.push({ name: c.name, folder, files: added });
  for (const [sub, e] of entryOf) set.entries?.set(sub ? `${c.name}/${sub}` : c.name, `node_modules/${c.name}/${e}`);
  return { ok: true, registers: registering.size > 0 };
}

/** Candidates of the same package looked up from the same folder, as one with their subpaths together. */
function mergeCandidates(list: readonly Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  for (const c of list) {
    const same = out.find((x) => x.name === c.name && x.from === c.from);
    if (same) {
      same.subs.push(...c.subs.filter((s) => !same.subs.includes(s)));
      for (const s of c.required) same.required.add(s);
    } else out.push({ ...c, subs: [...c.subs], required: new Set(c.required) });
  }
  return out;
}

/**
 * Specifiers that name a package's own modules without a relative path, recorded with the own file they resolve
 * to so that the imports are followed like relative ones: the package's own name with an `exports` subpath
 * (Node's self-reference, `import { log } from 'my-server/utils'`) and its subpath imports (`#lib/log`, mapped by
 * the `imports` field). Only specifiers the package's files write are looked up.
 */
function selfReferences(pkg: Record<string, unknown>, set: SourceSet): void {
  const name = typeof pkg.name === 'string' ? pkg.name : undefined;
  if (!set.entries || (pkg.exports === undefined && pkg.imports === undefined)) return;
  const has = (rel: string): boolean => set.files.has(rel);
  for (const [rel, sf] of set.files) {
    if (rel.startsWith('node_modules/')) continue;
    for (const spec of importsOfText(sf.getFullText())) {
      if (set.entries.has(spec)) continue;
      const f = spec.startsWith('#') ? subpathImport(pkg, spec, has) : packageOf(spec)?.name === name && pkg.exports !== undefined ? entryOfPackage(pkg, packageOf(spec)!.sub, has) : undefined;
      if (f) set.entries.set(spec, f);
    }
  }
}

/** The own file a subpath import (`#lib/log`) resolves to through the package's `imports` field, or undefined. */
function subpathImport(pkg: Record<string, unknown>, spec: string, exists: (rel: string) => boolean): string | undefined {
  if (pkg.imports === undefined) return undefined;
  for (const opts of [{ conditions: ['node'] }, { conditions: ['node'], require: true }]) {
    try {
      for (const p of resolveImports(pkg, spec, opts) ?? []) {
        if (!p.startsWith('./')) continue; // mapped to a dependency: not an own module
        const f = pickFile(posix.normalize(p.slice(2)), exists);
        if (f) return f;
      }
    } catch {
      /* not mapped under these conditions */
    }
  }
  return undefined;
}

/**
 * Follow a wrapper package's imports into its dependencies (see the file header). Called by parsedSources
 * once the package's own files are parsed.
 */
export function followDependencies(repo: RepoFacts, set: SourceSet): void {
  const pj = repo.object('package.json');
  if (!pj.ok) return;
  const pkg = pj.value;
  selfReferences(pkg, set);
  const model = selectModelFiles(set.files, repo);
  const deps = new Set(['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) => Object.keys(asObject(pkg[k]) ?? {})));
  if (model.some((f) => REGISTRATION.test(set.files.get(f)!.getFullText()))) {
    if (deps.size) followListSources(repo, set, model, deps);
    return;
  }
  if (!deps.size) return;
  // The files the entry points reach by relative imports (all of the model's files when none is declared).
  const has = (rel: string): boolean => set.files.has(rel);
  const roots = declaredEntries(pkg).map((e) => pickFile(e, has)).filter((f): f is string => !!f);
  const reached = new Set<string>();
  const queue = roots.length ? [...roots] : [...model];
  while (queue.length) {
    const rel = queue.shift()!;
    if (reached.has(rel)) continue;
    reached.add(rel);
    for (const spec of importsOfText(set.files.get(rel)!.getFullText())) {
      if (!spec.startsWith('.')) continue;
      const f = pickFile(posix.normalize(posix.join(posix.dirname(rel), spec)), has);
      if (f && !reached.has(f)) queue.push(f);
    }
  }
  const usesFramework = [...reached].some((rel) => importsOfText(set.files.get(rel)!.getFullText()).some((s) => FRAMEWORK.test(packageOf(s)?.name ?? '')));
  let frontier: Candidate[] = [];
  const seenSpec = new Set<string>();
  for (const rel of [...reached].sort()) {
    const text = set.files.get(rel)!.getFullText();
    for (const spec of importsOfText(text)) {
      const p = packageOf(spec);
      if (!p || !deps.has(p.name) || FRAMEWORK.test(p.name) || BUILTINS.has(p.name) || seenSpec.has(spec)) continue;
      seenSpec.add(spec);
      // The subpaths of one package are followed together (`@a/core/lib/cli` and `@a/core/lib/mcp/program`).
      frontier.push({ name: p.name, subs: [p.sub], required: new Set(isRequired(text, spec) ? [p.sub] : []), from: repo.root, depth: 1 });
    }
  }
  frontier = mergeCandidates(frontier);
  const failed = new Map<string, { cause: string; limit?: number }>();
  let registered = false;
  let followed = 0;
  const done = new Set<string>();
  const readOk = new Set<string>();
  while (frontier.length && !registered) {
    const next: Candidate[] = [];
    for (const c of frontier) {
      const key = `${c.from}\0${c.name}\0${c.subs.join('\0')}`;
      if (done.has(key) || c.depth > DEPENDENCY_LIMITS.depth) continue;
      done.add(key);
      if (followed >= DEPENDENCY_LIMITS.packages) {
        // Past the count of packages followed: named for the count, not for a size it was never measured at.
        if (!failed.has(c.name) && !readOk.has(c.name)) failed.set(c.name, { cause: 'too-many-dependencies', limit: DEPENDENCY_LIMITS.packages });
        continue;
      }
      followed++;
      const r = readDependency(c, set, next);
      if (!r.ok) failed.set(c.name, { cause: r.cause, ...(r.limit !== undefined ? { limit: r.limit } : {}) });
      else {
        readOk.add(c.name);
        if (r.registers) registered = true;
      }
    }
    frontier = mergeCandidates(next);
  }
  if (registered) return;
  // Nothing registered anywhere we could read: a dependency we could not read may hold the tools. It is named
  // only for a runnable package (it declares a `bin`, as a server launcher does) that does not use an MCP
  // framework itself (then the server is its own code): a library or an extension that imports a helper
  // package is not a wrapper.
  const runnable = typeof pkg.bin === 'string' || Object.keys(asObject(pkg.bin) ?? {}).length > 0;
  if (usesFramework || !runnable) return;
  for (const [name, { cause, limit }] of [...failed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    set.unread.push({ file: `node_modules/${name}/`, cause, ...(limit !== undefined ? { limit } : {}) });
  }
}

/* ------------------------------------------------------------------ tools listed from a dependency */

/** A tools/list handler's schema, as the v1 SDK names it (also `types_js_1.ListToolsRequestSchema`) or as v2's method name. */
const LIST_HANDLER_SCHEMA = /(?:^|\.)ListToolsRequestSchema$|^['"`]tools\/list['"`]$/;

/** The bare module specifier each top-level binding of a file comes from (import, `require()` with or without destructuring), or its relative one. */
function importedBindings(sf: ts.SourceFile): Map<string, string> {
  const out = new Map<string, string>();
  const requireOf = (e: ts.Expression | undefined): string | undefined => {
    let u = e;
    while (u && (ts.isAwaitExpression(u) || ts.isParenthesizedExpression(u))) u = u.expression;
    // __toESM(require("x")), __importDefault(require("x")): the helpers a compiler or bundler wraps a require in.
    if (u && ts.isCallExpression(u) && ts.isIdentifier(u.expression) && /^__(?:toESM|importDefault|importStar)$/.test(u.expression.text) && u.arguments[0]) u = u.arguments[0];
    if (u && ts.isCallExpression(u) && ts.isIdentifier(u.expression) && u.expression.text === 'require' && u.arguments[0] && ts.isStringLiteral(u.arguments[0])) return u.arguments[0].text;
    return undefined;
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const spec = st.moduleSpecifier.text;
      const c = st.importClause;
      if (c?.name) out.set(c.name.text, spec);
      const nb = c?.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) out.set(nb.name.text, spec);
      else if (nb) for (const el of nb.elements) out.set(el.name.text, spec);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const spec = requireOf(d.initializer);
        if (!spec) continue;
        if (ts.isIdentifier(d.name)) out.set(d.name.text, spec);
        else if (ts.isObjectBindingPattern(d.name)) for (const el of d.name.elements) if (ts.isIdentifier(el.name)) out.set(el.name.text, spec);
      }
    }
  }
  return out;
}

/**
 * The names at the root of a tool list's expression, inside function `fn`: `tools.map((t) => t.schema)` -> tools,
 * `browser_tools_1.allTools` -> browser_tools_1, `[...core, ...extra]` -> core, extra, `getTools()` -> getTools;
 * a variable declared in `fn` is read through its initializer.
 */
function listRoots(e: ts.Node, fn: ts.Node | undefined, out: Set<string>, depth = 0): void {
  if (depth > 8) return;
  if (ts.isParenthesizedExpression(e) || ts.isAwaitExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) return listRoots(e.expression, fn, out, depth + 1);
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return listRoots(e.expression, fn, out, depth + 1);
  if (ts.isCallExpression(e)) return listRoots(e.expression, fn, out, depth + 1);
  if (ts.isArrayLiteralExpression(e)) {
    for (const el of e.elements) listRoots(ts.isSpreadElement(el) ? el.expression : el, fn, out, depth + 1);
    return;
  }
  if (ts.isIdentifier(e)) {
    let local: ts.Expression | undefined;
    const find = (n: ts.Node): void => {
      if (local) return;
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === e.text && n.initializer) local = n.initializer;
      else ts.forEachChild(n, find);
    };
    if (fn) find(fn);
    if (local) listRoots(local, undefined, out, depth + 1);
    else out.add(e.text);
  }
}

/** The `tools` values a tools/list handler returns (object literals with a `tools` key, anywhere in its body). */
function listedValues(fn: ts.Node): ts.Expression[] {
  const out: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isObjectLiteralExpression(n)) {
      for (const p of n.properties) {
        if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === 'tools') out.push(p.initializer);
        else if (ts.isShorthandPropertyAssignment(p) && p.name.text === 'tools') out.push(p.name);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(fn);
  return out;
}

/** What export `name` of a module of the package stands for: a bare specifier it is re-exported from, or the roots of its value there. */
function exportRoots(sf: ts.SourceFile, name: string, specs: Set<string>, seen: Set<string>, rel: string, set: SourceSet, depth: number): void {
  if (depth > 3 || seen.has(`${rel}#${name}`)) return;
  seen.add(`${rel}#${name}`);
  const roots = new Set<string>();
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st) && st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) listRoots(d.initializer, undefined, roots);
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) {
        if (el.name.text !== name) continue;
        const local = (el.propertyName ?? el.name).text;
        if (st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) follow(st.moduleSpecifier.text, local);
        else roots.add(local);
      }
    } else if (ts.isExportDeclaration(st) && !st.exportClause && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      follow(st.moduleSpecifier.text, name);
    } else if (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression) && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = st.expression.left.getText(sf).replace(/\s+/g, '');
      if (target === `exports.${name}` || target === `module.exports.${name}`) listRoots(st.expression.right, undefined, roots);
    }
  }
  // A local const exported under that name (export { tools }, exports.tools = tools): its initializer's roots.
  const locals = new Map<string, ts.Expression>();
  for (const st of sf.statements) if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) locals.set(d.name.text, d.initializer);
  const bindings = importedBindings(sf);
  const resolve = (r: string, hops: number): void => {
    const spec = bindings.get(r);
    if (spec) return follow(spec, r);
    const init = locals.get(r);
    if (init && hops < 4) {
      const more = new Set<string>();
      listRoots(init, undefined, more);
      for (const m of more) if (m !== r) resolve(m, hops + 1);
    }
  };
  for (const r of roots) resolve(r, 0);

  function follow(spec: string, imported: string): void {
    if (!spec.startsWith('.')) {
      specs.add(spec);
      return;
    }
    const f = pickFile(posix.normalize(posix.join(posix.dirname(rel), spec)), (x) => set.files.has(x));
    if (f) exportRoots(set.files.get(f)!.compilerNode, imported, specs, seen, f, set, depth + 1);
  }
}

/**
 * The packages a low-level server's tool list comes from: what the `tools` value a tools/list handler returns
 * is rooted in (`tools.map((t) => t.schema)` with `tools` imported from `@acme/browser-tools`, or re-exported
 * from it by a module of the package). Declared dependencies only, MCP frameworks left out.
 */
function listSourcePackages(set: SourceSet, model: readonly string[], deps: ReadonlySet<string>): { name: string; sub: string; spec: string }[] {
  const specs = new Set<string>();
  for (const rel of model) {
    if (rel.startsWith('node_modules/')) continue;
    const sf = set.files.get(rel)!.compilerNode;
    if (!/ListToolsRequestSchema|tools\/list/.test(sf.text)) continue;
    const roots = new Set<string>();
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'setRequestHandler' && n.arguments.length >= 2) {
        const schema = n.arguments[0]!.getText(sf).replace(/\s+/g, '');
        const fn = n.arguments[n.arguments.length - 1]!;
        if (LIST_HANDLER_SCHEMA.test(schema)) for (const v of listedValues(fn)) listRoots(v, fn, roots);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    if (!roots.size) continue;
    // The roots as bindings of this file: imports and requires (a relative module read for that export), or
    // module-level consts (their own roots, one level).
    const seen = new Set<string>();
    const bindings = importedBindings(sf);
    const locals = new Map<string, ts.Expression>();
    for (const st of sf.statements) if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) locals.set(d.name.text, d.initializer);
    const fromBinding = (r: string): boolean => {
      const spec = bindings.get(r);
      if (!spec) return false;
      if (!spec.startsWith('.')) specs.add(spec);
      else {
        const f = pickFile(posix.normalize(posix.join(posix.dirname(rel), spec)), (x) => set.files.has(x));
        const imported = importedName(sf, r);
        if (f && imported) exportRoots(set.files.get(f)!.compilerNode, imported, specs, seen, f, set, 1);
      }
      return true;
    };
    for (const r of roots) {
      if (fromBinding(r) || !locals.has(r)) continue;
      const more = new Set<string>();
      listRoots(locals.get(r)!, undefined, more);
      for (const m of more) fromBinding(m);
    }
  }
  const out: { name: string; sub: string; spec: string }[] = [];
  for (const spec of [...specs].sort()) {
    const p = packageOf(spec);
    if (p && deps.has(p.name) && !FRAMEWORK.test(p.name) && !BUILTINS.has(p.name)) out.push({ ...p, spec });
  }
  return out;
}

/** The name a local binding imports (`import { a as b }` -> a for b; a default or namespace import -> 'default' / '*'; a require -> the local name). */
function importedName(sf: ts.SourceFile, local: string): string | undefined {
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      if (c?.name?.text === local) return 'default';
      const nb = c?.namedBindings;
      if (nb && ts.isNamespaceImport(nb) && nb.name.text === local) return '*';
      if (nb && ts.isNamedImports(nb)) for (const el of nb.elements) if (el.name.text === local) return (el.propertyName ?? el.name).text;
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isObjectBindingPattern(d.name)) for (const el of d.name.elements) if (ts.isIdentifier(el.name) && el.name.text === local) return el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : local;
      }
    }
  }
  return undefined;
}

/**
 * A package that registers its own list handler but takes the tool definitions from a dependency (a monorepo
 * sibling published apart, see listSourcePackages): the dependency's files its entry reaches are read as the
 * wrapper's are, and the subpath entries are recorded so that the server model follows the imports into them.
 * A dependency that cannot be read (not installed, too large) is named in `unread`: the tools are there.
 */
function followListSources(repo: RepoFacts, set: SourceSet, model: readonly string[], deps: ReadonlySet<string>): void {
  let followed = 0;
  for (const c of listSourcePackages(set, model, deps)) {
    if (set.dependencies.some((d) => d.name === c.name) && set.entries?.has(c.spec)) continue;
    if (followed >= DEPENDENCY_LIMITS.packages) break;
    followed++;
    const r = readDependency({ name: c.name, subs: [c.sub], required: new Set(), from: repo.root, depth: 1 }, set, [], true);
    if (!r.ok && !set.unread.some((u) => u.file === `node_modules/${c.name}/`)) {
      set.unread.push({ file: `node_modules/${c.name}/`, cause: r.cause, ...(r.limit !== undefined ? { limit: r.limit } : {}) });
    }
  }
}
