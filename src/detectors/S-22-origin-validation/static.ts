import { Node, ts, type CallExpression, type SourceFile } from '../../facts/morph.js';
import { ofKinds, propertyName, rawUnwrap, stringValue, unwrap } from '../../facts/ts-source.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import {
  answersStatusDeep,
  args,
  calleeName,
  callersOf,
  enclosingFunction,
  functionName,
  hostLabel,
  httpTransports,
  isAllInterfaces,
  isCall,
  isHeaderRead,
  locationOf,
  propertyOf,
  readSources,
  remoteDeployment,
  sitesOf,
  rawCalleeName,
  receiverOf,
  rawNameText,
  type RawFilter,
  named,
  K,
  staticString,
  transportListenSites,
  isLoopback,
  type Site,
  importsOf,
  rawStringWhere,
  rawPropNamed,
  statusSitesDeep,
  declarationOf,
  initializerOf,
} from '../support/source/source-support.js';

/**
 * S-22, static part. On a source with a Streamable HTTP transport (SDK or hand-built): an Origin (or
 * Host) guard must run before dispatch — the SDK guards (localhostOriginValidation, originValidation,
 * hostHeaderValidation, originValidationResponse…, v1's enableDnsRebindingProtection or
 * createMcpExpressApp on a loopback host) or a hand-written read of the Origin header that answers 403.
 * A server not deployed remotely must listen on loopback: listen(port) without a host, or on 0.0.0.0 / ::,
 * binds every interface.
 * Frameworks that build the listener themselves count as a transport when the source asks them for HTTP:
 * FastMCP (`fastmcp`) started with `transportType: 'httpStream'` or `'sse'` (it never checks Origin; the
 * server must, e.g. in its `authenticate` hook), and mcp-framework's `MCPServer` with a transport of type
 * `'http-stream'` or `'sse'` (it rejects unlisted origins only when `cors.allowedOrigins` is given). Both
 * default to a loopback host; an explicit all-interfaces host is red like a listen call. A FastMCP
 * `transportType` read at run time (an environment variable, an argument) is could-not-judge when no
 * HTTP transport is otherwise found.
 * What does not count as an Origin check: a 403 every one of whose conditions is about something else (a bearer
 * token beside a CORS allowlist that only picks the Access-Control-Allow-Origin to write); SDK allow lists that are
 * empty unless configured (`process.env.X?.split(',') ?? []`); `createMcpExpressApp({ host })` with a host read at
 * run time (the SDK drops its Host check for a non-loopback host), also when a condition picks the options (`team ?
 * { host, allowedHosts } : { host }`: every branch must guard); an SDK guard installed only under a condition on
 * the host or an allowlist, with no guard on the other branch (`allowedHosts.length ? createMcpExpressApp({ host,
 * allowedHosts }) : createMcpExpressApp({ host })` with a host read at run time: the other branch guards nothing).
 * What counts: an Origin predicate (`isAllowedOrigin(req)`, in any module) whose caller answers 403 on what it returns.
 * The bind address is no finding for a listener started only in a mode the code names remote (`if (IS_REMOTE_MCP)`).
 */

const GUARD_CALLS = new Set([
  'localhostOriginValidation',
  'originValidation',
  'hostHeaderValidation',
  'localhostHostValidation',
  'originValidationResponse',
  'hostHeaderValidationResponse',
  'validateOriginHeader',
  'validateHostHeader',
]);

const RAW_CALLS: ReadonlySet<string> = new Set([...GUARD_CALLS, 'createMcpExpressApp']);

/** A call of one of the SDK's guards, in a node's text. */
const GUARD_CALL_TEXT = new RegExp(`\\b(?:${[...GUARD_CALLS].join('|')})\\s*\\(`);

/**
 * The SDK's guards imported under another name, per file: a minified bundle's `import { hostHeaderValidationResponse
 * as M, localhostAllowedHostnames as J } from "@modelcontextprotocol/server"` then `M(req, J())`. Local name → the
 * SDK's (only an import from an @modelcontextprotocol/ package: a local function of that name is not the SDK's).
 */
function sdkAliases(files: [string, SourceFile][]): Map<ts.SourceFile, Map<string, string>> {
  const out = new Map<ts.SourceFile, Map<string, string>>();
  for (const [, sf] of files) {
    for (const [local, b] of importsOf(sf)) {
      if (!b.module.startsWith('@modelcontextprotocol/') || !RAW_CALLS.has(b.imported) || local === b.imported) continue;
      let m = out.get(sf.compilerNode);
      if (!m) out.set(sf.compilerNode, (m = new Map()));
      m.set(local, b.imported);
    }
  }
  return out;
}

interface Guards {
  /** Guards that reject (SDK guard, DNS-rebinding option, or an Origin read answering 403). */
  rejecting: Site[];
  /** Hand-written Origin reads whose function never answers 403. */
  unanswered: Site[];
  /** Calls of a hand-written Origin check that answers 403, made as a bare statement the caller goes on past. */
  ignored: (Site & { check: string })[];
}

const REFLECTING_CALLS = /^(?:setHeader|header|set|append|log|info|warn|error|debug|trace)$/;

/**
 * An Origin read whose value is only written back (a CORS `Access-Control-Allow-Origin` header, a log
 * line) and never compared or passed to a check: CORS reflection, not an Origin check, even when the
 * function answers 403 for another reason (a bad token).
 */
function onlyReflected(read: Node, fn: Node): boolean {
  if (Node.isBindingElement(read)) return usesOnlyReflect(read.getName(), read.getNameNode(), fn);
  let value: Node = read;
  const p0 = read.getParent();
  if (p0 && (Node.isElementAccessExpression(p0) || Node.isCallExpression(p0)) && !Node.isPropertyAccessExpression(read)) value = p0;
  const climb = (n: Node): Node => {
    let cur = n;
    for (;;) {
      const p = cur.getParent();
      if (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isNonNullExpression(p) || (Node.isBinaryExpression(p) && ['??', '||'].includes(p.getOperatorToken().getText())) || Node.isTemplateSpan(p) || Node.isTemplateExpression(p))) cur = p;
      else return cur;
    }
  };
  const top = climb(value);
  const holder = top.getParent();
  if (holder && Node.isVariableDeclaration(holder) && Node.isIdentifier(holder.getNameNode())) return usesOnlyReflect(holder.getName(), holder.getNameNode(), fn);
  return reflects([top]);
}

/** Every use of a variable holding the Origin (in the function) only writes it back; no use at all is not reflection. */
function usesOnlyReflect(name: string, declName: Node, fn: Node): boolean {
  const uses = fn
    .getDescendantsOfKind(ts.SyntaxKind.Identifier)
    .filter((i) => {
      if (i.getText() !== name || i === declName) return false;
      const p = i.getParent();
      return !(p && Node.isPropertyAccessExpression(p) && p.getNameNode() === i) && !(p && Node.isPropertyAssignment(p) && p.getNameNode() === i) && !(p && Node.isBindingElement(p));
    })
    .map(climbValue);
  return uses.length > 0 && reflects(uses);
}

/** Up from a value through parentheses, `as`, `!`, `??` / `||` and template spans. */
function climbValue(n: Node): Node {
  let cur = n;
  for (;;) {
    const p = cur.getParent();
    if (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isNonNullExpression(p) || (Node.isBinaryExpression(p) && ['??', '||'].includes(p.getOperatorToken().getText())) || Node.isTemplateSpan(p) || Node.isTemplateExpression(p))) cur = p;
    else return cur;
  }
}

function reflects(uses: Node[]): boolean {
  return uses.every((u) => {
    const p = u.getParent();
    if (!p) return false;
    if (Node.isCallExpression(p) && (p.getArguments() as Node[]).includes(u)) return REFLECTING_CALLS.test(calleeName(p) ?? '');
    if (Node.isPropertyAssignment(p) && p.getInitializer() === u) return /access-control-allow-origin|^origin$/i.test(propertyName(p.getNameNode()) ?? '');
    return false;
  });
}

/** The value an Origin read stands for: the element access or call around a header name, else the read itself. */
function readValue(read: Node): Node {
  const p0 = read.getParent();
  return p0 && (Node.isElementAccessExpression(p0) || Node.isCallExpression(p0)) && !Node.isPropertyAccessExpression(read) ? p0 : read;
}

/** Text that names the Origin (`origin`, `isOriginAllowed`, `allowedOrigins`), not `originalUrl`. */
const NAMES_ORIGIN = /origin(?!al)/i;
/**
 * A read of the Host header (`req.headers.host`, `headers['host']`, `req.header('host')`, `headers.get('host')`): a
 * 403 decided by the Host against an allowlist defeats DNS rebinding as the SDK's `hostHeaderValidation` does.
 */
const READS_HOST = /\bheaders\s*(?:\?\.|!\.|\.)\s*host\b|\bheaders\s*(?:\?\.)?\[\s*['"`]host['"`]\s*\]|\.(?:get|header|get[Hh]eader)\s*\(\s*['"`]host['"`]\s*\)/i;

/** What a function binds to a name: every `const x = …` and `x = …`, with what the value names; read once per function. */
interface Binding {
  name: string;
  /** The value's text names the Origin or reads the Host header. */
  guardText: boolean;
  /** The identifiers the value mentions. */
  ids: Set<string>;
}
const bindingsMemo = new WeakMap<Node, Binding[]>();
function bindingsOf(fn: Node): Binding[] {
  let out = bindingsMemo.get(fn);
  if (out) return out;
  out = [];
  const add = (name: string, value: Node): void => {
    const text = value.getText();
    const ids = new Set<string>();
    if (Node.isIdentifier(value)) ids.add(text);
    else for (const i of value.getDescendantsOfKind(ts.SyntaxKind.Identifier)) ids.add(i.getText());
    out!.push({ name, guardText: NAMES_ORIGIN.test(text) || READS_HOST.test(text), ids });
  };
  fn.forEachDescendant((d) => {
    if (Node.isVariableDeclaration(d)) {
      const init = d.getInitializer();
      if (init && Node.isIdentifier(d.getNameNode())) add(d.getName(), init);
    } else if (Node.isBinaryExpression(d) && d.getOperatorToken().getKind() === ts.SyntaxKind.EqualsToken) {
      const left = d.getLeft();
      if (Node.isIdentifier(left)) add(left.getText(), d.getRight());
    }
  });
  bindingsMemo.set(fn, out);
  return out;
}

/**
 * The variables of a function that hold the Origin or a value made from it: the one the read is kept in
 * (`const o = req.headers.origin`, `const { origin } = req.headers`), then those declared or assigned from a value
 * naming one of them (`const url = new URL(o)`, `allowed = LIST.includes(url.origin)`), a few hops deep. The
 * function's bindings are gathered once (bindingsOf); the closure is memoised per function and seed.
 */
const namesMemo = new WeakMap<Node, Map<string, Set<string>>>();
function originNames(read: Node, fn: Node): Set<string> {
  let seed = '';
  if (Node.isBindingElement(read)) seed = read.getName();
  else {
    const holder = climbValue(readValue(read)).getParent();
    if (holder && Node.isVariableDeclaration(holder) && Node.isIdentifier(holder.getNameNode())) seed = holder.getName();
  }
  let perFn = namesMemo.get(fn);
  if (!perFn) namesMemo.set(fn, (perFn = new Map()));
  const known = perFn.get(seed);
  if (known) return known;
  const names = new Set<string>(seed ? [seed] : []);
  const bindings = bindingsOf(fn);
  for (let pass = 0, grew = true; pass < 4 && grew; pass++) {
    grew = false;
    for (const b of bindings) {
      if (names.has(b.name) || !(b.guardText || [...b.ids].some((i) => names.has(i)))) continue;
      names.add(b.name);
      grew = true;
    }
  }
  perFn.set(seed, names);
  return names;
}

function namesOrigin(n: Node, names: Set<string>): boolean {
  const text = n.getText();
  if (NAMES_ORIGIN.test(text) || READS_HOST.test(text)) return true;
  if (names.size === 0) return false;
  if (Node.isIdentifier(n)) return names.has(text);
  return n.getDescendantsOfKind(ts.SyntaxKind.Identifier).some((i) => names.has(i.getText()));
}

/** A branch that leaves the function or hands the request on: it returns, throws or calls `next`. */
const LEAVES = /\breturn\b|\bthrow\b|\bnext\s*\(/;

/**
 * What decides that a place in a function runs: the conditions of the `if`, `?:`, `&&` / `||`, `switch` and
 * `catch` around it, and the conditions of the earlier `if` statements of its blocks whose branch leaves
 * (`if (ok) return next();` before it), up to the function.
 */
function conditionsOf(site: Node, fn: Node): Node[] {
  const out: Node[] = [];
  let child: Node = site;
  for (let p = site.getParent(); p && p !== fn; child = p, p = p.getParent()) {
    if (Node.isIfStatement(p) && child !== p.getExpression()) out.push(p.getExpression());
    else if (Node.isConditionalExpression(p) && child !== p.getCondition()) out.push(p.getCondition());
    else if (Node.isBinaryExpression(p) && ['&&', '||', '??'].includes(p.getOperatorToken().getText()) && child === p.getRight()) out.push(p.getLeft());
    else if (Node.isCaseClause(p)) {
      out.push(p.getExpression());
      const sw = p.getParent()?.getParent();
      if (sw && Node.isSwitchStatement(sw)) out.push(sw.getExpression());
    } else if (Node.isCatchClause(p)) {
      const t = p.getParent();
      if (t && Node.isTryStatement(t)) out.push(t.getTryBlock());
    }
    if (Node.isBlock(p)) {
      const statements: Node[] = p.getStatements();
      for (const st of statements.slice(0, Math.max(0, statements.indexOf(child)))) {
        if (Node.isIfStatement(st) && LEAVES.test(st.getThenStatement().getText())) out.push(st.getExpression());
      }
    }
  }
  return out;
}

/** Per function, the places that answer 403 (itself or through a local helper): read once however many Origin reads it holds. */
const forbiddenMemo = new WeakMap<Node, Node[]>();
function forbiddenSites(fn: Node): Node[] {
  let hit = forbiddenMemo.get(fn);
  if (!hit) forbiddenMemo.set(fn, (hit = statusSitesDeep(fn, 403)));
  return hit;
}

/**
 * A function that reads the Origin and answers 403, but for another reason: every 403 is decided by conditions
 * (conditionsOf), none of which names the Origin or a value made from it. A bearer token refused with 403 beside a
 * CORS allowlist that only chooses which `Access-Control-Allow-Origin` to write rejects no Origin. A 403 answered
 * with nothing deciding it, or under a condition that names the Origin, is still an Origin check.
 */
function forbiddenForOtherReasons(read: Node, fn: Node): boolean {
  // Code at the top of a file (a bundle's) is not read so: what decides its 403 is too far from the read to tell.
  if (Node.isSourceFile(fn)) return false;
  const sites = forbiddenSites(fn);
  if (sites.length === 0) return false;
  const names = originNames(read, fn);
  return sites.every((site) => {
    const conditions = conditionsOf(site, fn);
    return conditions.length > 0 && !conditions.some((c) => namesOrigin(c, names));
  });
}

/** `const { origin } = req.headers` (also `{ origin: o }`, `{ Origin }`): the Origin header read by destructuring. */
function originDestructured(files: [string, SourceFile][]): Site[] {
  const out: Site[] = [];
  const raw = (cn: ts.Node): boolean => {
    if (!ts.isBindingElement(cn) || !ts.isObjectBindingPattern(cn.parent)) return false;
    const key = cn.propertyName ?? cn.name;
    if (!(ts.isIdentifier(key) || ts.isStringLiteral(key)) || key.text.toLowerCase() !== 'origin' || !ts.isIdentifier(cn.name)) return false;
    const d = cn.parent.parent;
    return ts.isVariableDeclaration(d) && !!d.initializer && /headers$/i.test(d.initializer.getText().replace(/[\s!?]/g, ''));
  };
  for (const [file, sf] of files) for (const n of ofKinds(sf, [ts.SyntaxKind.BindingElement], raw)) out.push({ file, node: n });
  return out;
}

/**
 * The calls of a check function (`validateOrigin(req, res)`, `this.validateOrigin(req, res)`) when every one of them
 * discards what the check decided: a bare statement (also under `await` / `void`) followed by more statements of its
 * block, with no later look at whether the answer was already sent (`headersSent`, `writableEnded`). The 403 is
 * written, then the caller dispatches the request anyway. A check that throws, or that is handed a callback it calls
 * (`next`), stops the request itself; a check never called by name (passed to `app.use`) is middleware. Only a check
 * that returns its verdict (`return false` / `return true`) is read so: a handler that answers 403 and dispatches
 * itself is no check its caller ignores.
 * A method's calls are read through `this` in its class; a function's by its name, in its file and the files importing it.
 */
function ignoredCalls(fn: Node, files: [string, SourceFile][]): Site[] | undefined {
  const name = functionName(fn);
  if (!name || !(Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return undefined;
  if (fn.getDescendantsOfKind(ts.SyntaxKind.ThrowStatement).length > 0) return undefined;
  const params = new Set(fn.getParameters().map((p) => p.getName()));
  const callsParam = fn.getDescendantsOfKind(ts.SyntaxKind.CallExpression).some((c) => {
    const e = unwrap(c.getExpression());
    return Node.isIdentifier(e) && params.has(e.getText());
  });
  if (callsParam) return undefined;
  // A check tells its caller what it decided (`return false` on a refusal); a handler that reads the Origin, answers
  // 403 and dispatches itself returns no verdict, and what its caller does next is no dispatch past it.
  const verdictReturned = fn.getDescendantsOfKind(ts.SyntaxKind.ReturnStatement).some((r) => {
    const v = r.getExpression();
    return enclosingFunction(r) === fn && !!v && (v.getKind() === ts.SyntaxKind.TrueKeyword || v.getKind() === ts.SyntaxKind.FalseKeyword);
  });
  if (!verdictReturned) return undefined;
  const calls = callsOfCheck(fn, name, files);
  if (calls.length === 0) return undefined;
  for (const c of calls) {
    let stmt: Node = c.node;
    for (let p = stmt.getParent(); p && (Node.isAwaitExpression(p) || Node.isVoidExpression(p) || Node.isParenthesizedExpression(p)); p = p.getParent()) stmt = p;
    const holder = stmt.getParent();
    if (!holder || !Node.isExpressionStatement(holder)) return undefined;
    const block = holder.getParent();
    if (!block || !(Node.isBlock(block) || Node.isSourceFile(block))) return undefined;
    const statements: Node[] = block.getStatements();
    const after = statements.slice(statements.indexOf(holder) + 1);
    if (after.length === 0 || after.some((a) => /\b(?:headersSent|writableEnded|writableFinished|finished)\b/.test(a.getText()))) return undefined;
  }
  return calls;
}

/** The calls of a check: a method's through `this` in its own class, a function's by its name (callersOf). */
function callsOfCheck(fn: Node, name: string, files: [string, SourceFile][]): Site[] {
  if (!Node.isMethodDeclaration(fn)) return callersOf(fn, files);
  // `this.check(req, res)` in the method's own class.
  const owner = fn.getParent();
  const sf = fn.getSourceFile();
  const file = files.find(([, f]) => f === sf)?.[0] ?? '';
  return (ofKinds(sf, K.call, named(new Set([name]), (cn) => rawCalleeName(cn) === name)) as Node[])
    .filter((c) => {
      if (!Node.isCallExpression(c) || fn.containsRange(c.getPos(), c.getEnd()) || !owner.containsRange(c.getPos(), c.getEnd())) return false;
      const e = unwrap(c.getExpression());
      return Node.isPropertyAccessExpression(e) && e.getExpression().getKind() === ts.SyntaxKind.ThisKeyword;
    })
    .map((node) => ({ file, node }));
}

/**
 * A predicate that reads the Origin and returns what it decided (`function originAllowed(req) { … return
 * ALLOWED.has(origin) }`, in its own module or beside its caller), whose caller answers 403 on it: the call sits in the
 * condition of an `if` whose branch answers 403 (`if (!originAllowed(req)) { res.writeHead(403) … }`), or its value is
 * kept in a const that such a condition reads (`const ok = originAllowed(req); if (!ok) return deny(res)`). The check is
 * the caller's: an Origin guard. A predicate none of whose callers does so stays an Origin read that rejects nothing.
 */
function answeredByCaller(fn: Node, files: [string, SourceFile][]): boolean {
  if (Node.isSourceFile(fn)) return false;
  const name = functionName(fn);
  if (!name) return false;
  const body = Node.isArrowFunction(fn) ? fn.getBody() : undefined;
  const returnsValue = (!!body && !Node.isBlock(body)) || fn.getDescendantsOfKind(ts.SyntaxKind.ReturnStatement).some((r) => enclosingFunction(r) === fn && !!r.getExpression());
  if (!returnsValue) return false;
  return callsOfCheck(fn, name, files).some((c) => rejectsOn(c.node));
}

/** An `if` whose condition holds a node and whose `then` branch answers 403, in the node's function. */
function forbiddenIfAround(node: Node): boolean {
  let child: Node = node;
  for (let p = node.getParent(); p && !Node.isSourceFile(p); child = p, p = p.getParent()) {
    if (Node.isIfStatement(p) && child === p.getExpression()) return answersStatusDeep(p.getThenStatement(), 403);
    if (Node.isFunctionLikeDeclaration(p) || Node.isArrowFunction(p) || Node.isFunctionExpression(p) || Node.isStatement(p)) return false;
  }
  return false;
}

/** Does the caller answer 403 on what a call returned (forbiddenIfAround, directly or through the const holding it)? */
function rejectsOn(call: Node): boolean {
  if (forbiddenIfAround(call)) return true;
  let value: Node = call;
  for (let p = value.getParent(); p && (Node.isAwaitExpression(p) || Node.isParenthesizedExpression(p)); p = p.getParent()) value = p;
  const holder = value.getParent();
  if (!holder || !Node.isVariableDeclaration(holder) || !Node.isIdentifier(holder.getNameNode())) return false;
  const scope = enclosingFunction(holder) ?? holder.getSourceFile();
  const v = holder.getName();
  return scope.getDescendantsOfKind(ts.SyntaxKind.Identifier).some((i) => i.getText() === v && i !== holder.getNameNode() && forbiddenIfAround(i));
}

const ROUTE_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'all']);
const MCP_PATH = /(^|\/)mcp(\/|$|\*|\?)/i;
/** What hands a request to MCP inside a route handler (an SDK transport or handler, a JSON-RPC body). */
const SPEAKS_MCP = /\.handle(?:Request|PostMessage)\s*\(|StreamableHTTP|SSEServerTransport|createMcpHandler|toNodeHandler|jsonrpc|tools\/call/;

/**
 * The literal path of the verb or `use` route whose handler holds a node (`app.post('/mcp', async (req, res) => …)`
 * around `new StreamableHTTPServerTransport(…)`), through nested functions; undefined when no such route holds it.
 */
function routePathAround(node: Node): string | undefined {
  const routeOf = (call: Node): string | undefined | null => {
    if (!Node.isCallExpression(call) || !receiverOf(call)) return null;
    const verb = calleeName(call) ?? '';
    if (!ROUTE_VERBS.has(verb) && verb !== 'use') return null;
    const first = call.getArguments()[0];
    const path = first && stringValue(first);
    return path !== undefined && path.startsWith('/') ? path : undefined;
  };
  // A hand-built transport is the route itself (`app.post('/mcp', …)`).
  const own = routeOf(node);
  if (own !== null) return own;
  for (let fn = enclosingFunction(node); fn; fn = enclosingFunction(fn)) {
    const call = fn.getParent();
    if (!call || !Node.isCallExpression(call) || !(call.getArguments() as Node[]).includes(fn)) continue;
    const r = routeOf(call);
    if (r !== null) return r;
  }
  return undefined;
}

/**
 * The paths the MCP transports are mounted on, when the reading places every one of them (each built inside the
 * handler of a route on a literal path); undefined when one is built elsewhere (in a helper such as `handleMcp(req,
 * res)` that routes call) or is a framework's own endpoint: then where MCP is served is not known.
 */
function mcpMounts(transports: Site[], frameworks: number): Set<string> | undefined {
  if (frameworks > 0 || transports.length === 0) return undefined;
  const paths = new Set<string>();
  for (const t of transports) {
    const p = routePathAround(t.node);
    if (p === undefined) return undefined;
    paths.add(p);
  }
  return paths;
}

/**
 * The handler of one route on another path than MCP's (`app.post('/webhooks/events', (req, res) => …)`): an Origin it
 * checks guards that route, not the MCP endpoint. Only read so when the route every transport is mounted on is known
 * (mcpMounts) and this one is a verb route on another literal path, no MCP path, with a handler that hands nothing to
 * MCP; middleware (`use`), a route calling a helper that serves MCP (`app.post('/rpc', …)` → `handleMcp(req, res)`),
 * and anything the reading cannot place still count.
 */
function offMcpRoute(fn: Node, mounts: Set<string> | undefined): boolean {
  if (!mounts) return false;
  const call = fn.getParent();
  if (!call || !Node.isCallExpression(call) || !(call.getArguments() as Node[]).includes(fn) || !receiverOf(call)) return false;
  if (!ROUTE_VERBS.has(calleeName(call) ?? '')) return false;
  const path = stringValue(call.getArguments()[0]!);
  return path !== undefined && path.startsWith('/') && !mounts.has(path) && !MCP_PATH.test(path) && !SPEAKS_MCP.test(fn.getText());
}

function originGuards(files: [string, SourceFile][], mounts: Set<string> | undefined): Guards {
  const rejecting: Site[] = [];
  const unanswered: Site[] = [];
  const ignored: (Site & { check: string })[] = [];
  const seen = new Set<Node>();
  /** An Origin read in a function answering 403: a rejecting guard, unless every caller goes on past it. */
  const answered = (s: Site, fn: Node): void => {
    const calls = Node.isSourceFile(fn) ? undefined : ignoredCalls(fn, files);
    if (!calls) return void rejecting.push(s);
    if (seen.has(fn)) return;
    seen.add(fn);
    for (const c of calls) ignored.push({ ...c, check: functionName(fn) ?? '' });
  };
  for (const s of originDestructured(files)) {
    const fn = enclosingFunction(s.node) ?? s.node.getSourceFile();
    if (offMcpRoute(fn, mounts)) continue;
    if (answersStatusDeep(fn, 403) && !onlyReflected(s.node, fn) && !forbiddenForOtherReasons(s.node, fn)) answered(s, fn);
    else if (!onlyReflected(s.node, fn) && answeredByCaller(fn, files)) rejecting.push(s);
    else unanswered.push(s);
  }
  const aliases = sdkAliases(files);
  // The SDK's name of a call's callee, through an aliased import of the SDK.
  const sdkName = (cn: ts.CallExpression | ts.NewExpression): string => {
    const name = rawCalleeName(cn) ?? '';
    return (ts.isIdentifier(rawUnwrap(cn.expression)) && aliases.get(cn.getSourceFile())?.get(name)) || name;
  };
  const raw: RawFilter = named(
    new Set([...RAW_CALLS, ...[...aliases.values()].flatMap((m) => [...m.keys()]), 'enableDnsRebindingProtection', 'origin'].map((x) => x.toLowerCase())),
    (cn) =>
      ts.isCallExpression(cn) || ts.isNewExpression(cn)
        ? RAW_CALLS.has(sdkName(cn))
        : ts.isPropertyAssignment(cn)
          ? rawNameText(cn.name) === 'enableDnsRebindingProtection'
          : rawNameText(cn)?.toLowerCase() === 'origin',
  );
  const kinds = [...K.calls, ...K.properties, ...K.headerReads];
  for (const s of sitesOf(files, kinds, (n) => isCall(n) || Node.isPropertyAssignment(n) || isHeaderRead(n, 'origin'), raw)) {
    const n = s.node;
    if (isCall(n)) {
      const name = sdkName(n.compilerNode);
      if (GUARD_CALLS.has(name)) {
        if (!optedIn(n)) rejecting.push(s);
      } else if (name === 'createMcpExpressApp') {
        // v1: host validation is applied for a loopback host (the default) or an explicit allowedHosts list. A host
        // read at run time with a loopback default (`argv.host ?? '127.0.0.1'`) turns it off when set to any other
        // address: the default deployment is guarded, the one the option opens is not.
        if (expressAppGuards(args(n)[0]) && !optedIn(n)) rejecting.push(s);
      }
    } else if (Node.isPropertyAssignment(n)) {
      // SDK v1 checks only the lists it is given: with neither allowedHosts nor allowedOrigins (or both empty), the
      // flag turns on a validation that checks nothing (webStandardStreamableHttp.js, validateRequestHeaders).
      if (n.getName() === 'enableDnsRebindingProtection' && n.getInitializer()?.getText() === 'true' && givesAllowList(n.getParent())) rejecting.push(s);
    } else {
      const fn = enclosingFunction(n) ?? n.getSourceFile();
      if (offMcpRoute(fn, mounts)) continue;
      if (answersStatusDeep(fn, 403) && !onlyReflected(n, fn) && !forbiddenForOtherReasons(n, fn)) answered(s, fn);
      else if (!onlyReflected(n, fn) && answeredByCaller(fn, files)) rejecting.push(s);
      else unanswered.push(s);
    }
  }
  return { rejecting, unanswered, ignored };
}

/**
 * Does `createMcpExpressApp(opts)` validate the Host (v1): with no options or no host (loopback, the default), a
 * loopback host written in the code, or an allowedHosts list that is not empty by default. Options chosen by a
 * condition (`teamAuth ? { host, allowedHosts } : { host }`) guard only when every branch does: the other branch is
 * the deployment that runs without a check. Options held in a variable are read through its initializer.
 */
function expressAppGuards(opts: Node | undefined, depth = 0): boolean {
  const u = opts && unwrap(opts);
  if (u && Node.isConditionalExpression(u) && depth < 4) return expressAppGuards(u.getWhenTrue(), depth + 1) && expressAppGuards(u.getWhenFalse(), depth + 1);
  // Options kept in a variable (`const appOptions = { host }`): the object literal or choice it holds.
  if (u && Node.isIdentifier(u) && depth < 4) {
    const init = initializerOf(declarationOf(u));
    const i = init && unwrap(init);
    if (i && (Node.isObjectLiteralExpression(i) || Node.isConditionalExpression(i))) return expressAppGuards(i, depth + 1);
  }
  const hostNode = propertyOf(opts, 'host');
  const host = fixedString(hostNode);
  const hosts = propertyOf(opts, 'allowedHosts');
  return (!!hosts && !emptyByDefault(hosts)) || !hostNode || (host !== undefined && isLoopback(host));
}

/** An options object that gives `allowedHosts` or `allowedOrigins` other than an empty array (a value read at run time counts). */
function givesAllowList(opts: Node | undefined): boolean {
  // `{ ...base, enableDnsRebindingProtection: true }`: the lists may come with the spread.
  if (opts && Node.isObjectLiteralExpression(opts) && opts.getProperties().some((p) => Node.isSpreadAssignment(p))) return true;
  return ['allowedHosts', 'allowedOrigins'].some((k) => {
    const v = propertyOf(opts, k);
    return !!v && !emptyByDefault(v);
  });
}

/**
 * A list that is empty unless something is configured: `[]`, or a value read at run time whose fallback is `[]`
 * (`process.env.ALLOWED_ORIGINS?.split(',') ?? []`, `env ? env.split(',') : []`), through consts and the members of
 * a const object literal (`config.allowedHosts`). The SDK checks nothing against an empty list.
 */
function emptyByDefault(v: Node, depth = 0): boolean {
  if (depth > 4) return false;
  const u = unwrap(v);
  if (Node.isArrayLiteralExpression(u)) return u.getElements().length === 0;
  if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) return emptyByDefault(u.getRight(), depth + 1);
  if (Node.isConditionalExpression(u)) return emptyByDefault(u.getWhenTrue(), depth + 1) || emptyByDefault(u.getWhenFalse(), depth + 1);
  if (Node.isIdentifier(u)) {
    const i = initializerOf(declarationOf(u));
    return !!i && emptyByDefault(i, depth + 1);
  }
  if (Node.isPropertyAccessExpression(u)) {
    const obj = unwrap(u.getExpression());
    const lit = Node.isIdentifier(obj) ? initializerOf(declarationOf(obj)) : undefined;
    const member = lit && Node.isObjectLiteralExpression(lit) ? propertyOf(lit, u.getName()) : undefined;
    return !!member && emptyByDefault(member, depth + 1);
  }
  return false;
}

/** A string written in the code: a literal or a const holding one, with no fallback read at run time. */
function fixedString(n: Node | undefined, depth = 0): string | undefined {
  if (!n || depth > 4) return undefined;
  const u = unwrap(n);
  const s = stringValue(u);
  if (s !== undefined) return s;
  if (!Node.isIdentifier(u)) return undefined;
  const d = declarationOf(u);
  return d && Node.isVariableDeclaration(d) && String(d.getVariableStatement()?.getDeclarationKind()) === 'const' ? fixedString(d.getInitializer(), depth + 1) : undefined;
}

/** A condition about where the server listens or what it allows: the guard under it is only installed on request. */
const OPT_IN_CONDITION = /host|bind|loopback|localhost|allow|origin|rebind|dns/i;

/** What serves HTTP in a branch: a listener, an SDK transport or a request handed to one. */
const SERVES_HTTP = /\.listen\s*\(|\.handle(?:Request|PostMessage)\s*\(|StreamableHTTPServerTransport|SSEServerTransport/;

/** A flag that turns protection off (`allowAnyHost`, `DISABLE_DNS_REBINDING_PROTECTION`, `--no-host-check`). */
const OPT_OUT_FLAG = /disable|allow[-_]?(?:any|all)|skip|insecure|unsafe|dangerous|no[-_]?(?:host|origin|dns|rebind|check|valid)|(?:host|origin)[-_]?check[-_]?off/i;

/**
 * A condition true when an opt-out flag is not set (`!argv.allowAnyHost`, `!process.env.DISABLE_DNS_REBINDING_PROTECTION`,
 * `env.SKIP_HOST_CHECK !== 'true'`): the guard is on by default, which is no opt-in.
 */
function optOutUnset(cond: Node): boolean {
  const c = unwrap(cond);
  if (Node.isPrefixUnaryExpression(c) && c.getOperatorToken() === ts.SyntaxKind.ExclamationToken) {
    const operand = unwrap(c.getOperand());
    return (Node.isIdentifier(operand) || Node.isPropertyAccessExpression(operand) || Node.isElementAccessExpression(operand)) && OPT_OUT_FLAG.test(operand.getText());
  }
  if (Node.isBinaryExpression(c)) {
    const op = c.getOperatorToken().getText();
    const right = c.getRight().getText().replace(/['"`]/g, '');
    if (((op === '!==' || op === '!=') && /^(?:true|1|yes)$/i.test(right)) || ((op === '===' || op === '==') && /^(?:false|0|no)$/i.test(right))) return OPT_OUT_FLAG.test(c.getLeft().getText());
  }
  return false;
}

/**
 * A guard installed only under a condition about the host or an allowlist (`if (isLoopback(host))
 * app.use(localhostHostValidation())`, `allowedHosts.length && app.use(hostHeaderValidation(allowedHosts))`), with no
 * guard on the other branch: whichever deployment falls outside the condition runs without one. Not so when the
 * condition picks HTTP at all (`if (argv.host) { …guard…; app.listen(…) } else { stdio }`: the branch holding the
 * guard serves HTTP and the other does not), nor when it only tests that an opt-out flag is unset (optOutUnset).
 */
function optedIn(call: Node): boolean {
  // `createMcpExpressApp({ host })` on the other branch guards only as expressAppGuards reads it (`allowedHosts.length ?
  // createMcpExpressApp({ host, allowedHosts }) : createMcpExpressApp({ host })` with a host read at run time: no guard).
  const guardIn = (n: Node | undefined): boolean => {
    if (!n) return false;
    if (GUARD_CALL_TEXT.test(n.getText())) return true;
    const calls = [n, ...n.getDescendantsOfKind(ts.SyntaxKind.CallExpression)].filter((c): c is CallExpression => Node.isCallExpression(c) && calleeName(c) === 'createMcpExpressApp');
    return calls.some((c) => expressAppGuards(args(c)[0]));
  };
  const servesHttp = (n: Node | undefined): boolean => !!n && SERVES_HTTP.test(n.getText());
  /** The guard's branch and the other one: only one of them serves HTTP, so the condition chooses HTTP, not a guard. */
  const choosesHttp = (mine: Node, other: Node | undefined): boolean => servesHttp(mine) && !servesHttp(other);
  const conditional = (cond: Node): boolean => OPT_IN_CONDITION.test(cond.getText()) && !optOutUnset(cond);
  let child: Node = call;
  for (let p = call.getParent(); p && !Node.isSourceFile(p); child = p, p = p.getParent()) {
    if (Node.isIfStatement(p) && child !== p.getExpression() && conditional(p.getExpression())) {
      const other = child === p.getThenStatement() ? p.getElseStatement() : p.getThenStatement();
      if (!guardIn(other) && !choosesHttp(child, other)) return true;
    } else if (Node.isConditionalExpression(p) && child !== p.getCondition() && conditional(p.getCondition())) {
      const other = child === p.getWhenTrue() ? p.getWhenFalse() : p.getWhenTrue();
      if (!guardIn(other) && !choosesHttp(child, other)) return true;
    } else if (Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '&&' && child === p.getRight() && conditional(p.getLeft())) return true;
    if (Node.isFunctionLikeDeclaration(p) || Node.isArrowFunction(p) || Node.isFunctionExpression(p)) break;
  }
  return false;
}

/** A transport whose listener a framework builds (FastMCP, mcp-framework). */
interface FrameworkTransport extends Site {
  name: string;
  /** The framework rejects unlisted origins (mcp-framework with `allowedOrigins`). */
  guarded: boolean;
  /** The host given to the framework, when written. */
  host?: Node;
}

const FRAMEWORKS = { fastmcp: 'FastMCP', 'mcp-framework': 'mcp-framework' } as const;
const FASTMCP_HTTP = new Set(['httpStream', 'http-stream', 'sse']);
const MCP_FRAMEWORK_HTTP = new Set(['http-stream', 'sse']);

/** The nearest property assignment holding a value, through conditionals, `??` / `||` and parentheses. */
function holdingProperty(n: Node): Node | undefined {
  let cur: Node | undefined = n.getParent();
  while (cur && (Node.isConditionalExpression(cur) || Node.isParenthesizedExpression(cur) || Node.isBinaryExpression(cur) || Node.isAsExpression(cur))) cur = cur.getParent();
  return cur && Node.isPropertyAssignment(cur) ? cur : undefined;
}

/** The variable a value is assigned to (`const transportType = http ? 'httpStream' : 'stdio'`), through conditionals. */
function holdingVariable(n: Node): string | undefined {
  let cur: Node | undefined = n.getParent();
  while (cur && (Node.isConditionalExpression(cur) || Node.isParenthesizedExpression(cur) || Node.isBinaryExpression(cur) || Node.isAsExpression(cur))) cur = cur.getParent();
  return cur && Node.isVariableDeclaration(cur) ? cur.getName() : undefined;
}

function frameworkTransports(files: [string, SourceFile][]): { found: FrameworkTransport[]; unread: Site[] } {
  const found: FrameworkTransport[] = [];
  const unread: Site[] = [];
  for (const f of files) {
    const modules = new Set([...importsOf(f[1]).values()].map((b) => b.module));
    if (modules.has('fastmcp')) {
      for (const s of sitesOf([f], K.strings, (n) => FASTMCP_HTTP.has(stringValue(n) ?? ''), rawStringWhere((t) => FASTMCP_HTTP.has(t)))) {
        const prop = holdingProperty(s.node);
        const named = prop && Node.isPropertyAssignment(prop) ? propertyName(prop.getNameNode()) : holdingVariable(s.node);
        if (named !== 'transportType' && !(stringValue(s.node) === 'httpStream' && named && /transport/i.test(named))) continue;
        const start = s.node.getFirstAncestor((a) => Node.isCallExpression(a) && calleeName(a) === 'start');
        const opts = start && Node.isCallExpression(start) ? args(start)[0] : undefined;
        const kind = stringValue(s.node) === 'sse' ? 'sse' : 'httpStream';
        found.push({ file: f[0], node: start ?? s.node, name: `FastMCP ${kind}`, guarded: false, host: propertyOf(propertyOf(opts, kind), 'host') });
      }
      // start({ transportType: <read at run time> }): an HTTP mode the reading cannot see.
      for (const s of sitesOf([f], K.properties, Node.isPropertyAssignment, rawPropNamed(new Set(['transportType'])))) {
        const p = s.node;
        if (!Node.isPropertyAssignment(p) || propertyName(p.getNameNode()) !== 'transportType') continue;
        const v = p.getInitializer();
        if (v && stringValue(v) === undefined && !Node.isConditionalExpression(unwrap(v)) && staticString(v) === undefined) unread.push(s);
      }
    }
    if (modules.has('mcp-framework')) {
      for (const s of sitesOf([f], K.strings, (n) => MCP_FRAMEWORK_HTTP.has(stringValue(n) ?? ''), rawStringWhere((t) => MCP_FRAMEWORK_HTTP.has(t)))) {
        const typeProp = holdingProperty(s.node);
        if (!typeProp || !Node.isPropertyAssignment(typeProp) || propertyName(typeProp.getNameNode()) !== 'type') continue;
        const transportObj = typeProp.getParent();
        const owner = transportObj?.getParent();
        if (!owner || !Node.isPropertyAssignment(owner) || propertyName(owner.getNameNode()) !== 'transport') continue;
        const options = propertyOf(transportObj, 'options');
        const allowed = propertyOf(propertyOf(options, 'cors'), 'allowedOrigins');
        const guarded = !!allowed && !(Node.isArrayLiteralExpression(allowed) && allowed.getElements().length === 0);
        found.push({ file: f[0], node: owner, name: `mcp-framework ${stringValue(s.node)}`, guarded, host: propertyOf(options, 'host') });
      }
    }
  }
  return { found, unread };
}

/**
 * A name for a remote mode (`IS_REMOTE_MCP`, `useHttpRemote`, `isRemote`, `config.remote`, `REMOTE_MODE`), not a remote
 * thing the local server talks to (`remoteUrl`, `remoteServer`: a local proxy in front of a remote server runs locally).
 */
const NAMES_REMOTE = /^(?:is|use|enable|run|as)?[_-]?(?:http[_-]?)?remote(?:[_-]?(?:mcp|mode|deploy(?:ment)?))?$/i;

/** A condition that holds in a remote mode: a conjunct (of `&&`) that is a name saying remote, not negated, or `mode === 'remote'`. */
function remoteCondition(cond: Node): boolean {
  const c = unwrap(cond);
  if (Node.isBinaryExpression(c)) {
    const op = c.getOperatorToken().getText();
    if (op === '&&') return remoteCondition(c.getLeft()) || remoteCondition(c.getRight());
    if (op === '===' || op === '==') {
      const [l, r] = [unwrap(c.getLeft()), unwrap(c.getRight())];
      const lit = (n: Node): string | undefined => stringValue(n) ?? (n.getKind() === ts.SyntaxKind.TrueKeyword ? 'true' : undefined);
      const named = (n: Node): boolean => (Node.isIdentifier(n) || Node.isPropertyAccessExpression(n)) && NAMES_REMOTE.test(Node.isPropertyAccessExpression(n) ? n.getName() : n.getText());
      return [[l, r], [r, l]].some(([a, b]) => (lit(b!) === 'remote') || (lit(b!) === 'true' && named(a!)));
    }
    return false;
  }
  if (Node.isIdentifier(c)) return NAMES_REMOTE.test(c.getText());
  if (Node.isPropertyAccessExpression(c)) return NAMES_REMOTE.test(c.getName());
  return false;
}

/**
 * A listener started only in a mode the code names remote: in the `then` branch of `if (IS_REMOTE_MCP && …)`, the true
 * branch of `useHttpRemote ? … : …` or right of `isRemote && …`, up to the file. Such an HTTP mode is the deployment
 * behind a proxy or in a container, not a server meant to run locally: its bind address is no S-22 finding (the Origin
 * check still is).
 */
function remoteMode(listen: Node): boolean {
  let child: Node = listen;
  for (let p = listen.getParent(); p && !Node.isSourceFile(p); child = p, p = p.getParent()) {
    if (Node.isIfStatement(p) && child === p.getThenStatement() && remoteCondition(p.getExpression())) return true;
    if (Node.isConditionalExpression(p) && child === p.getWhenTrue() && remoteCondition(p.getCondition())) return true;
    if (Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '&&' && child === p.getRight() && remoteCondition(p.getLeft())) return true;
  }
  return false;
}

export default defineDetector({
  ruleId: 'S-22',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'no-origin-check': ['transport'],
    'origin-not-rejected': [],
    'origin-check-ignored': ['check'],
    'listen-without-host': [],
    'listen-all-interfaces': ['host'],
  },
  judge({ inputs: { repo } }): Verdict {
    const src = readSources(repo, { pythonPart: true });
    if ('verdict' in src) return src.verdict;
    const transports = httpTransports(src.files);
    const frameworks = frameworkTransports(src.files);
    if (transports.length === 0 && frameworks.found.length === 0) {
      const u = frameworks.unread[0];
      return u ? couldNotJudge('framework-transport-not-read', { file: u.file, line: locationOf(u.file, u.node).line ?? 0 }) : notApplicable('no-http-transport');
    }
    const findings: Finding[] = [];
    const guards = originGuards(src.files, mcpMounts(transports, frameworks.found.length));
    const unguarded = [...transports, ...frameworks.found.filter((t) => !t.guarded)];
    if (guards.rejecting.length === 0 && unguarded.length > 0) {
      if (guards.ignored.length > 0) {
        for (const g of guards.ignored) findings.push({ messageId: 'origin-check-ignored', data: { check: g.check }, location: locationOf(g.file, g.node) });
      } else if (guards.unanswered.length > 0) {
        for (const g of guards.unanswered) findings.push({ messageId: 'origin-not-rejected', location: locationOf(g.file, g.node) });
      } else {
        for (const t of unguarded) findings.push({ messageId: 'no-origin-check', data: { transport: t.name }, location: locationOf(t.file, t.node) });
      }
    }
    for (const t of frameworks.found) {
      const host = t.host ? staticString(t.host) : undefined;
      if (host !== undefined && isAllInterfaces(host) && !remoteDeployment(repo, t.file)) {
        findings.push({ messageId: 'listen-all-interfaces', data: { host: host || '(empty)' }, location: locationOf(t.file, t.host!) });
      }
    }
    for (const l of transports.length ? transportListenSites(src.files, transports) : []) {
      if (!remoteDeployment(repo, l.file) && !remoteMode(l.node)) {
        if (l.host.kind === 'none') findings.push({ messageId: 'listen-without-host', location: locationOf(l.file, l.node) });
        else if (l.host.kind === 'literal' && isAllInterfaces(l.host.value)) {
          findings.push({ messageId: 'listen-all-interfaces', data: { host: hostLabel(l.host) }, location: locationOf(l.file, l.node) });
        }
      }
    }
    findings.sort((a, b) => a.location!.file.localeCompare(b.location!.file) || (a.location!.line ?? 0) - (b.location!.line ?? 0));
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
