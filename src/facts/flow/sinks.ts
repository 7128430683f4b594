import { Node, SyntaxKind, ts, type CallExpression, type PropertyAccessExpression, type TaggedTemplateExpression } from '../morph.js';
import { assignedPropertyValues, assignedValues, declarationOf, fieldValues, functionOf, isFunctionLike, importOf as importOfDecl, initializerOf, moduleMember, objectWrittenLater, valueOfDeclaration, GLOBAL, INSTANCE_FACTORIES, type Origin } from '../scope.js';
import { constString, objectLiteralOf, propertyValue, type EntryKind } from '../server-model.js';
import { namesAnyModule, unwrap, wrapNode, type ParsedSources } from '../ts-source.js';
import { originCached, requireCall } from './modules.js';
import { piecesOf } from './pieces.js';
import { isRuntime } from './runtimes.js';
import { pathArgumentPositions, sqlFileBefore, sqlFilePlaceholders, type ArgvItem } from '../file-arguments.js';

/**
 * Taint flow (facts/flow.ts), the sinks: which calls are dangerous (a shell, a process, eval, the file system,
 * an HTTP request, a browser navigation), how their arguments are read, and the shapes of a flow and a site.
 */

/** How many nested calls below a handler a flow is followed. */
export const MAX_DEPTH = 5;

export type SinkFamily = 'process' | 'code' | 'fs' | 'http' | 'browser' | 'connect' | 'record';
/**
 * 'sql': the whole text of a SQL statement sent to a SQL database client (`client.query(sql)` with `sql` from the
 * caller): the caller writes the statement, including those that make the database read or write a file.
 */
export type SinkKind = 'shell' | 'process' | 'argument' | 'eval' | 'fs' | 'http' | 'navigate' | 'connect' | 'lookup' | 'sql';
export type FsAccess = 'read' | 'write' | 'delete';
export type Guard = 'none' | 'sound' | 'unsound';
export type GuardDetail =
  | 'separator-prefix'
  | 'relative-check'
  | 'basename'
  | 'allowlist'
  | 'pattern'
  | 'escaped'
  | 'argv-no-shell'
  | 'option-check'
  | 'prefix-without-separator'
  | 'raw-path-check'
  | 'blocklist'
  | 'default-open'
  | 'roots-writable'
  | 'confirmed';
export type Launcher = 'child_process' | 'execa' | 'cross-spawn' | 'shelljs' | 'zx' | 'stdio-transport' | 'ssh' | 'docker' | 'kubernetes';

export interface FlowStep {
  file: string;
  line: number;
}

export interface Flow {
  /** The tool (prompt, resource) whose input reaches the sink; a dispatcher's method when no branch names it. */
  tool: string;
  entryKind: EntryKind;
  sinkKind: SinkKind;
  /** The callee as written (`exec`, `fs.promises.readFile`, `$`…), at most 80 characters. */
  sinkCall: string;
  /** fs sinks: what the call does to the path. */
  access?: FsAccess;
  /** process sinks: the launch goes through a shell. */
  shell?: boolean;
  /** process sinks: what starts the command (`ssh`: on a remote host; `docker`, `kubernetes`: in a container or pod). */
  launcher?: Launcher;
  /** sql sinks: the statement runs after the same function began a read-only transaction (`BEGIN TRANSACTION READ ONLY`). */
  readOnly?: boolean;
  /**
   * sql sinks: the receiver is only named like a SQL client (`db`, `client`, `pool`…) and its module is not followed:
   * it may be an HTTP API client's `client.query(text)`, so this is not evidence of a SQL statement (could-not-judge at most).
   */
  sqlUnresolved?: boolean;
  /** sql sinks: the statement's text starts with text written in the code (Taint.textFirst), built by a helper: not the caller's whole statement. */
  sqlTextFirst?: boolean;
  /**
   * sql sinks: the client talks to a database server (PostgreSQL, MySQL/MariaDB, SQL Server: SERVER_SQL_MODULES), whose
   * plain SELECT can read or write files (`pg_read_file`, `LOAD_FILE`, `INTO OUTFILE`, `OPENROWSET(BULK …)`); not an
   * embedded database (SQLite, DuckDB) nor a client whose kind is not known (knex).
   */
  sqlServer?: boolean;
  /**
   * sql sinks: every check the statement passes looks at its first word only (`sql.trim().toUpperCase().startsWith('SELECT')`,
   * `/^\s*(select|with)\b/i.test(sql)`): the rest of the statement is the caller's.
   */
  sqlFirstWordOnly?: boolean;
  file: string;
  line: number;
  column: number;
  guard: Guard;
  guardDetail?: GuardDetail;
  /**
   * Where the deciding check is written; for 'default-open', the branch that accepts everything when the list
   * is empty; for 'roots-writable', the write of the allowed roots.
   */
  guardAt?: FlowStep;
  /** 'roots-writable': the tool (prompt, resource) whose arguments are written into the allowed roots. */
  guardWriter?: string;
  /** From the source (the handler parameter) through assignments and calls to the sink. */
  path: FlowStep[];
  /**
   * http and navigate sinks: what of the destination the value reaches — 'path' when the scheme and host are
   * fixed (written in the code, configured, or the instance's base URL) and the value only fills the path or
   * query; 'host' when the scheme is fixed; 'url' for the whole URL.
   */
  urlShape?: UrlShape;
}

export type UrlShape = 'url' | 'host' | 'path';

export interface SinkSite {
  family: SinkFamily;
  call: string;
  file: string;
  line: number;
  column: number;
  node: Node;
  access?: FsAccess;
  /** process: runs through a shell (exec, `shell: true`, `sh -c`). */
  shell?: boolean;
  launcher?: Launcher;
}

/* ----------------------------------------------------------------- sinks */

export interface SinkPart {
  kind: SinkKind;
  exprs: Node[];
  /**
   * An argument array the launch is handed whole (a parameter, a value made elsewhere), for these program names:
   * the part holds only when the array was made with a client value at a path position (Taint.argvItems).
   */
  argvOf?: string[];
  /**
   * A command line the shell is handed whole (a helper's parameter, `exec(command)`): the part holds only when the
   * line was made as a template with a client value where its program reads a file or folder (Taint.commandLine).
   */
  lineMade?: boolean;
}

export interface SinkMatch {
  family: SinkFamily;
  call: string;
  access?: FsAccess;
  shell?: boolean;
  launcher?: Launcher;
  /** A whole statement sent after a read-only transaction began (see Flow.readOnly). */
  readOnly?: boolean;
  /** A whole statement sent to a receiver only named like a SQL client, whose module is not followed (see Flow.sqlUnresolved). */
  sqlUnresolved?: boolean;
  /** A whole statement sent to a database server's client (see Flow.sqlServer). */
  sqlServer?: boolean;
  parts: SinkPart[];
}

export const FS_MODULES = new Set(['fs', 'fs/promises', 'fs-extra', 'graceful-fs', 'original-fs', 'fs-extra/esm']);
export const HTTP_MODULES = new Set(['http', 'https', 'http2']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'cmd', 'cmd.exe', 'powershell', 'powershell.exe', 'pwsh', '/bin/sh', '/bin/bash', '/bin/zsh', '/usr/bin/env']);
const SHELL_FLAGS = new Set(['-c', '-lc', '-ic', '/c', '/C', '-Command', '-command']);
const FD_METHODS = new Set(['read', 'readSync', 'readv', 'readvSync', 'write', 'writeSync', 'writev', 'writevSync']);
const TWO_PATHS = /^(?:copyFile|copyFileSync|cp|cpSync|copy|copySync|rename|renameSync|move|moveSync|link|linkSync|symlink|symlinkSync)$/;

function fsAccess(m: string): FsAccess | undefined {
  if (FD_METHODS.has(m)) return undefined;
  if (/^(?:rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|remove|removeSync|emptyDir|emptyDirSync|emptydir)$/.test(m)) return 'delete';
  if (/^read/.test(m) || /^(?:open|openSync|opendir|opendirSync|createReadStream)$/.test(m)) return 'read';
  if (/^(?:write|append|mkdir|mkdtemp|output|ensure|truncate|chmod|chown|utimes)/.test(m) || m === 'createWriteStream' || TWO_PATHS.test(m)) return 'write';
  return undefined;
}

export const last = (o: Origin): string => {
  const p = o.path.filter((s) => s !== 'default' && s !== 'promises');
  return p[p.length - 1] ?? '';
};

const calleeText = (n: Node): string => {
  const t = n.getText().replace(/\s+/g, '');
  return t.length > 80 ? t.slice(0, 77) + '...' : t;
};

function isFalsy(n: Node | undefined): boolean {
  if (!n) return true;
  const u = unwrap(n);
  return Node.isFalseLiteral(u) || Node.isNullLiteral(u) || (Node.isIdentifier(u) && u.getText() === 'undefined');
}

function shellOption(opts: Node[], sources: ParsedSources): boolean {
  for (const o of opts) {
    const obj = objectLiteralOf(o, sources);
    if (!obj) continue;
    const v = propertyValue(obj, 'shell');
    if (v && !isFalsy(v)) return true;
  }
  return false;
}

/**
 * The string values an expression may take: literals, consts, `??`/`||` defaults, both branches of `?:`, the
 * values of a table written in the code (`EXECUTORS[language]`). With `sources`, a const or a table imported from
 * another module of the package (`import { EXECUTORS } from './constants.js'`, `constants_1.EXECUTORS[id]`) too.
 */
export function possibleStrings(n: Node | undefined, depth = 0, sources?: ParsedSources): string[] {
  if (!n || depth > 4) return [];
  const u = unwrap(n);
  const c = constString(u)?.value;
  if (c !== undefined) return [c];
  if (Node.isConditionalExpression(u)) return [...possibleStrings(u.getWhenTrue(), depth + 1, sources), ...possibleStrings(u.getWhenFalse(), depth + 1, sources)];
  if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) return [...possibleStrings(u.getLeft(), depth + 1, sources), ...possibleStrings(u.getRight(), depth + 1, sources)];
  if (Node.isIdentifier(u) || (sources && Node.isPropertyAccessExpression(u))) {
    const init = constValueOf(u, sources);
    return init ? possibleStrings(init, depth + 1, sources) : [];
  }
  // `RUNTIMES[language]`: one of the values of a table written in the code (an object or array literal).
  if (Node.isElementAccessExpression(u)) {
    const table = unwrap(u.getExpression());
    const init = Node.isIdentifier(table) || Node.isPropertyAccessExpression(table) ? constValueOf(table, sources) : undefined;
    const lit = init && unwrap(init);
    const key = constString(u.getArgumentExpression())?.value;
    if (lit && Node.isObjectLiteralExpression(lit)) {
      const values = lit.getProperties().flatMap((p) => (Node.isPropertyAssignment(p) && (key === undefined || p.getName().replace(/^['"]|['"]$/g, '') === key) ? [p.getInitializer()] : []));
      return values.flatMap((v) => possibleStrings(v, depth + 1, sources));
    }
    if (lit && Node.isArrayLiteralExpression(lit)) return lit.getElements().flatMap((e) => possibleStrings(e, depth + 1, sources));
  }
  return [];
}

/** The initializer a name stands for: a local const, or (with `sources`) an import or a module's member (`ns.NAME`). */
function constValueOf(u: Node, sources: ParsedSources | undefined): Node | undefined {
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    if (!d) return undefined;
    const init = initializerOf(d);
    if (init || !sources) return init;
    const v = valueOfDeclaration(d, sources);
    return v && !Node.isSourceFile(v) && !Node.isFunctionDeclaration(v) && !Node.isClassDeclaration(v) ? v : undefined;
  }
  const v = sources ? moduleMember(u, sources) : undefined;
  return v && !Node.isSourceFile(v) && !Node.isFunctionDeclaration(v) && !Node.isClassDeclaration(v) ? v : undefined;
}

/** Names that say a value is the user's shell (`process.env.SHELL`, `this.shell`, `getDefaultShell()`, `comspec`). */
const SHELL_NAME = /(?:^|[^a-z])(?:shell|comspec)(?:path|bin|to ?use|executable)?$|^(?:bash|zsh|pwsh|powershell)$/i;

/** Is the program a shell: one of its possible values, or a name that says so (a value from the environment or the configuration)? */
function isShellProgram(program: Node | undefined): boolean {
  if (!program) return false;
  if (possibleStrings(program).some((v) => SHELLS.has(v) || SHELLS.has(v.split(/[\\/]/).pop() ?? ''))) return true;
  let u = unwrap(program);
  if (Node.isCallExpression(u)) u = unwrap(u.getExpression());
  const name = Node.isIdentifier(u) ? u.getText() : Node.isPropertyAccessExpression(u) ? u.getName() : Node.isElementAccessExpression(u) ? (constString(u.getArgumentExpression())?.value ?? '') : '';
  return SHELL_NAME.test(name.replace(/^get(?:Default|User)?/, ''));
}

/** An argument array written in place or in a local variable (`const argv = ['-c', cmd]`). */
function arrayLiteralOf(n: Node | undefined): Node | undefined {
  if (!n) return undefined;
  const u = unwrap(n);
  if (Node.isArrayLiteralExpression(u)) return u;
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d ? initializerOf(d) : undefined;
    return init && Node.isArrayLiteralExpression(init) ? init : undefined;
  }
  return undefined;
}

/**
 * The working folder a launch is given (`{ cwd: dir }`): the program reads and writes there, so a folder the
 * client chose is a path reaching the file system (X-5), a part of kind 'fs' beside the launch's own parts.
 */
function cwdParts(opts: Node[], sources: ParsedSources): SinkPart[] {
  const cwd = opts.flatMap((o) => optionValues(o, 'cwd', sources));
  return cwd.length ? [{ kind: 'fs', exprs: cwd }] : [];
}

/**
 * The values an options object may hold under `key`: its literal's property, the values later assigned to it
 * (`const spawnOptions = { env }; if (options.cwd) spawnOptions.cwd = path.resolve(options.cwd);`), and those of
 * an object spread into the literal (`{ ...cmdOptions, onProgress }`), one level deep.
 */
function optionValues(arg: Node | undefined, key: string, sources: ParsedSources, depth = 0): Node[] {
  if (!arg || depth > 1) return [];
  const out: Node[] = [];
  const u = unwrap(arg);
  const obj = objectLiteralOf(u, sources);
  const v = obj && propertyValue(obj, key);
  if (v) out.push(v);
  const d = Node.isIdentifier(u) ? declarationOf(u) : undefined;
  if (d) out.push(...assignedPropertyValues(d, key));
  if (!v && obj) {
    for (const p of obj.getProperties()) {
      if (!Node.isSpreadAssignment(p)) continue;
      // `...(images ? { images } : {})`: either branch.
      const e = unwrap(p.getExpression());
      const branches = Node.isConditionalExpression(e) ? [e.getWhenTrue(), e.getWhenFalse()] : [e];
      for (const b of branches) out.push(...optionValues(b, key, sources, depth + 1));
    }
  }
  return out;
}

/**
 * The elements of a launch's argument list that name a file or folder the program opens (`git -C dir`,
 * `pg_dump -f file`, `--output=file`, facts/file-arguments): a part of kind 'fs', for the program's possible names.
 */
function programPathParts(program: Node | undefined, argv: Node | undefined): SinkPart[] {
  const elements = argv && program ? argvElements(argv) : undefined;
  if (!elements) {
    // A parameter or a value made elsewhere: judged on the array the value was made as (Taint.argvItems).
    const names = argv && program && Node.isIdentifier(unwrap(argv)) ? possibleStrings(program) : [];
    return names.length ? [{ kind: 'fs', exprs: [argv!], argvOf: names }] : [];
  }
  const names = possibleStrings(program);
  if (!names.length) return [];
  const items = argvItemsOf(elements);
  const exprs = pathArgumentPositions(names, items).map((i) => elements[i]!);
  return exprs.length ? [{ kind: 'fs', exprs }] : [];
}

/** The elements of an argument list as written (facts/file-arguments' ArgvItem): literal text, or a template's fixed head. */
export function argvItemsOf(elements: Node[]): ArgvItem[] {
  return elements.map((e) => {
    if (Node.isSpreadElement(e)) return { spread: true };
    const u = unwrap(e);
    const value = constString(u)?.value;
    if (value !== undefined) return { value };
    return Node.isTemplateExpression(u) ? { head: u.getHead().getLiteralText() } : {};
  });
}

/** Cluster clients whose command line chooses the cluster they talk to. */
const CLUSTER_PROGRAMS = new Set(['kubectl', 'helm', 'oc', 'k9s']);
const CLUSTER_FLAGS = /^(?:--context|--kube-context|--server|-s|--cluster|--kubeconfig)$/;

/**
 * The elements of a cluster client's argument list that choose the cluster (`kubectl config use-context X`,
 * `--context X`, `--context=${x}`, `--server`, `--kubeconfig`, helm's `--kube-context`): where the launch connects,
 * a part of kind 'connect' beside the launch's own.
 */
export function clusterArguments(program: Node | undefined, argv: Node | undefined): Node[] {
  const names = program ? possibleStrings(program).map((v) => v.split(/[\\/]/).pop() ?? v) : [];
  if (!argv || !names.some((n) => CLUSTER_PROGRAMS.has(n.replace(/\.exe$/, '')))) return [];
  const elements = argvElements(argv);
  if (!elements) return [];
  const out: Node[] = [];
  const values = elements.map((e) => constString(unwrap(e))?.value);
  const spreads = elements.map((e) => Node.isSpreadElement(e));
  elements.forEach((e, i) => {
    const u = unwrap(e);
    if (values[i] !== undefined) return;
    const before = values[i - 1];
    const head = Node.isTemplateExpression(u) ? u.getHead().getLiteralText() : undefined;
    if ((before !== undefined && (CLUSTER_FLAGS.test(before) || (before === 'use-context' && values[i - 2] === 'config'))) || (head !== undefined && /^--(?:context|kube-context|server|cluster|kubeconfig)=$/.test(head))) out.push(e);
    else if (remoteSourceAt(values, i, spreads) || (head !== undefined && (head === '--repo=' || (head === '--filename=' && readsFiles(values, spreads))))) out.push(e);
  });
  return out;
}

/**
 * Subcommands whose `-f` / `--filename` names a file that may be a URL: kubectl's and oc's manifest (`apply -f`,
 * `create`, `replace`, `delete`, `diff`…), helm's values file (`install|upgrade|template|lint -f`). Not `logs -f`
 * (follow) nor any other.
 */
const FILENAME_SUBCOMMANDS = new Set([
  'apply', 'create', 'replace', 'delete', 'diff', 'patch', 'get', 'describe', 'edit', 'label', 'annotate', 'scale', 'autoscale',
  'expose', 'set', 'rollout', 'wait', 'convert', 'auth', 'process', 'install', 'upgrade', 'template', 'lint',
]);
/** Options of kubectl, oc and helm that take the next element as their value (so it is not a positional argument). */
const VALUE_OPTIONS = new RegExp(
  '^(?:-[nflocpksva]|--(?:namespace|filename|selector|output|container|patch|kustomize|server|context|kube-context|cluster|user|kubeconfig|token|as|as-group|' +
    'request-timeout|certificate-authority|client-certificate|client-key|tls-server-name|cache-dir|since|tail|type|field-selector|timeout|grace-period|for|' +
    'image|replicas|port|values|set|set-string|set-file|set-json|set-literal|version|repo|description|username|password|ca-file|cert-file|key-file|keyring|' +
    'post-renderer|post-renderer-args|kube-apiserver|kube-token|kube-as-user|kube-as-group|kube-ca-file|registry-config|repository-config|repository-cache|' +
    'history-max|max-history|api-versions|kube-version|output-dir|show-only|name-template|labels))$',
);

/**
 * The positions of a cluster client's positional arguments (the subcommand first), skipping options and the values
 * of those that take one (`--namespace ns`, `-f file`; `--x=v` is one element). Stops at an argument list spread
 * into the line (`...flags`): what follows it has no known position.
 */
function positionals(values: (string | undefined)[], spreads: boolean[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < values.length; j++) {
    if (spreads[j]) break;
    const v = values[j];
    if (v !== undefined && v.startsWith('-')) {
      if (!v.includes('=') && VALUE_OPTIONS.test(v)) j++;
      continue;
    }
    out.push(j);
  }
  return out;
}

/** Whether the subcommand of a cluster client's command line reads a file named by `-f` (FILENAME_SUBCOMMANDS). */
function readsFiles(values: (string | undefined)[], spreads: boolean[]): boolean {
  const sub = positionals(values, spreads)[0];
  return sub !== undefined && FILENAME_SUBCOMMANDS.has(values[sub] ?? '');
}

/**
 * A place on a cluster client's command line that names something it fetches, which may be a URL: a manifest
 * (`-f`, `--filename` after a subcommand that reads one: kubectl reads an http(s) URL there), a chart repository
 * (`--repo`, `helm repo add NAME URL`) or a chart (`helm install|upgrade|template [RELEASE] CHART`, `helm pull CHART`:
 * a URL or an oci:// reference), found by skipping options and their values (`upgrade --install REL CHART`).
 */
function remoteSourceAt(values: (string | undefined)[], i: number, spreads: boolean[] = []): boolean {
  const before = values[i - 1];
  if (before === '--repo') return true;
  if (before !== undefined && /^(?:-f|--filename)$/.test(before)) return readsFiles(values, spreads);
  if (values[i - 2] === 'add' && values[i - 3] === 'repo') return true;
  // The list holds the arguments after the program: `['pull', chart]`, `['install', release, chart, …]`.
  const pos = positionals(values, spreads);
  const k = pos.indexOf(i);
  const sub = pos[0] !== undefined ? values[pos[0]] : undefined;
  if (k < 1 || sub === undefined) return false;
  if (sub === 'pull') return k === 1;
  if (!/^(?:install|upgrade|template)$/.test(sub)) return false;
  // Only the chart: `install --generate-name CHART` and `template CHART` have no release before it.
  const noRelease = values.some((v) => v === '-g' || v === '--generate-name') || (sub === 'template' && pos.length === 2);
  return k === (noRelease ? 1 : 2);
}

/**
 * The arguments of a command line written as a template, up to a span (`kubectl -n ${ns} apply -f ` → `-n`,
 * undefined, `apply`, `-f`): what remoteSourceAt reads, the span's own place being the next one.
 */
function lineArguments(text: string): (string | undefined)[] {
  const words = text.replace(/["']$/, '').trim().split(/\s+/).slice(1);
  return words.map((w) => (w.includes('\u0000') ? undefined : w.replace(/^["']|["']$/g, '')));
}

/** The values of a cluster client's command line written as a template that choose the cluster (`kubectl config use-context ${c}`, `--context=${c}`). */
export function clusterLineValues(line: Node | undefined): Node[] {
  const u = line && unwrap(line);
  if (!u || !Node.isTemplateExpression(u)) return [];
  const program = u.getHead().getLiteralText().trim().split(/\s+/)[0] ?? '';
  if (!CLUSTER_PROGRAMS.has(program.split(/[\\/]/).pop() ?? program)) return [];
  const out: Node[] = [];
  let text = u.getHead().getLiteralText();
  for (const span of u.getTemplateSpans()) {
    if (/(?:^|\s)(?:--context|--kube-context|--server|-s|--cluster|--kubeconfig)(?:=|\s+)["']?$|(?:^|\s)config\s+use-context\s+["']?$/.test(text)) out.push(span.getExpression());
    // What it fetches (remoteSourceAt): a manifest, a chart repository, a chart.
    else if (/(?:^|\s)--repo=["']?$/.test(text) || (/(?:^|\s)--filename=["']?$/.test(text) && readsFiles(lineArguments(text), []))) out.push(span.getExpression());
    else if (/\s["']?$/.test(text)) {
      const args = lineArguments(text);
      if (remoteSourceAt([...args, undefined], args.length)) out.push(span.getExpression());
    }
    text += '\u0000' + span.getLiteral().getLiteralText();
  }
  return out;
}

/** Names of values that hold several arguments or options of a command line. */
const ARGUMENT_LIST = /^(?:\w*(?:args|argv|arguments|flags|options|opts|params)|cmd|command|line|extra\w*|join)$/i;
/** The name an element of a command line is read from: a variable's, a member's, or `join` for `list.join(' ')`. */
function argumentListName(e: Node): string {
  let u = unwrap(Node.isSpreadElement(e) ? e.getExpression() : e);
  if (Node.isCallExpression(u)) u = unwrap(u.getExpression());
  return Node.isIdentifier(u) ? u.getText() : Node.isPropertyAccessExpression(u) ? u.getName() : '';
}

/**
 * A launch of a cluster client (kubectl, helm, oc) as a connection to the cluster: the values of its command line that
 * choose the cluster (clusterArguments, clusterLineValues), and whether its command line was read whole, so that no
 * value the reading did not see can hold a `--context` or `--server` (an argument list written, or kept in a local
 * array with what is pushed to it, spreading no other list; a line written as a string or a template; in either, no
 * value that stands for a list of arguments or options). Undefined when the call does not launch a cluster client. `shellLine`: the call runs a
 * command line (exec, execSync), else a program and its arguments (spawn, execFile).
 */
export function clusterLaunch(program: Node | undefined, argv: Node | undefined, shellLine: boolean): { values: Node[]; read: boolean } | undefined {
  const base = (v: string): string => (v.split(/[\\/]/).pop() ?? v).replace(/\.exe$/, '');
  if (shellLine) {
    const u = program && unwrap(program);
    if (!u) return undefined;
    const text = Node.isTemplateExpression(u) ? u.getHead().getLiteralText() : constString(u)?.value;
    if (text === undefined || !CLUSTER_PROGRAMS.has(base(text.trim().split(/\s+/)[0] ?? ''))) return undefined;
    if (!Node.isTemplateExpression(u)) return { values: [], read: true };
    // A value right after the program (`kubectl ${line}`), or one that holds a list of arguments or options
    // (`${args.join(' ')}`, `${flags}`), may carry a `--context` the reading does not see; a value in a word's place
    // (a resource's name, a quoted script) is that word.
    const head = u.getHead().getLiteralText();
    const read = !/^\s*\S+\s+["']?$/.test(head) && u.getTemplateSpans().every((span) => !ARGUMENT_LIST.test(argumentListName(span.getExpression())));
    return { values: clusterLineValues(u), read };
  }
  if (!possibleStrings(program).some((v) => CLUSTER_PROGRAMS.has(base(v)))) return undefined;
  if (!argv) return { values: [], read: true };
  const all = argvElements(argv);
  // What follows `--` is a command run in the pod (`kubectl exec pod -- sh -c …`), not kubectl's own options.
  const end = all ? all.findIndex((e) => constString(unwrap(e))?.value === '--') : -1;
  const elements = all && end >= 0 ? all.slice(0, end) : all;
  const read = !!elements && !elements.some((e) => (Node.isSpreadElement(e) && !Node.isArrayLiteralExpression(unwrap(e.getExpression()))) || ARGUMENT_LIST.test(argumentListName(e)));
  return { values: clusterArguments(program, argv), read };
}

function clusterLineParts(line: Node | undefined): SinkPart[] {
  const exprs = clusterLineValues(line);
  return exprs.length ? [{ kind: 'connect', exprs }] : [];
}

/**
 * The elements of an argument list: an array literal's, or a local array's (`const args = ['deploy']`) followed by
 * what `args.push(…)` adds to it in its function, in the order written.
 */
function argvElements(argv: Node): Node[] | undefined {
  const u = unwrap(argv);
  if (Node.isArrayLiteralExpression(u)) return u.getElements();
  if (!Node.isIdentifier(u)) return undefined;
  const d = declarationOf(u);
  const init = d ? initializerOf(d) : undefined;
  const lit = init && unwrap(init);
  if (!d || !lit || !Node.isArrayLiteralExpression(lit)) return undefined;
  const out: Node[] = [...lit.getElements()];
  const body = d.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a));
  for (const c of body ? body.getDescendantsOfKind(SyntaxKind.CallExpression) : []) {
    const callee = unwrap(c.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'push' || c.getStart() > argv.getStart()) continue;
    const target = unwrap(callee.getExpression());
    if (Node.isIdentifier(target) && target.getText() === u.getText() && declarationOf(target) === d) out.push(...c.getArguments());
  }
  return out;
}

/**
 * A language runtime (or a shell) started with no script of its own: only flags (`python3 -`, `bash -s`, `node`),
 * so what it reads on its standard input is the program it runs. What kind that text is: 'shell' for a shell,
 * 'eval' for another runtime; undefined when a script or code is named on the command line (its input is data).
 */
function stdinProgram(program: Node | undefined, argv: Node | undefined): 'shell' | 'eval' | undefined {
  if (!program) return undefined;
  // A command line written as one string (`execSync('python3 -', { input })`): its first word and flags.
  const lines = possibleStrings(program);
  if (!lines.length) return undefined;
  const words = lines.map((l) => l.trim().split(/\s+/));
  if (!words.every((w) => isRuntime(w[0] ?? '') && w.slice(1).every((x) => x.startsWith('-')))) return undefined;
  const els = argv ? argvElements(argv) : [];
  if (!els || els.some((e) => !(constString(e)?.value ?? 'x').startsWith('-'))) return undefined;
  return words.every((w) => SHELLS.has(w[0]!) || SHELLS.has(w[0]!.split(/[\\/]/).pop() ?? '')) ? 'shell' : 'eval';
}

/** The `input` option of a synchronous launch (`spawnSync('python3', ['-'], { input: code })`) given to such a runtime. */
function stdinParts(program: Node | undefined, argv: Node | undefined, opts: Node[], sources: ParsedSources): SinkPart[] {
  const input = opts.map((o) => optionOf(o, ['input'], sources)).find((x): x is Node => !!x);
  const kind = input && stdinProgram(program, argv);
  return input && kind ? [{ kind, exprs: [input] }] : [];
}

/**
 * Text written to the standard input of such a runtime (`const child = spawn('python3', ['-']);
 * child.stdin.write(code)` or `.end(code)`): the runtime runs it (family 'code').
 */
function stdinWrite(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !/^(?:write|end)$/.test(callee.getName()) || !node.getArguments()[0]) return undefined;
  const stdin = unwrap(callee.getExpression());
  if (!Node.isPropertyAccessExpression(stdin) || stdin.getName() !== 'stdin') return undefined;
  let child = unwrap(stdin.getExpression());
  if (Node.isIdentifier(child)) {
    const d = declarationOf(child);
    const init = d && initializerOf(d);
    if (!init) return undefined;
    child = unwrap(init);
  }
  if (!Node.isCallExpression(child)) return undefined;
  const o = originCached(unwrap(child.getExpression()), sources);
  if (!o || !['spawn', 'execa'].includes(callSinkKind(o) ?? '')) return undefined;
  const [program, second] = child.getArguments();
  const argv = second && !Node.isObjectLiteralExpression(unwrap(second)) ? second : undefined;
  const kind = stdinProgram(program, argv);
  return kind ? { family: 'code', call: calleeText(callee), parts: [{ kind, exprs: node.getArguments().slice(0, 1) }] } : undefined;
}

/** Options of ssh, docker/podman exec|run that take a value (the next element), so the value is not the destination. */
const SSH_VALUE_FLAGS = new Set(['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-e', '-m', '-O', '-Q', '-S', '-W', '-w', '-B']);
const CONTAINER_VALUE_FLAGS = new Set(['-e', '--env', '-w', '--workdir', '-u', '--user', '--env-file', '-v', '--volume', '--name', '--network', '-p', '--publish', '--entrypoint', '--mount', '-l', '--label', '--platform', '--detach-keys', '-c', '--container', '-n', '--namespace', '--context', '--kubeconfig']);

/**
 * Programs that run another command given after their own arguments: `ssh [options] host command…` (the rest
 * is joined and run by the remote user's shell: kind 'shell'), `docker|podman exec [options] container
 * command…`, `kubectl|oc exec pod -- command…` (the first word of the command is
 * the program run in the container: kind 'process' when it is not written in the code; a shell given `-c` is
 * read by the runtime rule). The elements of that command, from the launch's argument list.
 */
function wrappedCommandParts(program: Node | undefined, argv: Node | undefined): SinkPart[] {
  const els = argv && program ? argvElements(argv) : undefined;
  if (!els?.length) return [];
  const names = new Set(possibleStrings(program).map((v) => (v.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '')));
  if (names.size !== 1) return [];
  const name = [...names][0]!;
  const lit = (i: number): string | undefined => (els[i] && !Node.isSpreadElement(els[i]!) ? constString(els[i]!)?.value : undefined);
  const expr = (e: Node): Node => (Node.isSpreadElement(e) ? e.getExpression() : e);
  // The index after `skip` positional elements (options and their values passed over) from `from`.
  const afterPositionals = (from: number, skip: number, valueFlags: Set<string>): number | undefined => {
    let i = from;
    for (let seen = 0; i < els.length && seen < skip; i++) {
      const v = lit(i);
      if (Node.isSpreadElement(els[i]!)) return undefined; // options not known
      if (v !== undefined && v.startsWith('-')) {
        if (valueFlags.has(v)) i++;
        continue;
      }
      seen++;
    }
    return i;
  };
  let start: number | undefined;
  if (name === 'ssh') {
    start = afterPositionals(0, 1, SSH_VALUE_FLAGS);
    return start !== undefined && start < els.length ? [{ kind: 'shell', exprs: els.slice(start).map(expr) }] : [];
  }
  if (name === 'docker' || name === 'podman' || name === 'nerdctl') {
    const verb = els.findIndex((_, i) => lit(i) !== undefined && !lit(i)!.startsWith('-'));
    // Not `run`: what follows the image goes to its entrypoint when it has one, not necessarily a program.
    if (verb < 0 || lit(verb) !== 'exec') return [];
    start = afterPositionals(verb + 1, 1, CONTAINER_VALUE_FLAGS);
  } else if (name === 'kubectl' || name === 'oc') {
    const verb = els.findIndex((_, i) => lit(i) !== undefined && !lit(i)!.startsWith('-'));
    const dashes = els.findIndex((_, i) => lit(i) === '--');
    if (verb < 0 || lit(verb) !== 'exec' || dashes < verb) return [];
    start = dashes + 1;
  }
  const first = start !== undefined ? els[start] : undefined;
  if (!first || lit(start!) !== undefined) return [];
  return [{ kind: 'process', exprs: [expr(first)] }];
}

/** spawn-like (program, [argv], [options]) */
function spawnLike(call: string, launcher: Launcher, args: Node[], sources: ParsedSources, programKind: 'process' = 'process'): SinkMatch {
  const program = args[0];
  const second = args[1] ? unwrap(args[1]) : undefined;
  const argv = second && !Node.isObjectLiteralExpression(second) ? second : undefined;
  const opts = args.slice(argv ? 2 : 1);
  const shell = shellOption(opts, sources);
  const parts: SinkPart[] = [];
  // `spawn(shell, ['-c', command])`: a shell given -c, its path written in the code or read from the environment.
  const argvList = arrayLiteralOf(argv);
  const shellC =
    !!argvList &&
    Node.isArrayLiteralExpression(argvList) &&
    argvList.getElements().some((e) => SHELL_FLAGS.has(constString(e)?.value ?? '')) &&
    isShellProgram(program);
  if (shell) {
    parts.push({ kind: 'shell', exprs: [program, argv].filter((x): x is Node => !!x) });
    // `spawn(line, { shell: true })`: the program operand is the whole command line.
    if (!argv) parts.push(...commandLinePathParts(program));
    // `const parts = command.split(' '); spawn(parts[0], parts.slice(1), { shell: true })` in a `run(command)` helper:
    // the shell joins them back into the line the helper was given (read on the line as it was made: lineMade).
    else if (program && Node.isIdentifier(unwrap(program))) parts.push(...commandLinePathParts(program));
  } else if (shellC) {
    parts.push({ kind: 'shell', exprs: [argv!] });
    // `spawn('sh', ['-c', line])`: the line after the flag.
    const els = Node.isArrayLiteralExpression(argvList) ? argvList.getElements() : [];
    const flag = els.findIndex((e) => SHELL_FLAGS.has(constString(e)?.value ?? ''));
    parts.push(...commandLinePathParts(els[flag + 1]));
  } else {
    if (program) parts.push({ kind: programKind, exprs: [program] });
    if (argv) parts.push({ kind: 'argument', exprs: [argv] });
    parts.push(...programPathParts(program, argv), ...wrappedCommandParts(program, argv));
    const dest = clusterArguments(program, argv);
    if (dest.length) parts.push({ kind: 'connect', exprs: dest });
  }
  parts.push(...cwdParts(opts, sources), ...stdinParts(program, argv, opts, sources));
  return { family: 'process', call, launcher, shell: shell || shellC, parts };
}

function execaTemplate(node: TaggedTemplateExpression, call: string, launcher: Launcher, opts: Node[], sources: ParsedSources): SinkMatch {
  const shell = shellOption(opts, sources);
  const tpl = node.getTemplate();
  const parts: SinkPart[] = [];
  if (Node.isTemplateExpression(tpl)) {
    const spans = tpl.getTemplateSpans();
    const exprs = spans.map((s) => s.getExpression());
    if (shell) parts.push({ kind: 'shell', exprs });
    else {
      const programFirst = tpl.getHead().getLiteralText().trim() === '';
      if (programFirst && exprs[0]) parts.push({ kind: 'process', exprs: [exprs[0]] });
      const rest = programFirst ? exprs.slice(1) : exprs;
      if (rest.length) parts.push({ kind: 'argument', exprs: rest });
    }
  }
  parts.push(...commandLinePathParts(tpl), ...cwdParts(opts, sources));
  return { family: 'process', call, launcher, shell, parts };
}

/**
 * A command line's text and values in order, as written: a template, a `+` chain or a `.concat(…)` chain (what
 * compilers down-levelling a template write: `"rg ".concat(p, " ").concat(dir)`), with strings written in the code as text.
 */
function linePieces(n: Node): (string | Node)[] | undefined {
  const u = unwrap(n);
  const piece = (x: Node): (string | Node)[] => linePieces(x) ?? [x];
  if (Node.isTemplateExpression(u)) return [u.getHead().getLiteralText(), ...u.getTemplateSpans().flatMap((sp) => [sp.getExpression(), sp.getLiteral().getLiteralText()])];
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getKind() === SyntaxKind.PlusToken) return [...piece(u.getLeft()), ...piece(u.getRight())];
  const callee = Node.isCallExpression(u) ? u.getExpression() : undefined;
  if (callee && Node.isPropertyAccessExpression(callee) && callee.getName() === 'concat') {
    const head = linePieces(callee.getExpression());
    return head && [...head, ...(u as CallExpression).getArguments().flatMap(piece)];
  }
  // `useColors ? ' --color always' : ' --color never'`: two texts of as many words, one word layout whichever runs.
  if (Node.isConditionalExpression(u)) {
    const [a, b] = [constString(u.getWhenTrue())?.value, constString(u.getWhenFalse())?.value];
    const count = (x: string): number => x.split(/\s+/).length;
    if (a !== undefined && b !== undefined && count(a) === count(b) && /^\s/.test(a) === /^\s/.test(b) && /\s$/.test(a) === /\s$/.test(b)) return [a];
  }
  const text = constString(u)?.value;
  return text !== undefined ? [text] : undefined;
}

/**
 * A command line accumulated in a `let` (`let command = 'rg'; command += ' -n'; command += \` ${pattern} ${dir}\``):
 * the string it starts as, then the right side of every `+=` to it in its function, in the order written (a flag added
 * in one branch or the other stays a flag). Undefined when it starts as anything else or is given another value (`=`).
 */
function accumulatedLinePieces(declId: Node): (string | Node)[] | undefined {
  const decl = declId.getParent();
  if (!Node.isVariableDeclaration(decl) || !Node.isIdentifier(declId)) return undefined;
  const start = constString(decl.getInitializer())?.value;
  if (start === undefined) return undefined;
  const pieces: (string | Node)[] = [start];
  const scope = decl.getFirstAncestor((a) => isFunctionLike(a)) ?? decl.getSourceFile();
  let other = false;
  scope.forEachDescendant((x, trav) => {
    if (other) return trav.stop();
    if (!Node.isBinaryExpression(x)) return;
    const l = unwrap(x.getLeft());
    if (!Node.isIdentifier(l) || l.getText() !== declId.getText() || declarationOf(l) !== declId) return;
    const op = x.getOperatorToken().getText();
    if (op === '+=') pieces.push(...(linePieces(x.getRight()) ?? [x.getRight()]));
    else if (/=$/.test(op) && !/^[=!<>]=/.test(op)) other = true;
  });
  return other || pieces.length === 1 ? undefined : pieces;
}

/** The words of a command line accumulated in a `let` (accumulatedLinePieces), as commandLineWords reads a written one. */
export function accumulatedLineWords(declId: Node): ReturnType<typeof wordsOfPieces> {
  const pieces = accumulatedLinePieces(declId);
  return pieces && wordsOfPieces(pieces);
}

/**
 * The words of a command line written in the code (a template, `+` or `.concat` chain: `git -C ${repo} log`,
 * `'pg_dump -f "' + out + '"'`), its first word, the program, written in the code: the program's name, and each later
 * word as an argument list item (facts/file-arguments) with the value it holds, if any.
 */
export function commandLineWords(line: Node | undefined): ReturnType<typeof wordsOfPieces> {
  const pieces = line && linePieces(line);
  return pieces && wordsOfPieces(pieces);
}

/** The words of a command line given as its texts and values in order (commandLineWords). */
function wordsOfPieces(pieces: (string | Node)[]): { program: string; argv: { item: ArgvItem; expr?: Node }[] } | undefined {
  if (pieces.every((p) => typeof p === 'string')) return undefined;
  const words: { item: ArgvItem; expr?: Node }[] = [];
  let glued: string | undefined; // literal text written right before the next value, in the same word
  const literal = (text: string): void => {
    const parts = text.split(/\s+/);
    parts.forEach((w, i) => {
      const word = w.replace(/^["']|["']$/g, '');
      const last = i === parts.length - 1;
      // Text written right before the value, a quote opening it or not (`--exclude='${x}'`): the value's own word.
      if (last && w !== '') glued = word;
      else if (word) words.push({ item: { value: word } });
    });
  };
  let text = '';
  let afterValue = false;
  const flush = (): void => {
    // The value's word goes on until a space: `${dir}/x` is still that path.
    literal(afterValue && /^\S/.test(text) && !/^["']\s/.test(text) ? text.replace(/^\S*/, '') : text);
    text = '';
  };
  for (const p of pieces) {
    if (typeof p === 'string') {
      text += p;
      continue;
    }
    flush();
    words.push({ item: glued ? { head: glued } : {}, expr: p });
    glued = undefined;
    afterValue = true;
  }
  flush();
  const program = words[0]?.item.value;
  return program ? { program, argv: words.slice(1) } : undefined;
}

/**
 * The values of a command line written as a template that name a file or folder the program opens (facts/file-
 * arguments), the program being the line's first word: a part of kind 'fs' beside the launch's own. A line made
 * elsewhere (`exec(command)` in a `runCommand(command)` helper) is judged on the template it was made as.
 */
function commandLinePathParts(line: Node | undefined): SinkPart[] {
  const u = line && unwrap(line);
  if (u && Node.isIdentifier(u)) return [{ kind: 'fs', exprs: [line!], lineMade: true }];
  const words = commandLineWords(line);
  if (!words) return [];
  const exprs = pathArgumentPositions([words.program], words.argv.map((w) => w.item)).flatMap((i) => (words.argv[i]!.expr ? [words.argv[i]!.expr!] : []));
  return exprs.length ? [{ kind: 'fs', exprs }] : [];
}

/** What an audit's sink reading needs besides the node: the parsed files, and whether the package drives a browser. */
export interface SinkContext {
  sources: ParsedSources;
  /** The package uses a browser automation library (playwright, puppeteer, CDP, selenium): navigations are outbound requests. */
  browser: boolean;
  /** The package uses a data client (RECORD_MODULES): a call on one of its clients looks records up. */
  records: boolean;
  /** The package opens WebSockets (ws, socket.io, isomorphic-ws): a navigation may be sent over one to a browser extension. */
  sockets?: boolean;
  /** The package uses an SSH client (SSH_MODULES): a command it sends runs on the remote host (see remoteCommand). */
  ssh?: boolean;
  /** The package uses a SQL database client (SQL_MODULES): see sqlFileCall's whole-statement part. */
  sql?: boolean;
}

/** What kind of sink a call, `new` or tagged template is, and which of its operands matter. */
export function classifySink(node: Node, ctx: SinkContext): SinkMatch | undefined {
  const sources = ctx.sources;
  if (Node.isTaggedTemplateExpression(node)) {
    let tag = unwrap(node.getTag());
    let opts: Node[] = [];
    if (Node.isCallExpression(tag)) {
      opts = tag.getArguments();
      tag = unwrap(tag.getExpression());
    }
    const o = originCached(tag, sources);
    if (!o) return undefined;
    const m = last(o) || (o.path.length === 0 ? o.module : '');
    if (o.module === 'execa' && /^(?:\$|execa|execaSync|\$sync|execaNode)$/.test(m)) return execaTemplate(node, calleeText(node.getTag()), 'execa', opts, sources);
    if (o.module === 'zx' && m === '$') return execaTemplate(node, '$', 'zx', opts, sources);
    return undefined;
  }
  if (Node.isNewExpression(node)) {
    const callee = unwrap(node.getExpression());
    const o = originCached(callee, sources);
    const args = node.getArguments();
    const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if (o?.module === GLOBAL && name === 'Function') return { family: 'code', call: 'new Function', parts: [{ kind: 'eval', exprs: args }] };
    if (o?.module === 'vm' && last(o) === 'Script') return { family: 'code', call: calleeText(callee), parts: [{ kind: 'eval', exprs: args.slice(0, 1) }] };
    if (o && callSinkKind(o) === 'connect') return connection(calleeText(callee), o, args, sources);
    if (o && callSinkKind(o) === 'doc') return libraryPaths(calleeText(callee), o, args, sources);
    if (o?.module === 'tedious' && last(o) === 'Request' && args[0]) return tediousRequest(node, calleeText(callee), args[0], ctx);
    if (name === 'StdioClientTransport') {
      const obj = objectLiteralOf(args[0], sources);
      const parts: SinkPart[] = [];
      if (obj) {
        const cmd = propertyValue(obj, 'command');
        const argv = propertyValue(obj, 'args');
        if (cmd) parts.push({ kind: 'process', exprs: [cmd] });
        if (argv) parts.push({ kind: 'argument', exprs: [argv] });
      } else if (args[0]) parts.push({ kind: 'process', exprs: [args[0]] });
      return { family: 'process', call: 'new StdioClientTransport', launcher: 'stdio-transport', parts };
    }
    return undefined;
  }
  if (!Node.isCallExpression(node)) return undefined;
  const callee = unwrap(node.getExpression());
  const o = originCached(callee, sources);
  const kind = o && callSinkKind(o);
  if (!kind) {
    return (
      (ctx.browser ? navigation(node) ?? browserFileCall(node, sources) : undefined) ??
      containerCommand(node, sources) ??
      documentCall(node, sources) ??
      libraryMethodCall(node, sources) ??
      modelImages(node, sources, o) ??
      chdirCall(node, o) ??
      sqlFileCall(node, ctx) ??
      (ctx.records ? kubeContext(node, sources) ?? recordLookup(node, sources) : undefined) ??
      (ctx.sockets ? socketNavigation(node) : undefined) ??
      (ctx.ssh ? sshConnect(node, sources) : undefined) ??
      (ctx.ssh ? remoteCommand(node, sources) : undefined) ??
      (ctx.ssh ? fileTransfer(node, sources) : undefined) ??
      stdinWrite(node, sources)
    );
  }
  const args = node.getArguments();
  const call = calleeText(callee);
  const m = last(o);
  switch (kind) {
    case 'shell-exec':
      return { family: 'process', call, launcher: o.module === 'shelljs' ? 'shelljs' : 'child_process', shell: true, parts: [{ kind: 'shell', exprs: args.slice(0, 1) }, ...commandLinePathParts(args[0]), ...clusterLineParts(args[0]), ...cwdParts(args.slice(1, 2), sources), ...stdinParts(args[0], undefined, args.slice(1, 2), sources)] };
    case 'spawn':
      return spawnLike(call, o.module as 'child_process' | 'cross-spawn' | 'execa', args, sources);
    case 'execa': {
      // `$({ shell: true })` only binds options.
      if (args.length === 1 && Node.isObjectLiteralExpression(unwrap(args[0]!))) return undefined;
      if (m === 'execaCommand' || m === 'execaCommandSync') {
        const shell = shellOption(args.slice(1), sources);
        return { family: 'process', call, launcher: 'execa', shell, parts: [{ kind: shell ? 'shell' : 'process', exprs: args.slice(0, 1) }, ...cwdParts(args.slice(1), sources)] };
      }
      return spawnLike(call, 'execa', args, sources);
    }
    case 'eval':
      return { family: 'code', call, parts: [{ kind: 'eval', exprs: m === 'eval' ? args.slice(0, 1) : args }] };
    case 'vm':
      return { family: 'code', call, parts: [{ kind: 'eval', exprs: args.slice(0, 1) }] };
    case 'matter':
      return frontMatterEval(call, args, sources);
    case 'fs':
      return { family: 'fs', call, access: fsAccess(m)!, parts: [{ kind: 'fs', exprs: args.slice(0, TWO_PATHS.test(m) ? 2 : 1) }] };
    case 'connect':
      return connection(call, o, args, sources);
    case 'doc':
      return libraryPaths(call, o, args, sources);
    case 'http': {
      // axios(config), api.request(config), http.request(options): the destination is in the object.
      const obj = args[0] ? objectLiteralOf(args[0], sources) : undefined;
      const dest = obj ? URL_KEYS.map((k) => propertyValue(obj, k)).filter((x): x is Node => !!x) : [];
      return { family: 'http', call, parts: [{ kind: 'http', exprs: obj && dest.length ? dest : args.slice(0, 1) }] };
    }
  }
}

/**
 * gray-matter (4.x, lib/engines.js and lib/engine.js): the language named after the opening delimiter picks the
 * engine (`---js`, `---javascript`, any case), and the default `javascript` engine hands the front matter to
 * `eval`. The text is code unless the options replace that engine (`engines` or `parsers` with a `javascript`
 * key: `js` and the other spellings fall back to it). Options that cannot be read may replace it: no sink then,
 * and so when the options (or their engine table) are an object literal held by a variable the file writes into
 * later (`const opts = {}; opts.engines = …`, `Object.assign(opts, …)`): its literal is not what matter() receives.
 */
function frontMatterEval(call: string, args: Node[], sources: ParsedSources): SinkMatch | undefined {
  const optsArg = args[1];
  if (optsArg) {
    const obj = objectLiteralOf(optsArg, sources);
    if (!obj || writtenLater(optsArg, obj)) return undefined;
    if (obj.getProperties().some((p) => !Node.isPropertyAssignment(p) && !Node.isShorthandPropertyAssignment(p))) return undefined;
    for (const key of ['engines', 'parsers']) {
      const v = propertyValue(obj, key);
      if (!v) continue;
      const table = objectLiteralOf(v, sources);
      if (!table || writtenLater(v, table) || table.getProperties().some((p) => !Node.isPropertyAssignment(p) && !Node.isShorthandPropertyAssignment(p) && !Node.isMethodDeclaration(p))) return undefined;
      if (propertyValue(table, 'javascript')) return undefined;
    }
  }
  return { family: 'code', call, parts: [{ kind: 'eval', exprs: args.slice(0, 1) }] };
}

/**
 * Whether an object literal reached through a variable (`opts`, or the variable whose initializer it is) is written
 * into later in its file (scope objectWrittenLater): the literal then does not say what the object holds.
 */
function writtenLater(ref: Node, obj: Node): boolean {
  const n = unwrap(ref);
  const d = Node.isIdentifier(n) ? declarationOf(n) : undefined;
  if (d && objectWrittenLater(d)) return true;
  const holder = obj.getParent();
  const name = holder && Node.isVariableDeclaration(holder) ? holder.getNameNode() : undefined;
  return !!name && Node.isIdentifier(name) && objectWrittenLater(name);
}

/** A library call (or `new`) that opens a path itself (DOC_MODULES): the operands that hold the path. */
function libraryPaths(call: string, o: Origin, args: Node[], sources: ParsedSources): SinkMatch {
  const d = docAccess(o.module, last(o))!;
  const first = args[0] && objectLiteralOf(args[0], sources) ? undefined : args[0];
  const exprs =
    d.arg === 'cwd' ? [args[0], optionOf(args[1], ['cwd', 'root'], sources)]
    : d.arg === 'path-option' ? [optionOf(args[0], ['path'], sources)]
    : d.arg === 'base-dir' ? [first, optionOf(args[0], ['baseDir'], sources)]
    : d.arg === 'git-dir' ? [optionOf(args[0], ['dir'], sources), optionOf(args[0], ['gitdir'], sources)]
    : d.arg === 'filename' ? [optionOf(args[0], ['filename'], sources)]
    // tar: the archive (`file`/`f`), the folder it works in (`cwd`/`C`), and the entries packed from it.
    : d.arg === 'tar' ? [optionOf(args[0], ['file', 'f'], sources), optionOf(args[0], ['cwd', 'C'], sources), args[1]]
    : d.arg === 'source-and-dir' ? [args[0], optionOf(args[1], ['dir'], sources)]
    : d.arg === 'two' ? [args[0], args[1]]
    : [args[d.arg]];
  return { family: 'fs', call, access: d.access, parts: [{ kind: 'fs', exprs: exprs.filter((x): x is Node => !!x) }] };
}

/** The properties of a connection's options object that decide where it goes. */
const CONNECTION_KEYS = ['connectionString', 'connection', 'uri', 'url', 'browserWSEndpoint', 'browserURL', 'wsEndpoint', 'endpointURL', 'host', 'hostname', 'server', 'address'];

/**
 * An outbound connection that is not an HTTP request (family 'connect'): a database client (`new pg.Client`,
 * `new Pool`, mysql / mysql2 `createConnection` and `createPool`, `new MongoClient`, mongoose `connect`), a
 * WebSocket (`new WebSocket(url)`, global or from ws), a socket (`net.connect`, `tls.connect`,
 * `createConnection`). Its destination: a connection string or URL argument, or the `connectionString`, `uri`,
 * `url`, `host`… of its options object; for net/tls, `connect(port, host)`'s host.
 */
function connection(call: string, o: Origin, args: Node[], sources: ParsedSources): SinkMatch {
  const sockets = o.module === 'net' || o.module === 'tls';
  let dest: Node[] = [];
  const obj = args[0] ? objectLiteralOf(args[0], sources) : undefined;
  if (obj) {
    dest = CONNECTION_KEYS.map((k) => propertyValue(obj, k)).filter((x): x is Node => !!x);
    // Elastic Cloud (`new Client({ cloud: { id } })`): the deployment id says where the client connects.
    const cloud = propertyValue(obj, 'cloud');
    const cloudObj = cloud ? objectLiteralOf(cloud, sources) : undefined;
    const cloudId = cloudObj ? propertyValue(cloudObj, 'id') : cloud;
    if (cloudId) dest.push(cloudId);
  }
  else if (sockets) dest = args.slice(1, 2).filter((a) => !Node.isArrowFunction(unwrap(a)) && !Node.isFunctionExpression(unwrap(a)));
  else dest = args.slice(0, 1);
  return { family: 'connect', call, parts: [{ kind: 'connect', exprs: dest }] };
}

/* ------------------------------------------------------------ remote commands */

/** SSH clients: the command of an exec request is run on the remote host by the remote user's login shell. */
export const SSH_MODULES = ['ssh2', 'node-ssh', 'ssh2-promise', 'simple-ssh', 'ssh2-sftp-client'];
const SSH_MODULE_SET = new Set(SSH_MODULES);
/** Method names a remote command is sent by (see remoteCommand). */
export const REMOTE_COMMAND_NAMES = new Set(['exec', 'execCommand', 'spawn', 'write']);
/**
 * The stream of an interactive remote shell (ssh2 `conn.shell(cb)`, node-ssh `requestShell()`), kept under a name
 * that says so (`this.shell`, `connectionInfo.shell`, `shellStream`, `pty`): a line written to it is read by the
 * remote user's shell as a command.
 */
const SHELL_STREAM = /^(?:shell|pty|term|terminal|ssh_?shell|remote_?shell|interactive_?shell|shell_?stream|pty_?stream|ssh_?stream)$/i;
/** Calls whose result (or callback's stream) is an interactive shell: ssh2 `conn.shell(cb)`, node-ssh / ssh2-promise `requestShell()`, `shell()`. */
const SHELL_OPENERS = /^(?:shell|requestShell)$/;

/**
 * Whether the receiver of a `write` is the stream of an interactive remote shell: its last name is one a shell stream
 * is kept under (SHELL_STREAM, anchored: `empty`, `powershell` are not), and the values it is assigned (a const, a
 * variable, a `this.` field) are the stream of a `.shell()` callback or a `requestShell()` result. A value that is
 * anything else it can read (`createWriteStream(file)`, `new PassThrough()`) is never a shell; a receiver with no value
 * it can read (kept in a Map, passed in) is judged by its name.
 */
function isShellStream(recv: Node, depth = 0): boolean {
  const u = unwrap(recv);
  const last = Node.isPropertyAccessExpression(u) ? u.getName() : Node.isIdentifier(u) ? u.getText() : undefined;
  if (!last || !SHELL_STREAM.test(last)) return false;
  const values = shellValues(u);
  if (!values.length) return true;
  return values.some((v) => opensShell(v, depth)) && !values.some((v) => notShell(v));
}

function shellValues(u: Node): Node[] {
  if (Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression()))) return fieldValues(u).filter((x) => !isNullish(x));
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const p = d?.getParent();
    if (!d || !p) return [];
    if (Node.isParameterDeclaration(p)) return [d];
    if (!Node.isVariableDeclaration(p)) return [];
    const init = p.getInitializer();
    return [...(init ? [init] : []), ...assignedValues(d)].filter((x) => !isNullish(x));
  }
  return [];
}

/** A value that is a shell's stream: `await ssh.requestShell()`, the stream parameter of `conn.shell(opts, (err, stream) => …)`, or a name holding one. */
function opensShell(v: Node, depth: number): boolean {
  if (depth > 4) return false;
  let u = unwrap(v);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (Node.isCallExpression(u)) {
    const c = unwrap(u.getExpression());
    return Node.isPropertyAccessExpression(c) && SHELL_OPENERS.test(c.getName());
  }
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const p = d?.getParent();
    if (p && Node.isParameterDeclaration(p)) {
      const fn = p.getParent();
      const call = fn?.getParent();
      if (!call || !Node.isCallExpression(call)) return false;
      const c = unwrap(call.getExpression());
      return Node.isPropertyAccessExpression(c) && SHELL_OPENERS.test(c.getName());
    }
    if (d && p && Node.isVariableDeclaration(p)) return shellValues(u).some((x) => x !== u && opensShell(x, depth + 1));
  }
  return false;
}

/** A value read as something other than a shell: a call or construction that opens no shell (`createWriteStream(path)`). */
function notShell(v: Node): boolean {
  let u = unwrap(v);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (Node.isNewExpression(u)) return true;
  if (!Node.isCallExpression(u)) return false;
  const c = unwrap(u.getExpression());
  const name = Node.isPropertyAccessExpression(c) ? c.getName() : Node.isIdentifier(c) ? c.getText() : '';
  return !SHELL_OPENERS.test(name);
}
/** A receiver that names an SSH connection, for a client the reading cannot follow (kept in a Map, passed as a parameter). */
const SSH_RECEIVER = /ssh|conn|session|remote|client/i;
const NOT_SSH_RECEIVER = /db|sql|pool|database|redis|regex|pattern|re$/i;

/** The options of an SSH client's `connect` that name the host it connects to (ssh2, node-ssh, ssh2-sftp-client). */
const SSH_HOST_KEYS = ['host', 'hostname', 'sock'];

/** The SSH library (SSH_MODULES) whose client a `x.connect(…)` call is made on, followed through consts, fields and `new`. */
export function sshConnectModule(node: Node, sources: ParsedSources): string | undefined {
  if (!Node.isCallExpression(node)) return undefined;
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'connect') return undefined;
  return recordModuleOf(callee.getExpression(), sources, 0, (m) => SSH_MODULE_SET.has(m));
}

/**
 * An SSH connection (family 'connect'): `conn.connect({ host, port, username })` on an ssh2 `Client`, node-ssh's
 * `NodeSSH` or an ssh2-sftp-client, the receiver followed to the library (consts, fields, `new Client()`); never by
 * the receiver's name alone (`server.connect(transport)` is the MCP SDK's). Its destination: the options' host (or
 * the whole options when they are not written in place).
 */
function sshConnect(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const a0 = node.getArguments()[0];
  if (!a0 || Node.isSpreadElement(a0) || !sshConnectModule(node, sources)) return undefined;
  const callee = unwrap(node.getExpression()) as PropertyAccessExpression;
  const obj = objectLiteralOf(a0, sources);
  const dest = obj ? SSH_HOST_KEYS.map((k) => propertyValue(obj, k)).filter((x): x is Node => !!x) : [a0];
  return { family: 'connect', call: calleeText(callee), parts: [{ kind: 'connect', exprs: dest.length ? dest : [a0] }] };
}

/**
 * A command sent to a remote host over SSH (family 'process', kind 'shell'): the server's sshd hands the exec
 * request's string to the remote user's login shell (`$SHELL -c command`), so a client value in it is a shell
 * command on that host, under the user's identity there. Read in a package that uses an SSH client
 * (SSH_MODULES): `conn.exec(command, [options], callback)` (ssh2), `ssh.execCommand(command)` and
 * `ssh.exec(command, params)` (node-ssh: the command is a shell line, the parameters are quoted),
 * `ssh.exec(command)` / `ssh.spawn(command)` (ssh2-promise), `ssh.exec(command, { out })` (simple-ssh).
 * The receiver is followed to the library's client when it can be (consts, fields, `new Client()`); otherwise
 * the call must have ssh2's callback shape (a function last, two arguments or more) on a receiver named like a
 * connection, or be node-ssh's execCommand. A line written to an interactive shell's stream (`this.shell.write(\`${command}\\n\`)`,
 * SHELL_STREAM) is a command too.
 */
function remoteCommand(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const args = node.getArguments();
  if (!REMOTE_COMMAND_NAMES.has(name) || !args[0] || Node.isSpreadElement(args[0])) return undefined;
  const recv = callee.getExpression();
  if (name === 'write') {
    // A line written to an interactive shell's stream (see SHELL_STREAM), in a package that uses an SSH client.
    if (!isShellStream(recv)) return undefined;
    return { family: 'process', call: calleeText(callee), launcher: 'ssh', shell: true, parts: [{ kind: 'shell', exprs: [args[0]] }] };
  }
  let sure = !!recordModuleOf(recv, sources, 0, (m) => SSH_MODULE_SET.has(m));
  if (!sure && name !== 'spawn') {
    const lastArg = unwrap(args[args.length - 1]!);
    const callback = args.length >= 2 && (Node.isArrowFunction(lastArg) || Node.isFunctionExpression(lastArg));
    const text = recv.getText();
    sure = name === 'execCommand' || (callback && SSH_RECEIVER.test(text) && !NOT_SSH_RECEIVER.test(text));
  }
  if (!sure) return undefined;
  return { family: 'process', call: calleeText(callee), launcher: 'ssh', shell: true, parts: [{ kind: 'shell', exprs: [args[0]] }] };
}

/**
 * File transfers over SSH (SFTP), by method name: the LOCAL path each one reads or writes, on this machine, with
 * the user's permissions (an upload tool reads any file the user can read and sends it away; a download tool
 * writes any path). ssh2's `sftp.fastPut(local, remote)` reads, `sftp.fastGet(remote, local)` writes; node-ssh's
 * `putFile(local, remote)` / `putDirectory(localDir, remoteDir)` read, `getFile(local, remote)` /
 * `getDirectory(localDir, remoteDir)` write; ssh2-sftp-client's `uploadDir(local, remote)` reads,
 * `downloadDir(remote, local)` writes, and `put(local, remote)` / `get(remote, local)` on a receiver named sftp.
 */
export const TRANSFER_NAMES = new Set(['fastPut', 'fastGet', 'putFile', 'getFile', 'putDirectory', 'getDirectory', 'uploadDir', 'downloadDir', 'put', 'get']);
const TRANSFERS: Record<string, { access: FsAccess; arg: number }> = {
  fastPut: { access: 'read', arg: 0 },
  fastGet: { access: 'write', arg: 1 },
  putFile: { access: 'read', arg: 0 },
  putDirectory: { access: 'read', arg: 0 },
  getFile: { access: 'write', arg: 0 },
  getDirectory: { access: 'write', arg: 0 },
  uploadDir: { access: 'read', arg: 0 },
  downloadDir: { access: 'write', arg: 1 },
  put: { access: 'read', arg: 0 },
  get: { access: 'write', arg: 1 },
};
const SFTP_RECEIVER = /sftp/i;
/** Transfer names no common API client uses, accepted on a receiver named like an SSH connection (see fileTransfer). */
const SFTP_ONLY_NAMES = new Set(['fastPut', 'fastGet', 'uploadDir', 'downloadDir']);

function fileTransfer(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const t = TRANSFERS[name];
  const path = t && node.getArguments()[t.arg];
  if (!t || !path || Node.isSpreadElement(path) || Node.isArrowFunction(unwrap(path)) || Node.isFunctionExpression(unwrap(path))) return undefined;
  const recv = callee.getExpression();
  const text = recv.getText();
  const sure = !!recordModuleOf(recv, sources, 0, (m) => SSH_MODULE_SET.has(m) || m === 'ssh2-sftp-client');
  // put/get are common names: only on a receiver that says sftp. ssh2's fastPut/fastGet and ssh2-sftp-client's
  // uploadDir/downloadDir on one named like a connection too. getFile/putFile/get|putDirectory are API clients'
  // names as well (a GitLab client's getFile(project, path)): only on a receiver followed to an SSH module.
  const named =
    name === 'put' || name === 'get'
      ? SFTP_RECEIVER.test(text)
      : SFTP_ONLY_NAMES.has(name) && (SFTP_RECEIVER.test(text) || SSH_RECEIVER.test(text)) && !NOT_SSH_RECEIVER.test(text);
  if (!sure && !named) return undefined;
  return { family: 'fs', call: calleeText(callee), access: t.access, parts: [{ kind: 'fs', exprs: [path] }] };
}

/**
 * A command run in a container through an API client (family 'process'): dockerode `container.exec({ Cmd })`,
 * @kubernetes/client-node `new Exec(kc).exec(namespace, pod, container, command, …)`. The command is a list:
 * its first word, when the code does not write it, chooses the program ('process'); after a shell and `-c`, the
 * rest is a shell line ('shell'). Only on a receiver followed to one of those libraries.
 */
function containerCommand(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'exec') return undefined;
  const args = node.getArguments();
  if (!args.length) return undefined;
  const mod = recordModuleOf(callee.getExpression(), sources, 0, (m) => m === 'dockerode' || m === '@kubernetes/client-node');
  const cmd = mod === 'dockerode' ? optionOf(args[0], ['Cmd'], sources) : mod ? args[3] : undefined;
  if (!cmd) return undefined;
  const u = unwrap(cmd);
  const parts: SinkPart[] = [];
  if (Node.isArrayLiteralExpression(u)) {
    const els = u.getElements();
    const lit = (i: number): string | undefined => (els[i] && !Node.isSpreadElement(els[i]!) ? constString(els[i]!)?.value : undefined);
    const expr = (e: Node): Node => (Node.isSpreadElement(e) ? e.getExpression() : e);
    const head = lit(0);
    if (head === undefined && els[0]) parts.push({ kind: 'process', exprs: [expr(els[0])] });
    else if (head !== undefined && isShellProgram(els[0]) && SHELL_FLAGS.has(lit(1) ?? '')) parts.push({ kind: 'shell', exprs: els.slice(2).map(expr) });
    else if (els.length > 1) parts.push({ kind: 'argument', exprs: [u] });
  } else parts.push({ kind: 'process', exprs: [cmd] });
  return parts.length ? { family: 'process', call: calleeText(callee), launcher: mod === 'dockerode' ? 'docker' : 'kubernetes', parts } : undefined;
}

/* ------------------------------------------------------------ record lookups */

/**
 * Data clients: a call on a client made by one of these modules (a database pool or connection, a Google API
 * service, a Kubernetes API client) reads or writes the records its arguments name (kind 'lookup': a table,
 * a file id, an object name). Only the flows S-25 reads use them (a resource URI turned into a record key).
 */
export const RECORD_MODULES = [
  'pg', 'pg-pool', 'postgres', '@neondatabase/serverless', '@vercel/postgres', 'mysql', 'mysql2', 'mysql2/promise', 'mariadb', 'better-sqlite3', 'sqlite3', 'sqlite',
  'mongodb', 'mongoose', 'redis', 'ioredis', 'knex', '@prisma/client', 'googleapis', '@googleapis/drive', '@googleapis/docs', '@googleapis/sheets', '@kubernetes/client-node',
  '@notionhq/client', '@supabase/supabase-js', 'firebase-admin', '@aws-sdk/client-s3', '@aws-sdk/client-dynamodb',
];
const RECORD_MODULE_SET = new Set(RECORD_MODULES);
export const isRecordModule = (m: string): boolean => RECORD_MODULE_SET.has(m) || m.startsWith('@googleapis/') || m.startsWith('@aws-sdk/client-');

/** The data-client module (or, with `accept`, another library) an expression's value comes from: the library itself, or a client made from it (through consts, fields, `await`, calls on it). */
function isNullish(v: Node): boolean {
  const u = unwrap(v);
  return Node.isNullLiteral(u) || (Node.isIdentifier(u) && u.getText() === 'undefined');
}

function recordModuleOf(expr: Node, sources: ParsedSources, depth = 0, accept: (module: string) => boolean = isRecordModule): string | undefined {
  if (depth > 8) return undefined;
  let u = unwrap(expr);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  const o = originCached(u, sources);
  if (o && accept(o.module)) return o.module;
  if (Node.isCallExpression(u)) {
    // A function of the package that hands out a client (`async function connect() { return mssql.connect(config) }`):
    // the module its returns name, when they name one only.
    const fn = functionOf(u.getExpression(), sources);
    if (fn && isFunctionLike(fn)) return returnedModule(fn, sources, depth, accept);
  }
  if (Node.isCallExpression(u) || Node.isNewExpression(u)) return recordModuleOf(u.getExpression(), sources, depth + 1, accept);
  if (Node.isPropertyAccessExpression(u)) {
    if (Node.isThisExpression(unwrap(u.getExpression()))) {
      // `this.db = null` in the constructor, `this.db = new sqlite3.Database(file)` in init(): the one real value.
      const values = fieldValues(u).filter((x) => !isNullish(x));
      return values.length === 1 ? recordModuleOf(values[0]!, sources, depth + 1, accept) : undefined;
    }
    return recordModuleOf(u.getExpression(), sources, depth + 1, accept);
  }
  if (Node.isElementAccessExpression(u)) return recordModuleOf(u.getExpression(), sources, depth + 1, accept);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const p = d?.getParent();
    // A name destructured from an options parameter with a default (`{ mssql = sqlLib } = {}`): the default is the
    // value every caller that leaves it out gets (tests inject another).
    if (d && p && Node.isBindingElement(p) && p.getNameNode() === d && p.getInitializer() && p.getFirstAncestor((a) => Node.isParameterDeclaration(a))) {
      return recordModuleOf(p.getInitializer()!, sources, depth + 1, accept);
    }
    // The parameter of a callback handed to a helper of the package (`runWrite(pool, async (request) => request.query(sql))`):
    // the value the helper calls it with (`const request = new mssql.Request(pool); return fn(request)`).
    if (d && p && Node.isParameterDeclaration(p)) return callbackArgumentModule(p, sources, depth, accept);
    if (!d || !Node.isVariableDeclaration(p)) return undefined;
    const init = p.getInitializer();
    // `let connection = null; … connection = await connect()`: the values assigned later, when it starts empty.
    if (init && !isNullish(init)) return recordModuleOf(init, sources, depth + 1, accept);
    const values = assignedValues(d).filter((x) => !isNullish(x));
    return values.length >= 1 ? values.map((v) => recordModuleOf(v, sources, depth + 1, accept)).find(Boolean) : undefined;
  }
  return undefined;
}

/**
 * The client module a function of the package returns (`return mssql.connect(config)`, `return pool` with `pool`
 * made by one): every return that gives a value names the same module; a function returning anything else (or two
 * modules) names none.
 */
function returnedModule(fn: Node, sources: ParsedSources, depth: number, accept: (module: string) => boolean): string | undefined {
  if (depth > 6 || !isFunctionLike(fn)) return undefined;
  const body = (fn as unknown as { getBody(): Node | undefined }).getBody();
  if (!body) return undefined;
  const values: Node[] = Node.isBlock(body)
    ? body.getDescendantsOfKind(SyntaxKind.ReturnStatement).filter((r) => r.getFirstAncestor((a) => isFunctionLike(a)) === fn).flatMap((r) => (r.getExpression() ? [r.getExpression()!] : []))
    : [body];
  const named = values.filter((x) => !isNullish(x)).map((x) => recordModuleOf(x, sources, depth + 1, accept));
  const found = new Set(named);
  return named.length && found.size === 1 ? named[0] : undefined;
}

/**
 * The client module of the values a callback's parameter takes: the callback written as an argument of a call to a
 * function of the package (`helper(pool, (request) => …)`), which calls the parameter it receives it in with a value
 * at the same position (`fn(request)`, `await fn(client)`). Every such call names the same module, or none is given.
 */
function callbackArgumentModule(param: Node, sources: ParsedSources, depth: number, accept: (module: string) => boolean): string | undefined {
  if (!Node.isParameterDeclaration(param) || !Node.isIdentifier(param.getNameNode())) return undefined;
  const cb = param.getParent();
  const call = cb?.getParent();
  if (!cb || !(Node.isArrowFunction(cb) || Node.isFunctionExpression(cb)) || !call || !Node.isCallExpression(call)) return undefined;
  const at = call.getArguments().indexOf(cb);
  const index = cb.getParameters().indexOf(param);
  const helper = at >= 0 ? functionOf(call.getExpression(), sources) : undefined;
  const slot = helper?.getParameters()[at];
  if (!helper || !isFunctionLike(helper) || helper === cb || !slot || !Node.isIdentifier(slot.getNameNode())) return undefined;
  const name = slot.getName();
  const found = new Set<string | undefined>();
  for (const c of helper.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = unwrap(c.getExpression());
    if (!Node.isIdentifier(callee) || callee.getText() !== name || declarationOf(callee) !== slot.getNameNode()) continue;
    const a = c.getArguments()[index];
    found.add(a ? recordModuleOf(a, sources, depth + 1, accept) : undefined);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** A method call on a data client (`pool.query(sql)`, `drive.files.get({ fileId })`, `core.readNamespacedPod({ name })`): its arguments. */
function recordLookup(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || node.getArguments().length === 0) return undefined;
  // Building a client (`google.drive({ version })`, `kc.makeApiClient(Api)`) or closing one names no record.
  if (/^(?:connect|end|release|close|on|once|makeApiClient|loadFrom\w*|setCurrentContext|auth|drive|docs|sheets|GoogleAuth|escape\w*|format)$/.test(callee.getName())) return undefined;
  const module = recordModuleOf(callee.getExpression(), sources);
  if (!module) return undefined;
  return { family: 'record', call: calleeText(callee), parts: [{ kind: 'lookup', exprs: node.getArguments() }] };
}

/** KubeConfig methods that choose the cluster a Kubernetes client talks to. */
const KUBE_CONTEXT = /^(?:setCurrentContext|loadFromString|loadFromFile|loadFromOptions|loadFromClusterAndUser)$/;

/** `kc.setCurrentContext(context)`, `kc.loadFromString(yaml)`…: the cluster (its server URL) the client connects to (family 'connect'). */
function kubeContext(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  const a0 = node.getArguments()[0];
  if (!Node.isPropertyAccessExpression(callee) || !a0 || !KUBE_CONTEXT.test(callee.getName())) return undefined;
  if (recordModuleOf(callee.getExpression(), sources) !== '@kubernetes/client-node') return undefined;
  return { family: 'connect', call: calleeText(callee), parts: [{ kind: 'connect', exprs: [a0] }] };
}

/** KubeConfig methods that load or choose the cluster, including the operator's own (`loadFromDefault()`, `loadFromCluster()`). */
export const KUBE_CLUSTER_METHODS = ['setCurrentContext', 'loadFromString', 'loadFromFile', 'loadFromOptions', 'loadFromClusterAndUser', 'loadFromDefault', 'loadFromCluster'];
const KUBE_CLUSTER = new RegExp(`^(?:${KUBE_CLUSTER_METHODS.join('|')})$`);

/** A call on a @kubernetes/client-node KubeConfig that sets the cluster its clients connect to (S-10 reads its destination). */
export function kubeClusterCall(node: Node, sources: ParsedSources): boolean {
  if (!Node.isCallExpression(node)) return false;
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !KUBE_CLUSTER.test(callee.getName())) return false;
  return recordModuleOf(callee.getExpression(), sources, 0, (m) => m === '@kubernetes/client-node') === '@kubernetes/client-node';
}

const SOCKET_NAVIGATION = /navigat|goto|open_?(?:url|page|tab)|visit/i;

/** The `url` of an object literal argument, or of one given to JSON.stringify. */
export function urlArgument(args: Node[]): Node | undefined {
  for (const a of args) {
    let u = unwrap(a);
    if (Node.isCallExpression(u) && /^JSON\.stringify$/.test(u.getExpression().getText()) && u.getArguments()[0]) u = unwrap(u.getArguments()[0]!);
    if (Node.isObjectLiteralExpression(u)) {
      const url = propertyValue(u, 'url');
      if (url) return url;
      const nested = u.getProperties().map((p) => (Node.isPropertyAssignment(p) ? unwrap(p.getInitializerOrThrow()) : undefined)).find((v) => v && Node.isObjectLiteralExpression(v) && propertyValue(v, 'url'));
      if (nested && Node.isObjectLiteralExpression(nested)) return propertyValue(nested, 'url');
    }
  }
  return undefined;
}

/**
 * A navigation sent over a socket to a browser (an extension bridge): a call whose arguments name a navigation
 * (`'browser_navigate'`, `{ type: 'navigate', url }`) and carry a `url`: `send('browser_navigate', { url })`,
 * `ws.send(JSON.stringify({ type: 'navigate', url }))`. Only asked when the package opens WebSockets.
 */
function socketNavigation(node: CallExpression): SinkMatch | undefined {
  const args = node.getArguments();
  if (!args.length) return undefined;
  const url = urlArgument(args);
  if (!url) return undefined;
  const named = args.some((a) => {
    const s = constString(unwrap(a))?.value;
    if (s !== undefined) return SOCKET_NAVIGATION.test(s);
    let u = unwrap(a);
    if (Node.isCallExpression(u) && u.getArguments()[0]) u = unwrap(u.getArguments()[0]!);
    if (!Node.isObjectLiteralExpression(u)) return false;
    return ['type', 'action', 'method', 'command', 'name', 'op'].some((k) => SOCKET_NAVIGATION.test(constString(propertyValue(u as never, k))?.value ?? ''));
  });
  if (!named) return undefined;
  const callee = unwrap(node.getExpression());
  // A log line that mentions a navigation is not one.
  if (/^(?:log|info|debug|warn|warning|error|trace|fatal|emit)$/.test(Node.isPropertyAccessExpression(callee) ? callee.getName() : callee.getText())) return undefined;
  return { family: 'browser', call: calleeText(callee), parts: [{ kind: 'navigate', exprs: [url] }] };
}

/* ---------------------------------------------- document and image libraries */

/**
 * Libraries that open a path themselves (X-5's "common wrappers"): spreadsheets (xlsx, exceljs), images (sharp),
 * Word documents (mammoth), and globbing (glob, fast-glob, globby, tinyglobby: the pattern and the `cwd`).
 */
export const DOC_MODULES = new Set([
  'xlsx', 'sharp', 'mammoth', 'glob', 'fast-glob', 'globby', 'tinyglobby', 'simple-git', 'isomorphic-git',
  'better-sqlite3', 'sqlite3', 'sqlite', 'duckdb', 'adm-zip', 'tar', 'extract-zip', 'decompress',
]);
/** isomorphic-git commands: each takes `{ fs, dir }` and reads or writes the repository in `dir`. */
const ISO_GIT = /^(?:add|addNote|branch|checkout|clone|commit|currentBranch|deleteBranch|fetch|findRoot|getRemoteInfo|init|listBranches|listFiles|listTags|log|merge|pull|push|readBlob|readCommit|readTree|remove|resetIndex|resolveRef|status|statusMatrix|tag|walk|writeBlob|writeRef)$/;
const GLOB_NAMES = /^(?:|glob|globSync|sync|async|globby|globbySync|globStream|stream|globIterate|globIterateSync)$/;

/**
 * What a document library's function does to a path, and which argument holds it (an index, a `path` option, the
 * glob's pattern and `cwd`, a repository folder: simple-git's `simpleGit(dir)` / `simpleGit({ baseDir })`,
 * isomorphic-git's `{ dir, gitdir }`).
 */
type LibraryArg = number | 'path-option' | 'cwd' | 'base-dir' | 'git-dir' | 'filename' | 'tar' | 'source-and-dir' | 'two';
function docAccess(mod: string, m: string): { access: FsAccess; arg: LibraryArg } | undefined {
  // Database files (`new Database(file)`, `new sqlite3.Database(file)`, sqlite's `open({ filename })`, DuckDB).
  if (mod === 'better-sqlite3') return /^(?:|Database)$/.test(m) ? { access: 'read', arg: 0 } : undefined;
  if (mod === 'sqlite3' || mod === 'duckdb') return m === 'Database' ? { access: 'read', arg: 0 } : undefined;
  if (mod === 'sqlite') return m === 'open' ? { access: 'read', arg: 'filename' } : undefined;
  // Archives: `new AdmZip(file)`, tar's x/c/t/r/u (`tar.x({ file, cwd })`), extract-zip (`extract(src, { dir })`), decompress(src, dest).
  if (mod === 'adm-zip') return m === '' ? { access: 'read', arg: 0 } : undefined;
  if (mod === 'tar') return /^(?:x|extract|c|create|r|replace|u|update)$/.test(m) ? { access: 'write', arg: 'tar' } : /^(?:t|list)$/.test(m) ? { access: 'read', arg: 'tar' } : undefined;
  if (mod === 'extract-zip') return m === '' ? { access: 'write', arg: 'source-and-dir' } : undefined;
  if (mod === 'decompress') return m === '' ? { access: 'write', arg: 'two' } : undefined;
  if (mod === 'simple-git') return /^(?:|simpleGit|gitP|default)$/.test(m) ? { access: 'write', arg: 'base-dir' } : undefined;
  if (mod === 'isomorphic-git') return ISO_GIT.test(m) ? { access: m === 'log' || /^(?:read|list|resolve|status|current|find|get|walk)/.test(m) ? 'read' : 'write', arg: 'git-dir' } : undefined;
  if (mod === 'xlsx') return /^(?:readFile|readFileSync)$/.test(m) ? { access: 'read', arg: 0 } : /^(?:writeFile|writeFileSync|writeFileAsync|writeFileXLSX)$/.test(m) ? { access: 'write', arg: 1 } : undefined;
  if (mod === 'sharp') return m === '' ? { access: 'read', arg: 0 } : undefined;
  if (mod === 'mammoth') return /^(?:extractRawText|convertToHtml|convertToMarkdown)$/.test(m) ? { access: 'read', arg: 'path-option' } : undefined;
  return GLOB_NAMES.test(m) ? { access: 'read', arg: 'cwd' } : undefined;
}

/** A property of an options object argument (`{ cwd: dir }`), when it can be read. */
function optionOf(arg: Node | undefined, keys: string[], sources: ParsedSources): Node | undefined {
  const obj = arg ? objectLiteralOf(arg, sources) : undefined;
  for (const k of keys) {
    const v = obj && propertyValue(obj, k);
    if (v) return v;
  }
  return undefined;
}

/**
 * Document calls made on instances the origin reading does not follow: exceljs `workbook.xlsx.readFile(p)` /
 * `.csv.writeFile(p)` (in a file that imports exceljs), and sharp's `sharp(input)….toFile(out)`.
 */
function documentCall(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const args = node.getArguments();
  if (!args[0]) return undefined;
  if (/^(?:readFile|writeFile|read|write)$/.test(name)) {
    const recv = unwrap(callee.getExpression());
    if (!Node.isPropertyAccessExpression(recv) || !/^(?:xlsx|csv)$/.test(recv.getName())) return undefined;
    if (!namesAnyModule(node.getSourceFile(), ['exceljs'])) return undefined;
    // `.read(stream)` / `.write(stream)` take streams; only the file forms take a path.
    if (name === 'read' || name === 'write') return undefined;
    return { family: 'fs', call: calleeText(callee), access: name === 'readFile' ? 'read' : 'write', parts: [{ kind: 'fs', exprs: [args[0]] }] };
  }
  if (name === 'toFile') {
    let inner: Node = unwrap(callee.getExpression());
    for (let i = 0; i < 16 && Node.isCallExpression(inner); i++) {
      const c = unwrap(inner.getExpression());
      const o = originCached(c, sources);
      if (o?.module === 'sharp' && o.path.length === 0) return { family: 'fs', call: calleeText(callee), access: 'write', parts: [{ kind: 'fs', exprs: [args[0]] }] };
      if (!Node.isPropertyAccessExpression(c)) return undefined;
      inner = unwrap(c.getExpression());
    }
  }
  return undefined;
}

/**
 * Methods of a library's instances that take a path, by module: adm-zip (`zip.extractAllTo(dir)`,
 * `writeZip(file)`, `addLocalFile(file)`…), archiver (`archive.directory(dir)`, `archive.file(file)`),
 * better-sqlite3 (`db.backup(file)`, `loadExtension(file)`); the position of the path.
 */
const INSTANCE_PATH_METHODS: Record<string, Record<string, { access: FsAccess; arg: number }>> = {
  'adm-zip': {
    extractAllTo: { access: 'write', arg: 0 },
    extractAllToAsync: { access: 'write', arg: 0 },
    extractEntryTo: { access: 'write', arg: 1 },
    writeZip: { access: 'write', arg: 0 },
    writeZipPromise: { access: 'write', arg: 0 },
    addLocalFile: { access: 'read', arg: 0 },
    addLocalFolder: { access: 'read', arg: 0 },
    addLocalFolderAsync: { access: 'read', arg: 0 },
    addLocalFolderPromise: { access: 'read', arg: 0 },
  },
  archiver: { directory: { access: 'read', arg: 0 }, file: { access: 'read', arg: 0 } },
  'better-sqlite3': { backup: { access: 'write', arg: 0 }, loadExtension: { access: 'read', arg: 0 } },
  sqlite3: { loadExtension: { access: 'read', arg: 0 } },
  // simple-git's working folder, set after the instance is made (`simpleGit().cwd(dir)`, `this.git.cwd({ path: dir })`).
  'simple-git': { cwd: { access: 'write', arg: 0 } },
};
const INSTANCE_PATH_METHOD_NAMES = new Set(Object.values(INSTANCE_PATH_METHODS).flatMap((t) => Object.keys(t)));

/**
 * The images of an Ollama generation (`ollama.generate({ model, prompt, images })`, on the default export or a `new
 * Ollama()` instance): the Node entry of the ollama library reads each string that names an existing file
 * (`encodeImage`: `fs.existsSync(image)` then `promises.readFile(resolve(image))`, ollama 0.6.4) and sends it to the
 * model server, so an image path from the client is a file read.
 */
function modelImages(node: CallExpression, sources: ParsedSources, o: Origin | undefined): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'generate') return undefined;
  const ollama = (o?.module === 'ollama' && last(o) === 'generate') || recordModuleOf(callee.getExpression(), sources, 0, (m) => m === 'ollama') === 'ollama';
  // Bytes made in the code (`[Buffer.from(b64, 'base64')]`, `new Uint8Array(…)`) are sent as they are: only the other elements.
  const images = (ollama ? optionValues(node.getArguments()[0], 'images', sources) : []).flatMap((e) => {
    const u = unwrap(e);
    return Node.isArrayLiteralExpression(u) ? u.getElements().filter((x) => !Node.isCallExpression(unwrap(x)) && !Node.isNewExpression(unwrap(x))) : [e];
  });
  return images.length ? { family: 'fs', call: calleeText(callee), access: 'read', parts: [{ kind: 'fs', exprs: images }] } : undefined;
}

/** `process.chdir(dir)`: the server's own working folder, where its relative paths and the programs it starts then land. */
function chdirCall(node: CallExpression, o: Origin | undefined): SinkMatch | undefined {
  const path = o ? (o.module === GLOBAL ? o.path.join('.') : o.module === 'process' ? `process.${o.path.join('.')}` : '') : '';
  const dir = node.getArguments()[0];
  return path === 'process.chdir' && dir ? { family: 'fs', call: 'process.chdir', access: 'write', parts: [{ kind: 'fs', exprs: [dir] }] } : undefined;
}

/** A path-taking method called on an instance of one of INSTANCE_PATH_METHODS' libraries (through consts, fields, `await`). */
function libraryMethodCall(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !INSTANCE_PATH_METHOD_NAMES.has(callee.getName())) return undefined;
  const mod = recordModuleOf(callee.getExpression(), sources, 0, (m) => m in INSTANCE_PATH_METHODS);
  const d = mod ? INSTANCE_PATH_METHODS[mod]![callee.getName()] : undefined;
  const path = d && node.getArguments()[d.arg];
  if (!d || !path) return undefined;
  return { family: 'fs', call: calleeText(callee), access: d.access, parts: [{ kind: 'fs', exprs: [path] }] };
}

/**
 * Methods that send SQL text (node-postgres, mysql, better-sqlite3, sqlite3, sqlite, pg-promise, postgres's unsafe, knex
 * raw, mssql's request.batch). `batch` counts as a whole statement only on a receiver followed to a SQL client's module
 * (see wholeStatement: a receiver only named like one keeps the short list).
 */
const SQL_METHODS = /^(?:query|exec|execute|run|all|get|each|prepare|raw|unsafe|none|one|oneOrNone|many|manyOrNone|any|result|multi|batch)$/;

/**
 * SQL text that makes the database read or write a file at a path from a value (see facts/file-arguments):
 * `query(\`COPY t TO '${file}'\`)`, `'… pg_read_file(' + p + ')'`, or a placeholder there whose parameter is
 * the value (`query('SELECT pg_read_file($1)', [p])`), in a package that uses a database client. The SQL written
 * in place or in a local const. Besides the
 * data client's own record lookup (S-25), the path is a part of kind 'fs'.
 */
function sqlFileCall(node: CallExpression, ctx: SinkContext): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  const args = node.getArguments();
  if (!Node.isPropertyAccessExpression(callee) || !SQL_METHODS.test(callee.getName()) || !args[0]) return undefined;
  // Only in a package that talks to a database (a data client in its manifest or code, or DuckDB).
  if (!ctx.records && !ctx.sql && !namesAnyModule(node.getSourceFile(), ['duckdb', '@duckdb/node-api'])) return undefined;
  // A call on a prepared statement (`db.prepare('… ?').get(k)`, `stmt.run(a, b)`, mysql2's `stmt.execute(values)`):
  // its arguments are bound values, never SQL text; the statement is the `prepare(...)` call's own first argument.
  if (preparedStatement(callee.getExpression())) return undefined;
  let sql = unwrap(args[0]);
  if (Node.isIdentifier(sql)) {
    const d = declarationOf(sql);
    const init = d ? initializerOf(d) : undefined;
    if (init) sql = unwrap(init);
  }
  const paths: Node[] = [];
  let access: FsAccess | undefined;
  const note = (a: FsAccess): void => {
    access = access === 'write' || a === 'write' ? 'write' : 'read';
  };
  const literal = constString(sql)?.value;
  if (literal !== undefined) {
    const params = args[1] ? unwrap(args[1]) : undefined;
    for (const ph of sqlFilePlaceholders(literal)) {
      const elements = params && Node.isArrayLiteralExpression(params) ? params.getElements() : undefined;
      const named = ph.name && params ? optionOf(params, [ph.name], ctx.sources) : undefined;
      const p = named ?? (ph.position !== undefined && elements ? elements[ph.position] : params);
      if (p) {
        paths.push(p);
        note(ph.access);
      }
    }
  } else {
    for (const { before, expr } of sqlPieces(sql)) {
      const a = sqlFileBefore(before);
      if (a) {
        paths.push(expr);
        note(a);
      }
    }
  }
  const stmt = ctx.sql && literal === undefined ? wholeStatement(sql, args[0], callee, ctx.sources) : undefined;
  const whole = stmt?.expr;
  const sqlPart: SinkPart[] = whole ? [{ kind: 'sql', exprs: [whole] }] : [];
  if (!paths.length || !access) {
    if (!whole) return undefined;
    const rec = ctx.records ? recordLookup(node, ctx.sources) : undefined;
    const ro = { ...(readOnlyBefore(node) || readOnlyPool(node) ? { readOnly: true } : {}), ...(stmt?.unresolved ? { sqlUnresolved: true } : {}), ...(stmt?.server ? { sqlServer: true } : {}) };
    return rec ? { ...rec, ...ro, parts: [...rec.parts, ...sqlPart] } : { family: 'record', call: calleeText(callee), ...ro, parts: sqlPart };
  }
  const fsPart: SinkPart = { kind: 'fs', exprs: paths };
  const rec = ctx.records ? recordLookup(node, ctx.sources) : undefined;
  const un = { ...(stmt?.unresolved ? { sqlUnresolved: true } : {}), ...(stmt?.server ? { sqlServer: true } : {}) };
  return rec ? { ...rec, ...un, access, parts: [...rec.parts, fsPart, ...sqlPart] } : { family: 'fs', call: calleeText(callee), ...un, access, parts: [fsPart, ...sqlPart] };
}

/**
 * SQL Server's driver tedious takes the statement in its request's constructor (`new Request(sql, callback)`, run
 * later by `connection.execSql(request)`): a whole statement from a value is a part of kind 'sql' on a database
 * server's client (Flow.sqlServer), as a `query(sql)` call is; written SQL text with a file's path put in it
 * (`BULK INSERT t FROM '${file}'`, `OPENROWSET(BULK '${file}', …)`) a part of kind 'fs'. A statement written in the
 * code (`new Request('SELECT … @id', cb)` with `request.addParameter('id', …)`) is neither.
 */
function tediousRequest(node: Node, call: string, first: Node, ctx: SinkContext): SinkMatch | undefined {
  let sql = unwrap(first);
  if (Node.isIdentifier(sql)) {
    const d = declarationOf(sql);
    const init = d ? initializerOf(d) : undefined;
    if (init) sql = unwrap(init);
  }
  if (constString(sql) !== undefined) return undefined;
  const paths: Node[] = [];
  let access: FsAccess | undefined;
  for (const { before, expr } of sqlPieces(sql)) {
    const a = sqlFileBefore(before);
    if (!a) continue;
    paths.push(expr);
    access = access === 'write' || a === 'write' ? 'write' : 'read';
  }
  let whole: Node | undefined;
  if (ctx.sql && !Node.isNumericLiteral(sql) && !Node.isObjectLiteralExpression(sql) && !Node.isArrayLiteralExpression(sql)) {
    const pieces = piecesOf(sql);
    const lead = pieces?.find((p) => !('text' in p) || p.text.trim() !== '');
    whole = pieces ? (lead && !('text' in lead) ? lead.expr : undefined) : first;
  }
  const parts: SinkPart[] = [...(paths.length && access ? [{ kind: 'fs' as const, exprs: paths }] : []), ...(whole ? [{ kind: 'sql' as const, exprs: [whole] }] : [])];
  if (!parts.length) return undefined;
  return paths.length && access ? { family: 'fs', call, access, sqlServer: true, parts } : { family: 'record', call, sqlServer: true, parts };
}

/** SQL database clients: a statement they run may make the database read or write a file (COPY, pg_read_file, ATTACH…). */
export const SQL_MODULES = [
  'pg', 'pg-pool', 'pg-promise', 'postgres', '@neondatabase/serverless', '@vercel/postgres', 'mysql', 'mysql2', 'mysql2/promise', 'mariadb',
  'better-sqlite3', 'sqlite3', 'sqlite', '@libsql/client', 'knex', 'mssql', 'tedious', 'duckdb', '@duckdb/node-api',
];
const SQL_MODULE_SET = new Set(SQL_MODULES);
/** Clients of database servers, where a plain SELECT can read or write files (see Flow.sqlServer). */
export const SERVER_SQL_MODULES = new Set([
  'pg', 'pg-pool', 'pg-promise', 'postgres', '@neondatabase/serverless', '@vercel/postgres', 'mysql', 'mysql2', 'mysql2/promise', 'mariadb', 'mssql', 'tedious',
]);

/**
 * The SQL client module of the value an expression names, when it is made by one (`new pg.Pool()`, `await
 * pool.connect()` on it, `mysql.createPool()`), followed through local declarations (recordModuleOf).
 */
export function sqlModuleOf(expr: Node, sources: ParsedSources): string | undefined {
  return recordModuleOf(expr, sources, 0, (m) => SQL_MODULE_SET.has(m));
}

/**
 * The parameter a SQL call's receiver comes from, in the function the call is written in: `client.query(sql)` with
 * `const client = await pool.connect()` and `pool` a parameter (`handleQuery(pool, sql)`), or `pool.query(sql)` on
 * the parameter itself; followed through local declarations, at most 4 steps. Undefined for anything else.
 */
export function sqlReceiverParam(sink: Node): { fn: Node; index: number } | undefined {
  if (!Node.isCallExpression(sink)) return undefined;
  const callee = unwrap(sink.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  let u: Node = unwrap(callee.getExpression());
  for (let i = 0; i < 6; i++) {
    while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
    if (Node.isCallExpression(u) && Node.isPropertyAccessExpression(unwrap(u.getExpression()))) {
      u = unwrap((unwrap(u.getExpression()) as PropertyAccessExpression).getExpression());
      continue;
    }
    if (!Node.isIdentifier(u)) return undefined;
    const p = declarationOf(u)?.getParent();
    if (p && Node.isParameterDeclaration(p)) {
      const fn = p.getParent();
      if (!fn || !Node.isFunctionLikeDeclaration(fn)) return undefined;
      return { fn, index: fn.getParameters().indexOf(p) };
    }
    const init = p && Node.isVariableDeclaration(p) ? p.getInitializer() : undefined;
    if (!init) return undefined;
    u = unwrap(init);
  }
  return undefined;
}
/** Names a SQL client is usually held in, when its module cannot be followed (a client passed as a parameter or imported from a helper module). */
const SQL_RECEIVER = /^(?:db|database|client|pool|conn|connection|sql|pg|knex|trx|tx|transaction|sqlite|mysql|postgres|duckdb)$|(?:db|client|pool|conn(?:ection)?|database|sqlite|sql)$/i;

/** A statement that begins a read-only transaction (PostgreSQL, MySQL). */
const READ_ONLY_SQL = /^\s*(?:BEGIN|START\s+TRANSACTION|SET\s+(?:SESSION\s+)?(?:TRANSACTION|CHARACTERISTICS\s+AS\s+TRANSACTION))\b[^;]*\bREAD\s+ONLY\b/i;
/**
 * Where, in a function, literal statements begin a read-only transaction: each one's start and the block it is
 * written in (start, end), memoised per function.
 */
const readOnlyMemo = new WeakMap<object, { at: number; from: number; to: number }[]>();

/** Does the function around a call begin a read-only transaction, in a literal statement, before it and in a block that holds it (not another branch)? */
function readOnlyBefore(call: CallExpression): boolean {
  const fn = call.getFirstAncestor((a) => Node.isFunctionDeclaration(a) || Node.isFunctionExpression(a) || Node.isArrowFunction(a) || Node.isMethodDeclaration(a));
  if (!fn) return false;
  let at = readOnlyMemo.get(fn.compilerNode);
  if (!at) {
    at = [];
    const found = at;
    const visit = (n: ts.Node): void => {
      if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && READ_ONLY_SQL.test(n.text)) {
        let b: ts.Node | undefined = n.parent;
        while (b && !ts.isBlock(b) && b !== fn.compilerNode) b = b.parent;
        if (b) found.push({ at: n.getStart(), from: b.getStart(), to: b.getEnd() });
      }
      ts.forEachChild(n, visit);
    };
    visit(fn.compilerNode);
    readOnlyMemo.set(fn.compilerNode, at);
  }
  const start = call.getStart();
  return at.some((p) => p.at < start && p.from <= start && call.getEnd() <= p.to);
}

/** A connection option that makes every transaction of a PostgreSQL session read-only (`options: '-c default_transaction_read_only=on'`). */
const READ_ONLY_OPTION = /\bdefault_transaction_read_only\s*=\s*(?:on|true|1|yes)\b/i;
/** Per file: the declarations of pools whose `on('connect', …)` hook makes the session read-only (a literal READ_ONLY_SQL). */
const readOnlyHooks = new WeakMap<object, Set<ts.Node>>();

/**
 * Is the call's receiver a pool or client made read-only for every session: made (`new pg.Pool({ … })`, a factory call)
 * with a read-only `options` string, or given a `pool.on('connect', (c) => c.query('SET SESSION CHARACTERISTICS AS
 * TRANSACTION READ ONLY'))` hook in the file that declares it. Only a receiver named by a local const or variable.
 */
function readOnlyPool(call: CallExpression): boolean {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return false;
  const recv = unwrap(callee.getExpression());
  if (!Node.isIdentifier(recv)) return false;
  const d = declarationOf(recv);
  if (!d) return false;
  const init = initializerOf(d);
  let made = init && unwrap(init);
  while (made && Node.isAwaitExpression(made)) made = unwrap(made.getExpression());
  if (made && (Node.isNewExpression(made) || Node.isCallExpression(made))) {
    for (const a of made.getArguments()) {
      const o = unwrap(a);
      if (!Node.isObjectLiteralExpression(o)) continue;
      const opt = o.getProperty('options');
      const v = opt && Node.isPropertyAssignment(opt) ? constString(opt.getInitializer())?.value : undefined;
      if (v !== undefined && READ_ONLY_OPTION.test(v)) return true;
    }
  }
  const sf = d.getSourceFile();
  let hooked = readOnlyHooks.get(sf.compilerNode);
  if (!hooked) {
    const found = new Set<ts.Node>();
    hooked = found;
    if (/\bREAD\s+ONLY\b/i.test(sf.getFullText())) {
      const visit = (n: ts.Node): void => {
        if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'on' && ts.isIdentifier(n.expression.expression)) {
          const [ev, fn] = n.arguments;
          if (ev && (ts.isStringLiteral(ev) || ts.isNoSubstitutionTemplateLiteral(ev)) && ev.text === 'connect' && fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && hasReadOnlyLiteral(fn)) {
            const id = wrapNode(sf, n.expression.expression);
            const owner = Node.isIdentifier(id) ? declarationOf(id) : undefined;
            if (owner) found.add(owner.compilerNode);
          }
        }
        ts.forEachChild(n, visit);
      };
      ts.forEachChild(sf.compilerNode, visit);
    }
    readOnlyHooks.set(sf.compilerNode, hooked);
  }
  return hooked.has(d.compilerNode);
}

function hasReadOnlyLiteral(fn: ts.Node): boolean {
  let hit = false;
  const visit = (n: ts.Node): void => {
    if (hit) return;
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && READ_ONLY_SQL.test(n.text)) hit = true;
    else ts.forEachChild(n, visit);
  };
  visit(fn);
  return hit;
}

/** Methods that make a prepared statement from SQL text (better-sqlite3, sqlite3, sqlite, mysql2, node-postgres-like wrappers). */
const STATEMENT_MAKERS = /^(?:prepare|prepareStatement|prepareAsync)$/;
/** better-sqlite3 Statement methods that return the statement itself (`db.prepare(sql).pluck().get(k)`), and sqlite3's `bind`. */
const STATEMENT_CHAIN = /^(?:pluck|raw|expand|columns|bind|safeIntegers)$/;

/**
 * Is the value a prepared statement: the result of a `prepare(...)` call (awaited or not, through a local const or
 * a class field, and better-sqlite3's chaining methods)? Its run/get/all/execute calls take bound values.
 */
function preparedStatement(expr: Node, depth = 0): boolean {
  if (depth > 4) return false;
  let u = unwrap(expr);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (Node.isCallExpression(u)) {
    const c = unwrap(u.getExpression());
    if (!Node.isPropertyAccessExpression(c)) return false;
    if (STATEMENT_MAKERS.test(c.getName())) return true;
    return STATEMENT_CHAIN.test(c.getName()) && preparedStatement(c.getExpression(), depth + 1);
  }
  if (Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression()))) {
    const values = fieldValues(u);
    return values.length > 0 && values.every((v) => preparedStatement(v, depth + 1));
  }
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d ? initializerOf(d) : undefined;
    return !!init && preparedStatement(init, depth + 1);
  }
  return false;
}

/** Is the value made in the code by `new` or a factory function (a local const's or a class field's value), rather than received? */
function madeHere(receiver: Node): boolean {
  const made = (v: Node | undefined): boolean => {
    let u = v && unwrap(v);
    while (u && Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
    // A method call (`await pool.connect()`, `pool.getConnection()`) hands out a client of what it is called on: not this.
    return !!u && (Node.isNewExpression(u) || (Node.isCallExpression(u) && Node.isIdentifier(unwrap(u.getExpression()))));
  };
  if (Node.isPropertyAccessExpression(receiver) && Node.isThisExpression(unwrap(receiver.getExpression()))) return fieldValues(receiver).some(made);
  if (Node.isIdentifier(receiver)) {
    const d = declarationOf(receiver);
    return !!d && made(initializerOf(d));
  }
  return false;
}

/**
 * The value that is the whole statement sent to a SQL client, when nothing of it is written in the code: an
 * identifier that is not a local const with a literal or template, a property (`args.sql`), a call's result, or a
 * template (or `+` chain) whose first piece is a value (`\`${args.sql}\``). A statement written in the code with
 * values put in it (`SELECT * FROM ${table}`) is not one: its values are read by the path placeholders above.
 */
function wholeStatement(sql: Node, arg: Node, callee: Node, sources: ParsedSources): { expr: Node; unresolved: boolean; server: boolean } | undefined {
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const receiver = unwrap(callee.getExpression());
  const module = recordModuleOf(receiver, sources, 0, (m) => SQL_MODULE_SET.has(m));
  // Without a followed module the receiver's name is no evidence of SQL (an HTTP API client's `client.query(apl)`
  // in a package that also keeps a SQLite cache): such a statement is marked unresolved, could-not-judge at most
  // (X-5), never red — unless the file the call is written in imports a SQL client itself (a pool made by a factory
  // function or held in a field also set to null, in the module that wraps the library).
  const unresolved = !module && !namesAnyModule(callee.getSourceFile(), SQL_MODULES);
  // A server's client: the receiver's module, or (not followed) the one the call's file imports, when it names no other kind.
  const server = module ? SERVER_SQL_MODULES.has(module) : !unresolved && namesAnyModule(callee.getSourceFile(), SERVER_SQL_MODULES) && !namesAnyModule(callee.getSourceFile(), SQL_MODULES.filter((m) => !SERVER_SQL_MODULES.has(m)));
  if (!module) {
    // The module is not followed: a receiver named like a SQL client (`db`, `this.pool`, `client`), called with a
    // method that sends a statement under every client (not `get`, `one`, `any`: a key-value store's names too).
    const name = Node.isPropertyAccessExpression(receiver) ? receiver.getName() : Node.isIdentifier(receiver) ? receiver.getText() : '';
    if (!SQL_RECEIVER.test(name) || !/^(?:query|execute|exec|unsafe|raw|prepare|run|all|each|multi)$/.test(callee.getName())) return undefined;
    // …that is not known to come from another library (a regex, a map, a process).
    const o = originCached(receiver, sources);
    if (o && o.module !== GLOBAL && !SQL_MODULE_SET.has(o.module)) return undefined;
    // …nor made here by something else (`new SqliteDatabase(file)`, a class of the package whose methods are followed).
    if (madeHere(receiver)) return undefined;
  }
  if (Node.isStringLiteral(sql) || Node.isNoSubstitutionTemplateLiteral(sql) || Node.isNumericLiteral(sql) || Node.isObjectLiteralExpression(sql) || Node.isArrayLiteralExpression(sql)) return undefined;
  const pieces = piecesOf(sql);
  if (pieces) {
    const first = pieces.find((p) => !('text' in p) || p.text.trim() !== '');
    return first && !('text' in first) ? { expr: first.expr, unresolved, server } : undefined;
  }
  return { expr: arg, unresolved, server };
}

/** The values put into a SQL text, each with the text written before it (a template's spans, a `+` chain's operands). */
function sqlPieces(n: Node): { before: string; expr: Node }[] {
  const pieces = piecesOf(unwrap(n));
  if (!pieces) return [];
  let text = '';
  const out: { before: string; expr: Node }[] = [];
  for (const p of pieces) {
    if ('text' in p) text += p.text;
    else {
      out.push({ before: text, expr: p.expr });
      text += '\u0000';
    }
  }
  return out;
}

/** The properties of a request's options object that decide where it goes. */
const URL_KEYS = ['url', 'baseURL', 'prefixUrl', 'host', 'hostname', 'path'];

/**
 * Methods that run a script in the page (puppeteer, playwright: `page.evaluate(script)`, `evaluateHandle`,
 * `evaluateOnNewDocument`, `addInitScript`, `addScriptTag({ content })`; selenium `driver.executeScript`,
 * `executeAsyncScript`): given the client's text as the script, that text runs as JavaScript with the page's
 * authority (its cookies and sessions) — code execution, as eval.
 */
const PAGE_SCRIPT_NAMES = ['evaluate', 'evaluateHandle', 'evaluateOnNewDocument', 'addInitScript', 'addScriptTag', 'executeScript', 'executeAsyncScript'];
const PAGE_RECEIVER = /page|frame|tab|driver|browser|context|locator|element|handle|^p$|^el$/i;
/** Receivers whose page function takes the element first (`locator.evaluate((element, arg) => …, arg)`, `handle.evaluate((el, …args) => …)`). */
const ELEMENT_RECEIVER = /locator|element|handle|^el$/i;

/** Modules that drive a browser: a navigation they make is an outbound request. */
export const BROWSER_MODULES = [
  'playwright', 'playwright-core', '@playwright/test', 'playwright-chromium', 'playwright-firefox', 'playwright-webkit',
  'puppeteer', 'puppeteer-core', 'chrome-remote-interface', 'selenium-webdriver', 'webdriverio',
  // Drivers over them: Stagehand's page is playwright's, the -extra wrappers and patchright re-export their launchers.
  '@browserbasehq/stagehand', 'puppeteer-extra', 'playwright-extra', 'patchright', 'patchright-core',
];
/** Method names a navigation or a script run in the page is called by (see navigation()). */
export const NAVIGATION_NAMES = new Set(['goto', 'navigate', 'send', 'get', 'to', ...PAGE_SCRIPT_NAMES]);

/**
 * A browser navigation, read by name (the page object comes from the library at run time, through
 * parameters and fields): `page.goto(url)` (playwright, puppeteer), `Page.navigate({ url })` and
 * `client.send('Page.navigate', { url })` (Chrome DevTools Protocol), `driver.get(url)` and
 * `driver.navigate().to(url)` (selenium). Only asked when the package uses a browser module.
 * A script run in the page (PAGE_SCRIPT_NAMES) is a code sink: its script argument (the first, or the `content`
 * of addScriptTag / the `expression` of CDP's Runtime.evaluate) when it is text, not a function written in the
 * code (`page.evaluate((sel) => …, selector)` passes the client's value as data).
 */
function navigation(node: CallExpression): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const recv = callee.getExpression().getText();
  const args = node.getArguments();
  const script = pageScript(name, recv, args);
  if (script) return { family: 'code', call: calleeText(callee), parts: [{ kind: 'eval', exprs: [script] }] };
  const urlOf = (n: Node | undefined): Node | undefined => {
    const u = n && unwrap(n);
    if (u && Node.isObjectLiteralExpression(u)) return propertyValue(u, 'url');
    return u;
  };
  let url: Node | undefined;
  if (name === 'goto') url = args[0];
  else if (name === 'navigate' && /page|tab/i.test(recv)) url = urlOf(args[0]);
  else if (name === 'send' && constString(args[0])?.value === 'Page.navigate') url = urlOf(args[1]);
  else if (name === 'get' && /driver/i.test(recv)) url = args[0];
  else if (name === 'to' && /driver.*\.navigate\(\)$/i.test(recv.replace(/\s+/g, ''))) url = args[0];
  if (!url) return undefined;
  return { family: 'browser', call: calleeText(callee), parts: [{ kind: 'navigate', exprs: [url] }] };
}

/**
 * Files a browser automation library opens itself (in a package that uses one, SinkContext.browser): the `path` option of
 * `page.screenshot({ path })` / `elementHandle.screenshot({ path })` and `page.pdf({ path })`, which puppeteer
 * (`_maybeWriteTypedArrayToFile` → `fs.promises.writeFile(path)`) and playwright (`fs.promises.writeFile(options.path)`)
 * write, also when set on the options object later (`options.path = out`); and the files of an upload, which the
 * library or the browser reads: puppeteer's `elementHandle.uploadFile(...paths)`, playwright's
 * `page.setInputFiles(selector, files)` / `locator.setInputFiles(files)` (read by `convertInputFiles`, `fs.promises.stat`).
 * A payload written in the code (`{ name, mimeType, buffer }`) is no path: an object literal is not taken.
 */
function browserFileCall(node: CallExpression, sources: ParsedSources): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || unwrap(callee.getExpression()).getKind() === SyntaxKind.ThisKeyword) return undefined;
  const name = callee.getName();
  const args = node.getArguments();
  const notLiteral = (n: Node | undefined): n is Node => !!n && !Node.isObjectLiteralExpression(unwrap(n));
  if (name === 'screenshot' || name === 'pdf') {
    const path = optionValues(args[0], 'path', sources);
    return path.length ? { family: 'fs', call: calleeText(callee), access: 'write', parts: [{ kind: 'fs', exprs: path }] } : undefined;
  }
  if (name === 'uploadFile') {
    const files = args.filter(notLiteral).map((a) => (Node.isSpreadElement(a) ? a.getExpression() : a));
    return files.length ? { family: 'fs', call: calleeText(callee), access: 'read', parts: [{ kind: 'fs', exprs: files }] } : undefined;
  }
  if (name === 'setInputFiles') {
    // page/frame: (selector, files, options?); locator/elementHandle: (files, options?).
    const files = args.length >= 2 && notLiteral(args[1]) ? args[1] : args[0];
    return notLiteral(files) ? { family: 'fs', call: calleeText(callee), access: 'read', parts: [{ kind: 'fs', exprs: [files] }] } : undefined;
  }
  return undefined;
}

/** The script a page-script call runs (see navigation()), unless it is a function written in the code. */
function pageScript(name: string, recv: string, args: Node[]): Node | undefined {
  let script: Node | undefined;
  if (name === 'send' && constString(args[0])?.value === 'Runtime.evaluate') {
    const o = args[1] && unwrap(args[1]);
    script = o && Node.isObjectLiteralExpression(o) ? propertyValue(o, 'expression') : undefined;
  } else if (PAGE_SCRIPT_NAMES.includes(name) && PAGE_RECEIVER.test(recv.split('.').pop() ?? recv)) {
    const first = args[0] && unwrap(args[0]);
    script = first && name === 'addScriptTag' ? (Node.isObjectLiteralExpression(first) ? propertyValue(first, 'content') : undefined) : first;
  }
  const u = script && unwrap(script);
  if (u && (Node.isArrowFunction(u) || Node.isFunctionExpression(u))) return evaluatedArgument(u, ELEMENT_RECEIVER.test(recv.split('.').pop() ?? recv), args);
  return u;
}

/**
 * A page function written in the code receives the client's value as data, unless it evaluates it there
 * (`page.evaluate(async (expr) => eval(`(${expr})`), expression)`, `new Function(src)`): the value is then the script
 * run in the page. Its parameter at place i is the call's argument i + 1 (the element comes first on a locator or
 * an element handle, whose function's parameter i is the argument i).
 */
function evaluatedArgument(fn: Node, elementFirst: boolean, args: Node[]): Node | undefined {
  if (!Node.isArrowFunction(fn) && !Node.isFunctionExpression(fn)) return undefined;
  const params = fn.getParameters().map((p) => p.getName());
  if (params.length === 0) return undefined;
  for (const d of fn.getDescendants()) {
    if (!Node.isCallExpression(d) && !Node.isNewExpression(d)) continue;
    const callee = unwrap(d.getExpression()).getText();
    if (callee !== 'eval' && callee !== 'Function' && callee !== 'globalThis.eval' && callee !== 'window.eval') continue;
    const used = new Set((d.getArguments() ?? []).flatMap((a) => [a, ...a.getDescendants()]).filter((x) => Node.isIdentifier(x)).map((x) => x.getText()));
    const i = params.findIndex((p) => used.has(p));
    if (i < 0) continue;
    const arg = args[elementFirst ? i : i + 1];
    if (arg && !Node.isSpreadElement(arg)) return arg;
  }
  return undefined;
}

/* --------------------------------------------------------- HTTP requests */

export type HttpLibrary = 'fetch' | 'axios' | 'got' | 'ky' | 'http' | 'undici';

/** An outbound HTTP request call, read by its library's conventions (see httpRequestOf). */
export interface HttpRequest {
  library: HttpLibrary;
  /** The method called ('' for the library or instance called as a function: `axios(cfg)`, `got(url)`, `fetch(url)`). */
  method: string;
  /** The URL argument, or the `url` of an options object given first. */
  url?: Node;
  /** The options the call passes (an object literal, or a value that cannot be read), if any. */
  options?: Node;
  /**
   * The configurations of the instance the call is made on, nearest first (`api = axios.create(cfg)`,
   * `got.extend(opts)`, `ky.create(opts)`, chained); an undefined entry is a configuration that cannot be read.
   * Empty for a call on the library itself.
   */
  instance: (Node | undefined)[];
}

const AXIOS_DATA_METHODS = new Set(['post', 'put', 'patch', 'postForm', 'putForm', 'patchForm']);

/**
 * An outbound HTTP request: fetch (global, node-fetch, cross-fetch, undici), axios, got, ky (the libraries or
 * an instance of them, wherever the instance was made: a variable, a field, another module), http/https/http2
 * request and get, undici request and stream. Undefined for any other call.
 */
export function httpRequestOf(call: Node, sources: ParsedSources): HttpRequest | undefined {
  if (!Node.isCallExpression(call)) return undefined;
  const callee = unwrap(call.getExpression());
  const o = originCached(callee, sources);
  if (!o || callSinkKind(o) !== 'http') return undefined;
  const m = last(o);
  const a = call.getArguments();
  const firstObj = a[0] && objectLiteralOf(a[0], sources);
  let library: HttpLibrary;
  let url: Node | undefined = a[0];
  let options: Node | undefined = a[1];
  if (o.module === GLOBAL || o.module === 'node-fetch' || o.module === 'cross-fetch' || (o.module === 'undici' && m === 'fetch')) library = 'fetch';
  else if (o.module === 'axios') {
    library = 'axios';
    if ((m === '' || m === 'request') && firstObj) {
      url = propertyValue(firstObj, 'url');
      options = a[0];
    } else options = AXIOS_DATA_METHODS.has(m) ? a[2] : a[1];
  } else if (o.module === 'got' || o.module === 'ky') {
    library = o.module;
    if (firstObj) {
      url = propertyValue(firstObj, 'url');
      options = a[0];
    }
  } else if (o.module === 'undici') library = 'undici';
  else {
    library = 'http';
    if (firstObj) {
      url = undefined;
      options = a[0];
    }
  }
  const receiver = Node.isPropertyAccessExpression(callee) && m !== '' ? callee.getExpression() : callee;
  return { library, method: m, url, options, instance: INSTANCE_FACTORIES[o.module] ? instanceConfigs(receiver, sources) : [] };
}

/** The configurations of the instance an expression holds (see HttpRequest.instance), nearest first. */
function instanceConfigs(expr: Node, sources: ParsedSources, depth = 0): (Node | undefined)[] {
  if (depth > 6) return [undefined];
  const made = creationOf(expr, sources, depth);
  if (made === 'library') return [];
  if (!made) return [undefined];
  const callee = unwrap(made.getExpression());
  const outer = Node.isPropertyAccessExpression(callee) ? instanceConfigs(callee.getExpression(), sources, depth + 1) : [];
  return [made.getArguments()[0], ...outer];
}

/** The call that made an instance (`axios.create(cfg)`), 'library' for the library itself, or undefined when it cannot be read. */
function creationOf(expr: Node, sources: ParsedSources, depth: number): CallExpression | 'library' | undefined {
  if (depth > 8) return undefined;
  let u = unwrap(expr);
  while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (Node.isCallExpression(u)) {
    const o = originCached(unwrap(u.getExpression()), sources);
    const m = o?.path.filter((p) => p !== 'default');
    return o && m && INSTANCE_FACTORIES[o.module]?.has(m[m.length - 1] ?? '') ? u : undefined;
  }
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    if (!d) return undefined;
    const p = d.getParent();
    const imp = importOfDecl(d);
    if (imp && !imp.spec.startsWith('.')) return 'library';
    if (imp || (Node.isVariableDeclaration(p) && p.getInitializer())) {
      const v = valueOfDeclaration(d, sources);
      if (!v || Node.isSourceFile(v)) return imp && !imp.spec.startsWith('.') ? 'library' : undefined;
      if (requireCall(v)) return 'library';
      return creationOf(v, sources, depth + 1);
    }
    if (Node.isVariableDeclaration(p)) {
      const values = assignedValues(d);
      return values.length === 1 ? creationOf(values[0]!, sources, depth + 1) : undefined;
    }
    return undefined;
  }
  if (Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression()))) {
    const values = fieldValues(u);
    return values.length === 1 ? creationOf(values[0]!, sources, depth + 1) : undefined;
  }
  // `axios_1.default` in compiled CommonJS: the default export of what the binding holds.
  if (Node.isPropertyAccessExpression(u) && u.getName() === 'default') return creationOf(u.getExpression(), sources, depth + 1);
  return undefined;
}

type CallSinkKind = 'shell-exec' | 'spawn' | 'execa' | 'eval' | 'vm' | 'matter' | 'fs' | 'doc' | 'http' | 'connect';

/** Modules whose clients open outbound connections that are not HTTP requests, and the members that do (see connection()). */
export const CONNECT_MODULES: Record<string, RegExp> = {
  pg: /^(?:Client|Pool)$/,
  'pg-pool': /^$/,
  postgres: /^$/,
  '@neondatabase/serverless': /^(?:neon|Pool|Client)$/,
  mariadb: /^(?:createConnection|createPool)$/,
  knex: /^(?:|knex)$/,
  sequelize: /^Sequelize$/,
  mssql: /^(?:connect|ConnectionPool)$/,
  redis: /^createClient$/,
  ioredis: /^(?:|Redis)$/,
  mysql: /^(?:createConnection|createPool)$/,
  mysql2: /^(?:createConnection|createPool)$/,
  'mysql2/promise': /^(?:createConnection|createPool)$/,
  mongodb: /^(?:MongoClient|connect)$/,
  mongoose: /^(?:connect|createConnection)$/,
  // SQL Server's driver (tedious: new Connection({ server })) and Elasticsearch's client (new Client({ node })).
  tedious: /^Connection$/,
  '@elastic/elasticsearch': /^Client$/,
  // A browser reached over the DevTools protocol (puppeteer.connect({ browserWSEndpoint }), chromium.connectOverCDP(url)).
  puppeteer: /^connect$/,
  'puppeteer-core': /^connect$/,
  playwright: /^(?:connect|connectOverCDP)$/,
  'playwright-core': /^(?:connect|connectOverCDP)$/,
  'playwright-chromium': /^(?:connect|connectOverCDP)$/,
  // mongosh's driver layer: NodeDriverServiceProvider.connect(uri, options).
  '@mongosh/service-provider-node-driver': /^connect$/,
  // mongosh's connection helper: connectMongoClient(uri, clientOptions, bus, MongoClient).
  '@mongodb-js/devtools-connect': /^connectMongoClient$/,
  ws: /^(?:|WebSocket)$/,
  net: /^(?:connect|createConnection)$/,
  tls: /^connect$/,
};

/**
 * Which kind of sink a call is, from its callee's origin alone (undefined: not a sink). classifySink then
 * reads the arguments; sinkSites asks this first, on compiler nodes, so that only sinks are wrapped.
 */
export function callSinkKind(o: Origin): CallSinkKind | undefined {
  const m = last(o);
  const mod = o.module;
  if (mod === 'child_process') {
    if (m === 'exec' || m === 'execSync') return 'shell-exec';
    if (/^(?:spawn|spawnSync|execFile|execFileSync|fork)$/.test(m)) return 'spawn';
    return undefined;
  }
  if (mod === 'cross-spawn') return m === '' || m === 'spawn' || m === 'sync' ? 'spawn' : undefined;
  if (mod === 'execa') return /^(?:execa|execaSync|execaNode|\$|\$sync|execaCommand|execaCommandSync)$/.test(m) ? 'execa' : undefined;
  if (mod === 'shelljs') return m === 'exec' ? 'shell-exec' : undefined;
  if (mod === GLOBAL) return m === 'eval' || m === 'Function' ? 'eval' : m === 'fetch' ? 'http' : m === 'WebSocket' ? 'connect' : undefined;
  if (CONNECT_MODULES[mod]) return CONNECT_MODULES[mod]!.test(m) ? 'connect' : undefined;
  if (mod === 'vm') return /^(?:runInNewContext|runInThisContext|runInContext|compileFunction)$/.test(m) ? 'vm' : undefined;
  // gray-matter's default export parses the text it is given (`matter(str, options)`); matter.read opens a file.
  if (mod === 'gray-matter') return m === '' ? 'matter' : undefined;
  if (FS_MODULES.has(mod)) return fsAccess(m) ? 'fs' : undefined;
  if (DOC_MODULES.has(mod)) return docAccess(mod, m) ? 'doc' : undefined;
  if (HTTP_MODULES.has(mod)) return m === 'request' || m === 'get' ? 'http' : undefined;
  if (mod === 'axios' || mod === 'got' || mod === 'node-fetch' || mod === 'cross-fetch' || mod === 'undici' || mod === 'ky') {
    return /^(?:|get|post|put|patch|delete|head|options|request|stream|fetch|pipeline)$/.test(m) ? 'http' : undefined;
  }
  return undefined;
}
