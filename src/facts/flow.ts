import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type SourceFile, type Identifier, type NewExpression, type PropertyAccessExpression, type TaggedTemplateExpression } from './morph.js';
import type { RepoFacts } from './repo.js';
import { bindingNames, declarationOf, findNodes, isFunctionLike, rawOriginOf, resolveRelativeModule } from './scope.js';
import { constString, modelFiles, regexSource, serverModel, type HandlerEntry } from './server-model.js';
import { importsOf, namedFilter, namesAnyModule, ofKinds, parsedSources, rawCalleeName, rawOfKinds, rawUnwrap, positionOf, unwrap, wrapNode, type NamedFilter, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';
import { libraryRegions } from './bundle-regions.js';
import { Run } from './flow/analysis.js';
import { runsCommandLine } from './flow/runtimes.js';
import { argumentOf, keysMatch, relevant, storageKeys } from './flow/guards.js';
import { instanceExports } from './flow/modules.js';
import { BROWSER_MODULES, REMOTE_COMMAND_NAMES, TRANSFER_NAMES, SSH_MODULES, isRecordModule, RECORD_MODULES, SQL_MODULES, SERVER_SQL_MODULES, sqlModuleOf, sqlReceiverParam, callSinkKind, CONNECT_MODULES, classifySink, DOC_MODULES, possibleStrings, type Flow, type FlowStep, FS_MODULES, type Guard, type GuardDetail, HTTP_MODULES, NAVIGATION_NAMES, type SinkContext, type SinkMatch, type SinkSite } from './flow/sinks.js';
import { type Check, type Family, type FnResult, type Link, type RawFlow, type Stop, type StoreWrite, type Taint, type Verdict } from './flow/taint.js';


/**
 * Taint flow from what a client sends to a handler (facts/server-model entries) to dangerous calls
 * ("sinks"), read syntactically (no type checker). Memoised per RepoFacts.
 *
 * Sources: the handler parameters that carry arguments (server-model `HandlerEntry.inputs`): the
 * arguments object of a high-level tool/prompt handler (destructured or not), `request.params.arguments`
 * (and `request.params.uri` for resources/read) in a low-level dispatcher, the `uri` and `variables` of a
 * resource-template handler. Arguments the input schema restricts to non-text values (zod enum, literal,
 * number, boolean; JSON Schema enum/const/number/integer/boolean) are not sources for SDK-validated
 * handlers.
 *
 * Propagation: variable declarations and assignments (`=`, `+=`, `??=`; a later assignment may refine a
 * variable, e.g. `p = path.resolve(root, p)`), destructuring (object and array patterns, rest elements),
 * template literals, `+` concatenation, `??`/`||`/`&&`/conditional, property and element access on a
 * tainted object, array literals, object literals (field by field: `{ path: p, rules }.rules` carries only
 * `rules`), `await`, `for…of` and the element parameter of `forEach`/`map`/`filter`/… callbacks, string
 * methods called on a tainted value (not those returning booleans or numbers), `path.*` transforms,
 * `realpath`, `String()`, `decodeURIComponent()`, `JSON.stringify/parse`, `new URL()`, `Schema.parse(x)` /
 * `safeParse(x).data` (minus the constrained arguments). A call to another function is followed when it is
 * declared in the audited source (same file, or imported by a relative path, ESM or CommonJS; `this.m()` in
 * a class; every function of a dispatch table called with a computed key, `handlers[name](args)`): tainted
 * arguments taint its parameters, its sinks are reported with the call on the path, and its return value is
 * tainted when what it returns is. Methods are followed on class instances of the audited source (`new Cls()`,
 * a typed parameter or field, an instance exported by another module, a `getInstance()` singleton, inherited
 * methods), and `new Cls(x)` runs the constructor. A compiler's downlevel async function (`return __awaiter(this,
 * arguments, P, function* (a, b = 1) {…})`, esbuild's `__async`) hands the call's arguments to its generator. A client value kept in a field (`this.command = cmd`, a
 * constructor parameter property) is read by the methods of that class the analysis runs afterwards, and a
 * method of such a class is followed whatever its arguments. Calls are followed at most MAX_DEPTH levels
 * below the handler (the handler is level 0). Unknown library calls do not propagate taint.
 *
 * Sinks (by where the callee is imported from, see facts/scope `originOf`):
 *   process — child_process exec/execSync ('shell'); spawn/spawnSync/execFile/execFileSync/fork: a tainted
 *     program is 'process', a tainted element of the argument array is 'argument', and both become
 *     'shell' with `shell: true` or when the program is a shell given `-c`; execa/execaSync/execaNode,
 *     execaCommand ('process', 'shell' with the shell option), the execa/zx `$` tag (an interpolation in
 *     the program position is 'process', elsewhere 'argument'); cross-spawn; shelljs exec ('shell');
 *     `new StdioClientTransport({ command, args })`.
 *   code — eval, Function / new Function, vm.runInNewContext/runInThisContext/runInContext/compileFunction,
 *     new vm.Script ('eval'); gray-matter's `matter(text)` unless its options replace the `javascript` engine (its
 *     default engine evals `---js` front matter).
 *   fs — the values of a shell command line that name a file or folder its program opens (`rg -n ${p} ${dir}`,
 *     `ls "${dir}"`, facts/file-arguments), in the line (a template, a `+` or `.concat` chain) given to exec/execSync/shelljs, `spawn(line, { shell:
 *     true })` or `spawn('sh', ['-c', line])`, or in the template a line handed whole to them was made as
 *     (`runCommand(\`rg ${p} ${dir}\`)` into the helper's `exec(command)`: Taint.commandLine);
 *   fs — also document libraries that open a path (xlsx readFile/writeFile, exceljs `wb.xlsx.readFile`, sharp
 *     and its `toFile`, mammoth `{ path }`) and globbing (glob, fast-glob, globby, tinyglobby: the pattern and
 *     `cwd`), see flow/sinks DOC_MODULES;
 *   fs — file transfers over SSH, in a package that uses an SSH client: the local path of ssh2's `sftp.fastPut`
 *     (read) and `fastGet` (write), node-ssh's `putFile`/`putDirectory` (read) and `getFile`/`getDirectory` (write),
 *     ssh2-sftp-client's `uploadDir`/`downloadDir` and `put`/`get` on a receiver named sftp (flow/sinks fileTransfer);
 *   fs — fs, fs/promises, fs-extra, graceful-fs: the read family (readFile, readdir, readJson…, not the
 *     file-descriptor reads), open, opendir, createReadStream ('read'); the write, append, mkdir, output
 *     families, copyFile, cp, copy, rename, move, truncate, symlink, link, createWriteStream ('write'); rm,
 *     rmdir, unlink, remove, emptyDir ('delete'); the path arguments only.
 *   http — fetch (global, undici, node-fetch), http/https request/get, axios and its verbs, got, ky, undici
 *     request/stream, and instances of axios/got/ky (`axios.create`, `got.extend`, `ky.create`) wherever
 *     they are kept (a variable, a field, an export of another module); the URL (or the destination fields
 *     of an options object given first). Each flow says how much of the destination the value reaches
 *     (Flow.urlShape): a template or concatenation whose scheme and host are written in the code or come from
 *     a value the client does not reach, followed by a path delimiter (`${BASE}/items/${id}`), a relative
 *     reference against a fixed base (`new URL(\`/items/${id}\`, BASE)`, an axios `baseURL`, a got/ky
 *     `prefixUrl`) is 'path'; `https://${host}/…` is 'host'; anything else 'url'.
 *   browser — when the package uses a browser automation module (playwright, puppeteer, CDP, selenium): a
 *     navigation (`page.goto(url)`, `Page.navigate({ url })`, `driver.get(url)`) is an outbound request
 *     ('navigate' kind).
 *
 * Guards (mechanical). A check counts for a flow when
 *   - it tests the value on the flow's path: the same variable or expression, or a value derived from the
 *     same argument (not merely a piece of it such as `url.protocol`, `p.split('/')[0]` or `extname(p)`, and
 *     not the whole arguments object, nor another property of an object both came through: `note.dir`
 *     checked, `note.file` written); a path confinement made on a resolved copy (`full = path.resolve(root,
 *     p)`) does not count for a file-system call given the unresolved `p` itself;
 *   - it is in a guarding position: in an `if` whose branch rejects (throw, continue, break, `return`
 *     nothing / false / null / an `isError` result / an error call), in what a predicate returns, kept in a
 *     variable, or asserted — it then guards what comes after it (inside one branch of an `if` whose other branch
 *     goes on, `if (options.rootDir) { … }`, only what follows in that branch); or in an `if`/`?:` condition or a
 *     `switch` case that contains the sink — it then guards that branch only;
 *   - and it comes before the sink in a function of the call chain; a check inside a called helper (a
 *     `confine(root, p)` or `isAllowed(x)`) counts at the call, for the arguments that reach it.
 *   fs, sound — `p.startsWith(root + path.sep)` (or `+ '/'`, a template ending with the separator, a const
 *     holding one, an absolute literal folder ending with '/') where p comes from path.resolve/join/
 *     normalize or realpath; `path.relative(root, p)` checked with `startsWith('..')` or `isAbsolute`; a
 *     value passed through path.basename; an allowlist (see below).
 *   fs, unsound — 'prefix-without-separator': `startsWith(root)` with a non-literal prefix and no
 *     separator; 'raw-path-check': a check on a string that was not resolved (`includes('..')`, a regex,
 *     `isAbsolute`, a literal prefix, `startsWith(path.sep)`), or a value cleaned with `replace`.
 *   process/code/http, sound — allowlist: `LIST.includes(x)` / `SET.has(x)` / `x in MAP` /
 *     `Object.hasOwn(MAP, x)` (on a collection whose name does not say deny/block), `x === 'literal'`, a
 *     `switch (x)` whose literal case contains the sink, an anchored regex (`/^…$/.test(x)`); a shell
 *     quoting function (shell-quote, shell-escape, shescape, `escape…`/`quote…`; not a function of the package so named
 *     whose body only wraps the value in double quotes or writes HTML entities: flow/analysis notShellQuoting) for 'shell'; an
 *     'argument' sink is sound by construction ('argv-no-shell'). A URL looked up in a collection by one of
 *     its parts (`ALLOWED_HOSTS.has(url.hostname)`) is an allowlist for http sinks.
 *   process/code/http, unsound — 'blocklist': `x.includes(';')`, `!x.includes('..')`, an unanchored regex,
 *     a value cleaned with `replace(/[;&|]/g, '')`, a prefix test, `DENYLIST.includes(x)`.
 *   process, sound — 'confirmed': the value is handed, before the sink, to a function that asks the human
 *     (an elicitation: `elicitInput`, the SDK's `inputRequired.elicit`, 'elicitation/create'), and the call's
 *     result decides whether the function goes on (an `if` on it, or on the variable holding it, that returns
 *     or throws); not when the asking function lets the request through without the human: an accepting return before
 *     the question, or when the question fails (an accepting return in the `catch` of the `try` that asks, a
 *     `.catch(() => true)` or `.catch(() => ({ action: 'accept' }))` on it: a client that cannot elicit makes it throw).
 *   fs, open — 'default-open': a sound confinement in a function that lets everything through while its
 *     allow-list is empty (`if (allowed.length === 0) return true`, `allowed.length === 0 || …`), when that
 *     list may be empty by default (an empty array or Set as its value or default); 'roots-writable': the
 *     allowed roots (or names) a sound check compares with are written, in some handler, from client values
 *     (`config[key] = value` on the object they are read from, `roots.push(dir)`), in a module-level
 *     variable or a class field.
 * A sound check wins over an unsound one; with no check the guard is 'none'.
 */
export { MAX_DEPTH, type SinkFamily, type SinkKind, type FsAccess, type Guard, type GuardDetail, type Launcher, type FlowStep, type Flow, type UrlShape, type SinkSite, BROWSER_MODULES, type HttpLibrary, type HttpRequest, httpRequestOf } from './flow/sinks.js';

/* ------------------------------------------------------------ judgement */

const rank: Record<Guard, number> = { none: 0, unsound: 1, sound: 2 };
/** Among unsound checks, the one closest to a real confinement is reported. */
const detailRank = (d: GuardDetail | undefined): number => (d === 'roots-writable' ? 4 : d === 'default-open' ? 3 : d === 'prefix-without-separator' ? 2 : d ? 1 : 0);

/** The tool's write that changes the allowed roots a check compares with (memoised per check), or undefined. */
const writerMemo = new WeakMap<Check, StoreWrite | null>();
function rootsWriter(c: Check, run: Run): StoreWrite | undefined {
  if (!c.roots || run.writes.length === 0) return undefined;
  const hit = writerMemo.get(c);
  if (hit !== undefined) return hit ?? undefined;
  const keys = [...new Set(c.roots.flatMap((r) => storageKeys(r, run.sources)))];
  const w = run.writes.find((x) => keys.some((k) => keysMatch(k, x.key)));
  writerMemo.set(c, w ?? null);
  return w;
}

function judge(f: RawFlow, checks: Check[], run: Run): { guard: Guard; detail?: GuardDetail; at?: Node; writer?: string; firstWordOnly?: boolean } {
  const rootKeys = run.rootKeys;
  if (f.kind === 'argument') {
    // An element of a fixed program's argument array: red only where it may be read as an option (flow/argv.ts).
    if (f.taint.validated) return { guard: 'sound', detail: 'pattern' };
    if (f.taint.argv === 'safe' || f.taint.argv === 'code') return { guard: 'sound', detail: 'argv-no-shell' };
  }
  if (f.kind === 'fs' && f.taint.basename) return { guard: 'sound', detail: 'basename' };
  if (f.kind === 'shell' && f.taint.escaped) return { guard: 'sound', detail: 'escaped' };
  const family: Family = f.kind === 'fs' ? 'fs' : f.kind === 'argument' ? 'argv' : 'process';
  let best: { guard: Guard; detail?: GuardDetail; at?: Node; writer?: string } = f.taint.replaced && family !== 'argv'
    ? { guard: 'unsound', detail: family === 'fs' ? 'raw-path-check' : 'blocklist', at: f.steps.find((s) => /\.replace(?:All)?\(/.test(s.getText())) }
    : { guard: 'none' };
  // The checks a value passed before a function of the source returned it (Taint.confinedBy) judge it wherever it went.
  const carried = new Set(family === 'fs' ? (f.taint.confinedBy ?? []) : []);
  // sql: whether every check the statement passes looks at its first word only (Flow.sqlFirstWordOnly).
  let firstWord: boolean | undefined;
  for (const c of [...checks, ...carried]) {
    let verdict = c.verdict[family];
    if (!verdict) continue;
    if (!carried.has(c) && !relevant(c, f, rootKeys)) continue;
    // A confinement whose allowed roots a tool can rewrite confines nothing.
    const writer = family === 'fs' && verdict.guard === 'sound' ? rootsWriter(c, run) : undefined;
    if (writer) verdict = { guard: 'unsound', detail: 'roots-writable' };
    if (!carried.has(c)) {
      const link = f.chain.find((l) => l.fn === c.fn);
      if (!link) continue;
      if (c.scope) {
        if (!(link.at.getStart() >= c.scope.getStart() && link.at.getEnd() <= c.scope.getEnd())) continue;
      } else if (c.at.getStart() >= link.at.getStart() && !argumentOf(c.at, link.at)) continue;
    }
    if (f.kind === 'sql') firstWord = firstWord !== false && firstWordCheck(c.node);
    if (rank[verdict.guard] > rank[best.guard] || (verdict.guard === best.guard && detailRank(verdict.detail) > detailRank(best.detail))) {
      best = writer ? { guard: verdict.guard, detail: verdict.detail, at: writer.node, writer: writer.tool } : { guard: verdict.guard, detail: verdict.detail, at: c.node };
    }
  }
  return firstWord && best.guard !== 'none' ? { ...best, firstWordOnly: true } : best;
}

/** A pattern that is a start anchor and SQL keywords only: `^\s*(select|with)\b`, `^SELECT`. */
const FIRST_WORD_PATTERN = /^\^(?:\\s[*+])?(?:\((?:\?:)?)?[A-Za-z_]+(?:\|[A-Za-z_]+)*\)?(?:\\b|\\s[*+]?)?$/;
const KEYWORD = /^\s*[A-Za-z_]+(?:\s+[A-Za-z_]+)?\s*$/;
/**
 * A check on a SQL statement that tests its first word only: `x.startsWith('SELECT')`, `/^\s*select\b/i.test(x)`,
 * `x.match(/^(SELECT|SHOW)/i)` (a first word taken apart, `x.split(' ')[0]`, is no check the flow keeps). Not a pattern
 * that reads further (`/^\s*SELECT\s+[\w,]+\s+FROM\s+\w+$/`), a word looked for anywhere (`includes(';')`), a parser.
 */
function firstWordCheck(n: Node): boolean {
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return false;
    const m = callee.getName();
    const a = n.getArguments()[0];
    if (!a) return false;
    if (m === 'startsWith') return KEYWORD.test(constString(a)?.value ?? '');
    if (m === 'test' || m === 'match') {
      const re = regexSource(m === 'test' ? callee.getExpression() : a);
      return re !== undefined && FIRST_WORD_PATTERN.test(re);
    }
    return false;
  }
  return false;
}

/**
 * The SQL client module of a statement's receiver that the sink's own file does not show: a receiver that comes from a
 * parameter (`const client = await pool.connect()`, `pool` a parameter), looked up in the argument the calling function
 * of the flow's chain passes (`handleQuery(pool, args.sql)` with `const pool = new pg.Pool()`).
 */
function sqlModuleThroughChain(f: RawFlow, sources: ParsedSources): string | undefined {
  const p = sqlReceiverParam(f.sink);
  if (!p || p.index < 0) return undefined;
  const i = f.chain.findIndex((l, k) => k > 0 && l.fn === p.fn);
  const call = i > 0 ? f.chain[i - 1]!.at : undefined;
  if (!call || !(Node.isCallExpression(call) || Node.isNewExpression(call))) return undefined;
  const arg = (call.getArguments() as Node[])[p.index];
  return arg ? sqlModuleOf(arg, sources) : undefined;
}

/** Is the program of an argument flow a language runtime: named in the array, at the sink, or by a call on the way (`run('python3', ['-c', code])`)? */
function runsRuntime(f: RawFlow): boolean {
  if (f.taint.argvRuntime) return true;
  const calls = [f.sink, ...f.chain.map((l) => l.at)];
  return calls.some((c) => (Node.isCallExpression(c) || Node.isNewExpression(c)) && (c.getArguments() as Node[]).some((a) => possibleStrings(a).some(runsCommandLine)));
}

/* ---------------------------------------------------------------- public */

const flowMemo = new WeakMap<RepoFacts, Flow[]>();
const stopMemo = new WeakMap<RepoFacts, ToolStop[]>();

/** A call given a tool's argument that leads nowhere the flow analysis knows (flow/taint Stop), per entry. */
export interface ToolStop {
  tool: string;
  entryKind: string;
  file: string;
  line: number;
  column: number;
  /** The callee's text (`dbAdapter.all`, `git.raw`). */
  call: string;
  /** The method name of a property call. */
  method?: string;
  why: Stop['why'];
  module?: string;
  /** The argument fields that reach the call (`args.path` as 'path'). */
  keys: string[];
  /** The package uses a SQL database client (SQL_MODULES). */
  sql?: boolean;
  /**
   * The call's first argument is text written in the code (a literal, or a template that starts with text:
   * `client.query('SELECT … WHERE id = $1', [id])`): the argument reaches it as a bound value or a piece, not as the statement.
   */
  textFirst?: boolean;
  /** The call is a method of a regular expression (`URI_RE.exec(uri)`): a pattern match, never a client's call. */
  regex?: boolean;
}

/** Is a method call made on a regular expression (`/…/.exec(s)`, `URI_RE.exec(uri)` with `const URI_RE = /…/`)? See ToolStop.regex. */
function regexReceiver(call: CallExpression | NewExpression): boolean {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return false;
  let r = unwrap(callee.getExpression());
  if (Node.isIdentifier(r)) {
    const d = declarationOf(r);
    const p = d?.getParent();
    // Only a const: a variable may be given another value later.
    const list = p?.getParent();
    const init = p && Node.isVariableDeclaration(p) && p.getNameNode() === d && list && Node.isVariableDeclarationList(list) && list.getDeclarationKind() === 'const' ? p.getInitializer() : undefined;
    if (!init) return false;
    r = unwrap(init);
  }
  return Node.isRegularExpressionLiteral(r);
}

/** Does a call's first argument start with text written in the code (see ToolStop.textFirst)? */
function firstArgumentWritten(call: CallExpression | NewExpression): boolean {
  const a = call.getArguments()[0];
  if (!a) return false;
  const u = unwrap(a);
  if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) return true;
  // A template counts only when every value it inserts is written in the code too (`SELECT * FROM ${TABLE} WHERE id = $1`):
  // text before a value (`SELECT * FROM (${sql}) AS q`) may wrap the caller's whole statement.
  return Node.isTemplateExpression(u) && u.getHead().getLiteralText().trim() !== '' && u.getTemplateSpans().every((sp) => constString(sp.getExpression()) !== undefined);
}

/** The calls where the flow of each entry's arguments stops unread (computed with toolFlows). */
export function toolStops(repo: RepoFacts): ToolStop[] {
  toolFlows(repo);
  return stopMemo.get(repo) ?? [];
}
const siteMemo = new WeakMap<RepoFacts, SinkSite[]>();

/** Flows from every handler entry of the server model to sinks, one per (entry, sink, kind), sorted by location. */
export function toolFlows(repo: RepoFacts): Flow[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = flowMemo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const run = new Run(sinkContext(repo, sources));
  const out: Flow[] = [];
  // Every entry is read before any flow is judged: a tool may change what another tool's check relies on.
  const results = model.entries.map((entry) => ({ entry, r: analyzeEntry(entry, run) }));
  for (const { entry, r } of results) {
    for (const w of r?.writes ?? []) {
      const branch = entry.branches?.find((b) => w.at.getStart() >= b.node.getStart() && w.at.getEnd() <= b.node.getEnd());
      run.writes.push({ ...w, tool: branch?.name ?? entry.name });
    }
  }
  for (const { entry, r } of results) if (r) out.push(...entryFlows(entry, r, run, sources));
  const stops: ToolStop[] = [];
  for (const { entry, r } of results) {
    for (const s of r?.stops ?? []) {
      const pos = positionOf(s.at);
      const callee = s.at.getExpression().getText();
      stops.push({ tool: entry.name, entryKind: entry.kind, file: sources.rel(s.at.getSourceFile()), line: pos.line, column: pos.column, call: callee.length > 80 ? callee.slice(0, 77) + '...' : callee, method: Node.isPropertyAccessExpression(unwrap(s.at.getExpression())) ? (unwrap(s.at.getExpression()) as PropertyAccessExpression).getName() : undefined, why: s.why, ...(s.module ? { module: s.module } : {}), ...(run.ctx.sql ? { sql: true } : {}), ...(firstArgumentWritten(s.at) ? { textFirst: true } : {}), ...(regexReceiver(s.at) ? { regex: true } : {}), keys: [...s.keys].sort() });
    }
  }
  stopMemo.set(repo, stops);
  out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0)));
  flowMemo.set(repo, out);
  return out;
}

const TOOL_NAME_PARAM = /^(?:name|toolName|tool_name|tool|method)$/;
const helperMemo = new WeakMap<ts.Node, { name: string; node: Node }[]>();

/**
 * The branch of a dispatcher that a flow goes through when the dispatcher hands the tool's name to a helper
 * (`handleToolCall(request.params.name, args)` then `switch (name) { case 'browser_navigate': … }`): the
 * first function on the flow's chain, below the handler, that branches on a parameter named like a tool name.
 */
function helperBranch(chain: Link[]): { name: string; node: Node } | undefined {
  for (const link of chain.slice(1)) {
    let branches = helperMemo.get(link.fn.compilerNode);
    if (!branches) {
      branches = [];
      const params = new Set(link.fn.getParameters().map((p) => p.getName()).filter((n) => TOOL_NAME_PARAM.test(n)));
      if (params.size) {
        for (const n of findNodes(link.fn, (cn) => ts.isSwitchStatement(cn) && ts.isIdentifier(rawUnwrap(cn.expression)) && params.has((rawUnwrap(cn.expression) as ts.Identifier).text))) {
          if (!Node.isSwitchStatement(n)) continue;
          for (const c of n.getCaseBlock().getClauses()) {
            const v = Node.isCaseClause(c) ? constString(c.getExpression())?.value : undefined;
            if (v !== undefined) branches.push({ name: v, node: c });
          }
        }
      }
      helperMemo.set(link.fn.compilerNode, branches);
    }
    const hit = branches.find((b) => link.at.getStart() >= b.node.getStart() && link.at.getEnd() <= b.node.getEnd());
    if (hit) return hit;
  }
  return undefined;
}

function analyzeEntry(entry: HandlerEntry, run: Run): FnResult | undefined {
  if (!entry.inputs.length) return undefined;
  const params: (Taint | undefined)[] = [];
  for (const input of entry.inputs) {
    params[input.param] = {
      prefix: input.path.length ? input.path : undefined,
      safe: input.path.length ? undefined : new Set(entry.constrained),
      ...(!input.path.length && entry.patterned?.length ? { patterned: new Set(entry.patterned) } : {}),
      root: true,
      keys: new Set(),
      steps: [],
    };
  }
  return run.analyze(entry.fn, params, 0);
}

function entryFlows(entry: HandlerEntry, r: FnResult, run: Run, sources: ParsedSources): Flow[] {
  const at = (n: Node): FlowStep => ({ file: sources.rel(n.getSourceFile()), line: positionOf(n).line });
  const bySink = new Map<string, Flow>();
  for (const raw of r.flows) {
    // Code handed to a language runtime on its command line (`python3 -c`, `node -e`) is evaluated.
    let f: RawFlow = raw.kind === 'argument' && raw.taint.argv === 'code' && runsRuntime(raw) ? { ...raw, kind: 'eval' } : raw;
    // A statement sent to a client received as a parameter: the module of the value the caller passes (a pg Pool).
    if (f.kind === 'sql' && f.match.sqlUnresolved) {
      const m = sqlModuleThroughChain(f, sources);
      if (m) {
        const { sqlUnresolved: _, ...match } = f.match;
        f = { ...f, match: { ...match, ...(SERVER_SQL_MODULES.has(m) ? { sqlServer: true } : {}) } };
      }
    }
    const g = judge(f, r.checks, run);
    const pos = { file: sources.rel(f.sink.getSourceFile()), ...positionOf(f.sink) };
    const branch = entry.branches?.find((b) => f.chain[0]!.at.getStart() >= b.node.getStart() && f.chain[0]!.at.getEnd() <= b.node.getEnd()) ?? (entry.branches ? helperBranch(f.chain) : undefined);
    const path: FlowStep[] = [];
    for (const s of f.steps) {
      const step = at(s);
      const prev = path[path.length - 1];
      if (!prev || prev.file !== step.file || prev.line !== step.line) path.push(step);
    }
    const flow: Flow = {
      tool: branch?.name ?? ((entry.branches || entry.nameComputed ? f.tableKey : undefined) ?? entry.name),
      entryKind: entry.kind,
      sinkKind: f.kind,
      sinkCall: f.match.call,
      ...(f.match.access ? { access: f.match.access } : {}),
      ...(f.match.family === 'process' ? { shell: f.kind === 'shell' } : {}),
      ...(f.match.launcher ? { launcher: f.match.launcher } : {}),
      ...(f.kind === 'sql' && f.match.readOnly ? { readOnly: true } : {}),
      ...(f.kind === 'sql' && f.match.sqlUnresolved ? { sqlUnresolved: true } : {}),
      ...(f.kind === 'sql' && f.taint.textFirst ? { sqlTextFirst: true } : {}),
      ...(f.kind === 'sql' && f.match.sqlServer ? { sqlServer: true } : {}),
      ...(f.kind === 'sql' && g.firstWordOnly ? { sqlFirstWordOnly: true } : {}),
      ...pos,
      guard: g.guard,
      ...(g.detail ? { guardDetail: g.detail } : {}),
      ...(g.at ? { guardAt: at(g.at) } : {}),
      ...(g.writer ? { guardWriter: g.writer } : {}),
      path,
      ...(f.urlShape ? { urlShape: f.urlShape } : {}),
    };
    const key = `${flow.tool}|${flow.file}:${flow.line}:${flow.column}|${flow.sinkKind}`;
    const prev = bySink.get(key);
    if (!prev || rank[flow.guard] < rank[prev.guard]) bySink.set(key, flow);
  }
  return [...bySink.values()];
}

const SINK_KINDS = afterLoad(() => [SyntaxKind.CallExpression, SyntaxKind.NewExpression, SyntaxKind.TaggedTemplateExpression] as const);
/** Modules whose members classifySink knows (after `node:` is stripped). */
const SINK_MODULES = new Set([
  'child_process', 'cross-spawn', 'execa', 'shelljs', 'zx', 'vm', 'gray-matter', ...FS_MODULES, ...HTTP_MODULES, ...DOC_MODULES, 'exceljs',
  'axios', 'got', 'node-fetch', 'cross-fetch', 'undici', 'ky', ...Object.keys(CONNECT_MODULES),
]);
/** Names a sink can have without an import: globals (eval, Function, fetch, WebSocket) and the SDK's StdioClientTransport. */
const IMPORTLESS_SINK_NAMES = ['eval', 'Function', 'fetch', 'StdioClientTransport', 'WebSocket'];
const IMPORTLESS_SINK_NAME = new RegExp(`^(?:${IMPORTLESS_SINK_NAMES.join('|')})$`);

/**
 * Which calls of a file can be sinks, decided on raw nodes before anything is wrapped or resolved. Origins
 * are resolved within a file (see scope.ts), so a call can reach a sink module's member only when the file
 * names that module in an import or require; without one, only importless names (eval, fetch…) and local
 * aliases of them (`const f = globalThis.fetch`) can be sinks.
 */
function sinkPrefilter(sf: SourceFile, ctx: SinkContext): NamedFilter {
  const text = sf.compilerNode.text;
  const aliases = new Set<string>();
  const decls: ts.VariableDeclaration[] = [];
  ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => {
    if ((cn as ts.VariableDeclaration).initializer) decls.push(cn as ts.VariableDeclaration);
    return false; // collected raw: nothing to wrap
  });
  for (const v of decls) {
    let init = v.initializer;
    while (init && (ts.isParenthesizedExpression(init) || ts.isNonNullExpression(init) || ts.isAsExpression(init) || ts.isAwaitExpression(init))) init = init.expression;
    if (!init) continue;
    const last = ts.isIdentifier(init) ? init.text : ts.isPropertyAccessExpression(init) ? init.name.text : ts.isCallExpression(init) ? rawCalleeName(init) : undefined;
    if (last && (IMPORTLESS_SINK_NAME.test(last) || last === 'promisify' || last === 'bind') && ts.isIdentifier(v.name)) aliases.add(v.name.text);
  }
  // Names that can lead to a sink module: its import bindings, then (to a fixpoint) the variables whose
  // initializer mentions one of them (`const { exec } = cp`, `const run = promisify(exec)`, `const fsp = fs.promises`).
  const rooted = new Set<string>();
  // HTTP client instances imported from another module of the audited source (`import { api } from './http.js'`).
  const exported = instanceExports(ctx.sources);
  const viaInstance: string[] = [];
  if (exported.size) {
    for (const [local, b] of importsOf(sf)) {
      if (!b.module.startsWith('.')) continue;
      const target = resolveRelativeModule(ctx.sources.rel(sf), b.module, ctx.sources);
      const names = target && exported.get(target);
      if (names && (b.imported === '*' || names.has(b.imported))) viaInstance.push(local);
    }
  }
  if (namesAnyModule(sf, SINK_MODULES) || viaInstance.length) {
    for (const [local, b] of importsOf(sf)) if (SINK_MODULES.has(b.module)) rooted.add(local);
    for (const local of viaInstance) rooted.add(local);
    const bindingNames = (b: ts.BindingName, out: string[]): string[] => {
      if (ts.isIdentifier(b)) out.push(b.text);
      else for (const el of b.elements) if (ts.isBindingElement(el)) bindingNames(el.name, out);
      return out;
    };
    // The least fixpoint, by a worklist: each initializer's text is read once, into an index from the names it
    // mentions to the declarations; a declaration joins when its initializer calls require()/import() or
    // mentions a name already rooted.
    const byName = new Map<string, number[]>();
    const queue = [...rooted];
    const join = (v: ts.VariableDeclaration): void => {
      for (const n of bindingNames(v.name, [])) {
        if (!rooted.has(n)) {
          rooted.add(n);
          queue.push(n);
        }
      }
    };
    decls.forEach((v, i) => {
      const init = text.slice(v.initializer!.pos, v.initializer!.end);
      if (/\b(?:require|import)\s*\(/.test(init)) join(v);
      for (const m of new Set(init.match(/[A-Za-z_$][\w$]*/g))) {
        const list = byName.get(m);
        if (list) list.push(i);
        else byName.set(m, [i]);
      }
    });
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) for (const i of byName.get(name) ?? []) join(decls[i]!);
  }
  const byName = (cn: ts.Node): boolean => {
    const name = rawCalleeName(cn);
    return !!name && (IMPORTLESS_SINK_NAME.test(name) || aliases.has(name) || (ctx.browser && NAVIGATION_NAMES.has(name) && ts.isCallExpression(cn)) || (!!ctx.ssh && (REMOTE_COMMAND_NAMES.has(name) || TRANSFER_NAMES.has(name) || name === 'connect') && ts.isCallExpression(cn)));
  };
  // A file with no name leading to a sink module: only the names decide, so the name index finds the calls.
  if (rooted.size === 0) return namedFilter([...IMPORTLESS_SINK_NAMES, ...aliases, ...(ctx.browser ? NAVIGATION_NAMES : []), ...(ctx.ssh ? [...REMOTE_COMMAND_NAMES, ...TRANSFER_NAMES, 'connect'] : [])], byName);
  return (cn: ts.Node): boolean => {
    if (byName(cn)) return true;
    // The root of the callee (`fs` in fs.promises.readFile): a name leading to a sink module, require()/import()
    // itself, or `this` (a field holding a client: `this.http.get(…)`).
    let e: ts.Node | undefined = ts.isCallExpression(cn) || ts.isNewExpression(cn) ? cn.expression : ts.isTaggedTemplateExpression(cn) ? cn.tag : undefined;
    for (let i = 0; e && i < 32; i++) {
      e = rawUnwrap(e); // `(0, child_process_1.exec)(…)`, tsc's call of a named import in CommonJS output
      if (ts.isIdentifier(e)) return rooted.has(e.text);
      if (e.kind === SyntaxKind.ThisKeyword) return true;
      if (ts.isCallExpression(e)) {
        const c = e.expression;
        if (c.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c) && c.text === 'require')) return true;
      }
      if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isAwaitExpression(e) || ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e) || ts.isCallExpression(e)) e = e.expression;
      else return false;
    }
    return false;
  };
}

const contextMemo = new WeakMap<RepoFacts, SinkContext>();

/** The sink context of an audit: its parsed files, and whether the package drives a browser (a browser module in its manifest or imported by its code). */
function sinkContext(repo: RepoFacts, sources: ParsedSources): SinkContext {
  const hit = contextMemo.get(repo);
  if (hit) return hit;
  const pkg = repo.object('package.json');
  const deps = pkg.ok ? ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys((pkg.value[k] as Record<string, unknown> | undefined) ?? {})) : [];
  const browser = deps.some((d) => BROWSER_MODULES.includes(d)) || [...sources.files.values()].some((sf) => namesAnyModule(sf, BROWSER_MODULES));
  const records = deps.some((d) => isRecordModule(d)) || [...sources.files.values()].some((sf) => namesAnyModule(sf, RECORD_MODULES));
  const SOCKET_MODULES = ['ws', 'socket.io', 'isomorphic-ws'];
  // A bundle that inlines the WebSocket library (its modules under node_modules/ws/…, no dependency left to name) opens them too.
  const inlined = new Set(SOCKET_MODULES);
  const sockets =
    deps.some((d) => SOCKET_MODULES.includes(d)) ||
    [...sources.files.values()].some((sf) => namesAnyModule(sf, SOCKET_MODULES)) ||
    [...sources.files.values()].some((sf) => libraryRegions(sf.getFullText(), inlined).length > 0);
  const ssh = deps.some((d) => SSH_MODULES.includes(d)) || [...sources.files.values()].some((sf) => namesAnyModule(sf, SSH_MODULES));
  const sql = deps.some((d) => SQL_MODULES.includes(d)) || [...sources.files.values()].some((sf) => namesAnyModule(sf, SQL_MODULES));
  const ctx = { sources, browser, records, sockets, ssh, sql };
  contextMemo.set(repo, ctx);
  return ctx;
}

/** Every recognised sink call in the source, tainted or not (for rules about launches, file access or fetches as such). */
export function sinkSites(repo: RepoFacts): SinkSite[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = siteMemo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const ctx = sinkContext(repo, sources);
  const out: SinkSite[] = [];
  for (const [file, sf] of modelFiles(sources)) {
    const candidate = sinkPrefilter(sf, ctx);
    // A call is a sink only if its callee's origin says so (callSinkKind): decided before wrapping.
    const isSinkCall = (cn: ts.Node): boolean => {
      if (!ts.isCallExpression(cn)) return true;
      const callee = rawUnwrap(cn.expression);
      if (ctx.browser && ts.isPropertyAccessExpression(callee) && NAVIGATION_NAMES.has(callee.name.text)) return true;
      // An SSH client's `conn.connect({ host })`: classifySink follows the receiver to the library (sshConnect).
      if (ctx.ssh && ts.isPropertyAccessExpression(callee) && callee.name.text === 'connect') return true;
      const o = rawOriginOf(callee);
      if (o && o.module.startsWith('.')) return true; // an instance exported by another module: classifySink decides
      return !!o && !!callSinkKind(o);
    };
    for (const cn of rawOfKinds(sf, SINK_KINDS(), candidate)) {
      if (!isSinkCall(cn)) continue;
      const n = wrapNode(sf, cn);
      const m = classifySink(n, ctx);
      if (!m) continue;
      out.push({
        family: m.family,
        call: m.call,
        file,
        ...positionOf(n),
        node: n,
        ...(m.access ? { access: m.access } : {}),
        ...(m.family === 'process' ? { shell: !!m.shell } : {}),
        ...(m.launcher ? { launcher: m.launcher } : {}),
      });
    }
  }
  siteMemo.set(repo, out);
  return out;
}
