import { SyntaxKind, Node, ts, type CallExpression, type ObjectLiteralExpression } from 'ts-morph';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declarationOf, findNodes, originOf, rawOriginOf } from '../../facts/scope.js';
import { objectLiteralOf, propertyValue, serverModel } from '../../facts/server-model.js';
import { ofKinds, positionOf, rawUnwrap, unwrap } from '../../facts/ts-source.js';
import { codeOf, reachable, type Code, type Fn } from '../code-paths.js';

/**
 * S-13 — progress, cancellation and outbound timeouts (static part). Reads the code a client request
 * reaches: the handlers of registered tools, prompts and resources and of low-level request handlers,
 * and the local functions they call (code-paths.reachable). Two checks:
 *
 * 1. Every outbound HTTP request there has a ceiling:
 *    - `fetch(url)` (global, node-fetch or undici) with an options object carrying `signal`;
 *    - axios (`axios(cfg)`, `axios.get(url, cfg)`, `axios.post(url, data, cfg)`, an instance from
 *      `axios.create(cfg)`) with `timeout` or `signal` in the call's or the instance's config, unless
 *      `defaults.timeout` is set somewhere;
 *    - `http(s).request` / `http(s).get` with `timeout` or `signal` in their options, or a `.setTimeout(`
 *      on the request.
 *    An options value that cannot be read (a parameter, a spread) is given the benefit of the doubt.
 * 2. A tool handler that receives the SDK context (`ctx` in v2, `extra` in v1) and does outbound I/O on its
 *    path reads the cancellation signal (`ctx.mcpReq.signal`, `extra.signal`, a destructured `signal`),
 *    or hands the context on to another function.
 */

type Client = 'fetch' | 'axios' | 'http';

const AXIOS_CONFIG_INDEX: Record<string, number> = { get: 1, delete: 1, head: 1, options: 1, post: 2, put: 2, patch: 2, request: 0 };

/** A config object's verdict: 'yes' when it carries one of `keys`, 'no' when it is a literal without them, 'unknown' otherwise. */
function carries(node: Node | undefined, keys: string[], code: Code): 'yes' | 'no' | 'unknown' {
  if (!node) return 'no';
  const o: ObjectLiteralExpression | undefined = objectLiteralOf(node, code.sources);
  if (!o) return 'unknown';
  if (o.getProperties().some((p) => Node.isSpreadAssignment(p))) return 'unknown';
  return keys.some((k) => propertyValue(o, k) !== undefined) ? 'yes' : 'no';
}

/** Axios instance config (`const api = axios.create(cfg)`), when `id` names one. */
function axiosInstanceConfig(id: Node): { config: Node | undefined } | undefined {
  const u = unwrap(id);
  if (!Node.isIdentifier(u)) return undefined;
  const d = declarationOf(u);
  const decl = d?.getParent();
  if (!Node.isVariableDeclaration(decl)) return undefined;
  const init = decl.getInitializer();
  const call = init ? unwrap(init) : undefined;
  if (!call || !Node.isCallExpression(call)) return undefined;
  const o = originOf(call.getExpression());
  if (o?.module !== 'axios' || o.path[o.path.length - 1] !== 'create') return undefined;
  return { config: call.getArguments()[0] };
}

/**
 * Raw pre-filter of outbound(): the calls it can recognise — a callee from fetch, node-fetch, undici, axios,
 * http or https, or a method an axios instance has — decided on compiler nodes before anything is wrapped.
 */
const OUTBOUND_MODULES = new Set(['node-fetch', 'undici', 'axios', 'http', 'https']);
function mayBeOutbound(cn: ts.CallExpression): boolean {
  const c = rawUnwrap(cn.expression);
  if (ts.isPropertyAccessExpression(c) && c.name.text in AXIOS_CONFIG_INDEX) return true;
  const o = rawOriginOf(c);
  if (!o) return false;
  if (o.module === '<global>') return o.path.join('.') === 'fetch' || o.path.join('.') === 'globalThis.fetch';
  return OUTBOUND_MODULES.has(o.module);
}

/** An outbound request call and whether it has a ceiling. */
function outbound(call: CallExpression, code: Code, axiosDefaults: boolean): { client: Client; bounded: boolean } | undefined {
  const callee = unwrap(call.getExpression());
  const args = call.getArguments();
  const o = originOf(callee);
  const isFetch =
    (o?.module === '<global>' && o.path.join('.') === 'fetch') ||
    (o?.module === '<global>' && o.path.join('.') === 'globalThis.fetch') ||
    (o?.module === 'node-fetch' && (o.path.length === 0 || o.path[0] === 'default')) ||
    (o?.module === 'undici' && o.path[0] === 'fetch');
  if (isFetch) {
    const first = args[0] && unwrap(args[0]);
    if (args.length === 1 && first && Node.isNewExpression(first)) return { client: 'fetch', bounded: true };
    return { client: 'fetch', bounded: carries(args[1], ['signal'], code) !== 'no' };
  }
  if (o?.module === 'axios') {
    const path = o.path[0] === 'default' ? o.path.slice(1) : o.path;
    if (path.length === 0) {
      const cfgArg = args.length >= 2 ? args[1] : args[0];
      const first = args[0] && unwrap(args[0]);
      if (args.length === 1 && first && !Node.isObjectLiteralExpression(first) && !Node.isIdentifier(first)) return { client: 'axios', bounded: axiosDefaults };
      return { client: 'axios', bounded: axiosDefaults || carries(cfgArg, ['timeout', 'signal'], code) !== 'no' };
    }
    if (path.length === 1 && path[0]! in AXIOS_CONFIG_INDEX) {
      return { client: 'axios', bounded: axiosDefaults || carries(args[AXIOS_CONFIG_INDEX[path[0]!]!], ['timeout', 'signal'], code) !== 'no' };
    }
    return undefined;
  }
  if (Node.isPropertyAccessExpression(callee) && callee.getName() in AXIOS_CONFIG_INDEX) {
    const inst = axiosInstanceConfig(callee.getExpression());
    if (inst) {
      const own = carries(args[AXIOS_CONFIG_INDEX[callee.getName()]!], ['timeout', 'signal'], code);
      return { client: 'axios', bounded: axiosDefaults || own !== 'no' || carries(inst.config, ['timeout', 'signal'], code) !== 'no' };
    }
  }
  if (o && (o.module === 'http' || o.module === 'https') && o.path.length === 1 && (o.path[0] === 'request' || o.path[0] === 'get')) {
    const opts = args.slice(0, 2).find((a) => !!objectLiteralOf(a, code.sources));
    const first = args[0] && unwrap(args[0]);
    // Without an options object: a literal URL means no options at all; anything else cannot be read.
    const literalUrl = !!first && (Node.isStringLiteral(first) || Node.isNoSubstitutionTemplateLiteral(first) || Node.isTemplateExpression(first) || Node.isNewExpression(first));
    const bounded = opts ? carries(opts, ['timeout', 'signal'], code) !== 'no' : !literalUrl;
    return { client: 'http', bounded: bounded || setsTimeoutOn(call) };
  }
  return undefined;
}

/** `http.get(…).setTimeout(…)`, or `const req = https.request(…)` then `req.setTimeout(…)` / `req.on('timeout', …)`. */
function setsTimeoutOn(call: CallExpression): boolean {
  const p = call.getParent();
  if (Node.isPropertyAccessExpression(p) && p.getName() === 'setTimeout') return true;
  if (!Node.isVariableDeclaration(p) || !Node.isIdentifier(p.getNameNode())) return false;
  const name = p.getName();
  const scope = p.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a));
  return !!scope?.getDescendants().some((n) => {
    if (!Node.isCallExpression(n)) return false;
    const c = n.getExpression().getText().replace(/\s+/g, '');
    return c === `${name}.setTimeout` || (c === `${name}.on` && n.getArguments()[0]?.getText().includes('timeout'));
  });
}

/** `defaults.timeout = …` anywhere (axios.defaults.timeout, api.defaults.timeout). */
function axiosDefaultsSet(code: Code): boolean {
  return code.files.some(([, sf]) =>
    ofKinds(sf, [SyntaxKind.BinaryExpression], (cn) => {
      const b = cn as ts.BinaryExpression;
      return b.operatorToken.kind === SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(b.left) && b.left.name.text === 'timeout';
    }).some((n) => Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '=' && /\.defaults\.timeout$/.test(n.getLeft().getText().replace(/\s+/g, ''))),
  );
}

/** Does the handler read the cancellation signal from its context parameter (or pass the context on)? */
function readsSignal(fn: Fn, ctxIndex: number): boolean | undefined {
  const param = fn.getParameters()[ctxIndex];
  if (!param) return undefined; // the handler does not receive the context
  const nameNode = param.getNameNode();
  if (!Node.isIdentifier(nameNode)) return /\bsignal\b/.test(nameNode.getText());
  const name = nameNode.getText();
  let reads = false;
  for (const n of findNodes(fn, (cn) => ts.isIdentifier(cn) && cn.text === name)) {
    if (reads) break;
    if (!Node.isIdentifier(n) || n.getText() !== name || n === nameNode) continue;
    // climb the access chain: ctx.mcpReq.signal, extra.signal, ctx.mcpReq
    let top: Node = n;
    while (Node.isPropertyAccessExpression(top.getParent()) && (top.getParent() as Node & { getExpression(): Node }).getExpression() === top) top = top.getParent()!;
    const chain = top.getText().replace(/\s+/g, '');
    if (/\.signal\b/.test(chain)) reads = true;
    const p = top.getParent();
    if (Node.isVariableDeclaration(p) && /\bsignal\b/.test(p.getNameNode().getText())) reads = true;
    // The context itself (or its request part) handed to another function, which may read the signal.
    const whole = top === n || chain === `${name}.mcpReq`;
    if (whole && (Node.isCallExpression(p) || Node.isNewExpression(p)) && (p.getArguments() as Node[]).includes(top)) reads = true;
  }
  return reads;
}

export default defineDetector({
  ruleId: 'S-13',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'outbound-without-timeout': ['client'],
    'signal-ignored': ['tool'],
  },
  judge({ inputs: { repo } }) {
    const src = codeOf(repo);
    if (!src.ok) return src.verdict;
    const code = src.code;
    const model = serverModel(repo);
    const entries: Fn[] = [
      ...model.tools.map((t) => t.handler),
      ...model.prompts.map((p) => p.handler),
      ...model.resources.map((r) => r.handler),
      ...model.requestHandlers.map((r) => r.handler),
    ].filter((f): f is Fn => !!f);
    if (entries.length === 0) return couldNotJudge('no-handlers-in-source');
    const defaults = axiosDefaultsSet(code);
    const findings: Finding[] = [];
    const seen = new Set<Node>();
    const outboundIn = new Map<Fn, boolean>();
    const scan = (fns: Fn[]): boolean => {
      let any = false;
      for (const fn of fns) {
        if (!outboundIn.has(fn)) {
          let here = false;
          for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayBeOutbound(cn))) {
            if (!Node.isCallExpression(n)) continue;
            const r = outbound(n, code, defaults);
            if (!r) continue;
            here = true;
            if (!r.bounded && !seen.has(n)) {
              seen.add(n);
              findings.push({
                messageId: 'outbound-without-timeout',
                data: { client: r.client },
                location: { file: code.rel(n.getSourceFile()), line: positionOf(n).line },
                evidence: n.getText().replace(/\s+/g, ' ').slice(0, 120),
              });
            }
          }
          outboundIn.set(fn, here);
        }
        any = any || outboundIn.get(fn)!;
      }
      return any;
    };
    const handlerFns = new Set<Fn>();
    for (const t of model.tools) {
      if (!t.handler || handlerFns.has(t.handler)) continue;
      handlerFns.add(t.handler);
      const doesIo = scan(reachable(code, [t.handler]));
      if (!doesIo || !['registerTool', 'tool'].includes(t.api)) continue;
      const ctxIndex = t.inputSchema !== undefined ? 1 : 0;
      if (readsSignal(t.handler, ctxIndex) === false) {
        findings.push({ messageId: 'signal-ignored', data: { tool: t.name }, location: { file: code.rel(t.handler.getSourceFile()), line: positionOf(t.handler).line } });
      }
    }
    for (const r of model.requestHandlers) {
      if (!r.handler || handlerFns.has(r.handler)) continue;
      handlerFns.add(r.handler);
      const doesIo = scan(reachable(code, [r.handler]));
      if (doesIo && r.method === 'tools/call' && readsSignal(r.handler, 1) === false) {
        findings.push({ messageId: 'signal-ignored', data: { tool: r.method }, location: { file: code.rel(r.handler.getSourceFile()), line: positionOf(r.handler).line } });
      }
    }
    scan(reachable(code, entries.filter((f) => !handlerFns.has(f))));
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
