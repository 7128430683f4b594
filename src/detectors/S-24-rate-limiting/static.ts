import { SyntaxKind, Node, ts, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { declarationOf, functionOf, GLOBAL, isRawFunctionLike, originOf, rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import type { ToolDef } from '../../facts/server-model.js';
import { isTestPath, moduleSpecs, namesAnyModule, ofKinds, positionOf, rawFunctionName, rawOfKinds, rawUnwrap, unwrap } from '../../facts/ts-source.js';
import { judgePythonRateLimits } from './python.js';
import { accountFor, isInertUse, isPacingRef, judgeMounts, routesToMcp, setHandlers, targetOf, type Account, type HttpLayer, type Mount } from './placement.js';
import { inRegions, packageRegionsExcept } from '../../facts/bundle-regions.js';
import { codeOf, reachable, stepTargets, type Code, type Fn } from '../support/source/code-paths.js';
import { named, rawCalleeName, rawCallNamed } from '../support/source/source-support.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import { isGenerated, toolsToJudge } from '../support/source/generated-tools.js';

/**
 * S-24 — every tool invocation is rate limited (static). A rate guard is recognised as:
 *   - a limiter package: rate-limiter-flexible, bottleneck, p-throttle, express-rate-limit, limiter,
 *     @upstash/ratelimit (and @fastify/rate-limit, hono-rate-limiter);
 *   - a local class or function whose name says it limits: RateLimit / RateLimiter / TokenBucket /
 *     throttle (any case), and values built from either (`const limiter = new RateLimiter()`).
 * A tool is guarded when its handler, or a function it reaches (code-paths.reachable), uses such a
 * limiter, or when the handler is wrapped by a function that does (`registerTool(name, cfg, limited(fn))`).
 * All tools are guarded at once by a limiter mounted as HTTP middleware on an app or router
 * (`app.use(rateLimit(…))`, `fastify.register(rateLimit)`, a limiter among a route's handlers); a
 * low-level tools/call dispatcher is judged like a handler. A Workers rate-limiting binding asked in the body of the
 * default export's `fetch` before the request goes on (`await env.MCP_RATE_LIMITER.limit({ key })`) guards every request.
 *
 * Names that speak of rate limits without limiting are not limiters: error types (a class whose name ends
 * in Error or Exception, or that extends an error class, or a value thrown with `throw new …`) and readers
 * of an upstream service's limits (isRateLimited, handleRateLimit, parseRateLimitHeaders, rateLimitReset…).
 *
 * The standard's detector table makes red "no rate guard on the invocation path of a tool", which the
 * reading establishes when the code holds no limiter at all: absent, one finding ('no-rate-guard', at the
 * first tool registered, with the number of tools); the remediation says that a gateway in front of the
 * server may enforce it (then suppress the finding with that reason). When the code rate-limits some tools
 * and not others: non-conforming, one finding per unguarded tool. A limiter that exists but is on no tool's
 * path: absent ('limiter-off-tool-paths') when every tool's path is followed to its end and no call on it that the
 * reading cannot resolve may reach the limiter (offToolPaths); otherwise could-not-judge, naming the limiter: it may
 * be wired where the reading does not look.
 * A limiter put to work only in the HTTP layer (middleware mounted on the app, a limiter used in a function handed to a
 * route or a mount, an HTTP framework's limiter package) sees the requests that come over HTTP: when the server's own code
 * also serves over stdio (`new StdioServerTransport()` in the syntax tree of its published files, or in a followed
 * dependency's function that its own code calls: servesStdio), the tool calls arriving there pass no guard and, no tool's path
 * reaching a limiter, the absence is established ('limiter-http-only', at the mount). Over HTTP alone, a limiter used in
 * such a function guards the MCP endpoint when the mount covers it.
 * Tools built at run time from a template (a tools/list handler mapping a document, a catalog or a table of
 * classes; support/source/generated-tools) are judged like written ones, through the tools/call dispatcher;
 * with no limiter in the code: absent, 'no-rate-guard-built' at the template (how many tools is not known).
 */

const LIMITER_PACKAGES = new Set(['rate-limiter-flexible', 'bottleneck', 'p-throttle', 'express-rate-limit', 'limiter', '@upstash/ratelimit', '@fastify/rate-limit', 'hono-rate-limiter']);
/** Limiter packages that are middleware of an HTTP framework: they see HTTP requests only. */
const HTTP_MIDDLEWARE_PACKAGES = new Set(['express-rate-limit', '@fastify/rate-limit', 'hono-rate-limiter']);
const LIMITER_NAME_RE = /rate[-_]?limit|token[-_]?bucket|throttl/i;
/**
 * Error types, readers of an upstream service's limits, and the numbers and settings of a limit (a logger's own
 * `rateLimitWindow` / `rateLimitThreshold`, `rateLimitMs`, `rateLimitConfig`): named after rate limits, limiting nothing.
 * Nor does the making of a limiter's key (`normalizeProxyClientIpForRateLimit(req.ip)`, `rateLimitKeyFromIp`), nor the
 * handling of an upstream's 429 answers (`installLinearRateLimitHandling(client)`, `withRateLimitRetry(op)`,
 * `rateLimitBackoff`, `getRateLimitSnapshot`): waiting and retrying the server's own requests refuses no tool call.
 */
const NOT_A_LIMITER = /(?:Error|Exception|Err)$|^(?:normalize|sanitize|format)\w*rate[-_]?limit\w*$|rate[-_]?limit(?:er)?[-_]?keys?(?:[-_]?(?:generator|from\w*))?$|^(?:is|has|handle|parse|detect|on)[-_]?rate[-_]?limit|rate[-_]?limit(?:ed|s?[-_]?(?:headers?|reset|remaining|info|status|response|exceeded|hit|snapshot))$|rate[-_]?limit\w*(?:utilization|usage|stats?|metrics?|health|percent(?:age)?|count|ratio|rating)$|rate[-_]?limit\w*(?:window|threshold|ms|millis|seconds|secs|interval|duration|delay|timeout|max|min|config|options|opts|settings|enabled)$/i;
/**
 * Readers of a vendor's quota (`getGitHubRateLimit()` asks the API for its remaining budget), and the emulation of a
 * slow CPU or network in a browser (`page.emulateCPUThrottling(4)`, `enableNetworkThrottling(session)`,
 * `cpuThrottlingRate`): named after limits or throttling, they refuse no call. A wrapper that fetches under a limit
 * (`fetchWithRateLimit(handler)`, `getWithRateLimit`) is a limiter, and so is the set-up of one (`enableThrottling(app)`,
 * `applyThrottling`): only a throttling said to emulate, or one of a CPU or network, is emulation by its name; a
 * limiter-named function is otherwise told apart by its body (emulatesThrottling).
 */
const READER_OR_EMULATION = /^(?:get|fetch|read|query|show|print|log)(?!\w*?(?:with|using|under|behind)[-_]?rate)\w*rate[-_]?limits?$|(?:cpu|network|bandwidth|connection)[-_]?throttl|^(?:emulate|disable|clear|reset)\w*throttling|throttling(?:rate|method|settings?|windows?|profiles?|conditions?|options)$/i;
/** A name that says it limits: rate limit, token bucket, throttle; not an error type nor a reader of limits. */
const LIMITER_NAME = { test: (name: string): boolean => LIMITER_NAME_RE.test(name) && !NOT_A_LIMITER.test(name) && !UPSTREAM_HANDLING.test(name) && !READER_OR_EMULATION.test(name) };
/**
 * The handling of an upstream's 429 answers by its name (`installLinearRateLimitHandling(client)`, `rateLimitBackoff`,
 * `withRateLimitRetry(op)`): no limiter, unless a call puts it on the server or app itself (serverSideHandling).
 */
const UPSTREAM_HANDLING = /rate[-_]?limits?[-_]?(?:handling|retry|retries|backoff)$/i;
/** The server or app a limiter is put on, by the name it usually has (`server`, `app`, `this.server`, `mcpServer`). */
const SERVER_NAME = /^(?:server|mcpServer|mcp|srv|app|application|fastify|router|mcpApp)$/;
const isServerExpr = (e: ts.Expression): boolean => {
  const u = rawUnwrap(e);
  return ts.isIdentifier(u) ? SERVER_NAME.test(u.text) : ts.isPropertyAccessExpression(u) && SERVER_NAME.test(u.name.text) && rawUnwrap(u.expression).kind === ts.SyntaxKind.ThisKeyword;
};
/**
 * A call of an upstream-handling-named function that puts it on the tool side: handed the server or app
 * (`applyRateLimitHandling(server)`) with no function among its arguments, or its value handed to the server's or the
 * app's `use`/`register` (`server.use(rateLimitBackoff({ max: 30 }))`). Never a `with…Retry` wrapper, nor one handed
 * a client or an operation (`installTrackerRateLimitHandling(client)`, `rateLimitBackoff(() => api.get(…))`).
 */
function serverSideHandling(call: ts.CallExpression): boolean {
  const name = rawCalleeName(call) ?? '';
  if (!UPSTREAM_HANDLING.test(name) || /^with\w*retr/i.test(name) || NOT_A_LIMITER.test(name) || READER_OR_EMULATION.test(name)) return false;
  if (call.arguments.some((a) => isRawFunctionLike(rawUnwrap(a)))) return false;
  if (call.arguments.some((a) => isServerExpr(a))) return true;
  const p = call.parent;
  if (!p || !ts.isCallExpression(p) || !p.arguments.includes(call)) return false;
  const c = rawUnwrap(p.expression);
  return ts.isPropertyAccessExpression(c) && /^(?:use|register)$/.test(c.name.text) && isServerExpr(c.expression);
}

/**
 * A function named like a limiter that emulates throttling instead (a browser-auditing library's `throttle(session,
 * settings)` that only turns on the network and CPU emulation): its body calls such an emulation, or sends a DevTools
 * `Emulation.`/`Network.emulate…` command, or calls a throttling-named function declared in the code that does
 * (`prepareThrottlingAndNetwork(session, settings)` awaiting that `throttle`, a few steps at most).
 */
const emulationMemo = new WeakMap<ts.Node, boolean>();
const EMULATION_STEPS = 3;
function emulatesThrottling(fn: ts.FunctionDeclaration, depth = 0): boolean {
  let r = emulationMemo.get(fn);
  if (r !== undefined) return r;
  // A cycle (or a chain longer than the steps) emulates nothing found so far; a shorter reading is not memoised as final.
  if (depth > EMULATION_STEPS) return false;
  emulationMemo.set(fn, false);
  const visit = (n: ts.Node): boolean => {
    if (ts.isCallExpression(n)) {
      const c = rawUnwrap(n.expression);
      const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
      if (READER_OR_EMULATION.test(name) && /throttl/i.test(name)) return true;
      const a = n.arguments[0];
      if (a && ts.isStringLiteral(a) && /^(?:Emulation\.|Network\.emulate)/.test(a.text)) return true;
      // A throttling-named function of the code (`throttle(session, settings)`) that itself only emulates.
      const d = ts.isIdentifier(c) && /throttl/i.test(c.text) ? rawDeclarationOf(c)?.parent : undefined;
      if (d && d !== fn && ts.isFunctionDeclaration(d) && emulatesThrottling(d, depth + 1)) return true;
    }
    return !!ts.forEachChild(n, visit);
  };
  r = !!fn.body && visit(fn.body);
  if (r || depth === 0) emulationMemo.set(fn, r);
  else emulationMemo.delete(fn);
  return r;
}

/** A class that is an error type: `class RateLimitError extends Error`, `extends ApiError`. */
function isErrorClass(cls: ts.ClassDeclaration): boolean {
  const ext = cls.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
  const base = ext && (ts.isIdentifier(ext) ? ext.text : ts.isPropertyAccessExpression(ext) ? ext.name.text : '');
  return !!base && /(?:Error|Exception)$/.test(base);
}

/** `throw new X(…)`: an error being raised, whatever its class is named. */
const isThrown = (n: ts.Node): boolean => ts.isNewExpression(n) && ts.isThrowStatement(n.parent);
const ROUTE_METHODS = new Set(['use', 'all', 'post', 'get', 'route', 'register']);
/** Objects that mount HTTP middleware: app.use(…), router.post(…), fastify.register(…), app.route(…).post(…). */
const APP_NAME = /app|router|server|fastify|hono|api|route/i;

/** A limiter written in the code: built (`new Bottleneck()`, `rateLimit({…})`) or declared (`class TokenBucket`). */
interface Site {
  node: ts.Node;
  file: string;
  line: number;
  /** The name a class or function declaration gives a limiter; the callee's name for a construction. */
  declared?: string;
  callee?: string;
}

interface Limiters {
  /** Where the first limiter was seen (for the reason). */
  first?: { file: string; line: number };
  /** Every limiter seen, up to MAX_SITES (more: overflow, and none is accounted for). */
  sites: Site[];
  overflow: boolean;
  isLimiterRef(n: ts.Node): boolean;
}

const MAX_SITES = 64;

/**
 * A bundle's modules of packages other than the limiter libraries: their code is that library's own (axios
 * throttles its progress events with a function named throttle), neither a limiter of the server nor its wiring.
 */
const libraryMemo = new WeakMap<ts.SourceFile, Array<readonly [number, number]>>();
/** Where the tools judged are registered, by file (set by each judging before any reading): a module registering one is the server's. */
const toolsAt = new WeakMap<ts.SourceFile, number[]>();
function libraryRegions(sf: ts.SourceFile): Array<readonly [number, number]> {
  let r = libraryMemo.get(sf);
  if (!r) {
    const tools = toolsAt.get(sf) ?? [];
    r = packageRegionsExcept(sf.text, LIMITER_PACKAGES).filter(([a, b]) => !tools.some((p) => p >= a && p < b));
    libraryMemo.set(sf, r);
  }
  return r;
}
function inBundledLibrary(n: ts.Node): boolean {
  const r = libraryRegions(n.getSourceFile());
  // By its last character: a node's pos lies before the leading comments, the module comment among them.
  return r.length > 0 && inRegions(r, n.end - 1);
}

/** The name of the function a node sits in: a declaration's, or the variable's an arrow or function expression is assigned to. */
function enclosingName(n: ts.Node): string | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (!ts.isFunctionLike(p)) continue;
    if (ts.isFunctionDeclaration(p)) return p.name?.text;
    const v = p.parent;
    return v && ts.isVariableDeclaration(v) && ts.isIdentifier(v.name) ? v.name.text : undefined;
  }
  return undefined;
}
const IMPORT_HELPERS = new Set(['require', '__importDefault', '__importStar', '_interopRequireDefault', '_interopRequireWildcard', '__toESM', '__require']);

const DATA_METHODS = new Set(['find', 'filter', 'map', 'reduce', 'some', 'every', 'at', 'slice', 'parse', 'stringify', 'json']);
/** A variable whose initializer is data: a literal, an object or array literal, a lookup in a list, a parsed document. */
function holdsData(id: ts.Identifier): boolean {
  const d = rawDeclarationOf(id)?.parent;
  const i = d && ts.isVariableDeclaration(d) && d.initializer ? rawUnwrap(d.initializer) : undefined;
  if (!i) return false;
  if (ts.isObjectLiteralExpression(i) || ts.isArrayLiteralExpression(i) || ts.isStringLiteral(i) || ts.isNumericLiteral(i) || ts.isTemplateExpression(i) || ts.isNoSubstitutionTemplateLiteral(i)) return true;
  if (i.kind === ts.SyntaxKind.TrueKeyword || i.kind === ts.SyntaxKind.FalseKeyword) return true;
  const c = ts.isCallExpression(i) ? rawUnwrap(i.expression) : undefined;
  return !!c && ts.isPropertyAccessExpression(c) && DATA_METHODS.has(c.name.text);
}

/** A value built at run time by a call or a construction (a limiter instance, a throttled function), not a module: its uses are not limiters of their own. */
function builtValue(n: ts.Node): boolean {
  const u = rawUnwrap(n);
  if (ts.isPropertyAccessExpression(u)) return u.expression.kind === ts.SyntaxKind.ThisKeyword;
  if (!ts.isIdentifier(u)) return false;
  const d = rawDeclarationOf(u)?.parent;
  const i = d && ts.isVariableDeclaration(d) && d.initializer ? rawUnwrap(d.initializer) : undefined;
  if (!i) return false;
  if (ts.isNewExpression(i)) return true;
  return ts.isCallExpression(i) && !IMPORT_HELPERS.has(rawCalleeName(i) ?? '') && i.expression.kind !== ts.SyntaxKind.ImportKeyword;
}

/** Is this expression a limiter: a package import, a limiter-named class/function/value, or a value built from one? */
function limiterRefs(code: Code): Limiters {
  // Read on compiler nodes: asked of every name in the functions a tool reaches.
  const memo = new Map<ts.Node, boolean>();
  const isSymbol = (u: ts.Node): boolean => {
    const o = ts.isIdentifier(u) || ts.isPropertyAccessExpression(u) ? rawOriginOf(u) : undefined;
    if (o && LIMITER_PACKAGES.has(o.module)) return true;
    const name = ts.isIdentifier(u) ? u.text : ts.isPropertyAccessExpression(u) ? u.name.text : '';
    if (!LIMITER_NAME.test(name) && !(u.parent && ts.isCallExpression(u.parent) && u.parent.expression === u && serverSideHandling(u.parent))) return false;
    // A variable named after rate limits that holds data (a report, a check found in a list) limits nothing.
    if (ts.isIdentifier(u) && holdsData(u)) return false;
    // A limiter-named class that is an error type is not a limiter, nor a function that emulates throttling.
    const d = ts.isIdentifier(u) ? rawDeclarationOf(u) : undefined;
    if (d && ts.isFunctionDeclaration(d.parent) && emulatesThrottling(d.parent)) return false;
    return !(d && ts.isClassDeclaration(d.parent) && isErrorClass(d.parent));
  };
  const isRef = (n: ts.Node, depth = 0): boolean => {
    const u = rawUnwrap(n);
    const hit = memo.get(u);
    if (hit !== undefined) return hit;
    memo.set(u, false);
    let r = isSymbol(u);
    if (!r && ts.isIdentifier(u) && depth < 4) {
      const d = rawDeclarationOf(u);
      const decl = d?.parent;
      if (decl && ts.isVariableDeclaration(decl) && decl.name === d) {
        const i = decl.initializer ? rawUnwrap(decl.initializer) : undefined;
        // A value read from a limiter (`const stats = limiter.getStats()`) is data, not a limiter.
        const readOff = i && ts.isCallExpression(i) && ts.isPropertyAccessExpression(rawUnwrap(i.expression)) && isInertUse((rawUnwrap(i.expression) as ts.PropertyAccessExpression).expression);
        if (readOff) r = false;
        else if (i && (ts.isNewExpression(i) || ts.isCallExpression(i))) r = isRef(i.expression, depth + 1);
        else if (i) r = isRef(i, depth + 1);
      }
    }
    if (!r && ts.isPropertyAccessExpression(u)) r = isRef(u.expression, depth + 1);
    memo.set(u, r);
    return r;
  };
  let first: { file: string; line: number } | undefined;
  const sites: Site[] = [];
  let overflow = false;
  for (const [file, sf] of code.files) {
    if (overflow) break;
    // Origins are resolved within a file: without a limiter package named in it, only limiter-named symbols count.
    const pkg = namesAnyModule(sf, LIMITER_PACKAGES);
    // A file whose text names no limiter (package or limiter-like name) has none: skip it without a scan.
    if (!pkg && !LIMITER_NAME_RE.test(sf.getFullText())) continue;
    // A class a bundler wrote as `var TokenBucket = class { … }` is declared like `class TokenBucket`.
    const exprName = (cn: ts.Node): string => (ts.isClassExpression(cn) && ts.isVariableDeclaration(cn.parent) && ts.isIdentifier(cn.parent.name) ? cn.parent.name.text : '');
    const raw = (cn: ts.Node): boolean =>
      ts.isClassExpression(cn)
        ? LIMITER_NAME.test(exprName(cn))
        : ts.isClassDeclaration(cn)
        ? LIMITER_NAME.test(cn.name?.text ?? '') && !isErrorClass(cn)
        : ts.isFunctionDeclaration(cn)
          ? LIMITER_NAME.test(cn.name?.text ?? '') && !emulatesThrottling(cn)
          : !isThrown(cn) && (pkg || LIMITER_NAME.test(rawCalleeName(cn) ?? '') || limitOnLimiter(cn) || (ts.isCallExpression(cn) && serverSideHandling(cn)));
    for (const n of ofKinds(sf, [SyntaxKind.NewExpression, SyntaxKind.CallExpression, SyntaxKind.ClassDeclaration, SyntaxKind.ClassExpression, SyntaxKind.FunctionDeclaration], raw)) {
      if (sites.length >= MAX_SITES) {
        overflow = true;
        break;
      }
      const cn = n.compilerNode;
      if (inBundledLibrary(cn)) continue;
      if ((ts.isNewExpression(cn) || ts.isCallExpression(cn)) && isSymbol(rawUnwrap(cn.expression))) {
        // A call on a limiter instance (limiter.schedule(…), throttled(…)) is a use of it, not one more limiter.
        const c = rawUnwrap(cn.expression);
        if (builtValue(c) || (ts.isPropertyAccessExpression(c) && builtValue(c.expression))) continue;
        sites.push({ node: cn, file, line: positionOf(n).line, callee: rawCalleeName(cn) });
      } else if (limitOnLimiter(cn)) {
        // `await env.MCP_RATE_LIMITER.limit({ key })`: a platform's rate-limiting binding (Cloudflare Workers) asked
        // before the request goes on.
        sites.push({ node: cn, file, line: positionOf(n).line, callee: 'limit' });
      } else if (pkg && registersLimiterPlugin(cn)) {
        // `await app.register(rateLimit, { max: 100 })`: @fastify/rate-limit registered on the HTTP app is a limiter
        // (a mount; mountsOf judges whether it covers the MCP route).
        sites.push({ node: cn, file, line: positionOf(n).line, callee: 'register' });
      } else if ((ts.isClassDeclaration(cn) || ts.isFunctionDeclaration(cn)) && LIMITER_NAME.test(cn.name?.text ?? '')) sites.push({ node: cn, file, line: positionOf(n).line, declared: cn.name?.text });
      else if (ts.isClassExpression(cn) && exprName(cn)) sites.push({ node: cn, file, line: positionOf(n).line, declared: exprName(cn) });
      else continue;
      first ??= { file, line: sites[sites.length - 1]!.line };
    }
  }
  return { first, sites, overflow, isLimiterRef: (n) => isRef(n) };
}

/** `<receiver named like a rate limiter>.limit(…)`: `env.MCP_RATE_LIMITER.limit({ key })`, a Workers rate-limiting binding. */
function limitOnLimiter(cn: ts.Node): boolean {
  if (!ts.isCallExpression(cn)) return false;
  const c = rawUnwrap(cn.expression);
  if (!ts.isPropertyAccessExpression(c) || c.name.text !== 'limit') return false;
  const r = rawUnwrap(c.expression);
  const name = ts.isIdentifier(r) ? r.text : ts.isPropertyAccessExpression(r) ? r.name.text : '';
  return LIMITER_NAME.test(name);
}

/**
 * A Workers entry that asks the rate-limiting binding first: the limit call sits in a statement of the body itself (no
 * branch or callback around it) of the `fetch` handler of the module's default export (`export default { async
 * fetch(request, env, ctx) { … } }`), through which every request, the MCP endpoint's included, comes in.
 */
function guardsWorkerEntry(cn: ts.Node): boolean {
  let stmt: ts.Node = cn;
  while (stmt.parent && !ts.isBlock(stmt.parent)) {
    if (ts.isFunctionLike(stmt.parent) || ts.isSourceFile(stmt.parent)) return false;
    stmt = stmt.parent;
  }
  const body = stmt.parent;
  if (!body || !ts.isStatement(stmt) || ts.isIfStatement(stmt)) return false;
  const fn = body.parent;
  const member = fn && (ts.isMethodDeclaration(fn) ? fn : (ts.isFunctionExpression(fn) || ts.isArrowFunction(fn)) && ts.isPropertyAssignment(fn.parent) ? fn.parent : undefined);
  if (!member || !ts.isIdentifier(member.name) || member.name.text !== 'fetch') return false;
  const obj = member.parent;
  return ts.isObjectLiteralExpression(obj) && ts.isExportAssignment(rawUnwrapParent(obj)) ;
}
const rawUnwrapParent = (n: ts.Node): ts.Node => {
  let p = n.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p))) p = p.parent;
  return p;
};

/** `x.register(<import of a limiter package>, …)`: a rate-limit plugin registered on an HTTP app (fastify). */
function registersLimiterPlugin(cn: ts.Node): cn is ts.CallExpression {
  if (!ts.isCallExpression(cn)) return false;
  const c = rawUnwrap(cn.expression);
  const a = cn.arguments[0] && rawUnwrap(cn.arguments[0]);
  if (!ts.isPropertyAccessExpression(c) || c.name.text !== 'register' || !a || !ts.isIdentifier(a)) return false;
  const o = rawOriginOf(a);
  return !!o && LIMITER_PACKAGES.has(o.module);
}

/** `{ global: false }`: @fastify/rate-limit applied only to the routes that ask for it (their `config.rateLimit`), not to all. */
function notGlobal(call: ts.CallExpression): boolean {
  const o = call.arguments[1] && rawUnwrap(call.arguments[1]);
  if (!o || !ts.isObjectLiteralExpression(o)) return false;
  return o.properties.some((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'global' && p.initializer.kind === ts.SyntaxKind.FalseKeyword);
}

/** The variable statement a construction is the initializer of (`const limiter = new RateLimiter()`), whose text holds the name declared. */
function declarationStatement(site: ts.Node): ts.Node | undefined {
  for (let p = site.parent; p; p = p.parent) if (ts.isVariableDeclaration(p)) return p;
  return undefined;
}

/** Raw pre-filter of mountedGlobally: a route method called on something named like an app (its first checks, on compiler nodes). */
const MOUNT_CALL = named(ROUTE_METHODS, (cn) => {
  if (!ts.isCallExpression(cn)) return false;
  const c = rawUnwrap(cn.expression);
  if (!ts.isPropertyAccessExpression(c) || !ROUTE_METHODS.has(c.name.text)) return false;
  const recv = rawUnwrap(c.expression);
  return APP_NAME.test(ts.isIdentifier(recv) ? recv.text : ts.isPropertyAccessExpression(recv) ? recv.name.text : ts.isCallExpression(recv) ? 'route' : '');
});

/** Middleware mounting: `app.use(rateLimit(…))`, `app.post('/mcp', limiter, handler)`, each judged against the MCP route (placement.ts). */
function mountsOf(code: Code, lim: Limiters): { mounts: Mount[]; routes: ts.CallExpression[] } {
  const calls: { call: ts.CallExpression; file: string }[] = [];
  const routes: ts.CallExpression[] = [];
  for (const [file, sf] of code.files) {
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression], MOUNT_CALL)) {
      const cn = n.compilerNode as ts.CallExpression;
      // A bundled package's own middleware (a library's `router.use(throttle(…))`) mounts nothing on the server's app.
      if (inBundledLibrary(cn)) continue;
      routes.push(cn);
      const limiterArg = cn.arguments.some((a) => {
        const u = rawUnwrap(a);
        if (ts.isCallExpression(u) || ts.isNewExpression(u)) return lim.isLimiterRef(u.expression);
        return ts.isIdentifier(u) && lim.isLimiterRef(u);
      });
      if (limiterArg && !(registersLimiterPlugin(cn) && notGlobal(cn))) calls.push({ call: cn, file });
    }
  }
  return { mounts: calls.length ? judgeMounts(calls, routes) : [], routes };
}

/** Folders of a package that hold no part of the server it runs: examples, demos, scripts (tests: isTestPath). */
const NOT_SERVED_DIR = /(?:^|\/)(?:examples?|demos?|samples?|scripts)\//;
/** A followed dependency's file (facts/published): `node_modules/<name>/<path>`. */
const DEPENDENCY_FILE = /^node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/;
const STDIO_NAMES: ReadonlySet<string> = new Set(['StdioServerTransport']);
const STDIO_NEW = named(STDIO_NAMES, (cn) => ts.isNewExpression(cn) && rawCalleeName(cn) === 'StdioServerTransport');

/** The outermost function holding a node (a method, a declared or assigned function), or undefined at module level. */
function holderOf(n: ts.Node): ts.FunctionLikeDeclaration | undefined {
  let out: ts.FunctionLikeDeclaration | undefined;
  for (let p = n.parent; p; p = p.parent) if (ts.isFunctionLike(p) && 'body' in p && p.body) out = p as ts.FunctionLikeDeclaration;
  return out;
}
/**
 * Does the server serve over stdio: a `new StdioServerTransport(…)` of the syntax tree (not a comment, not a bundled
 * library's module) in the package's own files — not under examples/, demo/, scripts/ or a test folder — or in a
 * followed dependency's (node_modules/<name>/…) at its module level or in a function that the package's own code
 * calls (directly, or through the dependency's functions it reaches). A dependency's starter that the package never
 * calls (a remote launcher importing only `startHttpServer`) serves nothing. False when this cannot be established.
 */
function servesStdio(code: Code): boolean {
  const holders = new Map<ts.Node, string | undefined>();
  const deps = new Set<string>();
  for (const [file, sf] of code.files) {
    const dep = DEPENDENCY_FILE.exec(file);
    const inner = dep ? dep[2]! : file;
    if (isTestPath(inner) || NOT_SERVED_DIR.test(inner)) continue;
    if (!sf.compilerNode.text.includes('StdioServerTransport')) continue;
    for (const cn of rawOfKinds(sf, [SyntaxKind.NewExpression], STDIO_NEW)) {
      const r = libraryRegions(sf.compilerNode);
      if (r.length && inRegions(r, cn.getStart())) continue;
      if (!dep) return true;
      const h = holderOf(cn);
      if (!h) return true;
      holders.set(h, rawFunctionName(h));
      deps.add(dep[1]!);
    }
  }
  return holders.size > 0 && ownCodeCalls(code, deps, holders);
}

/** Does the package's own code call one of these functions of its dependencies `deps`, or a function of theirs that reaches one? */
function ownCodeCalls(code: Code, deps: ReadonlySet<string>, holders: ReadonlyMap<ts.Node, string | undefined>): boolean {
  const ofDep = (m: string): boolean => [...deps].some((d) => m === d || m.startsWith(`${d}/`));
  const names = new Set([...holders.values()].filter((x): x is string => !!x));
  const starts: Fn[] = [];
  const callOfDep = (cn: ts.Node): boolean => (ts.isCallExpression(cn) || ts.isNewExpression(cn)) && ofDep(rawOriginOf(cn.expression)?.module ?? '');
  for (const [file, sf] of code.files) {
    if (file.startsWith('node_modules/') || isTestPath(file) || NOT_SERVED_DIR.test(file)) continue;
    if (![...moduleSpecs(sf)].some(ofDep)) continue;
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression, SyntaxKind.NewExpression], callOfDep)) {
      const callee = (n as Node & { getExpression(): Node }).getExpression();
      // `startStdioServer()` imported from the dependency, `core.runStdio()` on one of its instances: named as the holder.
      const path = rawOriginOf(callee.compilerNode)?.path ?? [];
      if (path.some((p) => names.has(p))) return true;
      const f = functionOf(callee, code.sources);
      if (f) starts.push(f);
    }
  }
  return starts.length > 0 && reachable(code, starts).some((f) => holders.has(f.compilerNode));
}

/** The identifiers of the code read that spell one of `names` (one pass over the identifiers of each file whose text holds one). */
function identifiersNamed(code: Code, names: ReadonlySet<string>): Map<string, ts.Identifier[]> {
  const out = new Map<string, ts.Identifier[]>();
  if (names.size === 0) return out;
  for (const [, sf] of code.files) {
    const text = sf.getFullText();
    if (![...names].some((n) => text.includes(n))) continue;
    for (const cn of rawOfKinds(sf, [SyntaxKind.Identifier], (x) => ts.isIdentifier(x) && names.has(x.text))) {
      const id = cn as ts.Identifier;
      out.set(id.text, [...(out.get(id.text) ?? []), id]);
    }
  }
  return out;
}

const EXPORTS_OBJECT = /^(?:module\.)?exports$/;
/** The objects whose members the code itself names: `this`, the module's exports, a class's prototype. */
const OWN_MEMBER_OBJECT = /^(?:this|_this|self|(?:module\.)?exports|[\w$]+\.prototype)$/;

/**
 * Is a limiter's name used anywhere in the code read outside its own declaration? Not uses: the declaration's own
 * text, an export of it (`export { N }`, `exports.N = N`, a key or member named N of an exports object), a key of an
 * object literal. Everything else (an import, a construction, a call, a member `x_1.N` of an imported module,
 * a mention the reading cannot place) is a use.
 */
function usedElsewhere(name: string, decl: ts.Node, ids: Map<string, ts.Identifier[]>): boolean {
  const home = decl.getSourceFile();
  for (const id of ids.get(name) ?? []) {
    if (id.getSourceFile() === home && id.pos >= decl.pos && id.end <= decl.end) continue;
    const p = id.parent;
    if (ts.isExportSpecifier(p)) continue;
    if (ts.isPropertyAssignment(p) && p.name === id) continue;
    if (ts.isPropertyAccessExpression(p) && p.name === id && EXPORTS_OBJECT.test(p.expression.getText())) continue;
    if (ts.isBinaryExpression(p) && p.right === id && ts.isPropertyAccessExpression(p.left) && EXPORTS_OBJECT.test(p.left.expression.getText())) continue;
    return true;
  }
  return false;
}

/** Does this function's own body use a limiter, leaving out the uses that pace an outgoing request? */
function usesGuard(fn: Fn, lim: Limiters): boolean {
  if (inBundledLibrary(fn.compilerNode)) return false;
  const visit = (n: ts.Node): boolean => {
    // A key written in an object literal (`{ rate_limit_hits: 0 }`) names data, not a limiter.
    if (ts.isIdentifier(n) && ts.isPropertyAssignment(n.parent) && n.parent.name === n) return false;
    // The name a binding declares (`const { limiter } = await import(…)`) is not a use; its reads are.
    if (ts.isIdentifier(n) && ts.isBindingElement(n.parent) && n.parent.name === n) return false;
    if ((ts.isIdentifier(n) || ts.isPropertyAccessExpression(n)) && lim.isLimiterRef(n)) {
      // `bucket.acquire` is a use of `bucket`: whether it paces a request is read at the limiter itself (its parent
      // is then the method waited for), not at the member.
      let ref: ts.Node = n;
      while (ts.isPropertyAccessExpression(ref) && lim.isLimiterRef(ref.expression)) ref = ref.expression;
      // Reading its numbers or disposing of it (a health tool's `limiter.getStats()`) limits nothing either.
      return !isPacingRef(ref) && !isInertUse(ref);
    }
    return !!ts.forEachChild(n, visit);
  };
  return !!ts.forEachChild(fn.compilerNode, visit);
}

/**
 * The name under which the code reaches the function a use sits in: a function's or method's own name, the
 * variable, property or member it is assigned to (an anonymous callback is part of the function around it; a
 * constructor stands for its class). At the top level, the variable or class field being initialised. Undefined
 * when the use is in a top-level statement that declares nothing (it may hand the limiter to code not read), or an
 * anonymous function with nothing named around it. `null` for an export, which hands on the same name.
 */
function holderName(id: ts.Node): string | null | undefined {
  for (let p = id.parent; p; p = p.parent) {
    if (ts.isExportSpecifier(p) || ts.isExportAssignment(p)) return null;
    if (ts.isConstructorDeclaration(p)) return ts.isClassLike(p.parent) ? (p.parent.name?.text ?? classVar(p.parent)) : undefined;
    if ((ts.isMethodDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isPropertyDeclaration(p)) && (ts.isIdentifier(p.name) || ts.isPrivateIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
    if (ts.isFunctionDeclaration(p)) return p.name?.text;
    if (ts.isFunctionExpression(p) || ts.isArrowFunction(p)) {
      if (ts.isFunctionExpression(p) && p.name) return p.name.text;
      const v = p.parent;
      if (ts.isVariableDeclaration(v) && ts.isIdentifier(v.name)) return v.name.text;
      if (ts.isPropertyAssignment(v) && (ts.isIdentifier(v.name) || ts.isStringLiteral(v.name))) return v.name.text;
      if (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(v.left)) {
        // A function put on another object's property (`transport.onmessage = async (msg) => …`, a hook the
        // library calls) is reached under no name the code reads: no holder, the question stays open.
        return OWN_MEMBER_OBJECT.test(rawUnwrap(v.left.expression).getText()) ? v.left.name.text : undefined;
      }
      continue;
    }
    // A variable of the top level; a local one is part of the function around it.
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name) && ts.isSourceFile(p.parent.parent.parent)) return p.name.text;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(p.left)) {
      if (EXPORTS_OBJECT.test(p.left.expression.getText())) return null;
      return p.left.name.text;
    }
  }
  return undefined;
}
const classVar = (c: ts.ClassLikeDeclaration): string | undefined => (ts.isVariableDeclaration(c.parent) && ts.isIdentifier(c.parent.name) ? c.parent.name.text : undefined);

/** Positions that declare a name rather than use it: a declaration's own name, an import, an object key, an assignment's target. */
function declaresName(id: ts.Identifier): boolean {
  const p = id.parent;
  if ((ts.isVariableDeclaration(p) || ts.isFunctionDeclaration(p) || ts.isClassLike(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p) || ts.isPropertyAssignment(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isFunctionExpression(p)) && p.name === id) return true;
  if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isExportSpecifier(p)) return true;
  return ts.isPropertyAccessExpression(p) && p.name === id && ts.isBinaryExpression(p.parent) && p.parent.left === p && p.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

/** The names of the calls in a function's body (nested literals included) that lead to no function of the code read. */
const unresolvedMemo = new WeakMap<ts.Node, ReadonlySet<string>>();
function unresolvedCalls(fn: Fn, code: Code): ReadonlySet<string> {
  let r = unresolvedMemo.get(fn.compilerNode);
  if (r) return r;
  const out = new Set<string>();
  const sf = fn.getSourceFile();
  const visit = (cn: ts.Node): void => {
    if (cn !== fn.compilerNode && (ts.isCallExpression(cn) || ts.isNewExpression(cn))) {
      const c = rawUnwrap(cn.expression);
      const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : ts.isElementAccessExpression(c) ? (foreignReceiver(c.expression, code) ? '' : '*') : '';
      if (name && stepTargets(cn, sf, code).length === 0) out.add(name);
    }
    ts.forEachChild(cn, visit);
  };
  visit(fn.compilerNode);
  unresolvedMemo.set(fn.compilerNode, (r = out));
  return r;
}

const HOLDER_ROUNDS = 6;
/** How deep offToolPaths follows a tool's path to its end (the guard search reads 6 calls deep). */
const PATH_END_DEPTH = 24;

/** Global namespaces of the language and the runtime, whose members are no functions of the code (`console[level](…)`). */
const BUILTIN_NAMESPACES: ReadonlySet<string> = new Set(['console', 'Math', 'JSON', 'Atomics', 'Intl']);
/**
 * The receiver of a computed call that cannot be a function of the code read, nor lead to the limiter: a global namespace
 * of the runtime (`console[level](…)`), or a value of a package or of a Node built-in (`logger[level](…)` of a pino
 * logger, `fs[method](…)`). A package holds the limiter only if the code hands it one, and such a hand-off is read
 * where it is written (holderName). A value of the code's own modules, of a dependency whose files are read with them
 * (it may hold a limiter of its own), `this`, or anything else stays unknown.
 */
function foreignReceiver(e: ts.Expression, code: Code): boolean {
  let head = rawUnwrap(e);
  while (ts.isPropertyAccessExpression(head)) head = rawUnwrap(head.expression);
  if (!ts.isIdentifier(head)) return false;
  const o = rawOriginOf(head);
  if (!o) return false;
  if (o.module === GLOBAL) return BUILTIN_NAMESPACES.has(head.text) && rawUnwrap(e) === head;
  if (o.module.startsWith('.') || o.module.startsWith('/')) return false;
  const pkg = o.module.replace(/^node:/, '').split('/').slice(0, o.module.startsWith('@') ? 2 : 1).join('/');
  return !code.files.some(([file]) => file.startsWith(`node_modules/${pkg}/`));
}

/** A value written out in full: a string, a number, a boolean, null, or an array or object literal of such values. */
function literalValue(e: ts.Node): boolean {
  const u = rawUnwrap(e);
  if (ts.isStringLiteral(u) || ts.isNoSubstitutionTemplateLiteral(u) || ts.isNumericLiteral(u) || ts.isBigIntLiteral(u)) return true;
  if (u.kind === ts.SyntaxKind.TrueKeyword || u.kind === ts.SyntaxKind.FalseKeyword || u.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isPrefixUnaryExpression(u) && (u.operator === ts.SyntaxKind.MinusToken || u.operator === ts.SyntaxKind.PlusToken)) return ts.isNumericLiteral(rawUnwrap(u.operand));
  if (ts.isArrayLiteralExpression(u)) return u.elements.every(literalValue);
  if (ts.isObjectLiteralExpression(u)) return u.properties.every((p) => ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && literalValue(p.initializer));
  return false;
}

/** Functions that run a callback on their own schedule (a timer) or on a signal of the process: never during a tools/call. */
const TIMER_CALLS: ReadonlySet<string> = new Set(['setInterval', 'setTimeout', 'setImmediate', 'queueMicrotask']);
const PROCESS_EVENT_METHODS: ReadonlySet<string> = new Set(['on', 'once', 'addListener', 'prependListener']);
/**
 * A top-level statement that uses the limiter without handing it to anyone: the limiter is only the receiver of the
 * calls of its own methods handed only literals (`limiter.prune()`, `limiter.reset('all')`), run at load, inside a callback handed to a timer
 * (`setInterval(() => limiter.prune(), 60_000).unref()`) or to the process's own events (`process.on('exit', () =>
 * limiter.stop())`). No tools/call passes there. A statement that passes the limiter (or a function holding it) as a
 * value to any call, or a callback to anything else (`hooks.add(() => limiter.check())`), stays open.
 */
function runsOffToolCalls(id: ts.Node): boolean {
  // The use is a method called on the limiter: `limiter.m(…)`.
  const access = id.parent;
  if (!access || !ts.isPropertyAccessExpression(access) || access.expression !== id || !ts.isCallExpression(access.parent) || access.parent.expression !== access) return false;
  // Handed only literals (or nothing): a method given the server, a tool table or a handler (`limiter.install(server)`,
  // which may wrap `server.registerTool`) may put the limiter on every tool's path, wherever it is called.
  if (!access.parent.arguments.every(literalValue)) return false;
  let n: ts.Node = access.parent;
  for (let p = n.parent; p; n = p, p = p.parent) {
    if (ts.isSourceFile(p)) return ts.isExpressionStatement(n);
    if (ts.isArrowFunction(p) || ts.isFunctionExpression(p)) {
      // The callback of a timer or of a process event, at the top level of the module.
      const call = p.parent;
      if (!call || !ts.isCallExpression(call) || !call.arguments.includes(p as ts.Expression)) return false;
      const c = rawUnwrap(call.expression);
      const timer = ts.isIdentifier(c) && TIMER_CALLS.has(c.text) && rawOriginOf(c)?.module === GLOBAL;
      const proc = ts.isPropertyAccessExpression(c) && PROCESS_EVENT_METHODS.has(c.name.text) && ts.isIdentifier(rawUnwrap(c.expression)) && (rawUnwrap(c.expression) as ts.Identifier).text === 'process' && rawOriginOf(rawUnwrap(c.expression))?.module === GLOBAL;
      if (!timer && !proc) return false;
      p = call;
      n = p;
      // Climb past what is chained on the timer (`.unref()`) to the statement.
      while (p.parent && !ts.isSourceFile(p.parent) && !ts.isExpressionStatement(p.parent)) {
        const q = p.parent;
        if (!(ts.isPropertyAccessExpression(q) && q.expression === p) && !(ts.isCallExpression(q) && q.expression === p)) return false;
        p = q;
      }
      if (!p.parent || !ts.isExpressionStatement(p.parent) || !ts.isSourceFile(p.parent.parent)) return false;
      return true;
    }
    if (ts.isFunctionLike(p) || ts.isClassLike(p)) return false;
    // Between the use and the top level: the plain parts of an expression statement, nothing that hands a value on.
    if (ts.isCallExpression(p) && p.arguments.includes(n as ts.Expression)) return false;
  }
  return false;
}

/**
 * Does no tool's path reach a limiter, every path followed to its end? The names through which the code can reach
 * a limiter (its own name, the variable or member holding it, then the functions using one of those names, and so
 * on up to HOLDER_ROUNDS steps: one pass over the identifiers of the files holding the new names per step) must all
 * be known, and no call on a tool's path (followed past the depth the guard search reads, to its end) may be one the
 * reading cannot resolve under such a name (`this.client.request()` when `request` uses the limiter). A limiter handed
 * on in a top-level statement (`hooks.add(limiter)`), or a chain of holders longer than the rounds, leaves it open.
 */
function offToolPaths(code: Code, lim: Limiters, unguarded: readonly ToolDef[]): boolean {
  // A file too large to parse was screened, its identifiers not searched: a use of the limiter may lie in it.
  if (code.sources.screened.length) return false;
  const names = new Set<string>();
  const siteRanges: Array<readonly [ts.SourceFile, number, number]> = [];
  for (const x of lim.sites) {
    // A platform's binding (`env.RATE_LIMITER.limit()`) may be asked wherever the environment is handed: not followed.
    if (limitOnLimiter(x.node)) return false;
    const decl = x.declared ? x.node : (declarationStatement(x.node) ?? x.node);
    siteRanges.push([x.node.getSourceFile(), decl.pos, decl.end]);
    const name = x.declared ?? targetOf(x.node)?.name ?? holderName(x.node);
    if (!name) return false;
    names.add(name);
  }
  const inSite = (id: ts.Node): boolean => siteRanges.some(([sf, a, b]) => id.getSourceFile() === sf && id.pos >= a && id.end <= b);
  let fresh = new Set(names);
  for (let round = 0; fresh.size; round++) {
    if (round === HOLDER_ROUNDS) return false;
    const next = new Set<string>();
    for (const ids of identifiersNamed(code, fresh).values()) {
      for (const id of ids) {
        // A bundled library's own name (a `get` of axios) is not a use of the server's limiter.
        if (declaresName(id) || inSite(id) || inBundledLibrary(id)) continue;
        // Run at load, by a timer or on a signal of the process: on no tool's path, and handed to no one.
        if (runsOffToolCalls(id)) continue;
        const h = holderName(id);
        if (h === undefined) return false;
        if (h !== null && !names.has(h)) {
          names.add(h);
          next.add(h);
        }
      }
    }
    fresh = next;
  }
  // A registration naming one (`execute: tool_fn('search', async (a) => …)` where tool_fn's closure checks the limit,
  // `execute: wrapped`) may put the handler behind it: not followed here.
  const namesOne = (n: ts.Node): boolean => (ts.isIdentifier(n) && names.has(n.text) && !declaresName(n)) || !!ts.forEachChild(n, namesOne);
  for (const t of unguarded) if (namesOne(t.node.compilerNode)) return false;
  // Tools sharing a handler (a tools/call dispatcher) are one path, followed to its end: past the depth the guard search
  // reads (a git server's tool → service → repository → runner → spawn helpers), up to PATH_END_DEPTH calls; a function
  // found there that uses a limiter leaves it open.
  for (const h of new Set(unguarded.map((t) => t.handler!))) {
    const path = reachable(code, [h], PATH_END_DEPTH);
    const further = reachable(code, [h], PATH_END_DEPTH + 1);
    if (further.length !== path.length) return false;
    for (const f of further) if (usesGuard(f, lim)) return false;
    for (const f of further) for (const n of unresolvedCalls(f, code)) if (names.has(n) || n === '*') return false;
  }
  return true;
}

/**
 * The verdict when the limiters that are put to work guard the HTTP layer only (middleware, a route's handler: `http.used`),
 * or undefined when none does. Serving over stdio too, the tool calls arriving there pass no guard: absent
 * ('limiter-http-only', at the mount), whatever path it is mounted on. Over HTTP alone: present when one of them covers the MCP endpoint and the code
 * hands requests to an MCP transport; off every MCP route: absent ('limiter-off-tool-route'); anything else is left open.
 */
function httpVerdict(http: HttpLayer, routes: readonly ts.CallExpression[], code: Code, stdio: boolean, tools: number): Verdict | 'open' | undefined {
  if (http.used.size === 0) return undefined;
  const fileOf = new Map(code.files.map(([file, sf]) => [sf.compilerNode, file] as const));
  const judged = judgeMounts([...http.used].map((call) => ({ call, file: fileOf.get(call.getSourceFile()) ?? '' })), routes);
  const covering = judged.filter((m) => m.state === 'covering');
  // Wherever the middleware is mounted (a path read from configuration included), a tools/call over stdio never meets it.
  if (stdio) {
    const m = covering[0] ?? judged[0]!;
    return { state: 'absent', findings: [{ messageId: 'limiter-http-only', data: { tools, file: m.file, line: m.line }, location: { file: m.file, line: m.line } }] };
  }
  if (covering.length && routesToMcp(routes) && !judged.some((m) => m.state === 'unknown')) return present();
  const off = judged.find((m) => m.state === 'off');
  if (off && judged.every((m) => m.state === 'off')) return { state: 'absent', findings: [{ messageId: 'limiter-off-tool-route', data: { route: off.route ?? '' }, location: { file: off.file, line: off.line } }] };
  return 'open';
}

export default defineDetector({
  ruleId: 'S-24',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'tool-not-rate-limited': ['tool'],
    'no-rate-guard': ['tools'],
    'no-rate-guard-built': ['file', 'line'],
    'limiter-off-tool-route': ['route'],
    'upstream-limiter-only': ['tools'],
    'limiter-never-used': ['tools', 'name'],
    'limiter-off-tool-paths': ['tools', 'name'],
    'limiter-http-only': ['tools', 'file', 'line'],
    'python-no-rate-guard': ['tools'],
  },
  judge(input) {
    // placement.ts holds the handlers of the audit being judged: released when the judging ends.
    try {
      return judgeStatic(input.inputs);
    } finally {
      setHandlers(new Set());
    }
  },
});

function judgeStatic({ repo, session }: { repo: Parameters<typeof codeOf>[0]; session?: Parameters<typeof noToolsFound>[1] }): Verdict {
    const src = codeOf(repo, { pythonPart: true });
    if (!src.ok) return src.verdict.reason?.code === 'no-js-source' ? judgePythonRateLimits(repo, session) : src.verdict;
    const code = src.code;
    // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools).
    const tools = toolsToJudge(repo);
    if (tools.length === 0) return noToolsFound(repo, session);
    const at = new Map<ts.SourceFile, number[]>();
    for (const t of tools) {
      const n = t.node.compilerNode;
      at.set(n.getSourceFile(), [...(at.get(n.getSourceFile()) ?? []), n.end - 1]);
    }
    for (const [sf, ps] of at) toolsAt.set(sf, ps);
    const lim = limiterRefs(code);
    setHandlers(new Set(tools.flatMap((t) => (t.handler ? [t.handler.compilerNode as ts.Node] : []))));
    if (!lim.first && isGenerated(tools[0]!)) {
      // Tools built at run time: how many is not known, and none can be guarded when the code holds no limiter.
      // At the template (the code that builds them), not at a row of the document a tool is read from.
      const { file, line } = tools[0].template;
      return { state: 'absent', findings: [{ messageId: 'no-rate-guard-built', data: { file, line }, location: { file, line } }] };
    }
    if (!lim.first) {
      // No limiter anywhere in the code read: no tool has a rate guard on its path (one defect, at the first tool).
      const t = [...tools].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.nameLine - b.nameLine))[0]!;
      return { state: 'absent', findings: [{ messageId: 'no-rate-guard', data: { tools: tools.length }, location: { file: t.file, line: t.nameLine } }] };
    }
    const { mounts, routes } = mountsOf(code, lim);
    // Middleware sees the requests that come over HTTP: when the server also serves over stdio (the default transport
    // of most), the tool calls arriving there pass no such guard, and the tools are judged as if it were not there.
    const stdio = servesStdio(code);
    if (mounts.some((m) => m.state === 'covering') && !stdio) return present();
    if (lim.sites.some((x) => limitOnLimiter(x.node) && guardsWorkerEntry(x.node))) return present();

    const guardedFn = new Map<Fn, boolean>();
    const pathGuarded = (fn: Fn): boolean => {
      const hit = guardedFn.get(fn);
      if (hit !== undefined) return hit;
      const r = reachable(code, [fn]).some((f) => usesGuard(f, lim));
      guardedFn.set(fn, r);
      return r;
    };
    /** A wrapper call around the handler: `limited(fn)`, `throttle(fn)`, `withRateLimit(fn)`. */
    const wrapperGuards = (t: ToolDef): boolean | undefined => {
      if (!Node.isCallExpression(t.node) || !['registerTool', 'tool'].includes(t.api)) return undefined;
      const args = t.node.getArguments();
      const last = args[args.length - 1] && unwrap(args[args.length - 1]!);
      if (!last || !Node.isCallExpression(last)) return undefined;
      const callee = last.getExpression();
      if (lim.isLimiterRef(callee.compilerNode)) return true;
      const f = functionOf(callee, code.sources);
      return f ? pathGuarded(f) : undefined;
    };

    const unguarded: ToolDef[] = [];
    let guarded = 0;
    let unknown = 0;
    for (const t of tools) {
      const g = wrapperGuards(t) || (t.handler ? pathGuarded(t.handler) : undefined);
      if (g === undefined) {
        unknown++;
        continue;
      }
      if (g) guarded++;
      else unguarded.push(t);
    }
    if (guarded === 0 && unguarded.length) {
      // Every limiter the code holds guards something else (a route other than the MCP endpoint, the server's own
      // outgoing requests): no tools/call passes a guard, an established absence.
      const off = mounts.find((m) => m.state === 'off');
      const otherFiles = code.files.map(([, sf]) => sf.compilerNode);
      const offCalls = new Set(mounts.filter((m) => m.state === 'off').map((m) => m.call));
      const built = lim.sites.filter((x) => !x.declared);
      // A limiter built inside a factory that is itself a limiter built elsewhere (createLimiters() returning two
      // buckets) is accounted for as that one is.
      const http: HttpLayer = { routes: new Set(routes), used: new Set() };
      const accountOf = (x: Site, seen: Set<Site>): Account | undefined => {
        const k = accountFor(x.node, offCalls, otherFiles, http);
        if (k || seen.has(x)) return k;
        seen.add(x);
        const owner = enclosingName(x.node);
        const outer = owner ? built.filter((b) => b !== x && b.callee === owner) : [];
        const ks = outer.map((o) => accountOf(o, seen));
        return ks.length && ks.every((y) => y) ? ks[0] : undefined;
      };
      // A limiter nothing uses: a class or function declared and never named again (not constructed, called, imported or
      // re-exported under another name), or an instance kept in a variable that nothing reads. It refuses no tools/call.
      const declaredOnly = lim.sites.filter((x) => x.declared && !built.some((b) => b.callee === x.declared));
      const heldIn = new Map(built.map((x) => [x, targetOf(x.node)] as const));
      const ids = lim.overflow ? new Map<string, ts.Identifier[]>() : identifiersNamed(code, new Set([...declaredOnly.map((x) => x.declared!), ...[...heldIn.values()].flatMap((t) => (t?.kind === 'var' ? [t.name] : []))]));
      const unused = (x: Site): boolean => {
        if (x.declared) return !usedElsewhere(x.declared, x.node, ids);
        const t = heldIn.get(x);
        const decl = t?.kind === 'var' ? declarationStatement(x.node) : undefined;
        return !!decl && !usedElsewhere(t!.name, decl, ids);
      };
      // Over stdio, middleware of an HTTP framework's limiter package (express-rate-limit…) can refuse no tools/call, wherever it is handed.
      const httpLib = (x: Site): boolean => stdio && ts.isCallExpression(x.node) && HTTP_MIDDLEWARE_PACKAGES.has(rawOriginOf(rawUnwrap(x.node.expression))?.module ?? '');
      const kinds: Array<Account | 'unused' | undefined> = lim.overflow || lim.sites.length === 0 ? [undefined] : built.map((x) => accountOf(x, new Set()) ?? (unused(x) ? 'unused' : httpLib(x) ? 'http' : undefined));
      // A call of a factory of the code that builds limiters (`const { initLimiter } = makeRateLimiters()`) is accounted
      // for as the limiters built inside it are, when every one of those is.
      built.forEach((x, i) => {
        if (kinds[i] !== undefined || !x.callee) return;
        const inner = built.flatMap((b, j) => (b !== x && enclosingName(b.node) === x.callee ? [kinds[j]] : []));
        if (inner.length && inner.every((k) => k !== undefined)) kinds[i] = inner.find((k) => k === 'http') ?? inner[0];
      });
      if (stdio) for (const m of mounts) if (m.state !== 'off') http.used.add(m.call);
      const declaredUsed = declaredOnly.every((x) => unused(x));
      if (declaredUsed && kinds.every((k) => k !== undefined)) {
        const httpOnly = httpVerdict(http, routes, code, stdio, tools.length);
        if (httpOnly === 'open') return couldNotJudge('limiter-not-on-tool-path', { file: lim.first.file, line: lim.first.line });
        if (httpOnly) return httpOnly;
        if (off) return { state: 'absent', findings: [{ messageId: 'limiter-off-tool-route', data: { route: off.route ?? '' }, location: { file: off.file, line: off.line } }] };
        const pacerAt = kinds.indexOf('pacer');
        if (pacerAt >= 0) {
          const pacer = built[pacerAt]!;
          return { state: 'absent', findings: [{ messageId: 'upstream-limiter-only', data: { tools: tools.length }, location: { file: pacer.file, line: pacer.line } }] };
        }
        const idle = [...declaredOnly, ...built][0]!;
        return { state: 'absent', findings: [{ messageId: 'limiter-never-used', data: { tools: tools.length, name: idle.declared ?? idle.callee ?? '' }, location: { file: idle.file, line: idle.line } }] };
      }
      // Every tool's path followed to its end, and none reaches a limiter: the absence is established.
      if (unknown === 0 && !lim.overflow && mounts.every((m) => m.state === 'off') && offToolPaths(code, lim, unguarded)) {
        const site = lim.sites[0]!;
        return { state: 'absent', findings: [{ messageId: 'limiter-off-tool-paths', data: { tools: tools.length, name: site.declared ?? site.callee ?? targetOf(site.node)?.name ?? '' }, location: { file: site.file, line: site.line } }] };
      }
    }
    if (guarded === 0) {
      return unguarded.length ? couldNotJudge('limiter-not-on-tool-path', { file: lim.first.file, line: lim.first.line }) : couldNotJudge('tool-handlers-not-found');
    }
    if (unguarded.length === 0) return present();
    const findings: Finding[] = unguarded.map((t) => ({ messageId: 'tool-not-rate-limited', data: { tool: t.name }, location: { file: t.file, line: t.nameLine } }));
    return { state: 'non-conforming', findings };
}
