import { createRequire } from 'node:module';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';
import type { RepoFacts } from './repo.js';
import { noteSourceRead, sourceReaders, type FileNotRead } from './not-read.js';
import { pythonBudget } from './budget.js';
import { isOwnSource } from './source-paths.js';

/**
 * The audited repository's Python sources as tree-sitter syntax trees, built once per RepoFacts and
 * shared by the detectors that read Python.
 *
 * web-tree-sitter must be initialised asynchronously (WASM), while detectors judge synchronously. So the
 * grammar is loaded once per process by `await loadPythonParser()` — at the start of an audit, before any
 * detector runs — and `pythonSources(repo)` then parses synchronously. When the parser was not loaded,
 * `pythonSources` returns undefined and a Python detector answers could-not-judge
 * ('python-parser-unavailable'); `hasPythonSource` needs no parser, so a repository without Python is
 * still answered not-applicable.
 *
 * Files come from RepoFacts (same bytes, same ignore rules). Left out: test and fixture folders, test
 * modules (test_*.py, *_test.py, conftest.py), virtualenvs and caches (.venv, venv, site-packages,
 * __pycache__, .tox, .nox). Nothing is executed or imported: the source is only parsed.
 */

const SKIPPED_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'testing',
  'fixtures',
  '__fixtures__',
  '.venv',
  'venv',
  'site-packages',
  'dist-packages',
  '__pycache__',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
]);
/**
 * Limits of the Python reading: files beyond `maxFiles` are not parsed (each is reported as not read); a file
 * over `parseBytes` is read by the pattern screen only; a tree nested deeper than `maxDepth` is not judged (the
 * Python model's walks are recursive).
 */
export const PYTHON_LIMITS = { maxFiles: 2000, parseBytes: 4 * 1024 * 1024, scanBytes: 256 * 1024 * 1024, maxDepth: 1000 };
const MAX_FILES = PYTHON_LIMITS.maxFiles;

/** The pattern screen of a Python file too large to parse (see SCREEN_PATTERNS in ts-source). */
const PY_SCREEN = [
  /\b(?:subprocess|os|system|popen|exec|eval|compile|__import__|shutil|pty|ctypes)\b/,
  /\b(?:requests|httpx|urllib|aiohttp|socket|open|pathlib|Path|environ|getenv|print|stdout|sys)\b/,
  /\b(?:mcp|FastMCP|Server|tool|prompt|resource|list_tools|call_tool|import|from)\b/,
];

/** True for a path the Python side never reads (tests, fixtures, virtualenvs, caches). */
export function isSkippedPythonPath(rel: string): boolean {
  const parts = rel.split('/');
  if (parts.slice(0, -1).some((p) => SKIPPED_DIRS.has(p) || /^\.?venv[\w.-]*$/.test(p))) return true;
  const base = parts[parts.length - 1]!;
  return /^test_.*\.py$/.test(base) || /_test\.py$/.test(base) || base === 'conftest.py';
}

/** The repository's own Python files (relative paths), without parsing anything. */
export function pythonFilesOf(repo: RepoFacts): string[] {
  return allPythonFiles(repo).slice(0, MAX_FILES);
}

const allPythonFiles = (repo: RepoFacts): string[] => repo.files.filter((f) => f.endsWith('.py') && !isSkippedPythonPath(f));

export const hasPythonSource = (repo: RepoFacts): boolean => pythonFilesOf(repo).length > 0;

/* ---------------- the parser, loaded once per process ---------------- */

let parser: Parser | undefined;
let loading: Promise<void> | undefined;
let loadError: string | undefined;

/**
 * Load the tree-sitter runtime and the Python grammar. Idempotent and safe to call concurrently; never
 * rejects: a failure is remembered (see `pythonParserError`) and the Python detectors then say
 * could-not-judge. A later call retries after a failure.
 */
export async function loadPythonParser(): Promise<void> {
  if (parser) return;
  loading ??= (async () => {
    try {
      await Parser.init();
      const wasm = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
      const language = await Language.load(wasm);
      const p = new Parser();
      p.setLanguage(language);
      parser = p;
      loadError = undefined;
    } catch (e) {
      loadError = (e as Error).message;
    } finally {
      loading = undefined;
    }
  })();
  await loading;
}

export const isPythonParserLoaded = (): boolean => parser !== undefined;
export const pythonParserError = (): string | undefined => loadError;

/* ---------------- parsed sources ---------------- */

export interface PythonFile {
  /** Path relative to the audited root, forward slashes. */
  readonly rel: string;
  readonly text: string;
  readonly tree: Tree;
  readonly root: Node;
  /** Import bindings of the module: local name -> dotted name (`sp` -> `subprocess`, `run` -> `subprocess.run`). */
  readonly imports: ReadonlyMap<string, string>;
}

export interface PythonSources {
  /** Parsed files, keyed by their relative path, in path order. */
  readonly files: ReadonlyMap<string, PythonFile>;
  /** Python files that were not parsed and may hold code (file-not-read: too large, unreadable, too deep, past the file limit). */
  readonly unread: readonly FileNotRead[];
  /** Files too large to parse that the pattern screen read whole and found nothing the rules look for in. */
  readonly screened: readonly FileNotRead[];
}

const cache = new WeakMap<RepoFacts, PythonSources>();
/** Trees live in WASM memory, which the JS garbage collector does not free: delete them with their owner. */
const reaper = new FinalizationRegistry<Tree[]>((trees) => {
  for (const t of trees) {
    try {
      t.delete();
    } catch {
      /* already freed */
    }
  }
});

/** The parsed Python sources if some part asked for them (the report's inputs; nothing is parsed here). */
export const peekPythonSources = (repo: RepoFacts): PythonSources | undefined => cache.get(repo);
sourceReaders.python = { unread: (repo) => pythonSources(repo)?.unread ?? [], peek: peekPythonSources };

/** Parse every Python file of the repository once. Undefined when the parser was not loaded. */
export function pythonSources(repo: RepoFacts): PythonSources | undefined {
  noteSourceRead('python');
  const hit = cache.get(repo);
  if (hit) return hit;
  if (!parser) return undefined;
  const files = new Map<string, PythonFile>();
  const unread: FileNotRead[] = [];
  const screened: FileNotRead[] = [];
  const trees: Tree[] = [];
  for (const rel of allPythonFiles(repo).slice(MAX_FILES)) unread.push({ file: rel, cause: 'too-many-files', limit: MAX_FILES });
  // The parse budget bounds the audit's memory (facts/budget): 2.25 MB of Python by default, half when the tree
  // also has JavaScript or TypeScript source.
  const budget = pythonBudget(repo.files.some(isOwnSource));
  const perFile = Math.min(PYTHON_LIMITS.parseBytes, budget);
  let parsedBytes = 0;
  for (const rel of pythonFilesOf(repo)) {
    const t = repo.source(rel, Math.min(perFile, budget - parsedBytes));
    if (!t.ok) {
      if (t.cause === 'too-large') {
        const sc = repo.scan(rel, PY_SCREEN, PYTHON_LIMITS.scanBytes);
        const overBudget = t.size !== undefined && t.size <= perFile;
        const skipped: FileNotRead = overBudget ? { file: rel, cause: 'budget', size: t.size, limit: budget } : { file: rel, cause: 'too-large', size: t.size, limit: perFile };
        if (sc.ok && sc.matched.length === 0) screened.push(skipped);
        else unread.push(skipped);
      } else unread.push({ file: rel, cause: t.cause });
      continue;
    }
    let tree: Tree | null;
    try {
      tree = parser.parse(t.text);
    } catch {
      tree = null;
    }
    if (!tree) {
      unread.push({ file: rel, cause: 'parse-failed' });
      continue;
    }
    if (depthOver(tree, PYTHON_LIMITS.maxDepth)) {
      tree.delete();
      unread.push({ file: rel, cause: 'too-deep', limit: PYTHON_LIMITS.maxDepth });
      continue;
    }
    parsedBytes += t.size;
    trees.push(tree);
    files.set(rel, { rel, text: t.text, tree, root: tree.rootNode, imports: importsOf(tree.rootNode) });
  }
  unread.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const sources: PythonSources = { files, unread, screened };
  reaper.register(sources, trees);
  cache.set(repo, sources);
  return sources;
}

/** Whether a tree is nested deeper than `max` levels (an iterative walk with the tree's cursor). */
function depthOver(tree: Tree, max: number): boolean {
  const c = tree.walk();
  try {
    let depth = 0;
    for (;;) {
      if (c.gotoFirstChild()) {
        if (++depth > max) return true;
        continue;
      }
      while (!c.gotoNextSibling()) {
        if (!c.gotoParent()) return false;
        depth--;
      }
    }
  } finally {
    c.delete();
  }
}

/* ---------------- small node helpers shared by the Python model ---------------- */

/** 1-based line of a node's start. */
export const lineOf = (n: Node): number => n.startPosition.row + 1;

/** Named children, without nulls. */
export const kids = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);

/** Every named descendant of a node (depth first, source order), the node excluded. */
export function descendants(n: Node, stop?: (d: Node) => boolean): Node[] {
  const out: Node[] = [];
  const walk = (x: Node) => {
    for (const c of kids(x)) {
      out.push(c);
      if (!stop?.(c)) walk(c);
    }
  };
  walk(n);
  return out;
}

const allMemo = new WeakMap<Node['tree'], Node[]>();

/**
 * Every named node of a file's tree in source (pre-)order, walked once with a cursor and memoised:
 * the fast way to visit a whole file. The root is left out.
 */
export function allNodes(file: PythonFile): Node[] {
  const hit = allMemo.get(file.tree);
  if (hit) return hit;
  const out: Node[] = [];
  const c = file.tree.walk();
  let depth = 0;
  for (;;) {
    if (c.gotoFirstChild()) depth++;
    else {
      while (!c.gotoNextSibling()) {
        if (depth === 0 || !c.gotoParent()) {
          c.delete();
          allMemo.set(file.tree, out);
          return out;
        }
        depth--;
      }
    }
    if (c.nodeIsNamed) out.push(c.currentNode);
  }
}

/** The named descendants of a node of a file (a contiguous run of `allNodes`). */
export function nodesWithin(file: PythonFile, n: Node): Node[] {
  const all = allNodes(file);
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]!.startIndex < n.startIndex) lo = mid + 1;
    else hi = mid;
  }
  while (lo < all.length && all[lo]!.id !== n.id && all[lo]!.startIndex === n.startIndex) lo++;
  const start = all[lo]?.id === n.id ? lo + 1 : lo;
  let end = start;
  while (end < all.length && all[end]!.startIndex < n.endIndex && all[end]!.endIndex <= n.endIndex) end++;
  return all.slice(start, end);
}

/** True when `inner` lies within `outer` (inclusive). */
export const within = (inner: Node, outer: Node): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

/** Module import bindings: `import a.b as c`, `import a.b`, `from a.b import c as d`. Relative imports keep their dots. */
function importsOf(root: Node): Map<string, string> {
  const m = new Map<string, string>();
  for (const st of descendants(root, (d) => d.type === 'import_statement' || d.type === 'import_from_statement')) {
    if (st.type === 'import_statement') {
      for (const c of kids(st)) {
        if (c.type === 'dotted_name') m.set(c.text.split('.')[0]!, c.text.split('.')[0]!);
        else if (c.type === 'aliased_import') {
          const name = c.childForFieldName('name');
          const alias = c.childForFieldName('alias');
          if (name && alias) m.set(alias.text, name.text);
        }
      }
    } else if (st.type === 'import_from_statement') {
      const mod = st.childForFieldName('module_name');
      if (!mod) continue;
      for (const c of st.childrenForFieldName('name')) {
        if (!c) continue;
        if (c.type === 'dotted_name') m.set(c.text, `${mod.text}.${c.text}`);
        else if (c.type === 'aliased_import') {
          const name = c.childForFieldName('name');
          const alias = c.childForFieldName('alias');
          if (name && alias) m.set(alias.text, `${mod.text}.${name.text}`);
        }
      }
    }
  }
  return m;
}

/**
 * The value of a string literal (or an implicit concatenation of literals), decoded like Python does, with
 * the 1-based source line of every decoded character. f-string interpolations become `{}`. Undefined for
 * anything else (and for bytes).
 */
export function stringLiteral(n: Node | null | undefined): { value: string; lines: number[]; interpolated: boolean } | undefined {
  if (!n) return undefined;
  if (n.type === 'parenthesized_expression' && n.namedChildCount === 1) return stringLiteral(n.namedChild(0));
  if (n.type === 'concatenated_string') {
    let value = '';
    const lines: number[] = [];
    let interpolated = false;
    for (const c of kids(n)) {
      const s = stringLiteral(c);
      if (!s) return undefined;
      value += s.value;
      lines.push(...s.lines);
      interpolated ||= s.interpolated;
    }
    return { value, lines, interpolated };
  }
  if (n.type !== 'string') return undefined;
  const start = n.namedChildren.find((c) => c?.type === 'string_start');
  const prefix = (start?.text ?? '').replace(/['"]+$/, '').toLowerCase();
  if (prefix.includes('b')) return undefined;
  const raw = prefix.includes('r');
  let value = '';
  const lines: number[] = [];
  let interpolated = false;
  for (const c of kids(n)) {
    if (c.type === 'string_content') {
      const d = decodePython(c.text, raw, c.startPosition.row + 1);
      value += d.value;
      lines.push(...d.lines);
    } else if (c.type === 'interpolation') {
      value += '{}';
      lines.push(lineOf(c), lineOf(c));
      interpolated = true;
    }
  }
  return { value, lines, interpolated };
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** Decode the escapes of a Python string body (not raw), tracking lines. */
function decodePython(body: string, raw: boolean, firstLine: number): { value: string; lines: number[] } {
  let value = '';
  const lines: number[] = [];
  let line = firstLine;
  const push = (s: string) => {
    value += s;
    for (let k = 0; k < s.length; k++) lines.push(line);
  };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\n') {
      push('\n');
      line++;
      continue;
    }
    if (raw || ch !== '\\' || i + 1 >= body.length) {
      push(ch);
      continue;
    }
    const nx = body[i + 1]!;
    if (nx === '\n') {
      // Line continuation inside a string: nothing is kept.
      i++;
      line++;
      continue;
    }
    const hex = (len: number) => {
      const h = body.slice(i + 2, i + 2 + len);
      if (h.length === len && /^[0-9a-fA-F]+$/.test(h)) {
        push(String.fromCodePoint(parseInt(h, 16)));
        i += 1 + len;
        return true;
      }
      return false;
    };
    if (nx === 'x' && hex(2)) continue;
    if (nx === 'u' && hex(4)) continue;
    if (nx === 'U' && hex(8)) continue;
    if (nx === 'N' && body[i + 2] === '{') {
      const end = body.indexOf('}', i + 3);
      if (end > 0) {
        push(namedChar(body.slice(i + 3, end)));
        i = end;
        continue;
      }
    }
    if (/[0-7]/.test(nx)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1))!;
      push(String.fromCharCode(parseInt(m[0], 8)));
      i += m[0].length;
      continue;
    }
    if (nx in SIMPLE_ESCAPES) {
      push(SIMPLE_ESCAPES[nx]!);
      i++;
      continue;
    }
    push(ch);
  }
  return { value, lines };
}

/** The few \N{...} names that matter here (invisible characters); anything else stays visible as the name. */
function namedChar(name: string): string {
  const known: Record<string, string> = {
    'ZERO WIDTH SPACE': '\u200B',
    'ZERO WIDTH NON-JOINER': '\u200C',
    'ZERO WIDTH JOINER': '\u200D',
    'LEFT-TO-RIGHT MARK': '\u200E',
    'RIGHT-TO-LEFT MARK': '\u200F',
    'LEFT-TO-RIGHT EMBEDDING': '\u202A',
    'RIGHT-TO-LEFT EMBEDDING': '\u202B',
    'POP DIRECTIONAL FORMATTING': '\u202C',
    'LEFT-TO-RIGHT OVERRIDE': '\u202D',
    'RIGHT-TO-LEFT OVERRIDE': '\u202E',
  };
  return known[name.toUpperCase()] ?? `\\N{${name}}`;
}
