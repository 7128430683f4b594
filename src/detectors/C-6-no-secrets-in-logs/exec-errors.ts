import { Node, SyntaxKind, ts, type SourceFile } from '../../facts/morph.js';
import type { Finding } from '../../engine/types.js';
import { functionOf, isRawFunctionLike, rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import { rawOfKinds, rawPositionOf, rawUnwrap, unwrap, wrapNode } from '../../facts/ts-source.js';
import { isFn, passThrough, sinkOf, type Code, type Fn } from '../support/source/code-paths.js';

/**
 * C-6 (static) — a failed command's raw error sent to the client. When `exec`, `execSync`, `execFile` or
 * `execFileSync` of node:child_process (or their promisified forms, or execa) fails, the error's message is
 * `Command failed: <the whole command line>` followed by the command's raw stderr, and the error also carries
 * `cmd` and `stderr`: the command line names the binaries, config files (`--kubeconfig /home/…`) and any
 * credential passed as a flag; stderr carries the CLI's own internals. The rule calls `String(err)` of a system
 * error sent to the client red. Red when all of these hold:
 *   - a `catch (err)` whose `try` block runs such a command, directly or through functions of the package
 *     (two calls deep: a handler → a service method → the exec helper), outside a nested `try` that has its own
 *     `catch` (that one handles the failure, and is judged on its own);
 *   - the catch block puts `err.message`, `err.stderr`, `err.cmd`, `String(err)`, `${err}` or `err` whole
 *     (JSON.stringify) into a tool result's `content` / `structuredContent` (directly, or through a helper of the
 *     package whose parameter lands there, such as `createResponse(op, text, isError)`), into
 *     `new McpError(…)`, or into an error thrown (or rethrown) from a tool handler.
 * The same holds for a driver's failure to connect or launch (DRIVER_ENTRIES: SQL Server, Postgres, MySQL,
 * Puppeteer, Playwright, Selenium) when the `try` block opens the connection or launches the browser (directly or two
 * calls deep): its message names the host and port, or the absolute path of the browser. A runner that wraps the
 * command or the connection in `new Promise((resolve, reject) => …)` is read through the executor when `reject` gets the
 * failure's own error (a listener, or a callback's error parameter); `reject(new Error('…'))` hands on a fixed message.
 * A `.catch(fn)` / `.then(ok, fn)` whose handler does not throw its parameter handles the failure like a catch. A pool
 * (`createPool`, `new Pool`) opens nothing until its `connect()` / `getConnection()`.
 * `err.code`, `err.status`, `err.signal`, a fixed message, a message mapped from stderr's content, and the message of
 * the package's own error class (`err instanceof SyncError ? err.message : 'Sync failed.'`) are fine.
 */

const CP_FUNCTIONS = new Set(['exec', 'execSync', 'execFile', 'execFileSync']);
const EXECA_FUNCTIONS = new Set(['execa', 'execaSync', 'execaCommand', 'execaCommandSync', '$', 'default']);
/** Properties of a child-process error that carry the command line or its raw stderr. */
const RAW_PROPS = new Set(['message', 'stderr', 'cmd', 'command', 'shortMessage', 'all']);
const ERROR_CLASSES = /(?:^|\.)(?:McpError|ProtocolError)$/;

/**
 * Drivers whose failure to connect or launch is a system message: the connection error names the host and port
 * (`Failed to connect to db.internal:1433`, `connect ECONNREFUSED 10.0.0.5:22`), a browser's launch error the absolute
 * path of its executable or cache (`Executable doesn't exist at /home/…/ms-playwright/…`). Keyed by module, the last
 * name of the call or constructor that opens the connection or launches the browser (an instance's later calls are
 * not followed: the error is only certain where the try block opens the connection; a constructor that only builds the
 * client, LAZY_CONSTRUCTORS, counts with a `.connect()` in the same reading). An SSH client is left out: its
 * errors are short and name only the host the caller gave (see present/cli-errors-mapped).
 */
const DRIVER_ENTRIES: Readonly<Record<string, ReadonlySet<string>>> = {
  tedious: new Set(['Connection']),
  // A pool opens nothing until its `connect`/`getConnection` (POOL_ENTRIES).
  mssql: new Set(['connect']),
  pg: new Set(['Client']),
  mysql: new Set(['createConnection']),
  mysql2: new Set(['createConnection']),
  'mysql2/promise': new Set(['createConnection']),
  puppeteer: new Set(['launch', 'connect']),
  'puppeteer-core': new Set(['launch', 'connect']),
  playwright: new Set(['launch', 'launchPersistentContext', 'connect', 'connectOverCDP']),
  'playwright-core': new Set(['launch', 'launchPersistentContext', 'connect', 'connectOverCDP']),
  'selenium-webdriver': new Set(['Builder']),
};
/**
 * Pools: `mysql.createPool(…)`, `new pg.Pool(…)`, `new sql.ConnectionPool(…)` open no connection; a `pool.query`
 * failure is mostly the caller's SQL error. Only the pool's explicit `connect()` / `getConnection()` (on the pool
 * expression itself or a `const`/`let` initialised with it) opens one.
 */
const POOL_ENTRIES: Readonly<Record<string, ReadonlySet<string>>> = {
  mssql: new Set(['ConnectionPool']),
  pg: new Set(['Pool']),
  mysql: new Set(['createPool']),
  mysql2: new Set(['createPool']),
  'mysql2/promise': new Set(['createPool']),
};
const POOL_OPENERS = new Set(['connect', 'getConnection']);
const SYSTEM_MODULES = /child_process|execa|tedious|mssql|\bpg\b|mysql|puppeteer|playwright|selenium-webdriver/;

/** Is this callee a child-process runner of node:child_process or execa (promisified forms included)? */
function isExecCallee(callee: ts.Node): boolean {
  const o = rawOriginOf(callee);
  if (!o) return false;
  const last = o.path[o.path.length - 1] ?? '';
  if (o.module === 'child_process') return CP_FUNCTIONS.has(last);
  if (o.module === 'execa') return o.path.length === 0 || EXECA_FUNCTIONS.has(last);
  return false;
}

/** The driver module when this callee (of a call or a `new`) opens a connection or launches a browser (DRIVER_ENTRIES). */
function driverOf(callee: ts.Node): string | undefined {
  const o = rawOriginOf(callee);
  const entries = o && DRIVER_ENTRIES[o.module];
  if (!o || !entries) return undefined;
  const path = o.path.filter((p) => p !== 'default');
  return entries.has(path[path.length - 1] ?? '') ? o.module : undefined;
}

/**
 * Constructors of DRIVER_ENTRIES that only build a client: nothing connects until `.connect()` (pg's Client, tedious'
 * Connection), so a `try` around the construction alone cannot catch a connection error. Pools are not driver entries
 * at all (POOL_ENTRIES).
 */
const LAZY_CONSTRUCTORS: Readonly<Record<string, ReadonlySet<string>>> = {
  tedious: new Set(['Connection']),
  pg: new Set(['Client']),
};

/** `new Client(cfg)` of LAZY_CONSTRUCTORS: a driver entry that counts only with a `.connect()` in the same reading. */
function isLazyConstruction(n: ts.Node, source: string): boolean {
  if (!ts.isNewExpression(n)) return false;
  const o = rawOriginOf(n.expression);
  const path = o ? o.path.filter((p) => p !== 'default') : [];
  return LAZY_CONSTRUCTORS[source]?.has(path[path.length - 1] ?? '') ?? false;
}

/** The driver module when `recv.connect()` / `recv.getConnection()` is called on a pool (POOL_ENTRIES). */
function poolOpenOf(call: ts.CallExpression): string | undefined {
  const c = rawUnwrap(call.expression);
  if (!ts.isPropertyAccessExpression(c) || !POOL_OPENERS.has(c.name.text)) return undefined;
  let r = rawUnwrap(c.expression);
  if (ts.isAwaitExpression(r)) r = rawUnwrap(r.expression);
  if (ts.isIdentifier(r)) {
    const decl = rawDeclarationOf(r)?.parent;
    const init = decl && ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
    if (!init) return undefined;
    r = rawUnwrap(init);
    if (ts.isAwaitExpression(r)) r = rawUnwrap(r.expression);
  }
  if (!ts.isCallExpression(r) && !ts.isNewExpression(r)) return undefined;
  const o = rawOriginOf(r.expression);
  const entries = o && POOL_ENTRIES[o.module];
  if (!o || !entries) return undefined;
  const path = o.path.filter((p) => p !== 'default');
  return entries.has(path[path.length - 1] ?? '') ? o.module : undefined;
}

/** What a call or `new` runs: 'command' for a child-process runner, the driver module for a driver entry, else undefined. */
function systemSource(n: ts.Node): string | undefined {
  if (ts.isCallExpression(n)) return isExecCallee(n.expression) ? 'command' : (driverOf(n.expression) ?? poolOpenOf(n));
  if (ts.isNewExpression(n)) return driverOf(n.expression);
  return undefined;
}

/** Helpers a compiler emits for `async` functions: their function argument is the async body itself. */
const ASYNC_HELPERS = new Set(['__awaiter', '__async', '__generator']);

/**
 * A function that stands for the code around it: the executor of `new Promise((resolve, reject) => …)` (it runs at
 * once), or the body a compiler hands to `__awaiter(this, …, function* () {…})` / `__async(…)` / `__generator(…)`
 * (an `async` function compiled for an older target).
 */
function isPromiseExecutor(fn: ts.Node): boolean {
  const p = fn.parent;
  if (!p || !(ts.isNewExpression(p) || ts.isCallExpression(p)) || !p.arguments?.includes(fn as ts.Expression)) return false;
  const c = rawUnwrap(p.expression);
  if (!ts.isIdentifier(c)) return false;
  return ts.isNewExpression(p) ? c.text === 'Promise' && p.arguments[0] === fn : ASYNC_HELPERS.has(c.text);
}

/**
 * Does a `new Promise((resolve, reject) => …)` executor hand a failure's own error to `reject`: `reject` passed as a
 * listener or callback (`conn.on('error', reject)`), or `reject(x)` whose argument reads a parameter of a callback
 * inside the executor (`(err) => err ? reject(err) : …`)? `reject(new Error('Database unavailable'))` does not.
 * Memoised per executor.
 */
const rejectMemo = new WeakMap<ts.Node, boolean>();
function rejectsRawError(executor: ts.Node): boolean {
  const hit = rejectMemo.get(executor);
  if (hit !== undefined) return hit;
  let found = false;
  const fn = executor as ts.FunctionLikeDeclaration;
  const rej = fn.parameters?.[1]?.name;
  if (rej && ts.isIdentifier(rej)) {
    const params = new Set<string>();
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (n !== executor && isRawFunctionLike(n)) {
        const ps = (n as ts.FunctionLikeDeclaration).parameters ?? [];
        for (const q of ps) if (ts.isIdentifier(q.name) && q.name.text !== rej.text) params.add(q.name.text);
      }
      if (ts.isIdentifier(n) && n.text === rej.text && n !== rej) {
        const p = n.parent;
        if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.arguments?.includes(n)) found = true; // a listener
        else if (ts.isCallExpression(p) && p.expression === n) {
          const reads = (a: ts.Node): boolean => (ts.isIdentifier(a) && params.has(a.text)) || (ts.forEachChild(a, (c) => reads(c) || undefined) ?? false);
          if (p.arguments.some((a) => reads(a))) found = true;
        }
      }
      ts.forEachChild(n, visit);
    };
    ts.forEachChild(executor, visit);
  } else found = true; // `new Promise(run)` or a destructured parameter: not read, keep the executor
  rejectMemo.set(executor, found);
  return found;
}

/** `new Promise(…)`'s executor (not a compiler's async helper). */
function isNewPromiseExecutor(fn: ts.Node): boolean {
  return isPromiseExecutor(fn) && ts.isNewExpression(fn.parent);
}

/**
 * `p.catch((e) => { throw new Error('Database unavailable'); })` or `p.then(ok, () => …)`: a handler of the package's
 * own that does not throw (or reject with) its parameter handles the failure, like a catch that does not rethrow.
 * A handler that is not a function written there (`.catch(reject)`, `.catch(handle)`) is not read: it passes.
 */
function handledByPromiseCatch(n: ts.Node): boolean {
  if (!ts.isCallExpression(n)) return false;
  const c = rawUnwrap(n.expression);
  if (!ts.isPropertyAccessExpression(c)) return false;
  const handler = c.name.text === 'catch' ? n.arguments[0] : c.name.text === 'then' ? n.arguments[1] : undefined;
  const h = handler && rawUnwrap(handler);
  if (!h || !(ts.isArrowFunction(h) || ts.isFunctionExpression(h))) return false;
  const param = h.parameters[0]?.name;
  if (!param) return true; // no parameter: the error is dropped
  if (!ts.isIdentifier(param)) return false;
  let passes = false;
  const visit = (x: ts.Node): void => {
    if (passes) return;
    if (ts.isIdentifier(x) && x.text === param.text && x !== param) {
      // The parameter read anywhere in a throw, a `Promise.reject(…)`, or as the arrow's value: it passes.
      for (let p: ts.Node | undefined = x.parent; p && p !== h; p = p.parent) {
        if (ts.isThrowStatement(p) || ts.isReturnStatement(p) || (ts.isCallExpression(p) && calleeName(p.expression) === 'reject') || (p === h.body && !ts.isBlock(h.body))) {
          passes = true;
          return;
        }
      }
    }
    ts.forEachChild(x, visit);
  };
  visit(h.body);
  return !passes;
}

/** `catch (e) { …; throw e; }`: a catch that rethrows its own binding lets the failure through. */
function rethrows(clause: ts.Node): boolean {
  if (!ts.isCatchClause(clause)) return false;
  const cc = clause;
  const b = cc.variableDeclaration?.name;
  if (!b || !ts.isIdentifier(b)) return false;
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found || isRawFunctionLike(n)) return;
    if (ts.isThrowStatement(n) && n.expression && ts.isIdentifier(rawUnwrap(n.expression)) && (rawUnwrap(n.expression) as ts.Identifier).text === b.text) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(cc.block);
  return found;
}

type HelperMemo = Map<Fn, Map<number, string | null>>;
type Ctx = {
  code: Code;
  runsMemo: Map<ts.Node, { depth: number; found: string | undefined }>;
  /** Files that name child_process or execa: the only ones where a call can be a runner itself. */
  execFiles: Set<ts.SourceFile>;
  /** Names of the package's functions that run a command, or call one that does (two levels): only these calls are resolved. */
  runnerNames: Set<string>;
  /** The package's named functions by name, with their file: a method called on an instance passed in as a parameter. */
  fnsByName: Map<string, { fn: ts.Node; sf: SourceFile }[]>;
  /** The package's calls by the callee's last name: who hands what to a function's parameter. */
  callsByName: Map<string, ts.CallExpression[]>;
  /** The package's classes by name, with their file. */
  classesByName: Map<string, { cls: ts.ClassLikeDeclaration; sf: SourceFile }[]>;
};

/** The last name of a callee: `run` for run(…), this.run(…), kubectl.run(…). */
function calleeName(callee: ts.Node): string | undefined {
  const c = rawUnwrap(callee);
  return ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : undefined;
}

/** The name a function goes by: its declaration's, its method's, or the variable or property it is assigned to. */
function fnName(fn: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn) || ts.isFunctionExpression(fn)) && fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  const p = fn.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && ts.isIdentifier(p.name)) return p.name.text;
  return undefined;
}

/** The name of the function around a node, if it has one (a Promise executor stands for the function around it). */
function enclosingFnName(n: ts.Node): string | undefined {
  for (let p = n.parent; p; p = p.parent) if (isRawFunctionLike(p) && !isPromiseExecutor(p)) return fnName(p);
  return undefined;
}

/**
 * One pass over the package's calls, built once per judging: the names of functions that run a command (in the files
 * that name child_process or execa), then of functions that call one of those, twice. A name is only a key: the call
 * is still resolved (functionOf) and its body read before it counts.
 */
function runnerIndex(code: Code): Pick<Ctx, 'execFiles' | 'runnerNames' | 'fnsByName' | 'callsByName' | 'classesByName'> {
  const execFiles = new Set<ts.SourceFile>();
  for (const [, sf] of code.files) if (SYSTEM_MODULES.test(sf.compilerNode.text)) execFiles.add(sf.compilerNode);
  const calls: ts.CallExpression[] = [];
  const runnerNames = new Set<string>();
  const fnsByName: Ctx['fnsByName'] = new Map();
  const callsByName: Ctx['callsByName'] = new Map();
  const classesByName: Ctx['classesByName'] = new Map();
  for (const [, sf] of code.files) {
    for (const cl of rawOfKinds(sf, [SyntaxKind.ClassDeclaration, SyntaxKind.ClassExpression], () => true)) {
      const c = cl as ts.ClassLikeDeclaration;
      const name = c.name?.text ?? (ts.isVariableDeclaration(c.parent) && ts.isIdentifier(c.parent.name) ? c.parent.name.text : undefined);
      if (!name) continue;
      const list = classesByName.get(name) ?? [];
      list.push({ cls: c, sf });
      classesByName.set(name, list);
    }
    for (const fn of rawOfKinds(sf, [SyntaxKind.FunctionDeclaration, SyntaxKind.MethodDeclaration, SyntaxKind.FunctionExpression, SyntaxKind.ArrowFunction], () => true)) {
      const name = fnName(fn);
      if (!name) continue;
      const list = fnsByName.get(name) ?? [];
      list.push({ fn, sf });
      fnsByName.set(name, list);
    }
    for (const cn of rawOfKinds(sf, [SyntaxKind.CallExpression, SyntaxKind.NewExpression], () => true)) {
      if (ts.isCallExpression(cn)) {
        calls.push(cn);
        const callee = calleeName(cn.expression);
        if (callee) {
          const list = callsByName.get(callee) ?? [];
          list.push(cn);
          callsByName.set(callee, list);
        }
      }
      if (!execFiles.has(sf.compilerNode) || !systemSource(cn)) continue;
      const name = enclosingFnName(cn);
      if (name) runnerNames.add(name);
    }
  }
  for (let level = 0; level < 2; level++) {
    const next: string[] = [];
    for (const c of calls) {
      const callee = calleeName(c.expression);
      if (!callee || !runnerNames.has(callee)) continue;
      const name = enclosingFnName(c);
      if (name && !runnerNames.has(name)) next.push(name);
    }
    for (const n of next) runnerNames.add(n);
  }
  return { execFiles, runnerNames, fnsByName, callsByName, classesByName };
}

/**
 * Does this code (not counting nested functions other than a Promise executor) run a command or open a driver's
 * connection, or call a package function that does (up to `depth` calls)? Returns 'command' or the driver module.
 */
function runsCommand(root: ts.Node, depth: number, ctx: Ctx, sf: SourceFile): string | undefined {
  // A body that runs a command within d calls also does within more; one that does not is read again deeper.
  const hit = ctx.runsMemo.get(root);
  if (hit && (hit.found || hit.depth >= depth)) return hit.found;
  ctx.runsMemo.set(root, { depth, found: undefined }); // cycles
  let found: string | undefined;
  // `new Client(cfg)` seen, waiting for a `.connect()` in the same reading (LAZY_CONSTRUCTORS).
  let lazy: string | undefined;
  let connects = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (n !== root && isRawFunctionLike(n) && (!isPromiseExecutor(n) || (isNewPromiseExecutor(n) && !rejectsRawError(n)))) return;
    // `driver.connect().catch(() => { throw new Error('…'); })`: the handler's own error, not the driver's.
    if (handledByPromiseCatch(n)) {
      const args = (n as ts.CallExpression).arguments;
      for (const a of args) visit(a);
      return;
    }
    // A nested try with its own catch handles what its block throws: only its catch and finally blocks count, unless
    // the catch rethrows the error it caught.
    if (ts.isTryStatement(n) && n.catchClause && !rethrows(n.catchClause)) {
      visit(n.catchClause.block);
      if (n.finallyBlock) visit(n.finallyBlock);
      return;
    }
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const source = ctx.execFiles.has(sf.compilerNode) ? systemSource(n) : undefined;
      if (source && isLazyConstruction(n, source)) lazy = source;
      else if (source) {
        found = source;
        return;
      }
      if (ts.isCallExpression(n) && calleeName(n.expression) === 'connect' && ts.isPropertyAccessExpression(rawUnwrap(n.expression))) connects = true;
      const callee = ts.isCallExpression(n) ? calleeName(n.expression) : undefined;
      if (depth > 0 && callee && ctx.runnerNames.has(callee)) {
        const fn = calleeFn(n as ts.CallExpression, ctx, sf);
        const target = fn ? { fn: fn.compilerNode, sf: fn.getSourceFile() } : instanceMethod(n as ts.CallExpression, callee, ctx);
        const deeper = target && runsCommand(target.fn, depth - 1, ctx, target.sf);
        if (deeper) {
          found = deeper;
          return;
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(root);
  if (!found && lazy && connects) found = lazy;
  ctx.runsMemo.set(root, { depth, found });
  return found;
}

/** The package function a call reaches (facts/scope: locals, imports, this.m, class instances), if any. */
function calleeFn(call: ts.CallExpression, ctx: Ctx, sf: SourceFile): Fn | undefined {
  try {
    return functionOf(wrapNode(sf, call.expression), ctx.code.sources) as Fn | undefined;
  } catch {
    return undefined;
  }
}

/**
 * `manager.getConnection()` where `manager` is a parameter (a class instance handed to `registerTools(server, manager)`)
 * or a field (`this.manager`) that scope cannot follow: the method of that name of class `C`, only when the package
 * hands `new C()` to that parameter (directly, or a `const m = new C()` of the caller's file) or puts `new C()` in that
 * field, and `C` declares the method. Any other receiver (a library's pool, a global, an unknown value) gives no path.
 */
function instanceMethod(call: ts.CallExpression, name: string, ctx: Ctx): { fn: ts.Node; sf: SourceFile } | undefined {
  const c = rawUnwrap(call.expression);
  if (!ts.isPropertyAccessExpression(c)) return undefined;
  const recv = rawUnwrap(c.expression);
  if (!ts.isIdentifier(recv) && !(ts.isPropertyAccessExpression(recv) && rawUnwrap(recv.expression).kind === SyntaxKind.ThisKeyword)) return undefined;
  if (rawOriginOf(recv)) return undefined;
  const classes = new Set<string>();
  if (ts.isIdentifier(recv)) {
    // The function whose parameter this is, and what its callers pass there.
    let owner: ts.FunctionLikeDeclaration | undefined;
    let index = -1;
    for (let p = recv.parent; p && !owner; p = p.parent) {
      if (!isRawFunctionLike(p)) continue;
      const ps = (p as ts.FunctionLikeDeclaration).parameters ?? [];
      const i = ps.findIndex((q) => ts.isIdentifier(q.name) && q.name.text === recv.text);
      if (i >= 0) [owner, index] = [p as ts.FunctionLikeDeclaration, i];
    }
    const ownerName = owner && fnName(owner);
    if (!ownerName) return undefined;
    for (const k of ctx.callsByName.get(ownerName) ?? []) {
      const arg = k.arguments[index];
      const cls = arg && newClassOf(arg);
      if (cls) classes.add(cls);
    }
  } else {
    // this.manager: a field initialised with `new C()`, or `this.manager = new C()` in the class's constructor.
    const field = (recv as ts.PropertyAccessExpression).name.text;
    let cls: ts.Node | undefined = recv;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    for (const m of cls && ts.isClassLike(cls) ? cls.members : []) {
      if (ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === field && m.initializer) {
        const k = newClassOf(m.initializer);
        if (k) classes.add(k);
      }
      if (ts.isConstructorDeclaration(m)) {
        for (const st of m.body?.statements ?? []) {
          const e = ts.isExpressionStatement(st) ? rawUnwrap(st.expression) : undefined;
          if (!e || !ts.isBinaryExpression(e) || e.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
          const l = rawUnwrap(e.left);
          if (!ts.isPropertyAccessExpression(l) || rawUnwrap(l.expression).kind !== SyntaxKind.ThisKeyword || l.name.text !== field) continue;
          const k = newClassOf(e.right);
          if (k) classes.add(k);
        }
      }
    }
  }
  if (classes.size !== 1) return undefined;
  const [clsName] = classes;
  const decls = ctx.classesByName.get(clsName!) ?? [];
  if (decls.length !== 1) return undefined;
  const { cls, sf } = decls[0]!;
  const method = cls.members.find((m) => ts.isMethodDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === name && m.body);
  return method ? { fn: method, sf } : undefined;
}

/** The class name of `new C(…)`, or of the `const x = new C(…)` an identifier names; else undefined. */
function newClassOf(expr: ts.Node): string | undefined {
  let e = rawUnwrap(expr);
  if (ts.isIdentifier(e)) {
    const d = rawDeclarationOf(e);
    const decl = d?.parent;
    if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return undefined;
    if (!ts.isVariableDeclarationList(decl.parent) || !(decl.parent.flags & ts.NodeFlags.Const)) return undefined;
    e = rawUnwrap(decl.initializer);
  }
  if (!ts.isNewExpression(e)) return undefined;
  const c = rawUnwrap(e.expression);
  return ts.isIdentifier(c) ? c.text : undefined;
}

/**
 * `err instanceof SyncError` with a class of the package's own (not Error), or `err.name === 'AbortError'`: the branch
 * holds one known kind of error (the package's own message, a cancellation), not a command's raw failure.
 */
function ownErrorTest(cond: Node, name: string): boolean {
  const c = unwrap(cond);
  if (!Node.isBinaryExpression(c)) return false;
  const op = c.getOperatorToken().getKind();
  const l = unwrap(c.getLeft());
  if (op === SyntaxKind.InstanceOfKeyword) return Node.isIdentifier(l) && l.getText() === name && !/^(?:Error|Object|AggregateError)$/.test(unwrap(c.getRight()).getText());
  // `err.name === 'AbortError'`: one kind of error by its class name, not a command's failure.
  if (op !== SyntaxKind.EqualsEqualsEqualsToken && op !== SyntaxKind.EqualsEqualsToken) return false;
  const r = unwrap(c.getRight());
  if (!Node.isPropertyAccessExpression(l) || l.getName() !== 'name' || !(Node.isStringLiteral(r) || Node.isNoSubstitutionTemplateLiteral(r))) return false;
  const recv = unwrap(l.getExpression());
  return Node.isIdentifier(recv) && recv.getText() === name && /Error$/.test(r.getLiteralText());
}

/** Is `ref` in the branch taken when the error is one of the package's own classes (`e instanceof AppError ? e.message : …`)? */
function inOwnErrorBranch(ref: Node): boolean {
  const name = ref.getText();
  let cur: Node = ref;
  for (let p = cur.getParent(); p && !isFn(p) && !Node.isCatchClause(p); cur = p, p = p.getParent()) {
    if (Node.isConditionalExpression(p) && p.getWhenTrue() === cur && ownErrorTest(p.getCondition(), name)) return true;
    if (Node.isIfStatement(p) && p.getThenStatement() === cur && ownErrorTest(p.getExpression(), name)) return true;
  }
  return false;
}

/** The expression that carries the raw error for one reference to the catch binding, or undefined. */
function rawCarrier(ref: Node): Node | undefined {
  const p = ref.getParent();
  if (!p || inOwnErrorBranch(ref)) return undefined;
  if (Node.isPropertyAccessExpression(p) && p.getExpression() === ref) return RAW_PROPS.has(p.getName()) ? p : undefined;
  if (Node.isBinaryExpression(p) && p.getOperatorToken().getKind() === SyntaxKind.InstanceOfKeyword) return undefined;
  return ref;
}

/** Channels as in stack-to-client: a result field, a JSON-RPC error, or an error thrown from a tool handler. */
function channelOf(start: Node, inHandler: (n: Node) => boolean, helperMemo: HelperMemo, code: Code): string | undefined {
  const sink = sinkOf(start);
  if (sink?.kind === 'field') return sink.name;
  if (sink?.kind === 'new') {
    if (ERROR_CLASSES.test(sink.callee)) return 'protocol_error';
    if (/Error$/.test(sink.callee) && Node.isThrowStatement(sink.node.getParent()) && inHandler(sink.node)) return 'thrown_error';
    return undefined;
  }
  // `throw err` in a tool handler: the SDK returns its message as the result's text.
  const p = start.getParent();
  if (Node.isThrowStatement(p) && Node.isIdentifier(start) && inHandler(p)) return 'thrown_error';
  // A helper of the package: `createResponse('op', `Error: ${err.message}`, true)`.
  let top: Node = start;
  for (let i = 0; i < 30; i++) {
    const up = passThrough(top);
    if (!up) break;
    top = up;
  }
  const call = top.getParent();
  if (!Node.isCallExpression(call)) return undefined;
  const index = (call.getArguments() as Node[]).indexOf(top);
  if (index < 0) return undefined;
  let fn: Fn | undefined;
  try {
    fn = functionOf(call.getExpression(), code.sources) as Fn | undefined;
  } catch {
    fn = undefined;
  }
  if (!fn || !isFn(fn)) return undefined;
  return helperChannel(fn, index, helperMemo);
}

/** Does parameter `index` of a helper land in a tool result field? Memoised per helper and parameter. */
function helperChannel(fn: Fn, index: number, memo: HelperMemo): string | undefined {
  let perFn = memo.get(fn);
  if (!perFn) memo.set(fn, (perFn = new Map()));
  const hit = perFn.get(index);
  if (hit !== undefined) return hit ?? undefined;
  const param = fn.getParameters()[index];
  const name = param?.getNameNode();
  const body = fn.getBody();
  let found: string | undefined;
  if (name && Node.isIdentifier(name) && body) {
    for (const ref of body.getDescendantsOfKind(SyntaxKind.Identifier)) {
      if (ref.getText() !== name.getText()) continue;
      const rp = ref.getParent();
      if (Node.isPropertyAccessExpression(rp) && rp.getNameNode() === ref) continue;
      if (Node.isPropertyAssignment(rp) && rp.getNameNode() === ref) continue;
      const start = rawCarrier(ref);
      const sink = start && sinkOf(start);
      if (sink?.kind === 'field') {
        found = sink.name;
        break;
      }
    }
  }
  perFn.set(index, found ?? null);
  return found;
}

/**
 * Findings for raw command errors sent to the client (see the header). A file that was not read is the runner's
 * matter: a part that is not red over an unread file comes out could-not-judge (engine/runner).
 */
export function execErrorsToClient(code: Code, inHandler: (n: Node) => boolean): Finding[] {
  // Only a package that runs commands can have one.
  if (!code.files.some(([, sf]) => SYSTEM_MODULES.test(sf.compilerNode.text))) return [];
  const findings: Finding[] = [];
  const runsMemo: Ctx['runsMemo'] = new Map();
  const index = runnerIndex(code);
  const helperMemo: HelperMemo = new Map();
  for (const [file, sf] of code.files) {
    if (!sf.compilerNode.text.includes('catch')) continue;
    const ctx: Ctx = { code, runsMemo, ...index };
    for (const cn of rawOfKinds(sf, [SyntaxKind.CatchClause], (n) => ts.isCatchClause(n))) {
      const cc = cn as import("typescript").CatchClause;
      const binding = cc.variableDeclaration?.name;
      if (!binding || !ts.isIdentifier(binding)) continue;
      const tryStmt = cc.parent as import("typescript").TryStatement;
      const source = runsCommand(tryStmt.tryBlock, 2, ctx, sf);
      if (!source) continue;
      // References to the binding in the catch block, outside nested functions; `const err = error` is read as the binding.
      const refs: ts.Identifier[] = [];
      const names = new Set([binding.text]);
      const visit = (n: ts.Node): void => {
        if (isRawFunctionLike(n)) return;
        if (ts.isIdentifier(n) && names.has(n.text) && n !== binding) {
          const p = n.parent;
          if (ts.isVariableDeclaration(p) && p.initializer === n && ts.isIdentifier(p.name)) names.add(p.name.text);
          else if (!(ts.isVariableDeclaration(p) && p.name === n)) refs.push(n);
        }
        ts.forEachChild(n, visit);
      };
      visit(cc.block);
      for (const r of refs) {
        const ref = wrapNode(sf, r);
        const start = rawCarrier(ref);
        if (!start) continue;
        const channel = channelOf(start, inHandler, helperMemo, code);
        if (!channel) continue;
        const line = rawPositionOf(r).line;
        findings.push({
          messageId: source === 'command' ? 'exec-error-to-client' : 'driver-error-to-client',
          data: source === 'command' ? { name: start.getText().slice(0, 60), channel } : { name: start.getText().slice(0, 60), source, channel },
          location: { file, line },
          evidence: (start.getFirstAncestor((a) => Node.isReturnStatement(a) || Node.isThrowStatement(a) || Node.isExpressionStatement(a) || Node.isVariableStatement(a)) ?? start).getText().replace(/\s+/g, ' ').slice(0, 120),
        });
        break; // one finding per catch block
      }
    }
  }
  return findings;
}
