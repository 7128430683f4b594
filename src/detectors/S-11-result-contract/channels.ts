import { Node, SyntaxKind, ts } from '../../facts/morph.js';
import { functionOf, mayResolveFunction, type FunctionLikeNode } from '../../facts/scope.js';
import { rawUnwrap, wrapNode, type ParsedSources } from '../../facts/ts-source.js';
import { OTHER_MEANING } from './dynamic.js';

type ThrowStmt = import('ts-morph').ts.ThrowStatement;
type TryStmt = import('ts-morph').ts.TryStatement;
type CatchClauseNode = import('ts-morph').ts.CatchClause;

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
 *     upstream call failed) and which answers no failure with a result, or a throw under a check of an HTTP
 *     response (`!res.ok`, `res.status …`);
 *   - 'wrong-meaning-code-in-source': a protocol error built with a code JSON-RPC defines for another failure
 *     of the request itself — -32601 MethodNotFound (tools/call exists), -32600 InvalidRequest, -32700
 *     ParseError — typically for an unknown tool name;
 *   - 'unknown-tool-result-in-source': the handler's own unknown-name throw (a `default:`, `name !== 'x'`, `!tool`)
 *     sits in a `try` whose `catch` answers every failure with a result, so the unknown tool gets a result.
 * High-level handlers (McpServer.tool / registerTool, FastMCP) are not read here: the SDK catches what they
 * throw and answers an isError result.
 */

export interface ChannelFinding {
  messageId: 'execution-error-thrown-in-source' | 'wrong-meaning-code-in-source' | 'unknown-tool-result-in-source';
  node: Node;
  code?: number;
}

export const ERROR_CTOR = /(?:^|\.)(?:McpError|ProtocolError|JSONRPCError|JsonRpcError|RpcError)$/;

const NAMED_CODES: Readonly<Record<string, number>> = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
};
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
  if (!ERROR_CTOR.test(name)) return undefined;
  const code = codeOf(u.arguments?.[0]);
  return code === undefined ? {} : { code };
}

const mentionsProtocolError = (cn: ts.Node): boolean => /\b(?:McpError|ProtocolError|JSONRPCError|ErrorCode)\b/.test(cn.getText());

/** Throw statements directly in a block (nested functions left out), each with whether a condition stands between it and the block. */
function throwsIn(block: ts.Node): { node: ThrowStmt; conditional: boolean; protocolGuard: boolean }[] {
  const out: { node: ThrowStmt; conditional: boolean; protocolGuard: boolean }[] = [];
  const visit = (cn: ts.Node, conditional: boolean, protocolGuard: boolean): void => {
    if (isNested(cn)) return;
    if (ts.isThrowStatement(cn)) out.push({ node: cn, conditional, protocolGuard });
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

/** What a catch clause lets through: nothing when it never throws, protocol errors when it rethrows only those. */
function catchGuard(c: CatchClauseNode): Guard {
  const ts_ = throwsIn(c.block);
  if (!ts_.length) return 'all';
  if (ts_.some((t) => !t.conditional)) return 'none';
  return ts_.some((t) => t.protocolGuard) ? 'protocol' : 'all';
}

const stronger = (a: Guard, b: Guard): Guard => (a === 'all' || b === 'all' ? 'all' : a === 'protocol' || b === 'protocol' ? 'protocol' : 'none');

/**
 * The guard the `try` blocks of `fn` around `cn` put on it, whether one of them has a catch (what `cn` throws
 * is then reported where that catch throws, if it does), and the innermost catch clause `cn` sits in (with its try).
 */
function localGuard(cn: ts.Node, fnNode: ts.Node): { guard: Guard; caught: boolean; inCatchOf?: TryStmt } {
  let guard: Guard = 'none';
  let caught = false;
  let inCatchOf: TryStmt | undefined;
  let child = cn;
  for (let p = cn.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (ts.isTryStatement(p) && child === p.tryBlock && p.catchClause) {
      guard = stronger(guard, catchGuard(p.catchClause));
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
 * A throw in the `default:` of a switch on the tool name, or in the then-branch of an `if` that finds the tool name
 * unknown: `name !== 'query'`, or `!tool` / `!handler` where that value was looked up by name (`tools.find(…)`,
 * `handlers[name]`, `map.get(name)`).
 */
function underUnknownNameCheck(t: ThrowStmt, fnNode: ts.Node): boolean {
  let child: ts.Node = t;
  for (let p = t.parent; p && p !== fnNode; child = p, p = p.parent) {
    // `default:` of a switch on the tool name
    if (ts.isDefaultClause(p)) return ts.isSwitchStatement(p.parent.parent) && isToolName(p.parent.parent.expression);
    if (!ts.isIfStatement(p) || child !== p.thenStatement) continue;
    let hit = false;
    const visit = (cn: ts.Node): void => {
      if (hit) return;
      if (ts.isBinaryExpression(cn) && [SyntaxKind.ExclamationEqualsEqualsToken, SyntaxKind.ExclamationEqualsToken].includes(cn.operatorToken.kind)) {
        const [l, r] = [rawUnwrap(cn.left), rawUnwrap(cn.right)];
        if ((isToolName(l) && ts.isStringLiteralLike(r)) || (isToolName(r) && ts.isStringLiteralLike(l))) hit = true;
      } else if (ts.isPrefixUnaryExpression(cn) && cn.operator === SyntaxKind.ExclamationToken && ts.isIdentifier(rawUnwrap(cn.operand))) {
        const init = findDeclaration(rawUnwrap(cn.operand) as ts.Identifier)?.initializer;
        const u = init && rawUnwrap(init);
        if (u && (ts.isElementAccessExpression(u) || (ts.isCallExpression(u) && ts.isPropertyAccessExpression(u.expression) && ['find', 'get'].includes(u.expression.name.text)))) hit = true;
      }
      if (!hit) ts.forEachChild(cn, visit);
    };
    visit(p.expression);
    return hit;
  }
  return false;
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

/** A throw in the then-branch of an `if` that checks an HTTP response: `!res.ok`, `res.status >= 400`, `response.statusCode !== 200`. */
function underResponseCheck(t: ThrowStmt, fnNode: ts.Node): boolean {
  let child: ts.Node = t;
  for (let p = t.parent; p && p !== fnNode; child = p, p = p.parent) {
    if (ts.isIfStatement(p) && child === p.thenStatement) {
      let hit = false;
      const visit = (cn: ts.Node): void => {
        if (hit) return;
        if (ts.isPropertyAccessExpression(cn) && (cn.name.text === 'ok' || (['status', 'statusCode'].includes(cn.name.text) && isResponse(cn.expression)))) hit = true;
        else ts.forEachChild(cn, visit);
      };
      visit(p.expression);
      return hit;
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

/**
 * The execution and wrong-meaning throws that leave a low-level tools/call handler (see the file header).
 * `tableFns`: the functions of tools the handler runs from a table (no branch names them); they are read
 * with the guard of the handler's first table dispatch.
 */
export function handlerChannels(handler: FunctionLikeNode, sources: ParsedSources, tableFns: readonly FunctionLikeNode[] = []): ChannelFinding[] {
  const out: ChannelFinding[] = [];
  const reported = new Set<ts.Node>();
  const seen = new Set<string>();
  const walk = (fn: FunctionLikeNode, outer: Guard, outerCaught: boolean, depth: number): void => {
    const key = `${fn.getSourceFile().getFilePath()}:${fn.getStart()}:${outer}:${outerCaught}`;
    if (seen.has(key)) return;
    seen.add(key);
    const fnNode = fn.compilerNode;
    const sf = fn.getSourceFile();
    for (const cn of ownNodes(fn, (x) => ts.isThrowStatement(x) || (depth < MAX_DEPTH && ts.isCallExpression(x) && mayResolveFunction(x.expression)))) {
      const local = localGuard(cn, fnNode);
      const guard = stronger(outer, local.guard);
      const caught = outerCaught || local.caught;
      // The handler's own check of the tool name, thrown inside a try whose catch answers every failure with a
      // result: the unknown tool gets a result.
      if (guard === 'all' && depth === 0 && ts.isThrowStatement(cn) && underUnknownNameCheck(cn, fnNode)) {
        reported.add(cn);
        out.push({ messageId: 'unknown-tool-result-in-source', node: wrapNode(sf, cn) });
        continue;
      }
      if (guard === 'all') continue;
      if (ts.isCallExpression(cn)) {
        let callee: FunctionLikeNode | undefined;
        try {
          callee = functionOf(wrapNode(sf, cn.expression), sources);
        } catch {
          callee = undefined;
        }
        if (callee && callee !== fn) walk(callee, guard, caught, depth + 1);
        continue;
      }
      const t = cn as ThrowStmt;
      if (reported.has(t)) continue;
      const pe = protocolError(t.expression);
      let messageId: ChannelFinding['messageId'] | undefined;
      // A protocol error passes a catch that rethrows (or rethrows protocol errors); anything else caught is
      // reported where the catch throws, if it does.
      if (pe?.code !== undefined && OTHER_MEANING.has(pe.code)) messageId = 'wrong-meaning-code-in-source';
      else if (caught) continue;
      else if (pe?.code === INTERNAL_ERROR) messageId = 'execution-error-thrown-in-source';
      else if (pe?.code !== undefined && pe.code >= -32768 && pe.code <= -32000) messageId = undefined; // InvalidParams and the other protocol codes are a choice of channel.
      else if (local.inCatchOf && awaits(local.inCatchOf.tryBlock) && !rethrowsProtocol(t, local.inCatchOf) && !answersSome(local.inCatchOf) && !ABOUT_ARGUMENTS.test(t.expression.getText().slice(0, 300))) messageId = 'execution-error-thrown-in-source';
      else if (underResponseCheck(t, fnNode)) messageId = 'execution-error-thrown-in-source';
      if (!messageId) continue;
      reported.add(t);
      out.push({ messageId, node: wrapNode(sf, t), ...(messageId === 'wrong-meaning-code-in-source' ? { code: pe!.code! } : {}) });
    }
  };
  walk(handler, 'none', false, 0);
  if (tableFns.length) {
    const site = ownNodes(handler, (x) => ts.isCallExpression(x) && isTableDispatch(x))[0];
    if (site) {
      const local = localGuard(site, handler.compilerNode);
      if (local.guard !== 'all') for (const f of tableFns) walk(f, local.guard, local.caught, 1);
    }
  }
  return out;
}

/** A catch that answers some failures with a result (`if (isAxiosError(e)) return { …, isError: true }`): what it rethrows is what its author kept apart. */
function answersSome(tryStmt: TryStmt): boolean {
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || isNested(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) found = true;
    else ts.forEachChild(cn, visit);
  };
  if (tryStmt.catchClause) visit(tryStmt.catchClause.block);
  return found;
}

/** `if (e instanceof McpError) throw e;` in a catch: a protocol error passed on, not a failure of the tool. */
function rethrowsProtocol(t: ThrowStmt, tryStmt: TryStmt): boolean {
  for (let p = t.parent; p && p !== tryStmt; p = p.parent) if (ts.isIfStatement(p) && mentionsProtocolError(p.expression)) return true;
  return false;
}
