import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { fieldValues, functionOf, GLOBAL, isFunctionLike, rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import { rawFunctionName, rawUnwrap, wrapNode } from '../../facts/ts-source.js';
import type { Code, Fn } from '../support/source/code-paths.js';

/**
 * The reverse reading of S-13 (static): from a request without a time limit that the forward reading of the
 * handlers did not reach (static.ts untraced), up through the callers of the function around it, to a function the
 * forward reading did reach (a tool, prompt, resource or request handler, or a function on one of their paths).
 * Callers are the calls the name resolution follows to the function (callSitesOf), and, where it does not:
 * - member calls by name (`this.auth.handleCallback(code)`, `registry().get(host).runRemote(cmd)`) to a class member
 *   or object-literal property of the audited source (never a plain function: `auth.getAccessToken()` is not our
 *   top-level `getAccessToken`) when the name is defined once there and is not a common one (`get`, `request`,
 *   `run`, `execute`…), and the receiver is not a package's (an import, an instance of a package's class);
 * - a method named by a string (`{ handler: this.authHandler, method: 'handleAuthCallback' }`) when reached code
 *   calls a member chosen at run time (`handler[method](args)`) and the string sits in the function of that call or
 *   in what flows to its receiver or key (the function whose result they are, the object literal they hold) —
 *   never the `name:` of a tool, prompt or resource descriptor — under the same conditions;
 * - an entry of a tool table held in a field of a class that reached code looks up at run time (`this.handlers[name](args)`,
 *   `const h = this.handlers[name]; h(args)`, `this.tools.get(name)(args)`): the literal the field is given (an object,
 *   an array, `new Map([[…]])`, in the class's constructor or as the field's initializer) holds the functions the lookup may
 *   call — a function written there (`get_contact: async (a) => …`), or a member named there as a value
 *   (`this.getContact.bind(this)`, `this.getContact`: of the same class; on another receiver, a name defined once).
 * Up to MAX_DEPTH callers deep; a chain that ends at a module's top level (start-up code) reaches nothing.
 * The index of calls, definitions and strings by name is built once per audit, by one walk of each file; the
 * places of the run-time member calls once per set of reached functions; the walk's result once per starting function.
 */

const MAX_DEPTH = 5;

/** Names that never link by name alone: built-in methods and the generic verbs of API clients and servers. */
const COMMON = new Set([
  'get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request', 'send', 'call', 'apply', 'bind', 'run', 'execute', 'exec', 'fetch',
  'handle', 'handler', 'process', 'invoke', 'dispatch', 'query', 'search', 'list', 'create', 'update', 'remove', 'find', 'load', 'save', 'read',
  'write', 'open', 'close', 'connect', 'disconnect', 'start', 'stop', 'init', 'initialize', 'main', 'then', 'catch', 'finally', 'set', 'has', 'add',
  'clear', 'keys', 'values', 'entries', 'forEach', 'map', 'filter', 'reduce', 'some', 'every', 'push', 'pop', 'shift', 'unshift', 'slice',
  'splice', 'concat', 'join', 'includes', 'indexOf', 'sort', 'toString', 'toJSON', 'valueOf', 'emit', 'on', 'once', 'off', 'end', 'json', 'text',
  'parse', 'stringify', 'log', 'info', 'warn', 'error', 'debug', 'shell', 'default', 'constructor', 'callTool', 'listTools', 'tool', 'registerTool',
  'setRequestHandler', 'resolve', 'reject', 'next', 'use', 'listen', 'wrap', 'format', 'validate', 'transform', 'build', 'render', 'getClient',
]);

interface Index {
  /** Member calls by the name they call (`x.name(…)`). */
  calls: Map<string, ts.CallExpression[]>;
  /** How many functions of the source carry each name (declarations, methods, consts and members holding one). */
  defined: Map<string, number>;
  /** String literals that spell an identifier, by text. */
  strings: Map<string, ts.StringLiteralLike[]>;
  /** Calls of a member chosen at run time: `handler[method](args)`, `handlers.get(name)(args)`, `const h = handlers[name]; h(args)`. */
  computed: ts.CallExpression[];
  /** Functions named as values (`this.getContact.bind(this)`, `{ get_contact: this.getContact }`), by name: an entry of a table. */
  refs: Map<string, ts.Node[]>;
  sfOf: Map<ts.SourceFile, SourceFile>;
}

const memo = new WeakMap<object, Index>();
function indexOf(code: Code): Index {
  const hit = memo.get(code.sources);
  if (hit) return hit;
  const idx: Index = { calls: new Map(), defined: new Map(), strings: new Map(), computed: [], refs: new Map(), sfOf: new Map() };
  const push = <T>(m: Map<string, T[]>, k: string, v: T) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  const define = (name: string | undefined) => name && idx.defined.set(name, (idx.defined.get(name) ?? 0) + 1);
  // Per function (or file), the variables holding a member looked up at run time.
  const lookedUp = new Map<ts.Node, Set<string>>();
  for (const [, sf] of code.files) {
    idx.sfOf.set(sf.compilerNode, sf);
    const visit = (cn: ts.Node): void => {
      if (ts.isCallExpression(cn)) {
        let c: ts.Expression = cn.expression;
        while (ts.isParenthesizedExpression(c) || ts.isNonNullExpression(c)) c = c.expression;
        // Member calls only: a plain `name(…)` is linked by the name resolution (callSitesOf), or is another module's.
        if (ts.isPropertyAccessExpression(c)) push(idx.calls, c.name.text, cn);
        else if (isLookup(c)) idx.computed.push(cn);
        else if (ts.isIdentifier(c) && lookedUp.get(innermostFn(cn) ?? sf.compilerNode)?.has(c.text)) idx.computed.push(cn);
      } else if (ts.isVariableDeclaration(cn) && ts.isIdentifier(cn.name) && cn.initializer && isLookup(unwrapExpr(cn.initializer))) {
        // `const handler = this.handlers[name]`: a call of `handler(args)` in the same function is a run-time lookup's.
        const at = innermostFn(cn) ?? sf.compilerNode;
        const names = lookedUp.get(at);
        if (names) names.add(cn.name.text);
        else lookedUp.set(at, new Set([cn.name.text]));
      } else if (ts.isPropertyAccessExpression(cn) && isValueRef(cn)) {
        push(idx.refs, cn.name.text, cn);
      } else if ((ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && /^[A-Za-z_$][\w$]{2,60}$/.test(cn.text)) {
        push(idx.strings, cn.text, cn);
      } else if (isRawFunction(cn)) define(rawFunctionName(cn));
      ts.forEachChild(cn, visit);
    };
    visit(sf.compilerNode);
  }
  memo.set(code.sources, idx);
  return idx;
}

/** A member chosen at run time: `table[key]` (a key that is not a literal), `table.get(key)` (a Map's). */
function isLookup(e: ts.Node): e is ts.ElementAccessExpression | ts.CallExpression {
  if (ts.isElementAccessExpression(e)) return !ts.isStringLiteralLike(e.argumentExpression) && !ts.isNumericLiteral(e.argumentExpression);
  return ts.isCallExpression(e) && e.arguments.length === 1 && !ts.isStringLiteralLike(e.arguments[0]!) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'get';
}

/** The table and the key of a run-time lookup (see isLookup). */
function lookupParts(e: ts.Node): { table: ts.Expression; key: ts.Expression } | undefined {
  if (ts.isElementAccessExpression(e)) return { table: e.expression, key: e.argumentExpression };
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) return { table: e.expression.expression, key: e.arguments[0]! };
  return undefined;
}

/** A member named as a value where a table holds it: a property's value, an array's element, `.bind(…)`'s receiver. */
function isValueRef(pa: ts.PropertyAccessExpression): boolean {
  let p = pa.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p))) p = p.parent;
  if (!p) return false;
  if (ts.isPropertyAssignment(p)) return p.initializer === pa;
  if (ts.isArrayLiteralExpression(p)) return true;
  return ts.isPropertyAccessExpression(p) && p.expression === pa && p.name.text === 'bind' && !!p.parent && ts.isCallExpression(p.parent) && p.parent.expression === p;
}

function isRawFunction(cn: ts.Node): cn is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isFunctionExpression(cn) || ts.isArrowFunction(cn);
}

/** The function a call or a string sits in, past the function literals handed to a call (callbacks, Promise executors), which belong to it. */
function ownerOf(cn: ts.Node): ts.Node | undefined {
  let p = cn.parent;
  while (p) {
    if (isRawFunction(p) || ts.isConstructorDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) {
      if ((ts.isArrowFunction(p) || ts.isFunctionExpression(p)) && !rawFunctionName(p)) {
        p = p.parent;
        continue;
      }
      return p;
    }
    p = p.parent;
  }
  return undefined;
}

/** The chain's end: the reached function a call or string sits in (itself or any function around it), or undefined. */
function reachedAround(cn: ts.Node, reached: ReadonlySet<ts.Node>): ts.Node | undefined {
  for (let p: ts.Node | undefined = cn.parent; p; p = p.parent) if (reached.has(p)) return p;
  return undefined;
}

/** Per set of reached functions: where the strings a run-time member call of reached code may use sit (computedScopes), and the walks' results by starting function. */
interface Reading {
  /** The function around each such call and what flows to its receiver or key, mapped to the call. */
  scopes: Map<ts.Node, ts.CallExpression>;
  /** Of those, the literals of tables held in a class's fields (a function sitting in one is an entry the call may choose). */
  tables: Set<ts.Node>;
  chains: Map<ts.Node, Chain | null>;
}
const readings = new WeakMap<ReadonlySet<ts.Node>, Reading>();

/** The innermost function a node sits in (a callback included). */
function innermostFn(cn: ts.Node): ts.Node | undefined {
  for (let p = cn.parent; p; p = p.parent) {
    if (isRawFunction(p) || ts.isConstructorDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) return p;
  }
  return undefined;
}

/** rawUnwrap, through `await` too. */
const unwrapExpr = (e: ts.Node): ts.Node => {
  let u = rawUnwrap(e);
  while (ts.isAwaitExpression(u)) u = rawUnwrap(u.expression);
  return u;
};

/** The identifier a receiver or key is read from: `entry` of `entry.handler`, `handlers` of `handlers[name]`. */
function rootIdentifier(e: ts.Node): ts.Identifier | undefined {
  let u = unwrapExpr(e);
  while (ts.isPropertyAccessExpression(u) || ts.isElementAccessExpression(u)) u = unwrapExpr(u.expression);
  return ts.isIdentifier(u) ? u : undefined;
}

/** The initializer of the variable (or destructuring pattern) an identifier is declared by. */
function initializerOfId(id: ts.Identifier): ts.Node | undefined {
  const d = rawDeclarationOf(id);
  let decl: ts.Node | undefined = d?.parent;
  while (decl && (ts.isBindingElement(decl) || ts.isObjectBindingPattern(decl) || ts.isArrayBindingPattern(decl))) decl = decl.parent;
  return decl && ts.isVariableDeclaration(decl) && decl.initializer ? unwrapExpr(decl.initializer) : undefined;
}

/**
 * Where the strings a run-time member call (`handler[method](args)`) may use sit: the function around the call, and
 * what flows to its receiver and key — the object literal a variable holds, the function whose result it is
 * (`const { handler, method } = this.table.lookup(name)`), followed through `table[name]` once or twice.
 */
function computedScopes(call: ts.CallExpression, code: Code, wrap: (cn: ts.Node) => Node | undefined, tables: Set<ts.Node>): ts.Node[] {
  const out: ts.Node[] = [];
  const own = innermostFn(call);
  if (own) out.push(own);
  let callee = unwrapExpr(call.expression);
  if (ts.isIdentifier(callee)) callee = initializerOfId(callee) ?? callee;
  const parts = lookupParts(callee);
  if (!parts) return out;
  const follow = (e: ts.Node, depth: number): void => {
    // A table held in a field of the class (`this.handlers = { get_contact: this.getContact.bind(this) }`, a field's
    // initializer, `new Map([[…]])`): its literal is where the entries sit.
    const u = unwrapExpr(e);
    if (ts.isPropertyAccessExpression(u) && unwrapExpr(u.expression).kind === ts.SyntaxKind.ThisKeyword) {
      const w = wrap(u);
      for (const v of w ? fieldValues(w) : []) {
        const x = unwrapExpr(v.compilerNode);
        if (ts.isObjectLiteralExpression(x) || ts.isArrayLiteralExpression(x) || (ts.isNewExpression(x) && x.arguments?.length === 1 && ts.isArrayLiteralExpression(x.arguments[0]!))) {
          out.push(x);
          tables.add(x);
        }
      }
      return;
    }
    const id = rootIdentifier(e);
    const init = id && depth < 3 ? initializerOfId(id) : undefined;
    if (!init) return;
    if (ts.isObjectLiteralExpression(init) || ts.isArrayLiteralExpression(init)) out.push(init);
    else if (ts.isCallExpression(init)) {
      const w = wrap(init);
      const fn = w && Node.isCallExpression(w) ? safeFunctionOf(w.getExpression(), code) : undefined;
      if (fn) out.push(fn.compilerNode);
    } else follow(init, depth + 1);
  };
  follow(parts.table, 0);
  follow(parts.key, 0);
  return out;
}

/** Properties beside `name:` that make an object literal a tool, prompt or resource descriptor. */
const DESCRIPTOR_KEYS = new Set(['description', 'inputSchema', 'outputSchema', 'annotations', 'arguments', 'uri', 'uriTemplate', 'mimeType', 'title']);
function isDescriptorName(s: ts.Node): boolean {
  const pa = s.parent;
  if (!pa || !ts.isPropertyAssignment(pa) || pa.initializer !== s || !ts.isIdentifier(pa.name) || pa.name.text !== 'name') return false;
  return ts.isObjectLiteralExpression(pa.parent) && pa.parent.properties.some((p) => !!p.name && ts.isIdentifier(p.name) && DESCRIPTOR_KEYS.has(p.name.text));
}

/** Whether a function is a class member or an object-literal property (`m() {}`, `m = () => …`, `{ m: function () {} }`, `obj.m = …`). */
function isMember(fnNode: ts.Node): boolean {
  if (ts.isMethodDeclaration(fnNode)) return true;
  if (!ts.isArrowFunction(fnNode) && !ts.isFunctionExpression(fnNode)) return false;
  let p = fnNode.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p))) p = p.parent;
  return !!p && (ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p) || (ts.isBinaryExpression(p) && ts.isPropertyAccessExpression(p.left)));
}

const isPackageModule = (m: string): boolean => m !== GLOBAL && !m.startsWith('.') && !m.startsWith('/');

/** Whether a member call's receiver is a package's: an import (`auth` of `import auth from 'x'`), or an instance of an imported class (`new GoogleAuth()`). */
function packageReceiver(recv: ts.Node, wrap: (cn: ts.Node) => Node | undefined): boolean {
  const r = unwrapExpr(recv);
  const o = rawOriginOf(r);
  if (o && isPackageModule(o.module)) return true;
  let values: ts.Node[] = [];
  if (ts.isIdentifier(r)) {
    const init = initializerOfId(r);
    if (init) values = [init];
  } else if (ts.isPropertyAccessExpression(r) && r.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const w = wrap(r);
    values = w ? fieldValues(w).map((v) => unwrapExpr(v.compilerNode)) : [];
  }
  return values.length > 0 && values.every((v) => {
    if (!ts.isNewExpression(v)) return false;
    const c = rawOriginOf(v.expression);
    return !!c && isPackageModule(c.module);
  });
}

export interface Chain {
  /** The reached function the chain ends in, and the call (or string) there that leads to the request. */
  handler: Node;
  via: Node;
}

/**
 * Whether the request `req` is on a reached path through its callers (see the file header). `reached` holds the
 * compiler nodes of the functions the forward reading read; `callSites` is the resolved call-site index.
 */
export function chainToHandler(req: Node, reached: ReadonlySet<ts.Node>, code: Code, callSites: (fn: Fn) => Node[]): Chain | undefined {
  const idx = indexOf(code);
  const start = ownerOf(req.compilerNode);
  if (!start) return undefined;
  const wrap = (cn: ts.Node): Node | undefined => {
    const sf = idx.sfOf.get(cn.getSourceFile());
    return sf ? wrapNode(sf, cn) : undefined;
  };
  let reading = readings.get(reached);
  if (!reading) {
    const scopes = new Map<ts.Node, ts.CallExpression>();
    const tables = new Set<ts.Node>();
    for (const c of idx.computed) if (reachedAround(c, reached)) for (const sc of computedScopes(c, code, wrap, tables)) if (!scopes.has(sc)) scopes.set(sc, c);
    readings.set(reached, (reading = { scopes, tables, chains: new Map() }));
  }
  const known = reading.chains.get(start);
  if (known !== undefined) return known ?? undefined;
  const chain = walk(start, reached, reading, idx, code, wrap, callSites);
  reading.chains.set(start, chain ?? null);
  return chain;
}

/** The computed call whose strings may name the method: the one whose scope (see computedScopes) a string sits in. */
function scopeCallOf(s: ts.Node, scopes: ReadonlyMap<ts.Node, ts.CallExpression>): ts.CallExpression | undefined {
  for (let p = s.parent; p; p = p.parent) {
    const c = scopes.get(p);
    if (c) return c;
  }
  return undefined;
}

/** The run-time lookup of reached code whose table (a literal held in a class's field) a node sits in. */
function tableCallOf(n: ts.Node, reading: Reading): ts.CallExpression | undefined {
  if (!reading.tables.size) return undefined;
  for (let p: ts.Node | undefined = n; p; p = p.parent) if (reading.tables.has(p)) return reading.scopes.get(p);
  return undefined;
}

const classOf = (n: ts.Node): ts.Node | undefined => {
  for (let p = n.parent; p; p = p.parent) if (ts.isClassLike(p)) return p;
  return undefined;
};

function walk(start: ts.Node, reached: ReadonlySet<ts.Node>, reading: Reading, idx: Index, code: Code, wrap: (cn: ts.Node) => Node | undefined, callSites: (fn: Fn) => Node[]): Chain | undefined {
  const scopes = reading.scopes;
  const seen = new Set<ts.Node>([start]);
  let frontier: ts.Node[] = [start];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length; depth++) {
    const next: ts.Node[] = [];
    for (const fnNode of frontier) {
      const fn = wrap(fnNode);
      if (!fn || !isFunctionLike(fn)) continue;
      const sites: ts.Node[] = callSites(fn).map((n) => n.compilerNode);
      const name = rawFunctionName(fnNode);
      // An entry of a table a reached run-time lookup reads (`{ get_contact: async (a) => … }` held in `this.handlers`),
      // or a member named there as a value (`this.getContact.bind(this)`; `this.x` of its own class, or a name defined once).
      if (reading.tables.size) {
        if (tableCallOf(fnNode, reading)) sites.push(fnNode);
        if (name && !COMMON.has(name) && isMember(fnNode)) {
          const own = classOf(fnNode);
          for (const ref of idx.refs.get(name) ?? []) {
            if (!tableCallOf(ref, reading) || !ts.isPropertyAccessExpression(ref)) continue;
            const mine = unwrapExpr(ref.expression).kind === ts.SyntaxKind.ThisKeyword ? !!own && classOf(ref) === own : idx.defined.get(name) === 1;
            if (mine) sites.push(ref);
          }
        }
      }
      if (name && !COMMON.has(name) && idx.defined.get(name) === 1 && isMember(fnNode)) {
        for (const call of idx.calls.get(name) ?? []) {
          if (sites.includes(call)) continue;
          // A call on a package's object (an import, an instance of its class) is the package's method, not ours.
          const callee = unwrapExpr(call.expression);
          if (ts.isPropertyAccessExpression(callee) && packageReceiver(callee.expression, wrap)) continue;
          // A call the name resolution follows to another function is not this one's.
          const w = wrap(call);
          const other = w && Node.isCallExpression(w) ? safeFunctionOf(w.getExpression(), code) : undefined;
          if (other && other.compilerNode !== fnNode) continue;
          sites.push(call);
        }
        // A method named by a string that a reached run-time member call (`handler[method](args)`) may use: in its
        // function or in what flows to its receiver or key, and not a descriptor's `name:`.
        if (scopes.size && (ts.isMethodDeclaration(fnNode) || ts.isPropertyDeclaration(fnNode.parent))) {
          for (const s of idx.strings.get(name) ?? []) {
            if (isDescriptorName(s)) continue;
            const c = scopeCallOf(s, scopes);
            if (c) sites.push(reachedAround(s, reached) ? s : c);
          }
        }
      }
      for (const site of sites) {
        const around = reachedAround(site, reached);
        const lookup = around ? undefined : tableCallOf(site, reading);
        const end = around ?? (lookup && reachedAround(lookup, reached));
        if (end) {
          const handler = wrap(end);
          const via = wrap(lookup ?? site);
          if (handler && via) return { handler, via };
        }
        const owner = ownerOf(site);
        if (owner && !seen.has(owner)) {
          seen.add(owner);
          next.push(owner);
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

function safeFunctionOf(n: Node, code: Code): Fn | undefined {
  try {
    return functionOf(n, code.sources);
  } catch {
    return undefined;
  }
}
