import { SyntaxKind, Node, ts, type CallExpression, type PropertyAccessExpression, type Identifier, type ObjectLiteralExpression, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { classValueOf, declarationOf, fieldValues, findNodes, functionOf, isFunctionLike, rawOriginOf, type ClassNode, type FunctionLikeNode } from '../../facts/scope.js';
import { callSitesOf } from '../support/source/call-sites.js';
import { httpRequestOf } from '../../facts/flow.js';
import { objectLiteralOf, propertyValue, registrationArgs, returnedExpressions, serverModel } from '../../facts/server-model.js';
import { moduleSpecs, ofKinds, positionOf, rawUnwrap, unwrap } from '../../facts/ts-source.js';
import { codeOf, methodsNamed, reachable, type Code, type Fn } from '../support/source/code-paths.js';
import { judgePythonTimeouts } from './python.js';
import { dependencyClients, dependencyRequestCalls, devScripts, TEST_FILE } from './dependency-clients.js';
import { chainToHandler } from './callers.js';
import { mayBeOtherClient, otherClientRequest } from './more-clients.js';
import { inRegions, libraryRegions, ownModules, packageRegionsExcept } from '../../facts/bundle-regions.js';

/**
 * S-13 — progress, cancellation and outbound timeouts (static part). Reads the code a client request
 * reaches: the handlers of registered tools, prompts and resources and of low-level request handlers,
 * and the local functions they call (code-paths.reachable). Two checks:
 *
 * 1. Every outbound HTTP request there has a ceiling (requests read by facts/flow httpRequestOf):
 *    - `fetch(url)` (global, node-fetch or undici) with an options object carrying `signal`;
 *    - axios, got and ky, called on the library or on an instance (`axios.create(cfg)`, `got.extend(opts)`,
 *      `ky.create(opts)`, kept in a variable, a class field or exported by another module): the nearest
 *      configuration that sets `timeout` decides (`timeout: 0` for axios and got, `timeout: false` for ky
 *      turn the limit off, and so does an axios `timeout` read from the environment with no fallback), a `signal`
 *      anywhere bounds; with neither, axios and got wait forever (axios unless `defaults.timeout` is set
 *      somewhere) and ky stops after its default 10 s;
 *    - `http(s).request` / `http(s).get` with `timeout` or `signal` in their options, or a `.setTimeout(`
 *      on the request.
 *    - superagent requests (no limit unless `.timeout(` is chained) and `request(opts)` on an undici Pool, Client or
 *      Agent the source builds (bounded by `signal`, `headersTimeout` or `bodyTimeout` in either options) (more-clients.ts).
 *    An options value that cannot be read (a parameter, a spread) is given the benefit of the doubt.
 *    - a PostgreSQL client of `pg` (`new Pool(cfg)`, `new Client(cfg)`, `new pg.Pool(cfg)`) constructed
 *      anywhere in the source with a literal configuration that sets neither `statement_timeout` nor
 *      `query_timeout` (nor `options: '-c statement_timeout=…'`): pg waits for a query forever by default.
 *      A configuration that cannot be read is given the benefit of the doubt.
 *    - a MySQL query (mysql2, mysql: `connection.query(sql)`, `pool.execute(sql, values)`) with no `timeout` in its
 *      options, no timer racing it and no server-side MAX_EXECUTION_TIME in the source: neither driver limits a query
 *      by default and no pool or connection option does (`connectTimeout` bounds the connection only) (mysqlQuery).
 *    A request whose only abort signal is the caller's cancellation (`signal: extra.signal`,
 *    `ctx.mcpReq.signal`) has no maximum either: if the client never cancels, nothing ends it; nor does one whose
 *    signal is an AbortController's that nothing ever aborts (neverAborted).
 *    An API client class of a dependency, used on a request path, whose installed package makes HTTP requests
 *    with no default ceiling and is built without a timeout option (dependency-clients.ts); a declared
 *    package that is not installed or cannot be read makes the part could-not-judge, naming it.
 *    A request function a dependency exports (`DDG.search(query)` on `import * as DDG from 'duck-duck-scrape'`), called
 *    on a request path, whose own body in the installed package sends a request with fetch or a library with no default
 *    limit (needle, superagent, axios…) in a module that names no timeout nor signal, called with no options carrying
 *    one (dependency-clients.ts dependencyRequestCalls); a function not found once, or whose body sends nothing
 *    itself, is not judged.
 *    With no red on the paths read, present only when no request of the source was left out of them: a request (or
 *    an API client of a dependency) without a time limit that the reading of the paths did not reach makes the part
 *    could-not-judge outbound-not-traced, naming it (untraced).
 * 2. A tool handler that receives the SDK context (`ctx` in v2, `extra` in v1) and does outbound I/O on its
 *    path reads the cancellation signal (`ctx.mcpReq.signal`, `extra.signal`, a destructured `signal`),
 *    or hands the context on to another function.
 * Python source only: the Python reading (python.ts), with the same message id for outbound requests.
 */

type Client = 'fetch' | 'axios' | 'got' | 'ky' | 'http' | 'undici' | 'superagent';

/**
 * A config object's verdict: 'yes' when it carries one of `keys`, 'no' when it is a literal without them,
 * 'unknown' otherwise. An options value that is a parameter of the enclosing function (`fetch(url, init)`,
 * `fetch(url, { ...init, headers })` in a request helper) is read at every call site of that function in
 * the audited source: 'no' as soon as one caller passes nothing or a readable literal without the keys (a
 * helper whose callers add a signal on some paths only leaves the others without a ceiling), 'yes' when every
 * caller passes them.
 */
function carries(node: Node | undefined, keys: string[], code: Code, depth = 0): 'yes' | 'no' | 'unknown' {
  if (!node) return 'no';
  const u = unwrap(node);
  if (Node.isIdentifier(u)) {
    const viaCallers = parameterVerdict(u, keys, code, depth);
    if (viaCallers) return viaCallers;
  }
  const o: ObjectLiteralExpression | undefined = objectLiteralOf(node, code.sources) ?? returnedLiteral(u, code);
  if (!o) return 'unknown';
  if (keys.some((k) => propertyValue(o, k) !== undefined)) return 'yes';
  if (Node.isIdentifier(u) && keys.some((k) => assignedKeys(u).has(k))) return 'yes';
  let verdict: 'no' | 'unknown' = 'no';
  for (const p of o.getProperties()) {
    if (!Node.isSpreadAssignment(p)) continue;
    const v = carries(p.getExpression(), keys, code, depth + 1);
    if (v === 'yes') return 'yes';
    if (v === 'unknown') verdict = 'unknown';
  }
  return verdict;
}

/**
 * The members a local options object is given after its literal (`const requestOptions = { method, headers };
 * requestOptions.signal = controller.signal;`): `name.key = …` in the function that declares it. Read once per
 * declaration.
 */
const assignedMemo = new WeakMap<ts.Node, Set<string>>();
function assignedKeys(id: Identifier): Set<string> {
  const d = declarationOf(id);
  const decl = d?.getParent();
  if (!d || !decl || !Node.isVariableDeclaration(decl) || decl.getNameNode() !== d) return new Set();
  const hit = assignedMemo.get(decl.compilerNode);
  if (hit) return hit;
  const keys = new Set<string>();
  const name = d.getText();
  const scope = decl.getFirstAncestor((a) => isFunctionLike(a)) ?? decl.getSourceFile();
  for (const n of findNodes(scope, (cn) => {
    if (!ts.isBinaryExpression(cn) || cn.operatorToken.kind !== SyntaxKind.EqualsToken) return false;
    const left = rawUnwrap(cn.left);
    return ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.expression) && left.expression.text === name;
  })) {
    if (!Node.isBinaryExpression(n)) continue;
    const left = unwrap(n.getLeft());
    const obj = Node.isPropertyAccessExpression(left) ? left.getExpression() : undefined;
    if (obj && Node.isIdentifier(obj) && declarationOf(obj) === d) keys.add((left as Node & { getName(): string }).getName());
  }
  assignedMemo.set(decl.compilerNode, keys);
  return keys;
}

/**
 * The object literal a call to a function of the audited source returns (`{ ...requestInit(), method }` with
 * `const requestInit = () => { …; return { headers, dispatcher } }`): the function's one returned value.
 */
function returnedLiteral(u: Node, code: Code): ObjectLiteralExpression | undefined {
  if (!Node.isCallExpression(u) || !Node.isIdentifier(unwrap(u.getExpression()))) return undefined;
  const fn = functionOf(unwrap(u.getExpression()), code.sources);
  const value = fn ? returnedValue(fn) : undefined;
  return value ? objectLiteralOf(value, code.sources) : undefined;
}

/** The source files of an audit as one array per parsed sources: callSitesOf builds its index once per array. */
const filesMemo = new WeakMap<object, SourceFile[]>();
function filesOf(code: Code): SourceFile[] {
  let files = filesMemo.get(code.sources);
  if (!files) filesMemo.set(code.sources, (files = code.files.map(([, sf]) => sf)));
  return files;
}

/**
 * When `id` names a parameter of a function of the audited source, what its callers pass there (see
 * carries): 'no' when one caller passes no ceiling, 'yes' when every caller passes one, 'unknown' otherwise;
 * undefined when `id` is not a parameter. No known caller, a rest or destructured parameter, or more than two
 * helper levels: 'unknown'.
 */
function parameterVerdict(id: Node, keys: string[], code: Code, depth: number): 'yes' | 'no' | 'unknown' | undefined {
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  const param = d?.getParent();
  if (!param || !Node.isParameterDeclaration(param) || param.getNameNode() !== d) return undefined;
  const fn = param.getParent();
  if (!isFunctionLike(fn) || param.isRestParameter() || depth > 2) return 'unknown';
  const index = fn.getParameters().indexOf(param);
  const sites = callSitesOf(fn, filesOf(code), code.sources);
  if (sites.length === 0) return 'unknown';
  const initial = param.getInitializer();
  let verdict: 'yes' | 'unknown' = 'yes';
  for (const site of sites) {
    if (!Node.isCallExpression(site)) {
      verdict = 'unknown';
      continue;
    }
    const args = site.getArguments();
    if (args.slice(0, index + 1).some((a) => Node.isSpreadElement(a))) {
      verdict = 'unknown';
      continue;
    }
    const arg = args[index];
    const v = arg ? carries(arg, keys, code, depth + 1) : initial ? carries(initial, keys, code, depth + 1) : 'no';
    if (v === 'no') return 'no';
    if (v === 'unknown') verdict = 'unknown';
  }
  return verdict;
}

/**
 * A signal that is only the caller's cancellation, with no maximum of its own: `extra.signal`,
 * `ctx.mcpReq.signal`, `req.signal`, or a `{ signal }` destructured from a parameter (through local consts).
 * If the client never cancels, nothing ends the request. A signal of an AbortController, a parameter named
 * `signal` (its callers may pass a timeout) or anything built (`AbortSignal.any`, `AbortSignal.timeout`) is not.
 */
function callerSignalOnly(value: Node | undefined, depth = 0): boolean {
  if (!value || depth > 4) return false;
  const u = unwrap(value);
  if (Node.isPropertyAccessExpression(u)) {
    if (u.getName() !== 'signal') return false;
    let root = unwrap(u.getExpression());
    if (Node.isPropertyAccessExpression(root) && root.getName() === 'mcpReq') root = unwrap(root.getExpression());
    if (!Node.isIdentifier(root) || /controller|abort/i.test(root.getText())) return false;
    const d = declarationOf(root);
    return !!d && Node.isParameterDeclaration(d.getParent());
  }
  if (!Node.isIdentifier(u)) return false;
  const d = declarationOf(u);
  const p = d?.getParent();
  if (!d || !p) return false;
  if (Node.isBindingElement(p)) {
    const key = p.getPropertyNameNode()?.getText() ?? p.getName();
    const pattern = p.getParent();
    return key === 'signal' && !!pattern && Node.isParameterDeclaration(pattern.getParent());
  }
  if (Node.isVariableDeclaration(p) && p.getNameNode() === d) return callerSignalOnly(p.getInitializer(), depth + 1);
  return false;
}

/**
 * A signal of an AbortController that nothing ever aborts: `signal: controller.signal` with `const controller = new
 * AbortController()` whose name, in the function that declares it, appears only in its declaration and in `.signal`
 * reads (no `controller.abort(…)`, no timer, not handed to or kept by anything that could abort it). It never fires:
 * the request has no ceiling. Read once per declaration.
 */
const idleMemo = new WeakMap<ts.Node, boolean>();
function neverAborted(value: Node | undefined): boolean {
  const u = value && unwrap(value);
  if (!u || !Node.isPropertyAccessExpression(u) || u.getName() !== 'signal') return false;
  const holder = unwrap(u.getExpression());
  if (!Node.isIdentifier(holder)) return false;
  const d = declarationOf(holder);
  const decl = d?.getParent();
  if (!d || !decl || !Node.isVariableDeclaration(decl) || decl.getNameNode() !== d) return false;
  const hit = idleMemo.get(decl.compilerNode);
  if (hit !== undefined) return hit;
  const init = decl.getInitializer() && unwrap(decl.getInitializer()!);
  let idle = false;
  if (init && Node.isNewExpression(init) && unwrap(init.getExpression()).getText() === 'AbortController' && init.getArguments().length === 0) {
    const scope = decl.getFirstAncestor((a) => isFunctionLike(a));
    const name = d.getText();
    if (scope) {
      const text = scope.getText();
      const uses = text.match(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))?.length ?? 0;
      const signals = text.match(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\.\\s*signal(?![\\w$])`, 'g'))?.length ?? 0;
      idle = uses === signals + 1;
    }
  }
  idleMemo.set(decl.compilerNode, idle);
  return idle;
}

/** The `signal` an options literal passes, when it is only the caller's cancellation (see callerSignalOnly). */
function callerSignalIn(node: Node | undefined, code: Code): boolean {
  const o = node && objectLiteralOf(node, code.sources);
  return !!o && callerSignalOnly(propertyValue(o, 'signal'));
}

/**
 * A timeout read from the environment with no fallback: `process.env.API_TIMEOUT`, `parseInt(process.env.API_TIMEOUT)`,
 * `Number(process.env.API_TIMEOUT)` (directly or through a const). Unset, axios gets `undefined` or `NaN` and
 * applies no limit. A fallback (`?? 30000`, `|| '30000'`, a conditional) anywhere in the value is a limit.
 */
function envOnly(u: Node, depth = 0): boolean {
  if (depth > 2) return false;
  if (Node.isIdentifier(u)) {
    const p = declarationOf(u)?.getParent();
    const init = p && Node.isVariableDeclaration(p) && p.getVariableStatement()?.getDeclarationKind() === 'const' ? p.getInitializer() : undefined;
    return !!init && envOnly(unwrap(init), depth + 1);
  }
  if (Node.isCallExpression(u)) {
    const callee = unwrap(u.getExpression()).getText().replace(/\s+/g, '');
    const arg = u.getArguments()[0];
    return /^(?:parseInt|parseFloat|Number|Number\.parseInt|Number\.parseFloat)$/.test(callee) && !!arg && envOnly(unwrap(arg), depth + 1);
  }
  return (Node.isPropertyAccessExpression(u) || Node.isElementAccessExpression(u)) && /^process\.env\b/.test(u.getText().replace(/\s+/g, ''));
}

/**
 * What a configuration says about the time limit: 'signal' when it passes an abort signal, 'set' for a
 * timeout, 'off' for a timeout that turns the limit off (`timeout: 0` for axios and got, `timeout: false`
 * for ky), 'none' when a readable literal says nothing, 'unknown' when it cannot be read (a parameter, a spread).
 * A signal that is only the caller's cancellation is no limit: the timeout decides.
 */
function timeoutOf(node: Node | undefined, code: Code, library?: Client): 'signal' | 'set' | 'off' | 'none' | 'unknown' {
  if (!node) return 'none';
  const o = objectLiteralOf(node, code.sources);
  if (!o) return 'unknown';
  const signal = propertyValue(o, 'signal');
  if (signal !== undefined && !callerSignalOnly(signal) && !neverAborted(signal)) return 'signal';
  const t = propertyValue(o, 'timeout');
  if (t) {
    const u = unwrap(t);
    if (library === 'axios' && envOnly(u)) return 'off';
    return (Node.isNumericLiteral(u) && Number(u.getLiteralValue()) === 0) || Node.isFalseLiteral(u) ? 'off' : 'set';
  }
  return o.getProperties().some((p) => Node.isSpreadAssignment(p)) ? 'unknown' : 'none';
}

/**
 * Whether a request through axios, got or ky has a ceiling: the call's options, then the configurations of
 * the instance it is made on (nearest first) — the nearest that sets a timeout decides it, an abort signal
 * anywhere bounds it, a configuration that cannot be read is given the benefit of the doubt. Without any,
 * axios and got have no limit (unless `defaults.timeout` is set somewhere, for axios); ky stops after 10 s.
 */
function clientBounded(library: 'axios' | 'got' | 'ky', configs: (Node | undefined)[], code: Code, axiosDefaults: boolean): boolean {
  const verdicts = configs.map((c, i) => (c === undefined && i > 0 ? 'unknown' : timeoutOf(c, code, library)));
  if (verdicts.some((v) => v === 'signal' || v === 'unknown')) return true;
  const decided = verdicts.find((v) => v === 'set' || v === 'off');
  if (decided) return decided === 'set';
  if (library === 'ky') return true;
  return library === 'axios' && axiosDefaults;
}

/**
 * Raw pre-filter of outbound(): the calls it can recognise — a callee from fetch, node-fetch, undici, axios,
 * got, ky, http or https (an instance of them included, in a variable or a field), or a method an HTTP client
 * instance exported by another module has — decided on compiler nodes before anything is wrapped.
 */
const OUTBOUND_MODULES = new Set(['node-fetch', 'cross-fetch', 'undici', 'axios', 'got', 'ky', 'http', 'https']);
const CLIENT_METHODS = new Set(['get', 'delete', 'head', 'options', 'post', 'put', 'patch', 'request', 'stream']);
function mayBeOutbound(cn: ts.CallExpression): boolean {
  const c = rawUnwrap(cn.expression);
  if (ts.isPropertyAccessExpression(c) && AXIOS_METHODS.has(c.name.text) && axiosRegions(cn.getSourceFile()).length > 0) return true;
  // `this.client.get(…)` in a class that extends another: an instance a base class keeps (inheritedInstance).
  if (ts.isPropertyAccessExpression(c) && CLIENT_METHODS.has(c.name.text) && inSubclass(c)) return true;
  // `getClient().get(…)`: an instance a local function returns (returnedInstance).
  if (ts.isPropertyAccessExpression(c) && CLIENT_METHODS.has(c.name.text) && ts.isCallExpression(rawUnwrap(c.expression)) && ts.isIdentifier((rawUnwrap(c.expression) as ts.CallExpression).expression)) return true;
  if (ts.isPropertyAccessExpression(c) && rawUnwrap(c.expression).kind === SyntaxKind.ThisKeyword && /fetch/i.test(c.name.text)) return true;
  // `let fetch = withAuthRetry(undiciFetch)`: a fetch wrapped by the source, kept in a variable (wrappedFetch).
  if (ts.isIdentifier(c) && /fetch/i.test(c.text)) return true;
  // `connection.query(sql)`: a MySQL query (mysqlQuery).
  if (mysqlReceiver(cn)) return true;
  // `superagent.get(url)`, `pool.request(opts)` on an undici Pool (more-clients.ts).
  if (mayBeOtherClient(cn)) return true;
  // `conn.exec(command, (err, stream) => …)`: an ssh2 channel (sshChannel).
  if (ts.isPropertyAccessExpression(c) && SSH_CHANNELS.has(c.name.text) && cn.arguments.length > 0) {
    const last = rawUnwrap(cn.arguments[cn.arguments.length - 1]!);
    if (ts.isArrowFunction(last) || ts.isFunctionExpression(last)) return true;
  }
  const o = rawOriginOf(c);
  if (!o) return false;
  if (o.module === '<global>') return o.path.join('.') === 'fetch' || o.path.join('.') === 'globalThis.fetch';
  if (o.module.startsWith('.')) return o.path.length === 1 || (o.path.length === 2 && CLIENT_METHODS.has(o.path[1]!));
  if (LAUNCHERS[o.module]) return LAUNCHERS[o.module]!.test(o.path.filter((p) => p !== 'default').pop() ?? '');
  return OUTBOUND_MODULES.has(o.module);
}

/**
 * An outbound request call and whether it has a ceiling; `callerSignal` when its only abort signal is the
 * caller's cancellation (callerSignalOnly).
 */
function outbound(call: CallExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean; callerSignal?: boolean } | undefined {
  const req = httpRequestOf(call, code.sources) ?? (injectedFetch(call) || wrappedFetch(call, code) ? { library: 'fetch' as const } : undefined);
  if (!req) return bundledAxios(call, code, axiosDefaults) ?? returnedInstance(call, code, axiosDefaults) ?? inheritedInstance(call, code, axiosDefaults) ?? (otherClientRequest(call, code) as { client: Client; bounded: boolean } | undefined);
  const args = call.getArguments();
  if (req.library === 'fetch') {
    const first = args[0] && unwrap(args[0]);
    if (args.length === 1 && first && Node.isNewExpression(first)) return { client: 'fetch', bounded: true };
    if (callerSignalIn(args[1], code)) return { client: 'fetch', bounded: false, callerSignal: true };
    const init = args[1] && objectLiteralOf(args[1], code.sources);
    if (init && neverAborted(propertyValue(init, 'signal'))) return { client: 'fetch', bounded: false };
    return { client: 'fetch', bounded: carries(args[1], ['signal'], code) !== 'no' };
  }
  if (req.library === 'axios' || req.library === 'got' || req.library === 'ky') {
    // axios(url) with a URL only: no config of its own.
    const own = req.options ?? undefined;
    const configs = [own, ...req.instance];
    const bounded = clientBounded(req.library, configs, code, axiosDefaults);
    return { client: req.library, bounded, ...(!bounded && configs.some((c) => callerSignalIn(c, code)) ? { callerSignal: true } : {}) };
  }
  if (req.library === 'undici') {
    // undici's request/stream: its own timeouts (headersTimeout, bodyTimeout, both 300 s by default) are idle
    // limits that a slow trickle of bytes keeps resetting; a signal is the ceiling. Timeouts set by the caller, a
    // dispatcher of its own or options that cannot be read get the benefit of the doubt.
    const opts = args[1];
    if (callerSignalIn(opts, code)) return { client: 'undici', bounded: false, callerSignal: true };
    return { client: 'undici', bounded: carries(opts, ['signal', 'headersTimeout', 'bodyTimeout', 'dispatcher'], code) !== 'no' };
  }
  if (req.library === 'http') {
    const opts = args.slice(0, 2).find((a) => !!objectLiteralOf(a, code.sources));
    const first = args[0] && unwrap(args[0]);
    // Without an options object: a literal URL means no options at all; anything else cannot be read.
    const literalUrl = !!first && (Node.isStringLiteral(first) || Node.isNoSubstitutionTemplateLiteral(first) || Node.isTemplateExpression(first) || Node.isNewExpression(first));
    const bounded = opts ? carries(opts, ['timeout', 'signal'], code) !== 'no' : !literalUrl;
    return { client: 'http', bounded: bounded || setsTimeoutOn(call) };
  }
  return undefined;
}

/**
 * Command-line clients that send the server's request to a remote service and wait for its answer, with no limit
 * of their own by default (kubectl and oc: --request-timeout=0; curl: no --max-time), and the flag that sets one.
 * A local program (git status, a script) sends no request and is not read here.
 */
const NETWORK_CLIS: Record<string, RegExp> = {
  kubectl: /--request-timeout(?:=|\s+|["'],\s*["'])(?!["']?0\b)/,
  oc: /--request-timeout(?:=|\s+|["'],\s*["'])(?!["']?0\b)/,
  curl: /--max-time\b|["'\s]-m["'\s]/,
};
const LAUNCHERS: Record<string, RegExp> = {
  child_process: /^(?:exec|execSync|execFile|execFileSync|spawn|spawnSync)$/,
  execa: /^(?:|execa|execaSync|execaCommand|execaCommandSync|\$)$/,
  'cross-spawn': /^(?:|spawn|sync)$/,
};

/** The program a launch runs: a literal (or a const holding one, or its `|| 'kubectl'` fallback), or a shell command's first word. */
function programOf(arg: Node | undefined, depth = 0): string | undefined {
  if (!arg || depth > 3) return undefined;
  const u = unwrap(arg);
  if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) return u.getLiteralText().trim().split(/\s+/)[0];
  if (Node.isTemplateExpression(u)) return u.getHead().getLiteralText().trim().split(/\s+/)[0] || undefined;
  if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) return programOf(u.getRight(), depth + 1);
  if (Node.isIdentifier(u)) {
    const p = declarationOf(u)?.getParent();
    if (p && Node.isVariableDeclaration(p) && p.getInitializer()) return programOf(p.getInitializer(), depth + 1);
  }
  return undefined;
}

/**
 * A network command-line client launched on a request path (`execFile('kubectl', ['get', 'pods'])`,
 * `exec(\`kubectl get pods -n ${ns}\`)`, `execa('curl', […])`): the request it sends for the server has a ceiling
 * when the launch sets a timeout or a signal (an options object that cannot be read gets the benefit of the doubt),
 * or the client's own limit flag appears in the call or anywhere in the source (arguments built elsewhere).
 */
function cliRequest(call: CallExpression, code: Code): { client: string; bounded: boolean } | undefined {
  const o = rawOriginOf(rawUnwrap(call.getExpression().compilerNode));
  const fn = o?.path.filter((p) => p !== 'default').pop() ?? '';
  if (!o || !LAUNCHERS[o.module]?.test(fn)) return undefined;
  const args = call.getArguments();
  const program = programOf(args[0])?.replace(/^.*[\\/]/, '').replace(/\.exe$/i, '');
  const flag = program ? NETWORK_CLIS[program] : undefined;
  if (!program || !flag) return undefined;
  // The flag in the call, or anywhere in the source when the call's arguments are built elsewhere.
  const second = args[1] && unwrap(args[1]);
  const built = !!second && !Node.isArrayLiteralExpression(second) ? true : Node.isTemplateExpression(unwrap(args[0]!)) || Node.isIdentifier(unwrap(args[0]!));
  const spread = !!second && Node.isArrayLiteralExpression(second) && second.getElements().some((e) => Node.isSpreadElement(e));
  if (flag.test(call.getText()) || ((built || spread) && code.files.some(([, sf]) => flag.test(sf.getFullText())))) return { client: program, bounded: true };
  for (const a of args.slice(1)) {
    const u = unwrap(a);
    if (Node.isArrayLiteralExpression(u) || Node.isArrowFunction(u) || Node.isFunctionExpression(u)) continue;
    if (Node.isIdentifier(u) && /args|argv|params|cmd|command|flags/i.test(u.getText())) continue;
    const t = timeoutOf(a, code);
    if (t === 'signal' || t === 'set' || t === 'unknown') return { client: program, bounded: true };
  }
  return { client: program, bounded: false };
}

/**
 * A command run on a remote host over SSH (ssh2's `client.exec(command, [options], (err, stream) => …)` or
 * `client.shell([window], (err, stream) => …)`, in a file that imports ssh2): the request is the remote command,
 * and ssh2 puts no limit on it (readyTimeout only bounds the handshake). It has a ceiling when the function that
 * waits for it (the function around the channel, past the callbacks and Promise executors it sits in) or a function
 * calling that one sets a timer or races it (setTimeout, AbortSignal.timeout, Promise.race); any such timer gets the
 * benefit of the doubt.
 */
const SSH_CHANNELS = new Set(['exec', 'shell']);
const TIMER = /\bsetTimeout\s*\(|\bAbortSignal\.timeout\s*\(|\.race\s*\(|\bwithTimeout\s*\(|\bpTimeout\s*\(/;
function sshChannel(call: CallExpression, code: Code): { client: string; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !SSH_CHANNELS.has(callee.getName())) return undefined;
  const args = call.getArguments();
  const cb = args.length ? unwrap(args[args.length - 1]!) : undefined;
  if (!cb || !(Node.isArrowFunction(cb) || Node.isFunctionExpression(cb))) return undefined;
  const params = cb.getParameters();
  if (params.length < 1 || params.length > 2 || !/^e(?:rr(?:or)?)?$/i.test(params[0]!.getName())) return undefined;
  if (callee.getName() === 'exec' && args.length < 2) return undefined;
  if (!moduleSpecs(call.getSourceFile()).has('ssh2')) return undefined;
  return { client: 'ssh2', bounded: timedAround(call, code) };
}

/**
 * A MySQL query (`connection.query(sql)`, `pool.execute(sql, params)`, `this.connection.query(…)`) in a file that
 * imports mysql2 (`mysql2`, `mysql2/promise`) or mysql: neither driver has a time limit on a query by default, and no
 * connection or pool option sets one (`connectTimeout` bounds the connection only; a `timeout` in a pool's
 * configuration is not a mysql2 option and is ignored). A query has a ceiling when its options object carries a
 * `timeout` (`query({ sql, timeout: 30_000 })`), when a timer or race waits for it (timedAround), or when the source
 * sets a server-side limit anywhere (`MAX_EXECUTION_TIME`, `max_statement_time`), given the benefit of the doubt.
 * Read only for receivers named as a database handle (MYSQL_RECEIVER) and a first argument that is SQL (a string,
 * a template, a variable) or an options object.
 */
const MYSQL_MODULES = ['mysql2', 'mysql2/promise', 'mysql'];
const MYSQL_METHODS = new Set(['query', 'execute']);
const MYSQL_RECEIVER = /conn|pool|db|mysql|database|sql|client|session|transaction|trx/i;
const SERVER_SIDE_LIMIT = /max_execution_time|max_statement_time/i;
function mysqlReceiver(cn: ts.CallExpression): boolean {
  const c = rawUnwrap(cn.expression);
  if (!ts.isPropertyAccessExpression(c) || !MYSQL_METHODS.has(c.name.text) || cn.arguments.length === 0) return false;
  let recv = rawUnwrap(c.expression);
  if (ts.isCallExpression(recv)) recv = rawUnwrap(recv.expression);
  const last = ts.isIdentifier(recv) ? recv.text : ts.isPropertyAccessExpression(recv) ? recv.name.text : '';
  return MYSQL_RECEIVER.test(last);
}
/** SQL drivers other than MySQL's: in a file importing one too, a `client.query(sql)` may be theirs. */
const OTHER_DRIVERS = new Set(['pg', 'mssql', 'tedious', 'oracledb', 'sqlite3', 'better-sqlite3', 'sqlite', '@libsql/client', 'mariadb', 'snowflake-sdk', 'duckdb', '@clickhouse/client', 'postgres', 'ibm_db', 'odbc']);
/**
 * Where a query's receiver comes from, through its variable or field (awaits unwrapped): 'mysql' when from a
 * factory of the MySQL drivers (`mysql.createConnection(…)`, `mysql.createPool(…)`) or a connection a pool hands out
 * (`pool.getConnection()`); 'other' when built with `new` (pg's `new Client(…)`, a class of the source) or by another
 * package's function; 'unknown' otherwise.
 */
function mysqlHandleValue(recv: Node): 'mysql' | 'other' | 'unknown' {
  let values: Node[] = [];
  if (Node.isIdentifier(recv)) {
    const p = declarationOf(recv)?.getParent();
    if (p && Node.isVariableDeclaration(p) && p.getInitializer()) values = [p.getInitializer()!];
  } else if (Node.isPropertyAccessExpression(recv) && Node.isThisExpression(unwrap(recv.getExpression()))) values = fieldValues(recv);
  let verdict: 'mysql' | 'other' | 'unknown' = 'unknown';
  for (const v of values) {
    let u = unwrap(v);
    while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
    if (Node.isNewExpression(u)) return 'other';
    if (!Node.isCallExpression(u)) continue;
    const callee = unwrap(u.getExpression());
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'getConnection') {
      verdict = 'mysql';
      continue;
    }
    const o = rawOriginOf(callee.compilerNode);
    if (o && MYSQL_MODULES.includes(o.module)) verdict = 'mysql';
    else if (o && !o.module.startsWith('.') && o.module !== '<global>') return 'other';
  }
  return verdict;
}
const serverLimitMemo = new WeakMap<object, boolean>();
function mysqlQuery(call: CallExpression, code: Code): { client: string; bounded: boolean } | undefined {
  if (!mysqlReceiver(call.compilerNode)) return undefined;
  const specs = moduleSpecs(call.getSourceFile());
  const driver = MYSQL_MODULES.find((m) => specs.has(m));
  if (!driver) return undefined;
  const client = driver === 'mysql' ? 'mysql' : 'mysql2';
  // A file that also imports another database driver (pg, mssql…): the receiver must be shown to come from MySQL.
  const recv = mysqlHandleValue(unwrap((unwrap(call.getExpression()) as Node & { getExpression(): Node }).getExpression()));
  if (recv === 'other' || (recv === 'unknown' && [...specs].some((m) => OTHER_DRIVERS.has(m)))) return undefined;
  const first = unwrap(call.getArguments()[0]!);
  if (isFunctionLike(first) || Node.isArrayLiteralExpression(first)) return undefined;
  const options = Node.isObjectLiteralExpression(first) ? first : Node.isIdentifier(first) ? objectLiteralOf(first, code.sources) : undefined;
  if (options) {
    if (propertyValue(options, 'sql') === undefined && !options.getProperties().some((p) => Node.isSpreadAssignment(p))) return undefined;
    const t = timeoutOf(options, code);
    if (t !== 'none' && t !== 'off') return { client, bounded: true };
  }
  let server = serverLimitMemo.get(code.sources);
  if (server === undefined) serverLimitMemo.set(code.sources, (server = code.files.some(([, sf]) => SERVER_SIDE_LIMIT.test(sf.getFullText()))));
  return { client, bounded: server || timedAround(call, code) };
}

/**
 * Whether the function that waits for `call` (the function around it, past the callbacks, Promise executors and
 * immediately invoked functions it sits in) or a function calling that one sets a timer or races it (TIMER); any such timer gets the benefit of the
 * doubt. A call at a module's top level counts as timed (start-up code, not a request).
 */
const timedMemo = new WeakMap<ts.Node, boolean>();
/** timedFunction one level up (a caller's own timer or its callers'), kept apart from timedMemo's full answers. */
const callerTimedMemo = new WeakMap<ts.Node, boolean>();
function timedAround(call: CallExpression, code: Code): boolean {
  // The function that waits: climb past functions handed to a call or a `new` (callbacks, Promise executors).
  let waiter: Node | undefined = call.getParentWhile((p) => !isFunctionLike(p));
  let fn: Node | undefined = waiter?.getParent();
  while (fn && isFunctionLike(fn)) {
    // An immediately invoked function (`(async () => { … })()`) waits in the function around it.
    let p = fn.getParent();
    while (p && Node.isParenthesizedExpression(p)) p = p.getParent();
    const iife = !!p && Node.isCallExpression(p) && unwrap(p.getExpression()) === fn;
    if (!p || !(Node.isCallExpression(p) || Node.isNewExpression(p)) || (!iife && !(p.getArguments() as Node[]).includes(fn))) break;
    waiter = p.getParentWhile((q) => !isFunctionLike(q));
    fn = waiter?.getParent();
  }
  if (!fn || !isFunctionLike(fn)) return true;
  const hit = timedMemo.get(fn.compilerNode);
  if (hit !== undefined) return hit;
  const timed = timedFunction(fn, code);
  timedMemo.set(fn.compilerNode, timed);
  return timed;
}

/**
 * timedAround for the function that waits: a timer in it, in a function calling it, or in a function calling that
 * one (`server.tool('list_tables', …, () => withTimeout(listTables(), 30_000))` over `listTables` calling the query
 * helper): two callers up, each function's answer memoised.
 */
function timedFunction(fn: FunctionLikeNode, code: Code, depth = 0): boolean {
  if (TIMER.test(fn.getText())) return true;
  const callers: Node[] = callSitesOf(fn, filesOf(code), code.sources);
  // A method called on an instance the reading cannot follow (`const h = await hostFor(name); h.run(cmd)`): its calls by name.
  const method = Node.isMethodDeclaration(fn) ? fn.getName() : undefined;
  if (method) {
    for (const [, sf] of code.files) {
      for (const c of ofKinds(sf, [SyntaxKind.CallExpression], (cn) => {
        const e = (cn as ts.CallExpression).expression;
        return ts.isPropertyAccessExpression(e) && e.name.text === method;
      })) callers.push(c);
    }
  }
  for (const site of callers) {
    const around = site.getFirstAncestor((a) => isFunctionLike(a));
    if (around && TIMER.test(around.getText())) return true;
  }
  if (depth > 0) return false;
  for (const site of callers) {
    const around = site.getFirstAncestor((a) => isFunctionLike(a));
    if (!around || around === fn) continue;
    let timed = callerTimedMemo.get(around.compilerNode);
    if (timed === undefined) callerTimedMemo.set(around.compilerNode, (timed = timedFunction(around as FunctionLikeNode, code, 1)));
    if (timed) return true;
  }
  return false;
}

/**
 * Handlers registered through a wrapper function of the source (`function registerToolUnlessDisabled(name, config,
 * handler) { …; server.registerTool(name, config, handler) }`): the model reads the registration inside the wrapper,
 * whose handler is a parameter; the handlers are the functions every call of the wrapper passes there.
 */
function wrappedHandlers(tools: readonly { handler?: Fn; api: string; node: Node; argOffset?: number }[], code: Code): Fn[] {
  const out: Fn[] = [];
  for (const t of tools) {
    if (t.handler || !Node.isCallExpression(t.node)) continue;
    const args = registrationArgs(t);
    const arg = t.api === 'registerTool' ? (args[2] ?? args[args.length - 1]) : args[args.length - 1];
    const u = arg && unwrap(arg);
    if (!u || !Node.isIdentifier(u)) continue;
    const d = declarationOf(u);
    const param = d?.getParent();
    if (!param || !Node.isParameterDeclaration(param) || param.getNameNode() !== d || param.isRestParameter()) continue;
    const fn = param.getParent();
    if (!isFunctionLike(fn)) continue;
    const index = fn.getParameters().indexOf(param);
    for (const site of callSitesOf(fn, filesOf(code), code.sources)) {
      if (!Node.isCallExpression(site)) continue;
      const a = site.getArguments()[index];
      const h = a ? functionOf(a, code.sources) : undefined;
      if (h && !out.includes(h)) out.push(h);
    }
  }
  return out;
}

/**
 * axios inlined by a bundler (esbuild's `// node_modules/axios/lib/axios.js` module comments): its default export
 * is a variable of the bundle (`axios_default`), not an import, so the origin reading does not know it. A request
 * on it or on an instance it creates (`this.http = axios_default.create(cfg)`, `const api = axios_default.create(cfg)`)
 * is judged like axios: the call's options, then the instance's configuration.
 */
const AXIOS_METHODS = new Set(['get', 'delete', 'head', 'options', 'post', 'put', 'patch', 'request']);
const regionMemo = new WeakMap<ts.SourceFile, Array<readonly [number, number]>>();
function axiosRegions(sf: ts.SourceFile): Array<readonly [number, number]> {
  let r = regionMemo.get(sf);
  if (!r) {
    r = libraryRegions(sf.text, new Set(['axios']));
    regionMemo.set(sf, r);
  }
  return r;
}
function bundledAxios(call: CallExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !AXIOS_METHODS.has(callee.getName())) return undefined;
  const inAxios = (id: Node): boolean => {
    if (!Node.isIdentifier(id)) return false;
    const d = declarationOf(id);
    if (!d) return false;
    const regions = axiosRegions(d.getSourceFile().compilerNode);
    return inRegions(regions, d.getStart());
  };
  let value: Node | undefined = unwrap(callee.getExpression());
  for (let i = 0; i < 3 && value; i++) {
    if (Node.isIdentifier(value)) {
      if (inAxios(value)) break;
      const p: Node | undefined = declarationOf(value)?.getParent();
      value = p && Node.isVariableDeclaration(p) && p.getInitializer() ? unwrap(p.getInitializer()!) : undefined;
    } else if (Node.isPropertyAccessExpression(value) && Node.isThisExpression(unwrap(value.getExpression()))) {
      const values = fieldValues(value);
      value = values.length === 1 ? unwrap(values[0]!) : undefined;
    } else break;
  }
  if (!value) return undefined;
  let configs: (Node | undefined)[];
  if (Node.isIdentifier(value) && inAxios(value)) configs = [];
  else if (Node.isCallExpression(value)) {
    const c = unwrap(value.getExpression());
    if (!Node.isPropertyAccessExpression(c) || c.getName() !== 'create' || !inAxios(unwrap(c.getExpression()))) return undefined;
    configs = [value.getArguments()[0]];
  } else return undefined;
  const m = callee.getName();
  const args = call.getArguments();
  const own = m === 'request' ? args[0] : ['post', 'put', 'patch'].includes(m) ? args[2] : args[1];
  return { client: 'axios', bounded: clientBounded('axios', [own, ...configs], code, axiosDefaults) };
}

/** The one value a function returns (an arrow's expression body, or the single `return` of its block). */
function returnedValue(fn: Node): Node | undefined {
  if (Node.isArrowFunction(fn)) {
    const body = fn.getBody();
    if (!Node.isBlock(body)) return body;
  }
  const body = (fn as Node & { getBody?: () => Node | undefined }).getBody?.();
  if (!body || !Node.isBlock(body)) return undefined;
  const values: (Node | undefined)[] = [];
  const visit = (n: Node): void => {
    if (isFunctionLike(n) || Node.isClassDeclaration(n)) return;
    if (Node.isReturnStatement(n)) values.push(n.getExpression());
    n.forEachChild(visit);
  };
  body.forEachChild(visit);
  return values.length === 1 ? values[0] : undefined;
}

/**
 * The request `call` (`callee` is its `x.method`) on the instance `made` stands for: judged with that instance's
 * configuration when `made` is (an awaited) `axios.create(cfg)`, `got.extend(cfg)` or `ky.create|extend(cfg)`.
 */
function instanceMadeBy(made: Node | undefined, call: CallExpression, callee: PropertyAccessExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean } | undefined {
  while (made && Node.isAwaitExpression(unwrap(made))) made = (unwrap(made) as Node & { getExpression(): Node }).getExpression();
  made = made && unwrap(made);
  if (!made || !Node.isCallExpression(made)) return undefined;
  const o = rawOriginOf(rawUnwrap(made.getExpression().compilerNode));
  const m = o?.path.filter((p) => p !== 'default').pop() ?? '';
  const library = o && (o.module === 'axios' || o.module === 'got' || o.module === 'ky') ? o.module : undefined;
  if (!library || !((library === 'got' && m === 'extend') || (library !== 'got' && m === 'create') || (library === 'ky' && m === 'extend'))) return undefined;
  const method = callee.getName();
  const args = call.getArguments();
  const own = method === 'request' ? args[0] : library === 'axios' && ['post', 'put', 'patch'].includes(method) ? args[2] : args[1];
  return { client: library, bounded: clientBounded(library, [own, made.getArguments()[0]], code, axiosDefaults) };
}

/**
 * A request on an instance a function of the source builds and returns: `getClient().get(…)` with
 * `function getClient() { return axios.create(cfg) }` (got.extend, ky.create alike). Judged with that configuration.
 */
function returnedInstance(call: CallExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !CLIENT_METHODS.has(callee.getName())) return undefined;
  const maker = unwrap(callee.getExpression());
  if (!Node.isCallExpression(maker) || !Node.isIdentifier(unwrap(maker.getExpression()))) return undefined;
  const fn = functionOf(unwrap(maker.getExpression()), code.sources);
  let made = fn ? returnedValue(fn) : undefined;
  return instanceMadeBy(made, call, callee, code, axiosDefaults);
}

/** Whether `c` is `this.x.method` read inside a class with an `extends` clause (mayBeOutbound's pre-filter). */
function inSubclass(c: ts.PropertyAccessExpression): boolean {
  const recv = rawUnwrap(c.expression);
  if (!ts.isPropertyAccessExpression(recv) || rawUnwrap(recv.expression).kind !== SyntaxKind.ThisKeyword) return false;
  let cls: ts.Node | undefined = c.parent;
  while (cls && !ts.isClassLike(cls)) cls = ts.isFunctionDeclaration(cls) || ts.isFunctionExpression(cls) ? undefined : cls.parent;
  return !!cls && ts.isClassLike(cls) && !!cls.heritageClauses?.some((h) => h.token === SyntaxKind.ExtendsKeyword);
}

/**
 * A request on an instance a base class keeps in its field: `this.client.get(…)` in `class OrderService extends
 * BaseService`, whose own code never sets `this.client`, with `this.client = axios.create(cfg)` in BaseService (the
 * same file or imported from a file of the package; up to three levels of bases). Judged with that configuration,
 * as returnedInstance does; a field the subclass sets itself, or that a base sets to several values, is not read here.
 */
function inheritedInstance(call: CallExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !CLIENT_METHODS.has(callee.getName())) return undefined;
  const field = unwrap(callee.getExpression());
  if (!Node.isPropertyAccessExpression(field) || !Node.isThisExpression(unwrap(field.getExpression())) || !inSubclass(callee.compilerNode)) return undefined;
  if (fieldValues(field).length > 0) return undefined;
  const name = field.getName();
  let cls = field.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a)) as ClassNode | undefined;
  let made: Node | undefined;
  for (let depth = 0; depth < 3 && cls && !made; depth++) {
    const ext = cls.getExtends();
    const base = ext ? classValueOf(ext.getExpression(), code.sources) : undefined;
    if (!base || base === cls) return undefined;
    // Any `this.<name>` of the base class stands for its field: its values are the base's own.
    const access = base.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression).find((p) => p.getName() === name && Node.isThisExpression(unwrap(p.getExpression())));
    const values = access ? fieldValues(access) : [];
    if (values.length > 1) return undefined;
    made = values[0];
    cls = base;
  }
  return instanceMadeBy(made, call, callee, code, axiosDefaults);
}

/** Global fetch: `fetch`, `globalThis.fetch`, `fetch.bind(globalThis)`. */
function isGlobalFetch(n: Node | undefined): boolean {
  if (!n) return false;
  let u = unwrap(n);
  if (Node.isCallExpression(u) && Node.isPropertyAccessExpression(unwrap(u.getExpression())) && (unwrap(u.getExpression()) as Node & { getName(): string }).getName() === 'bind') {
    u = unwrap((unwrap(u.getExpression()) as Node & { getExpression(): Node }).getExpression());
  }
  const o = rawOriginOf(u.compilerNode);
  return !!o && o.module === '<global>' && (o.path.join('.') === 'fetch' || o.path.join('.') === 'globalThis.fetch');
}

/**
 * A fetch function kept in a field for injection (`this.fetch = fetchFn` with `fetchFn = fetch` as the
 * constructor's default, `this.fetchImpl = options.fetch ?? fetch`, `this.fetch = fetch.bind(globalThis)`):
 * a request through global fetch unless the caller hands another function in. Every value the class puts in
 * the field must be global fetch or fall back to it.
 */
function injectedFetch(call: CallExpression): boolean {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !Node.isThisExpression(unwrap(callee.getExpression())) || !/fetch/i.test(callee.getName())) return false;
  const values = fieldValues(callee);
  const fetchish = (v: Node, depth = 0): boolean => {
    const u = unwrap(v);
    if (isGlobalFetch(u)) return true;
    if (depth > 2) return false;
    if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) return fetchish(u.getRight(), depth + 1);
    if (Node.isIdentifier(u)) {
      const p = declarationOf(u)?.getParent();
      if (p && Node.isParameterDeclaration(p)) return fetchish(p.getInitializer() ?? u, depth + 1) && !!p.getInitializer();
      if (p && Node.isBindingElement(p)) return !!p.getInitializer() && fetchish(p.getInitializer()!, depth + 1);
    }
    return false;
  };
  return values.length > 0 && values.every((v) => fetchish(v));
}

/**
 * A fetch function of a library (global fetch, undici's or node-fetch's) or a wrapper the source builds around one
 * (`withAuthRetry(undiciFetch)`, `fetchCookie(fetch, jar)`, either branch of a conditional): a call passing a fetch
 * function on is read as a fetch that forwards its arguments.
 */
const FETCH_MODULES = new Set(['undici', 'node-fetch', 'cross-fetch']);
function fetchFunction(v: Node, code: Code, depth = 0): boolean {
  const u = unwrap(v);
  if (isGlobalFetch(u)) return true;
  if (depth > 3) return false;
  if (Node.isIdentifier(u) || Node.isPropertyAccessExpression(u)) {
    const o = rawOriginOf(u.compilerNode);
    const last = o?.path.filter((p) => p !== 'default').pop();
    if (o && FETCH_MODULES.has(o.module) && (last === 'fetch' || (last === undefined && o.module !== 'undici'))) return true;
  }
  if (Node.isConditionalExpression(u)) return fetchFunction(u.getWhenTrue(), code, depth + 1) && fetchFunction(u.getWhenFalse(), code, depth + 1);
  if (Node.isCallExpression(u)) {
    // A wrapper that may add a limit of its own (named for one, given one, or whose code in the source sets a timer)
    // gets the benefit of the doubt: it is not read as a bare fetch.
    const callee = unwrap(u.getExpression());
    if (LIMIT_WORD.test(callee.getText())) return false;
    const args = u.getArguments();
    if (args.some((a) => !fetchFunction(a, code, depth + 1) && (Node.isNumericLiteral(unwrap(a)) || LIMIT_WORD.test(a.getText())))) return false;
    const fn = functionOf(callee, code.sources);
    if (fn && /\bsetTimeout\b|AbortSignal\.timeout|AbortController|timeout/i.test(fn.getText())) return false;
    return args.some((a) => fetchFunction(a, code, depth + 1));
  }
  return false;
}
const LIMIT_WORD = /timeout|abort|deadline|signal|limit/i;

/**
 * A call through a variable of the source that holds a fetch function, possibly wrapped (`let fetch =
 * withAuthRetry(undiciFetch)`, later `fetch = withAuthRetry(fetchCookie(undiciFetch, jar))`): every value the
 * variable is given in its file must be one (fetchFunction).
 */
function wrappedFetch(call: CallExpression, code: Code): boolean {
  const callee = unwrap(call.getExpression());
  if (!Node.isIdentifier(callee)) return false;
  const d = declarationOf(callee);
  const decl = d?.getParent();
  if (!d || !decl || !Node.isVariableDeclaration(decl) || decl.getNameNode() !== d) return false;
  const values: Node[] = decl.getInitializer() ? [decl.getInitializer()!] : [];
  const name = callee.getText();
  for (const b of ofKinds(decl.getSourceFile(), [SyntaxKind.BinaryExpression], (cn) => {
    const e = cn as ts.BinaryExpression;
    return e.operatorToken.kind === SyntaxKind.EqualsToken && ts.isIdentifier(e.left) && e.left.text === name;
  })) {
    if (!Node.isBinaryExpression(b)) continue;
    const left = b.getLeft();
    if (Node.isIdentifier(left) && declarationOf(left) === d) values.push(b.getRight());
  }
  return values.length > 0 && values.every((v) => fetchFunction(v, code));
}

/**
 * `pg` pools and clients whose literal configuration sets no time limit on queries (see the file header), with
 * the node of the construction.
 */
function unboundedPgClients(code: Code): Node[] {
  const out: Node[] = [];
  for (const [, sf] of code.files) {
    if (!/\bpg\b/.test(sf.getFullText().slice(0, 200_000))) continue;
    for (const n of ofKinds(sf, [SyntaxKind.NewExpression], (cn) => {
      const e = rawUnwrap((cn as ts.NewExpression).expression);
      const last = ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : '';
      return last === 'Pool' || last === 'Client';
    })) {
      if (!Node.isNewExpression(n)) continue;
      const o = rawOriginOf(n.getExpression().compilerNode);
      if (!o || o.module !== 'pg' || !['Pool', 'Client'].includes(o.path[o.path.length - 1] ?? '')) continue;
      const arg = n.getArguments()[0];
      if (!arg) {
        out.push(n);
        continue;
      }
      const a = unwrap(arg);
      if (Node.isStringLiteral(a) || Node.isNoSubstitutionTemplateLiteral(a)) {
        if (!/statement_timeout/.test(a.getLiteralText())) out.push(n);
        continue;
      }
      const lit = objectLiteralOf(a, code.sources);
      if (!lit || lit.getProperties().some((p) => Node.isSpreadAssignment(p))) continue;
      const bounded = ['statement_timeout', 'query_timeout'].some((k) => propertyValue(lit, k) !== undefined) || /statement_timeout/.test(propertyValue(lit, 'options')?.getText() ?? '');
      if (!bounded) out.push(n);
    }
  }
  return out;
}

/** `http.get(…).setTimeout(…)`, or `const req = https.request(…)` then `req.setTimeout(…)` / `req.on('timeout', …)`. */
function setsTimeoutOn(call: CallExpression): boolean {
  const p = call.getParent();
  if (Node.isPropertyAccessExpression(p) && p.getName() === 'setTimeout') return true;
  if (!Node.isVariableDeclaration(p) || !Node.isIdentifier(p.getNameNode())) return false;
  const name = p.getName();
  const scope = p.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a));
  return !!scope && findNodes(scope, ts.isCallExpression).some((n) => {
    if (!Node.isCallExpression(n)) return false;
    const c = n.getExpression().getText().replace(/\s+/g, '');
    return c === `${name}.setTimeout` || (c === `${name}.on` && n.getArguments()[0]?.getText().includes('timeout'));
  });
}

/** `defaults.timeout = …` anywhere (axios.defaults.timeout, api.defaults.timeout). */
function axiosDefaultsSet(code: Code): boolean {
  return code.files.some(([, sf]) =>
    ofKinds(sf, [SyntaxKind.BinaryExpression], (cn) => {
      const b = cn as ts.BinaryExpression;
      return b.operatorToken.kind === SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(b.left) && b.left.name.text === 'timeout';
    }).some((n) => Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '=' && /\.defaults\.timeout$/.test(n.getLeft().getText().replace(/\s+/g, ''))),
  );
}

/**
 * Providers behind one interface: `provider.search(params)` on a parameter (a callback's `provider` over a registry
 * of provider instances, an untyped argument, a parameter typed with an interface) that the call graph does not
 * follow because several classes of the source define `search`. Any of them may serve the request, so for the
 * outbound requests every one is read (up to POLY_MAX classes; a name more classes define is not a provider
 * interface). Gathered once per function.
 */
const POLY_MAX = 24;
const polyMemo = new WeakMap<ts.Node, Fn[]>();
function polymorphicTargets(fn: Fn, code: Code): Fn[] {
  const hit = polyMemo.get(fn.compilerNode);
  if (hit) return hit;
  const out = new Set<Fn>();
  for (const n of findNodes(fn, (cn) => {
    if (cn === fn.compilerNode || !ts.isCallExpression(cn)) return false;
    const c = rawUnwrap(cn.expression);
    return ts.isPropertyAccessExpression(c) && ts.isIdentifier(rawUnwrap(c.expression));
  })) {
    if (!Node.isCallExpression(n)) continue;
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const methods = methodsNamed(code, callee.getName());
    if (methods.length < 2 || methods.length > POLY_MAX) continue;
    const obj = unwrap(callee.getExpression());
    const d = Node.isIdentifier(obj) ? declarationOf(obj) : undefined;
    const param = d?.getParent();
    if (!param || !Node.isParameterDeclaration(param) || param.getNameNode() !== d) continue;
    if (functionOf(callee, code.sources)) continue;
    for (const m of methods) out.add(m);
  }
  const list = [...out];
  polyMemo.set(fn.compilerNode, list);
  return list;
}

/**
 * An API client kept on the server's class (`this.client.getDeployment(uuid)`, with `client` a field or a getter
 * over a Map of instances, `get client() { return this.clients.get(name) }`) that the call graph does not follow:
 * when exactly one class of the source defines the method, that method is the one called. Names that built-in
 * values also have (a Map's `get`, a Promise's `then`, an array's `map`…) are not read this way. Gathered once per
 * function.
 */
const BUILTIN_METHODS = new Set(['get', 'set', 'has', 'delete', 'clear', 'add', 'keys', 'values', 'entries', 'forEach', 'map', 'filter', 'find', 'some', 'every', 'reduce', 'push', 'pop', 'shift', 'unshift', 'slice', 'splice', 'concat', 'join', 'includes', 'indexOf', 'sort', 'then', 'catch', 'finally', 'toString', 'toJSON', 'valueOf', 'call', 'apply', 'bind', 'emit', 'on', 'once', 'off', 'write', 'end', 'close', 'send', 'request', 'fetch', 'json', 'text', 'parse', 'stringify', 'log', 'info', 'warn', 'error', 'debug', 'connect', 'start', 'stop', 'run', 'execute', 'handle', 'init', 'exec', 'shell']);
const fieldMemo = new WeakMap<ts.Node, Fn[]>();
function fieldClientTargets(fn: Fn, code: Code): Fn[] {
  const hit = fieldMemo.get(fn.compilerNode);
  if (hit) return hit;
  const out = new Set<Fn>();
  for (const n of findNodes(fn, (cn) => {
    if (cn === fn.compilerNode || !ts.isCallExpression(cn)) return false;
    const c = rawUnwrap(cn.expression);
    if (!ts.isPropertyAccessExpression(c) || BUILTIN_METHODS.has(c.name.text)) return false;
    const recv = rawUnwrap(c.expression);
    return ts.isPropertyAccessExpression(recv) && rawUnwrap(recv.expression).kind === SyntaxKind.ThisKeyword;
  })) {
    if (!Node.isCallExpression(n)) continue;
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const methods = methodsNamed(code, callee.getName());
    if (methods.length !== 1 || functionOf(callee, code.sources)) continue;
    if (!fieldHoldsClass(callee.getExpression(), methods[0]!, code)) continue;
    out.add(methods[0]!);
  }
  const list = [...out];
  fieldMemo.set(fn.compilerNode, list);
  return list;
}

/**
 * Whether `this.<field>` holds instances of the class that defines `method`: a value assigned to the field is
 * `new C(…)` (or `C.create(…)`, a static factory of C); or, when no value is assigned to it (a getter over a Map of
 * instances, `get client() { return this.clients.get(name) }`), the source builds a `new C(…)` somewhere. A field
 * assigned anything else (`this.client = createClient(url)`, a factory returning an object literal) is not C.
 */
function fieldHoldsClass(recv: Node, method: Fn, code: Code): boolean {
  const cls = method.getParent();
  const name = cls && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls)) ? cls.getName() ?? classVariableName(cls) : undefined;
  if (!name) return false;
  const values = fieldValues(unwrap(recv)).filter((v) => !/^(?:null|undefined|void 0)$/.test(unwrap(v).getText()));
  if (!values.length) return constructedClasses(code).has(name);
  return values.some((v) => {
    let u = unwrap(v);
    while (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
    if (Node.isNewExpression(u)) return lastName(u.getExpression()) === name;
    if (Node.isCallExpression(u)) {
      const c = unwrap(u.getExpression());
      return Node.isPropertyAccessExpression(c) && lastName(c.getExpression()) === name;
    }
    return false;
  });
}

const lastName = (n: Node): string | undefined => {
  const u = unwrap(n);
  return Node.isIdentifier(u) ? u.getText() : Node.isPropertyAccessExpression(u) ? u.getName() : undefined;
};

/** `const PanelClient = class { … }` (bundlers): the variable's name. */
function classVariableName(cls: Node): string | undefined {
  const p = cls.getParent();
  return p && Node.isVariableDeclaration(p) ? p.getName() : undefined;
}

const constructedMemo = new WeakMap<object, Set<string>>();
/** The class names the source constructs (`new C(`), read once per audit from the files' text. */
function constructedClasses(code: Code): Set<string> {
  const hit = constructedMemo.get(code.sources);
  if (hit) return hit;
  const out = new Set<string>();
  for (const [, sf] of code.files) for (const m of sf.getFullText().matchAll(/\bnew\s+(?:[\w$]+\.)*([\w$]+)\s*\(/g)) out.add(m[1]!);
  constructedMemo.set(code.sources, out);
  return out;
}

/** Does the handler read the cancellation signal from its context parameter (or pass the context on)? */
function readsSignal(fn: Fn, ctxIndex: number): boolean | undefined {
  const param = fn.getParameters()[ctxIndex];
  if (!param) return undefined; // the handler does not receive the context
  const nameNode = param.getNameNode();
  if (!Node.isIdentifier(nameNode)) return /\bsignal\b/.test(nameNode.getText());
  const name = nameNode.getText();
  let reads = false;
  for (const n of findNodes(fn, (cn) => ts.isIdentifier(cn) && cn.text === name)) {
    if (reads) break;
    if (!Node.isIdentifier(n) || n.getText() !== name || n === nameNode) continue;
    // climb the access chain: ctx.mcpReq.signal, extra.signal, ctx.mcpReq
    let top: Node = n;
    while (Node.isPropertyAccessExpression(top.getParent()) && (top.getParent() as Node & { getExpression(): Node }).getExpression() === top) top = top.getParent()!;
    const chain = top.getText().replace(/\s+/g, '');
    if (/\.signal\b/.test(chain)) reads = true;
    const p = top.getParent();
    if (Node.isVariableDeclaration(p) && /\bsignal\b/.test(p.getNameNode().getText())) reads = true;
    // The context itself (or its request part) handed to another function, which may read the signal.
    const whole = top === n || chain === `${name}.mcpReq`;
    if (whole && (Node.isCallExpression(p) || Node.isNewExpression(p)) && (p.getArguments() as Node[]).includes(top)) reads = true;
  }
  return reads;
}

/**
 * Requests of the source that the reading of the request paths did not reach: a handler may send them through a
 * path it could not follow (a callback handed in a configuration object, a module imported at run time, a
 * dispatch it does not know), so a present verdict would rest on code that was not read. Read once per file:
 * the calls mayBeOutbound accepts outside the examined ones, test files, browser code (an App's View), example
 * projects shipped beside the server (exampleProjects) and the bundled packages of a bundle left out, and the API clients of dependencies built anywhere in the source (dependencyClients with `anywhere`).
 * - One without a time limit (and not written at the top level of a module, which runs at start-up): walked back
 *   through its callers (callers.ts chainToHandler); when a chain reaches a function of the handlers' paths it is red
 *   (outbound-without-timeout, client-without-timeout), the evidence naming the call it is reached from; otherwise
 *   could-not-judge outbound-not-traced, naming it — whether it serves a request could not be read. A request with a ceiling
 *   left out of the paths changes nothing: every request of the source has one.
 * Start-up code (a module's top level) is not a request path and is not counted; nor is a MySQL query (mysqlQuery)
 * no handler reaches whose every chain of callers ends at a module's top level (startUpOnly: `await ensureSchema()`).
 */
/**
 * Whether every chain of callers of the function around `n` ends at a module's top level (start-up code: `await
 * ensureSchema()`, `main()` called by the launcher) within a few callers; false when a function on the way has no
 * caller the reading finds (loaded by name, dispatched at run time: whether it serves a request is unknown).
 */
function startUpOnly(n: Node, code: Code): boolean {
  const seen = new Set<Node>();
  const up = (fn: Node, depth: number): boolean => {
    if (seen.has(fn)) return true;
    seen.add(fn);
    if (depth > 3 || !isFunctionLike(fn)) return false;
    const sites = callSitesOf(fn, filesOf(code), code.sources);
    if (!sites.length) return false;
    return sites.every((site) => {
      const around = site.getFirstAncestor((a) => isFunctionLike(a));
      return !around || up(around, depth + 1);
    });
  };
  const fn = n.getFirstAncestor((a) => isFunctionLike(a));
  return !!fn && up(fn, 0);
}

/**
 * A dependency client built at start-up and handed to the code that builds the handlers (`const config =
 * client.createConfiguration(…)` in a function the top level calls, then `{ ...createIncidentHandlers(new
 * v2.IncidentsApi(config)) }` at a module's top level): its value, kept in a module-level const (itself, or an
 * instance another construction makes from it), is an argument of a top-level call to a function of the source whose
 * parameter at that place has a method called in a function the handlers' paths reached (`api.listIncidents(…)` in
 * the returned `list_incidents` handler). Returns that method call; undefined when the value goes anywhere else.
 */
function startUpHandOff(n: Node, reached: ReadonlySet<ts.Node>, code: Code): Node | undefined {
  const atTop = (e: Node): boolean => !e.getFirstAncestor((a) => isFunctionLike(a));
  const constOf = (e: Node): Identifier | undefined => {
    let cur = e;
    let p = cur.getParent();
    while (p && (Node.isAwaitExpression(p) || Node.isParenthesizedExpression(p) || Node.isAsExpression(p))) {
      cur = p;
      p = p.getParent();
    }
    const name = p && Node.isVariableDeclaration(p) && p.getInitializer() === cur ? p.getNameNode() : undefined;
    return name && Node.isIdentifier(name) ? name : undefined;
  };
  // The top-level values holding the client: the construction itself, or the top-level calls of the one function
  // that builds and returns it (directly or through a local const).
  let values: Node[] = [];
  if (atTop(n)) values = [n];
  else {
    const fn = n.getFirstAncestor((a) => isFunctionLike(a)) as FunctionLikeNode | undefined;
    if (!fn || fn.getFirstAncestor((a) => isFunctionLike(a))) return undefined;
    const local = constOf(n);
    const returns = returnedExpressions(fn).map((r) => unwrap(r));
    if (!returns.some((r) => r === n || (local && Node.isIdentifier(r) && declarationOf(r) === local))) return undefined;
    values = callSitesOf(fn, filesOf(code), code.sources).filter(atTop);
  }
  const seen = new Set<Node>();
  const handedTo = (v: Node, depth: number): Node | undefined => {
    if (depth > 2 || seen.has(v)) return undefined;
    seen.add(v);
    const holder = constOf(v);
    const uses: Node[] = [v];
    if (holder) {
      const name = holder.getText();
      for (const r of findNodes(v.getSourceFile(), (cn) => ts.isIdentifier(cn) && cn.text === name && cn !== holder.compilerNode)) {
        if (Node.isIdentifier(r) && atTop(r) && declarationOf(r) === holder) uses.push(r);
      }
    }
    for (const u of uses) {
      const p = u.getParent();
      // An instance another construction makes from it (`new v2.IncidentsApi(config)`): followed as the client.
      if (p && Node.isNewExpression(p) && p.getArguments().includes(u)) {
        const via = handedTo(p, depth + 1);
        if (via) return via;
        continue;
      }
      if (!p || !Node.isCallExpression(p)) continue;
      const i = p.getArguments().indexOf(u);
      const g = i >= 0 ? functionOf(unwrap(p.getExpression()), code.sources) : undefined;
      const param = g?.getParameters()[i];
      const pname = param && Node.isIdentifier(param.getNameNode()) ? param.getName() : undefined;
      if (!g || !pname) continue;
      for (const call of findNodes(g, (cn) => ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression) && ts.isIdentifier(cn.expression.expression) && cn.expression.expression.text === pname)) {
        const around = call.getFirstAncestor((a) => isFunctionLike(a));
        const callee = Node.isCallExpression(call) ? call.getExpression() : undefined;
        const recv = callee && Node.isPropertyAccessExpression(callee) ? callee.getExpression() : undefined;
        if (around && reached.has(around.compilerNode) && recv && Node.isIdentifier(recv) && declarationOf(recv) === param!.getNameNode()) return call;
      }
    }
    return undefined;
  };
  // The value handed on directly (`createHandlers(createConfig(env))`) or through its const.
  for (const v of values) {
    const via = handedTo(v, 0);
    if (via) return via;
  }
  return undefined;
}

/** A folder of examples, demos, documentation or templates shipped beside the server. */
const SHOWCASE_DIR = /(?:^|\/)(?:examples?|demos?|docs?|playground|templates?|starters?)\//;

/**
 * Example projects shipped beside the server (a package that publishes its `examples/` or `templates/` folder): a
 * folder there with its own package.json (`examples/star-stories/package.json`) is another program, built and run on
 * its own; its requests are not the server's. Its files are left out of the untraced reading unless a function a
 * handler's path reaches lies in it (then it is part of the server and is read as such).
 */
function exampleProjects(files: readonly string[], reachedFiles: ReadonlySet<string>): (path: string) => boolean {
  const roots = files.filter((f) => f.endsWith('/package.json') && SHOWCASE_DIR.test(f)).map((f) => f.slice(0, -'package.json'.length));
  const reached = [...reachedFiles];
  const others = roots.filter((r) => !reached.some((f) => f.startsWith(r)));
  return (path) => others.some((r) => path.startsWith(r));
}

/** Code that runs in a browser (an App's View, a web page's script): its requests are not the server's (read in a bundle's own modules). */
const BROWSER_CODE = /\bdocument\.(?:getElementById|querySelector(?:All)?|createElement|body)\b|\bwindow\.(?:parent|addEventListener|location)\b/;
function untraced(code: Code, examined: ReadonlySet<ts.Node>, axiosDefaults: boolean, onPaths: readonly { node: Node }[], root: string, declared: ReadonlySet<string>, reached: ReadonlySet<ts.Node>, otherProgram: (path: string) => boolean): ReturnType<typeof couldNotJudge> | Finding[] | undefined {
  const at = (n: Node) => ({ file: code.rel(n.getSourceFile()), line: positionOf(n).line });
  // Each request without a limit is walked back through its callers (callers.ts): one that reaches a handler's path is red.
  const findings: Finding[] = [];
  let first: ReturnType<typeof couldNotJudge> | undefined;
  const onChain = (n: Node, messageId: string, data: Record<string, string>, tracedOnly = false, handOff?: () => Node | undefined): void => {
    const chain = chainToHandler(n, reached, code, (fn) => callSitesOf(fn, filesOf(code), code.sources)) ?? (handOff && ((via) => (via ? { handler: via, via } : undefined))(handOff()));
    if (!chain) {
      if (tracedOnly && startUpOnly(n, code)) return;
      first ??= couldNotJudge('outbound-not-traced', { client: data.client ?? data.package ?? '', ...at(n) });
      return;
    }
    const by = at(chain.via);
    findings.push({ messageId, data, location: at(n), evidence: `${n.getText().replace(/\s+/g, ' ').slice(0, 100)} (reached from ${by.file}:${by.line})` });
  };
  const devScript = devScripts(code.files);
  for (const [path, sf] of code.files) {
    const text = sf.getFullText();
    if (TEST_FILE.test(path) || devScript(path) || otherProgram(path) || BROWSER_CODE.test(ownModules(text)?.text ?? text)) continue;
    const bundled = packageRegionsExcept(sf.getFullText(), new Set());
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression], (cn) => !examined.has(cn) && mayBeOutbound(cn as ts.CallExpression))) {
      if (!Node.isCallExpression(n) || inRegions(bundled, n.getStart()) || !n.getFirstAncestor((a) => isFunctionLike(a))) continue;
      const cli = cliRequest(n, code) ?? sshChannel(n, code);
      const sql = cli ? undefined : mysqlQuery(n, code);
      const r = cli ?? sql ?? outbound(n, code, axiosDefaults);
      // A MySQL query only start-up code calls (`await ensureSchema()` at a module's top level): not a tool's path, not counted.
      if (r && !r.bounded) onChain(n, 'outbound-without-timeout', { client: r.client }, !!sql);
    }
  }
  const onPathNodes = new Set(onPaths.map((c) => c.node));
  for (const c of dependencyClients(code, [], root, declared, true)) {
    if (onPathNodes.has(c.node) || otherProgram(code.rel(c.node.getSourceFile()))) continue;
    // A client built at start-up is followed into the functions it is handed to (startUpHandOff).
    if (c.verdict === 'unbounded') onChain(c.node, 'client-without-timeout', { package: c.package }, false, () => startUpHandOff(c.node, reached, code));
  }
  return findings.length ? findings : first;
}

export default defineDetector({
  ruleId: 'S-13',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'outbound-without-timeout': ['client'],
    'outbound-caller-signal-only': ['client'],
    'client-without-timeout': ['package'],
    'request-function-without-timeout': ['package', 'function'],
    'signal-ignored': ['tool'],
  },
  judge({ inputs: { repo } }) {
    const src = codeOf(repo);
    if (!src.ok) return src.verdict.reason?.code === 'source-language-not-read' ? judgePythonTimeouts(repo) : src.verdict;
    const code = src.code;
    const model = serverModel(repo);
    const entries: Fn[] = [
      ...model.tools.map((t) => t.handler),
      ...model.prompts.map((p) => p.handler),
      ...model.resources.map((r) => r.handler),
      ...model.requestHandlers.map((r) => r.handler),
    ].filter((f): f is Fn => !!f);
    entries.push(...wrappedHandlers(model.tools, code).filter((f) => !entries.includes(f)));
    if (entries.length === 0) return couldNotJudge('no-handlers-in-source');
    const defaults = axiosDefaultsSet(code);
    const findings: Finding[] = [];
    const seen = new Set<Node>();
    const outboundIn = new Map<Fn, boolean>();
    const scanned = new Set<Fn>();
    // The request calls the paths' reading examined (untraced reads the others).
    const examined = new Set<ts.Node>();
    const scan = (fns: Fn[]): boolean => {
      let any = false;
      for (const fn of fns) {
        scanned.add(fn);
        if (!outboundIn.has(fn)) {
          let here = false;
          for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayBeOutbound(cn))) {
            if (!Node.isCallExpression(n)) continue;
            examined.add(n.compilerNode);
            const cli = cliRequest(n, code) ?? sshChannel(n, code) ?? mysqlQuery(n, code);
            if (cli) {
              // A launched network client is a request with a ceiling or none; it is not read as the handler's
              // own I/O for the cancellation signal (the launch is a process, not a request the signal reaches).
              if (!cli.bounded && !seen.has(n)) {
                seen.add(n);
                findings.push({ messageId: 'outbound-without-timeout', data: { client: cli.client }, location: { file: code.rel(n.getSourceFile()), line: positionOf(n).line }, evidence: n.getText().replace(/\s+/g, ' ').slice(0, 120) });
              }
              continue;
            }
            const r = outbound(n, code, defaults);
            if (!r) continue;
            here = true;
            if (!r.bounded && !seen.has(n)) {
              seen.add(n);
              findings.push({
                messageId: r.callerSignal ? 'outbound-caller-signal-only' : 'outbound-without-timeout',
                data: { client: r.client },
                location: { file: code.rel(n.getSourceFile()), line: positionOf(n).line },
                evidence: n.getText().replace(/\s+/g, ' ').slice(0, 120),
              });
            }
          }
          outboundIn.set(fn, here);
        }
        any = any || outboundIn.get(fn)!;
      }
      return any;
    };
    const handlerFns = new Set<Fn>();
    for (const t of model.tools) {
      if (!t.handler || handlerFns.has(t.handler)) continue;
      handlerFns.add(t.handler);
      const doesIo = scan(reachable(code, [t.handler]));
      if (!doesIo || !['registerTool', 'tool'].includes(t.api)) continue;
      const ctxIndex = t.inputSchema !== undefined ? 1 : 0;
      if (readsSignal(t.handler, ctxIndex) === false) {
        findings.push({ messageId: 'signal-ignored', data: { tool: t.name }, location: { file: code.rel(t.handler.getSourceFile()), line: positionOf(t.handler).line } });
      }
    }
    for (const r of model.requestHandlers) {
      if (!r.handler || handlerFns.has(r.handler)) continue;
      handlerFns.add(r.handler);
      const doesIo = scan(reachable(code, [r.handler]));
      if (doesIo && r.method === 'tools/call' && readsSignal(r.handler, 1) === false) {
        findings.push({ messageId: 'signal-ignored', data: { tool: r.method }, location: { file: code.rel(r.handler.getSourceFile()), line: positionOf(r.handler).line } });
      }
    }
    scan(reachable(code, entries.filter((f) => !handlerFns.has(f))));
    // Methods of the providers behind an interface that a reached call may dispatch to (polymorphicTargets), and the one
    // method a client kept on the server's class is called with (fieldClientTargets), two rounds.
    for (let round = 0; round < 2; round++) {
      const more = [...new Set([...scanned].flatMap((f) => [...polymorphicTargets(f, code), ...fieldClientTargets(f, code)]))].filter((f) => !scanned.has(f));
      if (!more.length) break;
      scan(reachable(code, more));
    }
    // API clients of dependencies used on a request path (dependency-clients.ts).
    const pkg = repo.object('package.json');
    const declared = new Set(pkg.ok ? ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys((pkg.value[k] as Record<string, unknown> | undefined) ?? {})) : []);
    let notRead: string | undefined;
    const paths = reachable(code, entries);
    const onPaths = dependencyClients(code, paths, repo.root, declared);
    for (const c of onPaths) {
      if (c.verdict === 'not-read') notRead ??= c.package;
      else findings.push({ messageId: 'client-without-timeout', data: { package: c.package }, location: { file: code.rel(c.node.getSourceFile()), line: positionOf(c.node).line }, evidence: c.node.getText().replace(/\s+/g, ' ').slice(0, 120) });
    }
    // Request functions a dependency exports, called on a request path (dependencyRequestCalls).
    const clientNodes = new Set<Node>(onPaths.map((c) => c.node));
    for (const c of dependencyRequestCalls(code, paths, repo.root)) {
      if (clientNodes.has(c.node)) continue;
      findings.push({ messageId: 'request-function-without-timeout', data: { package: c.package, function: c.function }, location: { file: code.rel(c.node.getSourceFile()), line: positionOf(c.node).line }, evidence: c.node.getText().replace(/\s+/g, ' ').slice(0, 120) });
    }
    for (const n of unboundedPgClients(code)) {
      findings.push({ messageId: 'outbound-without-timeout', data: { client: 'pg' }, location: { file: code.rel(n.getSourceFile()), line: positionOf(n).line }, evidence: n.getText().replace(/\s+/g, ' ').slice(0, 120) });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (notRead) return couldNotJudge('client-package-not-read', { package: notRead });
    // No red on the paths read: present only if no request of the source was left out of them (untraced).
    const otherProgram = exampleProjects(repo.files, new Set([...scanned].map((f) => code.rel(f.getSourceFile()))));
    const missed = untraced(code, examined, defaults, onPaths, repo.root, declared, new Set([...scanned].map((f) => f.compilerNode)), otherProgram);
    if (Array.isArray(missed)) return { state: 'non-conforming', findings: missed };
    if (missed) return missed;
    return present();
  },
});
