import { posix } from 'node:path';
import { isBuiltin } from 'node:module';
import { Node, SyntaxKind, ts, type CallExpression, type Identifier, type NewExpression, type PropertyAccessExpression, type SourceFile } from '../../facts/morph.js';
import { FRAMEWORK } from '../../facts/bundle-regions.js';
import { BROWSER_MODULES } from '../../facts/flow.js';
import { entryOfPackage, importsOfText, installedFolder, packageOf } from '../../facts/published.js';
import { locateInside, readInside } from '../../facts/safe-read.js';
import { objectLiteralOf, returnedExpressions } from '../../facts/server-model.js';
import { importsOf, ofKinds, unwrap } from '../../facts/ts-source.js';
import { classValueOf, declarationOf, enclosingClass, findNodes, functionOf, isFunctionLike, type ClassNode } from '../../facts/scope.js';
import type { Code, Fn } from '../support/source/code-paths.js';

/**
 * S-13: API clients from a dependency. A class imported from a package (not an MCP SDK, not an HTTP library
 * read elsewhere in this rule) is constructed in the source, kept in a variable or a field, and one of its
 * methods is called on a request path. The package as installed (its package.json and the files its entry
 * reaches by relative imports, bounded) says:
 *   - whether it makes HTTP requests: it depends on an HTTP client (axios, got, node-fetch, undici, ky…) or its
 *     code calls fetch() or http(s).request() and builds API requests (headers, credentials, a base URL: a
 *     library that only fetches its own assets, such as a WebAssembly module, is not an API client), itself or
 *     in the dependencies it installs (two levels down);
 *   - whether a time limit exists: the word timeout in its code (an option it takes), and a default value
 *     for it (`timeout: 60000`, `timeout ?? 30_000`, `DEFAULT_TIMEOUT`).
 * Red when it makes HTTP requests and nothing bounds them: no default, and the construction passes no option
 * whose name holds "timeout" (a construction whose options cannot be read is given the benefit of the doubt).
 * A package that is declared but not installed, or that cannot be read, is named for could-not-judge.
 */

export interface DependencyClient {
  package: string;
  node: NewExpression | CallExpression;
  verdict: 'unbounded' | 'not-read';
}

/** Schema libraries and validators: their classes make no request (an uninstalled ajv made the part could-not-judge). */
const NOT_CLIENTS = new Set(['zod', 'ajv', 'joi', 'yup', 'superstruct', 'valibot']);
/** Browsers and database drivers: what their factories return opens other kinds of connections (navigation, a database session). */
const NOT_HTTP_CLIENTS = new Set([...BROWSER_MODULES, 'mysql', 'mysql2', 'mongodb', 'mongoose', 'ws', 'redis', 'ioredis', 'better-sqlite3', 'sqlite3']);
/** Logging libraries: their packages hold an HTTP transport, which is the only part of them that sends requests. */
const LOGGERS = new Set(['winston', 'pino', 'bunyan', 'log4js']);
/**
 * HTTP server frameworks: an instance of theirs (`new Hono()`, `express()`, `fastify()`) is the app that answers the
 * server's own requests (its HTTP transport), not a client that sends any, even though the package's code calls fetch.
 */
const SERVER_FRAMEWORKS = new Set(['hono', '@hono/node-server', 'express', 'fastify', 'koa', '@koa/router', 'h3', 'elysia', 'polka', 'restify', '@fastify/express', 'connect', 'router']);
/**
 * An instance kept under `holder` in `text` that routes requests: `app.get('/mcp', (c) => …)`, `app.post("/messages",
 * handler)` — a path and a function handed to a route method (an API client's `client.get('/users', { params })`
 * passes options, not a function; a callback-style request's function takes the error first), or `app.listen(port)`:
 * a server app of a framework the list above does not name.
 */
const NOT_ROUTE = String.raw`(?:err|error|e)\b`;
function routesRequests(text: string, holder: string): boolean {
  const h = holder.replace(/[.$]/g, (c) => `\\${c}`);
  const route = new RegExp(`(?:^|[^\\w$.])${h}\\s*\\.\\s*(?:get|post|put|delete|patch|all|use|route|on)\\s*\\(\\s*['"\`]/[^'"\`]*['"\`]\\s*,\\s*(?:[\\w$.]+\\s*,\\s*)*(?:async\\s+)?(?:\\((?!\\s*${NOT_ROUTE})[^)]*\\)\\s*=>|(?!${NOT_ROUTE})[\\w$]+\\s*=>|function\\s*[\\w$]*\\s*\\((?!\\s*${NOT_ROUTE}))`);
  const listen = new RegExp(`(?:^|[^\\w$.])${h}\\s*\\.\\s*listen\\s*\\(`);
  return route.test(text) || listen.test(text);
}
/** HTTP libraries read by the rule's own request reading, and the database and SSH clients it reads apart. */
const READ_ELSEWHERE = new Set(['axios', 'got', 'ky', 'node-fetch', 'cross-fetch', 'undici', 'pg', 'ssh2']);
const HTTP_DEPENDENCIES = new Set(['axios', 'got', 'ky', 'node-fetch', 'cross-fetch', 'undici', 'superagent', 'request', 'ofetch', 'isomorphic-fetch', 'openapi-fetch', 'graphql-request', 'needle', 'phin', 'wretch', 'formdata-node']);
const HTTP_CALL = /\bfetch\s*\(|\bhttps?\.(?:request|get)\s*\(|\brequire\(\s*['"](?:node:)?https?['"]\s*\)|from\s+['"](?:node:)?https?['"]/;
/**
 * What tells an API client's requests from a library that fetches its own assets (a WebAssembly module, a data
 * file): request headers, credentials or a base URL written in the same code.
 */
const API_REQUEST = /\b(?:baseUrl|baseURL|base_url|apiKey|api_key|apiToken|Authorization|Bearer)\b|\bheaders\s*:/;
/** An option naming a time limit on requests: timeout, timeoutMs, requestTimeout, defaultTimeout, httpTimeout… */
const TIMEOUT_NAME = '(?:request|default|http|api|call|total)?_?timeout(?:Ms|MS|_ms|Millis|InMs)?';
const TIMEOUT_WORD = new RegExp(`\\b${TIMEOUT_NAME}\\b`, 'i');
/**
 * A default limit on requests: a numeric fallback of a timeout option (`timeout ?? 30_000`, `timeout = 60000`, or the
 * `??` as compiled for an older target: `(_a = options.timeoutMs) !== null && _a !== void 0 ? _a : 60000`),
 * a defaults object (`requestTimeout: 300 * 1000`), DEFAULT_*TIMEOUT, defaultTimeout (a limit on something else —
 * a helper executable, a retry, an idle socket, a watch, a poll — is not one).
 */
const TIMEOUT_DEFAULT = new RegExp(
  [
    String.raw`\btimeout\w*\s*(?:\?\?|\|\|)\s*[\d_]{3,}`,
    // The same fallback as a compiler writes `??` out for older targets (tsc, Babel, esbuild):
    // `(_a = options.timeoutMs) !== null && _a !== void 0 ? _a : 60000`, `(_a = opts.timeout) != null ? _a : 30000`.
    String.raw`\btimeout\w*\s*\)\s*!==?\s*null\s*(?:&&\s*[\w$]+\s*!==?\s*(?:void 0|undefined)\s*)?\?\s*[\w$]+\s*:\s*[\d_]{3,}`,
    String.raw`\btimeout\w*\s*[:=]\s*[\d_]{4,}`,
    String.raw`\b${TIMEOUT_NAME}\s*:\s*(?:[\d_]{4,}|\d+\s*\*\s*[\d_]+)\s*[,}\n]`,
    String.raw`\bDEFAULT_(?!\w*(?:EXECUTABLE|RETRY|IDLE|KEEP_?ALIVE|WATCH|POLL|SHUTDOWN|LOCK|HEARTBEAT))\w*TIMEOUT\w*\b`,
    String.raw`\bdefaultTimeout\b`,
  ].join('|'),
  'i',
);
/**
 * Whether a text sets a default limit (TIMEOUT_DEFAULT), leaving out a `timeout: 10000` written in one request's own
 * options (an object literal that also names the request's url or method, such as a token exchange): that bounds
 * that request, not the client's.
 */
function hasDefaultLimit(text: string): boolean {
  const re = new RegExp(TIMEOUT_DEFAULT.source, 'gi');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!/^\w*\s*:/.test(m[0]) || !/^(?:request|default|http|api|call|total)?_?timeout/i.test(m[0])) return true;
    // The object literal around the property: back to its unbalanced `{`.
    let depth = 0;
    let i = m.index - 1;
    for (; i >= 0 && m.index - i < 2000; i--) {
      const c = text[i];
      if (c === '}') depth++;
      else if (c === '{' && depth-- === 0) break;
    }
    const before = text.slice(Math.max(i, 0), m.index);
    if (!/[{,\s](?:url|method)\s*:/.test(before)) return true;
  }
  return false;
}
const CLIENT_MODULE = /(?:^|\/)[\w.-]*(?:client|http|request|fetch|transport)[\w.-]*$/i;
const LIMITS = { files: 60, bytes: 8 * 1024 * 1024, file: 4 * 1024 * 1024, depth: 2, deps: 12, packages: 40 };

type PackageVerdict = { kind: 'http'; bounded: boolean } | { kind: 'not-http' } | { kind: 'not-read' };

/**
 * What the installed package says (see the header), memoised per folder and name for one audit; at most
 * LIMITS.packages packages are read in one audit (past that, a package is not read).
 */
let packageMemo = new Map<string, PackageVerdict>();
function judgePackage(from: string, name: string, declared: boolean, depth = 0): PackageVerdict {
  const key = `${from}\0${name}\0${depth}`;
  const hit = packageMemo.get(key);
  if (hit) return hit;
  const v = packageMemo.size >= LIMITS.packages ? ({ kind: 'not-read' } as const) : readPackage(from, name, declared, depth);
  packageMemo.set(key, v);
  return v;
}

/**
 * The package.json of an installed package and the files its entry reaches by relative imports (bounded by LIMITS; a
 * module named like the package's HTTP layer first), with whether a file could not be read or was left past the limits.
 */
interface PackageFiles {
  pkg: Record<string, unknown>;
  files: [rel: string, text: string][];
  unread: boolean;
  left: boolean;
}
function packageFiles(folder: string): PackageFiles | undefined {
  const pj = readInside(folder, 'package.json', 1024 * 1024);
  let pkg: Record<string, unknown> | undefined;
  try {
    const v: unknown = pj.ok ? JSON.parse(pj.text) : undefined;
    pkg = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    pkg = undefined;
  }
  if (!pkg) return undefined;
  const exists = (rel: string): boolean => /\.(?:c|m)?js$/.test(rel) && locateInside(folder, rel).ok;
  const entry = entryOfPackage(pkg, '', exists);
  if (!entry) return undefined;
  const queue = [entry];
  const seen = new Set<string>();
  const files: [string, string][] = [];
  let bytes = 0;
  let unread = false;
  while (queue.length && seen.size < LIMITS.files && bytes < LIMITS.bytes) {
    const rel = queue.shift()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const t = readInside(folder, rel, LIMITS.file);
    if (!t.ok) {
      unread = true;
      continue;
    }
    bytes += t.size;
    files.push([rel, t.text]);
    for (const spec of importsOfText(t.text)) {
      if (!spec.startsWith('.')) continue;
      const base = posix.normalize(posix.join(posix.dirname(rel), spec));
      const f = [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}/index.js`].find(exists);
      if (!f || f.startsWith('..') || seen.has(f)) continue;
      // A module named like the package's HTTP layer (`internal/api/client.js`, `http.js`, `fetcher.js`) is read first:
      // in a large SDK (hundreds of resource modules) it may lie past the files read breadth-first.
      if (CLIENT_MODULE.test(spec)) queue.unshift(f);
      else queue.push(f);
    }
  }
  return { pkg, files, unread, left: queue.length > 0 };
}

function readPackage(from: string, name: string, declared: boolean, depth: number): PackageVerdict {
  const folder = installedFolder(from, name);
  if (!folder) return declared ? { kind: 'not-read' } : { kind: 'not-http' };
  const read = packageFiles(folder);
  if (!read) return { kind: 'not-read' };
  const deps = Object.keys((read.pkg.dependencies as Record<string, unknown> | undefined) ?? {});
  let http = deps.some((d) => HTTP_DEPENDENCIES.has(d));
  const texts = read.files.map(([, t]) => t);
  const word = texts.some((t) => TIMEOUT_WORD.test(t));
  const fallback = texts.some(hasDefaultLimit);
  const called = texts.some((t) => HTTP_CALL.test(t));
  const api = texts.some((t) => API_REQUEST.test(t));
  // Its own fetch/http calls count when its code also builds API requests (headers, credentials, a base URL).
  if (called && api) http = true;
  // The requests may be made by a dependency (@octokit/rest -> @octokit/core -> @octokit/request): followed two levels down.
  let depBounded = false;
  if (!http && depth < LIMITS.depth) {
    for (const d of deps.slice(0, LIMITS.deps)) {
      const sub = judgePackage(folder, d, false, depth + 1);
      if (sub.kind !== 'http') continue;
      http = true;
      depBounded ||= sub.bounded;
    }
  }
  if (!http) return read.unread || read.left ? { kind: 'not-read' } : { kind: 'not-http' };
  return { kind: 'http', bounded: (word && fallback) || depBounded };
}

/**
 * The name an instance is kept under: `client` (a variable), `this.client` (a field), or `getClient()` for a
 * function that builds and returns it (`function getDocs() { return google.docs({ … }) }`, an arrow whose body it is).
 */
function holderOf(n: Node): string | undefined {
  let c: Node = n;
  let p: Node | undefined = n.getParent();
  // Past a choice between constructions (`this.octokit = token ? new Octokit({ auth: token }) : new Octokit()`): each branch is kept there.
  while (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isAwaitExpression(p) || (Node.isConditionalExpression(p) && p.getCondition() !== c))) {
    c = p;
    p = p.getParent();
  }
  if (!p) return undefined;
  if (Node.isVariableDeclaration(p) && Node.isIdentifier(p.getNameNode())) return p.getName();
  if (Node.isPropertyDeclaration(p)) return `this.${p.getName()}`;
  if (Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '=') {
    const l = p.getLeft().getText().replace(/\s+/g, '');
    return /^(?:this\.)?[\w$]+$/.test(l) ? l : undefined;
  }
  // Returned by a named function (or the body of an arrow kept in a const): its calls are the uses.
  let fn: Node | undefined;
  if (Node.isReturnStatement(p)) fn = p.getFirstAncestor((a) => Node.isFunctionDeclaration(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a) || Node.isMethodDeclaration(a));
  else if (Node.isArrowFunction(p) && p.getBody() === n) fn = p;
  if (!fn) return undefined;
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) {
    const name = fn.getName();
    return name ? `${Node.isMethodDeclaration(fn) ? 'this.' : ''}${name}()` : undefined;
  }
  const v = fn.getParent();
  return v && Node.isVariableDeclaration(v) && Node.isIdentifier(v.getNameNode()) ? `${v.getName()}()` : undefined;
}

/**
 * The fields and variables of a file that keep what a builder function returns (`holder` is `this.createClient()` or
 * `makeClient()`): `this.paddle = this.createClient(…)`, `const api = makeClient(…)`, `let api; … api = await makeClient()`.
 */
function keptFrom(sf: SourceFile, holder: string): string[] {
  const call = holder.slice(0, -2).replace(/[.$]/g, (c) => `\\${c}`);
  const re = new RegExp(`(?:^|[^\\w$.])((?:this\\.)?[\\w$]+)\\s*=\\s*(?:await\\s+)?${call}\\s*\\(`, 'g');
  const out = new Set<string>();
  for (const m of sf.getFullText().matchAll(re)) out.add(m[1]!);
  return [...out];
}

/** A value that is a package's export itself (`k8s.CoreV1Api` handed to a factory), not an options object. */
function isPackageRef(n: Node, bare: ReadonlyMap<string, string>): boolean {
  let u = unwrap(n);
  while (Node.isPropertyAccessExpression(u)) u = unwrap(u.getExpression());
  return Node.isIdentifier(u) && bare.has(u.getText());
}

/**
 * A const of the source whose value a package makes, by a call or a construction named like an authentication handler
 * or a credential (`azdev.getPersonalAccessTokenHandler(pat)`, `getBearerHandler(token)` imported from a dependency,
 * `new DefaultAzureCredential()`). The name is trusted only there: the server's own `loadCredentials()` may well return
 * the client's options (ownMakerOptions reads them).
 */
const CREDENTIAL_MAKER = /(?:handler|credentials?)$/i;
const CREDENTIAL_CLASS = /credentials?$/i;
function credentialConst(id: Identifier): boolean {
  const made = madeBy(id);
  if (!made) return false;
  const callee = unwrap(made.getExpression());
  const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
  if (Node.isNewExpression(made) && CREDENTIAL_CLASS.test(name)) return true;
  return CREDENTIAL_MAKER.test(name) && fromPackage(callee);
}

/** The call or construction a const is initialised with (`const x = make(…)`, `const x = await make(…)`). */
function madeBy(id: Identifier): CallExpression | NewExpression | undefined {
  const d = declarationOf(id)?.getParent();
  if (!d || !Node.isVariableDeclaration(d)) return undefined;
  const init = d.getInitializer();
  let made = init ? unwrap(init) : undefined;
  if (made && Node.isAwaitExpression(made)) made = unwrap(made.getExpression());
  return made && (Node.isCallExpression(made) || Node.isNewExpression(made)) ? made : undefined;
}

/** Is the callee a package's (its root imported from a bare specifier, or required from one)? */
function fromPackage(callee: Node): boolean {
  let r = unwrap(callee);
  while (Node.isPropertyAccessExpression(r)) r = unwrap(r.getExpression());
  if (!Node.isIdentifier(r)) return false;
  const b = importsOf(r.getSourceFile()).get(r.getText());
  if (b) return !!packageOf(b.module);
  let d: Node | undefined = declarationOf(r)?.getParent();
  while (d && (Node.isBindingElement(d) || Node.isObjectBindingPattern(d))) d = d.getParent();
  if (!d || !Node.isVariableDeclaration(d)) return false;
  const init = d.getInitializer();
  let c = init ? unwrap(init) : undefined;
  while (c && Node.isPropertyAccessExpression(c)) c = unwrap(c.getExpression());
  if (!c || !Node.isCallExpression(c) || c.getExpression().getText() !== 'require') return false;
  const a0 = c.getArguments()[0];
  return !!a0 && (Node.isStringLiteral(a0) || Node.isNoSubstitutionTemplateLiteral(a0)) && !!packageOf(a0.getLiteralText());
}

/**
 * Options made by a function of the server's own (`const options = loadCredentials()`, or the call handed itself):
 * true when they may hold a timeout (a returned object literal names one, the function's body writes one, a spread or
 * a return that cannot be read), false when every return is an object literal of the function without one; undefined
 * when the maker is not the server's own function.
 */
function ownMakerOptions(u: Node, code: Code): boolean | undefined {
  const made = Node.isIdentifier(u) ? madeBy(u) : Node.isCallExpression(u) ? u : undefined;
  if (!made || !Node.isCallExpression(made) || fromPackage(made.getExpression())) return undefined;
  let fn: ReturnType<typeof functionOf>;
  try {
    fn = functionOf(made.getExpression(), code.sources);
  } catch {
    fn = undefined;
  }
  if (!fn) return undefined;
  if (/\btimeout/i.test(fn.getText())) return true;
  const returned = returnedExpressions(fn);
  if (!returned.length) return true;
  for (const r of returned) {
    const o = objectLiteralOf(r, code.sources);
    if (!o || o.getProperties().some((p) => Node.isSpreadAssignment(p))) return true;
  }
  return false;
}

/** Does the construction pass an option named like a timeout (or options that cannot be read)? */
function passesTimeout(n: NewExpression | CallExpression, code: Code, bare: ReadonlyMap<string, string> = new Map()): boolean {
  return n.getArguments().some((a) => argumentPassesTimeout(a, code, bare));
}

/**
 * One argument of a construction: see passesTimeout. A conditional passes one when either of its values does
 * (`new LinearClient(oauth ? { accessToken } : { apiKey })`: two readable literals, neither with a timeout).
 */
function argumentPassesTimeout(a: Node, code: Code, bare: ReadonlyMap<string, string>, depth = 0): boolean {
  const u = unwrap(a);
  if (Node.isConditionalExpression(u) && depth < 3) return argumentPassesTimeout(u.getWhenTrue(), code, bare, depth + 1) || argumentPassesTimeout(u.getWhenFalse(), code, bare, depth + 1);
  if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u) || Node.isTemplateExpression(u) || Node.isNumericLiteral(u)) return false;
  if (isPackageRef(u, bare)) return false;
  const o = objectLiteralOf(a, code.sources);
  if (!o) {
    // A token or a URL read from the environment or the arguments: not an options object.
    if ((Node.isIdentifier(u) || Node.isPropertyAccessExpression(u) || Node.isBinaryExpression(u) || Node.isCallExpression(u)) && /(?:key|token|secret|url|uri|host|endpoint|env\.)/i.test(u.getText())) return false;
    // An authentication handler or a credential kept in a const of the source (`const authHandler =
    // azdev.getPersonalAccessTokenHandler(pat)`, `const credential = new ClientSecretCredential(…)`): not an options object.
    if (Node.isIdentifier(u) && credentialConst(u)) return false;
    // Options returned by a function of the server's own: read there.
    const own = ownMakerOptions(u, code);
    if (own !== undefined) return own;
    return true;
  }
  // A spread of options the source writes (`const baseOptions = { baseUrl, previews }; new Octokit({ ...baseOptions, auth })`)
  // is read like the rest of the literal; a spread that cannot be read (a parameter, a call's value) may hold a timeout.
  for (const p of o.getProperties()) {
    if (!Node.isSpreadAssignment(p)) continue;
    const spread = unwrap(p.getExpression());
    if (depth >= 3 || !objectLiteralOf(spread, code.sources) || argumentPassesTimeout(spread, code, bare, depth + 1)) return true;
  }
  if (o.getProperties().some((p) => /timeout/i.test((p as Node & { getName?: () => string }).getName?.() ?? ''))) return true;
  // A nested options object: `{ request: { timeout } }`, `{ httpOptions: { timeout } }`.
  return /\btimeout/i.test(o.getText());
}

/**
 * How an instance is made from a package: `new P.Client(…)` or a factory call on the package or on an
 * instance of it (`google.docs({ version, auth })`, `Client.initWithMiddleware({ authProvider })`,
 * `kc.makeApiClient(k8s.CoreV1Api)` on `kc = new k8s.KubeConfig()`, `new Airtable({ apiKey }).base(id)`), with
 * every construction or call of the chain (their options are read for a timeout) and whether the chain looks
 * like a client's: a `new` in it, credentials or an address in its options, or a factory named like a client.
 */
interface Making {
  package: string;
  chain: (NewExpression | CallExpression)[];
  clientLike: boolean;
}
const CLIENT_OPTION = /^(?:auth\w*|\w*(?:key|token|secret|credentials?|password)|host|baseU(?:rl|RL)|endpoint\w*|url|server|project\w*|authProvider)$/i;
const CLIENT_FACTORY = /client|api|sdk|service|connect|^init/i;
function makingOf(expr: Node, bare: ReadonlyMap<string, string>, code: Code, depth = 0, aliases: ReadonlyMap<string, string> = new Map()): Making | undefined {
  if (depth > 4) return undefined;
  const u = unwrap(expr);
  const rootOf = (e: Node): Node => {
    let r = unwrap(e);
    while (Node.isPropertyAccessExpression(r)) r = unwrap(r.getExpression());
    return r;
  };
  if (Node.isNewExpression(u)) {
    const r = rootOf(u.getExpression());
    const pkg = Node.isIdentifier(r) ? bare.get(r.getText()) : undefined;
    return pkg ? { package: pkg, chain: [u], clientLike: true } : undefined;
  }
  if (Node.isCallExpression(u)) {
    const callee = unwrap(u.getExpression());
    let inner: Making | undefined;
    if (Node.isIdentifier(callee)) {
      const pkg = bare.get(callee.getText());
      inner = pkg ? { package: pkg, chain: [], clientLike: CLIENT_FACTORY.test(callee.getText()) } : undefined;
    } else if (Node.isPropertyAccessExpression(callee)) {
      let r = unwrap(callee.getExpression());
      // `ctx.google.docs(…)`: a property that holds the package in a context object built in this file (aliases).
      const alias = Node.isPropertyAccessExpression(r) ? aliases.get(r.getName()) : undefined;
      while (Node.isPropertyAccessExpression(r)) r = unwrap(r.getExpression());
      if (alias) inner = { package: alias, chain: [], clientLike: CLIENT_FACTORY.test(callee.getName()) };
      else if (Node.isIdentifier(r) && bare.has(r.getText())) inner = { package: bare.get(r.getText())!, chain: [], clientLike: CLIENT_FACTORY.test(callee.getName()) };
      else inner = makingOf(r, bare, code, depth + 1, aliases);
      if (inner && CLIENT_FACTORY.test(callee.getName())) inner = { ...inner, clientLike: true };
    }
    if (!inner) return undefined;
    const options = u.getArguments().map((a) => objectLiteralOf(a, code.sources)).filter((o): o is NonNullable<typeof o> => !!o);
    const withCredentials = options.some((o) => o.getProperties().some((p) => CLIENT_OPTION.test((p as Node & { getName?: () => string }).getName?.() ?? '')));
    return { package: inner.package, chain: [...inner.chain, u], clientLike: inner.clientLike || withCredentials };
  }
  if (Node.isIdentifier(u) && !bare.has(u.getText())) {
    // An instance kept in a const of the same file (`const kc = new k8s.KubeConfig()`).
    const d = declarationOf(u)?.getParent();
    if (d && Node.isVariableDeclaration(d) && d.getSourceFile() === u.getSourceFile()) {
      const init = d.getInitializer();
      return init ? makingOf(init, bare, code, depth + 1, aliases) : undefined;
    }
  }
  return undefined;
}

/**
 * A call anywhere in the source that configures the package or the instance with a time limit (`google.options({ timeout })`,
 * `client.setTimeout(…)`, `axios.create({ timeout })`): read on the code, not the text — a call `<name>.<method>(…)` whose
 * receiver is one of `names` (a local name of the package, or the holder `client` / `this.client`), whose method names a
 * timeout or whose own arguments write one (a key, a name or a member `…timeout…`, not inside a callback's body).
 * A comment or a string that mentions a timeout, or a timeout further down the file, is not a configuration.
 */
function configuredElsewhere(code: Code, names: string[]): boolean {
  const wanted = new Set(names.map((n) => n.replace(/\s+/g, '')));
  const TIMEOUT = /timeout/i;
  const receiver = (e: ts.Expression): string | undefined =>
    ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) && e.expression.kind === SyntaxKind.ThisKeyword ? `this.${e.name.text}` : undefined;
  const writesTimeout = (n: ts.Node): boolean => {
    if (ts.isFunctionLike(n)) return false;
    if ((ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) && TIMEOUT.test(n.text)) return true;
    // A quoted key (`{ 'timeout': 5000 }`), not any string.
    if (ts.isStringLiteral(n) && ts.isPropertyAssignment(n.parent) && n.parent.name === n && TIMEOUT.test(n.text)) return true;
    return !!ts.forEachChild(n, (c) => (writesTimeout(c) ? true : undefined));
  };
  const configures = (cn: ts.Node): boolean => {
    if (!ts.isCallExpression(cn) || !ts.isPropertyAccessExpression(cn.expression)) return false;
    const r = receiver(cn.expression.expression);
    if (!r || !wanted.has(r)) return false;
    return TIMEOUT.test(cn.expression.name.text) || cn.arguments.some((a) => writesTimeout(a));
  };
  return code.files.some(([, sf]) => ofKinds(sf, [SyntaxKind.CallExpression], configures).length > 0);
}

/**
 * The fields of classes of the source that keep an instance handed to their constructor: `new LinearService(client)`
 * with `constructor(client) { this.client = client }` (or a parameter property), whose methods call `this.client.issues()`.
 * Read in the file where the instance is kept (`holder`, a variable name or `this.x`), with the class of each `new`.
 */
function wrapperFields(sf: SourceFile, holder: string, code: Code): { cls: ClassNode; field: string }[] {
  const out: { cls: ClassNode; field: string }[] = [];
  const bare = holder.replace(/^this\./, '');
  for (const n of ofKinds(sf, [SyntaxKind.NewExpression], (cn) => (cn as ts.NewExpression).arguments?.some((a) => (ts.isIdentifier(a) ? a.text : ts.isPropertyAccessExpression(a) ? a.name.text : '') === bare) ?? false)) {
    if (!Node.isNewExpression(n)) continue;
    const index = n.getArguments().findIndex((a) => a.getText().replace(/\s+/g, '') === holder);
    if (index < 0) continue;
    const cls = classValueOf(n.getExpression(), code.sources);
    const ctor = cls?.getConstructors().find((c) => c.getBody());
    const param = ctor?.getParameters()[index];
    if (!cls || !ctor || !param || !Node.isIdentifier(param.getNameNode())) continue;
    const name = param.getName();
    if (param.getScope() !== undefined || param.isReadonly()) out.push({ cls, field: name });
    for (const b of ofKinds(ctor.getSourceFile(), [SyntaxKind.BinaryExpression], (cn) => {
      const e = cn as ts.BinaryExpression;
      return e.operatorToken.kind === SyntaxKind.EqualsToken && ts.isIdentifier(e.right) && e.right.text === name && ts.isPropertyAccessExpression(e.left) && e.left.expression.kind === SyntaxKind.ThisKeyword;
    })) {
      if (!Node.isBinaryExpression(b) || b.getFirstAncestor((a) => a === ctor) === undefined) continue;
      const left = b.getLeft();
      if (Node.isPropertyAccessExpression(left)) out.push({ cls, field: left.getName() });
    }
  }
  return out;
}

/** Test and mock files: their clients are not the server's. */
export const TEST_FILE = /(?:^|\/)(?:__tests__|__mocks__|tests?|spec)\/|\.(?:test|spec)\.[cm]?[jt]sx?$/;

/** Text of a file that makes or starts an MCP server, or registers its tools. */
const SERVES = /\bnew\s+(?:Mcp)?Server\s*\(|\.(?:registerTool|tool|setRequestHandler)\s*\(|\bStdioServerTransport\b|\bStreamableHTTPServerTransport\b/;

/**
 * The developer scripts of the package's own `scripts/` folder (`scripts/test-api.js`, a release or seed script):
 * their clients are not the server's. When a file there makes or starts the server or registers tools (some packages
 * start their server from `scripts/start-server.ts`), the folder is server code and nothing in it is left out; a
 * `scripts` folder deeper in the source (`src/scripts/`) is always read as source. Returns the test of one path.
 */
export function devScripts(files: readonly (readonly [string, SourceFile])[]): (path: string) => boolean {
  const inScripts = (p: string): boolean => /^scripts\//.test(p);
  const serverThere = [...files].some(([p, sf]) => inScripts(p) && SERVES.test(sf.getFullText()));
  return (path) => !serverThere && inScripts(path);
}

/**
 * The clients of dependencies used on a request path (`fns`, the functions its handlers reach) whose requests
 * have no ceiling, and the ones whose package could not be read. With `anywhere`, every client of a dependency
 * built in the source counts, used on a path the reading followed or not. Test files and developer scripts
 * (TEST_FILE, devScripts) are left out either way: a client they build is not the server's, even when its variable has the name
 * of one the handlers call.
 */
export function dependencyClients(code: Code, fns: readonly Fn[], root: string, declared: ReadonlySet<string>, anywhere = false): DependencyClient[] {
  const out: DependencyClient[] = [];
  packageMemo = new Map();
  const texts = fns.map((f) => f.getText());
  const callRe = (holder: string): RegExp => new RegExp(`(?:^|[^\\w$.])${holder.replace(/[.$]/g, (c) => `\\${c}`)}(?:(?:\\s*\\??\\.\\s*[\\w$]+)+\\s*\\(|\\s*\\()`);
  // An instance handed to a class of the source that keeps it in a field: that field's calls in the class's methods on the path.
  const usedThroughWrapper = (sf: SourceFile, holder: string): boolean =>
    /^(?:this\.)?[\w$]+$/.test(holder) &&
    wrapperFields(sf, holder, code).some(({ cls, field }) => {
      const re = callRe(`this.${field}`);
      return fns.some((f, i) => enclosingClass(f) === cls && re.test(texts[i]!));
    });
  const used = (holder: string): boolean => {
    if (holder.endsWith('()')) {
      // A function that builds the instance: called on a request path.
      const name = holder.slice(0, -2);
      const re = new RegExp(`(?:^|[^\\w$.])${name.replace(/[.$]/g, (c) => `\\${c}`)}\\s*\\(`);
      return texts.some((t) => re.test(t));
    }
    // `client.method(…)`, a namespaced method (`octokit.repos.get(…)`, `stripe.customers.list(…)`), or the
    // instance called itself (an Airtable base: `base('Tasks').select()`).
    const h = holder.replace(/[.$]/g, (c) => `\\${c}`);
    const re = new RegExp(`(?:^|[^\\w$.])${h}(?:(?:\\s*\\??\\.\\s*[\\w$]+)+\\s*\\(|\\s*\\()`);
    // Or handed to a function call as an argument (`toolFunction(this.paddle, arg)`: a table of functions that take the
    // client). Not handed to a construction (`new TokenCredentialAuthenticationProvider(credential, …)`): there it is a
    // part of another client (a credential, an agent), whose requests that client's reading judges.
    const handed = new RegExp(`(new\\s+)?[\\w$.]*[\\w$)\\]]\\s*\\((?:[^()]*,)?\\s*${h}\\s*[,)]`, 'g');
    return texts.some((t) => re.test(t) || [...t.matchAll(handed)].some((m) => !m[1]));
  };
  const judged = new Set<Node>();
  const devScript = devScripts(code.files);
  for (const [path, sf] of code.files) {
    if (TEST_FILE.test(path) || devScript(path)) continue;
    const bare = new Map<string, string>();
    for (const [local, b] of importsOf(sf)) {
      const p = packageOf(b.module);
      if (!p || isBuiltin(p.name) || FRAMEWORK.test(p.name) || NOT_CLIENTS.has(p.name) || READ_ELSEWHERE.has(p.name)) continue;
      bare.set(local, p.name);
    }
    if (bare.size === 0) continue;
    const rootName = (e: ts.Expression): string | undefined => {
      while (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e) || ts.isParenthesizedExpression(e) || ts.isNewExpression(e) || ts.isAwaitExpression(e)) e = e.expression;
      return ts.isIdentifier(e) ? e.text : undefined;
    };
    // Consts of this file holding an instance made from a package (`const kc = new k8s.KubeConfig()`).
    const instances = new Set<string>();
    for (const v of ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => {
      const d = cn as ts.VariableDeclaration;
      const r = d.initializer && ts.isIdentifier(d.name) ? rootName(d.initializer) : undefined;
      return !!r && bare.has(r) && !ts.isIdentifier(d.initializer!);
    })) {
      if (Node.isVariableDeclaration(v)) instances.add(v.getName());
    }
    // Properties of object literals of this file that hold a package (`return { google: google2, log }`, `{ google }`):
    // a context object handed to the handlers, whose `ctx.google.docs(…)` is a factory call on the package.
    const aliases = new Map<string, string>();
    for (const p of ofKinds(sf, [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment], (cn) => {
      if (ts.isShorthandPropertyAssignment(cn)) return bare.has(cn.name.text);
      const a = cn as ts.PropertyAssignment;
      return ts.isIdentifier(a.name) && ts.isIdentifier(a.initializer) && bare.has(a.initializer.text);
    })) {
      if (Node.isShorthandPropertyAssignment(p)) aliases.set(p.getName(), bare.get(p.getName())!);
      else if (Node.isPropertyAssignment(p)) aliases.set(p.getName(), bare.get(p.getInitializerOrThrow().getText())!);
    }
    const aliasIn = (e: ts.Expression): boolean => ts.isPropertyAccessExpression(e) && ts.isPropertyAccessExpression(e.expression) && aliases.has(e.expression.name.text);
    const rootIn = (e: ts.Expression): boolean => {
      const r = rootName(e);
      return (!!r && (bare.has(r) || instances.has(r))) || aliasIn(e);
    };
    const made = ofKinds(sf, [SyntaxKind.NewExpression, SyntaxKind.CallExpression], (cn) => {
      if (ts.isNewExpression(cn)) {
        // `new Client(…)`, `new sdk.Client(…)`, or a class in a namespace of the package (`new line.messagingApi.MessagingApiClient(…)`).
        let r: ts.Expression = cn.expression;
        while (ts.isPropertyAccessExpression(r)) r = r.expression;
        return ts.isIdentifier(r) && bare.has(r.text);
      }
      // A call whose value is kept (a variable, a field, a return): a factory of the package or of an instance.
      const p = cn.parent;
      const kept = ts.isVariableDeclaration(p) || ts.isReturnStatement(p) || ts.isAwaitExpression(p) || ts.isBinaryExpression(p) || ts.isPropertyDeclaration(p) || ts.isArrowFunction(p) || ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || (ts.isConditionalExpression(p) && p.condition !== cn);
      return kept && rootIn((cn as ts.CallExpression).expression);
    }).map((n) => [n, Node.isNewExpression(n) || Node.isCallExpression(n) ? makingOf(n, bare, code, 0, aliases) : undefined] as const);
    // With `anywhere`, a construction that is a step of another's chain (`new k8s.KubeConfig()` then `kc.makeApiClient(…)`)
    // is judged with that chain only.
    const steps = new Set<Node>(anywhere ? made.flatMap(([n, m]) => (m ? m.chain.filter((c) => c !== n) : [])) : []);
    for (const [n, m] of made) {
      if (judged.has(n) || steps.has(n)) continue;
      // A factory call counts when it looks like a client's, and not for a browser or a database driver (read as before, by `new`).
      if (!m || (Node.isCallExpression(n) && (!m.clientLike || NOT_HTTP_CLIENTS.has(m.package)))) continue;
      // A logger and its transports (`winston.createLogger(…)`, `new winston.transports.Console(…)`) write logs: only an
      // HTTP transport (`new winston.transports.Http(…)`) sends requests, and it is read as a client.
      if (LOGGERS.has(m.package) && !/http/i.test((n as NewExpression | CallExpression).getExpression().getText())) continue;
      const holder = holderOf(n);
      // A function that builds the instance, whose value a field or variable keeps (`this.paddle = this.createClient()`):
      // that field's calls are uses too.
      const kept = holder?.endsWith('()') ? keptFrom(sf, holder) : [];
      // A server app (SERVER_FRAMEWORKS, or an instance that routes requests): it answers requests, it sends none.
      if (SERVER_FRAMEWORKS.has(m.package) || (holder && !holder.endsWith('()') && routesRequests(sf.getFullText(), holder))) continue;
      if (!anywhere && (!holder || ![holder, ...kept].some((h) => used(h) || usedThroughWrapper(sf, h)))) continue;
      for (const c of m.chain) judged.add(c);
      const pkg = m.package;
      const v = judgePackage(root, pkg, declared.has(pkg));
      if (v.kind === 'not-read') out.push({ package: pkg, node: n as NewExpression | CallExpression, verdict: 'not-read' });
      else if (v.kind === 'http' && !v.bounded && !m.chain.some((c) => passesTimeout(c, code, bare))) {
        const local = [...bare].filter(([, name]) => name === pkg).map(([l]) => l);
        if (!configuredElsewhere(code, [...local, ...(holder ? [holder.replace(/\(\)$/, '')] : [])])) out.push({ package: pkg, node: n as NewExpression | CallExpression, verdict: 'unbounded' });
      }
    }
  }
  return out;
}

/**
 * HTTP libraries with no default limit on a request (axios, got, needle's response and read timeouts, superagent,
 * node-fetch…): a call of theirs waits as long as the upstream does. ky (10 s) and undici's own request (its
 * header and body timeouts) are not among them.
 */
const UNBOUNDED_HTTP = ['axios', 'got', 'needle', 'superagent', 'node-fetch', 'cross-fetch', 'isomorphic-fetch', 'request', 'phin', 'ofetch'];
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The local names a module's text binds to one of UNBOUNDED_HTTP: `const needle_1 = __importDefault(require("needle"))`, `import axios from 'axios'`. */
function httpLocals(text: string): string[] {
  const lib = `['"](?:${UNBOUNDED_HTTP.map(esc).join('|')})['"]`;
  const res = [
    new RegExp(String.raw`(?:const|let|var)\s+([\w$]+)\s*=\s*(?:__importDefault|__importStar|__toESM|_interopRequireDefault)?\(?\s*require\(\s*${lib}\s*\)`, 'g'),
    new RegExp(String.raw`\bimport\s+([\w$]+)\s*(?:,\s*\{[^}]*\}\s*)?from\s*${lib}`, 'g'),
    new RegExp(String.raw`\bimport\s*\*\s*as\s+([\w$]+)\s+from\s*${lib}`, 'g'),
  ];
  return res.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
}

/**
 * The end of the statement that starts at `from`: its `;` (or a blank line) outside brackets, or the close of the block
 * around it; with `block` (`from` at a `{`), the close of that block.
 */
function statementEnd(text: string, from: number, block = false): number {
  let depth = 0;
  for (let i = from; i < text.length && i - from < 50_000; i++) {
    const c = text[i]!;
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') {
      if (--depth < 0 || (block && depth === 0)) return i;
    } else if (depth === 0 && (c === ';' || (c === '\n' && text[i + 1] === '\n'))) return i;
  }
  return Math.min(text.length, from + 50_000);
}

/**
 * The text of the definition of `name` in one module: a function declaration (`function search(…) {…}`), or a
 * const, let or var, or an `exports.name =`, whose value is written there (`const getX = async (url) => {…}`, Babel's
 * `let getX = exports.getX = (() => {…})();`), up to the end of its statement; a definition inside another one is
 * part of it. Undefined when the module defines it nowhere, or in more than one place.
 */
function definitionOf(text: string, name: string): string | undefined {
  const n = esc(name);
  const spans: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(String.raw`(?:^|[^\w$.])(?:async\s+)?function\s*\*?\s*${n}\s*\(`, 'g'))) {
    const open = text.indexOf('{', m.index! + m[0].length);
    if (open >= 0) spans.push([m.index!, statementEnd(text, open, true)]);
  }
  for (const m of text.matchAll(new RegExp(String.raw`(?:(?:^|[^\w$.])(?:const|let|var)\s+${n}|\bexports\.${n})\s*=\s*`, 'g'))) {
    const start = m.index! + m[0].length;
    // `exports.search = search;`, `exports.a = exports.b = void 0;`: a name or nothing, not the definition.
    if (/^(?:[\w$.]+\s*=\s*)*(?:void 0|undefined|[\w$.]+)\s*(?:[;,)]|$)/m.test(text.slice(start, start + 300).split('\n')[0]!)) continue;
    spans.push([m.index!, statementEnd(text, start)]);
  }
  const outer = spans.filter(([s0, e0]) => !spans.some(([s1, e1]) => (s1 < s0 && e1 >= e0) || (s1 <= s0 && e1 > e0)));
  return outer.length === 1 ? text.slice(outer[0]![0], outer[0]![1]) : undefined;
}

/** A word of a time limit or an abort in a text (timeout, timeoutMs, AbortSignal.timeout, signal, AbortController). */
const LIMIT_WORD = /timeout|\bsignal\b|AbortController|AbortSignal/i;
/** A library's process-wide defaults set with a limit (`needle.defaults({ open_timeout: 10000, response_timeout: 20000 })`). */
const PACKAGE_DEFAULTS_CALL = /\.defaults\s*\(\s*\{[^}]{0,400}timeout/i;

/**
 * Whether the function `name` a package exports sends, in its definition or in a helper of the same module it calls, an
 * HTTP request that nothing limits: a global `fetch(` or a call of a library of UNBOUNDED_HTTP the module imports, in a module that names no time limit and no
 * abort signal anywhere, in a package whose files read set no default limit (hasDefaultLimit, `defaults.timeout`,
 * `x.defaults({ …timeout… })`).
 * 'unbounded' only then; 'bounded' when the module or package names a limit; undefined when the function is not found
 * once in the files read, or neither it nor those helpers make a request of that kind (one further down is not read).
 */
function requestFunction(from: string, pkgName: string, name: string): 'unbounded' | 'bounded' | undefined {
  const folder = installedFolder(from, pkgName);
  const read = folder ? packageFiles(folder) : undefined;
  if (!read) return undefined;
  const defining = read.files.filter(([, t]) => definitionOf(t, name) !== undefined);
  if (defining.length !== 1) return undefined;
  const text = defining[0]![1];
  const locals = httpLocals(text);
  const sends = (def: string): boolean => /(?:^|[^\w$.])fetch\s*\(/.test(def) || locals.some((l) => new RegExp(String.raw`(?:^|[^\w$.])${esc(l)}(?:\s*\.\s*[\w$]+)?\s*\)?\s*\(`).test(def));
  const def = definitionOf(text, name)!;
  // Or through a helper of the same module it calls (`const data = yield fetchData(url)`), one level down.
  const helpers = [...new Set([...def.matchAll(/(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1]!))].filter((h) => h !== name && !JS_WORDS.has(h)).slice(0, 30);
  if (!sends(def) && !helpers.some((h) => ((d) => d !== undefined && sends(d))(definitionOf(text, h)))) return undefined;
  if (LIMIT_WORD.test(text) || read.files.some(([, t]) => hasDefaultLimit(t) || /\bdefaults\.timeout\b/.test(t) || PACKAGE_DEFAULTS_CALL.test(t))) return 'bounded';
  return 'unbounded';
}
/** Keywords and built-ins a call pattern also matches. */
const JS_WORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'await', 'yield', 'new', 'require', 'Promise', 'Error', 'String', 'Number', 'Object', 'Array', 'JSON', 'Symbol', 'Boolean']);

/** A name of an argument that may carry request options (`opts`, `requestConfig`, `init`): given the benefit of the doubt. */
const OPTIONS_NAME = /opt|config|settings|init|params/i;

/**
 * Functions a dependency exports, called on a request path (`DDG.search(query, { region })` with `import * as DDG from
 * "duck-duck-scrape"`, `getSubtitles({ videoID })` imported by name), that send an HTTP request with no limit
 * (requestFunction), called with no argument that carries a timeout (an object literal naming one, or an options value
 * that cannot be read). Packages read elsewhere in the rule (READ_ELSEWHERE), MCP SDKs, schema libraries, browsers and
 * database drivers are left out, and so are test files and developer scripts.
 */
export function dependencyRequestCalls(code: Code, fns: readonly Fn[], root: string): { package: string; function: string; node: CallExpression }[] {
  const out: { package: string; function: string; node: CallExpression }[] = [];
  const devScript = devScripts(code.files);
  const memo = new Map<string, 'unbounded' | 'bounded' | undefined>();
  const seen = new Set<Node>();
  for (const fn of fns) {
    const sf = fn.getSourceFile();
    const path = code.rel(sf);
    if (TEST_FILE.test(path) || devScript(path)) continue;
    const imports = importsOf(sf);
    if (imports.size === 0) continue;
    for (const n of findNodes(fn, (cn) => ts.isCallExpression(cn))) {
      if (!Node.isCallExpression(n) || seen.has(n)) continue;
      seen.add(n);
      const callee = unwrap(n.getExpression());
      let local: string | undefined;
      let name: string | undefined;
      if (Node.isIdentifier(callee)) {
        const b = imports.get(callee.getText());
        if (b && b.imported !== '*' && b.imported !== 'default') [local, name] = [callee.getText(), b.imported];
      } else if (Node.isPropertyAccessExpression(callee) && Node.isIdentifier(callee.getExpression())) {
        const b = imports.get(callee.getExpression().getText());
        if (b && (b.imported === '*' || b.imported === 'default')) [local, name] = [callee.getExpression().getText(), callee.getName()];
      }
      if (!local || !name) continue;
      const p = packageOf(imports.get(local)!.module);
      if (!p || isBuiltin(p.name) || FRAMEWORK.test(p.name) || NOT_CLIENTS.has(p.name) || READ_ELSEWHERE.has(p.name) || NOT_HTTP_CLIENTS.has(p.name) || SERVER_FRAMEWORKS.has(p.name)) continue;
      // The binding must be the import itself, not a local of the same name.
      const id = Node.isIdentifier(callee) ? callee : (callee as PropertyAccessExpression).getExpression();
      const d = Node.isIdentifier(id) ? declarationOf(id) : undefined;
      if (!d || d.getSourceFile() !== sf || d.getFirstAncestor((a) => isFunctionLike(a))) continue;
      const key = `${p.name}\0${name}`;
      if (!memo.has(key)) memo.set(key, requestFunction(root, p.name, name));
      if (memo.get(key) !== 'unbounded') continue;
      const carries = n.getArguments().some((a) => {
        const o = objectLiteralOf(a, code.sources);
        // A spread of options that cannot be read may hold a limit; one of a literal written there (`...(time && { time })`) is read.
        if (o) return /timeout|\bsignal\b/i.test(o.getText()) || o.getProperties().some((q) => Node.isSpreadAssignment(q) && !q.getExpression().getDescendantsOfKind(SyntaxKind.ObjectLiteralExpression).length && !Node.isObjectLiteralExpression(unwrap(q.getExpression())));
        const u = unwrap(a);
        return Node.isIdentifier(u) && OPTIONS_NAME.test(u.getText());
      });
      if (!carries) out.push({ package: p.name, function: name, node: n });
    }
  }
  return out;
}
