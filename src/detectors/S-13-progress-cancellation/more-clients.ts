import { Node, ts, type CallExpression } from '../../facts/morph.js';
import { declarationOf, fieldValues, rawOriginOf } from '../../facts/scope.js';
import { objectLiteralOf, propertyValue } from '../../facts/server-model.js';
import { rawUnwrap, unwrap } from '../../facts/ts-source.js';
import type { Code } from '../support/source/code-paths.js';

/**
 * S-13 — two request shapes facts/flow httpRequestOf does not read:
 * - superagent (`superagent.get(url).set(…)`, `request.post(url).send(body)` on its default export): superagent sets
 *   no time limit unless `.timeout(ms | { response, deadline })` is called, so a request whose own chain calls
 *   `.timeout(` (or `.use(plugin)`, which may set it) is bounded and one whose chain ends (awaited, returned, `.then`/`.end`) without it is not. A request
 *   kept in a variable (then configured elsewhere) gets the benefit of the doubt.
 * - undici dispatchers (`new Pool(origin, opts)`, `new Client(…)`, `new Agent(…)`, `new BalancedPool(…)` kept in a
 *   variable or a field, then `pool.request({ path, method })`): read like undici's `request` — `signal`,
 *   `headersTimeout` or `bodyTimeout` in the request's options or in the dispatcher's constructor options bound it;
 *   options that cannot be read get the benefit of the doubt.
 */

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'del', 'delete', 'head', 'options']);
const DISPATCHERS = new Set(['Pool', 'Client', 'Agent', 'BalancedPool']);
const UNDICI_LIMITS = ['signal', 'headersTimeout', 'bodyTimeout'];

const undiciFiles = new WeakMap<ts.SourceFile, boolean>();
/** Raw pre-filter: a superagent call, or `x.request(…)` in a file that names undici. */
export function mayBeOtherClient(cn: ts.CallExpression): boolean {
  const c = rawUnwrap(cn.expression);
  if (!ts.isPropertyAccessExpression(c)) return false;
  if (c.name.text === 'request' && cn.arguments.length > 0) {
    const sf = cn.getSourceFile();
    let has = undiciFiles.get(sf);
    if (has === undefined) undiciFiles.set(sf, (has = /['"]undici['"]/.test(sf.text)));
    if (has) return true;
  }
  return HTTP_METHODS.has(c.name.text) && rawOriginOf(c)?.module === 'superagent';
}

/** A superagent request and whether its chain sets a timeout. */
function superagentRequest(call: CallExpression): { client: string; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !HTTP_METHODS.has(callee.getName())) return undefined;
  const o = rawOriginOf(callee.compilerNode);
  if (!o || o.module !== 'superagent') return undefined;
  const path = o.path.filter((p) => p !== 'default');
  if (path.length !== 1) return undefined;
  // Climb the chain: `superagent.get(url).set(…).query(…).timeout(…)`.
  let cur: Node = call;
  for (;;) {
    const p = cur.getParent();
    if (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isNonNullExpression(p))) {
      cur = p;
      continue;
    }
    if (p && Node.isPropertyAccessExpression(p) && p.getExpression() === cur) {
      const name = p.getName();
      // `.use(plugin)`: a plugin may set the timeout (superagent-prefix-like helpers of the source); benefit of the doubt.
      if (name === 'timeout' || name === 'use') return { client: 'superagent', bounded: true };
      const next = p.getParent();
      if (next && Node.isCallExpression(next) && next.getExpression() === p) {
        if (name === 'then' || name === 'end' || name === 'catch' || name === 'finally') return { client: 'superagent', bounded: false };
        cur = next;
        continue;
      }
      return { client: 'superagent', bounded: true };
    }
    // The chain's end: awaited or returned is sent as it is; kept in a variable or handed on, it is not read.
    const sent = !!p && (Node.isAwaitExpression(p) || Node.isReturnStatement(p) || (Node.isArrowFunction(p) && p.getBody() === cur));
    return { client: 'superagent', bounded: !sent };
  }
}

/** The values a receiver holds: a variable's initializer or a class field's assignments. */
function valuesOf(recv: Node): Node[] {
  if (Node.isIdentifier(recv)) {
    const p = declarationOf(recv)?.getParent();
    return p && Node.isVariableDeclaration(p) && p.getInitializer() ? [p.getInitializer()!] : [];
  }
  if (Node.isPropertyAccessExpression(recv) && Node.isThisExpression(unwrap(recv.getExpression()))) return fieldValues(recv);
  return [];
}

function sets(options: Node | undefined, code: Code): 'yes' | 'no' | 'unknown' {
  if (!options) return 'no';
  const o = objectLiteralOf(options, code.sources);
  if (!o) return 'unknown';
  if (UNDICI_LIMITS.some((k) => propertyValue(o, k) !== undefined)) return 'yes';
  return o.getProperties().some((p) => Node.isSpreadAssignment(p)) ? 'unknown' : 'no';
}

/** `pool.request(opts)` on an undici dispatcher the source builds; bounded unless every option read sets no limit. */
function dispatcherRequest(call: CallExpression, code: Code): { client: string; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'request') return undefined;
  const values = valuesOf(unwrap(callee.getExpression()));
  if (values.length === 0) return undefined;
  let made = false;
  let ctorBounded = false;
  for (const v of values) {
    const u = unwrap(v);
    if (!Node.isNewExpression(u)) return undefined;
    const o = rawOriginOf(unwrap(u.getExpression()).compilerNode);
    const cls = o?.path.filter((p) => p !== 'default').pop();
    if (!o || o.module !== 'undici' || !cls || !DISPATCHERS.has(cls)) return undefined;
    made = true;
    if (sets(u.getArguments()[cls === 'Agent' ? 0 : 1], code) !== 'no') ctorBounded = true;
  }
  if (!made) return undefined;
  const own = sets(call.getArguments()[0], code);
  return { client: 'undici', bounded: ctorBounded || own !== 'no' };
}

/** A superagent request or an undici dispatcher's request, with whether it has a ceiling. */
export function otherClientRequest(call: CallExpression, code: Code): { client: string; bounded: boolean } | undefined {
  return superagentRequest(call) ?? dispatcherRequest(call, code);
}
