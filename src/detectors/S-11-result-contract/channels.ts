import { builtinModules } from 'node:module';
import { Node, SyntaxKind, ts, type ObjectLiteralExpression } from '../../facts/morph.js';
import { declarationOf, downlevelAsyncBody, functionOf, GLOBAL, isRawFunctionLike, mayResolveFunction, rawDeclarationOf, rawOriginOf, valueOfDeclaration, valueOriginOf, type FunctionLikeNode } from '../../facts/scope.js';
import { rawUnwrap, wrapNode, type ParsedSources } from '../../facts/ts-source.js';
type IdentifierNode = import('ts-morph').Identifier;
import { OTHER_MEANING } from './dynamic.js';
import { modelFiles, propertyValue } from '../../facts/server-model.js';
import { callersOf } from '../support/source/source-support.js';
import { objectsOfResult } from './results.js';

type ThrowStmt = import('ts-morph').ts.ThrowStatement;
type SourceFileNode = import('ts-morph').SourceFile;
type CallExpressionNode = import('ts-morph').CallExpression;
type TryStmt = import('ts-morph').ts.TryStatement;
type CatchClauseNode = import('ts-morph').ts.CatchClause;
type IfStmt = import('ts-morph').ts.IfStatement;
type ShorthandProp = import('ts-morph').ts.ShorthandPropertyAssignment;
type SignatureNode = import('ts-morph').ts.SignatureDeclarationBase;

/**
 * S-11 — which channel a hand-written tools/call handler (a low-level `Server`'s
 * `setRequestHandler(CallToolRequestSchema | 'tools/call', …)`) answers on, read from its source. Nothing
 * wraps such a handler: what it throws, the SDK's protocol layer sends as a JSON-RPC error (the error's own
 * integer code, else -32603). The specification's tools page keeps execution failures (API failures, business
 * logic) for `isError` results and protocol errors (unknown tool, invalid arguments) for JSON-RPC errors, whose
 * example for an unknown tool is -32602. So, for every `throw` that leaves the handler — written in it or in a
 * function of the audited source it calls (up to three calls deep, across modules and class methods), and not
 * caught on the way by a `catch` that answers with a result:
 *   - 'execution-error-thrown-in-source': the throw reports a failure of the tool's own work: an error
 *     built with the InternalError code (-32603), a throw inside a `catch` whose `try` awaited something (an
 *     upstream call failed) and which answers no failure with a result (also a protocol error given a code of the
 *     server range -32000..-32099 there: `throw new McpError(-32001, `API failed: …`)`), or a throw under a check of an HTTP
 *     response (`!res.ok`, `res.status …`) or of the exit status of a child process the code ran (`result.status !== 0`
 *     of `spawnSync`, `exitCode` of execa: the command the tool runs failed);
 *   - 'wrong-meaning-code-in-source': a protocol error built with a code JSON-RPC defines for another failure
 *     of the request itself — -32601 MethodNotFound (tools/call exists), -32600 InvalidRequest, -32700
 *     ParseError — typically for an unknown tool name;
 *   - 'unknown-tool-result-in-source': the handler's own unknown-name throw (a `default:`, `name !== 'x'`, `!tool`)
 *     sits in a `try` whose `catch` answers every failure with a result, so the unknown tool gets a result;
 *   - 'upstream-failure-uncaught-in-source': no throw is written, but an awaited (or returned) call that rejects
 *     when the other side fails (isUpstreamCall: fetch, axios and HTTP client instances, browser actions and
 *     launches, methods of a package's client instance, ky and got requests), or an awaited call of a function of the
 *     source that rejects its own promise (rejectsItself: a bridge's `sendRequest` to a browser extension), has no
 *     `try`/`.catch` on the way: the rejection leaves.
 * A `catch` that hands the error to a function of the source that always throws (`handleApiError(e)`), and a
 * `.catch(e => { throw … })` on an awaited chain, rethrow: their throws are judged as the catch's own. A handler
 * registered through a wrapper (`withErrors(async (request) => …)`) starts with the guard of the wrapper's catch.
 * unmarkedErrorResults reads, from every tool handler (any API), a failure a `catch` answers with an ordinary
 * result, without `isError: true` ('execution-error-result-unmarked-in-source'), and a failure an `if` on an upstream
 * response answers so on its failure branch ('failed-response-result-unmarked-in-source').
 * High-level handlers (McpServer.tool / registerTool, FastMCP) are not read here: the SDK catches what they
 * throw and answers an isError result.
 */

export interface ChannelFinding {
  messageId:
    | 'execution-error-thrown-in-source'
    | 'wrong-meaning-code-in-source'
    | 'unknown-tool-result-in-source'
    | 'upstream-failure-uncaught-in-source'
    | 'execution-error-result-unmarked-in-source'
    | 'execution-error-data-unmarked-in-source'
    | 'failed-response-result-unmarked-in-source';
  node: Node;
  code?: number;
  /** The condition on the upstream response whose failure branch returns the result (failed-response-result-unmarked-in-source). */
  check?: string;
}

export const ERROR_CTOR = /(?:^|\.)(?:McpError|ProtocolError|JSONRPCError|JsonRpcError|RpcError)$/;

const NAMED_CODES: Readonly<Record<string, number>> = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UrlElicitationRequired: -32042,
};
/** URL elicitation required: the one protocol error a tool is meant to raise (the client opens the URL, then retries). */
const URL_ELICITATION_REQUIRED = -32042;
const INTERNAL_ERROR = -32603;
const MAX_DEPTH = 3;

/** How a `catch` treats what its `try` throws: answers a result ('all'), lets protocol errors through ('protocol'), or rethrows ('none'). */
type Guard = 'none' | 'protocol' | 'all';

const isNested = (cn: ts.Node): boolean =>
  ts.isArrowFunction(cn) || ts.isFunctionExpression(cn) || ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isClassDeclaration(cn) || ts.isClassExpression(cn);

/** Nodes of a function's own body (nested functions and classes left out) that pass the test. */
function ownNodes(fn: FunctionLikeNode, test: (cn: ts.Node) => boolean): ts.Node[] {
  const out: ts.Node[] = [];
  const body = fn.compilerNode.body;
  if (!body) return out;
  const visit = (cn: ts.Node): void => {
    if (isNested(cn)) return;
    if (test(cn)) out.push(cn);
    ts.forEachChild(cn, visit);
  };
  visit(body);
  return out;
}

/** The integer code an error constructor is given: a number, `-n`, or `…ErrorCode.Name` (v1 ErrorCode, v2 ProtocolErrorCode). */
function codeOf(arg: ts.Node | undefined): number | undefined {
  if (!arg) return undefined;
  const u = rawUnwrap(arg);
  if (ts.isNumericLiteral(u)) return Number(u.text);
  if (ts.isPrefixUnaryExpression(u) && u.operator === SyntaxKind.MinusToken) {
    const o = rawUnwrap(u.operand);
    return ts.isNumericLiteral(o) ? -Number(o.text) : undefined;
  }
  if (ts.isPropertyAccessExpression(u) && /ErrorCodes?$/.test(u.expression.getText())) return NAMED_CODES[u.name.text];
  return undefined;
}

/** A protocol-error construction `new McpError(code, …)` (or `McpError(…)` called), with its code when written. */
function protocolError(e: ts.Node | undefined): { code?: number } | undefined {
  if (!e) return undefined;
  const u = rawUnwrap(e);
  if (!ts.isNewExpression(u) && !ts.isCallExpression(u)) return undefined;
  const callee = u.expression;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? `.${callee.name.text}` : '';
  // The SDK's own class for it (`new UrlElicitationRequiredError(elicitations)`).
  if (/(?:^|\.)UrlElicitationRequiredError$/.test(name)) return { code: URL_ELICITATION_REQUIRED };
  if (!ERROR_CTOR.test(name)) return undefined;
  const code = codeOf(u.arguments?.[0]);
  return code === undefined ? {} : { code };
}

const mentionsProtocolError = (cn: ts.Node): boolean => /\b(?:McpError|ProtocolError|JSONRPCError|ErrorCode)\b/.test(cn.getText());

/** Throw statements directly in a block (nested functions left out), each with whether a condition stands between it and the block. */
function throwsIn(block: ts.Node, isThrowingCall?: (c: ts.CallExpression) => boolean): { node: ts.Node; conditional: boolean; protocolGuard: boolean }[] {
  const out: { node: ts.Node; conditional: boolean; protocolGuard: boolean }[] = [];
  const visit = (cn: ts.Node, conditional: boolean, protocolGuard: boolean): void => {
    if (isNested(cn)) return;
    if (ts.isThrowStatement(cn) || (isThrowingCall && ts.isCallExpression(cn) && isThrowingCall(cn))) out.push({ node: cn, conditional, protocolGuard });
    if (ts.isIfStatement(cn)) {
      const pg = protocolGuard || mentionsProtocolError(cn.expression);
      visit(cn.expression, conditional, protocolGuard);
      visit(cn.thenStatement, true, pg);
      if (cn.elseStatement) visit(cn.elseStatement, true, protocolGuard);
      return;
    }
    const inner = conditional || ts.isCaseClause(cn) || ts.isDefaultClause(cn) || ts.isConditionalExpression(cn);
    ts.forEachChild(cn, (c) => visit(c, inner, protocolGuard));
  };
  ts.forEachChild(block, (c) => visit(c, false, false));
  return out;
}

/**
 * What a catch clause lets through: nothing when it never throws, protocol errors when it rethrows only those.
 * A call to a function of the audited source that always throws (`handleApiError(error)`) counts as a throw.
 */
function catchGuard(c: CatchClauseNode, isThrowingCall?: (c: ts.CallExpression) => boolean): Guard {
  const ts_ = throwsIn(c.block, isThrowingCall);
  if (!ts_.length) return 'all';
  if (ts_.some((t) => !t.conditional)) return 'none';
  return ts_.some((t) => t.protocolGuard) ? 'protocol' : 'all';
}

/** A function whose own body throws whatever happens: a throw no condition stands before (`function fail(e): never { … throw e; }`). */
function throwsAlways(fn: FunctionLikeNode): boolean {
  const body = fn.compilerNode.body;
  if (!body || !ts.isBlock(body)) return false;
  return throwsIn(body).some((t) => !t.conditional);
}

const stronger = (a: Guard, b: Guard): Guard => (a === 'all' || b === 'all' ? 'all' : a === 'protocol' || b === 'protocol' ? 'protocol' : 'none');

/**
 * The guard the `try` blocks of `fn` around `cn` put on it, whether one of them has a catch (what `cn` throws
 * is then reported where that catch throws, if it does), and the innermost catch clause `cn` sits in (with its try).
 */
function localGuard(cn: ts.Node, fnNode: ts.Node, isThrowingCall?: (c: ts.CallExpression) => boolean): { guard: Guard; caught: boolean; inCatchOf?: TryStmt } {
  let guard: Guard = 'none';
  let caught = false;
  let inCatchOf: TryStmt | undefined;
  let child = cn;
  for (let p = cn.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (ts.isTryStatement(p) && child === p.tryBlock && p.catchClause) {
      guard = stronger(guard, catchGuard(p.catchClause, isThrowingCall));
      caught = true;
    }
    if (ts.isCatchClause(p) && !inCatchOf && ts.isTryStatement(p.parent)) inCatchOf = p.parent;
  }
  return { guard, caught, ...(inCatchOf ? { inCatchOf } : {}) };
}

const awaits = (block: ts.Node): boolean => {
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || isNested(cn)) return;
    if (ts.isAwaitExpression(cn) || ts.isYieldExpression(cn)) found = true;
    else ts.forEachChild(cn, visit);
  };
  visit(block);
  return found;
};

const isToolName = (e: ts.Node): boolean => {
  const u = rawUnwrap(e);
  if (ts.isPropertyAccessExpression(u)) return u.name.text === 'name' && /(?:^|\.)params$/.test(u.expression.getText());
  return ts.isIdentifier(u) && /^(?:name|toolName|tool_name)$/.test(u.text);
};

/**
 * The tools/call request itself handed on by the handler: its first parameter (`executeToolRequest(request)`), or a
 * local made from it by one call (`const normalized = normalizeToolRequest(request)`): the callee reads the tool name from it.
 */
function carriesRequest(arg: ts.Node, handler: FunctionLikeNode): boolean {
  const p0 = handler.compilerNode.parameters[0];
  if (!p0 || !ts.isIdentifier(p0.name)) return false;
  const req = p0.name.text;
  let u = rawUnwrap(arg);
  if (!ts.isIdentifier(u)) return false;
  if (u.text === req) return true;
  let init = findDeclaration(u)?.initializer;
  if (!init) return false;
  u = rawUnwrap(init);
  if (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  // Only the request itself, normalised: a call given the request alone whose name says it rewrites it
  // (`normalizeToolRequest(request)`); a local an auth, parse or validation call builds from the request
  // (`const user = await authenticate(request)`) is something else, and the walk stays out of the helpers it meets.
  if (!ts.isCallExpression(u) || u.arguments.length !== 1) return false;
  const only = rawUnwrap(u.arguments[0]!);
  return ts.isIdentifier(only) && only.text === req && REQUEST_REWRITE.test(lastCalleeName(u) ?? '');
}

/** Names of calls that hand back the request they are given, rewritten (see carriesRequest). */
const REQUEST_REWRITE = /^(?:normali[sz]e|canonicali[sz]e|sanitize|coerce|upgrade|migrate|adapt|prepare)\w*$/i;

/** The last name of a call's callee: `f` of `f(x)` and of `this.a.f(x)`. */
function lastCalleeName(c: ts.CallExpression): string | undefined {
  const e = rawUnwrap(c.expression);
  return ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined;
}

/**
 * A function named like a lookup of a tool's definition (`getTool`, `findToolConfig`, `resolveHandler`,
 * `lookupToolDef`): its `!result` is the unknown name. A validation, allow-list or permission check given the
 * name (`validateArgs(name, args)`, `isAllowed(name)`) is not.
 */
const TOOL_LOOKUP = /^(?:get|find|lookup|resolve|load|fetch)\w*?(?:tool|handler|config|def|spec|entr|impl|command)/i;

const earlyRejectMemo = new WeakMap<ts.Node, readonly ts.Node[]>();
/**
 * The throws of a function that reject an unknown tool name outside any try (`const handler = HANDLERS[name];
 * if (!handler) throw …` before the try): read once per function.
 */
function earlyRejections(fnNode: ts.Node): readonly ts.Node[] {
  const hit = earlyRejectMemo.get(fnNode);
  if (hit) return hit;
  const out: ts.Node[] = [];
  const visit = (cn: ts.Node): void => {
    if (cn !== fnNode && (isRawFunctionLike(cn) || ts.isClassLike(cn))) return;
    if (ts.isTryStatement(cn)) return;
    if (ts.isThrowStatement(cn) && underUnknownNameCheck(cn as ThrowStmt, fnNode, false)) out.push(cn);
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(fnNode, visit);
  earlyRejectMemo.set(fnNode, out);
  return out;
}

/** `name === 'search'` (or `!==` with `negated`): the tool name compared with a written name. */
function comparesToolName(cn: ts.Node, negated: boolean): boolean {
  const ops = negated ? [SyntaxKind.ExclamationEqualsEqualsToken, SyntaxKind.ExclamationEqualsToken] : [SyntaxKind.EqualsEqualsEqualsToken, SyntaxKind.EqualsEqualsToken];
  if (!ts.isBinaryExpression(cn) || !ops.includes(cn.operatorToken.kind)) return false;
  const [l, r] = [rawUnwrap(cn.left), rawUnwrap(cn.right)];
  return (isToolName(l) && ts.isStringLiteralLike(r)) || (isToolName(r) && ts.isStringLiteralLike(l));
}

/** A condition that names one tool: `name === 'search'`, `toolName == "a" || toolName == "b"`. */
function namesATool(cond: ts.Node): boolean {
  let hit = false;
  const visit = (cn: ts.Node): void => {
    if (hit) return;
    if (comparesToolName(cn, false)) hit = true;
    if (!hit) ts.forEachChild(cn, visit);
  };
  visit(cond);
  return hit;
}

/**
 * A condition true only for tools it names: `name === 'status'`, `name === 'a' || name === 'b'`, `name === 'a' && ready`
 * (through parentheses). An operand of `||` that is not itself such a condition lets other names in.
 */
function onlyNamedTools(cond: ts.Node): boolean {
  const u = rawUnwrap(cond);
  if (comparesToolName(u, false)) return true;
  if (!ts.isBinaryExpression(u)) return false;
  if (u.operatorToken.kind === SyntaxKind.AmpersandAmpersandToken) return onlyNamedTools(u.left) || onlyNamedTools(u.right);
  if (u.operatorToken.kind === SyntaxKind.BarBarToken) return onlyNamedTools(u.left) && onlyNamedTools(u.right);
  return false;
}

/**
 * A throw in the `default:` of a switch on the tool name, or in the then-branch of an `if` that finds the tool name
 * unknown: `name !== 'query'`, or `!tool` / `!handler` where that value was looked up by name (`tools.find(…)`,
 * `handlers[name]`, `map.get(name)`); or the throw a chain of tool-name branches falls through to: in the last
 * `else` of `if (name === 'a') … else if (name === 'b') …`, or after `if (toolName === 'a') { …; return … }` blocks
 * of the same statement list.
 */
function underUnknownNameCheck(t: ThrowStmt, fnNode: ts.Node, byLookupCall = true): boolean {
  let child: ts.Node = t;
  for (let p = t.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (ts.isIfStatement(p) && child === p.elseStatement && !ts.isIfStatement(child) && namesATool(p.expression)) return true;
    if (ts.isBlock(p) && child === t) {
      const before = p.statements.slice(0, p.statements.indexOf(t));
      const ifs = before.filter((st) => ts.isIfStatement(st));
      if (ifs.length > 0 && ifs.every((st) => ts.isIfStatement(st) && namesATool(st.expression))) return true;
    }
    // `default:` of a switch on the tool name
    if (ts.isDefaultClause(p)) return ts.isSwitchStatement(p.parent.parent) && isToolName(p.parent.parent.expression);
    if (!ts.isIfStatement(p) || child !== p.thenStatement) continue;
    let hit = false;
    const visit = (cn: ts.Node): void => {
      if (hit) return;
      if (comparesToolName(cn, true)) {
        hit = true;
      } else if (ts.isPrefixUnaryExpression(cn) && cn.operator === SyntaxKind.ExclamationToken && ts.isIdentifier(rawUnwrap(cn.operand))) {
        const init = findDeclaration(rawUnwrap(cn.operand) as ts.Identifier)?.initializer;
        const u = init && rawUnwrap(init);
        if (u && (ts.isElementAccessExpression(u) || (ts.isCallExpression(u) && ts.isPropertyAccessExpression(u.expression) && ['find', 'get'].includes(u.expression.name.text)))) hit = true;
        // A lookup of the tool's definition by its name through a function (`const toolInfo = findToolConfig(toolName)`).
        // Only the name, to a function named like a lookup, and not once the function already rejected an unknown
        // name before (outside the try): the second check is about something else.
        const call = u && ts.isAwaitExpression(u) ? rawUnwrap(u.expression) : u;
        if (
          byLookupCall &&
          call &&
          ts.isCallExpression(call) &&
          call.arguments.length === 1 &&
          isToolName(call.arguments[0]!) &&
          TOOL_LOOKUP.test(lastCalleeName(call) ?? '') &&
          !earlyRejections(fnNode).some((r) => r.getStart() < t.getStart())
        )
          hit = true;
      }
      if (!hit) ts.forEachChild(cn, visit);
    };
    visit(p.expression);
    return hit;
  }
  return false;
}

type Polarity = 'failure' | 'success';

const flip = (p: Polarity | undefined): Polarity | undefined => (p === 'failure' ? 'success' : p === 'success' ? 'failure' : undefined);

/**
 * `x.ok` (any value's) or `res.status` / `response.statusCode` of a value a request gave back (isResponse), with the
 * receiver's name ('' when not a plain name). With `exit`, also the exit status of a child process the code ran
 * (`result.status` of `spawnSync(…)`, `out.exitCode` of `await execa(…)`: isProcessResult).
 */
function responseProperty(e: ts.Node, exit = false): { kind: 'ok' | 'status' | 'exit'; name: string } | undefined {
  const u = rawUnwrap(e);
  if (!ts.isPropertyAccessExpression(u)) return undefined;
  const recv = rawUnwrap(u.expression);
  const name = ts.isIdentifier(recv) ? recv.text : '';
  if (u.name.text === 'ok') return { kind: 'ok', name };
  if (exit && EXIT_PROPERTY.has(u.name.text) && isProcessResult(recv)) return { kind: 'exit', name };
  if (['status', 'statusCode'].includes(u.name.text) && isResponse(recv)) return { kind: 'status', name };
  return undefined;
}

/** The properties that hold a finished child process's exit status (`spawnSync`'s `status`, execa's `exitCode`). */
const EXIT_PROPERTY: ReadonlySet<string> = new Set(['status', 'exitCode']);
/** Modules whose functions run a child process and hand back its exit status. */
const PROCESS_MODULE = /^(?:node:)?child_process$|^(?:execa|cross-spawn|tinyexec|nano-spawn)$/;
/** Their functions that give back a finished process (a `spawn` gives a running one, whose status is not yet known). */
const PROCESS_RUN = /^(?:spawnSync|execa|execaSync|execaCommand|execaCommandSync|execaNode|crossSpawnSync|sync|x|spawn)$/;

/**
 * A finished child process the code ran: `const result = spawnSync('git', args)`, `const out = await execa(…)`, the
 * function being imported from child_process, execa or cross-spawn (`spawn` of nano-spawn and cross-spawn's `sync`).
 */
function isProcessResult(e: ts.Node): boolean {
  const u = rawUnwrap(e);
  if (!ts.isIdentifier(u)) return false;
  const init = findDeclaration(u)?.initializer;
  let call = init && rawUnwrap(init);
  if (call && ts.isAwaitExpression(call)) call = rawUnwrap(call.expression);
  if (!call || !ts.isCallExpression(call)) return false;
  const c = rawUnwrap(call.expression);
  const fn = ts.isIdentifier(c) ? c : ts.isPropertyAccessExpression(c) ? c.name : undefined;
  if (!fn || !PROCESS_RUN.test(fn.text)) return false;
  const o = rawOriginOf(ts.isIdentifier(c) ? c : rawUnwrap((c as ts.PropertyAccessExpression).expression));
  if (!o || !PROCESS_MODULE.test(o.module)) return false;
  // A running process (`spawn` of child_process) has no status yet: only nano-spawn's `spawn` is awaited to its end.
  return fn.text !== 'spawn' || o.module === 'nano-spawn';
}

const MIRRORED: Partial<Record<ts.SyntaxKind, ts.SyntaxKind>> = {
  [SyntaxKind.LessThanToken]: SyntaxKind.GreaterThanToken,
  [SyntaxKind.GreaterThanToken]: SyntaxKind.LessThanToken,
  [SyntaxKind.LessThanEqualsToken]: SyntaxKind.GreaterThanEqualsToken,
  [SyntaxKind.GreaterThanEqualsToken]: SyntaxKind.LessThanEqualsToken,
};

/** Which branch a comparison of a response's `ok` or status with a literal selects when true. */
function comparisonPolarity(kind: 'ok' | 'status' | 'exit', op: ts.SyntaxKind, lit: ts.Node): Polarity | undefined {
  const eq = op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken;
  const ne = op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken;
  if (kind === 'exit') {
    // An exit status: 0 is success, anything else a failure (`status !== 0`, `exitCode > 0`).
    if (!ts.isNumericLiteral(lit) || Number(lit.text) !== 0) return undefined;
    return eq ? 'success' : ne || op === SyntaxKind.GreaterThanToken ? 'failure' : undefined;
  }
  if (kind === 'ok') {
    const b = lit.kind === SyntaxKind.TrueKeyword ? true : lit.kind === SyntaxKind.FalseKeyword ? false : undefined;
    if (b === undefined || (!eq && !ne)) return undefined;
    return b === eq ? 'success' : 'failure';
  }
  if (!ts.isNumericLiteral(lit)) return undefined;
  const n = Number(lit.text);
  const ok = n >= 200 && n < 300;
  if (eq) return ok ? 'success' : n >= 400 ? 'failure' : undefined;
  if (ne) return ok ? 'failure' : undefined;
  if (op === SyntaxKind.GreaterThanEqualsToken) return n >= 300 ? 'failure' : undefined;
  if (op === SyntaxKind.GreaterThanToken) return n >= 299 ? 'failure' : undefined;
  if (op === SyntaxKind.LessThanToken) return n > 200 && n <= 400 ? 'success' : undefined;
  if (op === SyntaxKind.LessThanEqualsToken) return n >= 200 && n < 400 ? 'success' : undefined;
  return undefined;
}

/**
 * What the true branch of a condition on an upstream response is: 'failure' for `!res.ok`, `res.ok === false`,
 * `res.status >= 400` / `> 399` / `!== 200` / `!(status >= 200 && status < 300)`, `status === 404`; 'success' for
 * `res.ok`, `status === 200`, `status < 400`. `&&`/`||`: a failure operand makes the branch a failure one, else a
 * success operand a success one. Anything else (a bare status, a status in a list): not known. The names of the
 * responses checked are added to `names`.
 */
function polarityOf(e: ts.Node, names: string[], exit = false): Polarity | undefined {
  const u = rawUnwrap(e);
  if (ts.isPrefixUnaryExpression(u) && u.operator === SyntaxKind.ExclamationToken) return flip(polarityOf(u.operand, names, exit));
  const prop = responseProperty(u, exit);
  if (prop) {
    if (prop.kind === 'status') return undefined;
    if (prop.name) names.push(prop.name);
    // A bare exit status (`if (result.status)`) is true when the process failed.
    return prop.kind === 'ok' ? 'success' : 'failure';
  }
  if (!ts.isBinaryExpression(u)) return undefined;
  const op = u.operatorToken.kind;
  if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
    const ps = [polarityOf(u.left, names, exit), polarityOf(u.right, names, exit)];
    return ps.includes('failure') ? 'failure' : ps.includes('success') ? 'success' : undefined;
  }
  const [l, r] = [rawUnwrap(u.left), rawUnwrap(u.right)];
  const left = responseProperty(l, exit);
  const right = left ? undefined : responseProperty(r, exit);
  const side = left ?? right;
  if (!side) return undefined;
  const p = comparisonPolarity(side.kind, left ? op : (MIRRORED[op] ?? op), left ? r : l);
  if (p && side.name) names.push(side.name);
  return p;
}

/** A statement after which control never reaches the next one: a return or throw, a block ending in one, an if/else whose branches both end so. */
function exits(st: ts.Statement): boolean {
  if (ts.isReturnStatement(st) || ts.isThrowStatement(st)) return true;
  if (ts.isBlock(st)) {
    const last = st.statements[st.statements.length - 1];
    return !!last && exits(last);
  }
  if (ts.isIfStatement(st)) return !!st.elseStatement && exits(st.thenStatement) && exits(st.elseStatement);
  return false;
}

/**
 * The statements that run when an `if` on an upstream response found it failed: the then-branch of a failure check
 * (`if (!res.ok)`), the else-branch of a success check (`if (res.ok) … else …`), or, when a success check has no
 * else and its then-branch always returns or throws, the statements after the `if` in the same list. With the
 * names of the responses checked; undefined when the condition checks no response or its polarity is not known.
 */
function failureBranch(st: IfStmt, exit = false): { nodes: ts.Node[]; names: string[] } | undefined {
  const names: string[] = [];
  const p = polarityOf(st.expression, names, exit);
  if (p === 'failure') return { nodes: [st.thenStatement], names };
  if (p !== 'success') return undefined;
  if (st.elseStatement) return { nodes: [st.elseStatement], names };
  const parent = st.parent;
  if (!exits(st.thenStatement) || !(ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent))) return { nodes: [], names };
  const list = parent.statements as ts.NodeArray<ts.Statement>;
  return { nodes: list.slice(list.indexOf(st) + 1), names };
}

/** A value a request gave back: `const res = await fetch(…)` / `await this.http.get(…)` (a status of the arguments is not one). */
function isResponse(e: ts.Node): boolean {
  const u = rawUnwrap(e);
  if (!ts.isIdentifier(u)) return false;
  const init = findDeclaration(u)?.initializer;
  return !!init && ts.isAwaitExpression(rawUnwrap(init));
}

/** The thrown error speaks of the arguments (`Invalid arguments: …`): a protocol failure, not the tool's work. */
const ABOUT_ARGUMENTS = /\b(?:invalid (?:arg|param|input)|arguments?\b|parameters?\b|is required|missing required)/i;

/**
 * A throw on the failure branch of an `if` that checks an HTTP response (failureBranch): the then-branch of `!res.ok`,
 * `res.status >= 400`, `response.statusCode !== 200`, the else-branch of `res.ok`, or after `if (res.ok) return …`.
 * The innermost `if` whose then-branch holds the throw decides.
 */
function underResponseCheck(t: ThrowStmt, fnNode: ts.Node): boolean {
  let child: ts.Node = t;
  for (let p = t.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (ts.isIfStatement(p) && (child === p.thenStatement || child === p.elseStatement)) {
      const names: string[] = [];
      const pol = polarityOf(p.expression, names, true);
      if (child === p.elseStatement) {
        if (pol === 'success') return true;
        continue;
      }
      return pol === 'failure';
    }
    if ((ts.isBlock(p) || ts.isCaseClause(p) || ts.isDefaultClause(p)) && ts.isStatement(child)) {
      const list = p.statements as ts.NodeArray<ts.Statement>;
      for (const st of list.slice(0, list.indexOf(child))) if (ts.isIfStatement(st) && failureBranch(st, true)?.nodes.includes(child)) return true;
    }
  }
  return false;
}

const TOOL_FN_KEY = /^(?:handler|execute|run|handle|callback|fn|call|invoke|impl)$/;

/**
 * A call that runs a tool taken from a table: `handlers[name](args)`, `tool.handler(args)`, or `fn(args)` where
 * `const fn = handlers[name]` / `tools.find(…)` / `map.get(name)`.
 */
function isTableDispatch(call: ts.CallExpression): boolean {
  const e = rawUnwrap(call.expression);
  if (ts.isElementAccessExpression(e)) return true;
  if (ts.isPropertyAccessExpression(e) && TOOL_FN_KEY.test(e.name.text)) return true;
  if (ts.isIdentifier(e)) {
    const decl = e.parent && findDeclaration(e);
    const init = decl?.initializer && rawUnwrap(decl.initializer);
    if (!init) return false;
    if (ts.isElementAccessExpression(init)) return true;
    return ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression) && ['find', 'get'].includes(init.expression.name.text);
  }
  return false;
}

/** The `const x = …` declaring an identifier, searched in the enclosing blocks (no binder needed for a local). */
function findDeclaration(id: ts.Identifier): ts.VariableDeclaration | undefined {
  for (let p: ts.Node | undefined = id.parent; p; p = p.parent) {
    if (!ts.isBlock(p) && !ts.isSourceFile(p)) continue;
    for (const st of p.statements) {
      if (!ts.isVariableStatement(st)) continue;
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === id.text) return d;
    }
  }
  return undefined;
}

/** The function of the audited source an expression stands for, if the reading can tell. */
function resolveFunction(sf: SourceFileNode, e: ts.Node, sources: ParsedSources): FunctionLikeNode | undefined {
  if (!mayResolveFunction(e)) return undefined;
  try {
    return functionOf(wrapNode(sf, e), sources);
  } catch {
    return undefined;
  }
}

/** Request methods of an HTTP client (axios and its instances, got-style clients). */
const HTTP_VERB = /^(?:get|post|put|patch|delete|head|options|request)$/;
/** The last name of a receiver holding an HTTP client: `this.http`, `apiClient`, `axiosInstance`, `api`. */
const CLIENT_RECEIVER = /(?:client|api|https?|axios|instance|rest)$/i;
/** Actions of a browser page (puppeteer, playwright): each waits on the browser and rejects when it fails. */
const BROWSER_ACTION = new Set([
  'goto', 'click', 'type', 'fill', 'hover', 'focus', 'select', 'press', 'tap', 'evaluate', 'evaluateHandle', '$eval', '$$eval', '$', '$$',
  'waitForSelector', 'waitForNavigation', 'waitForFunction', 'waitForNetworkIdle', 'screenshot', 'pdf', 'content', 'setContent', 'reload',
  'goBack', 'goForward', 'setViewport', 'newPage', 'uploadFile', 'setCookie', 'cookies',
]);
const BROWSER_RECEIVER = /(?:page|browser|frame)$/i;
const BROWSER_LAUNCHER = /(?:puppeteer|playwright|chromium|firefox|webkit)/i;

/** The callee of a call, through TypeScript's CommonJS `(0, m.f)(…)`. */
function calleeOf(call: ts.CallExpression): ts.Node {
  const c = rawUnwrap(call.expression);
  return ts.isBinaryExpression(c) && c.operatorToken.kind === SyntaxKind.CommaToken ? rawUnwrap(c.right) : c;
}

/**
 * A call that goes out of the process and rejects when the other side fails: `fetch(…)`, axios (`axios.get`,
 * `this.http.post`, `apiClient.request`), a browser action (`page.goto`, `page.click`, `browser.newPage`) or
 * a browser launch (`puppeteer.launch`), or a method of a package's client instance (`new LinearClient(…)`,
 * `this.hubspot = new Client(…)`: `await client.issue(id)`, `await this.hubspot.crm.contacts.basicApi.getById(id)`).
 */
function isUpstreamCall(call: ts.CallExpression, sf: SourceFileNode, sources: ParsedSources): boolean {
  const c = calleeOf(call);
  if (ts.isIdentifier(c)) return c.text === 'fetch' || c.text === 'axios' || isHttpPackageName(c);
  if (!ts.isPropertyAccessExpression(c)) return false;
  const m = c.name.text;
  // `ky.get(…)`, `got.post(…)`, `api.get(…)` of `const api = ky.create(…)`.
  const head = rawUnwrap(c.expression);
  if (ts.isIdentifier(head) && answersFailures(head, sf, sources)) return false;
  if (HTTP_VERB.test(m) && ts.isIdentifier(head) && isHttpPackageName(head)) return true;
  // An HTTP client instance held in a field or made in another module of the package (`this.http = axios.create(…)`,
  // `export const jira = axios.create(…)` imported as `jira`).
  if (HTTP_VERB.test(m) && httpInstance(head, sf, sources)) return true;
  const recv = c.expression.getText();
  const last = recv.split('.').pop() ?? '';
  if (m === 'fetch' && /^(?:globalThis|window|global)$/.test(recv)) return true;
  if (m === 'default' && /(?:^|_)(?:node_fetch|axios)(?:_\d+)?$/i.test(recv)) return true;
  if (HTTP_VERB.test(m) && (/(?:^|_|\.)axios/i.test(recv) || CLIENT_RECEIVER.test(last))) return true;
  if (BROWSER_ACTION.has(m) && BROWSER_RECEIVER.test(last)) return true;
  if ((m === 'launch' || m === 'connect' || m === 'launchPersistentContext') && BROWSER_LAUNCHER.test(recv)) return true;
  return isPackageClient(c.expression);
}

/** A package specifier whose instances are clients of something outside the process (not a relative path, the MCP SDK or a Node built-in). */
const isClientPackage = (spec: string): boolean => !spec.startsWith('.') && !spec.startsWith('/') && !/^@modelcontextprotocol\//.test(spec) && !spec.startsWith('node:') && !builtinModules.includes(spec);

/**
 * The package a name stands for (an import of any form, a `require`, or a value made from one: `ky.create(…)`), read
 * with the scope helper's origin of the name (memoised per node); undefined for a global, a module of the package,
 * the MCP SDK or a Node built-in.
 */
function packageOf(id: ts.Identifier): string | undefined {
  const o = rawOriginOf(id);
  return o && o.module !== GLOBAL && isClientPackage(o.module) ? o.module : undefined;
}

/** Whether a name is bound to a package (see packageOf). */
const importedFromPackage = (id: ts.Identifier): boolean => packageOf(id) !== undefined;

/** HTTP client packages whose request functions reject when the request fails (ky and got on any status outside 2xx). */
const HTTP_PACKAGE = /^(?:axios|ky|ky-universal|got|node-fetch|cross-fetch|isomorphic-fetch|undici|ofetch|superagent|needle|phin|wretch)$/;

/**
/**
 * Whether a receiver holds an instance of an HTTP client package: its origin in its file (a field or a local
 * assigned `axios.create(…)`), or, for a name imported from a module of the package, the value that module exports.
 */
function httpInstance(head: ts.Node, sf: SourceFileNode, sources: ParsedSources): boolean {
  const o = rawOriginOf(head);
  if (o && HTTP_PACKAGE.test(o.module)) return true;
  if (!ts.isIdentifier(head)) return false;
  try {
    const d = declarationOf(wrapNode(sf, head) as IdentifierNode);
    if (!d || !d.getParent() || !Node.isImportSpecifier(d.getParent()) && !Node.isImportClause(d.getParent())) return false;
    const v = valueOfDeclaration(d, sources);
    const vo = v && valueOriginOf(v);
    return !!vo && HTTP_PACKAGE.test(vo.module);
  } catch {
    return false;
  }
}

const absorbingMemo = new WeakMap<ts.SourceFile, ReadonlySet<string>>();
/**
 * The names of a file's HTTP client instances whose response interceptor answers every failure with a value
 * (`api.interceptors.response.use((r) => r, (error) => ({ data: { error: error.message } }))`): a request on them
 * resolves whatever happens. Read once per file, from its top-level statements.
 */
function absorbingInstances(file: ts.SourceFile): ReadonlySet<string> {
  const hit = absorbingMemo.get(file);
  if (hit) return hit;
  const out = new Set<string>();
  for (const st of file.statements) {
    if (!ts.isExpressionStatement(st)) continue;
    const call = rawUnwrap(st.expression);
    if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== 'use') continue;
    const resp = rawUnwrap(call.expression.expression);
    if (!ts.isPropertyAccessExpression(resp) || resp.name.text !== 'response') continue;
    const ic = rawUnwrap(resp.expression);
    if (!ts.isPropertyAccessExpression(ic) || ic.name.text !== 'interceptors') continue;
    const inst = rawUnwrap(ic.expression);
    const h = call.arguments[1] && rawUnwrap(call.arguments[1]);
    if (ts.isIdentifier(inst) && h && answersEveryFailure(h)) out.add(inst.text);
  }
  absorbingMemo.set(file, out);
  return out;
}

/** An inline error handler that never throws and never hands back a rejection, and returns a value. */
function answersEveryFailure(h: ts.Node): boolean {
  if (!ts.isArrowFunction(h) && !ts.isFunctionExpression(h)) return false;
  if (/\bPromise\s*\.\s*reject\b|\breject\s*\(/.test(h.body.getText())) return false;
  if (!ts.isBlock(h.body)) return true;
  return throwsIn(h.body).length === 0 && returnsValue(h.body);
}

/**
 * Whether a receiver names an HTTP client instance (`const api = axios.create(…)` in its file, or imported from the
 * module that creates it) whose module registers a response interceptor answering every failure (absorbingInstances).
 */
function answersFailures(head: ts.Identifier, sf: SourceFileNode, sources: ParsedSources): boolean {
  const local = findDeclaration(head);
  if (local) return ts.isSourceFile(local.parent.parent.parent) && absorbingInstances(local.getSourceFile()).has(head.text);
  try {
    const d = declarationOf(wrapNode(sf, head) as IdentifierNode);
    if (!d || !d.getParent() || !Node.isImportSpecifier(d.getParent()) && !Node.isImportClause(d.getParent())) return false;
    const v = valueOfDeclaration(d, sources)?.compilerNode;
    const decl = v?.parent;
    if (!decl || !ts.isVariableDeclaration(decl) || !ts.isIdentifier(decl.name) || !ts.isSourceFile(decl.parent.parent.parent)) return false;
    return absorbingInstances(decl.getSourceFile()).has(decl.name.text);
  } catch {
    return false;
  }
}

/**
 * A name that stands for an HTTP client package's request function or an instance of it: bound to the package
 * (`import ky from 'ky'`, `const got = require('got')`, `import { request } from 'undici'`), or declared in its file
 * from one (`const api = ky.create({…})`, `const client = got.extend({…})`).
 */
function isHttpPackageName(id: ts.Identifier, depth = 0): boolean {
  const spec = packageOf(id);
  if (spec !== undefined) return HTTP_PACKAGE.test(spec);
  const init = findDeclaration(id)?.initializer;
  const u = init && rawUnwrap(init);
  if (!u || !ts.isCallExpression(u) || !ts.isPropertyAccessExpression(u.expression) || !['create', 'extend'].includes(u.expression.name.text)) return false;
  const root = rawUnwrap(u.expression.expression);
  return ts.isIdentifier(root) && root.text !== id.text && depth < 2 && isHttpPackageName(root, depth + 1);
}

/** `new Client(…)` (or `new sdk_1.Client(…)`) of a class a package exports. */
function isPackageInstance(init: ts.Node | undefined): boolean {
  let u = init && rawUnwrap(init);
  if (u && ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  if (!u || !ts.isNewExpression(u)) return false;
  let root: ts.Node = rawUnwrap(u.expression);
  while (ts.isPropertyAccessExpression(root)) root = rawUnwrap(root.expression);
  return ts.isIdentifier(root) && importedFromPackage(root);
}

/** A type written as a class a package exports (`Client`, `hubspot.Client`), not one of the audited source or the MCP SDK. */
function packageType(t: ts.TypeNode | undefined): boolean {
  if (!t || !ts.isTypeReferenceNode(t)) return false;
  let root: ts.Node = t.typeName;
  while (ts.isQualifiedName(root)) root = root.left;
  return ts.isIdentifier(root) && importedFromPackage(root);
}

/**
 * A receiver that holds an instance of a package's client class: `client` declared `new LinearClient(…)`,
 * `this.hubspot` assigned `new Client(…)` in its class (a field initializer or the constructor), and the
 * objects hanging from it (`this.hubspot.crm.contacts.basicApi`).
 */
function isPackageClient(recv: ts.Node): boolean {
  let base = rawUnwrap(recv);
  while (ts.isPropertyAccessExpression(base) && !(rawUnwrap(base.expression).kind === SyntaxKind.ThisKeyword)) base = rawUnwrap(base.expression);
  if (ts.isIdentifier(base)) return isPackageInstance(findDeclaration(base)?.initializer);
  if (!ts.isPropertyAccessExpression(base)) return false;
  const field = base.name.text;
  let cls: ts.Node | undefined = base.parent;
  while (cls && !ts.isClassDeclaration(cls) && !ts.isClassExpression(cls)) cls = cls.parent;
  if (!cls) return false;
  for (const m of (cls as ts.ClassLikeDeclaration).members) {
    if (ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name) && m.name.text === field && (isPackageInstance(m.initializer) || packageType(m.type))) return true;
    if (!ts.isConstructorDeclaration(m) || !m.body) continue;
    // `constructor(private readonly client: Client)`: a parameter property typed with a package's class.
    for (const prm of m.parameters) {
      if (ts.isIdentifier(prm.name) && prm.name.text === field && ts.getModifiers(prm)?.length && packageType(prm.type)) return true;
    }
    for (const st of m.body.statements) {
      if (!ts.isExpressionStatement(st) || !ts.isBinaryExpression(st.expression) || st.expression.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      const l = rawUnwrap(st.expression.left);
      if (ts.isPropertyAccessExpression(l) && l.name.text === field && rawUnwrap(l.expression).kind === SyntaxKind.ThisKeyword && isPackageInstance(st.expression.right)) return true;
    }
  }
  return false;
}

/**
 * The call an awaited or returned promise chain starts from (`x.get(…).then(…)`); undefined when the chain
 * handles a rejection itself (`.catch(…)`, `.then(ok, failed)`).
 */
function chainBase(e: ts.Node): ts.CallExpression | undefined {
  let u = rawUnwrap(e);
  while (ts.isCallExpression(u) && ts.isPropertyAccessExpression(u.expression)) {
    const n = u.expression.name.text;
    if (n === 'catch' || (n === 'then' && u.arguments.length > 1)) return undefined;
    // The body read from a request's own promise (`ky.get(url).json()`, `got(url).json()`): the request is the base.
    const bodyOfCall = BODY_READER.has(n) && u.arguments.length === 0 && ts.isCallExpression(rawUnwrap(u.expression.expression));
    if (n !== 'then' && n !== 'finally' && !bodyOfCall) break;
    u = rawUnwrap(u.expression.expression);
  }
  return ts.isCallExpression(u) ? u : undefined;
}

/** Methods reading the body of a response promise (ky's and got's). */
const BODY_READER = new Set(['json', 'text', 'blob', 'arrayBuffer', 'buffer', 'formData']);

const rejectingMemo = new WeakMap<ts.Node, boolean>();
/**
 * A function of the source that hands back a promise it rejects itself: it returns (or is, as an arrow's body)
 * `new Promise((resolve, reject) => …)` whose executor uses `reject` — calls it (on a time-out, an error frame of
 * a WebSocket) or keeps it for later (`pending.set(id, { resolve, reject })`). A request sent to a browser
 * extension or another process through such a bridge fails by that rejection.
 */
function rejectsItself(fn: FunctionLikeNode): boolean {
  const node = fn.compilerNode;
  const hit = rejectingMemo.get(node);
  if (hit !== undefined) return hit;
  const body = node.body;
  const exprs: ts.Node[] = [];
  if (body && !ts.isBlock(body)) exprs.push(body);
  // A return inside a `try` with a catch: the helper catches its own rejection (`try { return await new Promise(…) } catch (e) { return 'Error: …' }`).
  else if (body) for (const r of ownNodes(fn, (x) => ts.isReturnStatement(x) && !!x.expression)) if (!localGuard(r, node).caught) exprs.push((r as ts.ReturnStatement).expression!);
  const found = exprs.some((x) => {
    let u = rawUnwrap(x);
    if (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
    if (!ts.isNewExpression(u) || !ts.isIdentifier(u.expression) || u.expression.text !== 'Promise') return false;
    const exec = u.arguments?.[0] && rawUnwrap(u.arguments[0]);
    if (!exec || !(ts.isArrowFunction(exec) || ts.isFunctionExpression(exec))) return false;
    const rej = exec.parameters[1]?.name;
    if (!rej || !ts.isIdentifier(rej)) return false;
    let used = false;
    const visit = (cn: ts.Node, nested: boolean): void => {
      if (used || isAbortHandler(cn)) return;
      if (ts.isIdentifier(cn) && cn.text === rej.text && cn !== rej) used = upstreamRejection(cn, nested || !!exec.modifiers?.some((m) => m.kind === SyntaxKind.AsyncKeyword));
      else ts.forEachChild(cn, (c) => visit(c, nested || isNested(cn)));
    };
    visit(exec.body, false);
    return used;
  });
  rejectingMemo.set(node, found);
  return found;
}

/**
 * A function run on the client's cancellation: `signal.addEventListener('abort', …)` / `.once('abort', …)`, or
 * assigned to `signal.onabort`. Its rejection is the request's own cancellation, not an upstream failure.
 */
function isAbortHandler(cn: ts.Node): boolean {
  if (!isNested(cn)) return false;
  let top: ts.Node = cn;
  while (ts.isParenthesizedExpression(top.parent)) top = top.parent;
  const p = top.parent;
  if (ts.isBinaryExpression(p) && p.right === top && p.operatorToken.kind === SyntaxKind.EqualsToken) {
    const l = rawUnwrap(p.left);
    return ts.isPropertyAccessExpression(l) && l.name.text === 'onabort';
  }
  return ts.isCallExpression(p) && isAbortListen(p);
}

/** `x.addEventListener('abort', h)` (or `.on` / `.once`). */
const isAbortListen = (c: ts.CallExpression): boolean =>
  ts.isPropertyAccessExpression(c.expression) &&
  /^(?:addEventListener|on|once)$/.test(c.expression.name.text) &&
  !!c.arguments[0] &&
  ts.isStringLiteralLike(c.arguments[0]) &&
  c.arguments[0].text === 'abort';

/**
 * Whether a use of a promise executor's `reject` is an upstream failure: called inside a callback or event handler
 * of the executor (`exec(cmd, (err) => err ? reject(err) : …)`, a time-out) or by an async executor, or handed on
 * and kept (`pending.set(id, { resolve, reject })`, `child.on('error', reject)`). Not a synchronous call in the
 * executor's own body (a check of the arguments: `return reject(new Error('Invalid path'))`), nor a call whose error
 * speaks of the arguments, nor the client's cancellation (`reject(signal.reason)`, `signal.addEventListener('abort', reject)`).
 */
function upstreamRejection(id: ts.Identifier, nested: boolean): boolean {
  let top: ts.Node = id;
  while (ts.isParenthesizedExpression(top.parent)) top = top.parent;
  const p = top.parent;
  if (ts.isCallExpression(p) && p.expression === top) {
    const a = p.arguments[0] && rawUnwrap(p.arguments[0]);
    if (a && ts.isPropertyAccessExpression(a) && a.name.text === 'reason') return false;
    if (a && ABOUT_ARGUMENTS.test(a.getText().slice(0, 300))) return false;
    return nested;
  }
  if (ts.isCallExpression(p) && isAbortListen(p)) return false;
  return true;
}

/** The rejection handler of a `.catch(h)` / `.then(ok, h)` call whose chain is awaited or returned (else the rejection goes nowhere near the handler). */
function rejectionHandler(call: ts.CallExpression): ts.Expression | undefined {
  if (!ts.isPropertyAccessExpression(call.expression)) return undefined;
  const n = call.expression.name.text;
  const h = n === 'catch' ? call.arguments[0] : n === 'then' && call.arguments.length > 1 ? call.arguments[1] : undefined;
  if (!h) return undefined;
  let top: ts.Node = call;
  while (ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top && ts.isCallExpression(top.parent.parent)) top = top.parent.parent;
  while (ts.isParenthesizedExpression(top.parent) || ts.isAsExpression(top.parent)) top = top.parent;
  const p = top.parent;
  return ts.isAwaitExpression(p) || ts.isReturnStatement(p) || (ts.isArrowFunction(p) && p.body === top) ? h : undefined;
}

/** Whether a value is returned anywhere in a function's own body (`return null`, `return { … }`). */
function returnsValue(body: ts.Node): boolean {
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || isNested(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) found = true;
    else ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body, visit);
  return found;
}

/**
 * The execution and wrong-meaning throws that leave a low-level tools/call handler (see the file header), and
 * the upstream calls whose rejection leaves it uncaught ('upstream-failure-uncaught-in-source').
 * `tableFns`: the functions of tools the handler runs from a table (no branch names them); they are read
 * with the guard of the handler's first table dispatch. A function reached from a `catch` (a helper that
 * always throws, a `.catch(e => { throw … })` handler) is read with `fromCatch`: what it throws is that
 * catch's rethrow.
 */
export function handlerChannels(handler: FunctionLikeNode, sources: ParsedSources, tableFns: readonly FunctionLikeNode[] = [], wrapped: WrapperGuard = { guard: 'none', caught: false }): ChannelFinding[] {
  const out: ChannelFinding[] = [];
  const reported = new Set<ts.Node>();
  const seen = new Set<string>();
  const resolve = (sf: SourceFileNode, e: ts.Node) => resolveFunction(sf, e, sources);
  const throwing = new Map<ts.Node, boolean>();
  const throwingCall = (sf: SourceFileNode) => (c: ts.CallExpression): boolean => {
    if (!throwing.has(c)) {
      const f = resolve(sf, calleeOf(c));
      throwing.set(c, !!f && throwsAlways(f));
    }
    return throwing.get(c)!;
  };
  const walk = (declared: FunctionLikeNode, outer: Guard, outerCaught: boolean, depth: number, fromCatch = false, byName = false): void => {
    // A compiler's downlevel async function (`(request) => __awaiter(…, function* () { … })`, `function f(a_1) {
    // return __awaiter(this, arguments, …, function* (a) { … }) }`) does its work in the generator, where `yield` awaits.
    const gen = downlevelAsyncBody(declared, false);
    const fn = gen ?? declared;
    const key = `${fn.getSourceFile().getFilePath()}:${fn.getStart()}:${outer}:${outerCaught}:${fromCatch}:${byName}`;
    if (seen.has(key)) return;
    seen.add(key);
    const fnNode = fn.compilerNode;
    const awaited = (x: ts.Node): boolean => ts.isAwaitExpression(x) || (!!gen && ts.isYieldExpression(x) && !!x.expression);
    const sf = fn.getSourceFile();
    const isThrowingCall = throwingCall(sf);
    const test = (x: ts.Node): boolean =>
      ts.isThrowStatement(x) ||
      awaited(x) ||
      (ts.isReturnStatement(x) && !!x.expression && !awaited(rawUnwrap(x.expression))) ||
      (ts.isCallExpression(x) && (!!rejectionHandler(x) || (depth < MAX_DEPTH && mayResolveFunction(calleeOf(x)))));
    for (const cn of ownNodes(fn, test)) {
      const local = localGuard(cn, fnNode, isThrowingCall);
      const guard = stronger(outer, local.guard);
      const caught = outerCaught || local.caught;
      // The handler's own check of the tool name, thrown inside a try whose catch answers every failure with a
      // result: the unknown tool gets a result.
      if (guard === 'all' && (depth === 0 || byName) && ts.isThrowStatement(cn) && underUnknownNameCheck(cn, fnNode)) {
        reported.add(cn);
        out.push({ messageId: 'unknown-tool-result-in-source', node: wrapNode(sf, cn) });
        continue;
      }
      // A function of the source handed the tool name inside that try (`try { const r = await this.executeTool(name,
      // args); return { content: … } } catch (e) { return { …, isError: true } }`): its own unknown-name throw (the
      // `default:` of its switch on the name) gets a result too. Only that throw is read there.
      if (guard === 'all' && (depth === 0 || byName) && depth < MAX_DEPTH && ts.isCallExpression(cn) && cn.arguments.some((a) => isToolName(a) || (depth === 0 && carriesRequest(a, declared)))) {
        const callee = resolve(sf, calleeOf(cn));
        if (callee && callee !== fn && callee !== declared) walk(callee, guard, caught, depth + 1, fromCatch, true);
        continue;
      }
      if (guard === 'all') continue;
      // A rejection this function awaits or passes on: an upstream call nothing catches.
      if (awaited(cn) || ts.isReturnStatement(cn)) {
        if (caught || reported.has(cn)) continue;
        const base = chainBase((cn as ts.Node & { expression: ts.Expression }).expression);
        if (!base) continue;
        // An upstream call of a dependency, or a function of the source that rejects its own promise (a bridge's `sendRequest`).
        const own = resolve(sf, calleeOf(base));
        if (own ? !rejectsItself(own) : !isUpstreamCall(base, sf, sources)) continue;
        reported.add(cn);
        out.push({ messageId: 'upstream-failure-uncaught-in-source', node: wrapNode(sf, cn) });
        continue;
      }
      if (ts.isCallExpression(cn)) {
        // `.catch(e => { throw … })` on an awaited chain: what the handler throws is a rethrow.
        const h = rejectionHandler(cn);
        if (h) {
          const hf = isRawFunctionLike(rawUnwrap(h)) ? (wrapNode(sf, rawUnwrap(h)) as FunctionLikeNode) : resolve(sf, h);
          const body = hf?.compilerNode.body;
          if (hf && body && !returnsValue(body)) walk(hf, guard, caught, depth + 1, true);
          continue;
        }
        const callee = resolve(sf, calleeOf(cn));
        if (!callee || callee === fn || callee === declared) continue;
        // A helper that always throws, called from a catch whose try awaited: its throws are that catch's rethrows.
        const rethrows = !!local.inCatchOf && awaits(local.inCatchOf.tryBlock) && !answersSome(local.inCatchOf, isThrowingCall) && throwsAlways(callee);
        walk(callee, guard, caught, depth + 1, fromCatch || rethrows);
        continue;
      }
      const t = cn as ThrowStmt;
      if (reported.has(t)) continue;
      const pe = protocolError(t.expression);
      let messageId: ChannelFinding['messageId'] | undefined;
      const aboutArguments = ABOUT_ARGUMENTS.test(t.expression.getText().slice(0, 300));
      // A protocol error passes a catch that rethrows (or rethrows protocol errors); anything else caught is
      // reported where the catch throws, if it does.
      if (pe?.code !== undefined && OTHER_MEANING.has(pe.code)) messageId = 'wrong-meaning-code-in-source';
      else if (caught || pe?.code === URL_ELICITATION_REQUIRED) continue;
      else if (pe?.code === INTERNAL_ERROR) messageId = 'execution-error-thrown-in-source';
      else {
        // A failure an awaited call raised, thrown on from the catch that received it (or from a helper that catch calls).
        const rethrown =
          (!!local.inCatchOf && awaits(local.inCatchOf.tryBlock) && !rethrowsProtocol(t, local.inCatchOf) && !answersSome(local.inCatchOf, isThrowingCall) && !aboutArguments) ||
          (fromCatch && !local.inCatchOf && !rethrowsProtocol(t, fnNode) && !aboutArguments);
        // InvalidParams and the other protocol codes are a choice of channel; a code of the server range (-32000..-32099)
        // given to a caught upstream failure (`throw new McpError(-32000, `API error: …`)`) is the failure on the protocol channel.
        if (pe?.code !== undefined && pe.code >= -32768 && pe.code <= -32000 && !(rethrown && pe.code >= -32099)) messageId = undefined;
        else if (rethrown || underResponseCheck(t, fnNode)) messageId = 'execution-error-thrown-in-source';
      }
      if (!messageId) continue;
      reported.add(t);
      out.push({ messageId, node: wrapNode(sf, t), ...(messageId === 'wrong-meaning-code-in-source' ? { code: pe!.code! } : {}) });
    }
  };
  if (wrapped.guard === 'all') return out;
  walk(handler, wrapped.guard, wrapped.caught, 0);
  if (tableFns.length) {
    const site = ownNodes(handler, (x) => ts.isCallExpression(x) && isTableDispatch(x))[0];
    if (site) {
      const local = localGuard(site, handler.compilerNode, throwingCall(handler.getSourceFile()));
      const guard = stronger(wrapped.guard, local.guard);
      if (guard !== 'all') for (const f of tableFns) walk(f, guard, wrapped.caught || local.caught, 1);
    }
  }
  return out;
}

/**
 * 'unknown-tool-result-in-source' read from the shape of a hand-written tools/call handler, whatever the functions it
 * calls do: its body ends in a `try` (no `finally`) whose `catch` never throws (no throw, no call of a function of the
 * source that always throws) and ends in a return, and only declarations without calls, and `if` branches taken only for
 * tools they name (onlyNamedTools: a bridge's own status tool before it forwards the rest), come before that try. Every
 * name reaches the try, and whatever happens there — an unknown name thrown by a dispatcher the handler cannot see
 * (`await config.handleRequest({ name, args })`), a lookup of a missing table entry — leaves as a result: the handler
 * has no way left to answer an unknown tool with a JSON-RPC error. The catch clause is returned.
 */
export function catchesEveryName(handler: FunctionLikeNode, sources: ParsedSources): Node | undefined {
  const body = handler.compilerNode.body;
  if (!body || !ts.isBlock(body)) return undefined;
  const statements = body.statements;
  const last = statements[statements.length - 1];
  if (!last || !ts.isTryStatement(last) || !last.catchClause || last.finallyBlock) return undefined;
  const c = last.catchClause;
  const end = c.block.statements[c.block.statements.length - 1];
  if (!end || !ts.isReturnStatement(end) || !end.expression) return undefined;
  if (throwsIn(c.block).length) return undefined;
  const sf = handler.getSourceFile();
  // The catch's answer built by a function the reading cannot see (`return formatError(e)` of a dependency): it may throw.
  let answer = rawUnwrap(end.expression);
  if (ts.isAwaitExpression(answer)) answer = rawUnwrap(answer.expression);
  if (ts.isCallExpression(answer) && !resolveFunction(sf, calleeOf(answer), sources)) return undefined;
  // A helper the catch calls (`return this.handleError(e)`) may throw in its turn: only helpers read as never throwing pass.
  let unsure = false;
  const visitCatch = (cn: ts.Node): void => {
    if (unsure || isNested(cn)) return;
    if (ts.isCallExpression(cn)) {
      const f = resolveFunction(sf, calleeOf(cn), sources);
      if (f && f.compilerNode.body && throwsIn(f.compilerNode.body).length) unsure = true;
    }
    ts.forEachChild(cn, visitCatch);
  };
  visitCatch(c.block);
  if (unsure) return undefined;
  for (const st of statements.slice(0, -1)) {
    // A branch for a tool the handler answers itself (`if (name === 'status') { … return … }`, a bridge's own tool
    // before it forwards every other name): an unknown name passes it by, whatever the branch calls.
    if (ts.isIfStatement(st) && !st.elseStatement && onlyNamedTools(st.expression)) continue;
    if (!ts.isVariableStatement(st)) return undefined;
    let acts = false;
    const visit = (cn: ts.Node): void => {
      if (acts || isNested(cn)) return;
      if (ts.isCallExpression(cn) || ts.isNewExpression(cn) || ts.isAwaitExpression(cn)) acts = true;
      else ts.forEachChild(cn, visit);
    };
    visit(st);
    if (acts) return undefined;
  }
  return wrapNode(sf, c);
}

export interface WrapperGuard {
  guard: Guard;
  caught: boolean;
}

/**
 * What the wrappers a tools/call handler is registered through do with its failures
 * (`setRequestHandler(CallToolRequestSchema, withToolErrors(async (request) => …))`): the guard of the `catch`
 * clauses whose `try` calls one of the wrapper's parameters (the handler), wrappers nested inside out. No wrapper:
 * nothing guards. A wrapper that is not a function of the audited source: 'unknown' (what it catches cannot be read).
 */
export function wrapperGuard(registration: CallExpressionNode, sources: ParsedSources): WrapperGuard | 'unknown' {
  let guard: Guard = 'none';
  let caught = false;
  let arg: ts.Node | undefined = registration.compilerNode.arguments.at(-1);
  const sf = registration.getSourceFile();
  for (let depth = 0; arg && depth < 4; depth++) {
    const call = rawUnwrap(arg);
    if (!ts.isCallExpression(call)) break;
    const callee = calleeOf(call);
    // `this.handleCall.bind(this)` is the handler itself.
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'bind') break;
    const fn = resolveFunction(sf, callee, sources);
    if (!fn) return 'unknown';
    const params = new Set(fn.getParameters().map((p) => p.getName()));
    const visit = (cn: ts.Node): void => {
      if (ts.isTryStatement(cn) && cn.catchClause) {
        let callsHandler = false;
        const find = (x: ts.Node): void => {
          if (callsHandler) return;
          if (ts.isCallExpression(x)) {
            const c = calleeOf(x);
            const target = ts.isPropertyAccessExpression(c) && ['call', 'apply'].includes(c.name.text) ? rawUnwrap(c.expression) : c;
            if (ts.isIdentifier(target) && params.has(target.text)) callsHandler = true;
          }
          ts.forEachChild(x, find);
        };
        find(cn.tryBlock);
        if (callsHandler) {
          guard = stronger(guard, catchGuard(cn.catchClause));
          caught = true;
        }
      }
      ts.forEachChild(cn, visit);
    };
    const body = fn.compilerNode.body;
    if (body) visit(body);
    arg = call.arguments.find((a) => isRawFunctionLike(rawUnwrap(a)) || ts.isCallExpression(rawUnwrap(a)));
  }
  return { guard, caught };
}

/** Words of a failure in a result's text (`Error: …`, `Failed to …`, `Could not …`). */
const FAILURE_WORDS = /\b(?:error|errors|failed|failure|fails|unable|could ?n[o']t|cannot|can't)\b/i;

/**
 * A `content` that is text, not a list of blocks: a string or template literal, a concatenation with one, or
 * `await res.text()`, `x.join(…)`, `String(…)`, `JSON.stringify(…)`. The object holding it is data of the
 * package (a scraped page `{ url, content: '', error }`), not a tool result.
 */
function textContent(v: ts.Node): boolean {
  let u = rawUnwrap(v);
  if (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  if (ts.isStringLiteralLike(u) || ts.isTemplateExpression(u) || ts.isNumericLiteral(u)) return true;
  if (ts.isBinaryExpression(u) && u.operatorToken.kind === SyntaxKind.PlusToken) return textContent(u.left) || textContent(u.right);
  if (!ts.isCallExpression(u)) return false;
  const c = rawUnwrap(u.expression);
  if (ts.isIdentifier(c)) return c.text === 'String';
  return ts.isPropertyAccessExpression(c) && (['text', 'join', 'toString', 'trim'].includes(c.name.text) || c.getText() === 'JSON.stringify');
}

/**
 * The object is held by a variable to which the function that builds it gives the flag afterwards
 * (`const result = { content: […] }; result.isError = true; return result;`, `Object.assign(result, { isError: true })`):
 * the flag is set, unless it is assigned `false`.
 */
function flagAssignedLater(o: ObjectLiteralExpression): boolean {
  let decl: ts.Node = o.compilerNode;
  while (decl.parent && (ts.isParenthesizedExpression(decl.parent) || ts.isAsExpression(decl.parent) || ts.isSatisfiesExpression(decl.parent))) decl = decl.parent;
  const d = decl.parent;
  if (!d || !ts.isVariableDeclaration(d) || d.initializer !== decl || !ts.isIdentifier(d.name)) return false;
  const name = d.name.text;
  let scope: ts.Node | undefined = d.parent;
  while (scope && !ts.isFunctionLike(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
  if (!scope) return false;
  const isHolder = (e: ts.Node): boolean => {
    const u = rawUnwrap(e);
    return ts.isIdentifier(u) && u.text === name;
  };
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || (cn !== scope && isNested(cn))) return;
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind === SyntaxKind.EqualsToken) {
      const l = rawUnwrap(cn.left);
      const key = ts.isPropertyAccessExpression(l) ? l.name.text : ts.isElementAccessExpression(l) && ts.isStringLiteralLike(l.argumentExpression) ? l.argumentExpression.text : undefined;
      const target = ts.isPropertyAccessExpression(l) || ts.isElementAccessExpression(l) ? l.expression : undefined;
      if (key === 'isError' && target && isHolder(target) && rawUnwrap(cn.right).kind !== SyntaxKind.FalseKeyword) found = true;
    } else if (ts.isCallExpression(cn) && cn.expression.getText() === 'Object.assign' && cn.arguments[0] && isHolder(cn.arguments[0])) {
      if (cn.arguments.slice(1).some((a) => /\bisError\b/.test(a.getText()))) found = true;
    }
    if (!found) ts.forEachChild(cn, visit);
  };
  visit(scope);
  return found;
}

/**
 * A result object with content and no isError flag (or `isError: false`); a spread may bring the flag, so it is not judged,
 * nor an object whose `content` is text (textContent: not a result) or whose holder is given the flag later (flagAssignedLater).
 */
function unmarked(o: ObjectLiteralExpression): boolean {
  const content = propertyValue(o, 'content');
  if (!content || o.getProperties().some((p) => Node.isSpreadAssignment(p))) return false;
  if (textContent(content.compilerNode)) return false;
  const flag = propertyValue(o, 'isError');
  if (flag && rawUnwrap(flag.compilerNode).kind !== SyntaxKind.FalseKeyword) return false;
  return !flagAssignedLater(o);
}

/**
 * A result a helper of the source builds whose `isError` is one of the helper's parameters, left out by this call
 * or given `false`, with no default or a `false` one (`const text = (t, isError = false) => ({ content: […], isError })`,
 * called `return text(`Error: ${e.message}`)`): the flag is false. A flag passed as anything else is not judged.
 */
function flagDefaultsFalse(o: ObjectLiteralExpression, returned: ts.Expression, sf: SourceFileNode, sources: ParsedSources): boolean {
  let e = rawUnwrap(returned);
  if (ts.isAwaitExpression(e)) e = rawUnwrap(e.expression);
  if (!ts.isCallExpression(e) || o.getProperties().some((p) => Node.isSpreadAssignment(p))) return false;
  const flag = propertyValue(o, 'isError');
  if (!flag || !ts.isIdentifier(flag.compilerNode)) return false;
  // The object sits directly in the called helper, and its flag names one of the helper's parameters.
  let helper: ts.Node | undefined = o.compilerNode.parent;
  while (helper && !ts.isFunctionLike(helper)) helper = helper.parent;
  if (!helper || !ts.isFunctionLike(helper)) return false;
  let callee: FunctionLikeNode | undefined;
  try {
    callee = resolveFunction(sf, e.expression, sources);
  } catch {
    callee = undefined;
  }
  if (!callee || callee.compilerNode !== helper) return false;
  const name = flag.compilerNode.text;
  const params = helper.parameters;
  const i = params.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
  if (i < 0 || params[i]!.dotDotDotToken) return false;
  const arg = e.arguments[i];
  if (arg) return rawUnwrap(arg).kind === ts.SyntaxKind.FalseKeyword;
  const init = params[i]!.initializer;
  return !init || rawUnwrap(init).kind === ts.SyntaxKind.FalseKeyword;
}

const flaggedMemo = new WeakMap<ts.Node, ReadonlySet<string>>();
/**
 * The names of a function's own locals whose value it gives the `isError` flag (not `false`): `v.isError = …`,
 * `Object.assign(v, { isError … })`, or `{ ...v, isError: … }`; a rest of a destructuring of such a local
 * (`const { failed, ...answer } = v` then `{ ...answer, isError: failed }`) flags `v`. Read once per function.
 */
function flaggedLocals(fn: FunctionLikeNode): ReadonlySet<string> {
  const node = fn.compilerNode;
  const hit = flaggedMemo.get(node);
  if (hit) return hit;
  const out = new Set<string>();
  const restOf = new Map<string, string>();
  const nameOf = (e: ts.Node): string | undefined => {
    const u = rawUnwrap(e);
    return ts.isIdentifier(u) ? u.text : undefined;
  };
  // `false`, or the value's own flag handed on (`isError: result.isError`), flags nothing.
  const notFalse = (e: ts.Node | undefined): boolean => !e || (rawUnwrap(e).kind !== SyntaxKind.FalseKeyword && !/\.isError\b/.test(e.getText()));
  for (const cn of ownNodes(fn, (x) => ts.isBinaryExpression(x) || ts.isCallExpression(x) || ts.isObjectLiteralExpression(x) || ts.isVariableDeclaration(x))) {
    if (ts.isVariableDeclaration(cn) && ts.isObjectBindingPattern(cn.name) && cn.initializer) {
      const from = nameOf(cn.initializer);
      const rest = cn.name.elements.find((el) => el.dotDotDotToken && ts.isIdentifier(el.name));
      if (from && rest) restOf.set((rest.name as ts.Identifier).text, from);
    } else if (ts.isBinaryExpression(cn) && cn.operatorToken.kind === SyntaxKind.EqualsToken) {
      const l = rawUnwrap(cn.left);
      if (ts.isPropertyAccessExpression(l) && l.name.text === 'isError' && notFalse(cn.right)) {
        const n = nameOf(l.expression);
        if (n) out.add(n);
      }
    } else if (ts.isCallExpression(cn)) {
      if (cn.expression.getText() === 'Object.assign' && cn.arguments[0] && cn.arguments.slice(1).some((a) => /\bisError\b/.test(a.getText()))) {
        const n = nameOf(cn.arguments[0]);
        if (n) out.add(n);
      }
    } else if (ts.isObjectLiteralExpression(cn)) {
      const flag = cn.properties.find((p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText() === 'isError');
      if (!flag || !notFalse(ts.isPropertyAssignment(flag) ? flag.initializer : undefined)) continue;
      for (const p of cn.properties) {
        const n = ts.isSpreadAssignment(p) ? nameOf(p.expression) : undefined;
        if (n) out.add(n);
      }
    }
  }
  for (const [rest, from] of restOf) if (out.has(rest)) out.add(from);
  flaggedMemo.set(node, out);
  return out;
}

/** The value of a call (through `await`) is flagged by the function that makes it: spread into an object with `isError`, or held by a local flaggedLocals names. */
function flaggedByCaller(call: ts.CallExpression, fn: FunctionLikeNode): boolean {
  let e: ts.Node = call;
  while (e.parent && (ts.isAwaitExpression(e.parent) || ts.isParenthesizedExpression(e.parent) || ts.isAsExpression(e.parent))) e = e.parent;
  const p = e.parent;
  if (!p) return false;
  if (ts.isSpreadAssignment(p) && ts.isObjectLiteralExpression(p.parent)) {
    return p.parent.properties.some((q) => ts.isPropertyAssignment(q) && q.name.getText() === 'isError' && rawUnwrap(q.initializer).kind !== SyntaxKind.FalseKeyword && !/\.isError\b/.test(q.initializer.getText()));
  }
  return ts.isVariableDeclaration(p) && p.initializer === e && ts.isIdentifier(p.name) && flaggedLocals(fn).has(p.name.text);
}

/**
 * 'execution-error-result-unmarked-in-source': a tool reports a failure of its own work as an ordinary result —
 * a `return` in a `catch` whose `try` awaited something, speaking of the failure (the caught error, a name
 * the catch declares, or words of a failure), whose result (a literal or a helper's, read as for results) has
 * content and no `isError: true`; and 'failed-response-result-unmarked-in-source': such a return on the failure
 * branch of a check of an upstream response (failureBranch), the check's text as `check`. Read in the tool handlers given and the functions of the audited source
 * they call, up to three calls deep, whatever the API (the SDK sets no flag on a result the handler returns).
 */
export function unmarkedErrorResults(roots: readonly FunctionLikeNode[], sources: ParsedSources): ChannelFinding[] {
  const out: ChannelFinding[] = [];
  const seen = new Set<ts.Node>();
  // A return both in a catch and under a response check is reported once.
  const reportedReturns = new Set<ts.Node>();
  const visited: FunctionLikeNode[] = [];
  const visit = (fn: FunctionLikeNode, depth: number): void => {
    if (seen.has(fn.compilerNode)) return;
    seen.add(fn.compilerNode);
    visited.push(fn);
    const sf = fn.getSourceFile();
    for (const cn of ownNodes(fn, (x) => ts.isCatchClause(x) || ts.isIfStatement(x) || (depth < MAX_DEPTH && ts.isCallExpression(x)))) {
      if (ts.isCallExpression(cn)) {
        const callee = resolveFunction(sf, calleeOf(cn), sources);
        // A helper whose result the caller flags itself (`return { ...result, isError: failed }`, `shot.isError = true`)
        // answers no failure unmarked through this call.
        if (callee && callee !== fn && !flaggedByCaller(cn, fn)) visit(callee, depth + 1);
        // A callback the tool hands to a helper (`withConnection(async () => { try … catch … })`) answers for it.
        for (const a of cn.arguments) if (isRawFunctionLike(rawUnwrap(a))) visit(wrapNode(sf, rawUnwrap(a)) as FunctionLikeNode, depth + 1);
        continue;
      }
      // The failure branch of a check of an upstream response (`if (!res.ok)`, `if (response.status >= 400)`, the
      // else of `if (res.ok)` or what follows its early return): the API failed, and what the branch returns reports
      // that failure. The success branch is not read.
      let blocks: ts.Node[];
      const names: string[] = [];
      let check: string | undefined;
      if (ts.isIfStatement(cn)) {
        const branch = failureBranch(cn);
        if (!branch?.nodes.length) continue;
        blocks = branch.nodes;
        names.push(...branch.names);
        check = cn.expression.getText().replace(/\s+/g, ' ').slice(0, 80);
      } else {
        const c = cn as CatchClauseNode;
        if (!ts.isTryStatement(c.parent) || !awaits(c.parent.tryBlock)) continue;
        if (c.variableDeclaration && ts.isIdentifier(c.variableDeclaration.name)) names.push(c.variableDeclaration.name.text);
        blocks = [c.block];
      }
      const returns: ts.ReturnStatement[] = [];
      // The caught error and the responses checked: the names of the failure itself (locals are added below).
      const failed = names.length;
      // Returns of a recovery the failure path runs (a fallback request): the try block of a try inside it, or the
      // success branch of a check of another response inside it (`if (retry.ok) return …`). What such a return
      // answers is the fallback's own work, a failure only when its text says so or names the first failure.
      const recovered = new Set<ts.ReturnStatement>();
      const collect = (x: ts.Node, recovery: boolean): void => {
        if (isNested(x)) return;
        if (ts.isVariableDeclaration(x) && ts.isIdentifier(x.name)) names.push(x.name.text);
        if (ts.isReturnStatement(x) && x.expression) {
          returns.push(x);
          if (recovery) recovered.add(x);
        }
        if (ts.isTryStatement(x)) {
          collect(x.tryBlock, true);
          if (x.catchClause) collect(x.catchClause, recovery);
          if (x.finallyBlock) collect(x.finallyBlock, recovery);
          return;
        }
        if (ts.isIfStatement(x) && x !== cn) {
          const fb = failureBranch(x);
          const success = !fb ? undefined : fb.nodes.includes(x.thenStatement) ? x.elseStatement : x.thenStatement;
          if (success) {
            ts.forEachChild(x, (c) => collect(c, recovery || c === success));
            return;
          }
        }
        ts.forEachChild(x, (c) => collect(c, recovery));
      };
      for (const block of blocks) {
        if (ts.isBlock(block)) ts.forEachChild(block, (c) => collect(c, false));
        else collect(block, false);
      }
      const mentions = (text: string, ns: readonly string[]): boolean => ns.some((n) => new RegExp(`(?:^|[^\\w$])${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(text));
      const speaksOfFailure = (text: string, r: ts.ReturnStatement): boolean => FAILURE_WORDS.test(text) || mentions(text, recovered.has(r) ? names.slice(0, failed) : names);
      for (const r of returns) {
        if (!speaksOfFailure(r.expression!.getText(), r)) continue;
        let objs: ObjectLiteralExpression[];
        try {
          // A call of the function itself (a retry: `return scrapeWithRetry(url, attempt + 1)`) answers nothing yet.
          objs = objectsOfResult(wrapNode(sf, r.expression!), sources, 0, new Set(), fn);
        } catch {
          objs = [];
        }
        if (reportedReturns.has(r)) continue;
        if (objs.length && objs.every((o) => unmarked(o) || flagDefaultsFalse(o, r.expression!, sf, sources))) {
          reportedReturns.add(r);
          out.push(check === undefined ? { messageId: 'execution-error-result-unmarked-in-source', node: wrapNode(sf, r) } : { messageId: 'failed-response-result-unmarked-in-source', node: wrapNode(sf, r), check });
        }
      }
    }
  };
  for (const f of roots) visit(f, 0);
  out.push(...errorDataThroughResults(visited, sources));
  return out;
}

/** A data object a function hands back for a failure: `{ success: false, error }`, `{ ok: false, … }`, or one with an `error` / `errors` key. */
const ERROR_KEY = /^(?:error|errors)$/;

/**
 * Failure data a catch returns (`catch (e) { return { success: false, error: e.message }; }`): an object literal
 * with no `content` (not a result) and no spread, with `success` or `ok` given `false`, or an `error` / `errors` key
 * given `true` or a value that speaks of the caught error (its name) or of a failure. Without `success`/`ok: false`,
 * an object that also carries another boolean-literal key (`valid`, `connected`, `reachable`…) is a verdict, not a
 * failure.
 */
function failureData(o: ts.Expression, caught: string | undefined): boolean {
  const u = rawUnwrap(o);
  if (!ts.isObjectLiteralExpression(u) || u.properties.some((p) => ts.isSpreadAssignment(p))) return false;
  const named = (p: ts.ObjectLiteralElementLike, re: RegExp): p is ts.PropertyAssignment | ShorthandProp =>
    (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && !!p.name && re.test(p.name.getText().replace(/^['"]|['"]$/g, ''));
  if (u.properties.some((p) => named(p, /^(?:content|isError)$/))) return false;
  const flag = (p: ts.ObjectLiteralElementLike): boolean => ts.isPropertyAssignment(p) && [SyntaxKind.TrueKeyword, SyntaxKind.FalseKeyword].includes(rawUnwrap(p.initializer).kind);
  const failedFlag = u.properties.some((p) => named(p, /^(?:success|ok)$/) && ts.isPropertyAssignment(p) && rawUnwrap(p.initializer).kind === SyntaxKind.FalseKeyword);
  if (failedFlag) return true;
  // An answer that is a verdict (`{ valid: false, errors: [e.message] }`, `{ connected: false, error: e.message }`):
  // a boolean-literal key other than success/ok says what the tool found; its error is part of that finding.
  if (u.properties.some((p) => flag(p) && !named(p, /^(?:success|ok)$/) && !named(p, ERROR_KEY))) return false;
  for (const p of u.properties) {
    if (!named(p, ERROR_KEY)) continue;
    if (ts.isPropertyAssignment(p) && rawUnwrap(p.initializer).kind === SyntaxKind.TrueKeyword) return true;
    const text = ts.isPropertyAssignment(p) ? p.initializer.getText() : (p as ShorthandProp).name.getText();
    if (FAILURE_WORDS.test(text) || (caught && new RegExp(`(?:^|[^\\w$])${caught.replace(/\$/g, '\\$')}(?![\\w$])`).test(text))) return true;
  }
  return false;
}

/**
 * The functions whose value a call stands for: the function of the source it calls, or, when it calls a parameter
 * of the function holding it or of one around it (`createHandler(name, …, handler)` whose callback runs
 * `await handler(args)`), the functions the callers of that function pass for the parameter (by name: callersOf).
 */
function producersOf(call: ts.CallExpression, fn: FunctionLikeNode, sources: ParsedSources): FunctionLikeNode[] {
  const sf = fn.getSourceFile();
  const direct = resolveFunction(sf, calleeOf(call), sources);
  if (direct) return direct === fn ? [] : [direct];
  const callee = rawUnwrap(call.expression);
  if (!ts.isIdentifier(callee)) return [];
  for (let p: ts.Node | undefined = fn.compilerNode; p && !ts.isSourceFile(p); p = p.parent) {
    if (!isRawFunctionLike(p)) continue;
    const i = (p as SignatureNode).parameters.findIndex((q: import('ts-morph').ts.ParameterDeclaration) => ts.isIdentifier(q.name) && q.name.text === callee.text);
    if (i < 0) continue;
    if ((p as SignatureNode).parameters[i]!.dotDotDotToken) return [];
    const out: FunctionLikeNode[] = [];
    for (const site of callersOf(wrapNode(sf, p), modelFiles(sources))) {
      const arg = site.node.getArguments()[i];
      if (!arg) continue;
      let g: FunctionLikeNode | undefined;
      try {
        g = functionOf(arg, sources);
      } catch {
        g = undefined;
      }
      if (g && g !== fn && !out.includes(g)) out.push(g);
    }
    return out;
  }
  return [];
}

/**
 * 'execution-error-data-unmarked-in-source': a tool's function puts the value another function gives back into
 * its result's text (`const result = await handler(args); return { content: [{ type: 'text', text: JSON.stringify(result) }] }`,
 * no `isError`), without looking at that value's failure fields (`result.success`, `result.error`…), and that other
 * function's `catch` hands back the failure as data (failureData: `{ success: false, error: e.message }`): the
 * failure reaches the client as an ordinary result. Read for the functions the tools/call reading went through
 * (roots and the helpers they call), once each; the producer's own catches only.
 */
function errorDataThroughResults(fns: readonly FunctionLikeNode[], sources: ParsedSources): ChannelFinding[] {
  const out: ChannelFinding[] = [];
  const reported = new Set<ts.Node>();
  for (const fn of fns) {
    const sf = fn.getSourceFile();
    const body = fn.compilerNode.getText();
    // The locals a call's value fills (`const result = await handler(args)`), by name.
    const filled = new Map<string, ts.CallExpression>();
    for (const d of ownNodes(fn, (x) => ts.isVariableDeclaration(x) && ts.isIdentifier(x.name) && !!x.initializer)) {
      const decl = d as ts.VariableDeclaration;
      let init = rawUnwrap(decl.initializer!);
      if (ts.isAwaitExpression(init)) init = rawUnwrap(init.expression);
      if (ts.isCallExpression(init)) filled.set((decl.name as ts.Identifier).text, init);
    }
    if (!filled.size) continue;
    const checked = checkedLocals(fn);
    for (const r of ownNodes(fn, (x) => ts.isReturnStatement(x) && !!x.expression)) {
      const e = rawUnwrap((r as ts.ReturnStatement).expression!);
      if (!ts.isObjectLiteralExpression(e)) continue;
      const o = wrapNode(sf, e) as ObjectLiteralExpression;
      if (!unmarked(o)) continue;
      const content = propertyValue(o, 'content')!.getText();
      for (const [name, call] of filled) {
        const ref = new RegExp(`(?:^|[^\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
        if (!ref.test(content)) continue;
        // The value's failure fields looked at by the function itself (`result.success`, `'error' in result`, a
        // destructuring `const { success } = result`): what it does with them is its own reading.
        if (new RegExp(`(?:^|[^\\w$.])${name.replace(/\$/g, '\\$')}\\s*(?:\\?\\.|\\.|\\[)\\s*['"]?(?:success|ok|error|errors|isError|failed|status)\\b|\\bin\\s+${name.replace(/\$/g, '\\$')}\\b|\\}\\s*=\\s*${name.replace(/\$/g, '\\$')}\\b`).test(body)) continue;
        // The value handed to a call in a test (`if (failed(result)) return { isError: true, … }`), or a result marked
        // `isError: true` that hangs on it: the function checks it through a helper.
        if (checked.has(name)) continue;
        for (const g of producersOf(call, fn, sources)) {
          for (const c of ownNodes(g, (x) => ts.isCatchClause(x))) {
            const cc = c as CatchClauseNode;
            if (!ts.isTryStatement(cc.parent) || !awaits(cc.parent.tryBlock)) continue;
            const caught = cc.variableDeclaration && ts.isIdentifier(cc.variableDeclaration.name) ? cc.variableDeclaration.name.text : undefined;
            const last = cc.block.statements[cc.block.statements.length - 1];
            if (!last || !ts.isReturnStatement(last) || !last.expression || reported.has(last)) continue;
            if (!failureData(last.expression, caught)) continue;
            reported.add(last);
            out.push({ messageId: 'execution-error-data-unmarked-in-source', node: wrapNode(g.getSourceFile(), last) });
          }
        }
      }
    }
  }
  return out;
}

/**
 * The locals a function checks itself beyond reading their fields: one handed to a call of its own helpers in the test
 * of an `if` or a `? :` (`if (failed(result))`, `isFailure(r) ? … : …`; not a builtin's `Array.isArray(r)`,
 * `JSON.stringify(r)`), and one a test mentions
 * when a result marked `isError: true` sits under that test, or that an `isError` value names
 * (`isError: !isOk(result)`). Gathered once per function, by name.
 */
const BUILTIN_CALL = /^(?:(?:Array|JSON|Object|Number|String|Math|Reflect|console)\.\w+|String|Number|Boolean|Array)$/;
function checkedLocals(fn: FunctionLikeNode): Set<string> {
  const out = new Set<string>();
  const idsIn = (n: ts.Node, argsOnly: boolean): void => {
    const visit = (x: ts.Node): void => {
      if (isRawFunctionLike(x)) return;
      if (argsOnly) {
        if (ts.isCallExpression(x) && !BUILTIN_CALL.test(rawUnwrap(x.expression).getText())) for (const a of x.arguments) { const u = rawUnwrap(a); if (ts.isIdentifier(u)) out.add(u.text); }
      } else if (ts.isIdentifier(x) && !(ts.isPropertyAccessExpression(x.parent) && x.parent.name === x)) out.add(x.text);
      ts.forEachChild(x, visit);
    };
    visit(n);
  };
  const marksError = (n: ts.Node): boolean => {
    let hit = false;
    const visit = (x: ts.Node): void => {
      if (hit || isRawFunctionLike(x)) return;
      if (ts.isPropertyAssignment(x) && ts.isIdentifier(x.name) && x.name.text === 'isError' && rawUnwrap(x.initializer).kind === SyntaxKind.TrueKeyword) hit = true;
      else ts.forEachChild(x, visit);
    };
    visit(n);
    return hit;
  };
  for (const x of ownNodes(fn, (c) => ts.isIfStatement(c) || ts.isConditionalExpression(c) || (ts.isPropertyAssignment(c) && ts.isIdentifier(c.name) && c.name.text === 'isError'))) {
    if (ts.isPropertyAssignment(x)) {
      if (rawUnwrap(x.initializer).kind !== SyntaxKind.TrueKeyword) idsIn(x.initializer, false);
      continue;
    }
    const test = ts.isIfStatement(x) ? x.expression : (x as import('ts-morph').ts.ConditionalExpression).condition;
    idsIn(test, true);
    const branches = ts.isIfStatement(x) ? [x.thenStatement, x.elseStatement] : [(x as import('ts-morph').ts.ConditionalExpression).whenTrue, (x as import('ts-morph').ts.ConditionalExpression).whenFalse];
    if (branches.some((b) => b && marksError(b))) idsIn(test, false);
  }
  return out;
}

/** Keys under which a tool definition carries the function that runs it, as a dispatching handler calls it (`tool.cb(args)`). */
const TABLE_FN_KEY = /^(?:handler|execute|run|handle|callback|fn|call|invoke|impl|cb)$/;
/** Keys that make an object literal a tool definition (beside its function). */
const TOOL_DEF_KEY = /^(?:inputSchema|schema|parameters|paramsSchema|input_schema)$/;
/** A route of a web framework (`{ method: 'GET', url: '/notes', schema, handler }`, Fastify's shape), not a tool definition. */
const isRoute = (o: ts.ObjectLiteralExpression): boolean => ['method', 'url'].every((k) => o.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === k));

const defsMemo = new WeakMap<ts.SourceFile, readonly { key: string; fn: ts.Node }[]>();
/** Functions tool definitions of a file carry (`{ operation, inputSchema, cb: async (…) => … }`, a tool class's `execute` method), with their key: read once per file. */
function toolDefinitionFunctions(file: ts.SourceFile): readonly { key: string; fn: ts.Node }[] {
  const hit = defsMemo.get(file);
  if (hit) return hit;
  const out: { key: string; fn: ts.Node }[] = [];
  const visit = (cn: ts.Node): void => {
    if (ts.isObjectLiteralExpression(cn) && cn.properties.some((p) => p.name && TOOL_DEF_KEY.test(p.name.getText())) && !isRoute(cn)) {
      for (const p of cn.properties) {
        const key = p.name && ts.isIdentifier(p.name) ? p.name.text : undefined;
        if (!key || !TABLE_FN_KEY.test(key)) continue;
        if (ts.isMethodDeclaration(p)) out.push({ key, fn: p });
        else if (ts.isPropertyAssignment(p) && isRawFunctionLike(rawUnwrap(p.initializer))) out.push({ key, fn: rawUnwrap(p.initializer) });
      }
    }
    // A tool class: a schema field or getter beside the method that runs it (`inputSchema = …; async execute(args) {…}`).
    if (ts.isClassLike(cn) && cn.members.some((m) => (ts.isPropertyDeclaration(m) || ts.isGetAccessorDeclaration(m)) && m.name && TOOL_DEF_KEY.test(m.name.getText()))) {
      for (const m of cn.members) {
        const key = m.name && ts.isIdentifier(m.name) ? m.name.text : undefined;
        if (!key || !TABLE_FN_KEY.test(key)) continue;
        if (ts.isMethodDeclaration(m) && m.body) out.push({ key, fn: m });
        else if (ts.isPropertyDeclaration(m) && m.initializer && isRawFunctionLike(rawUnwrap(m.initializer))) out.push({ key, fn: rawUnwrap(m.initializer) });
      }
    }
    ts.forEachChild(cn, visit);
  };
  visit(file);
  defsMemo.set(file, out);
  return out;
}

/** Calls that look an entry up in a collection (`tools.find(…)`, `registry.get(name)`, `tools.filter(…)[0]`). */
const LOOKUP = new Set(['find', 'get', 'filter', 'at', 'findLast']);
/** Calls whose callback receives each entry of a collection (`tools.forEach((tool) => …)`). */
const EACH = new Set(['forEach', 'map', 'flatMap']);

/** The collection an expression looks an entry up in (`tools[name]`, `registry.get(name)`, `tools.find(…)`), if it is such a lookup. */
function lookedUpIn(e: ts.Node): ts.Expression | undefined {
  let u = rawUnwrap(e);
  while (ts.isAwaitExpression(u) || ts.isNonNullExpression(u)) u = rawUnwrap(u.expression);
  if (ts.isElementAccessExpression(u)) {
    const inner = rawUnwrap(u.expression);
    return (ts.isCallExpression(inner) && lookedUpIn(inner)) || u.expression;
  }
  if (ts.isCallExpression(u)) {
    const c = rawUnwrap(u.expression);
    if (ts.isPropertyAccessExpression(c) && LOOKUP.has(c.name.text)) return c.expression;
  }
  return undefined;
}

/** A module loaded by a name computed at run time (`await import(\`./ops/${op}.js\`)`, `require(file)`): an entry of the folder, which the reading does not follow. */
function loadedByName(e: ts.Node): ts.Expression | undefined {
  let u = rawUnwrap(e);
  while (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  if (!ts.isCallExpression(u) || !u.arguments[0] || ts.isStringLiteralLike(u.arguments[0])) return undefined;
  const c = u.expression;
  return c.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c) && c.text === 'require') ? u : undefined;
}

/**
 * The collection a table function's receiver is an entry of (null when it is not one): a lookup (lookedUpIn), a
 * variable holding one (`const tool = tools.find((t) => t.name === name)`) or a module loaded by name (loadedByName), the variable of a `for…of` over the
 * collection, or the parameter of a callback handed to `tools.forEach(…)`/`map`. A receiver made by a package
 * (`mysql.createPool(…)`'s `pool.execute`, LangChain's `model.invoke`) or any other value is none.
 */
function collectionOfReceiver(recv: ts.Node): ts.Expression | null {
  const direct = lookedUpIn(recv);
  if (direct) return direct;
  const r = rawUnwrap(recv);
  if (!ts.isIdentifier(r)) return null;
  const o = rawOriginOf(r);
  if (o && o.module !== GLOBAL && !o.module.startsWith('.')) return null;
  const d = rawDeclarationOf(r);
  if (!d) return null;
  let decl: ts.Node = d.parent;
  while (ts.isBindingElement(decl) || ts.isObjectBindingPattern(decl) || ts.isArrayBindingPattern(decl)) decl = decl.parent;
  if (ts.isVariableDeclaration(decl)) {
    if (decl.initializer) return lookedUpIn(decl.initializer) ?? loadedByName(decl.initializer) ?? null;
    const stmt = decl.parent?.parent;
    return stmt && ts.isForOfStatement(stmt) ? stmt.expression : null;
  }
  if (ts.isParameter(decl)) {
    const f = decl.parent;
    const call = f?.parent;
    if (call && ts.isCallExpression(call) && call.arguments.includes(f as ts.Expression)) {
      const c = rawUnwrap(call.expression);
      if (ts.isPropertyAccessExpression(c) && EACH.has(c.name.text)) return c.expression;
    }
  }
  return null;
}

/**
 * The keys of table functions a tool handler runs without the reading knowing which (`const result = await
 * subtool.cb(params)`, the table built at run time) and whose value it hands back as an ordinary result
 * (`return { content: [{ type: 'text', text: JSON.stringify(result) }] }`, no `isError`), never testing it first
 * (no `if`, conditional or `isError` speaks of it). Only receivers that are entries of a collection count
 * (collectionOfReceiver), each key with the collections it is looked up in.
 */
function wrappedTableKeys(fn: FunctionLikeNode, sources: ParsedSources): { key: string; collection: ts.Expression; sf: SourceFileNode }[] {
  const keys: { key: string; collection: ts.Expression; sf: SourceFileNode }[] = [];
  const sf = fn.getSourceFile();
  for (const cn of ownNodes(fn, ts.isCallExpression)) {
    const c = calleeOf(cn as ts.CallExpression);
    if (!ts.isPropertyAccessExpression(c) || !TABLE_FN_KEY.test(c.name.text)) continue;
    if (resolveFunction(sf, c, sources)) continue;
    const collection = collectionOfReceiver(c.expression);
    if (!collection) continue;
    let e: ts.Node = cn;
    while (e.parent && (ts.isAwaitExpression(e.parent) || ts.isParenthesizedExpression(e.parent))) e = e.parent;
    const d = e.parent;
    if (!d || !ts.isVariableDeclaration(d) || d.initializer !== e || !ts.isIdentifier(d.name)) continue;
    const v = d.name.text;
    const re = new RegExp(`(?:^|[^\\w$.])${v.replace(/\$/g, '\\$')}(?![\\w$])`);
    let tested = flaggedLocals(fn).has(v);
    let wraps = false;
    for (const x of ownNodes(fn, (y) => ts.isIfStatement(y) || ts.isConditionalExpression(y) || ts.isReturnStatement(y) || ts.isPropertyAssignment(y))) {
      if (tested) break;
      if (ts.isIfStatement(x)) tested = re.test(x.expression.getText());
      else if (ts.isConditionalExpression(x)) tested = re.test(x.condition.getText());
      else if (ts.isPropertyAssignment(x)) tested = x.name.getText() === 'isError' && re.test(x.initializer.getText());
      else if (ts.isReturnStatement(x) && x.expression && x.getStart() > cn.getStart()) {
        const o = rawUnwrap(x.expression);
        if (ts.isObjectLiteralExpression(o) && re.test(o.getText()) && unmarked(wrapNode(sf, o) as ObjectLiteralExpression)) wraps = true;
      }
    }
    if (wraps && !tested) keys.push({ key: c.name.text, collection, sf });
  }
  return keys;
}

/**
 * What a collection holds, when the source spells it (`export const tools = [getNote, { name, inputSchema, handler }]`,
 * imported or local): the literal and the names it mentions; undefined when it cannot be read (a parameter, a Map
 * filled at run time), and then every definition of the source is taken.
 */
function collectionLiteral(collection: ts.Expression, sf: SourceFileNode, sources: ParsedSources): { node: ts.Node; names: Set<string> } | undefined {
  const e = rawUnwrap(collection);
  if (!ts.isIdentifier(e)) return undefined;
  try {
    const d = declarationOf(wrapNode(sf, e) as IdentifierNode);
    const v = d && valueOfDeclaration(d, sources);
    if (!v) return undefined;
    let lit: ts.Node = rawUnwrap(v.compilerNode);
    if (ts.isNewExpression(lit) && lit.arguments?.[0]) lit = rawUnwrap(lit.arguments[0]);
    if (!ts.isArrayLiteralExpression(lit) && !ts.isObjectLiteralExpression(lit)) return undefined;
    const names = new Set<string>();
    const visit = (x: ts.Node): void => {
      if (ts.isIdentifier(x)) names.add(x.text);
      ts.forEachChild(x, visit);
    };
    visit(lit);
    return { node: lit, names };
  } catch {
    return undefined;
  }
}

/** Whether a definition's function belongs to a collection's literal: written in it, or held by a variable or class it names. */
function inCollection(fn: ts.Node, lit: { node: ts.Node; names: Set<string> }): boolean {
  if (fn.getSourceFile() === lit.node.getSourceFile() && fn.pos >= lit.node.pos && fn.end <= lit.node.end) return true;
  for (let p: ts.Node | undefined = fn.parent; p && !ts.isSourceFile(p); p = p.parent) {
    if ((ts.isVariableDeclaration(p) || ts.isClassLike(p)) && p.name && ts.isIdentifier(p.name) && lit.names.has(p.name.text)) return true;
    if (ts.isFunctionLike(p) && p !== fn && !ts.isMethodDeclaration(p)) return false;
  }
  return false;
}

/**
 * 'execution-error-result-unmarked-in-source' through a table of tool definitions: a tool handler runs the
 * definition's function without the reading knowing which (wrappedTableKeys) and answers what it gives back as an
 * ordinary result; a definition's function of that key whose `catch` (its `try` awaited something) returns text or
 * an object speaking of the failure (`return \`Failed to install the extension. Error: ${message}\``) reaches the
 * client as the tool's output. Tool definitions are read once per file (toolDefinitionFunctions). `unread`: the
 * handler wraps such values, and no definition of that key is in the source (a table of a dependency).
 */
export function unmarkedThroughTables(handlers: readonly FunctionLikeNode[], files: readonly SourceFileNode[], sources: ParsedSources): { findings: ChannelFinding[]; unread: boolean } {
  // Each key with the literals of the collections it is looked up in; null: one of them cannot be read (every definition counts).
  const keys = new Map<string, { node: ts.Node; names: Set<string> }[] | null>();
  for (const h of handlers) {
    for (const k of wrappedTableKeys(h, sources)) {
      const lit = collectionLiteral(k.collection, k.sf, sources);
      const had = keys.get(k.key);
      if (had === null) continue;
      keys.set(k.key, lit ? [...(had ?? []), lit] : null);
    }
  }
  if (!keys.size) return { findings: [], unread: false };
  const out: ChannelFinding[] = [];
  let defs = 0;
  for (const file of files) {
    for (const def of toolDefinitionFunctions(file.compilerNode)) {
      if (!keys.has(def.key)) continue;
      // Only the definitions of the collection the handler looks the tool up in (not a prompt table's, nor a route's).
      const lits = keys.get(def.key);
      if (lits && !lits.some((l) => inCollection(def.fn, l))) continue;
      defs++;
      const fn = wrapNode(file, def.fn) as FunctionLikeNode;
      for (const c of ownNodes(fn, ts.isCatchClause) as CatchClauseNode[]) {
        if (!ts.isTryStatement(c.parent) || !awaits(c.parent.tryBlock)) continue;
        const names: string[] = [];
        if (c.variableDeclaration && ts.isIdentifier(c.variableDeclaration.name)) names.push(c.variableDeclaration.name.text);
        const returns: ts.ReturnStatement[] = [];
        const collect = (x: ts.Node): void => {
          if (isNested(x)) return;
          if (ts.isVariableDeclaration(x) && ts.isIdentifier(x.name)) names.push(x.name.text);
          if (ts.isReturnStatement(x) && x.expression) returns.push(x);
          ts.forEachChild(x, collect);
        };
        ts.forEachChild(c.block, collect);
        for (const r of returns) {
          const u = rawUnwrap(r.expression!);
          const text = u.getText();
          const speaks = FAILURE_WORDS.test(text) || names.some((n) => new RegExp(`(?:^|[^\\w$])${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(text));
          // Text, or an object that is not itself a flagged result.
          const answer = textContent(u) || (ts.isObjectLiteralExpression(u) && !/\bisError\b/.test(text));
          if (speaks && answer) out.push({ messageId: 'execution-error-result-unmarked-in-source', node: wrapNode(file, r) });
        }
      }
    }
  }
  // The handler wraps what the table's functions give back, and none of them is in the source: their failures are not read.
  return { findings: out, unread: defs === 0 };
}

/** A catch that answers some failures with a result (`if (isAxiosError(e)) return { …, isError: true }`): what it rethrows is what its author kept apart. `return fail(e)` of a helper that always throws answers nothing. */
function answersSome(tryStmt: TryStmt, isThrowingCall?: (c: ts.CallExpression) => boolean): boolean {
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || isNested(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) {
      const e = rawUnwrap(cn.expression);
      const call = ts.isAwaitExpression(e) ? rawUnwrap(e.expression) : e;
      if (!(isThrowingCall && ts.isCallExpression(call) && isThrowingCall(call))) found = true;
    } else ts.forEachChild(cn, visit);
  };
  if (tryStmt.catchClause) visit(tryStmt.catchClause.block);
  return found;
}

/** `if (e instanceof McpError) throw e;` in a catch (or in a helper it calls): a protocol error passed on, not a failure of the tool. */
function rethrowsProtocol(t: ThrowStmt, upTo: ts.Node): boolean {
  for (let p = t.parent; p && p !== upTo; p = p.parent) if (ts.isIfStatement(p) && mentionsProtocolError(p.expression)) return true;
  return false;
}
