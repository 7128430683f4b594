import { posix } from 'node:path';
import { Node, Project, ts, type CallExpression, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { declarationOf, importOf, initializerOf } from './scope.js';
import { MAX_FILE_PARSE_BYTES } from './source-limits.js';
import { unwrap, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';
import { constString, propertyValue } from './server-model/values.js';

/**
 * Data documents a package ships and builds its tools from when it starts: an endpoint list or a tool table in a
 * JSON file the source loads by a path made of constants —
 *
 *   import endpoints from './endpoints.json' [with { type: 'json' }]      (ESM, TypeScript output)
 *   const endpoints_json_1 = __importDefault(require("./endpoints.json")); … endpoints_json_1.default   (CommonJS)
 *   JSON.parse(readFileSync(join(__dirname, 'endpoints.json'), 'utf8'))   (also path.join/resolve, new URL(…, import.meta.url))
 *
 * and what is read from it: `doc.endpoints`, `doc['tools']`, `list.filter(…)` / `.slice(…)` (the rows kept are
 * among the list's rows). Each document is read once per audit through safe-read (at most the parse limit of a
 * source file) and parsed as a JavaScript expression, so its objects are object literals the server model reads
 * like written ones (names, descriptions, annotations by constString / propertyValue), located in the document
 * (its path relative to the root, and the line of each row). Nothing is judged here.
 *
 * A list that comes from such a document but cannot be read (a path not made of constants, a file missing, too
 * large, not JSON) is a DocumentRead without `value`, with `why`: the server model then names the document
 * (when known) where the tools it would build are not read.
 */

export interface DocumentRead {
  /** The document's path relative to the audited root, when the path is made of constants. */
  file?: string;
  /** The value read at the expression: the array or object literal of the document (or a part of it). */
  value?: Node;
  /** Why the value could not be read: 'path-not-constant', 'missing', 'too-large', 'not-json', 'key-not-found'… */
  why?: string;
}

const readers = new WeakMap<ParsedSources, RepoFacts>();
const documents = new WeakMap<RepoFacts, Map<string, { value?: Node; why?: string }>>();

/** Lets the readings over these parsed sources open the package's data documents (called once by the server model). */
export function bindDocuments(sources: ParsedSources, repo: RepoFacts): void {
  readers.set(sources, repo);
}

const DOCUMENT_EXT = /\.json$/i;
const FILE_READS = /(?:^|\.)readFile(?:Sync)?$/;
const DIR_OF_FILE = /import\.meta\.(?:url|dirname)|__dirname/;
const INTEROP = /^(?:__importDefault|__importStar|_interopRequireDefault|_interopRequireWildcard|tslib\.__importDefault|tslib_1\.__importDefault)$/;
const PASS_METHODS = new Set(['filter', 'slice', 'sort', 'toSorted', 'reverse', 'concat']);
/** The methods of PASS_METHODS whose answer may not hold the document's rows one for one: they drop rows or add others. */
export const NOT_ROW_EXACT = new Set(['filter', 'slice', 'concat']);

/** A path made of constants relative to the file it is written in: `'./x.json'`, `join(__dirname, '..', 'x.json')`, `new URL('./x.json', import.meta.url)` (also the documents facts/tool-templates names). */
export function constantPath(expr: Node | undefined, depth = 0): string | undefined {
  if (!expr || depth > 4) return undefined;
  const n = unwrap(expr);
  const s = constString(n);
  if (s) return s.value;
  if (Node.isIdentifier(n)) {
    if (n.getText() === '__dirname') return '.';
    const d = declarationOf(n);
    const init = d ? initializerOf(d) : undefined;
    if (!init) return undefined;
    if (DIR_OF_FILE.test(init.getText()) && /dirname|fileURLToPath|URL/.test(init.getText()) && !DOCUMENT_EXT.test(init.getText())) return '.';
    return constantPath(init, depth + 1);
  }
  if (Node.isPropertyAccessExpression(n) && /^import\.meta\.dirname$/.test(n.getText())) return '.';
  if (Node.isNewExpression(n) && n.getExpression().getText() === 'URL') {
    const [a, b] = n.getArguments();
    const rel = constString(a)?.value;
    return rel !== undefined && b && DIR_OF_FILE.test(b.getText()) ? rel : undefined;
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression()).getText().replace(/\s+/g, '');
    if (/(?:^|\.)fileURLToPath$/.test(callee)) return constantPath(n.getArguments()[0], depth + 1);
    if (/(?:^|\.)(?:join|resolve)$/.test(callee)) {
      const parts: string[] = [];
      for (const a of n.getArguments()) {
        const p = constantPath(a, depth + 1);
        if (p === undefined) return undefined;
        parts.push(p);
      }
      return parts.length ? posix.join(...parts) : undefined;
    }
  }
  return undefined;
}

/** The document a constant path names, relative to the root: the writing file's folder first, then the root. */
function located(repo: RepoFacts, sources: ParsedSources, at: Node, path: string): string {
  const dir = posix.dirname(sources.rel(at.getSourceFile()));
  const fromFile = posix.normalize(posix.join(dir, path));
  const fromRoot = posix.normalize(path.replace(/^\.\//, ''));
  return [fromFile, fromRoot].find((p) => !p.startsWith('..') && repo.has(p)) ?? fromFile;
}

/** The document's top value, parsed once per audit. */
function open(repo: RepoFacts, file: string): { value?: Node; why?: string } {
  noteSourceRead('js');
  let byFile = documents.get(repo);
  if (!byFile) documents.set(repo, (byFile = new Map()));
  const hit = byFile.get(file);
  if (hit) return hit;
  let out: { value?: Node; why?: string };
  const t = repo.source(file, MAX_FILE_PARSE_BYTES);
  if (!t.ok) out = { why: t.cause };
  else {
    try {
      JSON.parse(t.text); // a document that is not JSON is not read as code
      // Parsed as the expression of a statement, on the document's own lines (rows keep their line numbers).
      const sf: SourceFile = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true }).createSourceFile(
        '/' + file,
        '(' + t.text + '\n)',
        { scriptKind: ts.ScriptKind.JS },
      );
      const st = sf.getStatements()[0];
      const value = st && Node.isExpressionStatement(st) ? unwrap(st.getExpression()) : undefined;
      out = value ? { value } : { why: 'not-json' };
    } catch {
      out = { why: 'not-json' };
    }
  }
  byFile.set(file, out);
  return out;
}

/** The document's path relative to the root for a node of a document read here (undefined for a source file's node). */
export function documentOf(n: Node): string | undefined {
  const p = n.getSourceFile().getFilePath();
  return DOCUMENT_EXT.test(p) ? p.slice(1) : undefined;
}

/**
 * What an expression reads from a data document the package ships (see the file header); undefined when the
 * expression is not read from a JSON document at all. `via` collects the array methods the value passed through
 * (`doc.tools.filter(…)`): see NOT_ROW_EXACT.
 */
export function documentValue(expr: Node | undefined, sources: ParsedSources, depth = 0, via?: Set<string>): DocumentRead | undefined {
  const repo = readers.get(sources);
  if (!expr || !repo || depth > 10) return undefined;
  let n = unwrap(expr);
  while (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  const doc = (at: Node, path: string | undefined): DocumentRead => {
    if (path === undefined) return { why: 'path-not-constant' };
    const file = located(repo, sources, at, path);
    return { file, ...open(repo, file) };
  };
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return undefined;
    const imp = importOf(d);
    if (imp) return DOCUMENT_EXT.test(imp.spec) && imp.spec.startsWith('.') && (imp.imported === 'default' || imp.imported === '*') ? doc(n, imp.spec) : undefined;
    const init = initializerOf(d);
    return init ? documentValue(init, sources, depth + 1, via) : undefined;
  }
  if (Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) {
    const key = Node.isPropertyAccessExpression(n) ? n.getName() : constString(n.getArgumentExpression())?.value;
    const base = documentValue(n.getExpression(), sources, depth + 1, via);
    if (!base || !base.value) return base;
    if (key === undefined) return { file: base.file, why: 'key-not-constant' };
    const v = Node.isObjectLiteralExpression(base.value) ? propertyValue(base.value, key) : undefined;
    if (v) return { file: base.file, value: unwrap(v) };
    // `.default` of an interop wrapper over require('./x.json'): the document itself.
    if (key === 'default') return base;
    return { file: base.file, why: 'key-not-found' };
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    const text = callee.getText().replace(/\s+/g, '');
    const args = n.getArguments();
    if (text === 'require' || text === 'createRequire') {
      const spec = constString(args[0])?.value;
      return spec && DOCUMENT_EXT.test(spec) ? doc(n, spec) : undefined;
    }
    if (INTEROP.test(text)) return documentValue(args[0], sources, depth + 1, via);
    if (text === 'JSON.parse') {
      const inner = args[0] && unwrap(args[0]);
      // JSON.parse(readFileSync(p, 'utf8')), JSON.parse(String(readFileSync(p))), JSON.parse(readFileSync(p).toString())
      return documentValue(inner, sources, depth + 1, via);
    }
    if (text === 'String' || text === 'Buffer.from') return documentValue(args[0], sources, depth + 1, via);
    if (FILE_READS.test(text)) {
      const path = constantPath(args[0]);
      if (path !== undefined && !DOCUMENT_EXT.test(path)) return undefined;
      return doc(n, path);
    }
    if (Node.isPropertyAccessExpression(callee)) {
      const m = callee.getName();
      if (m === 'toString' && args.length === 0) return documentValue(callee.getExpression(), sources, depth + 1, via);
      if (PASS_METHODS.has(m)) {
        via?.add(m);
        return documentValue(callee.getExpression(), sources, depth + 1, via);
      }
    }
  }
  return undefined;
}

/**
 * The rows of a list read from a data document: the elements of its array, or the values of an object keyed by
 * name (`Object.values(doc.tools)`); `why` when the document (or the list in it) cannot be read. undefined when
 * the list is not read from a document.
 */
export function documentRows(list: Node, sources: ParsedSources): { file?: string; rows?: Node[]; why?: string } | undefined {
  const u = unwrap(list);
  const values = Node.isCallExpression(u) && unwrap(u.getExpression()).getText() === 'Object.values';
  const read = documentValue(values ? (u as CallExpression).getArguments()[0] : list, sources);
  if (!read) return undefined;
  if (!read.value) return { file: read.file, why: read.why ?? 'not-read' };
  const v = read.value;
  if (Node.isArrayLiteralExpression(v)) return { file: read.file, rows: v.getElements() };
  if (values && Node.isObjectLiteralExpression(v)) {
    const rows: Node[] = [];
    for (const p of v.getProperties()) if (Node.isPropertyAssignment(p)) rows.push(p.getInitializerOrThrow());
    return { file: read.file, rows };
  }
  return { file: read.file, why: 'not-a-list' };
}
