import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { functionOf, isFunctionLike } from '../../facts/scope.js';
import { wrapNode } from '../../facts/ts-source.js';
import type { Code, Fn } from '../support/source/code-paths.js';

/**
 * The reverse reading of S-13 (static): from a request without a time limit that the forward reading of the
 * handlers did not reach (static.ts untraced), up through the callers of the function around it, to a function the
 * forward reading did reach (a tool, prompt, resource or request handler, or a function on one of their paths).
 * Callers are the calls the name resolution follows to the function (callSitesOf), and, where it does not:
 * - member calls by name (`this.auth.handleCallback(code)`, `registry().get(host).runRemote(cmd)`) when the name is
 *   defined once in the audited source and is not a common one (`get`, `request`, `run`, `execute`…);
 * - a method named by a string of a reached function (`{ handler: this.authHandler, method: 'handleAuthCallback' }`)
 *   when reached code calls a member chosen at run time (`handler[method](args)`), under the same conditions.
 * Up to MAX_DEPTH callers deep; a chain that ends at a module's top level (start-up code) reaches nothing.
 * The index of calls, definitions and strings by name is built once per audit, by one walk of each file.
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
  /** Calls of a member chosen at run time: `handler[method](args)`. */
  computed: ts.CallExpression[];
  sfOf: Map<ts.SourceFile, SourceFile>;
}

const memo = new WeakMap<object, Index>();
function indexOf(code: Code): Index {
  const hit = memo.get(code.sources);
  if (hit) return hit;
  const idx: Index = { calls: new Map(), defined: new Map(), strings: new Map(), computed: [], sfOf: new Map() };
  const push = <T>(m: Map<string, T[]>, k: string, v: T) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  const define = (name: string | undefined) => name && idx.defined.set(name, (idx.defined.get(name) ?? 0) + 1);
  for (const [, sf] of code.files) {
    idx.sfOf.set(sf.compilerNode, sf);
    const visit = (cn: ts.Node): void => {
      if (ts.isCallExpression(cn)) {
        let c: ts.Expression = cn.expression;
        while (ts.isParenthesizedExpression(c) || ts.isNonNullExpression(c)) c = c.expression;
        // Member calls only: a plain `name(…)` is linked by the name resolution (callSitesOf), or is another module's.
        if (ts.isPropertyAccessExpression(c)) push(idx.calls, c.name.text, cn);
        else if (ts.isElementAccessExpression(c) && !ts.isStringLiteralLike(c.argumentExpression)) idx.computed.push(cn);
      } else if ((ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && /^[A-Za-z_$][\w$]{2,60}$/.test(cn.text)) {
        push(idx.strings, cn.text, cn);
      } else if (isRawFunction(cn)) define(rawNameOf(cn));
      ts.forEachChild(cn, visit);
    };
    visit(sf.compilerNode);
  }
  memo.set(code.sources, idx);
  return idx;
}

function isRawFunction(cn: ts.Node): cn is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isFunctionExpression(cn) || ts.isArrowFunction(cn);
}

/** The name a function is called by: its own, or the variable, property or member it is given to. */
function rawNameOf(cn: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn)) && cn.name) {
    return ts.isIdentifier(cn.name) || ts.isStringLiteral(cn.name) || ts.isPrivateIdentifier(cn.name) ? cn.name.text.replace(/^#/, '') : undefined;
  }
  if (ts.isArrowFunction(cn) || ts.isFunctionExpression(cn)) {
    let p = cn.parent;
    while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p))) p = p.parent;
    if (!p) return undefined;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.initializer && ts.isIdentifier(p.name)) return p.name.text;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(p.left)) return p.left.name.text;
    if (cn.name) return cn.name.text;
  }
  return undefined;
}

/** The function a call or a string sits in, past the function literals handed to a call (callbacks, Promise executors), which belong to it. */
function ownerOf(cn: ts.Node): ts.Node | undefined {
  let p = cn.parent;
  while (p) {
    if (isRawFunction(p) || ts.isConstructorDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p)) {
      if ((ts.isArrowFunction(p) || ts.isFunctionExpression(p)) && !rawNameOf(p)) {
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

/** Whether reached code calls a member chosen at run time, once per set of reached functions. */
const computedMemo = new WeakMap<ReadonlySet<ts.Node>, boolean>();

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
  const seen = new Set<ts.Node>([start]);
  let frontier: ts.Node[] = [start];
  const wrap = (cn: ts.Node): Node | undefined => {
    const sf = idx.sfOf.get(cn.getSourceFile());
    return sf ? wrapNode(sf, cn) : undefined;
  };
  let computedReached = computedMemo.get(reached);
  if (computedReached === undefined) computedMemo.set(reached, (computedReached = idx.computed.some((c) => !!reachedAround(c, reached))));
  for (let depth = 0; depth < MAX_DEPTH && frontier.length; depth++) {
    const next: ts.Node[] = [];
    for (const fnNode of frontier) {
      const fn = wrap(fnNode);
      if (!fn || !isFunctionLike(fn)) continue;
      const sites: ts.Node[] = callSites(fn).map((n) => n.compilerNode);
      const name = rawNameOf(fnNode);
      if (name && !COMMON.has(name) && idx.defined.get(name) === 1) {
        for (const call of idx.calls.get(name) ?? []) {
          if (sites.includes(call)) continue;
          // A call the name resolution follows to another function is not this one's.
          const w = wrap(call);
          const other = w && Node.isCallExpression(w) ? safeFunctionOf(w.getExpression(), code) : undefined;
          if (other && other.compilerNode !== fnNode) continue;
          sites.push(call);
        }
        // A method named by a string that reached code looks up and calls (`handler[method](args)`).
        if (computedReached && (ts.isMethodDeclaration(fnNode) || ts.isPropertyDeclaration(fnNode.parent))) {
          for (const s of idx.strings.get(name) ?? []) if (reachedAround(s, reached)) sites.push(s);
        }
      }
      for (const site of sites) {
        const end = reachedAround(site, reached);
        if (end) {
          const handler = wrap(end);
          const via = wrap(site);
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
