import { isInside as isInsideRoot } from '../facts/safe-read.js';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import semver from 'semver';
import { parse as parseToml } from 'smol-toml';

/**
 * Which package a probed command runs (issue 9 §1), so that the probe judges the package's static parts with
 * its live server and compares the served version with the package's own. Read-only: nothing is run, only
 * files named by the command (and the package managers' cache layouts) are looked at, each bounded in size.
 *
 * - a script path (`node dist/index.js`, `python server.py`, `tsx src/index.ts`): the nearest manifest
 *   upward from the script's real path (a package.json with a name or version, or a pyproject.toml);
 * - a bin: `./node_modules/.bin/x` (a symlink, or a pnpm shell shim naming its target) or a bare name found
 *   on the probed environment's PATH: its real path, then the nearest package.json whose `bin` maps to it;
 *   a Python console script in a virtual environment: the project above it, else the installed
 *   distribution whose entry points name it;
 * - `npx [-y] [-p spec] pkg@ver …` / `npm exec`: the folder npx runs it from, in npx's own order: the local
 *   node_modules when the installed version satisfies the spec, else npx's cache
 *   (`<npm cache>/_npx/<hash>/node_modules/<pkg>`, the npm cache being `npm_config_cache` or `$HOME/.npm` of the
 *   probed environment), else the global prefix;
 * - `npm start` / `npm run x` (and pnpm, yarn, bun): the package of the working directory;
 * - `python -m pkg`: the module found from the working directory (or PYTHONPATH, or the interpreter's
 *   virtual environment), then its project or installed distribution;
 * - `uv run …`: the project (`--project`, `--directory` or the working directory); `uvx pkg[@ver]` /
 *   `uv tool run`: the distribution in uv's tool environments or cache;
 * - `node -e`, a shell, an unknown launcher: none.
 */

export type PackageFrom = 'path' | 'cwd' | 'source' | 'command';
export type ManifestKind = 'package.json' | 'pyproject.toml' | 'METADATA';

export interface Manifest {
  kind: ManifestKind;
  /** Absolute path of the manifest file. */
  file: string;
  name?: string;
  version?: string;
  /** package.json `bin`: command name -> absolute path. */
  bin?: Record<string, string>;
}

export interface InferredPackage {
  /** Absolute real path of the package folder. */
  folder: string;
  name?: string;
  version?: string;
  manifest: ManifestKind;
  /** How the command led to the package. */
  via: 'script' | 'bin' | 'npx' | 'package-script' | 'python-module' | 'uv-run' | 'uvx' | 'console-script';
  /** Found in a package manager's cache or tool folder (npx, uv), not in a tree the user named. */
  cached: boolean;
}

export interface LaunchContext {
  /** The command's working directory (absolute). */
  cwd: string;
  /** The probed program's environment (PATH, HOME, npm_config_cache, UV_CACHE_DIR… are read from it). */
  env: Record<string, string | undefined>;
}

const MAX_MANIFEST_BYTES = 1024 * 1024;
const MAX_UPWARD = 40;
const MAX_SCANNED = 2000;

function readSmall(file: string, max = MAX_MANIFEST_BYTES): string | undefined {
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > max) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

const real = (p: string): string | undefined => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** A folder's package.json, read and bounded; undefined when absent or not a JSON object. */
export function readPackageJson(folder: string): Manifest | undefined {
  const file = join(folder, 'package.json');
  const text = readSmall(file);
  if (text === undefined) return undefined;
  let pj: Record<string, unknown> | undefined;
  try {
    pj = obj(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!pj) return undefined;
  const name = str(pj.name);
  const bin: Record<string, string> = {};
  if (typeof pj.bin === 'string' && name) bin[name.replace(/^@[^/]+\//, '')] = resolve(folder, pj.bin);
  for (const [k, v] of Object.entries(obj(pj.bin) ?? {})) if (typeof v === 'string') bin[k] = resolve(folder, v);
  return { kind: 'package.json', file, name, version: str(pj.version), bin };
}

/**
 * The name and version a pyproject.toml declares: [project], else [tool.poetry]. A version listed in
 * [project].dynamic is computed at build time: no version then (`dynamic` says so). Undefined when the text
 * is not TOML.
 */
export function pyprojectFields(text: string): { name?: string; version?: string; dynamic: boolean } | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const project = obj(doc.project);
  const poetry = obj(obj(doc.tool)?.poetry);
  const dynamic = Array.isArray(project?.dynamic) && project!.dynamic.includes('version');
  const name = str(project?.name) ?? str(poetry?.name);
  const version = dynamic ? undefined : (str(project?.version) ?? str(poetry?.version));
  return { ...(name ? { name } : {}), ...(version ? { version } : {}), dynamic };
}

/** A folder's pyproject.toml, bounded. */
export function readPyproject(folder: string): Manifest | undefined {
  const file = join(folder, 'pyproject.toml');
  const text = readSmall(file);
  if (text === undefined) return undefined;
  const f = pyprojectFields(text);
  return { kind: 'pyproject.toml', file, ...(f?.name ? { name: f.name } : {}), ...(f?.version ? { version: f.version } : {}) };
}

/** The manifest of a folder given as the package: package.json first, then pyproject.toml. */
export function readManifest(folder: string): Manifest | undefined {
  return readPackageJson(folder) ?? readPyproject(folder);
}

type Lang = 'node' | 'python';

/**
 * The nearest package upward from a file: a package.json that names a package (a name or a version; the
 * `{"type":"module"}` files that builds drop into dist/ are skipped) or a pyproject.toml.
 */
function nearestPackage(file: string, langs: Lang[]): { folder: string; manifest: Manifest } | undefined {
  let dir = dirname(file);
  for (let i = 0; i < MAX_UPWARD; i++) {
    if (langs.includes('node')) {
      const pj = readPackageJson(dir);
      if (pj && (pj.name || pj.version)) return { folder: dir, manifest: pj };
    }
    if (langs.includes('python')) {
      const py = readPyproject(dir);
      if (py) return { folder: dir, manifest: py };
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

const pkg = (folder: string, m: Manifest, via: InferredPackage['via'], cached = false): InferredPackage => ({
  folder: real(folder) ?? folder,
  ...(m.name ? { name: m.name } : {}),
  ...(m.version ? { version: m.version } : {}),
  manifest: m.kind,
  via,
  cached,
});

/** The first line of a file, when it is a `#!` line. */
function shebang(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const head = buf.subarray(0, n).toString('utf8');
    return head.startsWith('#!') ? head.split('\n')[0] : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function langsOf(file: string): Lang[] {
  if (/\.(?:[cm]?[jt]s|[jt]sx)$/.test(file)) return ['node'];
  if (/\.pyw?$/.test(file)) return ['python'];
  const line = shebang(file) ?? '';
  if (/python/.test(line)) return ['python'];
  if (/\b(?:node|bun|tsx|ts-node|deno)\b/.test(line)) return ['node'];
  return ['node', 'python'];
}

/**
 * A pnpm (or npm on some systems) shell shim in node_modules/.bin: it names the script it runs as
 * "$basedir/../<path>". Its target, or undefined when the file is not such a shim.
 */
function shimTarget(file: string): string | undefined {
  if (basename(dirname(file)) !== '.bin') return undefined;
  const text = readSmall(file, 64 * 1024);
  if (!text || !text.startsWith('#!')) return undefined;
  const m = /"\$basedir\/([^"$]+)"/.exec(text);
  return m ? resolve(dirname(file), m[1]!) : undefined;
}

/** A bare command name resolved on the probed environment's PATH, as the spawn will. */
export function onPath(name: string, ctx: LaunchContext): string | undefined {
  for (const d of (ctx.env.PATH ?? '').split(':')) {
    if (!d) continue;
    const f = resolve(ctx.cwd, d, name);
    try {
      accessSync(f, constants.X_OK);
      if (isFile(f)) return f;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The virtual environment a file lies in (a `pyvenv.cfg` beside its bin/ folder), if any. */
function venvOf(file: string): string | undefined {
  const bin = dirname(file);
  const root = dirname(bin);
  return existsSync(join(root, 'pyvenv.cfg')) ? root : undefined;
}

function sitePackagesOf(venv: string): string[] {
  const lib = join(venv, 'lib');
  let entries: string[] = [];
  try {
    entries = readdirSync(lib).filter((d) => /^(?:python|pypy)\d/.test(d));
  } catch {
    return [];
  }
  return entries.map((d) => join(lib, d, 'site-packages')).filter(isDir);
}

const normalizeDist = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');

/** Name and Version of an installed distribution's METADATA (its leading header lines). */
function distMetadata(distInfo: string): { name?: string; version?: string } {
  const text = readSmall(join(distInfo, 'METADATA')) ?? '';
  const head = text.split(/\r?\n\r?\n/)[0] ?? '';
  const field = (k: string) => new RegExp(`^${k}:[ \\t]*(.+?)\\s*$`, 'im').exec(head)?.[1];
  return { name: field('Name'), version: field('Version') };
}

/** Top-level folders a distribution installs (top_level.txt, else the first segments of RECORD). */
function distTopLevel(distInfo: string): string[] {
  const top = readSmall(join(distInfo, 'top_level.txt'));
  if (top) return top.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
  const record = readSmall(join(distInfo, 'RECORD'), 2 * 1024 * 1024) ?? '';
  const out = new Set<string>();
  for (const line of record.split(/\r?\n/)) {
    const first = line.split(',')[0]?.split('/')[0];
    if (first && line.includes('/') && !first.endsWith('.dist-info') && !first.startsWith('..') && first !== '__pycache__') out.add(first);
  }
  return [...out];
}

/** Console scripts a distribution declares (entry_points.txt, [console_scripts]). */
function distScripts(distInfo: string): string[] {
  const text = readSmall(join(distInfo, 'entry_points.txt')) ?? '';
  const out: string[] = [];
  let inScripts = false;
  for (const line of text.split(/\r?\n/)) {
    const sec = /^\s*\[([^\]]+)\]/.exec(line);
    if (sec) inScripts = sec[1]!.trim() === 'console_scripts';
    else if (inScripts) {
      const k = /^\s*([^=\s]+)\s*=/.exec(line);
      if (k) out.push(k[1]!);
    }
  }
  return out;
}

interface DistMatch {
  dist?: string;
  version?: string;
  module?: string;
  script?: string;
}

/**
 * An installed distribution in a site-packages (or an unpacked wheel) folder that matches by name and
 * version, by the module it installs, or by a console script it declares. Its package folder is the
 * module's folder; the version comes from METADATA.
 */
function installedDist(root: string, want: DistMatch, via: InferredPackage['via'], cached: boolean): (InferredPackage & { mtime: number }) | undefined {
  let entries: string[];
  try {
    entries = readdirSync(root).filter((d) => d.endsWith('.dist-info'));
  } catch {
    return undefined;
  }
  for (const d of entries.sort()) {
    const distInfo = join(root, d);
    const meta = distMetadata(distInfo);
    const name = meta.name ?? d.replace(/-[^-]+\.dist-info$/, '');
    if (want.dist && normalizeDist(name) !== normalizeDist(want.dist)) continue;
    if (want.version && meta.version !== want.version) continue;
    const tops = distTopLevel(distInfo);
    if (want.module && !tops.includes(want.module)) continue;
    if (want.script && !distScripts(distInfo).includes(want.script)) continue;
    const mod = (want.module ? [want.module] : tops).map((t) => join(root, t)).find(isDir);
    if (!mod) continue;
    let mtime = 0;
    try {
      mtime = statSync(distInfo).mtimeMs;
    } catch {
      /* keep 0 */
    }
    return { folder: real(mod) ?? mod, name, ...(meta.version ? { version: meta.version } : {}), manifest: 'METADATA', via, cached, mtime };
  }
  return undefined;
}

/** The package of a script or bin file. `viaPath`: the file was found on PATH, so its package must claim it. */
export function packageOfFile(file: string, viaPath = false): InferredPackage | undefined {
  let target = real(file);
  if (!target || !isFile(target)) return undefined;
  const shim = shimTarget(file);
  if (shim) target = real(shim) ?? target;
  const langs = langsOf(target);
  const found = nearestPackage(target, langs);
  if (found?.manifest.kind === 'package.json') {
    const claims = Object.values(found.manifest.bin ?? {}).some((b) => real(b) === target);
    if (!viaPath || claims) return pkg(found.folder, found.manifest, claims || shim ? 'bin' : 'script');
  }
  if (found?.manifest.kind === 'pyproject.toml') return pkg(found.folder, found.manifest, 'script');
  // A console script of a Python virtual environment with no project above it (a tool environment).
  const venv = langs.includes('python') ? venvOf(file) : undefined;
  if (venv) {
    for (const sp of sitePackagesOf(venv)) {
      const d = installedDist(sp, { script: basename(file) }, 'console-script', false);
      if (d) return strip(d);
    }
  }
  return undefined;
}

const strip = (d: InferredPackage & { mtime?: number }): InferredPackage => {
  const { mtime: _m, ...rest } = d;
  return rest;
};

// ---------------------------------------------------------------------------------------------------------
// Launchers

/** Node-like runners whose first operand is the script. */
const NODE_RUNNERS = /^(?:node|nodejs|tsx|ts-node|ts-node-esm|bun)$/;
const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)?)?$/;
/** Options of node, tsx and ts-node that take the next word as their value. */
const NODE_VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--input-type', '--env-file', '--title', '-P', '--project', '-O', '--compiler-options', '--tsconfig']);
const NODE_EVAL_FLAGS = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '--test']);
const PYTHON_VALUE_FLAGS = new Set(['-W', '-X', '--check-hash-based-pycs']);

/** The script a node-like runner runs, or undefined (eval, stdin, REPL, a package script name). */
function nodeOperand(args: string[]): { script?: string; evaluated: boolean; rest: string[] } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { script: args[i + 1], evaluated: false, rest: args.slice(i + 2) };
    if (NODE_EVAL_FLAGS.has(a) || /^--(?:eval|print)=/.test(a)) return { evaluated: true, rest: [] };
    if (NODE_VALUE_FLAGS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return { script: a, evaluated: false, rest: args.slice(i + 1) };
  }
  return { evaluated: false, rest: [] };
}

/** `node x` resolves x as a file, then with .js, then as a folder's index.js. */
function nodeScriptFile(script: string, cwd: string): string | undefined {
  const p = resolve(cwd, script);
  for (const c of [p, `${p}.js`, `${p}.mjs`, `${p}.cjs`]) if (isFile(c)) return c;
  if (isDir(p)) {
    const pj = readPackageJson(p);
    if (pj) return join(p, 'package.json');
    for (const c of ['index.js', 'index.mjs']) if (isFile(join(p, c))) return join(p, c);
  }
  return undefined;
}

function packageOfNodeRunner(runner: string, args: string[], ctx: LaunchContext): InferredPackage | undefined {
  let list = args;
  if (runner === 'bun') {
    if (list[0] === 'x') return undefined; // bunx: not resolved here
    if (list[0] === 'run') list = list.slice(1);
  }
  const { script, evaluated } = nodeOperand(list);
  if (evaluated || !script || script === '-') return undefined;
  const file = nodeScriptFile(script, ctx.cwd);
  if (file) return packageOfFile(file);
  // `bun run start`: a script of the working directory's package.
  if (runner === 'bun' && !script.includes('/')) return packageOfCwd(ctx);
  return undefined;
}

/** The package of the working directory (package scripts: npm start, npm run x, pnpm, yarn, bun run). */
function packageOfCwd(ctx: LaunchContext): InferredPackage | undefined {
  const found = nearestPackage(join(ctx.cwd, 'package.json'), ['node']);
  return found ? pkg(found.folder, found.manifest, 'package-script') : undefined;
}

// npx ------------------------------------------------------------------------------------------------------

interface NpxSpec {
  raw: string;
  name?: string;
  range: string;
  directory?: string;
}

function parseSpec(raw: string, cwd: string): NpxSpec {
  if (/^(?:\.{1,2}(?:\/|$)|\/|~\/|file:)/.test(raw)) return { raw, range: '', directory: resolve(cwd, raw.replace(/^file:/, '')) };
  if (/^[a-z+]+:|\.t(?:ar\.)?gz$/i.test(raw) || /^[^@/]+\/[^@/]+$/.test(raw)) return { raw, range: '' }; // git, URL, tarball, user/repo
  const at = raw.indexOf('@', raw.startsWith('@') ? 1 : 0);
  return at < 0 ? { raw, name: raw, range: '' } : { raw, name: raw.slice(0, at), range: raw.slice(at + 1) };
}

function versionMatches(range: string, version: string | undefined): boolean {
  if (!range || range === '*' || range === 'latest') return true;
  if (!version) return false;
  if (semver.valid(range)) return semver.eq(range, version);
  if (semver.validRange(range)) return semver.satisfies(version, range);
  return false; // another dist-tag: cannot be told offline
}

/** npx's options and operands: the packages it installs (-p, else the command) and whether it runs a shell line. */
function npxOperands(args: string[]): { packages: string[]; command?: string; call: boolean } {
  const packages: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      command = args[i + 1];
      break;
    }
    if (a === '-c' || a === '--call' || a.startsWith('--call=')) return { packages, call: true };
    if (a === '-p' || a === '--package') {
      if (args[i + 1] !== undefined) packages.push(args[++i]!);
      continue;
    }
    if (a.startsWith('--package=')) {
      packages.push(a.slice('--package='.length));
      continue;
    }
    if (a.startsWith('-')) continue; // -y, --yes, --no, --quiet, --prefer-offline, --registry=…
    command = a;
    break;
  }
  return { packages: packages.length ? packages : command ? [command] : [], command, call: false };
}

/** npm's cache folder for the probed environment. */
function npmCache(env: LaunchContext['env']): string | undefined {
  const explicit = env.npm_config_cache ?? env.NPM_CONFIG_CACHE;
  if (explicit) return explicit;
  return env.HOME ? join(env.HOME, '.npm') : undefined;
}

/** The folder npx keys an install on: the first 16 hex digits of sha512 over the sorted specs, one per line. */
export function npxHash(packages: string[]): string {
  return createHash('sha512')
    .update([...packages].sort((a, b) => a.localeCompare(b, 'en')).join('\n'))
    .digest('hex')
    .slice(0, 16);
}

function fromInstalled(dir: string, spec: NpxSpec, cached: boolean): InferredPackage | undefined {
  const m = readPackageJson(dir);
  if (!m || !versionMatches(spec.range, m.version)) return undefined;
  return pkg(dir, m, 'npx', cached);
}

function packageOfNpx(args: string[], ctx: LaunchContext): InferredPackage | undefined {
  const { packages, call } = npxOperands(args);
  if (call || !packages.length) return undefined;
  const spec = parseSpec(packages[0]!, ctx.cwd);
  if (spec.directory) {
    const m = readManifest(spec.directory);
    return m ? pkg(spec.directory, m, 'npx') : undefined;
  }
  // 1. The local tree (npx runs an installed package whose version satisfies the spec).
  if (spec.name) {
    let dir = ctx.cwd;
    for (let i = 0; i < MAX_UPWARD; i++) {
      const hit = fromInstalled(join(dir, 'node_modules', spec.name), spec, false);
      if (hit) return hit;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  // 2. npx's cache: the folder keyed on these specs, else any _npx folder that installed exactly them.
  const cache = npmCache(ctx.env);
  if (cache) {
    const npx = join(resolve(ctx.cwd, cache), '_npx');
    const exact = join(npx, npxHash(packages));
    const named = (root: string): InferredPackage | undefined => {
      if (spec.name) return fromInstalled(join(root, 'node_modules', spec.name), spec, true);
      // A git or tarball spec: the one dependency of the npx folder.
      const deps = Object.keys(obj(JSON.parse(readSmall(join(root, 'package.json')) ?? '{}')?.dependencies) ?? {});
      return deps.length === 1 ? fromInstalled(join(root, 'node_modules', deps[0]!), { ...spec, range: '' }, true) : undefined;
    };
    const direct = tryOr(() => named(exact));
    if (direct) return direct;
    let best: { p: InferredPackage; mtime: number } | undefined;
    let dirs: string[] = [];
    try {
      dirs = readdirSync(npx).slice(0, MAX_SCANNED);
    } catch {
      /* no cache */
    }
    for (const d of dirs) {
      const root = join(npx, d);
      const listed = tryOr(() => obj(obj(JSON.parse(readSmall(join(root, 'package.json')) ?? '{}'))?._npx)?.packages);
      if (!Array.isArray(listed) || [...listed].sort().join('\n') !== [...packages].sort().join('\n')) continue;
      const p = tryOr(() => named(root));
      if (!p) continue;
      const mtime = tryOr(() => statSync(root).mtimeMs) ?? 0;
      if (!best || mtime > best.mtime) best = { p, mtime };
    }
    if (best) return best.p;
  }
  // 3. The global prefix.
  const prefix = ctx.env.npm_config_prefix ?? ctx.env.NPM_CONFIG_PREFIX;
  if (prefix && spec.name) return fromInstalled(join(prefix, 'lib', 'node_modules', spec.name), spec, false);
  return undefined;
}

function tryOr<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

// Python ---------------------------------------------------------------------------------------------------

function pythonOperand(args: string[]): { script?: string; module?: string; evaluated: boolean } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-') return { evaluated: true };
    if (a === '-m') return { module: args[i + 1], evaluated: false };
    if (PYTHON_VALUE_FLAGS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return { script: a, evaluated: false };
  }
  return { evaluated: false };
}

/** Where `python -m mod` finds a module: the working directory, PYTHONPATH, then the interpreter's venv. */
function packageOfPythonModule(module: string, interpreter: string | undefined, ctx: LaunchContext): InferredPackage | undefined {
  const top = module.split('.')[0]!;
  const dirs = [ctx.cwd, ...(ctx.env.PYTHONPATH ?? '').split(':').filter(Boolean).map((d) => resolve(ctx.cwd, d))];
  for (const d of dirs) {
    for (const c of [join(d, top, '__init__.py'), join(d, top, '__main__.py'), join(d, `${top}.py`)]) {
      if (!isFile(c)) continue;
      const found = nearestPackage(c, ['python']);
      if (found) return pkg(found.folder, found.manifest, 'python-module');
    }
  }
  const venv = interpreter ? venvOf(interpreter) : undefined;
  for (const sp of venv ? sitePackagesOf(venv) : []) {
    // An editable install points at the project through a .pth file.
    for (const pth of tryOr(() => readdirSync(sp).filter((f) => f.endsWith('.pth'))) ?? []) {
      for (const line of (readSmall(join(sp, pth), 64 * 1024) ?? '').split(/\r?\n/)) {
        const d = line.trim();
        if (!isAbsolute(d) || !isDir(join(d, top))) continue;
        const found = nearestPackage(join(d, top, '__init__.py'), ['python']);
        if (found) return pkg(found.folder, found.manifest, 'python-module');
      }
    }
    const d = installedDist(sp, { module: top }, 'python-module', false);
    if (d) return strip(d);
  }
  return undefined;
}

function packageOfPython(interpreter: string, args: string[], ctx: LaunchContext): InferredPackage | undefined {
  const { script, module, evaluated } = pythonOperand(args);
  if (evaluated) return undefined;
  if (script) {
    const f = resolve(ctx.cwd, script);
    if (!isFile(f)) return undefined;
    const found = nearestPackage(real(f) ?? f, ['python']);
    return found ? pkg(found.folder, found.manifest, 'script') : undefined;
  }
  if (module) {
    const exe = interpreter.includes('/') ? resolve(ctx.cwd, interpreter) : onPath(interpreter, ctx);
    return packageOfPythonModule(module, exe, ctx);
  }
  return undefined;
}

/** uv's options that take a value, before or after the subcommand. */
const UV_VALUE_FLAGS = new Set([
  '--directory', '--project', '--cache-dir', '--config-file', '--python', '-p', '--with', '--with-editable', '--with-requirements',
  '--from', '--package', '--extra', '--group', '--env-file', '--index', '--default-index', '--index-url', '--extra-index-url',
  '--find-links', '-f', '--color', '--python-preference', '--python-platform', '--index-strategy', '--keyring-provider', '--exclude-newer',
  '--resolution', '--prerelease', '--link-mode', '--refresh-package', '--reinstall-package', '--upgrade-package', '-P', '--no-binary-package', '--no-build-package',
]);

function uvOptions(args: string[]): { opts: Map<string, string>; flags: Set<string>; rest: string[] } {
  const opts = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { opts, flags, rest: args.slice(i + 1) };
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      opts.set(a.slice(0, eq), a.slice(eq + 1));
      continue;
    }
    if (UV_VALUE_FLAGS.has(a)) {
      if (args[i + 1] !== undefined) opts.set(a, args[++i]!);
      continue;
    }
    if (a.startsWith('-')) {
      flags.add(a);
      continue;
    }
    return { opts, flags, rest: args.slice(i) };
  }
  return { opts, flags, rest: [] };
}

function uvCacheDir(opts: Map<string, string>, ctx: LaunchContext): string | undefined {
  const c = opts.get('--cache-dir') ?? ctx.env.UV_CACHE_DIR;
  if (c) return resolve(ctx.cwd, c);
  const xdg = ctx.env.XDG_CACHE_HOME ?? (ctx.env.HOME ? join(ctx.env.HOME, '.cache') : undefined);
  return xdg ? join(xdg, 'uv') : undefined;
}

function uvToolDir(ctx: LaunchContext): string | undefined {
  if (ctx.env.UV_TOOL_DIR) return resolve(ctx.cwd, ctx.env.UV_TOOL_DIR);
  const data = ctx.env.XDG_DATA_HOME ?? (ctx.env.HOME ? join(ctx.env.HOME, '.local', 'share') : undefined);
  return data ? join(data, 'uv', 'tools') : undefined;
}

/** `uvx [opts] pkg[@ver] …` / `uv tool run`: the distribution in an installed tool, else in uv's cache. */
function packageOfUvx(args: string[], ctx: LaunchContext, global: Map<string, string> = new Map()): InferredPackage | undefined {
  const { opts, rest } = uvOptions(args);
  for (const [k, v] of global) if (!opts.has(k)) opts.set(k, v);
  const from = opts.get('--from');
  const raw = from ?? rest[0];
  if (!raw) return undefined;
  if (/^(?:\.{1,2}(?:\/|$)|\/)/.test(raw)) {
    const dir = resolve(ctx.cwd, raw);
    const m = readPyproject(dir);
    return m ? pkg(dir, m, 'uvx') : undefined;
  }
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?(?:(?:@|==)([^\s;]+))?$/.exec(raw);
  if (!m) return undefined;
  const want: DistMatch = { dist: m[1]!, version: m[2] && m[2] !== 'latest' ? m[2] : undefined };
  const roots: string[] = [];
  const tools = uvToolDir(ctx);
  if (tools) roots.push(...sitePackagesOf(join(tools, normalizeDist(want.dist!))), ...sitePackagesOf(join(tools, want.dist!)));
  const cache = uvCacheDir(opts, ctx);
  if (cache) {
    for (const bucket of ['environments-v2', 'archive-v0']) {
      const b = join(cache, bucket);
      for (const d of (tryOr(() => readdirSync(b)) ?? []).slice(0, MAX_SCANNED)) {
        const root = join(b, d);
        roots.push(...sitePackagesOf(root));
        if (bucket === 'archive-v0') roots.push(root); // an unpacked wheel
      }
    }
  }
  let best: (InferredPackage & { mtime: number }) | undefined;
  for (const r of roots) {
    const d = installedDist(r, want, 'uvx', true);
    if (d && (!best || d.mtime > best.mtime)) best = d;
  }
  return best ? strip(best) : undefined;
}

/** `uv [global opts] run …` / `uv tool run …`. */
function packageOfUv(args: string[], ctx: LaunchContext, depth: number): InferredPackage | undefined {
  const g = uvOptions(args);
  const [sub, ...tail] = g.rest;
  if (sub === 'tool' && tail[0] === 'run') return packageOfUvx(tail.slice(1), ctx, g.opts);
  if (sub !== 'run') return undefined;
  const r = uvOptions(tail);
  const opts = new Map([...g.opts, ...r.opts]);
  const cwd = opts.has('--directory') ? resolve(ctx.cwd, opts.get('--directory')!) : ctx.cwd;
  const inner: LaunchContext = { ...ctx, cwd };
  // The command it runs, when it names a script or a module.
  const [cmd, ...cmdArgs] = r.rest;
  const module = r.flags.has('-m') || r.flags.has('--module') ? cmd : undefined;
  if (module) {
    const p = packageOfPythonModule(module, undefined, inner);
    if (p) return p;
  } else if (cmd && (/\.py$/.test(cmd) || PYTHON.test(basename(cmd)))) {
    const p = PYTHON.test(basename(cmd)) ? packageOfPython(cmd, cmdArgs, inner) : packageOfPython('python', [cmd, ...cmdArgs], inner);
    if (p) return p;
  } else if (cmd && depth < 3 && NODE_RUNNERS.test(basename(cmd))) {
    return inferPackage(r.rest, inner, depth + 1);
  }
  if (r.flags.has('--no-project') || r.flags.has('--isolated')) return undefined;
  const project = opts.has('--project') ? resolve(ctx.cwd, opts.get('--project')!) : cwd;
  const found = nearestPackage(join(project, 'pyproject.toml'), ['python']);
  return found ? pkg(found.folder, found.manifest, 'uv-run') : undefined;
}

// ---------------------------------------------------------------------------------------------------------

const PACKAGE_SCRIPT: Record<string, (args: string[]) => boolean> = {
  npm: (a) => ['start', 'run', 'run-script', 'rum', 'urn'].includes(a[0] ?? ''),
  pnpm: (a) => ['start', 'run'].includes(a[0] ?? ''),
  yarn: (a) => a.length > 0 && !['dlx', 'exec', 'node'].includes(a[0]!),
};

/**
 * The package a command runs, or undefined when it cannot be told (an inline script, a shell line, a
 * container, an unknown launcher). Looks only at files; never runs anything.
 */
export function inferPackage(command: readonly string[], ctx: LaunchContext, depth = 0): InferredPackage | undefined {
  const [cmd, ...args] = command;
  if (!cmd || depth > 3) return undefined;
  const name = basename(cmd);
  try {
    if (NODE_RUNNERS.test(name)) return packageOfNodeRunner(name, args, ctx);
    if (PYTHON.test(name)) return packageOfPython(cmd, args, ctx);
    if (name === 'npx') return packageOfNpx(args, ctx);
    if (name === 'npm' && (args[0] === 'exec' || args[0] === 'x')) return packageOfNpx(args.slice(1), ctx);
    if (PACKAGE_SCRIPT[name]?.(args)) return packageOfCwd(ctx);
    if (name === 'uvx') return packageOfUvx(args, ctx);
    if (name === 'uv') return packageOfUv(args, ctx, depth);
    if (['sh', 'bash', 'zsh', 'dash', 'env', 'docker', 'podman', 'pnpx', 'bunx', 'deno', 'pipx'].includes(name)) return undefined;
    if (cmd.includes('/')) return packageOfFile(resolve(ctx.cwd, cmd));
    const found = onPath(cmd, ctx);
    return found ? packageOfFile(found, true) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The package managers' own folders (npx's cache, uv's cache and tool folder) for an environment: a package
 * found there was downloaded because the command named it, not picked from the user's files.
 */
export function packageCacheRoots(env: LaunchContext['env']): string[] {
  const ctx: LaunchContext = { cwd: '/', env };
  const npm = npmCache(env);
  const roots = [npm ? join(npm, '_npx') : undefined, uvCacheDir(new Map(), ctx), uvToolDir(ctx)];
  return roots.filter((r): r is string => !!r && isAbsolute(r)).map((r) => real(r) ?? r);
}

/** Whether `dir` lies inside one of `roots` (real paths). */
export function isInside(dir: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInsideRoot(root, dir));
}
