import { Node, ts, type NewExpression, type SourceFile } from '../../../facts/morph.js';
import { declarationOf as declaringId, valueOfDeclaration } from '../../../facts/scope.js';
import { importsOf, ofKinds, propertyName, stringValue, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import { calledFunction, callersOf, declarationOf, initializerOf, isHeaderRead, propertyOf, resolveValue } from '../source/source-support.js';

/**
 * Helpers shared by the OAuth detectors (S-8, S-9, S-17, S-20). Syntax only, like source-support: names
 * are followed through `const` declarations of one file and, for parameters, through the local callers.
 */

export type Files = [string, SourceFile][];

const plain = (n: Node): string => unwrap(n).getText().replace(/\s+/g, '').replace(/\?\./g, '.').replace(/!/g, '');

/** `authInfo`, `extra.authInfo`, `ctx.http.authInfo`, `req.auth`: the verified token info of the request. */
export const isAuthInfo = (n: Node): boolean => /(^|\.)(authInfo|auth)$/.test(plain(n));

/**
 * An expression that is the client's own credential: the incoming `Authorization` header
 * (`req.headers.authorization`, `headers['authorization']`, `request.headers.get('Authorization')`,
 * `req.header('authorization')`) or the token of the verified request (`authInfo.token`, `req.auth.token`).
 */
export function isClientToken(node: Node): boolean {
  const n = unwrap(node);
  if (Node.isPropertyAccessExpression(n)) {
    if (isHeaderRead(n, 'authorization')) return true;
    return n.getName() === 'token' && isAuthInfo(n.getExpression());
  }
  if (Node.isElementAccessExpression(n)) {
    const key = n.getArgumentExpression();
    return !!key && isHeaderRead(key, 'authorization');
  }
  if (Node.isCallExpression(n)) {
    const a0 = n.getArguments()[0];
    return !!a0 && isHeaderRead(a0, 'authorization');
  }
  return false;
}

/** Request headers that carry a client's API key or token besides Authorization: `x-api-key`, `x-acme-api-key`, `api-key`, `x-auth-token`. */
const API_KEY_HEADER = /^(?:x-[\w-]*api[-_]?key|api[-_]?key|x-(?:auth|access|api)[-_]token|x-[\w-]+-(?:access[-_]key(?:[-_](?:id|secret))?|secret[-_]key|api[-_]token|access[-_]token))$/i;
/** Query parameters that carry one: `?apiKey=`, `?api_key=`, `?access_token=`, `?token=`. */
const API_KEY_PARAM = /^(?:api[-_]?key|access[-_]?token|token)$/i;
const QUERY = /(^|\.)(query|searchParams)$/;

/**
 * An expression that is a credential the client sent with the request, other than the Authorization
 * header: an API-key header (`req.headers['x-api-key']`, `headers.get('x-acme-api-key')`,
 * `req.header('api-key')`) or a query parameter (`req.query.apiKey`, `url.searchParams.get('api_key')`,
 * `c.req.query('token')`).
 */
export function isClientApiKey(node: Node): boolean {
  const n = unwrap(node);
  if (Node.isElementAccessExpression(n)) {
    const v = stringValue(n.getArgumentExpression());
    if (v === undefined) return false;
    const recv = plain(n.getExpression());
    return (/headers$/i.test(recv) && API_KEY_HEADER.test(v)) || (QUERY.test(recv) && API_KEY_PARAM.test(v));
  }
  if (Node.isPropertyAccessExpression(n)) return QUERY.test(plain(n.getExpression())) && API_KEY_PARAM.test(n.getName());
  if (Node.isCallExpression(n)) {
    const a = n.getArguments();
    const v = a.length === 1 ? stringValue(a[0]) : undefined;
    const callee = unwrap(n.getExpression());
    if (v === undefined || !Node.isPropertyAccessExpression(callee)) return false;
    const name = callee.getName();
    const recv = plain(callee.getExpression());
    if (['get', 'header', 'getHeader'].includes(name) && API_KEY_HEADER.test(v)) return name !== 'get' || /headers$/i.test(recv);
    return ((name === 'get' && /searchParams$/.test(recv)) || (name === 'query' && /(^|\.)req$/.test(recv))) && API_KEY_PARAM.test(v);
  }
  return false;
}

/**
 * The values a FastMCP `authenticate` hook returns under `key` (`return { apiKey }`): what a tool reads as
 * `session.<key>` (or `context.session.<key>`). Syntax only, in every file.
 */
function sessionValues(key: string, files: Files): Node[] {
  const out: Node[] = [];
  for (const [, sf] of files) {
    for (const p of ofKinds(sf, [ts.SyntaxKind.PropertyAssignment, ts.SyntaxKind.MethodDeclaration], (cn) => (ts.isPropertyAssignment(cn) || ts.isMethodDeclaration(cn)) && ts.isIdentifier(cn.name) && cn.name.text === 'authenticate')) {
      const fn = Node.isPropertyAssignment(p) ? functionValue(p.getInitializer()) : p;
      if (!fn) continue;
      for (const r of returnedValues(fn)) {
        const v = resolveValue(r);
        const prop = v && Node.isObjectLiteralExpression(v) ? propertyOf(v, key) : undefined;
        if (prop) out.push(prop);
      }
    }
  }
  return out;
}

const REQUEST = /^(req|request)$/;

/**
 * What a middleware attached to the request under a read such as `req.graphAuth.accessToken` or `req.token`:
 * the right side of `req.graphAuth = { accessToken }` / `req.token = t` in any file (syntax only), followed
 * down the remaining property names through object literals.
 */
function requestAttached(access: Node, files: Files): Node[] {
  const path: string[] = [];
  let cur: Node = access;
  while (Node.isPropertyAccessExpression(cur)) {
    path.unshift(cur.getName());
    cur = unwrap(cur.getExpression());
  }
  if (!Node.isIdentifier(cur) || !REQUEST.test(cur.getText()) || path.length === 0 || ['headers', 'query', 'body', 'auth', 'params'].includes(path[0]!)) return [];
  const out: Node[] = [];
  for (const [, sf] of files) {
    for (const b of ofKinds(sf, [ts.SyntaxKind.BinaryExpression], (cn) => {
      const e = cn as ts.BinaryExpression;
      return e.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(e.left) && e.left.name.text === path[0] && ts.isIdentifier(e.left.expression) && REQUEST.test(e.left.expression.text);
    })) {
      if (!Node.isBinaryExpression(b)) continue;
      let v: Node | undefined = b.getRight();
      for (const key of path.slice(1)) {
        const o: Node | undefined = v ? resolveValue(v) : undefined;
        v = o && Node.isObjectLiteralExpression(o) ? propertyOf(o, key) : undefined;
      }
      if (v) out.push(v);
    }
  }
  return out;
}

/** The values a function returns (its own return statements, or an arrow's expression body). */
function returnedValues(fn: Node): Node[] {
  if (Node.isArrowFunction(fn) && !Node.isBlock(fn.getBody())) return [fn.getBody()];
  return fn.getDescendantsOfKind(ts.SyntaxKind.ReturnStatement).flatMap((r) => {
    const e = r.getExpression();
    return e && enclosingFn(r) === fn ? [e] : [];
  });
}

const enclosingFn = (n: Node): Node | undefined => n.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a));

/** String methods whose result is still the token (or a piece of it): `h.slice(7)`, `h.replace(/^Bearer /, '')`, `h.split(' ')[1]`. */
const STRING_METHODS = new Set(['slice', 'substring', 'substr', 'replace', 'replaceAll', 'trim', 'trimStart', 'trimEnd', 'split', 'toString', 'at']);

/**
 * True when a value carries the client's credential: the expression itself, a `const` it was assigned
 * from, a destructured `{ token } = authInfo` / `{ authorization } = req.headers`, string operations on
 * it, or a parameter whose local callers pass it. Calls to other functions stop the trail: what a token
 * exchange returns is a new token.
 */
export function carriesClientToken(node: Node | undefined, files: Files, depth = 0, seen = new Set<Node>()): boolean {
  if (!node || depth > 10) return false;
  const n = unwrap(node);
  if (seen.has(n)) return false;
  seen.add(n);
  if (isClientToken(n) || isClientApiKey(n)) return true;
  const next = (x: Node | undefined): boolean => carriesClientToken(x, files, depth + 1, seen);
  if (Node.isAwaitExpression(n)) return next(n.getExpression());
  if (Node.isTemplateExpression(n)) return n.getTemplateSpans().some((s) => next(s.getExpression()));
  if (Node.isBinaryExpression(n)) return ['+', '??', '||'].includes(n.getOperatorToken().getText()) && (next(n.getLeft()) || next(n.getRight()));
  if (Node.isConditionalExpression(n)) return next(n.getWhenTrue()) || next(n.getWhenFalse());
  if (Node.isElementAccessExpression(n)) return Node.isNumericLiteral(unwrap(n.getArgumentExpression() ?? n)) && next(n.getExpression());
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee) && STRING_METHODS.has(callee.getName())) return next(callee.getExpression());
    if (Node.isIdentifier(callee) && ['String', 'decodeURIComponent'].includes(callee.getText())) return next(n.getArguments()[0]);
    // A local helper that picks the credential out of the request (`extractApiKey(req.headers)`): what it returns.
    const fn = calledFunction(n);
    return !!fn && returnedValues(fn).some((v) => next(v));
  }
  // `this.token` in a class: what the class stores there (`this.token = …`, a field initializer, a constructor parameter property).
  if (Node.isPropertyAccessExpression(n) && Node.isThisExpression(unwrap(n.getExpression()))) return fieldValues(n).some((v) => next(v));
  // `als.getStore().token`, `store.token` with `const store = als.getStore()`: what the request's context holds.
  if (Node.isPropertyAccessExpression(n)) {
    const store = storeCall(n.getExpression());
    if (store) return storedValues(store, n.getName(), files).some((v) => next(v));
    // `req.graphAuth.accessToken`, `req.token`: what a middleware attached to the request.
    const attached = requestAttached(n, files);
    if (attached.length) return attached.some((v) => next(v));
    // `session.apiKey`, `context.session.apiKey`: what the FastMCP authenticate hook returned for the request.
    if (/(^|\.)session$/.test(plain(n.getExpression()))) return sessionValues(n.getName(), files).some((v) => next(v));
  }
  if (!Node.isIdentifier(n)) return false;
  const d = declarationOf(n);
  if (!d) return false;
  if (Node.isVariableDeclaration(d)) return next(initializerOf(d));
  if (Node.isBindingElement(d)) {
    const prop = d.getPropertyNameNode();
    const key = (prop ? propertyName(prop) : d.getName())?.toLowerCase();
    const owner = d.getFirstAncestor((a) => Node.isVariableDeclaration(a) || Node.isParameterDeclaration(a));
    const init = owner && Node.isVariableDeclaration(owner) ? owner.getInitializer() : undefined;
    if (!init) return false;
    let from = unwrap(init);
    if (Node.isAwaitExpression(from)) from = unwrap(from.getExpression());
    if (key === 'token' && isAuthInfo(from)) return true;
    if (key && /(^|\.)session$/.test(plain(from))) return sessionValues(prop ? (propertyName(prop) ?? d.getName()) : d.getName(), files).some((v) => next(v));
    if (key && /headers$/i.test(plain(from)) && API_KEY_HEADER.test(key)) return true;
    if (key && QUERY.test(plain(from)) && API_KEY_PARAM.test(key)) return true;
    const store = key ? storeCall(from) : undefined;
    if (store && key) return storedValues(store, prop ? (propertyName(prop) ?? d.getName()) : d.getName(), files).some((v) => next(v));
    return key === 'authorization' && /headers$/i.test(plain(from));
  }
  if (Node.isParameterDeclaration(d)) {
    const fn = d.getParent();
    if (fn && Node.isConstructorDeclaration(fn)) {
      // A class's constructor: what the places that construct it (`new CrmClient(token)`) pass there.
      const index = fn.getParameters().indexOf(d);
      return constructionsOf(fn.getParent(), files).some((c) => next(c.getArguments()[index]));
    }
    if (!fn || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return false;
    const index = fn.getParameters().indexOf(d);
    return callersOf(fn, files).some((c) => next(c.node.getArguments()[index]));
  }
  return false;
}

/**
 * An AsyncLocalStorage's `getStore()` call an expression reads (`als.getStore()`, `als.getStore() ?? {}`, a
 * const holding it), or undefined.
 */
function storeCall(node: Node, depth = 0): Node | undefined {
  let u = unwrap(node);
  if (Node.isBinaryExpression(u) && ['??', '||'].includes(u.getOperatorToken().getText())) u = unwrap(u.getLeft());
  if (Node.isCallExpression(u)) {
    const c = unwrap(u.getExpression());
    return Node.isPropertyAccessExpression(c) && c.getName() === 'getStore' && u.getArguments().length === 0 ? u : undefined;
  }
  if (Node.isIdentifier(u) && depth < 3) {
    const d = declarationOf(u);
    if (d && Node.isVariableDeclaration(d) && Node.isIdentifier(d.getNameNode())) {
      const i = d.getInitializer();
      return i ? storeCall(i, depth + 1) : undefined;
    }
  }
  return undefined;
}

/**
 * What the request contexts of an AsyncLocalStorage hold under `key`: the property `key` of the objects given
 * to `<name>.run(store, …)` and `<name>.enterWith(store)`, in every file, by the storage's name (syntax only).
 */
function storedValues(getStore: Node, key: string, files: Files): Node[] {
  if (!Node.isCallExpression(getStore)) return [];
  const c = unwrap(getStore.getExpression());
  if (!Node.isPropertyAccessExpression(c)) return [];
  const owner = unwrap(c.getExpression());
  const name = Node.isIdentifier(owner) ? owner.getText() : Node.isPropertyAccessExpression(owner) ? owner.getName() : undefined;
  if (!name) return [];
  const out: Node[] = [];
  for (const [, sf] of files) {
    for (const n of ofKinds(sf, [ts.SyntaxKind.CallExpression], (cn) => {
      const e = (cn as ts.CallExpression).expression;
      if (!ts.isPropertyAccessExpression(e) || (e.name.text !== 'run' && e.name.text !== 'enterWith')) return false;
      const r = e.expression;
      return (ts.isIdentifier(r) && r.text === name) || (ts.isPropertyAccessExpression(r) && r.name.text === name);
    })) {
      if (!Node.isCallExpression(n)) continue;
      const v = resolveValue(n.getArguments()[0] ?? n);
      if (v && Node.isObjectLiteralExpression(v)) {
        const p = propertyOf(v, key);
        if (p) out.push(p);
      }
    }
  }
  return out;
}

/**
 * The values a class stores in the field `this.<name>` reads: `this.<name> = v` anywhere in the class, the
 * field's initializer, or the constructor parameter of that name when it is a parameter property.
 */
function fieldValues(access: Node): Node[] {
  if (!Node.isPropertyAccessExpression(access)) return [];
  const cls = access.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  if (!cls || !(Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) return [];
  const name = access.getName();
  const out: Node[] = [];
  for (const m of cls.getMembers()) {
    if (Node.isPropertyDeclaration(m) && m.getName() === name) {
      const i = m.getInitializer();
      if (i) out.push(i);
    }
    if (Node.isConstructorDeclaration(m)) {
      for (const p of m.getParameters()) if (p.isParameterProperty() && p.getName() === name) out.push(p.getNameNode());
    }
  }
  for (const b of cls.getDescendantsOfKind(ts.SyntaxKind.BinaryExpression)) {
    if (b.getOperatorToken().getKind() !== ts.SyntaxKind.EqualsToken) continue;
    const l = unwrap(b.getLeft());
    if (Node.isPropertyAccessExpression(l) && l.getName() === name && Node.isThisExpression(unwrap(l.getExpression()))) out.push(b.getRight());
  }
  return out;
}

/** `new C(…)` of a named class, in its own file and in the files that import it by a relative path (any local name). */
function constructionsOf(cls: Node | undefined, files: Files): NewExpression[] {
  if (!cls || !(Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) return [];
  const holder = cls.getParent();
  const name = cls.getName() ?? (holder && Node.isVariableDeclaration(holder) ? holder.getName() : undefined);
  if (!name) return [];
  const home = cls.getSourceFile();
  const out: NewExpression[] = [];
  for (const [, sf] of files) {
    const names = new Set<string>();
    if (sf === home) names.add(name);
    for (const [local, b] of importsOf(sf)) if (b.module.startsWith('.') && b.imported === name) names.add(local);
    if (names.size === 0) continue;
    for (const n of ofKinds(sf, [ts.SyntaxKind.NewExpression], (cn) => ts.isNewExpression(cn) && ts.isIdentifier(cn.expression) && names.has(cn.expression.text))) {
      if (Node.isNewExpression(n)) out.push(n);
    }
  }
  return out;
}

/** The function a value stands for: an arrow or function expression, a local function, through `const`. */
export function functionValue(node: Node | undefined): Node | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (Node.isArrowFunction(n) || Node.isFunctionExpression(n) || Node.isMethodDeclaration(n) || Node.isFunctionDeclaration(n)) return n;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (d && Node.isFunctionDeclaration(d)) return d;
    const v = resolveValue(n);
    if (v && v !== n && (Node.isArrowFunction(v) || Node.isFunctionExpression(v))) return v;
  }
  return undefined;
}

/** What a value stands for, through `const` declarations and relative imports (a class, an object, a function, a `new`). */
export function valueAcross(node: Node | undefined, sources: ParsedSources, depth = 0): Node | undefined {
  if (!node || depth > 5) return undefined;
  const n = unwrap(node);
  if (!Node.isIdentifier(n)) return n;
  const d = declaringId(n);
  const v = d ? valueOfDeclaration(d, sources) : undefined;
  return v && v !== n ? valueAcross(v, sources, depth + 1) : n;
}

/** The class declared in the same file under a name (`new Verifier()`), or undefined. */
export function localClass(node: Node): Node | undefined {
  const n = unwrap(node);
  if (!Node.isIdentifier(n)) return undefined;
  const d = declarationOf(n);
  return d && Node.isClassDeclaration(d) ? d : undefined;
}

/** A named method (or function-valued property) of an object literal or a local class. */
export function memberFunction(owner: Node | undefined, name: string): Node | undefined {
  if (!owner) return undefined;
  if (Node.isClassDeclaration(owner)) {
    const m = owner.getMethod(name);
    if (m) return m;
    const p = owner.getProperty(name);
    return functionValue(p?.getInitializer());
  }
  return functionValue(propertyOf(owner, name));
}

/** The base class name of a class declaration (`ProxyOAuthServerProvider` in `class P extends ProxyOAuthServerProvider`). */
export function baseClassName(cls: Node): string | undefined {
  if (!Node.isClassDeclaration(cls)) return undefined;
  const e = cls.getExtends();
  return e ? e.getExpression().getText().split('.').pop() : undefined;
}

/** The literal strings of an array written in place or in a `const`. */
export function stringList(node: Node | undefined): { value: string; node: Node }[] {
  const v = node ? resolveValue(node) : undefined;
  if (!v || !Node.isArrayLiteralExpression(v)) return [];
  return v.getElements().flatMap((e) => {
    const s = stringValue(e);
    return s === undefined ? [] : [{ value: s, node: e }];
  });
}

/** Does a subtree mention a name matching `re` (identifier, property name or string literal)? */
export function mentions(root: Node, re: RegExp, skip?: (cn: ts.Node) => boolean): boolean {
  // Raw walk (nothing is wrapped); `skip` leaves out subtrees, e.g. branches that do not hold a call.
  let found = false;
  const visit = (cn: ts.Node): void => {
    if (found || skip?.(cn)) return;
    if ((ts.isIdentifier(cn) || ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && re.test(cn.text)) {
      found = true;
      return;
    }
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(root.compilerNode, visit);
  return found;
}
