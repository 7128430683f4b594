import type { Node } from 'web-tree-sitter';
import { type PythonFile } from '../python-source.js';
import { type HandlerKind } from '../python-model.js';

/**
 * Python taint flow (facts/python-flow.ts): the shapes of a flow and its problems, the sink tables (shell,
 * process, exec, eval, files, HTTP) and the sanitisers.
 */

export type SinkKind = 'command' | 'file' | 'http';
export type FlowProblem =
  | 'command-shell'
  | 'command-program'
  | 'code-eval'
  | 'path-unconfined'
  | 'path-raw-check'
  | 'path-prefix-without-separator'
  | 'path-check-before-realpath'
  | 'url-unchecked'
  | 'url-raw-check';

export interface PyFlow {
  kind: SinkKind;
  handlerKind: HandlerKind;
  /** The tool (prompt, resource) the sink belongs to, or the handler function's name. */
  handler: string;
  file: string;
  line: number;
  /** The sink as written, qualified (`subprocess.run`, `open`, `Path.read_text`, `httpx.AsyncClient().get`). */
  sink: string;
  /** The argument that reaches the sink. */
  parameter: string;
  /** Undefined when a sound guard was found. */
  problem?: FlowProblem;
  /** The line of the unsound check the problem names (a raw-string or prefix check), when there is one. */
  guardLine?: number;
  /** The source line of the sink, trimmed. */
  evidence: string;
}

export type Origins = ReadonlySet<string>;
export const EMPTY: Origins = new Set();
export const union = (...xs: Origins[]): Origins => {
  const nonEmpty = xs.filter((x) => x.size > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const s = new Set<string>();
  for (const x of nonEmpty) for (const v of x) s.add(v);
  return s;
};

export interface Span {
  startIndex: number;
  endIndex: number;
}
export const inside = (inner: Span, outer: Span): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

export interface Assign {
  targets: string[];
  value: Node;
  at: Node;
}

export interface GuardInfo {
  sound: Set<string>;
  weak: Map<string, FlowProblem>;
  /** The line of the statement that holds each weak check (guardsAt fills it). */
  weakLines?: Map<string, number>;
}
export const noGuard = (): GuardInfo => ({ sound: new Set(), weak: new Map() });

/* ---------------- sink tables ---------------- */

export const SHELL_FNS = new Set(['os.system', 'os.popen', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'asyncio.create_subprocess_shell', 'commands.getoutput']);
export const PROC_FNS = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen']);
export const EXEC_FNS = new Set(['asyncio.create_subprocess_exec', 'os.execv', 'os.execvp', 'os.execvpe', 'os.execl', 'os.execlp', 'os.execle', 'os.execlpe', 'os.posix_spawn', 'os.posix_spawnp']);
export const EVAL_FNS = new Set(['eval', 'exec', 'builtins.eval', 'builtins.exec']);
export const SHELLS = /^(?:.*\/)?(?:sh|bash|zsh|dash|ksh|fish|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh|python[\d.]*|node|perl|ruby|php)$/i;
export const INLINE_FLAGS = new Set(['-c', '/c', '-e', '--eval', '-Command', '-command', '-lc', '-ic']);

export const FILE_FNS_ONE = new Set([
  'open',
  'io.open',
  'os.open',
  'codecs.open',
  'aiofiles.open',
  'os.remove',
  'os.unlink',
  'os.rmdir',
  'os.removedirs',
  'os.mkdir',
  'os.makedirs',
  'os.listdir',
  'os.scandir',
  'os.walk',
  'os.chmod',
  'os.chown',
  'os.truncate',
  'glob.glob',
  'glob.iglob',
  'tarfile.open',
  'zipfile.ZipFile',
]);
export const FILE_FNS_TWO = new Set(['os.rename', 'os.renames', 'os.replace', 'os.symlink', 'os.link']);
export const FILE_METHODS = new Set(['read_text', 'read_bytes', 'write_text', 'write_bytes', 'open', 'unlink', 'rmdir', 'mkdir', 'touch', 'iterdir', 'glob', 'rglob', 'symlink_to', 'hardlink_to', 'chmod']);
/**
 * Libraries that open the path given first (or by one of LIBRARY_PATH_KEYWORDS): spreadsheets (openpyxl, pandas
 * readers, xlrd), database files (sqlite3, aiosqlite, duckdb), documents and images (python-docx, Pillow, pypdf,
 * PyMuPDF), repositories (GitPython, pygit2).
 */
export const LIBRARY_FILE_FNS = new Set([
  'openpyxl.load_workbook', 'openpyxl.reader.excel.load_workbook', 'xlrd.open_workbook',
  'pandas.read_csv', 'pandas.read_excel', 'pandas.read_parquet', 'pandas.read_table', 'pandas.read_feather', 'pandas.read_pickle',
  'pandas.read_fwf', 'pandas.read_stata', 'pandas.read_sas', 'pandas.read_spss', 'pandas.read_orc', 'pandas.read_hdf',
  'pandas.ExcelFile', 'pandas.ExcelWriter',
  'sqlite3.connect', 'aiosqlite.connect', 'duckdb.connect',
  'docx.Document', 'PIL.Image.open', 'pypdf.PdfReader', 'PyPDF2.PdfReader', 'fitz.open', 'pymupdf.open',
  'git.Repo', 'git.Repo.init', 'pygit2.Repository',
]);
export const LIBRARY_PATH_KEYWORDS = ['filename', 'filepath_or_buffer', 'path', 'io', 'database', 'fp', 'file', 'path_or_buf', 'path_or_buffer', 'excel_writer', 'stream'];
/**
 * Methods of those libraries' objects that write to (or extract into) the path given first: openpyxl's
 * `wb.save(p)`, pandas' `frame.to_csv(p)` / `to_excel`…, python-docx and Pillow `save`, zipfile/tarfile `extractall(p)`
 * (read on the qualified name of the receiver's creation, facts/python-model's qualName).
 */
export const LIBRARY_PATH_METHODS: readonly RegExp[] = [
  /^openpyxl\.(?:Workbook|load_workbook|reader\.excel\.load_workbook)\(\)\.save$/,
  /^pandas\.[\w.]+\(\)(?:\.\w+\(\))*\.to_(?:csv|excel|json|parquet|feather|pickle|html|xml|stata|hdf|markdown|latex|orc)$/,
  /^(?:docx\.Document|PIL\.Image\.(?:open|new))\(\)(?:\.\w+\(\))*\.save$/,
  /^(?:zipfile\.ZipFile|tarfile\.open)\(\)\.extractall$/,
];
/** Values that hold data in memory, not a path: a library given one reads no file. */
export const IN_MEMORY = new Set(['io.StringIO', 'io.BytesIO', 'StringIO', 'BytesIO']);
/** Methods that send SQL text (DB-API cursors and connections, psycopg, sqlite3, duckdb). */
export const SQL_METHODS = new Set(['execute', 'executemany', 'executescript', 'mogrify']);

/** Methods that also exist on str: only a sink on something known to be a Path. */
export const PATH_ONLY_METHODS = new Set(['rename', 'replace']);

export const HTTP_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request', 'stream']);
export const HTTP_MODULES = new Set(['requests', 'httpx']);
export const HTTP_CLIENTS = new Set(['requests.Session()', 'requests.session()', 'httpx.Client()', 'httpx.AsyncClient()', 'aiohttp.ClientSession()', 'urllib3.PoolManager()']);

export const SANITIZERS: Record<SinkKind, Set<string>> = {
  command: new Set(['shlex.quote', 'pipes.quote', 'shlex.join']),
  // A file name without its folders (as path.basename in facts/flow) stays in the folder it is joined to.
  file: new Set(['werkzeug.utils.secure_filename', 'os.path.basename', 'posixpath.basename', 'ntpath.basename']),
  http: new Set(),
};
export const ALWAYS_SANITIZERS = new Set(['int', 'float', 'bool', 'len', 'abs', 'round', 'hash', 'ord', 'id', 'isinstance', 'callable', 'uuid.UUID']);

export function evidenceLine(file: PythonFile, n: Node): string {
  const line = file.text.split('\n')[n.startPosition.row] ?? '';
  const t = line.replace(/\s+#.*$/, '').trim();
  return t.length > 160 ? t.slice(0, 157) + '…' : t;
}
