import { SyntaxKind, ts, type SourceFile } from '../../facts/morph.js';
import type { Finding } from '../../engine/types.js';
import { isRawFunctionLike, rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import { rawOfKinds, rawPositionOf, rawUnwrap } from '../../facts/ts-source.js';
import type { Code } from '../support/source/code-paths.js';
import type { ParsedSources } from '../../facts/ts-source.js';
import { libraryLoggerOf, wrapperWritesArguments } from './logger-origin.js';
import { named, rawNameText } from '../support/source/source-support.js';
import { CONSOLE_METHODS, LOGGER_METHODS, LOGGER_NAME, normName } from './names.js';

/**
 * C-6 (static) — an HTTP client's error logged whole. An axios error carries the request's configuration as
 * an own property, headers included: `console.error(err)` (util.inspect) and `JSON.stringify(err)` (its
 * toJSON) print the `Authorization` or API-key header the client sends. Red when all of these hold:
 *   - the package sends a credential through axios: an `Authorization`, `X-Api-Key`-like or `auth` key in the
 *     source of a file that uses axios (the instance's headers, a request's config or an interceptor's);
 *   - a `catch (err)` whose `try` block calls axios, directly or through one function or method of the
 *     package (`await this.request(…)` whose body calls the instance), or a rejection handler of axios
 *     (an interceptor's `use(ok, (err) => …)` on axios or an instance, `axios.get(…).catch((err) => …)`,
 *     `.then(ok, (err) => …)`; see rejectionHandlers);
 *   - the catch block (or handler) logs `err` whole with `console.*` or a winston/bunyan logger built in the
 *     file or imported from another module, or held as a class field, or a wrapper of the package that hands its
 *     arguments to console as they are (logger-origin.ts; a pino one only as its first argument), or `JSON.stringify(err)` / `inspect(err)` /
 *     its configuration (`err.config`, `err.config.headers`, `err.response.config`, also as an object field
 *     `{ config: err.config }`) with any logger.
 * `err.message`, `err.response?.data`, `${err}` and `String(err)` do not carry the configuration.
 */

const AUTH_KEYS = new Set(['authorization', 'proxyauthorization', 'xapikey', 'apikey', 'xauthtoken', 'privatetoken', 'xapitoken', 'apitoken', 'auth', 'ocpapimsubscriptionkey', 'xaccesstoken']);

const isAxios = (n: ts.Node): boolean => rawOriginOf(n)?.module === 'axios';

/** Does a file of the package send a credential through axios (see the header)? */
function sendsCredential(code: Code): boolean {
  for (const [, sf] of code.files) {
    const text = sf.compilerNode.text;
    if (!text.includes('axios')) continue;
    const keyed = rawOfKinds(sf, [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment], (cn) => (ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn)) && AUTH_KEYS.has(normName(rawNameText(cn.name) ?? '')));
    if (keyed.length) return true;
    // `config.headers.Authorization = …`, `headers['X-Api-Key'] = …` (an interceptor's, a default's)
    const assigned = rawOfKinds(sf, [SyntaxKind.BinaryExpression], (cn) => {
      if (!ts.isBinaryExpression(cn) || cn.operatorToken.kind !== SyntaxKind.EqualsToken) return false;
      const l = cn.left;
      const name = ts.isPropertyAccessExpression(l) ? l.name.text : ts.isElementAccessExpression(l) && ts.isStringLiteralLike(l.argumentExpression) ? l.argumentExpression.text : '';
      return AUTH_KEYS.has(normName(name)) && name.toLowerCase() !== 'auth';
    });
    if (assigned.length) return true;
  }
  return false;
}

/** The body of the function a call reaches in the package: a function declared in scope, or `this.m` of the class. */
function calleeBody(call: ts.CallExpression): ts.Node | undefined {
  const c = rawUnwrap(call.expression);
  if (ts.isIdentifier(c)) {
    const d = rawDeclarationOf(c);
    const decl = d?.parent;
    if (decl && ts.isFunctionDeclaration(decl)) return decl.body;
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && isRawFunctionLike(rawUnwrap(decl.initializer))) return (rawUnwrap(decl.initializer) as ts.FunctionLikeDeclaration).body;
    return undefined;
  }
  if (ts.isPropertyAccessExpression(c) && rawUnwrap(c.expression).kind === SyntaxKind.ThisKeyword) {
    let cls: ts.Node | undefined = call.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    if (!cls) return undefined;
    for (const m of (cls as ts.ClassLikeDeclaration).members) {
      if (m.name && rawNameText(m.name) === c.name.text) {
        if (ts.isMethodDeclaration(m)) return m.body;
        if (ts.isPropertyDeclaration(m) && m.initializer && isRawFunctionLike(rawUnwrap(m.initializer))) return (rawUnwrap(m.initializer) as ts.FunctionLikeDeclaration).body;
      }
    }
  }
  return undefined;
}

/** Does this code (not counting nested functions) call axios, or call a package function whose body does (depth 1)? */
function callsAxios(root: ts.Node, depth: number): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (n !== root && isRawFunctionLike(n)) return;
    if (ts.isCallExpression(n)) {
      if (isAxios(n.expression)) {
        found = true;
        return;
      }
      if (depth > 0) {
        const body = calleeBody(n);
        if (body && callsAxios(body, depth - 1)) {
          found = true;
          return;
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(root);
  return found;
}

/** How a log argument carries the error: whole (`err`, `{ err }`, `{ error: err }`) or serialised with its config. */
function carries(arg: ts.Node, name: string): 'whole' | 'serialised' | undefined {
  const a = rawUnwrap(arg);
  // Inside a string (`${…}`, '…' + …) only a serialised form carries the configuration; `${err}` is String(err).
  if (ts.isTemplateExpression(a)) return a.templateSpans.some((sp) => carries(sp.expression, name) === 'serialised') ? 'serialised' : undefined;
  if (ts.isBinaryExpression(a) && a.operatorToken.kind === SyntaxKind.PlusToken) return carries(a.left, name) === 'serialised' || carries(a.right, name) === 'serialised' ? 'serialised' : undefined;
  if (ts.isIdentifier(a) && a.text === name) return 'whole';
  if (ts.isObjectLiteralExpression(a)) {
    let how: 'whole' | 'serialised' | undefined;
    for (const p of a.properties) {
      if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) how ??= 'whole';
      // `{ error: err }` whole; `{ config: err.config }` the configuration itself
      if (ts.isPropertyAssignment(p)) {
        const v = carries(p.initializer, name);
        if (v === 'serialised') return v;
        how ??= v;
      }
    }
    return how;
  }
  if (configOf(a, name)) return 'serialised';
  if (ts.isCallExpression(a)) {
    const c = rawUnwrap(a.expression);
    const recv = ts.isPropertyAccessExpression(c) ? rawUnwrap(c.expression) : undefined;
    const callee = ts.isPropertyAccessExpression(c) ? `${recv && ts.isIdentifier(recv) ? recv.text : ''}.${c.name.text}` : ts.isIdentifier(c) ? c.text : '';
    const first = a.arguments[0];
    // JSON.stringify(err) (its toJSON keeps the config), JSON.stringify({ err }), inspect(err.response.config)
    if ((callee === 'JSON.stringify' || callee === 'util.inspect' || callee === 'inspect') && first && carries(first, name)) return 'serialised';
  }
  return undefined;
}

/**
 * The request configuration an error carries, read off it: `err.config`, `err.config.headers`,
 * `err.response?.config` (the same object, kept on the response). `err.config.url` is one field of it, not the headers.
 */
function configOf(a: ts.Node, name: string): boolean {
  if (!ts.isPropertyAccessExpression(a)) return false;
  let cur: ts.Node = a;
  if (a.name.text === 'headers') cur = rawUnwrap(a.expression);
  if (!ts.isPropertyAccessExpression(cur) || cur.name.text !== 'config') return false;
  let o = rawUnwrap(cur.expression);
  if (ts.isPropertyAccessExpression(o) && o.name.text === 'response') o = rawUnwrap(o.expression);
  return ts.isIdentifier(o) && o.text === name;
}

/** The logging call's text when it logs the catch binding as above (console for a whole error, any logger when serialised). */
function logsError(sf: SourceFile, call: ts.CallExpression, name: string, sources: ParsedSources): string | undefined {
  const c = rawUnwrap(call.expression);
  if (!ts.isPropertyAccessExpression(c)) return undefined;
  const recv = rawUnwrap(c.expression);
  const m = c.name.text;
  const isConsole = ts.isIdentifier(recv) && recv.text === 'console' && CONSOLE_METHODS.has(m) && rawOriginOf(recv)?.module === '<global>';
  const rname = ts.isIdentifier(recv) ? recv.text : ts.isPropertyAccessExpression(recv) ? recv.name.text : '';
  const isLogger = !isConsole && LOGGER_NAME.test(rname) && LOGGER_METHODS.has(m);
  if (!isConsole && !isLogger) return undefined;
  // The logger's library, built in this file or imported, or a wrapper of the package that hands its arguments to
  // console as they are (logger-origin.ts): both print a whole error with its own fields.
  const library = isLogger ? (libraryLoggerOf(sf, recv, sources) ?? (wrapperWritesArguments(sf, recv, m, sources) ? 'other' : undefined)) : undefined;
  for (const [i, arg] of call.arguments.entries()) {
    const how = carries(arg, name);
    // pino logs its first argument's fields; a later one is only a format value (`logger.error('failed', err)` drops it).
    if (how === 'serialised' || (how === 'whole' && (isConsole || library === 'other' || (library === 'pino' && i === 0)))) return isConsole ? `console.${m}` : `${rname}.${m}`;
  }
  return undefined;
}

/**
 * The error handlers of axios calls, beside `catch` clauses: the rejection handler of an interceptor
 * (`instance.interceptors.request.use(ok, (error) => …)`, `.response.use(…)` on axios or an axios instance), which
 * receives every failed request of that instance, and the rejection handler of a call's promise
 * (`axios.get(…).catch((err) => …)`, `this.client.post(…).then(ok, (err) => …)`). Each with its error parameter.
 */
function rejectionHandlers(sf: SourceFile): { name: string; body: ts.Node }[] {
  const out: { name: string; body: ts.Node }[] = [];
  const handler = (fn: ts.Node | undefined): void => {
    const f = fn && rawUnwrap(fn);
    if (!f || !(ts.isArrowFunction(f) || ts.isFunctionExpression(f)) || !f.body) return;
    const p = f.parameters[0]?.name;
    if (p && ts.isIdentifier(p)) out.push({ name: p.text, body: f.body });
  };
  for (const cn of rawOfKinds(sf, [SyntaxKind.CallExpression], named(new Set(['use', 'catch', 'then']), (n) => ts.isCallExpression(n)))) {
    const call = cn as ts.CallExpression;
    const c = rawUnwrap(call.expression);
    if (!ts.isPropertyAccessExpression(c)) continue;
    const m = c.name.text;
    const recv = rawUnwrap(c.expression);
    if (m === 'use') {
      // <instance>.interceptors.request.use(onFulfilled, onRejected)
      if (!ts.isPropertyAccessExpression(recv) || !['request', 'response'].includes(recv.name.text)) continue;
      const ic = rawUnwrap(recv.expression);
      if (ts.isPropertyAccessExpression(ic) && ic.name.text === 'interceptors' && isAxiosInstance(ic.expression)) handler(call.arguments[1]);
    } else {
      // down a chain of `.then(…)` / `.catch(…)` / `.finally(…)` to the call that made the promise
      let made: ts.Node = recv;
      while (ts.isCallExpression(made) && ts.isPropertyAccessExpression(rawUnwrap(made.expression)) && PROMISE_METHODS.has((rawUnwrap(made.expression) as ts.PropertyAccessExpression).name.text)) {
        made = rawUnwrap((rawUnwrap(made.expression) as ts.PropertyAccessExpression).expression);
      }
      if (ts.isCallExpression(made) && isAxiosCall(made)) handler(call.arguments[m === 'catch' ? 0 : 1]);
    }
  }
  return out;
}

const PROMISE_METHODS = new Set(['then', 'catch', 'finally']);

/** `axios(config)`, `axios.get(…)`, `api.post(…)` on an axios instance. */
function isAxiosCall(call: ts.CallExpression): boolean {
  const c = rawUnwrap(call.expression);
  if (isAxios(c) && !ts.isPropertyAccessExpression(c)) return true;
  return ts.isPropertyAccessExpression(c) && HTTP_METHODS.has(c.name.text) && isAxiosInstance(c.expression);
}

export function httpClientErrorsLogged(code: Code, skipLoggers: boolean): Finding[] {
  if (!sendsCredential(code)) return [];
  const findings: Finding[] = [];
  for (const [file, sf] of code.files) {
    const text = (sf as SourceFile).compilerNode.text;
    const scopes: { name: string; body: ts.Node }[] = [];
    if (text.includes('catch')) {
      for (const cn of rawOfKinds(sf, [SyntaxKind.CatchClause], (n) => ts.isCatchClause(n))) {
        const cc = cn as import('typescript').CatchClause;
        const binding = cc.variableDeclaration?.name;
        if (!binding || !ts.isIdentifier(binding)) continue;
        if (callsAxios((cc.parent as import('typescript').TryStatement).tryBlock, 1)) scopes.push({ name: binding.text, body: cc.block });
      }
    }
    if (text.includes('axios') || text.includes('interceptors')) scopes.push(...rejectionHandlers(sf));
    for (const { name, body } of scopes) {
      const visit = (n: ts.Node): void => {
        if (isRawFunctionLike(n)) return;
        if (ts.isCallExpression(n)) {
          const call = logsError(sf, n, name, code.sources);
          if (call && !(skipLoggers && !call.startsWith('console.'))) {
            findings.push({
              messageId: 'http-error-in-log',
              data: { name, call },
              location: { file, line: rawPositionOf(n).line },
              evidence: n.getText(sf.compilerNode).replace(/\s+/g, ' ').slice(0, 120),
            });
            return;
          }
        }
        ts.forEachChild(n, visit);
      };
      visit(body); // a block, or an expression body (`(err) => console.error(err)`)
    }
  }
  return findings;
}

/**
 * An upstream response read through axios: `const res = await axios.get(…)`, `await api.post(…)` where
 * `const api = axios.create(…)`, or `await this.client.get(…)` where the class sets `this.client = axios.create(…)`
 * (a field's initialiser or an assignment in the class). Returns true when `id` is declared as such a const.
 */
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'request']);
function axiosCreated(init: ts.Node | undefined): boolean {
  const v = init && rawUnwrap(init);
  return !!v && ts.isCallExpression(v) && isAxios(v.expression);
}
function isAxiosInstance(recv: ts.Node): boolean {
  const r = rawUnwrap(recv);
  if (isAxios(r)) return true;
  if (ts.isIdentifier(r)) {
    const d = rawDeclarationOf(r);
    const decl = d?.parent;
    return !!decl && ts.isVariableDeclaration(decl) && decl.name === d && axiosCreated(decl.initializer);
  }
  if (ts.isPropertyAccessExpression(r) && rawUnwrap(r.expression).kind === SyntaxKind.ThisKeyword) {
    let cls: ts.Node | undefined = r.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    if (!cls) return false;
    const field = r.name.text;
    let found = false;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (ts.isPropertyDeclaration(n) && n.name && rawNameText(n.name) === field && axiosCreated(n.initializer)) found = true;
      else if (ts.isBinaryExpression(n) && n.operatorToken.kind === SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && n.left.name.text === field && rawUnwrap(n.left.expression).kind === SyntaxKind.ThisKeyword && axiosCreated(n.right)) found = true;
      else ts.forEachChild(n, visit);
    };
    visit(cls);
    return found;
  }
  return false;
}
export function axiosResponseHeld(id: ts.Identifier): boolean {
  const d = rawDeclarationOf(id);
  const decl = d?.parent;
  if (!decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer) return false;
  let v = rawUnwrap(decl.initializer);
  if (ts.isAwaitExpression(v)) v = rawUnwrap(v.expression);
  return ts.isCallExpression(v) && isAxiosCall(v);
}
