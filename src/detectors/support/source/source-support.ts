import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type Identifier, type NewExpression, type SourceFile } from '../../../facts/morph.js';
import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Location, Verdict } from '../../../engine/types.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { hasPythonSource } from '../../../facts/python-source.js';
import { importsOf, ofKinds, parsedSources, positionOf, propertyName, namedFilter, rawCalleeName, rawUnwrap, stringValue, unwrap, wrapNode, type Binding, type NamedFilter } from '../../../facts/ts-source.js';
import { findNodes } from '../../../facts/scope.js';
import { noteSourceRead } from '../../../facts/not-read.js';

/**
 * Syntax-level helpers shared by the static transport and URL detectors (S-10, S-16, S-18, S-19, S-22,
 * S-23). Everything works on the trees of parsedSources (no type checker): names are resolved through
 * the enclosing scopes of one file, imports are read from the file's import and require statements.
 */

export interface Site<N extends Node = Node> {
  /** Path relative to the audited root. */
  file: string;
  node: N;
}

export const locationOf = (file: string, node: Node): Location => ({ file, ...positionOf(node) });

/**
 * The parsed JS/TS files as [relative path, tree] pairs. Without any: could-not-judge — unless the source
 * is Python and the rule has a Python part (`pythonPart`), which judges it; then this part steps aside
 * (not-applicable), so that it does not keep the rule unjudged.
 */
const filesMemo = new WeakMap<RepoFacts, [string, SourceFile][]>();

export function readSources(repo: RepoFacts, opts: { pythonPart?: boolean } = {}): { files: [string, SourceFile][] } | { verdict: Verdict } {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  let files = filesMemo.get(repo);
  if (!files) {
    files = [...parsedSources(repo).files.entries()];
    filesMemo.set(repo, files);
  }
  if (files.length > 0) return { files };
  if (hasPythonSource(repo)) return { verdict: opts.pythonPart ? notApplicable('python-source-only') : couldNotJudge('source-language-not-read') };
  return { verdict: couldNotJudge('no-source-code') };
}

/** Node kinds the helpers look for; a file is walked once per kind (on compiler nodes), and only matches are wrapped. */
const kinds = afterLoad(
  () =>
    ({
      calls: [SyntaxKind.CallExpression, SyntaxKind.NewExpression],
      call: [SyntaxKind.CallExpression],
      strings: [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral],
      headerReads: [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.PropertyAccessExpression],
      properties: [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment],
      templates: [SyntaxKind.TemplateExpression],
    }) as const,
);
/** (Built at first use: ts-morph loads when a source is read, not when this module is imported; see facts/morph.ts.) */
export const K = {
  get calls() {
    return kinds().calls;
  },
  get call() {
    return kinds().call;
  },
  get strings() {
    return kinds().strings;
  },
  get headerReads() {
    return kinds().headerReads;
  },
  get properties() {
    return kinds().properties;
  },
  get templates() {
    return kinds().templates;
  },
};

/**
 * The nodes of some kinds in a file, in source order. One walk of the compiler tree per parsed file
 * (memoised: the trees are shared by the audit's detectors), and only the matches are wrapped — ts-morph's
 * own getDescendantsOfKind walks every token for literal kinds, which is many times slower.
 */
export function nodesOf(sf: SourceFile, kinds: readonly SyntaxKind[]): Node[] {
  return ofKinds(sf, kinds);
}

/** Every node of the given kinds, with its file, for which `pick` returns true. */
export function sitesOf<N extends Node>(files: [string, SourceFile][], kinds: readonly SyntaxKind[], pick: (n: Node) => n is N, raw?: RawFilter): Site<N>[];
export function sitesOf(files: [string, SourceFile][], kinds: readonly SyntaxKind[], pick: (n: Node) => boolean, raw?: RawFilter): Site[];
export function sitesOf(files: [string, SourceFile][], kinds: readonly SyntaxKind[], pick: (n: Node) => boolean, raw?: RawFilter): Site[] {
  const out: Site[] = [];
  for (const [file, sf] of files) {
    for (const n of raw ? ofKinds(sf, kinds, raw) : nodesOf(sf, kinds)) if (pick(n)) out.push({ file, node: n });
  }
  return out;
}

/**
 * Raw pre-filters: a test on the compiler node, run before ts-morph wraps it. They must only drop nodes
 * the `pick` that follows would reject anyway (they are a speed-up, never a judgement).
 */
export type RawFilter = NamedFilter;

/** Tag a raw filter with the names it can accept (see NamedFilter): the scan becomes an index lookup. */
export const named = (names: ReadonlySet<string>, filter: (cn: ts.Node) => boolean): RawFilter => namedFilter(names, filter);

export { rawCalleeName };

/** Raw filter: calls whose last callee name is in the set. */
export const rawCallNamed = (names: ReadonlySet<string>): RawFilter => named(names, (cn) => names.has(rawCalleeName(cn) ?? ''));

/** Raw filter: property assignments (and shorthands) whose key is in the set. */
export const rawPropNamed = (names: ReadonlySet<string>): RawFilter =>
  named(names, (cn) => (ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn)) && names.has(rawNameText(cn.name) ?? ''));

/** Raw filter: string literals whose value passes the test. */
export const rawStringWhere =
  (test: (text: string) => boolean): RawFilter =>
  (cn) =>
    ts.isStringLiteralLike(cn) && test(cn.text);

/** The name a raw node spells: a string literal's value, an identifier, a property access's last name. */
export function rawNameText(cn: ts.Node): string | undefined {
  if (ts.isStringLiteralLike(cn) || ts.isIdentifier(cn)) return cn.text;
  if (ts.isPropertyAccessExpression(cn)) return cn.name.text;
  return undefined;
}

/* ---------- calls ---------- */

export type Call = CallExpression | NewExpression;
export const isCall = (n: Node): n is Call => Node.isCallExpression(n) || Node.isNewExpression(n);

/** The called name: `fetch` for fetch(...), `get` for axios.get(...), `Foo` for new Foo(...). */
export function calleeName(call: Call): string | undefined {
  // On compiler nodes: asked of many calls, most of which are never wrapped further.
  const e = rawUnwrap(call.compilerNode.expression);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e)) {
    const a = rawUnwrap(e.argumentExpression);
    return ts.isStringLiteral(a) || ts.isNoSubstitutionTemplateLiteral(a) ? a.text : undefined;
  }
  return undefined;
}

/** The object a method is called on (`axios` in axios.get(...)), or undefined for a plain call. */
export function receiverOf(call: Call): Node | undefined {
  const e = unwrap(call.getExpression());
  if (Node.isPropertyAccessExpression(e) || Node.isElementAccessExpression(e)) return unwrap(e.getExpression());
  return undefined;
}

/** The callee as written, without spaces or optional chaining: `axios.get`, `http.request`, `res.status`. */
export function calleeText(call: Call): string {
  return call.getExpression().getText().replace(/\s+/g, '').replace(/\?\./g, '.');
}

export const args = (call: Call): Node[] => (call.getArguments() as Node[]).map(unwrap);

/** A property of an object literal, by name (shorthand properties give the identifier). */
export function propertyOf(obj: Node | undefined, name: string): Node | undefined {
  if (!obj) return undefined;
  const o = unwrap(obj);
  if (!Node.isObjectLiteralExpression(o)) return undefined;
  for (const p of o.getProperties()) {
    if (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === name) return unwrap(p.getInitializerOrThrow());
    if (Node.isShorthandPropertyAssignment(p) && p.getName() === name) return p.getNameNode();
    if (Node.isMethodDeclaration(p) && propertyName(p.getNameNode()) === name) return p;
  }
  return undefined;
}

/* ---------- imports ---------- */

export { importsOf, type Binding };

/**
 * Where a called function comes from: `{ module: 'axios', name: 'get' }` for axios.get(...) with axios
 * imported, `{ module: 'undici', name: 'request' }` for an imported request(...). Undefined for globals
 * and local functions.
 */
export function calleeImport(call: Call): { module: string; name: string } | undefined {
  const sf = call.getSourceFile();
  const imports = importsOf(sf);
  const e = unwrap(call.getExpression());
  if (Node.isIdentifier(e)) {
    const b = imports.get(e.getText());
    if (!b) return undefined;
    return { module: b.module, name: b.imported === '*' || b.imported === 'default' ? '' : b.imported };
  }
  if (Node.isPropertyAccessExpression(e)) {
    const r = unwrap(e.getExpression());
    if (Node.isIdentifier(r)) {
      const b = imports.get(r.getText());
      if (b && (b.imported === '*' || b.imported === 'default')) return { module: b.module, name: e.getName() };
      if (b) return { module: b.module, name: `${b.imported}.${e.getName()}` };
    }
  }
  return undefined;
}

/* ---------- scopes ---------- */

export type Declaration = Node; // VariableDeclaration | BindingElement | ParameterDeclaration | FunctionDeclaration

/* Read on compiler nodes: only the declaration found is wrapped (ts-morph wrappers are costly to make). */

/** Names bound by a binding name (identifier or destructuring pattern), each with its declaring node. */
function boundNames(name: ts.BindingName, owner: ts.Node, out: Map<string, ts.Node>): void {
  if (ts.isIdentifier(name)) out.set(name.text, owner);
  else {
    for (const el of name.elements) {
      if (ts.isBindingElement(el)) boundNames(el.name, el, out);
    }
  }
}

const hasParameters = (n: ts.Node): n is ts.SignatureDeclarationBase =>
  ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n);

const scopeMemo = new WeakMap<ts.Node, Map<string, ts.Node>>();
function scopeDeclarations(scope: ts.Node): Map<string, ts.Node> {
  const hit = scopeMemo.get(scope);
  if (hit) return hit;
  const out = new Map<string, ts.Node>();
  scopeMemo.set(scope, out);
  if (hasParameters(scope)) {
    for (const p of scope.parameters) boundNames(p.name, p, out);
  } else if (ts.isCatchClause(scope)) {
    const v = scope.variableDeclaration;
    if (v) boundNames(v.name, v, out);
  } else if (ts.isForOfStatement(scope) || ts.isForInStatement(scope) || ts.isForStatement(scope)) {
    const init = scope.initializer;
    if (init && ts.isVariableDeclarationList(init)) for (const d of init.declarations) boundNames(d.name, d, out);
  } else if (ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isCaseClause(scope) || ts.isDefaultClause(scope) || ts.isModuleBlock(scope)) {
    for (const st of scope.statements) {
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) boundNames(d.name, d, out);
      else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) out.set(st.name.text, st);
    }
  }
  return out;
}

/** The declaration an identifier refers to, searched through its enclosing scopes in the same file. */
const declMemo = new WeakMap<object, Declaration | null>();
export function declarationOf(id: Identifier): Declaration | undefined {
  const cn = id.compilerNode;
  const hit = declMemo.get(cn);
  if (hit !== undefined) return hit ?? undefined;
  const name = cn.text;
  let found: ts.Node | undefined;
  for (let a: ts.Node | undefined = cn.parent; a && !found; a = a.parent) {
    const d = scopeDeclarations(a).get(name);
    if (d && d !== cn.parent) found = d;
  }
  const decl = found ? wrapNode(id.getSourceFile(), found) : undefined;
  declMemo.set(cn, decl ?? null);
  return decl;
}

/** The initializer behind a variable or destructured element (undefined for parameters and others). */
export function initializerOf(decl: Declaration | undefined): Node | undefined {
  if (!decl) return undefined;
  if (Node.isVariableDeclaration(decl)) {
    const i = decl.getInitializer();
    return i ? unwrap(i) : undefined;
  }
  return undefined;
}

/** Follow an identifier through `const x = …` (up to a few hops) to the expression it stands for. */
export function resolveValue(node: Node | undefined, depth = 0): Node | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (depth > 5 || !Node.isIdentifier(n)) return n;
  const d = declarationOf(n);
  if (d && Node.isVariableDeclaration(d)) {
    const i = initializerOf(d);
    return i ? resolveValue(i, depth + 1) : n;
  }
  return n;
}

/**
 * The string an expression statically stands for: a literal, a const, or the default of
 * `process.env.X ?? 'default'` (what ships when nothing is configured). Undefined when unknown.
 */
export function staticString(node: Node | undefined, depth = 0): string | undefined {
  if (!node || depth > 5) return undefined;
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined) return s;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    return Node.isVariableDeclaration(d) ? staticString(initializerOf(d), depth + 1) : undefined;
  }
  if (Node.isBinaryExpression(n)) {
    const op = n.getOperatorToken().getText();
    if (op === '??' || op === '||') return staticString(n.getRight(), depth + 1);
  }
  return undefined;
}

/** The function (declaration, expression, arrow or method) that contains a node. */
export function enclosingFunction(node: Node): Node | undefined {
  return node.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a));
}

/** A function's name: its declared name, or the variable or property it is assigned to. */
export function functionName(fn: Node): string | undefined {
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return fn.getName();
  const p = fn.getParent();
  if (p && Node.isVariableDeclaration(p)) return p.getName();
  if (p && Node.isPropertyAssignment(p)) return propertyName(p.getNameNode());
  return undefined;
}

/* ---------- HTTP vocabulary ---------- */

/**
 * True when the subtree answers with the given HTTP status: the number passed to a call (status(403),
 * writeHead(403), c.text('', 403), a helper such as fail(res, 403)), or set as statusCode / { status: 403 }.
 */
/** Names of status constants (`StatusCodes.FORBIDDEN`, `HttpStatus.FORBIDDEN`, http2's `HTTP_STATUS_FORBIDDEN`), by code. */
const STATUS_NAMES: Record<number, RegExp> = {
  400: /^(?:BAD_REQUEST|BadRequest|HTTP_STATUS_BAD_REQUEST)$/,
  401: /^(?:UNAUTHORIZED|Unauthorized|HTTP_STATUS_UNAUTHORIZED)$/,
  403: /^(?:FORBIDDEN|Forbidden|HTTP_STATUS_FORBIDDEN)$/,
};

export function answersStatus(root: Node, code: number): boolean {
  return statusSites(root, code, true).length > 0;
}

/** The places in a subtree that answer with the given HTTP status (see answersStatus); `first`: stop at the first one. */
export function statusSites(root: Node, code: number, first = false): Node[] {
  const named = STATUS_NAMES[code];
  const out: Node[] = [];
  // Raw walk: only numeric literals spelling the code (and identifiers naming it) are wrapped.
  const candidates = findNodes(root, (cn) => cn !== root.compilerNode && ((ts.isNumericLiteral(cn) && Number(cn.text) === code) || (!!named && ts.isIdentifier(cn) && named.test(cn.text))));
  for (const n0 of candidates) {
    if (isStatusAnswer(n0)) {
      out.push(n0);
      if (first) break;
    }
  }
  return out;
}

function isStatusAnswer(n0: Node): boolean {
  let n = n0;
  if (Node.isIdentifier(n0)) {
    // `StatusCodes.FORBIDDEN`: the access is the value; a bare identifier must not be a declaration or a key.
    const q = n0.getParent();
    if (q && Node.isPropertyAccessExpression(q) && q.getNameNode() === n0) n = q;
    else if (q && (Node.isPropertyAccessExpression(q) || Node.isPropertyAssignment(q) || Node.isVariableDeclaration(q)) && !(Node.isPropertyAssignment(q) && q.getInitializer() === n0)) return false;
  }
  const p = n.getParent();
  if (!p) return false;
  if ((Node.isCallExpression(p) || Node.isNewExpression(p)) && (p.getArguments() as Node[]).includes(n)) return true;
  if (Node.isPropertyAssignment(p) && ['status', 'statusCode', 'code'].includes(propertyName(p.getNameNode()) ?? '')) return true;
  return Node.isBinaryExpression(p) && /\.(statusCode|status)$/.test(p.getLeft().getText());
}

/** A header named in a string literal, read (`headers['x']`, `headers.get('x')`, `req.header('x')`) rather than written. */
export function isHeaderRead(n: Node, header: string): boolean {
  if (Node.isPropertyAccessExpression(n)) {
    return n.getName().toLowerCase() === header && /headers$/i.test(unwrap(n.getExpression()).getText());
  }
  const v = stringValue(n);
  if (v === undefined || v.toLowerCase() !== header) return false;
  const p = n.getParent();
  if (!p) return false;
  if (Node.isElementAccessExpression(p) && p.getArgumentExpression() === n) return true;
  if (Node.isCallExpression(p) && p.getArguments()[0] === n && p.getArguments().length === 1) {
    return ['get', 'header', 'getHeader', 'has', 'headers'].includes(calleeName(p) ?? '');
  }
  return false;
}

/** A header named in a string literal, written (`setHeader('x', v)`, `headers: { 'x': v }`, `h['x'] = v`, `c.header('x', v)`). */
export function isHeaderWrite(n: Node, header: string): boolean {
  const v = stringValue(n) ?? (Node.isIdentifier(n) && Node.isPropertyAssignment(n.getParent()) ? n.getText() : undefined);
  if (v === undefined || v.toLowerCase() !== header) return false;
  const p = n.getParent();
  if (!p) return false;
  if (Node.isPropertyAssignment(p) && p.getNameNode() === n) return isHeadersObject(p.getParent());
  if (Node.isElementAccessExpression(p) && p.getArgumentExpression() === n) {
    const a = p.getParent();
    return !!a && Node.isBinaryExpression(a) && a.getLeft() === p && a.getOperatorToken().getText() === '=';
  }
  if (Node.isCallExpression(p) && p.getArguments()[0] === n && p.getArguments().length >= 2) {
    return ['set', 'setHeader', 'header', 'append', 'writeHead'].includes(calleeName(p) ?? '');
  }
  return false;
}

/** An object literal that holds response headers: `headers: { … }`, writeHead(200, { … }), new Headers({ … }), setHeaders({ … }). */
function isHeadersObject(obj: Node | undefined): boolean {
  if (!obj || !Node.isObjectLiteralExpression(obj)) return false;
  const p = obj.getParent();
  if (p && Node.isPropertyAssignment(p)) return /^headers$/i.test(propertyName(p.getNameNode()) ?? '');
  if (p && (Node.isCallExpression(p) || Node.isNewExpression(p))) return ['writeHead', 'set', 'setHeaders', 'header', 'Headers', 'json', 'Response'].includes(calleeName(p) ?? '');
  return false;
}

export function headerReads(files: [string, SourceFile][], header: string): Site[] {
  return sitesOf(files, K.headerReads, (n) => isHeaderRead(n, header), named(new Set([header]), (cn) => rawNameText(cn)?.toLowerCase() === header));
}

/** SDK classes and factories that implement Streamable HTTP (and validate its headers). */
const SDK_HTTP_TRANSPORTS = new Set([
  'StreamableHTTPServerTransport',
  'NodeStreamableHTTPServerTransport',
  'WebStandardStreamableHTTPServerTransport',
  'PerRequestHTTPServerTransport',
]);
const SDK_HANDLERS = new Set(['createMcpHandler']);
const HTTP_SERVER_FACTORIES = new Set(['createServer', 'createSecureServer']);
const ROUTE_METHODS = ['post', 'all', 'get', 'use', 'route', 'on'];
/** Raw pre-filters of the hand-built transport search (they only narrow what the checks below read). */
const JSONRPC_STRING = named(new Set(['jsonrpc']), (cn) => ts.isStringLiteralLike(cn) && cn.text === 'jsonrpc');
const JSONRPC_KEY = rawPropNamed(new Set(['jsonrpc']));
const HAND_BUILT_CALLS = rawCallNamed(new Set([...ROUTE_METHODS, ...HTTP_SERVER_FACTORIES, 'serve']));
const TRANSPORT_NAMES: ReadonlySet<string> = new Set([...SDK_HTTP_TRANSPORTS, ...SDK_HANDLERS, 'SSEServerTransport']);

export interface HttpTransport extends Site {
  /** sdk: an SDK Streamable HTTP transport or handler; sse: the deprecated SDK HTTP+SSE transport; hand-built: JSON-RPC over a route the server wrote. */
  kind: 'sdk' | 'sse' | 'hand-built';
  name: string;
}

const isMcpRoute = (v: string | undefined): boolean => v !== undefined && /(^|\/)mcp(\/|$|\*|\?)/i.test(v);

/** Memoise a computation over the shared file list of an audit (readSources returns the same array to every detector). */
function memo<T>(fn: (files: [string, SourceFile][]) => T): (files: [string, SourceFile][]) => T {
  const cache = new WeakMap<object, T>();
  return (files) => {
    if (!cache.has(files)) cache.set(files, fn(files));
    return cache.get(files)!;
  };
}

/** The HTTP MCP transports of the source. Hand-built ones are only looked for when no SDK transport is used. */
export const httpTransports = memo(findHttpTransports);
function findHttpTransports(files: [string, SourceFile][]): HttpTransport[] {
  const out: HttpTransport[] = [];
  const take = (s: Site, name: string): void => {
    if (Node.isNewExpression(s.node) && SDK_HTTP_TRANSPORTS.has(name)) out.push({ ...s, kind: 'sdk', name });
    else if (Node.isNewExpression(s.node) && name === 'SSEServerTransport') out.push({ ...s, kind: 'sse', name });
    else if (Node.isCallExpression(s.node) && SDK_HANDLERS.has(name)) out.push({ ...s, kind: 'sdk', name });
  };
  for (const s of sitesOf(files, K.calls, isCall, rawCallNamed(TRANSPORT_NAMES))) take(s, calleeName(s.node) ?? '');
  // The SDK's classes imported under another name (`import { StreamableHTTPServerTransport as HttpTransport }`).
  for (const f of files) {
    const aliases = new Map<string, string>();
    for (const [local, b] of importsOf(f[1])) if (b.module.startsWith('@modelcontextprotocol/') && TRANSPORT_NAMES.has(b.imported) && local !== b.imported) aliases.set(local, b.imported);
    if (aliases.size === 0) continue;
    for (const s of sitesOf([f], K.calls, isCall, rawCallNamed(new Set(aliases.keys())))) {
      const e = unwrap(s.node.getExpression());
      if (Node.isIdentifier(e) && aliases.has(e.getText())) take(s, aliases.get(e.getText())!);
    }
  }
  if (out.length > 0) return out;
  for (const [file, sf] of files) {
    const speaksJsonRpc =
      ofKinds(sf, K.strings, JSONRPC_STRING).some((n) => stringValue(n) === 'jsonrpc') ||
      ofKinds(sf, K.properties, JSONRPC_KEY).some((n) => (Node.isPropertyAssignment(n) || Node.isShorthandPropertyAssignment(n)) && propertyName(n.getNameNode()) === 'jsonrpc');
    for (const n of ofKinds(sf, K.call, HAND_BUILT_CALLS)) {
      if (!Node.isCallExpression(n)) continue;
      const name = calleeName(n) ?? '';
      const first = n.getArguments()[0];
      if (ROUTE_METHODS.includes(name) && receiverOf(n) && isMcpRoute(stringValue(first))) {
        out.push({ file, node: n, kind: 'hand-built', name: `${name}('${stringValue(first)}')` });
      } else if (speaksJsonRpc && (HTTP_SERVER_FACTORIES.has(name) || /^(Bun|Deno)\.serve$/.test(calleeText(n))) && servesMcp(n)) {
        out.push({ file, node: n, kind: 'hand-built', name: calleeText(n) });
      }
    }
  }
  // A route registered on a hand-built server counts once: keep the routes when both are found in a file.
  const routed = new Set(out.filter((t) => t.name.includes("('")).map((t) => t.file));
  return out.filter((t) => t.name.includes("('") || !routed.has(t.file));
}

/** Modules whose servers are not HTTP: a listener of theirs is no HTTP transport (a socket for IPC, TLS, UDP). */
const NOT_HTTP_MODULES = new Set(['net', 'tls', 'dgram']);
/** What only an MCP message handler says: MCP method names, an SDK transport's entry points. */
const MCP_SPEECH = /['"`](?:initialize|tools\/(?:list|call)|notifications\/initialized|server\/discover|prompts\/(?:list|get)|resources\/(?:list|read))['"`]|\.handle(?:Request|PostMessage)\s*\(/;
/** A JSON-RPC envelope, and a handler that reads the request's body: together, a hand-written JSON-RPC endpoint. */
const JSONRPC = /\bjsonrpc\b/;
const READS_BODY = /\breq(?:uest)?\.body\b|\b(?:req|request)\.(?:json|text)\s*\(|\b(?:req|request)\.on\s*\(\s*['"]data['"]|for\s+await\s*\(\s*(?:const|let)\s+\w+\s+of\s+req(?:uest)?\b/;

/**
 * Is this server factory call (`createServer(…)`, `serve({ fetch })`, `Bun.serve(…)`) an MCP transport
 * rather than another listener of the same process (an OAuth redirect callback, a health or metrics port,
 * a socket for IPC)? Not when it comes from `net`, `tls` or `dgram`. When its request handler is written
 * in the source (a function argument, or the `fetch` of an options object), only if that handler, or a
 * function of the source it calls (one call deep), speaks MCP: MCP method names or an SDK transport's
 * handleRequest; or the handler reads the request's body and writes a JSON-RPC envelope. A JSON-RPC
 * client called from a health check is not that. A handler the reading cannot find (`createServer(app)`)
 * keeps the file-level reading: the file speaks JSON-RPC.
 */
function servesMcp(call: CallExpression): boolean {
  const callee = unwrap(call.getExpression());
  const root = Node.isPropertyAccessExpression(callee) ? unwrap(callee.getExpression()) : callee;
  if (Node.isIdentifier(root)) {
    const b = importsOf(call.getSourceFile()).get(root.getText());
    if (b && NOT_HTTP_MODULES.has(b.module.replace(/^node:/, ''))) return false;
  }
  const handlers: Node[] = [];
  for (const a of call.getArguments()) {
    const u = unwrap(a);
    if (Node.isArrowFunction(u) || Node.isFunctionExpression(u)) handlers.push(u);
    else if (Node.isObjectLiteralExpression(u)) {
      const f = u.getProperty('fetch');
      if (f) handlers.push(f);
    } else if (Node.isIdentifier(u)) {
      const decl = declarationOf(u);
      if (decl && (Node.isFunctionDeclaration(decl) || (Node.isVariableDeclaration(decl) && decl.getInitializer()))) handlers.push(decl);
    }
  }
  if (handlers.length === 0) return true;
  return handlers.some((h) => speaksMcp(h, READS_BODY.test(h.getText()), 0));
}

/** Does this handler (or a function of the source it calls, one call deep) speak MCP? `readsBody`: the handler reads the request body. */
function speaksMcp(h: Node, readsBody: boolean, depth: number): boolean {
  const text = h.getText();
  const body = readsBody || READS_BODY.test(text);
  if (MCP_SPEECH.test(text) || (body && JSONRPC.test(text))) return true;
  if (depth > 0) return false;
  for (const call of h.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const c = unwrap(call.getExpression());
    if (!Node.isIdentifier(c)) continue;
    const decl = declarationOf(c);
    if (decl && (Node.isFunctionDeclaration(decl) || Node.isVariableDeclaration(decl)) && speaksMcp(decl, body, depth + 1)) return true;
  }
  return false;
}

const HTTP_MODULES = new Set(['http', 'https', 'http2', 'express', 'fastify', 'hono', '@hono/node-server', 'koa', 'polka', '@modelcontextprotocol/node', '@modelcontextprotocol/sdk/server/express.js']);

export interface ListenSite extends Site {
  /** none: no host given (every interface); literal: a known host; socket: a Unix socket path; unknown: a value not known statically. */
  host: { kind: 'none' } | { kind: 'literal'; value: string } | { kind: 'socket' } | { kind: 'unknown' };
}

/** True when a file sets up an HTTP server (imports an HTTP module or calls createServer / express()). */
function servesHttp(sf: SourceFile): boolean {
  for (const b of importsOf(sf).values()) if (HTTP_MODULES.has(b.module)) return true;
  return false;
}

function hostOf(n: Node | undefined): ListenSite['host'] {
  if (!n) return { kind: 'none' };
  const v = staticString(n) ?? constMemberString(n);
  if (v === undefined) return { kind: 'unknown' };
  return { kind: 'literal', value: v };
}

/**
 * `config.host` where `config` is a const object literal of the file (`const config = { host: process.env.HOST ??
 * '0.0.0.0' }`): the member's static string, its default included, as staticString reads a variable. The literal's
 * member is not the value listened on when the object can be changed elsewhere: exported, a member assigned in the
 * file (`config.host = argv.host`, `config.host ??= …`, `config[k] = …`), or the object handed on (to a call such as
 * `Object.assign(config, parseArgs())` or `merge(config, …)`, aliased, put in another object, re-exported).
 */
function constMemberString(n: Node): string | undefined {
  const u = unwrap(n);
  if (!Node.isPropertyAccessExpression(u)) return undefined;
  const obj = unwrap(u.getExpression());
  if (!Node.isIdentifier(obj)) return undefined;
  const d = declarationOf(obj);
  if (!d || !Node.isVariableDeclaration(d) || String(d.getVariableStatement()?.getDeclarationKind()) !== 'const') return undefined;
  if (d.getVariableStatement()?.isExported()) return undefined;
  const lit = initializerOf(d);
  if (!lit || !Node.isObjectLiteralExpression(lit)) return undefined;
  const name = u.getName();
  const changed = objectsChanged(d.getSourceFile()).get(obj.getText());
  if (changed === true || changed?.has(name)) return undefined;
  return staticString(propertyOf(lit, name));
}

/**
 * Per file, once: the names of objects whose members may change — name → the members assigned (`x.host = …`, any
 * assignment operator), or true when the object itself is handed on or written by a computed key.
 */
const changedMemo = new WeakMap<SourceFile, Map<string, Set<string> | true>>();
function objectsChanged(sf: SourceFile): Map<string, Set<string> | true> {
  noteSourceRead('js'); // a memoised answer still counts as reading the source
  let out = changedMemo.get(sf);
  if (out) return out;
  const m = new Map<string, Set<string> | true>();
  out = m;
  const whole = (e: ts.Node | undefined): void => {
    const x = e && rawUnwrap(e);
    if (x && ts.isIdentifier(x)) m.set(x.text, true);
  };
  const member = (obj: string, key: string): void => {
    const cur = m.get(obj);
    if (cur === true) return;
    if (cur) cur.add(key);
    else m.set(obj, new Set([key]));
  };
  const visit = (cn: ts.Node): void => {
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && cn.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const l = rawUnwrap(cn.left);
      if (ts.isPropertyAccessExpression(l) && ts.isIdentifier(rawUnwrap(l.expression))) member((rawUnwrap(l.expression) as ts.Identifier).text, l.name.text);
      else if (ts.isElementAccessExpression(l)) whole(l.expression);
      if (cn.operatorToken.kind === ts.SyntaxKind.EqualsToken) whole(cn.right);
    } else if (ts.isCallExpression(cn) || ts.isNewExpression(cn)) {
      for (const a of cn.arguments ?? []) whole(ts.isSpreadElement(a) ? undefined : a);
    } else if (ts.isVariableDeclaration(cn)) whole(cn.initializer);
    else if (ts.isShorthandPropertyAssignment(cn)) m.set(cn.name.text, true);
    else if (ts.isPropertyAssignment(cn)) whole(cn.initializer);
    else if (ts.isExportSpecifier(cn)) m.set((cn.propertyName ?? cn.name).text, true);
    else if (ts.isExportAssignment(cn)) whole(cn.expression);
    ts.forEachChild(cn, visit);
  };
  visit(sf.compilerNode);
  changedMemo.set(sf, out);
  return out;
}

/** Where HTTP servers start listening: x.listen(port[, host]), x.listen({ port, host }), serve({ fetch, hostname }), Bun.serve({ hostname }). */
export const listenSites = memo(findListenSites);
/** Raw pre-filter of findListenSites: only `listen` and `serve` calls are read. */
const LISTEN_CALLS = rawCallNamed(new Set(['listen', 'serve']));

function findListenSites(files: [string, SourceFile][]): ListenSite[] {
  const out: ListenSite[] = [];
  for (const [file, sf] of files) {
    if (!servesHttp(sf) && !/\bBun\.serve\b|\bDeno\.serve\b/.test(sf.getFullText())) continue;
    for (const n of ofKinds(sf, K.call, LISTEN_CALLS)) {
      if (!Node.isCallExpression(n)) continue;
      const name = calleeName(n);
      const a = args(n);
      if (name === 'listen' && receiverOf(n)) {
        const first = a[0];
        if (first && Node.isObjectLiteralExpression(first)) {
          // `client.listen({ toolsListChanged: true, … })` (an MCP client's subscription stream, an event API): an
          // object naming none of a socket's listen options, and spreading none, starts no server.
          if (!listenOptions(first)) continue;
          if (propertyOf(first, 'path')) out.push({ file, node: n, host: { kind: 'socket' } });
          else out.push({ file, node: n, host: hostOf(propertyOf(first, 'host')) });
          continue;
        }
        const firstStr = staticString(first);
        if (firstStr !== undefined && !/^\d+$/.test(firstStr)) {
          out.push({ file, node: n, host: { kind: 'socket' } });
          continue;
        }
        const second = a[1];
        const hostArg = second && !Node.isArrowFunction(second) && !Node.isFunctionExpression(second) && !Node.isNumericLiteral(second) ? second : undefined;
        out.push({ file, node: n, host: hostOf(hostArg) });
      } else if ((name === 'serve' && (calleeImport(n)?.module === '@hono/node-server' || /^(Bun|Deno)\.serve$/.test(calleeText(n))))) {
        const opts = a.find((x) => Node.isObjectLiteralExpression(x));
        out.push({ file, node: n, host: hostOf(propertyOf(opts, 'hostname')) });
      }
    }
  }
  return out;
}

/** The options `net.Server.listen` reads (Node's ListenOptions); an object literal with none of them, nor a spread, is no such options object. */
const LISTEN_OPTION_KEYS = new Set(['port', 'host', 'path', 'fd', 'handle', 'backlog', 'exclusive', 'ipv6Only', 'reusePort', 'readableAll', 'writableAll', 'signal']);
function listenOptions(obj: Node): boolean {
  if (!Node.isObjectLiteralExpression(obj)) return true;
  const props = obj.getProperties();
  if (props.length === 0) return true;
  return props.some((p) => Node.isSpreadAssignment(p) || (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p) ? LISTEN_OPTION_KEYS.has(propertyName(p.getNameNode()) ?? '') : true));
}

export const isLoopback = (h: string): boolean => /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\]|::ffff:127(?:\.\d{1,3}){3})$/i.test(h);
export const isAllInterfaces = (h: string): boolean => ['0.0.0.0', '::', '[::]', ''].includes(h);

const DEPLOYMENT_FILES = ['Dockerfile', 'fly.toml', 'vercel.json', 'render.yaml', 'railway.json', 'railway.toml', 'app.yaml', 'Procfile', 'wrangler.toml', 'wrangler.json', 'wrangler.jsonc', 'serverless.yml', 'netlify.toml'];

/**
 * Evidence that the server is deployed remotely (a deployment file at the root or in a folder above
 * `near`, the file that starts the server; or a non-loopback HTTP URL in mcp.json), else undefined.
 */
export function remoteDeployment(repo: RepoFacts, near?: string): string | undefined {
  const dirs = [''];
  if (near) {
    const parts = near.split('/').slice(0, -1);
    for (let i = parts.length; i > 0; i--) dirs.push(parts.slice(0, i).join('/') + '/');
  }
  for (const dir of dirs) {
    const f = DEPLOYMENT_FILES.find((d) => repo.has(dir + d));
    if (f) return dir + f;
  }
  const mcp = repo.object('mcp.json');
  if (!mcp.ok) return undefined;
  const t = mcp.value.transport;
  for (const e of Array.isArray(t) ? t : [t]) {
    const url = e && typeof e === 'object' ? (e as { url?: unknown }).url : undefined;
    if (typeof url !== 'string') continue;
    try {
      if (!isLoopback(new URL(url).hostname)) return 'mcp.json';
    } catch {
      /* not a URL: no evidence */
    }
  }
  return undefined;
}

const AUTH_CALLS = new Set(['requireBearerAuth', 'verifyBearerToken', 'bearerAuth', 'verifyAccessToken', 'verifyToken', 'jwtVerify', 'timingSafeEqual', 'introspectToken']);

/** Places where requests are checked for a credential: an auth middleware or verifier, or the Authorization header read. */
export const authChecks = memo(findAuthChecks);
/** The names of AUTH_CALLS as a text search: a file that spells none of them (and has no unicode escape) has no such call. */
const AUTH_NAME_TEXT = new RegExp([...AUTH_CALLS].join('|'));

function findAuthChecks(files: [string, SourceFile][]): Site[] {
  const spelled = files.filter(([, sf]) => {
    const text = sf.getFullText();
    return AUTH_NAME_TEXT.test(text) || text.includes('\\u');
  });
  const calls = sitesOf(
    spelled,
    K.calls,
    (n) => {
      if (!isCall(n)) return false;
      if (AUTH_CALLS.has(calleeName(n) ?? '')) return true;
      // passed as middleware: app.use(verifyToken)
      return (n.getArguments() as Node[]).some((a) => Node.isIdentifier(a) && AUTH_CALLS.has(a.getText()));
    },
    (cn) =>
      AUTH_CALLS.has(rawCalleeName(cn) ?? '') ||
      !!(cn as ts.CallExpression).arguments?.some((a) => ts.isIdentifier(a) && AUTH_CALLS.has(a.text)),
  );
  return [...calls, ...headerReads(files, 'authorization')];
}

/** The local function a call invokes (declared, or a const arrow / function expression), in the same file. */
export function calledFunction(call: Call): Node | undefined {
  const e = unwrap(call.getExpression());
  if (!Node.isIdentifier(e)) return undefined;
  const d = declarationOf(e);
  if (d && Node.isFunctionDeclaration(d)) return d;
  const i = initializerOf(d);
  if (i && (Node.isArrowFunction(i) || Node.isFunctionExpression(i))) return i;
  return undefined;
}

/** answersStatus on a node, or on a local function it calls (a helper such as deny(res) that writes the 403). */
export function answersStatusDeep(root: Node, code: number): boolean {
  if (answersStatus(root, code)) return true;
  const identifierCallee = (cn: ts.CallExpression): boolean => {
    let e: ts.Expression = cn.expression;
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return ts.isIdentifier(e);
  };
  return findNodes(root, (cn) => cn !== root.compilerNode && ts.isCallExpression(cn) && identifierCallee(cn)).some((n) => answersThroughHelper(root, n, code));
}

/** A call of a local function (not the root, nor one holding it) that answers the status: `deny(res)` writing the 403. */
function answersThroughHelper(root: Node, n: Node, code: number): boolean {
  if (!Node.isCallExpression(n)) return false;
  const fn = calledFunction(n);
  return !!fn && fn !== root && !fn.containsRange(root.getPos(), root.getEnd()) && answersStatus(fn, code);
}

/** statusSites, and the calls of local helpers that answer the status (answersStatusDeep's reading), as places. */
export function statusSitesDeep(root: Node, code: number): Node[] {
  const identifierCallee = (cn: ts.CallExpression): boolean => {
    let e: ts.Expression = cn.expression;
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return ts.isIdentifier(e);
  };
  const helpers = findNodes(root, (cn) => cn !== root.compilerNode && ts.isCallExpression(cn) && identifierCallee(cn)).filter((n) => answersThroughHelper(root, n, code));
  return [...statusSites(root, code), ...helpers];
}

/**
 * The listen sites that start the MCP transport: those in the transports' files, else every listen site other than
 * those of servers shown to be something else (listensForOther: an OAuth redirect callback in its own module).
 */
export function transportListenSites(files: [string, SourceFile][], transports: HttpTransport[]): ListenSite[] {
  // Only in files without a transport: beside one, a handler that hands requests on by a name (`node(req, res)` over
  // toNodeHandler) may well be the transport's own.
  const all = listenSites(files).filter((l) => transports.some((t) => t.file === l.file) || !listensForOther(l));
  const mine = all.filter((l) => transports.some((t) => t.file === l.file));
  return mine.length > 0 ? mine : all;
}

/** Route registrations and the calls an app object takes without handing it elsewhere. */
const APP_METHODS = new Set([...ROUTE_METHODS, 'get', 'put', 'patch', 'delete', 'listen', 'set', 'disable', 'enable', 'close', 'on', 'once', 'address']);
/** What hands a request to an MCP transport (an SDK transport's entry points or constructors, the v2 handler). */
const MCP_HANDOFF_TEXT = /\.handle(?:Request|PostMessage)\s*\(|\b(?:StreamableHTTPServerTransport|SSEServerTransport|createMcpHandler|toNodeHandler)\b/;

/** The value a server expression was made from: a call written inline, a variable's initializer, `this.x = …` in the class. */
function madeFrom(e: Node | undefined, depth = 0): Node | undefined {
  if (!e || depth > 3) return undefined;
  const u = unwrap(e);
  if (Node.isCallExpression(u) || Node.isNewExpression(u)) return u;
  if (Node.isIdentifier(u)) return madeFrom(initializerOf(declarationOf(u)), depth + 1);
  if (Node.isPropertyAccessExpression(u) && unwrap(u.getExpression()).getKind() === SyntaxKind.ThisKeyword) {
    const cls = u.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
    if (!cls) return undefined;
    const name = u.getName();
    for (const b of cls.getDescendantsOfKind(SyntaxKind.BinaryExpression)) {
      const l = unwrap(b.getLeft());
      if (b.getOperatorToken().getText() === '=' && Node.isPropertyAccessExpression(l) && l.getName() === name && unwrap(l.getExpression()).getKind() === SyntaxKind.ThisKeyword) {
        const r = unwrap(b.getRight());
        if (Node.isCallExpression(r) || Node.isNewExpression(r)) return r;
      }
    }
  }
  return undefined;
}

/**
 * Is this listener shown to serve something other than MCP — an OAuth redirect callback on localhost during login,
 * a health port? Yes for `createServer(handler)` (http, https) whose request handler is a function written in the
 * source that does not speak MCP (servesMcp's reading: MCP method names, an SDK transport's entry points, or a
 * JSON-RPC body), and for an app (`express()`, `new Hono()`) whose every use in its file is a route, a setting or
 * the listen, with at least one route and none on an MCP path or handing requests to an MCP transport. Anything
 * the reading cannot follow (the app handed to another function, a handler read from elsewhere) stays a listener
 * of the transport, and so does every listener in a file that creates an HTTP transport (transportListenSites).
 */
function listensForOther(l: ListenSite): boolean {
  const call = l.node;
  if (!Node.isCallExpression(call) || calleeName(call) !== 'listen') return false;
  const made = madeFrom(receiverOf(call));
  if (!made || !Node.isCallExpression(made)) return appOffMcp(made);
  if (HTTP_SERVER_FACTORIES.has(calleeName(made) ?? '')) {
    const fnArgs = made.getArguments().map(unwrap);
    const handler = fnArgs.find((a) => Node.isArrowFunction(a) || Node.isFunctionExpression(a) || Node.isIdentifier(a));
    if (!handler) return false;
    if (Node.isIdentifier(handler)) {
      const d = declarationOf(handler);
      const i = initializerOf(d);
      if (d && Node.isFunctionDeclaration(d)) return !speaksMcp(d, READS_BODY.test(d.getText()), 0);
      if (i && (Node.isArrowFunction(i) || Node.isFunctionExpression(i))) return !speaksMcp(i, READS_BODY.test(i.getText()), 0);
      // createServer(app): the app decides.
      return appOffMcp(madeFrom(handler));
    }
    return !speaksMcp(handler, READS_BODY.test(handler.getText()), 0);
  }
  return appOffMcp(made);
}

/** An app (`express()`, `new Hono()`, `fastify()`) held in a variable, all of whose routes are off MCP (see listensForOther). */
function appOffMcp(made: Node | undefined): boolean {
  if (!made || !(Node.isCallExpression(made) || Node.isNewExpression(made))) return false;
  const holder = made.getParent();
  if (!holder || !Node.isVariableDeclaration(holder) || !Node.isIdentifier(holder.getNameNode())) return false;
  const mod = Node.isCallExpression(made) ? calleeImport(made)?.module : undefined;
  const ctor = Node.isNewExpression(made) ? unwrap(made.getExpression()).getText() : '';
  if (!(mod && ['express', 'fastify', 'koa', 'polka'].includes(mod)) && !['Hono', 'Koa'].includes(ctor)) return false;
  const name = holder.getName();
  const scope = holder.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a)) ?? holder.getSourceFile();
  let routes = 0;
  for (const id of scope.getDescendantsOfKind(SyntaxKind.Identifier)) {
    if (id.getText() !== name || id === holder.getNameNode()) continue;
    const p = id.getParent();
    if (!p || !Node.isPropertyAccessExpression(p) || p.getExpression() !== id) return false;
    const m = p.getName();
    const c = p.getParent();
    if (!APP_METHODS.has(m) || !c || !Node.isCallExpression(c) || c.getExpression() !== p) return false;
    if (!ROUTE_METHODS.includes(m) && !['get', 'put', 'patch', 'delete'].includes(m)) continue;
    routes++;
    const a0 = c.getArguments()[0];
    if (isMcpRoute(a0 ? stringValue(a0) : undefined)) return false;
    for (const a of c.getArguments().map(unwrap)) {
      if (MCP_HANDOFF_TEXT.test(a.getText())) return false;
      if (!Node.isIdentifier(a) || a === a0) continue;
      // A handler named here and written elsewhere (imported): what it does is not read.
      const d = declarationOf(a);
      if (!d || !(Node.isFunctionDeclaration(d) || Node.isVariableDeclaration(d)) || MCP_HANDOFF_TEXT.test(d.getText())) return false;
    }
  }
  return routes > 0;
}

/** The host a listen site binds, as shown in messages. */
export const hostLabel = (h: ListenSite['host']): string => (h.kind === 'literal' ? h.value || '(empty)' : h.kind);

/**
 * The calls of a local function, by name: in its own file, and in the files that import it by a relative
 * path (`import { f }`, `import { f as g }`, `import * as m` then m.f). Methods and object members are
 * not followed (a bare method name says too little without a type checker).
 */
export function callersOf(fn: Node, files: [string, SourceFile][]): Site<CallExpression>[] {
  let perFn = callersMemo.get(files);
  if (!perFn) callersMemo.set(files, (perFn = new WeakMap()));
  let hit = perFn.get(fn);
  if (!hit) perFn.set(fn, (hit = findCallers(fn, files)));
  return hit;
}

const callersMemo = new WeakMap<object, WeakMap<Node, Site<CallExpression>[]>>();

/** Per file, its bindings imported by a relative path (files without any are left out). */
const relativeImports = memo((files: [string, SourceFile][]) => {
  const out = new Map<SourceFile, [string, Binding][]>();
  /** The files importing a name (by its exported name), and the files with a namespace import. */
  const byImported = new Map<string, Set<SourceFile>>();
  const namespaced = new Set<SourceFile>();
  for (const [, sf] of files) {
    // The package's own files: relative paths, and its subpath imports (`#mcp/server`, package.json `imports`).
    const list = [...importsOf(sf)].filter(([, b]) => b.module.startsWith('.') || b.module.startsWith('#'));
    if (!list.length) continue;
    out.set(sf, list);
    for (const [local, b] of list) {
      if (b.imported === '*') namespaced.add(sf);
      else {
        // A default import is indexed under its local name too: it reaches a default-exported function of that name.
        for (const key of b.imported === 'default' ? [b.imported, local] : [b.imported]) {
          let set = byImported.get(key);
          if (!set) byImported.set(key, (set = new Set()));
          set.add(sf);
        }
      }
    }
  }
  return { of: out, byImported, namespaced };
});

/** `export default function name(…)`: what a default import named like it (`import name from './x'`) calls. */
const defaultExported = (fn: Node): boolean => Node.isFunctionDeclaration(fn) && fn.hasModifier(SyntaxKind.DefaultKeyword);

function findCallers(fn: Node, files: [string, SourceFile][]): Site<CallExpression>[] {
  if (Node.isMethodDeclaration(fn) || Node.isSourceFile(fn)) return [];
  const p = fn.getParent();
  if (p && Node.isPropertyAssignment(p)) return [];
  const name = functionName(fn);
  if (!name) return [];
  const home = fn.getSourceFile();
  const rel = relativeImports(files);
  const out: Site<CallExpression>[] = [];
  const importers = rel.byImported.get(name);
  for (const [file, sf] of files) {
    if (sf !== home && !importers?.has(sf) && !rel.namespaced.has(sf)) continue;
    const direct = new Set<string>();
    const namespaces = new Set<string>();
    if (sf === home) direct.add(name);
    const imports = rel.of.get(sf);
    for (const [local, b] of imports ?? []) {
      if (b.imported === name || (b.imported === 'default' && local === name && defaultExported(fn))) direct.add(local);
      else if (b.imported === '*') namespaces.add(local);
    }
    if (direct.size === 0 && namespaces.size === 0) continue;
    // Calls by the name they call (`f` for f(…), m.f(…)), from the shared per-file name index.
    const names = new Set([...direct, name]);
    const calls = ofKinds(sf, K.call, named(names, (cn) => names.has(rawCalleeName(cn) ?? ''))) as CallExpression[];
    for (const n of calls) {
      if (sf === home && fn.containsRange(n.getPos(), n.getEnd())) continue;
      const e = unwrap(n.getExpression());
      if (Node.isIdentifier(e) && direct.has(e.getText())) out.push({ file, node: n });
      else if (Node.isPropertyAccessExpression(e) && e.getName() === name && namespaces.has(unwrap(e.getExpression()).getText())) out.push({ file, node: n });
    }
  }
  return out;
}
