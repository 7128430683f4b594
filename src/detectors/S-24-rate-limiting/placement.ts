import { ts } from '../../facts/morph.js';
import { rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import { rawPositionOf, rawUnwrap } from '../../facts/ts-source.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * S-24 — where a limiter the code holds is put to work, for the limiters that guard no tool call:
 *   - an upstream pacer: a limiter whose every use paces the server's own outgoing requests
 *     (`limiter.schedule(() => fetch(…))`, `bottleneck.wrap(apiCall)`, `await this.limiter.removeTokens(1)` in a
 *     method that then calls the vendor's API, a p-throttle function wrapping a request). It keeps the server
 *     within a vendor's budget; it is not keyed by caller and refuses no tools/call (the rule: a guard counts if
 *     it wraps the handler or sits in a layer every tools/call passes through, keyed by caller);
 *   - HTTP middleware mounted on a route of the app other than the MCP endpoint (`app.post('/auth/login',
 *     limiter, …)` while `app.post('/mcp', …)` hands requests to the transport).
 * A limiter is accounted for when it is built at least once and every use of the value built is one of these;
 * anything else (a use the reading does not know, a limiter never used, a path read from configuration) leaves
 * it unaccounted, and the detector keeps its could-not-judge.
 */

/** Methods of a limiter that wait for a slot before running (bottleneck, limiter, p-queue-like pacers). */
const PACE_METHODS = /^(?:schedule|wrap|submit|removeTokens|acquire|wait|waitFor\w*)$/;
/** Methods of a limiter that ask for a slot without waiting (`if (!limiter.canMakeRequest()) throw …`, `this.rateLimiter.check(key)`). */
const CHECK_METHODS = /^(?:canMakeRequest|tryAcquire|tryRemoveTokens|check|consume|take|tryTake|allow|isAllowed)$/;
/** Methods of a limiter that read or manage it without limiting anything (a health tool's `limiter.getStats()`, a shutdown's `dispose()`). */
const INERT_METHODS = /^(?:getStats|stats|getStatus|status|getMetrics|metrics|getUsage|usage|getInfo|info|reset|dispose|destroy|close|stop|configure)$/;

/** A use that reads or manages a limiter (`limiter.getStats()`, `limiter.dispose()`): it refuses and paces nothing. */
export function isInertUse(u: ts.Node): boolean {
  let n = u;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent))) n = n.parent;
  const p = n.parent;
  return !!p && ts.isPropertyAccessExpression(p) && p.expression === n && INERT_METHODS.test(p.name.text);
}

/** The class a function is a method of (declared or written as an expression), if any. */
function enclosingClass(n: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let p = n.parent; p; p = p.parent) if (ts.isClassDeclaration(p) || ts.isClassExpression(p)) return p;
  return undefined;
}
/** Does this function call a method of its own class (`this.fetchWithRetry(…)`) that sends a request? */
function callsSendingMethod(fn: ts.Node, cls: ts.ClassLikeDeclaration): boolean {
  const sending = new Set<string>();
  for (const m of cls.members) if ((ts.isMethodDeclaration(m) || ts.isPropertyDeclaration(m)) && m.name && ts.isIdentifier(m.name) && holdsOutboundRequest(m)) sending.add(m.name.text);
  if (sending.size === 0) return false;
  const visit = (n: ts.Node): boolean => {
    if (ts.isCallExpression(n)) {
      const c = rawUnwrap(n.expression);
      if (ts.isPropertyAccessExpression(c) && c.expression.kind === ts.SyntaxKind.ThisKeyword && sending.has(c.name.text)) return true;
    }
    return !!ts.forEachChild(n, visit);
  };
  return visit(fn);
}
const clientClassMemo = new WeakMap<ts.Node, boolean>();
/** Is this class an HTTP client of the server's own: one of its methods sends a request (fetch, an HTTP module, a client's get/post)? */
function sendsRequests(cls: ts.ClassLikeDeclaration): boolean {
  let r = clientClassMemo.get(cls);
  if (r === undefined) clientClassMemo.set(cls, (r = holdsOutboundRequest(cls)));
  return r;
}
/** Modules whose calls are outgoing requests. */
const HTTP_MODULES = new Set(['axios', 'got', 'ky', 'undici', 'node-fetch', 'cross-fetch', 'ofetch', 'http', 'https', 'superagent', 'needle']);
const HTTP_FUNCTIONS = new Set(['fetch', 'got', 'ky', 'axios', 'request', 'ofetch', '$fetch', 'undiciRequest']);
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'request', 'fetch']);
/** A receiver named like an HTTP client: this.http.get(…), this.client.post(…), api.request(…). */
const CLIENT_NAME = /^(?:_?(?:http|https|axios|client|api|got|ky|session|instance|request|rest|fetcher)\w*|\w*(?:Client|Http|Api|Axios))$/i;

/** The members of an OpenAI-shaped SDK client whose `create` sends a request to the model provider. */
const LLM_ENDPOINTS = new Set(['completions', 'embeddings']);

/** A factory or a class of an API client: `getCircleCIClient()`, `createClient(…)`, `new WebClient(…)`. */
const CLIENT_BUILDER = /Client$/;

/**
 * Is the receiver of a method call a client built in the code: its root a variable initialised with a call of a
 * client factory or a construction of a client class (`const api = getCircleCIClient(); api.tests.getJobTests(…)`)?
 * Every method of such a client is a request to its service.
 */
function clientReceiver(recv: ts.Node): boolean {
  let r = rawUnwrap(recv);
  while (ts.isPropertyAccessExpression(r)) r = rawUnwrap(r.expression);
  if (!ts.isIdentifier(r)) return false;
  const d = rawDeclarationOf(r)?.parent;
  let i = d && ts.isVariableDeclaration(d) && d.initializer ? rawUnwrap(d.initializer) : undefined;
  if (i && ts.isAwaitExpression(i)) i = rawUnwrap(i.expression);
  if (!i || !(ts.isCallExpression(i) || ts.isNewExpression(i))) return false;
  const c = rawUnwrap(i.expression);
  const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
  return CLIENT_BUILDER.test(name);
}

/** Does this node hold an outgoing HTTP request (fetch, axios, got, ky, undici, http.request, a client's get/post, any method of a client built in the code)? */
export function holdsOutboundRequest(root: ts.Node): boolean {
  const visit = (n: ts.Node): boolean => {
    if (ts.isCallExpression(n)) {
      const c = rawUnwrap(n.expression);
      if (ts.isPropertyAccessExpression(c) && clientReceiver(c.expression)) return true;
      // An OpenAI-shaped SDK client's request (`client.chat.completions.create(…)`, `openai.embeddings.create(…)`).
      if (ts.isPropertyAccessExpression(c) && c.name.text === 'create') {
        const r = rawUnwrap(c.expression);
        if (ts.isPropertyAccessExpression(r) && LLM_ENDPOINTS.has(r.name.text)) return true;
      }
      if (ts.isIdentifier(c) && HTTP_FUNCTIONS.has(c.text)) return true;
      if (ts.isIdentifier(c) && HTTP_MODULES.has(rawOriginOf(c)?.module ?? '')) return true;
      if (ts.isPropertyAccessExpression(c) && HTTP_METHODS.has(c.name.text)) {
        const recv = rawUnwrap(c.expression);
        if (HTTP_MODULES.has(rawOriginOf(recv)?.module ?? '')) return true;
        const name = ts.isIdentifier(recv) ? recv.text : ts.isPropertyAccessExpression(recv) ? recv.name.text : '';
        if (name && CLIENT_NAME.test(name)) return true;
      }
    }
    return !!ts.forEachChild(n, visit);
  };
  return visit(root);
}

/** The innermost function around a node. */
function enclosingFunction(n: ts.Node): ts.Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (ts.isFunctionLike(p)) return p;
  return undefined;
}

/** Where the value a limiter construction builds is kept: a variable, a property (this.x = …, a class field), or nowhere. */
export function targetOf(site: ts.Node): { kind: 'var' | 'prop'; name: string } | undefined {
  let n = site;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isAwaitExpression(n.parent) || ts.isAsExpression(n.parent) || ts.isNonNullExpression(n.parent))) n = n.parent;
  const p = n.parent;
  if (!p) return undefined;
  if (ts.isVariableDeclaration(p) && p.initializer === n && ts.isIdentifier(p.name)) return { kind: 'var', name: p.name.text };
  if (ts.isPropertyDeclaration(p) && p.initializer === n && ts.isIdentifier(p.name)) return { kind: 'prop', name: p.name.text };
  if (ts.isBinaryExpression(p) && p.right === n && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    const l = rawUnwrap(p.left);
    if (ts.isPropertyAccessExpression(l)) return { kind: 'prop', name: l.name.text };
    if (ts.isIdentifier(l)) return { kind: 'var', name: l.text };
  }
  return undefined;
}

/** A use that paces an outgoing request: `u.schedule(() => fetch())`, `u(fn)` around a request, `await u.removeTokens(1); fetch()`. */
function isPacingUse(u: ts.Node): boolean {
  let n = u;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent))) n = n.parent;
  const p = n.parent;
  if (!p) return false;
  let call: ts.CallExpression | undefined;
  let waits = false;
  if (ts.isPropertyAccessExpression(p) && p.expression === n && PACE_METHODS.test(p.name.text) && ts.isCallExpression(p.parent) && p.parent.expression === p) {
    call = p.parent;
    waits = true;
  } else if (ts.isPropertyAccessExpression(p) && p.expression === n && CHECK_METHODS.test(p.name.text) && ts.isCallExpression(p.parent) && p.parent.expression === p) {
    // A check for a slot in a method of the server's own HTTP client class (`get(url) { if (!limiter.canMakeRequest())
    // throw …; return this.fetchWithRetry(url) }`): it keeps the client within the vendor's budget (the rule: a limiter
    // around an HTTP client's requests). A check in a tool's handler, or in a function outside such a class, limits calls.
    const fn = enclosingFunction(p.parent);
    const cls = fn && !handlerNodes.has(fn) ? enclosingClass(fn) : undefined;
    return !!cls && !!fn && sendsRequests(cls) && (holdsOutboundRequest(fn) || callsSendingMethod(fn, cls));
  } else if (ts.isCallExpression(p) && p.expression === n) call = p;
  if (!call) return false;
  // The work handed to the limiter is a request, or the function that waits for a slot then sends one; a list of
  // such work built by a map over items (`limited(jobs.map((job) => () => api.getJob(job)))`) is read by its callback.
  for (const a of call.arguments) {
    let x = rawUnwrap(a);
    if (ts.isCallExpression(x)) {
      const m = rawUnwrap(x.expression);
      const cb = ts.isPropertyAccessExpression(m) && (m.name.text === 'map' || m.name.text === 'flatMap') && x.arguments[0] ? rawUnwrap(x.arguments[0]) : undefined;
      if (cb && (ts.isArrowFunction(cb) || ts.isFunctionExpression(cb))) x = cb;
    }
    if (ts.isArrowFunction(x) || ts.isFunctionExpression(x)) return holdsOutboundRequest(x);
    if (ts.isIdentifier(x)) {
      const d = rawDeclarationOf(x)?.parent;
      if (d && (ts.isFunctionDeclaration(d) || (ts.isVariableDeclaration(d) && d.initializer && ts.isFunctionLike(rawUnwrap(d.initializer))))) return holdsOutboundRequest(d);
      return false;
    }
    if (ts.isPropertyAccessExpression(x)) return false;
  }
  // Waiting for a slot (`await limiter.removeTokens(1)`) then sending a request, outside the tools' own handlers (a
  // check in a handler, `if (!bucket.take()) return …`, or a wait there, limits the tool's calls).
  const fn = enclosingFunction(call);
  return waits && !!fn && !handlerNodes.has(fn) && (holdsOutboundRequest(fn) || isRequestInterceptor(fn));
}

/** The tools' handlers and dispatchers of the audit being judged (set by the detector before it asks). */
let handlerNodes: ReadonlySet<ts.Node> = new Set();
export function setHandlers(nodes: ReadonlySet<ts.Node>): void {
  handlerNodes = nodes;
}

/** A function handed to an HTTP client's request interceptor (`this.http.interceptors.request.use(async (c) => …)`): it runs before each outgoing request. */
function isRequestInterceptor(fn: ts.Node): boolean {
  const call = fn.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(fn as ts.Expression)) return false;
  const c = rawUnwrap(call.expression);
  if (!ts.isPropertyAccessExpression(c) || c.name.text !== 'use') return false;
  const req = rawUnwrap(c.expression);
  if (!ts.isPropertyAccessExpression(req) || req.name.text !== 'request') return false;
  const ic = rawUnwrap(req.expression);
  return ts.isPropertyAccessExpression(ic) && ic.name.text === 'interceptors';
}

/**
 * `exports.osvRateLimiter = void 0;` (or `exports.a = exports.b = void 0;`): the declaration TypeScript's CommonJS
 * output writes at the top of a module for each export, before the value is built. It reads nothing.
 */
function exportPreamble(n: ts.PropertyAccessExpression): boolean {
  if (!ts.isIdentifier(n.expression) || n.expression.text !== 'exports') return false;
  const p = n.parent;
  if (!ts.isBinaryExpression(p) || p.left !== n || p.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return false;
  let v: ts.Expression = p.right;
  while (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.EqualsToken) v = v.right;
  return ts.isVoidExpression(v);
}

/** Is the value a construction builds exported from its module (`export const x = …`, `exports.x = …`, `module.exports.x = …`)? */
function exported(site: ts.Node, target: { kind: 'var' | 'prop'; name: string }): boolean {
  let n = site;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isAwaitExpression(n.parent) || ts.isAsExpression(n.parent) || ts.isNonNullExpression(n.parent))) n = n.parent;
  const p = n.parent;
  if (target.kind === 'var' && p && ts.isVariableDeclaration(p)) {
    const stmt = p.parent?.parent;
    if (stmt && ts.isVariableStatement(stmt) && stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
    // `export { limiter }` / `exports.limiter = limiter` further down: the name leaves the module.
    const text = site.getSourceFile().text;
    const name = escapeRegExp(target.name);
    return new RegExp(`\\bexport\\s*\\{[^}]*\\b${name}\\b|\\bexports\\.[\\w$]+\\s*=\\s*${name}\\b`).test(text);
  }
  if (target.kind === 'prop' && p && ts.isBinaryExpression(p)) return /^(?:module\.)?exports$/.test(rawUnwrap((rawUnwrap(p.left) as ts.PropertyAccessExpression).expression).getText());
  return false;
}

/**
 * The uses of an exported limiter in another module: its name read as a binding (`import { x }` then `x.acquire()`)
 * or as a member of the module object (`mod_1.x.acquire()`). Import and export specifiers, declarations and
 * assignments of the name (a twin build of the same module: dist/ beside dist-cjs/) are not uses.
 */
function importedUsesOf(sf: ts.SourceFile, name: string): ts.Node[] {
  const out: ts.Node[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return;
    if (ts.isPropertyAccessExpression(n) && n.name.text === name) {
      // `exports.x = …` defines a value of that module (a CommonJS twin of the same build), it does not read this one.
      const p = n.parent;
      if (!(ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind === ts.SyntaxKind.EqualsToken)) out.push(n);
      return;
    }
    if (ts.isIdentifier(n) && n.text === name) {
      const p = n.parent;
      const isDecl = (ts.isVariableDeclaration(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n) || ts.isBindingElement(p);
      if (!isDecl) out.push(n);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The uses of a limiter kept in a variable or a property, in its file (by name: a bundle's minified names may collide, then some use is unknown). */
function usesOf(sf: ts.SourceFile, target: { kind: 'var' | 'prop'; name: string }, site: ts.Node): ts.Node[] {
  const out: ts.Node[] = [];
  const visit = (n: ts.Node): void => {
    if (target.kind === 'var' && ts.isIdentifier(n) && n.text === target.name) {
      const p = n.parent;
      const isDecl = (ts.isVariableDeclaration(p) && p.name === n) || (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n);
      const isAssign = ts.isBinaryExpression(p) && p.left === n && p.right && site.pos >= p.right.pos && site.end <= p.right.end;
      if (!isDecl && !isAssign) out.push(n);
    } else if (target.kind === 'prop' && ts.isPropertyAccessExpression(n) && n.name.text === target.name) {
      const p = n.parent;
      const isAssign = ts.isBinaryExpression(p) && p.left === n && site.pos >= p.right.pos && site.end <= p.right.end;
      if (!isAssign && !exportPreamble(n)) out.push(n);
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

export interface Mount {
  call: ts.CallExpression;
  file: string;
  line: number;
  /** covering: the MCP endpoint is behind it (or nothing says where it is); off: only other routes; unknown: a path read at run time. */
  state: 'covering' | 'off' | 'unknown';
  route?: string;
}

/** A route path written in the code: a string, or a const initialised with one. */
function literalPath(n: ts.Node): string | undefined {
  const u = rawUnwrap(n);
  if (ts.isStringLiteral(u) || ts.isNoSubstitutionTemplateLiteral(u)) return u.text;
  if (ts.isIdentifier(u)) {
    const d = rawDeclarationOf(u)?.parent;
    if (d && ts.isVariableDeclaration(d) && d.initializer && ts.isVariableDeclarationList(d.parent) && d.parent.flags & ts.NodeFlags.Const) {
      const i = rawUnwrap(d.initializer);
      if (ts.isStringLiteral(i) || ts.isNoSubstitutionTemplateLiteral(i)) return i.text;
    }
  }
  return undefined;
}

const MCP_HANDOFF = /\.handleRequest\s*\(|\.handlePostMessage\s*\(|new\s+(?:\w+\.)?(?:StreamableHTTPServerTransport|SSEServerTransport|WebStandardStreamableHTTPServerTransport)\b|createMcpHandler\s*\(/;

/** Does this route handler hand the request to an MCP transport (its text, or the function a name resolves to)? */
function handsToMcp(arg: ts.Node): boolean {
  const u = rawUnwrap(arg);
  if (ts.isFunctionLike(u)) return MCP_HANDOFF.test(u.getText());
  if (ts.isIdentifier(u)) {
    const d = rawDeclarationOf(u)?.parent;
    if (d && (ts.isFunctionDeclaration(d) || ts.isVariableDeclaration(d))) return MCP_HANDOFF.test(d.getText());
  }
  return false;
}

/** Does one of these routes hand its requests to an MCP transport (`app.post('/mcp', (req, res) => transport.handleRequest(…))`)? */
export function routesToMcp(routeCalls: readonly ts.CallExpression[]): boolean {
  return routeCalls.some((r) => r.arguments.slice(1).some(handsToMcp));
}

const receiverText = (call: ts.CallExpression): string => {
  const c = rawUnwrap(call.expression);
  return ts.isPropertyAccessExpression(c) ? rawUnwrap(c.expression).getText() : '';
};

/** Does a mount at `path` (express/hono style prefixes) cover `route`? */
function covers(path: string, route: string): boolean {
  const p = path.replace(/\/?\*$/, '').replace(/\/$/, '');
  if (p === '') return true;
  return route === p || route.startsWith(`${p}/`);
}

/**
 * Judge each call that mounts a limiter as middleware (`calls`: receiver.use/post/… with a limiter among the
 * arguments): path-less, it covers every route; with a written path, it covers the MCP endpoint when one of the
 * routes of the same receiver that hand requests to an MCP transport lies under it, and is off the tool path when
 * such routes exist and none does (no such route seen: covering, as before); a path read at run time is unknown.
 */
export function judgeMounts(calls: readonly { call: ts.CallExpression; file: string }[], routeCalls: readonly ts.CallExpression[]): Mount[] {
  const mcpRoutes = new Map<string, string[]>();
  for (const r of routeCalls) {
    const path = r.arguments[0] && literalPath(r.arguments[0]);
    if (path === undefined || !r.arguments.slice(1).some(handsToMcp)) continue;
    const recv = receiverText(r);
    mcpRoutes.set(recv, [...(mcpRoutes.get(recv) ?? []), path]);
  }
  return calls.map(({ call, file }) => {
    const line = rawPositionOf(call).line;
    const first = call.arguments[0] && rawUnwrap(call.arguments[0]);
    const pathArg = first && !ts.isFunctionLike(first) && !ts.isCallExpression(first) && !ts.isNewExpression(first) && !ts.isObjectLiteralExpression(first) && !ts.isIdentifier(first) ? first : first && ts.isIdentifier(first) && literalPath(first) !== undefined ? first : undefined;
    if (!pathArg) {
      // No path, or a first argument that is middleware itself (an identifier naming a limiter, a call building one).
      if (first && ts.isIdentifier(first) && !ts.isFunctionLike(first)) {
        const d = rawDeclarationOf(first)?.parent;
        const init = d && ts.isVariableDeclaration(d) && d.initializer ? rawUnwrap(d.initializer) : undefined;
        // A name holding something other than a function, a call or a construction is a path read at run time.
        if (init && !ts.isCallExpression(init) && !ts.isNewExpression(init) && !ts.isFunctionLike(init)) return { call, file, line, state: 'unknown' };
      }
      return { call, file, line, state: 'covering' };
    }
    const path = literalPath(pathArg);
    if (path === undefined) return { call, file, line, state: 'unknown' };
    const routes = mcpRoutes.get(receiverText(call));
    if (!routes?.length) return { call, file, line, state: 'covering', route: path };
    return { call, file, line, state: routes.some((r) => covers(path, r)) ? 'covering' : 'off', route: path };
  });
}

/**
 * Is this limiter construction accounted for as guarding no tool call: every use of the value it builds paces an
 * outgoing request, or is an argument of a mount that is off the MCP route? A construction written inline in such
 * a mount or pacing call counts too. Returns the kind, or undefined when some use is anything else (or none).
 */
export function accountFor(site: ts.Node, offMounts: ReadonlySet<ts.CallExpression>, others: readonly ts.SourceFile[] = [], http?: HttpLayer): Account | undefined {
  // Inline: app.post('/login', rateLimit({...}), h) or new Bottleneck(o).wrap(fn) / pThrottle(o)(fn).
  for (let p = site.parent; p && !ts.isFunctionLike(p) && !ts.isSourceFile(p); p = p.parent) {
    if (ts.isCallExpression(p) && offMounts.has(p) && p.arguments.some((a) => a.pos <= site.pos && site.end <= a.end)) return 'off-route';
    if (ts.isCallExpression(p) && http?.routes.has(p) && p.arguments.some((a) => a.pos <= site.pos && site.end <= a.end)) {
      http.used.add(p);
      return 'http';
    }
    if (ts.isStatement(p)) break;
  }
  // A call handing request work to a limiter function (`await limitedRequests(jobs.map((j) => () => api.get(j)))`) is a
  // use of it that paces those requests, whatever the variable its result is kept in.
  if (ts.isCallExpression(site) && isPacingUse(site.expression)) return 'pacer';
  const target = targetOf(site);
  // A check by a limiter function written in a route's handler, its answer kept nowhere (`app.get('/downloads/:type',
  // async (req, res) => { if (!checkDownloadRateLimit(key)) return res.status(429)… })`): it limits the requests of that
  // route, which come over HTTP only.
  const mount = !target && http && ts.isCallExpression(site) ? httpMountOf(site, http) : undefined;
  if (mount) {
    http!.used.add(mount);
    return 'http';
  }
  if (!target) return isPacingUse(site) ? 'pacer' : undefined;
  const home = site.getSourceFile();
  const uses = usesOf(home, target, site);
  // An exported limiter is used by the modules that import it too: each of those uses must be accounted for as well
  // (a singleton built in its own module, `export const limiter = new RateLimiter(…)`, is used only there).
  if (exported(site, target)) for (const sf of others) if (sf !== home && sf.text.includes(target.name)) uses.push(...importedUsesOf(sf, target.name));
  if (uses.length === 0) return undefined;
  return accountUses(uses, offMounts, [home, ...others.filter((sf) => sf !== home)], 0, new Set(), http);
}

/** What a limiter is accounted for as: a pacer of outgoing requests, middleware off the MCP route, or a guard of the HTTP layer only. */
export type Account = 'pacer' | 'off-route' | 'http';

/**
 * The HTTP layer of the server: the calls that mount middleware or routes on an app (`app.use(…)`, `app.post(…)`), and
 * (filled while accounting) those a limiter is used in, as a middleware argument or in a function handed to one
 * (`app.use(MCP_PATH, async (c, next) => { rateLimiter.check(ip); await next(); })`). Such a limiter sees only the
 * requests that come over HTTP.
 */
export interface HttpLayer {
  routes: ReadonlySet<ts.CallExpression>;
  used: Set<ts.CallExpression>;
}

/** The mount or route call whose argument is the function (or the value) a use sits in, if any. */
function httpMountOf(u: ts.Node, http: HttpLayer): ts.CallExpression | undefined {
  let prev: ts.Node = u;
  for (let p = u.parent; p && !ts.isSourceFile(p); prev = p, p = p.parent) {
    if (ts.isCallExpression(p) && http.routes.has(p) && p.arguments.includes(prev as ts.Expression)) return p;
    // Only through the functions and values handed to the call itself: a statement above that is not inside one stops it.
    if (ts.isFunctionDeclaration(p) || ts.isClassLike(p) || ts.isMethodDeclaration(p)) return undefined;
  }
  return undefined;
}

/** Each use is accounted for (a pacing use, a mount off the MCP route, a read or disposal, a hand-off whose own uses are): the kind, or undefined. */
function accountUses(uses: readonly ts.Node[], offMounts: ReadonlySet<ts.CallExpression>, files: readonly ts.SourceFile[], depth: number, seen: Set<string>, http?: HttpLayer): Account | undefined {
  let kind: Account | undefined;
  for (const u of uses) {
    const p = u.parent;
    const mount = http && !offMounts.has(p as ts.CallExpression) ? httpMountOf(u, http) : undefined;
    if (ts.isCallExpression(p) && offMounts.has(p) && p.arguments.includes(u as ts.Expression)) kind = kind === 'pacer' || kind === 'http' ? kind : 'off-route';
    else if (isPacingUse(u)) kind = kind === 'http' ? kind : 'pacer';
    else if (isInertUse(u)) continue;
    else if (mount) {
      // In the HTTP layer (a middleware, a route's handler): it limits the requests that come over HTTP, and only those.
      http!.used.add(mount);
      kind = 'http';
    } else {
      // Handed on (kept in a services object, given to a class's constructor): accounted for as the uses it is read by.
      const next = depth < MAX_HANDOFFS ? handedOn(u, files, seen) : undefined;
      if (next === undefined) return undefined;
      if (next.length === 0) continue;
      const k = accountUses(next, offMounts, files, depth + 1, seen, http);
      if (!k) return undefined;
      if (k === 'http' || (k === 'pacer' && kind !== 'http') || !kind) kind = k;
    }
  }
  return kind;
}

/** How many hand-offs of a limiter value are followed (a services object, then a provider's constructor, then its field). */
const MAX_HANDOFFS = 3;

/** What a file offers to the following of hand-offs, gathered in one walk: member reads and destructured names by name, classes by name. */
interface HandoffIndex {
  reads: Map<string, ts.PropertyAccessExpression[]>;
  destructured: Set<string>;
  classes: Map<string, ts.ClassLikeDeclaration[]>;
}
const handoffMemo = new WeakMap<ts.SourceFile, HandoffIndex>();
function handoffIndex(sf: ts.SourceFile): HandoffIndex {
  let ix = handoffMemo.get(sf);
  if (ix) return ix;
  const out: HandoffIndex = { reads: new Map(), destructured: new Set(), classes: new Map() };
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAccessExpression(n)) {
      const p = n.parent;
      // An assignment to the member (`this.rateLimiter = rateLimiter`) stores the value, it does not read it.
      if (!(ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind === ts.SyntaxKind.EqualsToken)) {
        const k = n.name.text;
        const l = out.reads.get(k);
        if (l) l.push(n);
        else out.reads.set(k, [n]);
      }
    } else if (ts.isBindingElement(n) && ts.isObjectBindingPattern(n.parent)) {
      const k = n.propertyName ?? n.name;
      if (ts.isIdentifier(k)) out.destructured.add(k.text);
    } else if ((ts.isClassDeclaration(n) || ts.isClassExpression(n)) && n.name) {
      out.classes.set(n.name.text, [...(out.classes.get(n.name.text) ?? []), n]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  handoffMemo.set(sf, out);
  return out;
}

/**
 * The uses a limiter value handed on is read by, or undefined when the hand-off cannot be followed:
 *   - kept as a member of an object literal (`const coreServices = { rateLimiter, … }`): every read of that member
 *     name in the code read (`coreServices.rateLimiter.dispose()`, a provider's `this.rateLimiter.check(…)`); a
 *     destructuring of that name anywhere leaves it unfollowed, and so does an object literal handed straight to a call;
 *   - given to the constructor of a class of the code read (`new OpenRouterProvider(rateLimiter, config)`): the
 *     class's reads of the field its constructor stores that parameter in (`this.rateLimiter = rateLimiter`); a
 *     parameter used otherwise in the constructor leaves it unfollowed.
 * An empty list: nothing reads it (a member no code names).
 */
function handedOn(u: ts.Node, files: readonly ts.SourceFile[], seen: Set<string>): ts.Node[] | undefined {
  let n = u;
  while (n.parent && (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent) || ts.isAsExpression(n.parent))) n = n.parent;
  const p = n.parent;
  if (!p) return undefined;
  let key: string | undefined;
  if (ts.isShorthandPropertyAssignment(p) && p.name === n) key = p.name.text;
  else if (ts.isPropertyAssignment(p) && p.initializer === n && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) key = p.name.text;
  if (key !== undefined) {
    // An object handed straight to a call (`guardTransport(transport, { limiter })`) is read by that callee, under
    // whatever name it gives it: not followed.
    let obj: ts.Node = p.parent;
    while (obj.parent && (ts.isParenthesizedExpression(obj.parent) || ts.isAsExpression(obj.parent))) obj = obj.parent;
    if (obj.parent && (ts.isCallExpression(obj.parent) || ts.isNewExpression(obj.parent)) && obj.parent.arguments?.includes(obj as ts.Expression)) return undefined;
    if (seen.has(`.${key}`)) return [];
    seen.add(`.${key}`);
    const out: ts.Node[] = [];
    for (const sf of files) {
      if (!sf.text.includes(key)) continue;
      const ix = handoffIndex(sf);
      if (ix.destructured.has(key)) return undefined;
      // The member read is the use; the member of a member (`a.rateLimiter.check`) is read at it.
      for (const r of ix.reads.get(key) ?? []) if (!exportPreamble(r)) out.push(r);
    }
    return out;
  }
  if (ts.isNewExpression(p) && p.arguments?.includes(n as ts.Expression)) {
    const c = rawUnwrap(p.expression);
    if (!ts.isIdentifier(c)) return undefined;
    const at = p.arguments.indexOf(n as ts.Expression);
    const classes = files.flatMap((sf) => (sf.text.includes(c.text) ? (handoffIndex(sf).classes.get(c.text) ?? []) : []));
    if (classes.length !== 1) return undefined;
    const cls = classes[0]!;
    let ctor: ts.FunctionLikeDeclaration | undefined;
    for (const m of cls.members) if (ts.isConstructorDeclaration(m) && m.body) ctor = m;
    const param = ctor?.parameters[at];
    if (!ctor || !param || !ts.isIdentifier(param.name) || param.dotDotDotToken) return undefined;
    const pname = param.name.text;
    // A parameter property (`constructor(private rateLimiter)`) is the field itself.
    const fields = new Set<string>();
    if (param.modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.PublicKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword || m.kind === ts.SyntaxKind.ReadonlyKeyword)) fields.add(pname);
    let other = false;
    const inCtor = (x: ts.Node): void => {
      if (ts.isIdentifier(x) && x.text === pname && x !== param.name && !(ts.isPropertyAccessExpression(x.parent) && x.parent.name === x)) {
        const q = x.parent;
        if (ts.isBinaryExpression(q) && q.right === x && q.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(q.left) && q.left.expression.kind === ts.SyntaxKind.ThisKeyword) fields.add(q.left.name.text);
        else other = true;
      }
      ts.forEachChild(x, inCtor);
    };
    inCtor(ctor.body!);
    if (other || fields.size === 0) return undefined;
    const out: ts.Node[] = [];
    const key2 = `${c.text}#${at}`;
    if (seen.has(key2)) return [];
    seen.add(key2);
    const reads = handoffIndex(cls.getSourceFile()).reads;
    for (const f of fields) for (const r of reads.get(f) ?? []) if (r.pos >= cls.pos && r.end <= cls.end && r.expression.kind === ts.SyntaxKind.ThisKeyword) out.push(r);
    return out;
  }
  return undefined;
}

/** The nodes of pacing uses in a file region, for the path check to skip (a pacer on a tool's path guards nothing). */
export function isPacingRef(n: ts.Node): boolean {
  return isPacingUse(n);
}
