import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type ConstructorDeclaration, type SourceFile, type Identifier, type NewExpression, type TaggedTemplateExpression } from './morph.js';
import type { RepoFacts } from './repo.js';
import { assignedValues, baseClassOf, bindingNames, classValueOf, declarationOf, mayResolveFunction, exportedNode, fieldValues, findNodes, functionOf, importOf as importOfDecl, initializerOf, isFunctionLike, originOf, rawOriginOf, resolveRelativeModule, valueOfDeclaration, valueOriginOf, GLOBAL, INSTANCE_FACTORIES, type FunctionLikeNode, type Origin } from './scope.js';
import { constString, constrainedArguments, modelFiles, objectLiteralOf, patternSafety, propertyValue, regexSource, serverModel, type EntryKind, type HandlerEntry } from './server-model.js';
import { importsOf, namedFilter, namesAnyModule, ofKinds, parsedSources, rawCalleeName, rawOfKinds, rawUnwrap, positionOf, propertyName, unwrap, wrapNode, type NamedFilter, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';

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
 * methods), and `new Cls(x)` runs the constructor. A client value kept in a field (`this.command = cmd`, a
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
 *     new vm.Script ('eval').
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
 *     not the whole arguments object);
 *   - it is in a guarding position: in an `if` whose branch rejects (throw, continue, break, `return`
 *     nothing / false / null / an `isError` result / an error call), in what a predicate returns, kept in a
 *     variable, or asserted — it then guards what comes after it; or in an `if`/`?:` condition or a
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
 *     quoting function (shell-quote, shell-escape, shescape, `escape…`/`quote…`) for 'shell'; an
 *     'argument' sink is sound by construction ('argv-no-shell'). A URL looked up in a collection by one of
 *     its parts (`ALLOWED_HOSTS.has(url.hostname)`) is an allowlist for http sinks.
 *   process/code/http, unsound — 'blocklist': `x.includes(';')`, `!x.includes('..')`, an unanchored regex,
 *     a value cleaned with `replace(/[;&|]/g, '')`, a prefix test, `DENYLIST.includes(x)`.
 *   process, sound — 'confirmed': the value is handed, before the sink, to a function that asks the human
 *     (an elicitation: `elicitInput`, the SDK's `inputRequired.elicit`, 'elicitation/create'), and the call's
 *     result decides whether the function goes on (an `if` on it, or on the variable holding it, that returns
 *     or throws).
 *   fs, open — 'default-open': a sound confinement in a function that lets everything through while its
 *     allow-list is empty (`if (allowed.length === 0) return true`, `allowed.length === 0 || …`), when that
 *     list may be empty by default (an empty array or Set as its value or default); 'roots-writable': the
 *     allowed roots (or names) a sound check compares with are written, in some handler, from client values
 *     (`config[key] = value` on the object they are read from, `roots.push(dir)`), in a module-level
 *     variable or a class field.
 * A sound check wins over an unsound one; with no check the guard is 'none'.
 */

/** How many nested calls below a handler a flow is followed. */
export const MAX_DEPTH = 5;

export type SinkFamily = 'process' | 'code' | 'fs' | 'http' | 'browser';
export type SinkKind = 'shell' | 'process' | 'argument' | 'eval' | 'fs' | 'http' | 'navigate';
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
  | 'prefix-without-separator'
  | 'raw-path-check'
  | 'blocklist'
  | 'default-open'
  | 'roots-writable'
  | 'confirmed';
export type Launcher = 'child_process' | 'execa' | 'cross-spawn' | 'shelljs' | 'zx' | 'stdio-transport';

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

interface SinkPart {
  kind: SinkKind;
  exprs: Node[];
}

interface SinkMatch {
  family: SinkFamily;
  call: string;
  access?: FsAccess;
  shell?: boolean;
  launcher?: Launcher;
  parts: SinkPart[];
}

const FS_MODULES = new Set(['fs', 'fs/promises', 'fs-extra', 'graceful-fs', 'original-fs', 'fs-extra/esm']);
const HTTP_MODULES = new Set(['http', 'https', 'http2']);
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

const last = (o: Origin): string => {
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

/** The string values an expression may take: literals, consts, `??`/`||` defaults, both branches of `?:`. */
function possibleStrings(n: Node | undefined, depth = 0): string[] {
  if (!n || depth > 4) return [];
  const u = unwrap(n);
  const c = constString(u)?.value;
  if (c !== undefined) return [c];
  if (Node.isConditionalExpression(u)) return [...possibleStrings(u.getWhenTrue(), depth + 1), ...possibleStrings(u.getWhenFalse(), depth + 1)];
  if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) return [...possibleStrings(u.getLeft(), depth + 1), ...possibleStrings(u.getRight(), depth + 1)];
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d ? initializerOf(d) : undefined;
    return init ? possibleStrings(init, depth + 1) : [];
  }
  return [];
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
  if (shell) parts.push({ kind: 'shell', exprs: [program, argv].filter((x): x is Node => !!x) });
  else if (shellC) {
    parts.push({ kind: 'shell', exprs: [argv!] });
  } else {
    if (program) parts.push({ kind: programKind, exprs: [program] });
    if (argv) parts.push({ kind: 'argument', exprs: [argv] });
  }
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
  return { family: 'process', call, launcher, shell, parts };
}

/** What an audit's sink reading needs besides the node: the parsed files, and whether the package drives a browser. */
interface SinkContext {
  sources: ParsedSources;
  /** The package uses a browser automation library (playwright, puppeteer, CDP, selenium): navigations are outbound requests. */
  browser: boolean;
}

/** What kind of sink a call, `new` or tagged template is, and which of its operands matter. */
function classifySink(node: Node, ctx: SinkContext): SinkMatch | undefined {
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
  if (!kind) return ctx.browser ? navigation(node) : undefined;
  const args = node.getArguments();
  const call = calleeText(callee);
  const m = last(o);
  switch (kind) {
    case 'shell-exec':
      return { family: 'process', call, launcher: o.module === 'shelljs' ? 'shelljs' : 'child_process', shell: true, parts: [{ kind: 'shell', exprs: args.slice(0, 1) }] };
    case 'spawn':
      return spawnLike(call, o.module as 'child_process' | 'cross-spawn' | 'execa', args, sources);
    case 'execa': {
      // `$({ shell: true })` only binds options.
      if (args.length === 1 && Node.isObjectLiteralExpression(unwrap(args[0]!))) return undefined;
      if (m === 'execaCommand' || m === 'execaCommandSync') {
        const shell = shellOption(args.slice(1), sources);
        return { family: 'process', call, launcher: 'execa', shell, parts: [{ kind: shell ? 'shell' : 'process', exprs: args.slice(0, 1) }] };
      }
      return spawnLike(call, 'execa', args, sources);
    }
    case 'eval':
      return { family: 'code', call, parts: [{ kind: 'eval', exprs: m === 'eval' ? args.slice(0, 1) : args }] };
    case 'vm':
      return { family: 'code', call, parts: [{ kind: 'eval', exprs: args.slice(0, 1) }] };
    case 'fs':
      return { family: 'fs', call, access: fsAccess(m)!, parts: [{ kind: 'fs', exprs: args.slice(0, TWO_PATHS.test(m) ? 2 : 1) }] };
    case 'http': {
      // axios(config), api.request(config), http.request(options): the destination is in the object.
      const obj = args[0] ? objectLiteralOf(args[0], sources) : undefined;
      const dest = obj ? URL_KEYS.map((k) => propertyValue(obj, k)).filter((x): x is Node => !!x) : [];
      return { family: 'http', call, parts: [{ kind: 'http', exprs: obj && dest.length ? dest : args.slice(0, 1) }] };
    }
  }
}

/** The properties of a request's options object that decide where it goes. */
const URL_KEYS = ['url', 'baseURL', 'prefixUrl', 'host', 'hostname', 'path'];

/** Modules that drive a browser: a navigation they make is an outbound request. */
export const BROWSER_MODULES = [
  'playwright', 'playwright-core', '@playwright/test', 'playwright-chromium', 'playwright-firefox', 'playwright-webkit',
  'puppeteer', 'puppeteer-core', 'chrome-remote-interface', 'selenium-webdriver', 'webdriverio',
];
/** Method names a navigation is called by (see navigation()). */
const NAVIGATION_NAMES = new Set(['goto', 'navigate', 'send', 'get', 'to']);

/**
 * A browser navigation, read by name (the page object comes from the library at run time, through
 * parameters and fields): `page.goto(url)` (playwright, puppeteer), `Page.navigate({ url })` and
 * `client.send('Page.navigate', { url })` (Chrome DevTools Protocol), `driver.get(url)` and
 * `driver.navigate().to(url)` (selenium). Only asked when the package uses a browser module.
 */
function navigation(node: CallExpression): SinkMatch | undefined {
  const callee = unwrap(node.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const recv = callee.getExpression().getText();
  const args = node.getArguments();
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

/** `require('x')` (the library itself). */
function requireCall(n: Node): boolean {
  let u = unwrap(n);
  // Through a compiler's interop helper: `__importDefault(require('axios'))`.
  if (Node.isCallExpression(u) && /^(?:__importDefault|__importStar|__toESM|_interopRequireDefault|_interopRequireWildcard)$/.test(unwrap(u.getExpression()).getText().replace(/^.*\./, '')) && u.getArguments()[0]) {
    u = unwrap(u.getArguments()[0]!);
  }
  return Node.isCallExpression(u) && Node.isIdentifier(u.getExpression()) && u.getExpression().getText() === 'require';
}

type CallSinkKind = 'shell-exec' | 'spawn' | 'execa' | 'eval' | 'vm' | 'fs' | 'http';

/**
 * Which kind of sink a call is, from its callee's origin alone (undefined: not a sink). classifySink then
 * reads the arguments; sinkSites asks this first, on compiler nodes, so that only sinks are wrapped.
 */
function callSinkKind(o: Origin): CallSinkKind | undefined {
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
  if (mod === GLOBAL) return m === 'eval' || m === 'Function' ? 'eval' : m === 'fetch' ? 'http' : undefined;
  if (mod === 'vm') return /^(?:runInNewContext|runInThisContext|runInContext|compileFunction)$/.test(m) ? 'vm' : undefined;
  if (FS_MODULES.has(mod)) return fsAccess(m) ? 'fs' : undefined;
  if (HTTP_MODULES.has(mod)) return m === 'request' || m === 'get' ? 'http' : undefined;
  if (mod === 'axios' || mod === 'got' || mod === 'node-fetch' || mod === 'cross-fetch' || mod === 'undici' || mod === 'ky') {
    return /^(?:|get|post|put|patch|delete|head|options|request|stream|fetch|pipeline)$/.test(m) ? 'http' : undefined;
  }
  return undefined;
}

/* ----------------------------------------------------------------- taint */

interface Taint {
  /** Only this sub-path of the value is client-controlled (e.g. ['params', 'arguments'] of a request). */
  prefix?: readonly string[];
  /** Top-level properties that are not client-controlled text (schema-constrained arguments). */
  safe?: ReadonlySet<string>;
  /** The value is an arguments object (or a request), not one argument. */
  root?: boolean;
  /** Variables (declaration keys, with property paths) the value went through. */
  keys: ReadonlySet<string>;
  /** Nodes on the way, for the reported path. */
  steps: readonly Node[];
  resolved?: boolean;
  relative?: boolean;
  basename?: boolean;
  escaped?: boolean;
  /** A piece of a value (a property of a URL, an element, a split or a slice), not the value itself. */
  part?: boolean;
  /** Passed through `replace`/`replaceAll`: characters were stripped by a blocklist. */
  replaced?: boolean;
  /** An object literal: the taint of each property (`rest` for spreads of opaque tainted objects). */
  props?: ReadonlyMap<string, Taint>;
  rest?: Taint;
  /**
   * A URL whose scheme and host are fixed (written in the code or configured) and which the client reaches only
   * in its path, query or fragment: `${BASE}/items/${id}`, `new URL(\`/items/${id}\`, BASE)`.
   */
  urlFixed?: boolean;
  /** A URL whose scheme is fixed but whose host the client reaches (`https://${host}/x`). */
  schemeFixed?: boolean;
  /** A relative reference with a fixed start (`/items/${id}`, `items/${id}`): it cannot name another host. */
  relPath?: boolean;
}

type Family = 'fs' | 'process';
interface Verdict {
  guard: Exclude<Guard, 'none'>;
  detail: GuardDetail;
}

/** What the analysis reads: functions, methods, and the constructors of the classes a handler instantiates. */
type Analyzable = FunctionLikeNode | ConstructorDeclaration;

interface Check {
  node: Node;
  fn: Analyzable;
  /** Position that must come before the flow's position in `fn`. */
  at: Node;
  keys: ReadonlySet<string>;
  /** The key of the checked expression itself, when it has one. */
  subjectKey?: string;
  /** The checked value is a piece of a value (see Taint.part): it counts only for that exact expression. */
  part?: boolean;
  /** The check looks the value up in a collection (includes, has, in, hasOwn). */
  lookup?: boolean;
  verdict: Partial<Record<Family, Verdict>>;
  /** Valid only for flows whose position in `fn` lies inside this node (a switch case). */
  scope?: Node;
  /** The values a confinement check compares with (the allowed roots or names), for 'roots-writable'. */
  roots?: Node[];
}

/** A client value written into a module-level variable or a field (`config[key] = value`, `allowed.push(dir)`). */
interface StoreWrite {
  /** Storage keys (see storageKeys): `m:<decl>.<prop>…`, `this@<class>.<field>…`; a trailing `.*` is any property. */
  key: string;
  node: Node;
  /** The call (or the write itself) in the function that reported it, for naming a dispatcher's branch. */
  at: Node;
  /** The tool (prompt, resource) whose handler makes it, set once every entry is read. */
  tool: string;
}

interface Link {
  fn: Analyzable;
  at: Node;
}

interface RawFlow {
  sink: Node;
  match: SinkMatch;
  kind: SinkKind;
  taint: Taint;
  chain: Link[];
  steps: Node[];
  /** The key of the dispatch-table entry the flow went through (`handlers[name]` → 'run'). */
  tableKey?: string;
  urlShape?: UrlShape;
}

interface FnResult {
  flows: RawFlow[];
  checks: Check[];
  ret?: Taint;
  /** Client values the function (or a function it calls) writes into module-level variables and fields. */
  writes: StoreWrite[];
}

const declKeys = new WeakMap<object, string>();
let nextKey = 0;
function declKey(id: Identifier): string {
  let k = declKeys.get(id.compilerNode);
  if (!k) {
    k = `d${++nextKey}`;
    declKeys.set(id.compilerNode, k);
  }
  return k;
}

/** A stable key for `x`, `x.a.b`, `x['a']` (declaration-based), or undefined. */
function exprKey(e: Node): string | undefined {
  const n = unwrap(e);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    return d ? declKey(d) : undefined;
  }
  if (Node.isThisExpression(n)) {
    const cls = rawEnclosingClass(n.compilerNode);
    return cls ? `this@${classId(cls)}` : undefined;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const k = exprKey(n.getExpression());
    return k ? `${k}.${n.getName()}` : undefined;
  }
  if (Node.isElementAccessExpression(n)) {
    const key = constString(n.getArgumentExpression())?.value;
    const k = key !== undefined ? exprKey(n.getExpression()) : undefined;
    return k ? `${k}.${key}` : undefined;
  }
  return undefined;
}

const withKeys = (keys: ReadonlySet<string>, ...more: (string | undefined)[]): Set<string> => {
  const s = new Set(keys);
  for (const k of more) if (k) s.add(k);
  return s;
};

const unionKeys = (a: ReadonlySet<string>, b: Iterable<string>): Set<string> => {
  const s = new Set(a);
  for (const k of b) s.add(k);
  return s;
};

function merge(ts: (Taint | undefined)[]): Taint | undefined {
  const list = ts.filter((t): t is Taint => !!t);
  if (list.length === 0) return undefined;
  const full = list.find((t) => !t.prefix) ?? list[0]!;
  const keys = new Set<string>();
  for (const t of list) for (const k of t.keys) keys.add(k);
  return {
    prefix: full.prefix,
    keys,
    steps: full.steps,
    root: false,
    basename: list.every((t) => t.basename),
    escaped: list.every((t) => t.escaped),
    replaced: list.every((t) => t.replaced),
    urlFixed: list.every((t) => t.urlFixed),
    schemeFixed: list.every((t) => t.urlFixed || t.schemeFixed),
    relPath: list.every((t) => t.relPath),
  };
}

type Piece = { text: string } | { expr: Node };

/** A template literal or a `+` chain as its constant texts and its expressions, in order. */
function piecesOf(n: Node): Piece[] | undefined {
  if (Node.isTemplateExpression(n)) {
    const out: Piece[] = [{ text: n.getHead().getLiteralText() }];
    for (const span of n.getTemplateSpans()) out.push({ expr: span.getExpression() }, { text: span.getLiteral().getLiteralText() });
    return out;
  }
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') {
    const out: Piece[] = [];
    const add = (x: Node): void => {
      const u = unwrap(x);
      if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') {
        add(u.getLeft());
        add(u.getRight());
        return;
      }
      const c = Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u) ? u.getLiteralValue() : undefined;
      out.push(c !== undefined ? { text: c } : { expr: u });
    };
    add(n);
    return out;
  }
  return undefined;
}

/** Scheme and host written in the code (`https://api.example.com/`), or a base (a value the client does not reach) followed by a path delimiter. */
const CLOSED_ORIGIN = /^(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+[/?#]/i;
const CLOSED_BASE = /^\0+[\w.~%-]*(?:\/(?!\/)|[?#])/;
const OPEN_HOST = /^(?:[a-z][a-z0-9+.-]*|\0+):\/\//i;
const RELATIVE = /^(?:\/(?!\/)|[?#]|[\w.~%-]+\/)/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const signature = (t: Taint | undefined, depth = 0): string => {
  if (!t) return '-';
  const flags = [t.prefix?.join('.') ?? '*', [...(t.safe ?? [])].sort().join(','), t.root, t.resolved, t.relative, t.basename, t.escaped, t.replaced, t.part, t.urlFixed, t.schemeFixed, t.relPath].map((x) => (x === true ? 1 : x || 0)).join('|');
  if (!t.props || depth > 2) return flags;
  const props = [...t.props].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}:${signature(v, depth + 1)}`);
  return `${flags}{${props.join(',')}${t.rest ? `,...${signature(t.rest, depth + 1)}` : ''}}`;
};

/** Methods whose result carries no client text (booleans, numbers) even on a tainted receiver. */
const NON_TEXT_METHODS = new Set([
  'includes', 'startsWith', 'endsWith', 'test', 'has', 'indexOf', 'lastIndexOf', 'findIndex', 'some', 'every',
  'localeCompare', 'charCodeAt', 'codePointAt', 'search', 'isArray', 'hasOwnProperty', 'get', 'size',
]);
const ITERATING = new Map<string, number>([
  ['forEach', 0], ['map', 0], ['flatMap', 0], ['filter', 0], ['find', 0], ['findLast', 0], ['some', 0], ['every', 0], ['reduce', 1], ['reduceRight', 1],
]);
/** Methods that return a piece of their receiver. */
const PART_METHODS = new Set(['split', 'slice', 'substring', 'substr', 'charAt', 'at', 'match', 'matchAll', 'exec', 'trimEnd', 'padEnd']);
const PARSE_METHODS = new Set(['parse', 'parseAsync', 'safeParse', 'safeParseAsync', 'validate', 'validateSync', 'cast']);
const PATH_MODULES = new Set(['path', 'path/posix', 'path/win32', 'upath', 'pathe']);
const PASS_GLOBALS = new Set(['String', 'decodeURIComponent', 'decodeURI', 'encodeURI', 'encodeURIComponent', 'unescape', 'Array', 'Object', 'JSON', 'Buffer']);
const ESCAPE_MODULES = new Set(['shell-quote', 'shell-escape', 'shescape', 'any-shell-escape', 'shell-escape-tag']);
const ESCAPE_NAME = /^(?:shell)?(?:escape|quote)(?:shell)?(?:args?)?$/i;
const DENY_NAME = /(?:deny|denied|block|black|forbid|banned|disallow|reject|unsafe|danger)/i;

function stripAwait(e: Node): Node {
  let n = unwrap(e);
  while (Node.isAwaitExpression(n) || Node.isTypeAssertion(n)) n = unwrap(n.getExpression());
  return n;
}

const BODY_KINDS = afterLoad(() => new Set([
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.ForOfStatement,
  ts.SyntaxKind.ForInStatement,
  ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.NewExpression,
  ts.SyntaxKind.TaggedTemplateExpression,
  ts.SyntaxKind.SwitchStatement,
]));
const bodyCache = new WeakMap<object, ts.Node[]>();

/** The return statements of a function itself (not of the functions nested in it), as compiler nodes. */
const returnsCache = new WeakMap<object, ts.ReturnStatement[]>();
function ownReturns(fn: Analyzable): ts.ReturnStatement[] {
  const hit = returnsCache.get(fn.compilerNode);
  if (hit) return hit;
  const body = fn.getBody();
  if (!body) return [];
  const own: ts.ReturnStatement[] = [];
  returnsCache.set(fn.compilerNode, own);
  const visit = (cn: ts.Node): void => {
    if (ts.isReturnStatement(cn)) own.push(cn);
    if (ts.isFunctionLike(cn) || ts.isClassLike(cn)) return;
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body.compilerNode, visit);
  return own;
}

/**
 * The nodes of a function body the analysis looks at, nested functions included (closures run with the
 * same variables), as compiler nodes in source order: the analysis wraps only those that can carry taint.
 */
function bodyNodes(fn: Analyzable): ts.Node[] {
  const hit = bodyCache.get(fn.compilerNode);
  if (hit) return hit;
  const body = fn.getBody();
  const out: ts.Node[] = [];
  const visit = (cn: ts.Node): void => {
    if (BODY_KINDS().has(cn.kind)) out.push(cn);
    ts.forEachChild(cn, visit);
  };
  if (body) visit(body.compilerNode);
  bodyCache.set(fn.compilerNode, out);
  return out;
}

function isSep(n: Node): boolean {
  const u = unwrap(n);
  const s = constString(u)?.value;
  if (s !== undefined) return s.endsWith('/') || s.endsWith('\\');
  const o = originOf(u);
  if (!Node.isIdentifier(u) && !Node.isPropertyAccessExpression(u)) return false;
  return (!!o && PATH_MODULES.has(o.module) && o.path[o.path.length - 1] === 'sep') || /(?:^|\.)sep$/.test(u.getText());
}

/** Is this prefix written with a trailing separator (`root + path.sep`, `${root}/`, a const holding one)? */
function hasSeparator(n: Node | undefined, depth = 0): boolean {
  if (!n || depth > 4) return false;
  const u = unwrap(n);
  const s = constString(u)?.value;
  if (s !== undefined) return s.endsWith('/') || s.endsWith('\\');
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return isSep(u.getRight()) || hasSeparator(u.getRight(), depth + 1);
  if (Node.isTemplateExpression(u)) {
    const spans = u.getTemplateSpans();
    const lastSpan = spans[spans.length - 1]!;
    const tail = lastSpan.getLiteral().getLiteralText();
    if (tail !== '') return tail.endsWith('/') || tail.endsWith('\\');
    return isSep(lastSpan.getExpression());
  }
  if (Node.isConditionalExpression(u)) return hasSeparator(u.getWhenTrue(), depth + 1) || hasSeparator(u.getWhenFalse(), depth + 1);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d ? initializerOf(d) : undefined;
    return !!init && hasSeparator(init, depth + 1);
  }
  return false;
}

const v = (guard: Verdict['guard'], detail: GuardDetail): Verdict => ({ guard, detail });
const ALLOW: Partial<Record<Family, Verdict>> = { fs: v('sound', 'allowlist'), process: v('sound', 'allowlist') };
const DENY: Partial<Record<Family, Verdict>> = { fs: v('unsound', 'raw-path-check'), process: v('unsound', 'blocklist') };

/** A regex test: an allowlist pattern (see server-model `patternSafety`) is sound for commands; for paths a check on the raw string stays unsound. */
const patternVerdict = (re: string): Partial<Record<Family, Verdict>> =>
  patternSafety(re).shell ? { fs: v('unsound', 'raw-path-check'), process: v('sound', 'pattern') } : DENY;

/* ------------------------------------------------------------- analysis */

/**
 * Keys seen inside a called function, seen from the caller: the caller's keys of argument i are added when
 * the value went through parameter i (an object literal argument already carries the caller's keys in its
 * properties).
 */
function liftKeys(f: Analyzable, args: (Taint | undefined)[], keys: ReadonlySet<string>): Set<string> {
  const out = new Set(keys);
  const params = f.getParameters();
  args.forEach((t, i) => {
    if (!t || t.props) return;
    const p = params[Math.min(i, params.length - 1)];
    if (!p || (i >= params.length && !p.getDotDotDotToken())) return;
    if (bindingNames(p.getNameNode()).some((id) => keys.has(declKey(id)))) for (const k of t.keys) out.add(k);
  });
  return out;
}

const originMemo = new WeakMap<object, Origin | null>();
const functionMemo = new WeakMap<object, FunctionLikeNode | null>();

/**
 * Where a callee comes from (facts/scope originOf), and through a relative import when what the other module
 * exports is an HTTP client instance (`export const api = axios.create(…)`): then `api.get` is axios's get.
 */
function originCached(callee: Node, sources: ParsedSources): Origin | undefined {
  const hit = originMemo.get(callee.compilerNode);
  if (hit !== undefined) return hit ?? undefined;
  const o = originOf(callee);
  const r = o && o.module.startsWith('.') ? acrossModules(o, callee, sources) : o;
  originMemo.set(callee.compilerNode, r ?? null);
  return r;
}

/** An origin in a relative module, seen through what that module exports (an HTTP client instance), or the origin unchanged. */
function acrossModules(o: Origin, callee: Node, sources: ParsedSources): Origin {
  const target = resolveRelativeModule(sources.rel(callee.getSourceFile()), o.module, sources);
  if (!target) return o;
  // A default import has an empty origin path, so its first step is already a member (`api.get` on
  // `import api from './http.js'`): the export is 'default' and the whole path stays.
  const viaDefault = defaultImportRoot(callee);
  const name = viaDefault ? 'default' : (o.path[0] ?? 'default');
  const inst = instanceExports(sources).get(target)?.get(name);
  return inst ? { module: inst.module, path: [...inst.path, ...(viaDefault ? o.path : o.path.slice(1))] } : o;
}

/** Whether an access chain (`api.get`, `api.defaults.x`) starts at a default import binding. */
function defaultImportRoot(expr: Node): boolean {
  let root = unwrap(expr);
  while (Node.isPropertyAccessExpression(root) || Node.isElementAccessExpression(root)) root = unwrap(root.getExpression());
  if (!Node.isIdentifier(root)) return false;
  const d = declarationOf(root);
  if (!d) return false;
  if (importOfDecl(d)?.imported === 'default') return true;
  // `const api = require('./http')` over `module.exports = axios.create(…)` (read as its default export).
  const v = d.getParent();
  const init = Node.isVariableDeclaration(v) && v.getNameNode() === d ? v.getInitializer() : undefined;
  return !!init && requireCall(init);
}

const instanceMemo = new WeakMap<ParsedSources, Map<SourceFile, Map<string, Origin>>>();

/**
 * Per file, the exports that are HTTP client instances (`export const api = axios.create(…)`,
 * `export default got.extend(…)`, `const api = ky.create(…); export { api }`), with the library they stand for.
 * Only files that name one of the libraries are read.
 */
function instanceExports(sources: ParsedSources): Map<SourceFile, Map<string, Origin>> {
  const hit = instanceMemo.get(sources);
  if (hit) return hit;
  const out = new Map<SourceFile, Map<string, Origin>>();
  const libs = Object.keys(INSTANCE_FACTORIES);
  for (const [, sf] of sources.files) {
    if (!namesAnyModule(sf, libs)) continue;
    const names = new Set<string>();
    for (const st of sf.getVariableStatements()) if (st.hasExportKeyword()) for (const d of st.getDeclarations()) names.add(d.getName());
    for (const ed of sf.getExportDeclarations()) if (!ed.getModuleSpecifierValue()) for (const ne of ed.getNamedExports()) names.add(ne.getAliasNode()?.getText() ?? ne.getName());
    if (sf.getExportAssignments().length) names.add('default');
    const found = new Map<string, Origin>();
    for (const name of names) {
      const node = exportedNode(sf, name, sources);
      const vo = node && node.getSourceFile() === sf ? (Node.isIdentifier(node) ? originOf(node) : valueOriginOf(node)) : undefined;
      if (vo && INSTANCE_FACTORIES[vo.module] && vo.path.length === 0) found.set(name, vo);
    }
    if (found.size) out.set(sf, found);
  }
  instanceMemo.set(sources, out);
  return out;
}

/**
 * The functions a call may run: the one `functionOf` finds, or every function of a dispatch table looked up
 * with a computed key (`handlers[name](args)`, `const h = handlers[name]; h(args)`).
 */
function functionsOfCallee(callee: Node, sources: ParsedSources): { fn: FunctionLikeNode; key?: string }[] {
  const f = functionCached(callee, sources);
  if (f) return [{ fn: f }];
  let table: Node | undefined;
  if (Node.isElementAccessExpression(callee) && constString(callee.getArgumentExpression()) === undefined) table = callee.getExpression();
  else if (Node.isIdentifier(callee)) {
    const d = declarationOf(callee);
    const init = d ? initializerOf(d) : undefined;
    const u = init && stripAwait(init);
    if (u && Node.isElementAccessExpression(u) && constString(u.getArgumentExpression()) === undefined) table = u.getExpression();
  }
  const obj = table && objectLiteralOf(table, sources);
  if (!obj) return [];
  const out: { fn: FunctionLikeNode; key?: string }[] = [];
  for (const p of obj.getProperties()) {
    const value = Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : Node.isMethodDeclaration(p) ? p : undefined;
    const fn = value && functionCached(value, sources);
    const key = Node.isPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isShorthandPropertyAssignment(p) ? propertyName(p.getNameNode()) : undefined;
    if (fn) out.push({ fn, key });
  }
  return out;
}

function functionCached(callee: Node, sources: ParsedSources): FunctionLikeNode | undefined {
  const hit = functionMemo.get(callee.compilerNode);
  if (hit !== undefined) return hit ?? undefined;
  const f = functionOf(callee, sources);
  functionMemo.set(callee.compilerNode, f ?? null);
  return f;
}

const classIds = new WeakMap<ts.Node, string>();
let nextClass = 0;
/** A stable id for a class (the key of its fields' taint). */
function classId(cls: ts.Node): string {
  let id = classIds.get(cls);
  if (!id) classIds.set(cls, (id = `c${++nextClass}`));
  return id;
}

/** The class whose `this` a node sees (through arrow functions), as a compiler node. */
function rawEnclosingClass(cn: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let a = cn.parent; a; a = a.parent) {
    if (ts.isClassLike(a)) return a;
    if (ts.isFunctionDeclaration(a) || ts.isFunctionExpression(a)) return undefined;
  }
  return undefined;
}

/** The class a function is a member of (a method or constructor), as a compiler node. */
function ownerClass(fn: Analyzable): ts.ClassLikeDeclaration | undefined {
  const p = fn.compilerNode.parent;
  return (Node.isMethodDeclaration(fn) || Node.isConstructorDeclaration(fn)) && p && ts.isClassLike(p) ? p : undefined;
}

/** The constructor `new X(…)` runs, when X is a class of the audited source (its own, or the one it inherits). */
function constructorOf(n: NewExpression, sources: ParsedSources): ConstructorDeclaration | undefined {
  let cls = classValueOf(n.getExpression(), sources);
  for (let i = 0; cls && i < 5; i++) {
    const ctor = cls.getConstructors().find((c) => c.getBody());
    if (ctor) return ctor;
    cls = baseClassOf(cls, sources);
  }
  return undefined;
}

class Run {
  readonly summaries = new Map<Analyzable, Map<string, FnResult>>();
  readonly rootKeys = new Set<string>();
  readonly sources: ParsedSources;
  /**
   * Client values kept in class fields (`this.command = cmd`), by `this@<class>.<field>`: read by any method of
   * that class the analysis runs afterwards (a field is shared by the calls made on one instance).
   */
  readonly fields = new Map<string, Taint>();
  /** The names of the tainted fields (a superset test for mayTaint). */
  readonly fieldNames = new Set<string>();
  /** Per class id, how many times its fields' taint changed (part of the summaries' signature). */
  readonly fieldVersion = new Map<string, number>();
  /** Client values written into module-level variables and fields, by any handler (filled once every entry is read). */
  readonly writes: StoreWrite[] = [];
  /** Some file can ask the human (names an elicitation API): only then are confirmation gates looked for. */
  readonly elicits: boolean;
  constructor(readonly ctx: SinkContext) {
    this.sources = ctx.sources;
    this.elicits = [...ctx.sources.files.values()].some((sf) => /elicitInput|elicitation\/create|inputRequired/.test(sf.getFullText()));
  }

  /** Record a client value stored in a field; true when it changes what is known. */
  setField(key: string, name: string, t: Taint): boolean {
    const cur = this.fields.get(key);
    if (cur && signature(cur) === signature(t)) return false;
    this.fields.set(key, cur ? { ...merge([cur, t])!, steps: cur.steps } : t);
    this.fieldNames.add(name);
    const cls = key.slice(5, key.indexOf('.'));
    this.fieldVersion.set(cls, (this.fieldVersion.get(cls) ?? 0) + 1);
    return true;
  }

  /** Whether a class has fields holding client values. */
  hasTaintedFields(cls: ts.Node | undefined): boolean {
    return !!cls && this.fieldVersion.has(classId(cls));
  }

  analyze(fn: Analyzable, params: (Taint | undefined)[], depth: number): FnResult {
    const owner = ownerClass(fn);
    const sig =
      params.map((t) => signature(t)).join(';') +
      '@' +
      depth +
      (owner ? `#${this.fieldVersion.get(classId(owner)) ?? 0}` : '');
    let byFn = this.summaries.get(fn);
    if (!byFn) this.summaries.set(fn, (byFn = new Map()));
    const hit = byFn.get(sig);
    if (hit) return hit;
    const placeholder: FnResult = { flows: [], checks: [], writes: [] };
    byFn.set(sig, placeholder); // cuts recursion
    const result = new FnAnalysis(this, fn, depth).run(params);
    byFn.set(sig, result);
    return result;
  }
}

class FnAnalysis {
  private readonly env = new Map<string, Taint>();
  /** Writes of client values into module-level variables and fields (see recordWrite), by key and position. */
  private readonly writes = new Map<string, StoreWrite>();
  /** Checks of called functions already taken in (a function called at several places reports them once). */
  private readonly seenChecks = new Set<Check>();
  /** The names of the variables in env (a superset test for taintOf). */
  private readonly taintedNames = new Set<string>();
  private changed = false;
  constructor(
    private readonly run_: Run,
    private readonly fn: Analyzable,
    private readonly depth: number,
  ) {}

  run(params: (Taint | undefined)[]): FnResult {
    const ps = this.fn.getParameters();
    const owner = ownerClass(this.fn);
    ps.forEach((p, i) => {
      const t = p.getDotDotDotToken() ? merge(params.slice(i)) : params[i];
      if (!t) return;
      this.bind(p.getNameNode(), { ...t, keys: new Set(), steps: [] }, p);
      // constructor(private readonly command: string): the argument is kept in this.command.
      if (owner && Node.isConstructorDeclaration(this.fn) && p.isParameterProperty()) this.run_.setField(`this@${classId(owner)}.${p.getName()}`, p.getName(), { ...t, steps: [p] });
    });
    const nodes = bodyNodes(this.fn);
    const body = this.fn.getBody();
    const sf = this.fn.getSourceFile();
    // Propagation, checks and flows all need a tainted value inside the node (see taintOf): a node that
    // mentions no tainted name is skipped before it is wrapped.
    for (let round = 0; round < 8; round++) {
      this.changed = false;
      for (const cn of nodes) if (this.mayTaint(cn)) this.propagate(wrapNode(sf, cn));
      if (!this.changed) break;
    }
    const flows: RawFlow[] = [];
    const checks: Check[] = [];
    for (const cn of nodes) {
      // A method call runs with the fields of its instance: followed when some class keeps client values.
      if (!this.mayTaint(cn) && !(this.run_.fieldNames.size && (ts.isCallExpression(cn) || ts.isNewExpression(cn)) && ts.isPropertyAccessExpression(cn.expression))) continue;
      const n = wrapNode(sf, cn);
      this.collectCheck(n, checks);
      if (Node.isCallExpression(n) || Node.isNewExpression(n) || Node.isTaggedTemplateExpression(n)) this.visitCall(n, flows, checks);
    }
    let ret: Taint | undefined;
    if (body && !Node.isBlock(body)) ret = this.taintOf(body);
    else {
      const rets: (Taint | undefined)[] = [];
      for (const r of ownReturns(this.fn)) if (r.expression && this.mayTaint(r.expression)) rets.push(this.taintOf(wrapNode(sf, r.expression)));
      const tainted = rets.filter((t): t is Taint => !!t);
      ret = tainted.length === 1 ? tainted[0] : merge(tainted);
    }
    return { flows, checks, ret, writes: [...this.writes.values()] };
  }

  /* ---- binding */

  private set(id: Identifier, t: Taint, step: Node, extraKey?: string): void {
    const key = declKey(id);
    const cur = this.env.get(key);
    if (cur && (!cur.prefix || t.prefix)) {
      // A later assignment may refine the value (`p = path.resolve(root, p)`): keep the refinement and the
      // new keys. Flags only go up, so the iteration ends; the position rule of guards keeps a sink written
      // before the refinement unguarded.
      const up = {
        resolved: cur.resolved || t.resolved,
        relative: cur.relative || t.relative,
        basename: cur.basename || t.basename,
        escaped: cur.escaped || t.escaped,
      };
      const keys = withKeys(unionKeys(cur.keys, t.keys), extraKey);
      const same = keys.size === cur.keys.size && (Object.keys(up) as (keyof typeof up)[]).every((k) => !!up[k] === !!cur[k]);
      if (same) return;
      this.env.set(key, { ...cur, ...up, keys });
      this.changed = true;
      return;
    }
    if (t.root) this.run_.rootKeys.add(key);
    this.taintedNames.add(id.compilerNode.text);
    this.env.set(key, { ...t, keys: withKeys(t.keys, key, extraKey), steps: [...t.steps, step] });
    this.changed = true;
  }

  private bind(name: Node, t: Taint, step: Node, initKey?: string): void {
    if (Node.isIdentifier(name)) return this.set(name, t, step, initKey);
    if (Node.isObjectBindingPattern(name)) {
      for (const el of name.getElements()) {
        if (el.getDotDotDotToken()) {
          this.bind(el.getNameNode(), t, el);
          continue;
        }
        const pn = el.getPropertyNameNode();
        const prop = pn ? propertyName(pn) : el.getName();
        if (prop === undefined) continue;
        const k = initKey ? `${initKey}.${prop}` : undefined;
        const sub = this.member(t, prop, k);
        if (sub) this.bind(el.getNameNode(), sub, el, k);
      }
    } else if (Node.isArrayBindingPattern(name)) {
      const sub = this.element(t);
      if (!sub) return;
      for (const el of name.getElements()) if (Node.isBindingElement(el)) this.bind(el.getNameNode(), sub, el);
    }
  }

  private member(t: Taint, prop: string, key?: string): Taint | undefined {
    if (t.props) {
      const sub = t.props.get(prop) ?? t.rest;
      return sub && { ...sub, keys: withKeys(sub.keys, key), steps: t.steps };
    }
    if (t.prefix) {
      if (t.prefix[0] !== prop) return undefined;
      const rest = t.prefix.slice(1);
      if (key) this.run_.rootKeys.add(key);
      return { ...t, prefix: rest.length ? rest : undefined, root: true, keys: withKeys(t.keys, key) };
    }
    if (t.root && t.safe?.has(prop)) return undefined;
    if (prop === 'length') return undefined;
    return { ...t, root: false, safe: undefined, part: t.part || !t.root, keys: withKeys(t.keys, key) };
  }

  private element(t: Taint): Taint | undefined {
    if (t.prefix) return undefined;
    if (t.props) return merge([...t.props.values(), t.rest]);
    return { ...t, root: false, safe: undefined, part: t.part || !t.root };
  }

  private propagate(n: Node): void {
    if (Node.isVariableDeclaration(n)) {
      const init = n.getInitializer();
      if (!init) return;
      const t = this.taintOf(init);
      if (t) this.bind(n.getNameNode(), t, n, exprKey(stripAwait(init)));
    } else if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (!['=', '+=', '??=', '||='].includes(op)) return;
      const left = unwrap(n.getLeft());
      let t = this.taintOf(n.getRight());
      if (!t) return;
      // `url += \`?q=${q}\`` on a URL the client does not reach: the value lands after its origin.
      if (op === '+=' && t.relPath && !this.taintOf(left)) t = { ...t, urlFixed: true };
      if (!Node.isObjectLiteralExpression(left) && !Node.isArrayLiteralExpression(left)) this.recordWrite(left, n);
      if (Node.isIdentifier(left)) {
        const d = declarationOf(left);
        if (d) this.set(d, t, n);
      } else if (Node.isPropertyAccessExpression(left) && Node.isThisExpression(unwrap(left.getExpression()))) {
        const key = exprKey(left);
        if (key && this.run_.setField(key, left.getName(), { ...t, steps: [...t.steps, n] })) this.changed = true;
      } else if (Node.isObjectLiteralExpression(left) || Node.isArrayLiteralExpression(left)) {
        // destructuring assignment: taint every identifier assigned
        left.forEachDescendant((x) => {
          const parent = x.getParent();
          if (Node.isIdentifier(x) && !(Node.isPropertyAssignment(parent) && parent.getNameNode() === x) && !Node.isPropertyAccessExpression(parent)) {
            const d = declarationOf(x);
            if (d) this.set(d, { ...t, root: false }, n);
          }
        });
      }
    } else if (Node.isForOfStatement(n) || Node.isForInStatement(n)) {
      const t = this.taintOf(n.getExpression());
      const init = n.getInitializer();
      if (!t || !Node.isVariableDeclarationList(init)) return;
      const el = Node.isForOfStatement(n) ? this.element(t) : undefined;
      if (!el) return;
      for (const d of init.getDeclarations()) this.bind(d.getNameNode(), el, d);
    } else if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      // allowed.push(dir), roots.add(dir), settings.set(key, value), Object.assign(config, changes): a write of the collection.
      if (Node.isPropertyAccessExpression(callee) && STORE_MUTATORS.has(callee.getName()) && n.getArguments().some((a) => this.taintOf(a))) this.recordWrite(callee.getExpression(), n);
      if (Node.isPropertyAccessExpression(callee) && callee.getText() === 'Object.assign' && n.getArguments().slice(1).some((a) => this.taintOf(a)) && n.getArguments()[0]) this.recordWrite(n.getArguments()[0]!, n, true);
      if (!Node.isPropertyAccessExpression(callee)) return;
      const idx = ITERATING.get(callee.getName());
      if (idx === undefined) return;
      const t = this.taintOf(callee.getExpression());
      const cb = n.getArguments()[0];
      const el = t && this.element(t);
      if (!el || !cb || !isFunctionLike(unwrap(cb))) return;
      const p = (unwrap(cb) as FunctionLikeNode).getParameters()[idx];
      if (p) this.bind(p.getNameNode(), el, p);
    }
  }

  /**
   * Whether the result of a call decides if the function goes on: the call is the condition of an `if` that
   * leaves (return, throw), or its result is kept in a variable that such an `if` tests.
   */
  private gates(call: Node): boolean {
    const leaves = (st: Node): boolean => Node.isReturnStatement(st) || Node.isThrowStatement(st) || findNodes(st, (d) => ts.isReturnStatement(d) || ts.isThrowStatement(d)).length > 0;
    let cur: Node = call;
    let p = cur.getParent();
    while (p && (Node.isAwaitExpression(p) || Node.isParenthesizedExpression(p) || Node.isPrefixUnaryExpression(p) || Node.isPropertyAccessExpression(p))) {
      cur = p;
      p = p.getParent();
    }
    if (Node.isIfStatement(p) && p.getExpression() === cur) return leaves(p.getThenStatement());
    if (Node.isVariableDeclaration(p) && Node.isIdentifier(p.getNameNode())) {
      const name = p.getName();
      const body = this.fn.getBody();
      return !!body && findNodes(body, (cn) => ts.isIfStatement(cn) && cn.getStart() > call.getStart()).some(
        (st) => Node.isIfStatement(st) && new RegExp(`\\b${name}\\b`).test(st.getExpression().getText()) && leaves(st.getThenStatement()),
      );
    }
    return false;
  }

  /** A client value written into `target` (a module-level variable, a field, or a property of one): kept for 'roots-writable'. */
  private recordWrite(target: Node, node: Node, anyProperty = false): void {
    for (const k of storageKeys(target, this.run_.sources, 0, true)) {
      const key = anyProperty ? `${k}.*` : k;
      const id = `${key}@${node.getStart()}`;
      if (!this.writes.has(id)) this.writes.set(id, { key, node, at: node, tool: '' });
    }
  }

  /* ---- expressions */

  /**
   * The taint of an expression. Taint only ever starts at a variable set in this analysis (see set()), so an
   * expression that mentions none of their names is clean: that is decided on compiler nodes, before any
   * part of it is wrapped.
   */
  taintOf(e: Node): Taint | undefined {
    return this.mayTaint(e.compilerNode) ? this.taint(e) : undefined;
  }

  private mayTaint(cn: ts.Node): boolean {
    const names = this.taintedNames;
    const fields = this.run_.fieldNames;
    if (names.size === 0 && fields.size === 0) return false;
    const visit = (n: ts.Node): boolean => (ts.isIdentifier(n) ? names.has(n.text) || fields.has(n.text) : n.kind === SyntaxKind.ThisKeyword ? fields.size > 0 : !!ts.forEachChild(n, visit));
    return visit(cn);
  }

  private taint(e: Node): Taint | undefined {
    const n = stripAwait(e);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      return d ? this.env.get(declKey(d)) : undefined;
    }
    if (Node.isPropertyAccessExpression(n)) {
      if (Node.isThisExpression(unwrap(n.getExpression()))) {
        const key = exprKey(n);
        return key ? this.run_.fields.get(key) : undefined;
      }
      const t = this.taint(n.getExpression());
      return t && this.member(t, n.getName(), exprKey(n));
    }
    if (Node.isElementAccessExpression(n)) {
      const t = this.taint(n.getExpression());
      if (!t) return undefined;
      const key = constString(n.getArgumentExpression())?.value;
      return key !== undefined ? this.member(t, key, exprKey(n)) : this.element(t);
    }
    if (Node.isTemplateExpression(n)) return this.shaped(n, merge(n.getTemplateSpans().map((s) => this.taint(s.getExpression()))));
    if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (op === '+') return this.shaped(n, merge([this.taint(n.getLeft()), this.taint(n.getRight())]));
      if (op === '??' || op === '||' || op === '+=') return merge([this.taint(n.getLeft()), this.taint(n.getRight())]);
      if (op === '&&' || op === ',' || op === '=' || op === '??=' || op === '||=') return this.taint(n.getRight());
      return undefined;
    }
    if (Node.isConditionalExpression(n)) return merge([this.taint(n.getWhenTrue()), this.taint(n.getWhenFalse())]);
    if (Node.isArrayLiteralExpression(n)) return merge(n.getElements().map((el) => this.taint(Node.isSpreadElement(el) ? el.getExpression() : el)));
    if (Node.isObjectLiteralExpression(n)) {
      // Field-sensitive: `{ path: p, rules }` keeps each property's own taint.
      const props = new Map<string, Taint>();
      const rests: Taint[] = [];
      for (const p of n.getProperties()) {
        if (Node.isPropertyAssignment(p)) {
          const t = this.taint(p.getInitializerOrThrow());
          const name = propertyName(p.getNameNode());
          if (t && name !== undefined) props.set(name, t);
          else if (t) rests.push(t);
        } else if (Node.isShorthandPropertyAssignment(p)) {
          const t = this.taint(p.getNameNode());
          if (t) props.set(p.getName(), t);
        } else if (Node.isSpreadAssignment(p)) {
          const t = this.taint(p.getExpression());
          if (t?.props) for (const [k, v] of t.props) props.set(k, v);
          if (t?.rest) rests.push(t.rest);
          else if (t && !t.props) rests.push(t);
        }
      }
      const all = [...props.values(), ...rests];
      const whole = merge(all);
      if (!whole) return undefined;
      const restOf = rests.length === 1 ? rests[0] : merge(rests);
      return { ...whole, props, rest: restOf };
    }
    if (Node.isCallExpression(n)) return this.callTaint(n);
    if (Node.isNewExpression(n)) {
      const name = n.getExpression().getText();
      const [a, base] = n.getArguments() ?? [];
      if (name === 'URL' && base) {
        // new URL(ref, base): a relative reference with a fixed start keeps the base's scheme and host; any
        // other reference the client reaches may be absolute and replace them.
        const ta = a && this.taint(a);
        const tb = this.taint(base);
        if (!ta) return tb;
        const t = merge([ta, tb])!;
        return { ...t, urlFixed: !!ta.relPath && (!tb || !!tb.urlFixed), schemeFixed: false, relPath: false };
      }
      if (name === 'URL' || name === 'String') return a ? this.taint(a) : undefined;
      return undefined;
    }
    if (Node.isTaggedTemplateExpression(n) && n.getTag().getText() === 'String.raw') {
      const tpl = n.getTemplate();
      return Node.isTemplateExpression(tpl) ? merge(tpl.getTemplateSpans().map((s) => this.taint(s.getExpression()))) : undefined;
    }
    return undefined;
  }

  /**
   * The URL shape of a template or concatenation (see Taint.urlFixed): read from the constant text and the
   * values the client does not reach before the first value it does.
   */
  private shaped(n: Node, t: Taint | undefined): Taint | undefined {
    if (!t) return t;
    const pieces = piecesOf(n);
    if (!pieces) return t;
    let prefix = '';
    for (const p of pieces) {
      if ('text' in p) {
        prefix += p.text;
        continue;
      }
      const pt = this.taintOf(p.expr);
      if (!pt) {
        prefix += constString(p.expr)?.value ?? '\0';
        continue;
      }
      if (prefix === '') return { ...t, urlFixed: pt.urlFixed, schemeFixed: pt.schemeFixed, relPath: pt.relPath };
      const urlFixed = CLOSED_ORIGIN.test(prefix) || CLOSED_BASE.test(prefix);
      return { ...t, urlFixed, schemeFixed: !urlFixed && OPEN_HOST.test(prefix), relPath: !prefix.includes('\0') && RELATIVE.test(prefix) && !SCHEME.test(prefix) };
    }
    return t;
  }

  private argTaints(call: CallExpression | NewExpression): (Taint | undefined)[] {
    return (call.getArguments() ?? []).map((a) => this.taintOf(a));
  }

  private callTaint(call: CallExpression): Taint | undefined {
    const callee = unwrap(call.getExpression());
    const args = call.getArguments();
    const o = originCached(callee, this.run_.sources);
    const m = o ? last(o) : '';
    if (o && PATH_MODULES.has(o.module)) {
      if (m === 'resolve' || m === 'join' || m === 'normalize') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, resolved: true, relative: false };
      }
      if (m === 'relative') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, relative: true, resolved: false };
      }
      if (m === 'basename') {
        const t = args[0] && this.taintOf(args[0]);
        return t ? { ...t, root: false, basename: true } : undefined;
      }
      if (m === 'dirname' || m === 'extname') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, part: true };
      }
      if (m === 'format' || m === 'toNamespacedPath') return merge(args.map((a) => this.taintOf(a)));
      return undefined;
    }
    if (o && FS_MODULES.has(o.module) && (m === 'realpath' || m === 'realpathSync' || m === 'native')) {
      const t = args[0] && this.taintOf(args[0]);
      return t ? { ...t, root: false, resolved: true } : undefined;
    }
    const calleeName = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if ((o && ESCAPE_MODULES.has(o.module)) || ESCAPE_NAME.test(calleeName)) {
      const t = merge(args.map((a) => this.taintOf(a)));
      return t && { ...t, escaped: true };
    }
    if (o?.module === GLOBAL && PASS_GLOBALS.has(o.path[0] ?? '')) {
      if (NON_TEXT_METHODS.has(m) || /^(?:is|has)/.test(m)) return undefined;
      return merge(args.map((a) => this.taintOf(a)));
    }
    if (Node.isPropertyAccessExpression(callee)) {
      const recv = this.taintOf(callee.getExpression());
      const name = callee.getName();
      if (recv) {
        if (NON_TEXT_METHODS.has(name)) return undefined;
        const extra = name === 'concat' ? args.map((a) => this.taintOf(a)) : [];
        const t = merge([recv, ...extra]);
        return t && { ...t, basename: recv.basename, escaped: recv.escaped, part: recv.part || PART_METHODS.has(name), replaced: recv.replaced || name === 'replace' || name === 'replaceAll' };
      }
      if (name === 'concat' || name === 'replace' || name === 'replaceAll') {
        const t = merge((name === 'concat' ? args : args.slice(1)).map((a) => this.taintOf(a)));
        if (t) return t;
      }
    }
    // Schema.parse(args), safeParse(args).data…: validation keeps the text, minus the constrained arguments.
    if (Node.isPropertyAccessExpression(callee) && PARSE_METHODS.has(callee.getName()) && args[0] && !this.taintOf(callee.getExpression())) {
      const t = this.taintOf(args[0]);
      if (t) {
        const constrained = t.root ? constrainedArguments(callee.getExpression(), this.run_.sources) : [];
        const checked = constrained.length ? { ...t, safe: new Set([...(t.safe ?? []), ...constrained]) } : t;
        return /^safeParse/.test(callee.getName()) && !t.prefix ? { ...checked, prefix: ['data'], root: true } : checked;
      }
    }
    const f = this.depth < MAX_DEPTH ? functionCached(callee, this.run_.sources) : undefined;
    if (f) {
      const ats = this.argTaints(call);
      if (!ats.some(Boolean) && !(Node.isMethodDeclaration(f) && this.run_.hasTaintedFields(ownerClass(f)))) return undefined;
      const r = this.run_.analyze(f, ats, this.depth + 1);
      if (!r.ret) return undefined;
      const first = ats.find(Boolean);
      return { ...r.ret, keys: liftKeys(f, ats, r.ret.keys), steps: [...(first?.steps ?? []), call, ...r.ret.steps] };
    }
    return undefined;
  }

  /* ---- sinks and calls */

  private visitCall(n: CallExpression | NewExpression | TaggedTemplateExpression, flows: RawFlow[], checks: Check[]): void {
    const match = classifySink(n, this.run_.ctx);
    if (match) {
      for (const part of match.parts) {
        const ts = part.exprs.map((e) => this.taintOf(e));
        const t = merge(ts);
        if (!t) continue;
        const urlShape = part.kind === 'http' || part.kind === 'navigate' ? this.destination(n, t) : undefined;
        flows.push({
          sink: n,
          match,
          kind: part.kind,
          taint: { ...t, keys: unionKeys(new Set(), ts.flatMap((x) => (x ? [...x.keys] : []))) },
          chain: [{ fn: this.fn, at: n }],
          steps: [...t.steps, n],
          ...(urlShape ? { urlShape } : {}),
        });
      }
      return;
    }
    if (this.depth >= MAX_DEPTH) return;
    if (Node.isNewExpression(n)) {
      // new Session(command): the constructor runs with the arguments (and may keep them in fields).
      const ats = this.argTaints(n);
      const ctor = ats.some(Boolean) ? constructorOf(n, this.run_.sources) : undefined;
      if (ctor && ctor !== this.fn) this.follow(n, ctor, ats, flows, checks);
      return;
    }
    if (!Node.isCallExpression(n)) return;
    const fns = functionsOfCallee(unwrap(n.getExpression()), this.run_.sources).filter((x) => x.fn !== this.fn);
    if (!fns.length) return;
    const ats = this.argTaints(n);
    const tainted = ats.some(Boolean);
    for (const { fn, key } of fns) {
      // A method of a class whose fields hold client values runs with them, whatever its arguments.
      if (tainted || (Node.isMethodDeclaration(fn) && this.run_.hasTaintedFields(ownerClass(fn)))) this.follow(n, fn, ats, flows, checks, key);
    }
  }

  /**
   * What of an outbound request's destination the client reaches (see Flow.urlShape): the URL's own shape, or
   * a relative reference resolved against a base the client does not reach — an axios `baseURL`, a got or ky
   * `prefixUrl` (which is always prepended), in the call's options or the instance's configuration.
   */
  private destination(n: Node, t: Taint): UrlShape {
    if (t.urlFixed) return 'path';
    const req = httpRequestOf(n, this.run_.sources);
    if (req) {
      const configs = [req.options, ...req.instance].map((c) => (c ? objectLiteralOf(c, this.run_.sources) : undefined));
      const fixedKey = (key: string): boolean =>
        configs.some((c) => {
          const v = c && propertyValue(c, key);
          return !!v && !this.taintOf(v);
        });
      const tu = req.url && this.taintOf(req.url);
      if ((req.library === 'got' || req.library === 'ky') && fixedKey('prefixUrl')) return 'path';
      if (req.library === 'axios' && fixedKey('baseURL') && (!tu || tu.relPath || tu.urlFixed)) return 'path';
      if (tu && !tu.urlFixed && !tu.schemeFixed) return 'url';
    }
    return t.schemeFixed ? 'host' : 'url';
  }

  private follow(n: CallExpression | NewExpression, f: Analyzable, ats: (Taint | undefined)[], flows: RawFlow[], checks: Check[], tableKey?: string): void {
    const r = this.run_.analyze(f, ats, this.depth + 1);
    const first = ats.find(Boolean);
    for (const rf of r.flows) {
      flows.push({
        ...rf,
        taint: { ...rf.taint, keys: liftKeys(f, ats, rf.taint.keys) },
        chain: [{ fn: this.fn, at: n }, ...rf.chain],
        steps: [...(first?.steps ?? []), n, ...rf.steps],
        tableKey: rf.tableKey ?? tableKey,
      });
    }
    for (const c of r.checks) {
      if (this.seenChecks.has(c)) continue;
      this.seenChecks.add(c);
      checks.push(c);
      // A check of the callee itself counts at this call, for the arguments that reach it (its own lifted
      // checks carry the deeper ones up, one level at a time).
      if (!c.scope && c.fn === f) checks.push({ ...c, fn: this.fn, at: n, keys: liftKeys(f, ats, c.keys) });
    }
    for (const w of r.writes) {
      const id = `${w.key}@${w.node.getStart()}`;
      if (!this.writes.has(id)) this.writes.set(id, { ...w, at: n });
    }
  }

  /* ---- checks */

  private addCheck(checks: Check[], node: Node, subjectNode: Node, subject: Taint | undefined, verdict: Partial<Record<Family, Verdict>>, scope?: Node, roots?: Node[]): void {
    if (!subject) return;
    if (!scope) {
      const g = guarding(node);
      if (!g) return;
      if (g !== 'after') scope = g;
    }
    let shown = node;
    if (verdict.fs?.guard === 'sound' && roots?.length) {
      // An allow-list that means "everything" while it is empty, and is empty unless configured.
      const bypass = openWhenEmpty(this.fn, node, roots, this.run_.sources, (e) => !!this.taintOf(e));
      if (bypass) {
        verdict = { ...verdict, fs: v('unsound', 'default-open') };
        shown = bypass;
      }
    }
    checks.push({ node: shown, fn: this.fn, at: node, keys: subject.keys, subjectKey: exprKey(subjectNode), part: subject.part, verdict, scope, ...(roots?.length ? { roots } : {}) });
  }

  private collectCheck(n: Node, checks: Check[]): void {
    if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      const args = n.getArguments();
      // A confirmation the human gives: the value is shown in an elicitation and nothing runs unless accepted.
      const gate = this.run_.elicits && mayResolveFunction(callee.compilerNode) ? functionCached(callee, this.run_.sources) : undefined;
      if (gate && asksHuman(gate, this.run_.sources) && this.gates(n)) {
        for (const a of args) {
          const t = this.taintOf(a);
          if (t) this.addCheck(checks, n, a, t, CONFIRMED);
        }
        return;
      }
      if (Node.isPropertyAccessExpression(callee)) {
        const m = callee.getName();
        const recvNode = callee.getExpression();
        const recv = this.taintOf(recvNode);
        if (m === 'startsWith' && recv) {
          const b = args[0];
          const lit = constString(b)?.value;
          if (recv.relative && lit !== undefined && lit.startsWith('..')) return this.addCheck(checks, n, recvNode, recv, { fs: v('sound', 'relative-check') });
          // A literal prefix confines only when it is an absolute folder written with its separator ('/srv/data/').
          if (lit !== undefined) {
            const root = lit.length > 1 && /^(?:\/|[A-Za-z]:\\)/.test(lit) && /[\\/]$/.test(lit);
            return this.addCheck(checks, n, recvNode, recv, root && recv.resolved ? { fs: v('sound', 'separator-prefix'), process: v('unsound', 'blocklist') } : DENY);
          }
          if (b && isSep(b) && constString(b) === undefined) return this.addCheck(checks, n, recvNode, recv, DENY); // startsWith(path.sep): only absoluteness
          if (hasSeparator(b)) return this.addCheck(checks, n, recvNode, recv, { fs: recv.resolved ? v('sound', 'separator-prefix') : v('unsound', 'raw-path-check'), process: v('unsound', 'blocklist') }, undefined, b ? [b] : undefined);
          return this.addCheck(checks, n, recvNode, recv, { fs: v('unsound', 'prefix-without-separator'), process: v('unsound', 'blocklist') });
        }
        if (['includes', 'indexOf', 'lastIndexOf', 'has', 'hasOwnProperty'].includes(m) && args[0]) {
          const arg = this.taintOf(args[0]);
          if (arg && !recv) {
            const denied = DENY_NAME.test(recvNode.getText());
            this.addCheck(checks, n, args[0], arg, denied ? DENY : ALLOW, undefined, [recvNode]);
            checks[checks.length - 1]!.lookup = true;
            return;
          }
          if (recv && !arg && m !== 'has' && m !== 'hasOwnProperty') return this.addCheck(checks, n, recvNode, recv, DENY);
          return;
        }
        if (m === 'test' && args[0]) {
          const re = regexSource(recvNode);
          const subj = this.taintOf(args[0]);
          if (re !== undefined && subj) return this.addCheck(checks, n, args[0], subj, patternVerdict(re));
          return;
        }
        if ((m === 'match' || m === 'search') && recv) {
          const re = regexSource(args[0]);
          return this.addCheck(checks, n, recvNode, recv, re !== undefined && m === 'match' ? patternVerdict(re) : DENY);
        }
      }
      const o = originOf(callee);
      if (o && PATH_MODULES.has(o.module) && last(o) === 'isAbsolute' && args[0]) {
        const subj = this.taintOf(args[0]);
        return this.addCheck(checks, n, args[0], subj, subj?.relative ? { fs: v('sound', 'relative-check') } : { fs: v('unsound', 'raw-path-check') });
      }
      if (o?.module === GLOBAL && o.path.join('.') === 'Object.hasOwn' && args[1]) return this.addCheck(checks, n, args[1], this.taintOf(args[1]), ALLOW);
      return;
    }
    if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (['===', '!==', '==', '!='].includes(op)) {
        const [l, r] = [n.getLeft(), n.getRight()];
        const lt = this.taintOf(l);
        const rt = this.taintOf(r);
        if (lt && !rt && constString(r)) return this.addCheck(checks, n, l, lt, ALLOW);
        if (rt && !lt && constString(l)) return this.addCheck(checks, n, r, rt, ALLOW);
        return;
      }
      if (op === 'in') {
        const lt = this.taintOf(n.getLeft());
        if (lt && !this.taintOf(n.getRight())) this.addCheck(checks, n, n.getLeft(), lt, DENY_NAME.test(n.getRight().getText()) ? DENY : ALLOW);
      }
      return;
    }
    if (Node.isSwitchStatement(n)) {
      const t = this.taintOf(n.getExpression());
      if (!t) return;
      for (const c of n.getCaseBlock().getClauses()) {
        if (Node.isCaseClause(c) && constString(c.getExpression())) this.addCheck(checks, c, n.getExpression(), t, ALLOW, c);
      }
    }
  }
}

/* ---------------------------------------------------------- confirmation */

const CONFIRMED: Partial<Record<Family, Verdict>> = { process: v('sound', 'confirmed') };
const humanMemo = new WeakMap<ts.Node, boolean>();

/**
 * Whether a function asks the human (itself, or a helper of the audited source it calls): an elicitation
 * request (`elicitInput(…)`, the SDK's `inputRequired.elicit(…)`, a request for 'elicitation/create').
 */
function asksHuman(fn: Analyzable, sources: ParsedSources, depth = 0): boolean {
  const hit = humanMemo.get(fn.compilerNode);
  if (hit !== undefined) return hit;
  humanMemo.set(fn.compilerNode, false);
  const elicits = (cn: ts.Node): boolean => {
    if (ts.isStringLiteralLike(cn)) return cn.text === 'elicitation/create';
    if (!ts.isCallExpression(cn)) return false;
    const c = rawUnwrap(cn.expression);
    if (ts.isIdentifier(c)) return c.text === 'elicitInput';
    return ts.isPropertyAccessExpression(c) && (c.name.text === 'elicitInput' || (c.name.text === 'elicit' && ts.isIdentifier(c.expression) && c.expression.text === 'inputRequired'));
  };
  let found = findNodes(fn, elicits).length > 0;
  if (!found && depth < 2) {
    for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayResolveFunction(cn.expression))) {
      if (!Node.isCallExpression(call)) continue;
      const g = functionCached(unwrap(call.getExpression()), sources);
      if (g && g !== fn && asksHuman(g, sources, depth + 1)) {
        found = true;
        break;
      }
    }
  }
  humanMemo.set(fn.compilerNode, found);
  return found;
}

/* ------------------------------------------------------- allowed roots */

/** Calls that change what a collection holds (for writes of allowed roots). */
const STORE_MUTATORS = new Set(['push', 'unshift', 'splice', 'add', 'set']);
/** Methods that give a collection derived from their receiver. */
const DERIVING_METHODS = new Set(['map', 'filter', 'slice', 'concat', 'flat', 'flatMap', 'values', 'keys', 'entries', 'toSorted']);
const CALLBACK_METHODS = new Set(['some', 'every', 'find', 'findIndex', 'filter', 'forEach', 'map', 'flatMap']);

const isModuleLevel = (id: Node): boolean => !id.getFirstAncestor((a) => isFunctionLike(a) || Node.isClassDeclaration(a) || Node.isClassExpression(a) || Node.isConstructorDeclaration(a));

/** The top-level declaring identifier of a variable a module exports under `name` (`export let roots = []`, `export { roots }`). */
function exportedVariable(sf: SourceFile, name: string): Identifier | undefined {
  let local = name;
  for (const ed of sf.getExportDeclarations()) {
    if (ed.getModuleSpecifierValue()) continue;
    for (const ne of ed.getNamedExports()) if ((ne.getAliasNode()?.getText() ?? ne.getName()) === name) local = ne.getName();
  }
  for (const st of sf.getVariableStatements()) for (const d of st.getDeclarations()) if (d.getName() === local && Node.isIdentifier(d.getNameNode())) return d.getNameNode() as Identifier;
  return undefined;
}

/**
 * Where a value is kept, as storage keys: `m:<decl>` for a module-level variable (through imports of it from
 * another module), `this@<class>` for an instance, with property paths (`.allowedDirectories`, `.*` for a
 * computed key); followed through local variables, destructuring, the collection a callback iterates
 * (`roots.some((r) => …)` reads `roots`), what a function of the audited source returns, spreads and
 * derived collections. [] when the value is not kept anywhere the analysis can name.
 */
function storageKeys(expr: Node, sources: ParsedSources, depth = 0, forWrite = false): string[] {
  if (depth > 8) return [];
  const n = stripAwait(expr);
  const union = (xs: Node[]): string[] => (forWrite ? [] : [...new Set(xs.flatMap((x) => storageKeys(x, sources, depth + 1)))]);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return [];
    const imp = importOfDecl(d);
    if (imp) {
      const target = resolveRelativeModule(sources.rel(d.getSourceFile()), imp.spec, sources);
      const decl = target && imp.imported !== '*' ? exportedVariable(target, imp.imported) : undefined;
      return decl ? [`m:${declKey(decl)}`] : [];
    }
    const p = d.getParent();
    if (isModuleLevel(d) && (Node.isVariableDeclaration(p) || Node.isBindingElement(p))) return [`m:${declKey(d)}`];
    // Assigning a local variable changes nothing stored; writing through it (`cfg.roots = …`) does.
    if (forWrite && depth === 0) return [];
    if (Node.isVariableDeclaration(p) && p.getNameNode() === d) {
      const init = p.getInitializer();
      return init ? storageKeys(init, sources, depth + 1, forWrite) : [];
    }
    if (Node.isBindingElement(p)) {
      const holder = p.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      const pn = p.getPropertyNameNode();
      const prop = pn ? propertyName(pn) : p.getName();
      const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
      return init && prop !== undefined && p.getParent() === holder!.getNameNode() ? storageKeys(init, sources, depth + 1).map((k) => `${k}.${prop}`) : [];
    }
    if (Node.isParameterDeclaration(p)) {
      // roots.some((root) => …): the parameter is an element of the collection.
      const cb = p.getParent();
      const call = cb?.getParent();
      if (isFunctionLike(cb) && Node.isCallExpression(call) && (call.getArguments() as Node[]).includes(cb)) {
        const c = unwrap(call.getExpression());
        if (Node.isPropertyAccessExpression(c) && CALLBACK_METHODS.has(c.getName())) return storageKeys(c.getExpression(), sources, depth + 1);
      }
    }
    return [];
  }
  if (Node.isThisExpression(n)) {
    const cls = rawEnclosingClass(n.compilerNode);
    return cls ? [`this@${classId(cls)}`] : [];
  }
  if (Node.isPropertyAccessExpression(n)) return storageKeys(n.getExpression(), sources, depth + 1, forWrite).map((k) => `${k}.${n.getName()}`);
  if (Node.isElementAccessExpression(n)) {
    const key = constString(n.getArgumentExpression())?.value;
    return storageKeys(n.getExpression(), sources, depth + 1, forWrite).map((k) => `${k}.${key ?? '*'}`);
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    // A derived collection is a copy: writing into it changes nothing stored.
    if (Node.isPropertyAccessExpression(callee) && DERIVING_METHODS.has(callee.getName())) return forWrite ? [] : storageKeys(callee.getExpression(), sources, depth + 1);
    const fn = functionCached(callee, sources);
    if (fn) return [...new Set(returnedOf(fn).flatMap((x) => storageKeys(x, sources, depth + 1, forWrite)))];
    return union(n.getArguments());
  }
  if (Node.isBinaryExpression(n) && ['+', '??', '||'].includes(n.getOperatorToken().getText())) return union([n.getLeft(), n.getRight()]);
  if (Node.isConditionalExpression(n)) return union([n.getWhenTrue(), n.getWhenFalse()]);
  if (Node.isTemplateExpression(n)) return union(n.getTemplateSpans().map((sp) => sp.getExpression()));
  if (Node.isObjectLiteralExpression(n)) return union(n.getProperties().flatMap((pr) => (Node.isSpreadAssignment(pr) ? [pr.getExpression()] : [])));
  if (Node.isArrayLiteralExpression(n)) return union(n.getElements().map((e) => (Node.isSpreadElement(e) ? e.getExpression() : e)));
  return [];
}

/** A write of `write` changes what `root` holds: the same place, a place holding it, or a part of it. */
function keysMatch(root: string, write: string): boolean {
  const w = write.endsWith('.*') ? write.slice(0, -2) : write;
  return root === w || root.startsWith(w + '.') || w.startsWith(root + '.');
}

/** `E.length === 0`, `!E.length`, `E.size === 0`, `!E || E.length === 0` → E. */
function emptyTested(cond: Node): Node | undefined {
  const u = unwrap(cond);
  const lengthOf = (x: Node): Node | undefined => {
    const v = unwrap(x);
    return Node.isPropertyAccessExpression(v) && (v.getName() === 'length' || v.getName() === 'size') ? v.getExpression() : undefined;
  };
  if (Node.isPrefixUnaryExpression(u) && u.getOperatorToken() === SyntaxKind.ExclamationToken) return lengthOf(u.getOperand());
  if (Node.isBinaryExpression(u)) {
    const op = u.getOperatorToken().getText();
    if (op === '||') return emptyTested(u.getLeft()) ?? emptyTested(u.getRight());
    const l = u.getLeft();
    const r = u.getRight();
    const num = (x: Node): string | undefined => (Node.isNumericLiteral(unwrap(x)) ? unwrap(x).getText() : undefined);
    if ((op === '===' || op === '==' || op === '<=') && num(r) === '0') return lengthOf(l);
    if (op === '<' && num(r) === '1') return lengthOf(l);
    if ((op === '===' || op === '==') && num(l) === '0') return lengthOf(r);
  }
  return undefined;
}

/** `E.length > 0`, `E.length !== 0`, `E.length >= 1`, `E.length` (truthy), `E.size > 0` → E. */
function nonEmptyTested(cond: Node): Node | undefined {
  const u = unwrap(cond);
  const lengthOf = (x: Node): Node | undefined => {
    const v = unwrap(x);
    return Node.isPropertyAccessExpression(v) && (v.getName() === 'length' || v.getName() === 'size') ? v.getExpression() : undefined;
  };
  if (Node.isPropertyAccessExpression(u)) return lengthOf(u);
  if (Node.isBinaryExpression(u)) {
    const op = u.getOperatorToken().getText();
    const num = Node.isNumericLiteral(unwrap(u.getRight())) ? unwrap(u.getRight()).getText() : undefined;
    if ((op === '>' || op === '!==' || op === '!=') && num === '0') return lengthOf(u.getLeft());
    if (op === '>=' && num === '1') return lengthOf(u.getLeft());
  }
  return undefined;
}

/** Does a branch let the value through (return true, or the client's value itself), without throwing or returning anything else? */
function accepts(stmt: Node | undefined, carriesValue: (n: Node) => boolean): boolean {
  if (!stmt) return false;
  let ok = false;
  let refused = false;
  const test = (n: Node): void => {
    if (Node.isThrowStatement(n)) refused = true;
    else if (Node.isReturnStatement(n)) {
      const e = n.getExpression() && unwrap(n.getExpression()!);
      if (e && (Node.isTrueLiteral(e) || carriesValue(e))) ok = true;
      else refused = true;
    }
  };
  test(stmt);
  stmt.forEachDescendant((n, trav) => {
    if (isFunctionLike(n)) return trav.skip();
    test(n);
  });
  return ok && !refused;
}

/**
 * Whether a collection may be empty when nothing is configured: an empty array or Set written as its value
 * or as a default (`config.allowedDirectories ?? []`, `{ allowedDirectories: [] }`), followed through
 * variables, imports, fields, object properties (spreads included) and what functions return.
 */
function mayBeEmpty(expr: Node | undefined, sources: ParsedSources, depth = 0): boolean {
  if (!expr || depth > 8) return false;
  const n = stripAwait(expr);
  const again = (x: Node | undefined): boolean => mayBeEmpty(x, sources, depth + 1);
  if (Node.isArrayLiteralExpression(n)) return n.getElements().length === 0;
  if (Node.isNewExpression(n)) return /^(?:Set|Map|Array)$/.test(n.getExpression().getText()) && n.getArguments().length === 0;
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) return again(n.getRight()) || again(n.getLeft());
  if (Node.isConditionalExpression(n)) return again(n.getWhenTrue()) || again(n.getWhenFalse());
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return false;
    const p = d.getParent();
    if (Node.isBindingElement(p)) {
      const holder = p.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      const pn = p.getPropertyNameNode();
      const prop = pn ? propertyName(pn) : p.getName();
      const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
      return (!!p.getInitializer() && again(p.getInitializer())) || (!!init && prop !== undefined && propertyMayBeEmpty(init, prop, sources, depth + 1));
    }
    if (Node.isVariableDeclaration(p) && !p.getInitializer()) return assignedValues(d).some((x) => again(x));
    const v = valueOfDeclaration(d, sources);
    return !!v && v !== n && !Node.isSourceFile(v) && again(v);
  }
  if (Node.isPropertyAccessExpression(n)) {
    if (Node.isThisExpression(unwrap(n.getExpression()))) return fieldValues(n).some((x) => again(x));
    return propertyMayBeEmpty(n.getExpression(), n.getName(), sources, depth + 1);
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee) && DERIVING_METHODS.has(callee.getName())) return again(callee.getExpression());
    const fn = functionCached(callee, sources);
    return !!fn && returnedOf(fn).some((x) => again(x));
  }
  return false;
}

/** What a function returns: its expression body, or the expressions of its own return statements. */
function returnedOf(fn: Analyzable): Node[] {
  const body = fn.getBody();
  if (body && !Node.isBlock(body)) return [body];
  return ownReturns(fn).flatMap((r) => (r.expression ? [wrapNode(fn.getSourceFile(), r.expression)] : []));
}

/** Whether property `prop` of the object an expression holds may be an empty collection (see mayBeEmpty). */
function propertyMayBeEmpty(obj: Node, prop: string, sources: ParsedSources, depth: number): boolean {
  if (depth > 8) return false;
  const o = stripAwait(obj);
  const lit = Node.isObjectLiteralExpression(o) ? o : objectLiteralOf(o, sources);
  if (lit) {
    const v = propertyValue(lit, prop);
    if (v) return mayBeEmpty(v, sources, depth + 1);
    return lit.getProperties().some((p) => Node.isSpreadAssignment(p) && propertyMayBeEmpty(p.getExpression(), prop, sources, depth + 1));
  }
  if (Node.isPropertyAccessExpression(o) && Node.isThisExpression(unwrap(o.getExpression()))) return fieldValues(o).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
  if (Node.isIdentifier(o)) {
    const d = declarationOf(o);
    if (!d) return false;
    const p = d.getParent();
    if (Node.isVariableDeclaration(p) && !p.getInitializer()) return assignedValues(d).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
    const v = valueOfDeclaration(d, sources);
    return !!v && v !== o && !Node.isSourceFile(v) && propertyMayBeEmpty(v, prop, sources, depth + 1);
  }
  if (Node.isCallExpression(o)) {
    const fn = functionCached(unwrap(o.getExpression()), sources);
    return !!fn && returnedOf(fn).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
  }
  return false;
}

/**
 * The branch that makes a confinement check open to everything while its allow-list is empty, when the list
 * may be empty by default: an earlier `if (allowed.length === 0) return true` (or return the path) in the
 * function of the check, or the check written as `allowed.length === 0 || …` / `allowed.length > 0 && !ok`.
 */
function openWhenEmpty(fn: Analyzable, check: Node, roots: Node[], sources: ParsedSources, carriesValue: (n: Node) => boolean): Node | undefined {
  const body = fn.getBody();
  if (!body) return undefined;
  // The tested list must be the one the check compares with (the same storage, or the same expression).
  let rootKeys: string[] | undefined;
  const rootText = roots.map((r) => r.getText()).join(' ') + ' ' + check.getAncestors().slice(0, 6).map((a) => (Node.isCallExpression(a) ? a.getExpression().getText() : '')).join(' ');
  const sameList = (e: Node): boolean => {
    rootKeys ??= [...new Set(roots.flatMap((r) => storageKeys(r, sources)))];
    const keys = storageKeys(e, sources);
    return keys.some((k) => rootKeys!.includes(k)) || rootText.includes(e.getText());
  };
  const open = (e: Node | undefined): boolean => !!e && sameList(e) && mayBeEmpty(e, sources);
  for (let cur: Node = check, p = check.getParent(); p && p !== body; cur = p, p = p.getParent()) {
    if (Node.isBinaryExpression(p)) {
      const op = p.getOperatorToken().getText();
      const other = p.getLeft() === cur ? p.getRight() : p.getLeft();
      const e = op === '||' ? emptyTested(other) : op === '&&' ? nonEmptyTested(other) : undefined;
      if (open(e)) return p;
    }
    if (Node.isStatement(p)) break;
  }
  for (const st of findNodes(body, (cn) => ts.isIfStatement(cn) && cn.getStart() < check.getStart())) {
    if (!Node.isIfStatement(st) || st.getThenStatement().containsRange(check.getPos(), check.getEnd())) continue;
    const e = emptyTested(st.getExpression());
    if (e && accepts(st.getThenStatement(), carriesValue) && open(e)) return st;
  }
  return undefined;
}

/* ------------------------------------------------------------ guarding */

const REJECT_CALL = /(?:error|reject|deny|denied|fail|forbid|refuse|abort|exit)/i;
const ASSERT_CALL = /^(?:assert|invariant|ensure|check|expect|require|verify|validate)/i;

/** Does this statement leave the normal path: throw, return nothing / false / null / an error result, continue, break, exit? */
function rejects(stmt: Node | undefined): boolean {
  if (!stmt) return false;
  let found = false;
  const test = (n: Node): void => {
    if (Node.isThrowStatement(n) || Node.isContinueStatement(n) || Node.isBreakStatement(n)) found = true;
    else if (Node.isReturnStatement(n)) {
      const e = n.getExpression() && unwrap(n.getExpression()!);
      if (!e || Node.isFalseLiteral(e) || Node.isNullLiteral(e) || e.getText() === 'undefined') found = true;
      else if (Node.isObjectLiteralExpression(e) && propertyValue(e, 'isError')) found = true;
      else if ((Node.isCallExpression(e) || Node.isNewExpression(e)) && REJECT_CALL.test(e.getExpression().getText())) found = true;
    } else if (Node.isCallExpression(n) && REJECT_CALL.test(n.getExpression().getText())) found = true;
  };
  test(stmt);
  stmt.forEachDescendant((n, trav) => {
    if (isFunctionLike(n)) {
      trav.skip();
      return;
    }
    test(n);
    if (found) trav.stop();
  });
  return found;
}

/**
 * Is a check in a position where it guards? 'after' when it rejects (an `if` whose branch throws, returns
 * an error or nothing, continues), decides what a predicate returns, is kept in a variable or asserted: it
 * then guards what follows it. A node when it selects a branch (`if (ok) { … }`, `ok ? … : …`): it guards
 * what that branch holds. Undefined when it guards nothing (a check whose branch only transforms the
 * value, or whose result is thrown away).
 */
function guarding(check: Node): 'after' | Node | undefined {
  let prev: Node = check;
  let cur = check.getParent();
  while (cur) {
    if (Node.isParenthesizedExpression(cur) || Node.isPrefixUnaryExpression(cur) || Node.isAwaitExpression(cur) || Node.isAsExpression(cur) || Node.isNonNullExpression(cur)) {
      prev = cur;
      cur = cur.getParent();
      continue;
    }
    if (Node.isBinaryExpression(cur) && ['&&', '||', '??', '===', '!==', '==', '!='].includes(cur.getOperatorToken().getText())) {
      prev = cur;
      cur = cur.getParent();
      continue;
    }
    if (Node.isIfStatement(cur) && cur.getExpression() === prev) {
      if (rejects(cur.getThenStatement()) || rejects(cur.getElseStatement())) return 'after';
      return cur.getThenStatement();
    }
    if (Node.isConditionalExpression(cur) && cur.getCondition() === prev) return cur.getWhenTrue();
    if (Node.isReturnStatement(cur) || Node.isVariableDeclaration(cur) || (Node.isArrowFunction(cur) && cur.getBody() === prev)) return 'after';
    if (Node.isBinaryExpression(cur) && cur.getOperatorToken().getText() === '=') return 'after';
    if (Node.isCallExpression(cur)) {
      const callee = unwrap(cur.getExpression());
      const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
      if (ASSERT_CALL.test(name)) return 'after';
      // a predicate passed to some/every/filter/find: its result is the helper's verdict
      if (['some', 'every', 'filter', 'find', 'findIndex'].includes(name)) return 'after';
      return undefined;
    }
    if (isFunctionLike(cur)) {
      // the body of a predicate callback `(d) => …`
      return Node.isArrowFunction(cur) && cur.getBody() === prev ? 'after' : undefined;
    }
    return undefined;
  }
  return undefined;
}

/* ------------------------------------------------------------ judgement */

const rank: Record<Guard, number> = { none: 0, unsound: 1, sound: 2 };
/** Among unsound checks, the one closest to a real confinement is reported. */
const detailRank = (d: GuardDetail | undefined): number => (d === 'roots-writable' ? 4 : d === 'default-open' ? 3 : d === 'prefix-without-separator' ? 2 : d ? 1 : 0);

/**
 * Does a check test the value that reaches the sink? Yes when the checked expression is one the value went
 * through, or when the checked value and the sink's value share a variable other than a whole arguments
 * object — unless the checked value is only a piece of a value (`url.protocol`, `p.split('/')[0]`,
 * `extname(p)`), which counts only for a URL looked up in a collection (`ALLOWED_HOSTS.has(url.hostname)`).
 */
function relevant(c: Check, f: RawFlow, rootKeys: ReadonlySet<string>): boolean {
  if (c.subjectKey && f.taint.keys.has(c.subjectKey) && !rootKeys.has(c.subjectKey)) return true;
  if (c.part && !((f.kind === 'http' || f.kind === 'navigate') && c.lookup)) return false;
  for (const k of c.keys) if (f.taint.keys.has(k) && !rootKeys.has(k)) return true;
  return false;
}

/**
 * A check made while computing an argument of the call a flow goes through (`readFile(insideRoot(name))`):
 * arguments are evaluated before the call, so it counts as coming first — unless it sits in a callback.
 */
function argumentOf(inner: Node, call: Node): boolean {
  if (inner === call || inner.getStart() < call.getStart() || inner.getEnd() > call.getEnd()) return false;
  for (let p = inner.getParent(); p && p !== call; p = p.getParent()) if (isFunctionLike(p)) return false;
  return true;
}

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

function judge(f: RawFlow, checks: Check[], run: Run): { guard: Guard; detail?: GuardDetail; at?: Node; writer?: string } {
  const rootKeys = run.rootKeys;
  if (f.kind === 'argument') return { guard: 'sound', detail: 'argv-no-shell' };
  if (f.kind === 'fs' && f.taint.basename) return { guard: 'sound', detail: 'basename' };
  if (f.kind === 'shell' && f.taint.escaped) return { guard: 'sound', detail: 'escaped' };
  const family: Family = f.kind === 'fs' ? 'fs' : 'process';
  let best: { guard: Guard; detail?: GuardDetail; at?: Node; writer?: string } = f.taint.replaced
    ? { guard: 'unsound', detail: family === 'fs' ? 'raw-path-check' : 'blocklist', at: f.steps.find((s) => /\.replace(?:All)?\(/.test(s.getText())) }
    : { guard: 'none' };
  for (const c of checks) {
    let verdict = c.verdict[family];
    if (!verdict) continue;
    if (!relevant(c, f, rootKeys)) continue;
    // A confinement whose allowed roots a tool can rewrite confines nothing.
    const writer = family === 'fs' && verdict.guard === 'sound' ? rootsWriter(c, run) : undefined;
    if (writer) verdict = { guard: 'unsound', detail: 'roots-writable' };
    const link = f.chain.find((l) => l.fn === c.fn);
    if (!link) continue;
    if (c.scope) {
      if (!(link.at.getStart() >= c.scope.getStart() && link.at.getEnd() <= c.scope.getEnd())) continue;
    } else if (c.at.getStart() >= link.at.getStart() && !argumentOf(c.at, link.at)) continue;
    if (rank[verdict.guard] > rank[best.guard] || (verdict.guard === best.guard && detailRank(verdict.detail) > detailRank(best.detail))) {
      best = writer ? { guard: verdict.guard, detail: verdict.detail, at: writer.node, writer: writer.tool } : { guard: verdict.guard, detail: verdict.detail, at: c.node };
    }
  }
  return best;
}

/* ---------------------------------------------------------------- public */

const flowMemo = new WeakMap<RepoFacts, Flow[]>();
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
  for (const f of r.flows) {
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
      tool: branch?.name ?? (entry.branches && f.tableKey) ?? entry.name,
      entryKind: entry.kind,
      sinkKind: f.kind,
      sinkCall: f.match.call,
      ...(f.match.access ? { access: f.match.access } : {}),
      ...(f.match.family === 'process' ? { shell: f.kind === 'shell' } : {}),
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
  'child_process', 'cross-spawn', 'execa', 'shelljs', 'zx', 'vm', ...FS_MODULES, ...HTTP_MODULES,
  'axios', 'got', 'node-fetch', 'cross-fetch', 'undici', 'ky',
]);
/** Names a sink can have without an import: globals (eval, Function, fetch) and the SDK's StdioClientTransport. */
const IMPORTLESS_SINK_NAMES = ['eval', 'Function', 'fetch', 'StdioClientTransport'];
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
    return !!name && (IMPORTLESS_SINK_NAME.test(name) || aliases.has(name) || (ctx.browser && NAVIGATION_NAMES.has(name) && ts.isCallExpression(cn)));
  };
  // A file with no name leading to a sink module: only the names decide, so the name index finds the calls.
  if (rooted.size === 0) return namedFilter([...IMPORTLESS_SINK_NAMES, ...aliases, ...(ctx.browser ? NAVIGATION_NAMES : [])], byName);
  return (cn: ts.Node): boolean => {
    if (byName(cn)) return true;
    // The root of the callee (`fs` in fs.promises.readFile): a name leading to a sink module, require()/import()
    // itself, or `this` (a field holding a client: `this.http.get(…)`).
    let e: ts.Node | undefined = ts.isCallExpression(cn) || ts.isNewExpression(cn) ? cn.expression : ts.isTaggedTemplateExpression(cn) ? cn.tag : undefined;
    for (let i = 0; e && i < 32; i++) {
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
  const ctx = { sources, browser };
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
