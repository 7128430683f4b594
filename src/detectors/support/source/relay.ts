import { SyntaxKind, ts, type SourceFile } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import { modelFiles, serverModel } from '../../../facts/server-model.js';
import { namedFilter, parsedSources, rawOfKinds, rawPositionOf } from '../../../facts/ts-source.js';
import { rawCallNamed } from './source-support.js';

/**
 * A relay: a server that declares no tool of its own and forwards what its client sends to another MCP server
 * (a gateway from stdio to HTTP or back, a proxy in front of a remote server, an auth or hook gateway in front of
 * another server). The tools it serves are that upstream server's, so the static parts that judge the tools a
 * source declares have nothing of its own to judge. These shapes count as evidence, read once per audit, each
 * named by its place:
 *
 *   - a transport's message handler that forwards the message it receives: `transport.onmessage = (msg) => {
 *     upstream.send(msg) }`, `sseTransport.onmessage = (m) => child.stdin.write(JSON.stringify(m) + '\n')`. The
 *     object is a transport: named as one, bound in the file to `new …Transport(…)` (`const stdio = new
 *     StdioServerTransport()`), or a parameter of a helper (`bridge(a, b)`, `pipe({ from, to })`) that the file
 *     calls with a transport at that place. The handler passes its parameter to a `send`, `write` or `request`
 *     call on another object;
 *   - a request handler that forwards the request it receives to another client: registered for the tools
 *     methods (`setRequestHandler(CallToolRequestSchema, …)`, `'tools/list'`), for every schema of a list
 *     (`for (const schema of schemas) server.setRequestHandler(schema, …)`), or as the fallback handler
 *     (`server.fallbackRequestHandler = …`, whose result must be the forwarded call's); it passes the whole request
 *     to a `request` or `send` call (`client.request(req, ResultSchema)`), its params to `callTool`/`listTools`, or
 *     rebuilds it as a JSON-RPC message from its method for a forwarding call, never a logger's
 *     (`upstream.handleRequest({ method: req.method, params: req.params })`, not `logger.info({ method: req.method })`);
 *   - a tools/list request handler that answers with another client's list (`client.listTools(…)`).
 *
 * Nothing else: a server that builds tools and also forwards some is judged on the tools it builds (the callers
 * reach here only when no tool was found). A handler that calls a REST API with the tool's arguments is no relay:
 * the arguments alone (`req.params.arguments`) are not the request.
 */
export interface Relay {
  file: string;
  line: number;
}

const memo = new WeakMap<RepoFacts, Relay | null>();

const FORWARDS: ReadonlySet<string> = new Set(['send', 'write', 'request']);
/** Client calls that forward a request's params to an upstream MCP server's method of the same name. */
const UPSTREAM_TOOL_CALLS: ReadonlySet<string> = new Set(['callTool', 'listTools']);
const TRANSPORT = /transport/i;
/** A transport class (the SDK's `StdioServerTransport`, `StreamableHTTPClientTransport`, a package's own `WsTransport`). */
const TRANSPORT_CLASS = /Transport$/;
/** The schema or method of a tools request (`CallToolRequestSchema`, `ListToolsRequestSchema`, `'tools/call'`). */
const TOOLS_SCHEMA = /^(?:CallToolRequestSchema|ListToolsRequestSchema|tools\/(?:call|list))$/;

const onmessage = namedFilter(['onmessage'], (cn) => ts.isPropertyAccessExpression(cn) && cn.name.text === 'onmessage');
const fallbackHandler = namedFilter(['fallbackRequestHandler'], (cn) => ts.isPropertyAccessExpression(cn) && cn.name.text === 'fallbackRequestHandler');
const setRequestHandler = namedFilter(
  ['setRequestHandler'],
  (cn) => ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression) && cn.expression.name.text === 'setRequestHandler',
);
const newTransport = (cn: ts.Node): boolean => ts.isNewExpression(cn) && TRANSPORT_CLASS.test(lastName(cn.expression));

/** The rightmost name of an object expression (`this.upstream`, `session.transport`, `client`). */
function lastName(e: ts.Expression): string {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (e.kind === SyntaxKind.ThisKeyword) return 'this';
  return '';
}

/** An expression without parentheses, `await`, `as` and non-null marks around it. */
function bare(e: ts.Expression): ts.Expression {
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAwaitExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    else return e;
  }
}

/** The function a handler expression is, when it is written in place. */
function fnOf(e: ts.Expression): ts.ArrowFunction | ts.FunctionExpression | undefined {
  const b = bare(e);
  return ts.isArrowFunction(b) || ts.isFunctionExpression(b) ? b : undefined;
}

/** Whether `n` mentions the identifier `name` anywhere below it. */
function mentions(n: ts.Node, name: string): boolean {
  return (ts.isIdentifier(n) && n.text === name) || !!ts.forEachChild(n, (c) => (mentions(c, name) ? true : undefined));
}

/** Whether `fn` passes its first parameter to a send/write/request call on an object other than `self`. */
function forwardsParameter(fn: ts.ArrowFunction | ts.FunctionExpression, self: string): boolean {
  const p = fn.parameters[0];
  if (!p || !ts.isIdentifier(p.name)) return false;
  const param = p.name.text;
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && FORWARDS.has(n.expression.name.text)) {
      const target = n.expression.expression.getText();
      if (target !== self && n.arguments.some((a) => mentions(a, param))) {
        found = true;
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/**
 * Calls that hand a rebuilt JSON-RPC message (`{ method: req.method, … }`) to another server: the FORWARDS names and
 * the request-forwarding ones of clients and gateways (`upstream.handleRequest(…)`, `client.sendRequest(…)`).
 */
const REBUILT_FORWARDS: ReadonlySet<string> = new Set([...FORWARDS, 'handleRequest', 'sendRequest', 'forward', 'forwardRequest', 'relay', 'dispatch', 'proxy']);
/** A receiver that records rather than forwards (`logger`, `this.log`, `requestLogger`, `span`, `tracer`, `console`). */
const LOG_RECEIVER = /(?:^|_)(?:console|logs?|logger|loggers|span|tracer|telemetry|audit)$/;
/** Logging methods, never a forwarding call whatever their receiver (`pino.info({ method: req.method })`). */
const LOG_METHODS: ReadonlySet<string> = new Set(['info', 'warn', 'warning', 'error', 'debug', 'trace', 'log', 'fatal', 'verbose', 'silly', 'notice', 'child']);
const snake = (p: string): string => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** Whether a call is made on a logger, a tracing span or the console, or names a logging method. */
function logs(call: ts.CallExpression & { expression: ts.PropertyAccessExpression }): boolean {
  return LOG_METHODS.has(call.expression.name.text) || LOG_RECEIVER.test(snake(lastName(call.expression.expression)));
}

/**
 * Whether a call's value is what `fn` answers: its concise body, a `return` of it (awaited or not), or a variable
 * bound to it that a `return` of `fn` mentions.
 */
function answers(call: ts.CallExpression, fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
  let at: ts.Node = call;
  while (at.parent && (ts.isParenthesizedExpression(at.parent) || ts.isAwaitExpression(at.parent) || ts.isAsExpression(at.parent) || ts.isNonNullExpression(at.parent))) at = at.parent;
  const host = at.parent;
  if (!host) return false;
  if (host === fn && fn.body === at) return true;
  if (ts.isReturnStatement(host)) return true;
  if (ts.isVariableDeclaration(host) && host.initializer === at && ts.isIdentifier(host.name)) {
    const name = host.name.text;
    let returned = false;
    const visit = (n: ts.Node): void => {
      if (returned || (n !== fn.body && ts.isFunctionLike(n))) return;
      if (ts.isReturnStatement(n) && n.expression && mentions(n.expression, name)) returned = true;
      else ts.forEachChild(n, visit);
    };
    if (fn.body) visit(fn.body);
    return returned;
  }
  return false;
}

/**
 * Whether a request handler forwards the request it receives: the whole request to a `request`/`send` call,
 * its params to `callTool`/`listTools`, or a JSON-RPC message rebuilt from its method (`{ method: req.method, … }`)
 * to a forwarding call (REBUILT_FORWARDS) that logs nothing (`logger.info({ method: req.method })` is a log line).
 * The tool's arguments alone (`req.params.arguments` to an HTTP client) are not the request. With `mustAnswer` (the
 * fallback handler, which sees every method) the handler's result must be that call's (returned or awaited into
 * what it returns): a fallback that logs the method and throws forwards nothing.
 */
function forwardsRequest(fn: ts.ArrowFunction | ts.FunctionExpression, mustAnswer = false): boolean {
  const p = fn.parameters[0];
  if (!p || !ts.isIdentifier(p.name)) return false;
  const param = p.name.text;
  const isParam = (e: ts.Expression): boolean => ts.isIdentifier(bare(e)) && (bare(e) as ts.Identifier).text === param;
  const isParamsOf = (e: ts.Expression): boolean => {
    const b = bare(e);
    return ts.isPropertyAccessExpression(b) && b.name.text === 'params' && isParam(b.expression);
  };
  const rebuilt = (e: ts.Expression): boolean => {
    const b = bare(e);
    if (!ts.isObjectLiteralExpression(b)) return false;
    return b.properties.some((pr) => {
      if (!ts.isPropertyAssignment(pr) || !ts.isIdentifier(pr.name) || pr.name.text !== 'method') return false;
      const v = bare(pr.initializer);
      return ts.isPropertyAccessExpression(v) && v.name.text === 'method' && isParam(v.expression);
    });
  };
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const call = n as ts.CallExpression & { expression: ts.PropertyAccessExpression };
      const name = call.expression.name.text;
      const first = call.arguments[0];
      const forwards =
        first !== undefined &&
        !logs(call) &&
        ((FORWARDS.has(name) && isParam(first)) || (UPSTREAM_TOOL_CALLS.has(name) && isParamsOf(first)) || (REBUILT_FORWARDS.has(name) && rebuilt(first)));
      if (forwards && (!mustAnswer || answers(call, fn))) {
        found = true;
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** Names a file binds to a new transport (`const stdio = new StdioServerTransport()`, `this.upstream = new SSEClientTransport(url)`). */
function transportNames(sf: SourceFile): Set<string> {
  const out = new Set<string>();
  for (const cn of rawOfKinds(sf, [SyntaxKind.NewExpression], newTransport)) {
    let at: ts.Node = cn;
    while (at.parent && (ts.isParenthesizedExpression(at.parent) || ts.isAwaitExpression(at.parent) || ts.isAsExpression(at.parent))) at = at.parent;
    const host = at.parent;
    if (host && ts.isVariableDeclaration(host) && host.initializer === at && ts.isIdentifier(host.name)) out.add(host.name.text);
    else if (host && ts.isBinaryExpression(host) && host.right === at && host.operatorToken.kind === SyntaxKind.EqualsToken) out.add(lastName(host.left));
    else if (host && ts.isPropertyAssignment(host) && host.initializer === at && ts.isIdentifier(host.name)) out.add(host.name.text);
  }
  return out;
}

/** The function-like node a parameter name belongs to (a plain or destructured parameter), with its place. */
function parameterOf(e: ts.Expression): { fn: ts.SignatureDeclarationBase; index: number; key?: string } | undefined {
  if (!ts.isIdentifier(e)) return undefined;
  for (let n: ts.Node | undefined = e.parent; n; n = n.parent) {
    if (!ts.isFunctionLike(n)) continue;
    const params = n.parameters;
    for (let i = 0; i < params.length; i++) {
      const name = params[i]!.name;
      if (ts.isIdentifier(name) && name.text === e.text) return { fn: n, index: i };
      if (ts.isObjectBindingPattern(name)) {
        for (const el of name.elements) {
          if (ts.isIdentifier(el.name) && el.name.text === e.text) return { fn: n, index: i, key: el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : e.text };
        }
      }
    }
    return undefined;
  }
  return undefined;
}

/** The name a function is called by in its file (`function bridge(…)`, `const bridge = (…) =>`). */
function calledName(fn: ts.SignatureDeclarationBase): string | undefined {
  if (ts.isFunctionDeclaration(fn) && fn.name) return fn.name.text;
  const host = fn.parent;
  if (host && ts.isVariableDeclaration(host) && ts.isIdentifier(host.name)) return host.name.text;
  return undefined;
}

/** A file's transport names, memoised for the audit (a helper's calls are looked up in every file). */
type NamesOf = (sf: SourceFile) => ReadonlySet<string>;

/**
 * Whether the object whose `onmessage` is set is a transport: named as one, bound in the file to a new
 * transport, or a parameter of a helper (`bridge(local, remote)`, `pipe({ from, to })`) that some file of the
 * source calls with a transport at that place.
 */
function isTransport(e: ts.Expression, sf: SourceFile, files: readonly [string, SourceFile][], namesOf: NamesOf): boolean {
  const name = lastName(e);
  if (TRANSPORT.test(name) || namesOf(sf).has(name)) return true;
  const param = parameterOf(e);
  const helper = param ? calledName(param.fn) : undefined;
  if (!param || !helper) return false;
  const calls = rawCallNamed(new Set([helper]));
  for (const [, other] of files) {
    const names = (): ReadonlySet<string> => namesOf(other);
    const isTransportArg = (a: ts.Expression): boolean => {
      const b = bare(a);
      return newTransport(b) || TRANSPORT.test(lastName(b)) || names().has(lastName(b));
    };
    for (const cn of rawOfKinds(other, [SyntaxKind.CallExpression], calls)) {
      const call = cn as ts.CallExpression;
      if (!ts.isIdentifier(call.expression) || call.expression.text !== helper) continue;
      const arg = call.arguments[param.index];
      if (!arg) continue;
      if (param.key === undefined) {
        if (isTransportArg(arg)) return true;
        continue;
      }
      const obj = bare(arg);
      if (!ts.isObjectLiteralExpression(obj)) continue;
      for (const pr of obj.properties) {
        if (ts.isPropertyAssignment(pr) && ts.isIdentifier(pr.name) && pr.name.text === param.key && isTransportArg(pr.initializer)) return true;
        if (ts.isShorthandPropertyAssignment(pr) && pr.name.text === param.key && isTransportArg(pr.name)) return true;
      }
    }
  }
  return false;
}

/** Whether a binding name (`schema`, `[schema, resultSchema]`, `{ schema }`) binds `name`. */
function binds(b: ts.BindingName, name: string): boolean {
  if (ts.isIdentifier(b)) return b.text === name;
  return b.elements.some((el) => !ts.isOmittedExpression(el) && binds(el.name, name));
}

/** Whether a setRequestHandler call registers for the tools methods, or for each schema of a list (a loop's variable). */
function toolsOrEverySchema(call: ts.CallExpression): boolean {
  const first = call.arguments[0];
  if (!first) return false;
  const b = bare(first);
  if (ts.isStringLiteralLike(b)) return TOOLS_SCHEMA.test(b.text);
  const name = lastName(b);
  if (TOOLS_SCHEMA.test(name)) return true;
  if (!ts.isIdentifier(b)) return false;
  // A loop over schemas: `for (const schema of schemas)`, `schemas.forEach((schema) => …)`.
  for (let n: ts.Node | undefined = call.parent; n; n = n.parent) {
    if (ts.isForOfStatement(n) && ts.isVariableDeclarationList(n.initializer) && n.initializer.declarations.some((d) => binds(d.name, b.text))) return true;
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && n.parameters.some((p) => binds(p.name, b.text))) {
      const host = n.parent;
      return !!host && ts.isCallExpression(host) && ts.isPropertyAccessExpression(host.expression) && ['forEach', 'map'].includes(host.expression.name.text);
    }
    if (ts.isFunctionLike(n)) return false;
  }
  return false;
}

function find(repo: RepoFacts): Relay | undefined {
  const parsed = parsedSources(repo);
  const files = modelFiles(parsed);
  const namesMemo = new Map<SourceFile, Set<string>>();
  const namesOf: NamesOf = (sf) => {
    let n = namesMemo.get(sf);
    if (!n) namesMemo.set(sf, (n = transportNames(sf)));
    return n;
  };
  for (const [file, sf] of files) {
    for (const cn of rawOfKinds(sf, [SyntaxKind.PropertyAccessExpression], onmessage)) {
      const access = cn as ts.PropertyAccessExpression;
      const assign = access.parent;
      if (!assign || !ts.isBinaryExpression(assign) || assign.left !== access || assign.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      const right = fnOf(assign.right);
      if (!right || !forwardsParameter(right, access.expression.getText())) continue;
      if (isTransport(access.expression, sf, files, namesOf)) return { file, line: rawPositionOf(access).line };
    }
    // A request handler that forwards the request (registered for the tools methods, every schema of a list, or as the fallback).
    for (const cn of rawOfKinds(sf, [SyntaxKind.CallExpression], setRequestHandler)) {
      const call = cn as ts.CallExpression;
      const handler = call.arguments.length >= 2 ? fnOf(call.arguments[call.arguments.length - 1]!) : undefined;
      if (handler && toolsOrEverySchema(call) && forwardsRequest(handler)) return { file, line: rawPositionOf(call).line };
    }
    for (const cn of rawOfKinds(sf, [SyntaxKind.PropertyAccessExpression], fallbackHandler)) {
      const access = cn as ts.PropertyAccessExpression;
      const assign = access.parent;
      if (!assign || !ts.isBinaryExpression(assign) || assign.left !== access || assign.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      const handler = fnOf(assign.right);
      if (handler && forwardsRequest(handler, true)) return { file, line: rawPositionOf(access).line };
    }
  }
  for (const h of serverModel(repo).requestHandlers) {
    if (h.method === 'tools/list' && h.handler && /\.listTools\s*\(/.test(h.handler.getText())) return { file: h.file, line: h.line };
  }
  return undefined;
}

/** The place where the source relays another server's messages, if it does (see the file header). */
export function relayOf(repo: RepoFacts): Relay | undefined {
  noteSourceRead('js');
  let hit = memo.get(repo);
  if (hit === undefined) memo.set(repo, (hit = find(repo) ?? null));
  return hit ?? undefined;
}
