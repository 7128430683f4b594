import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { wrapNode } from '../../facts/ts-source.js';
import { lineIn, viewCode, type ViewCode } from '../support/apps/app-source.js';
import { embeddedViewCode } from '../support/apps/embedded-view.js';
import { parsedSources } from '../../facts/ts-source.js';
import { urlOf, type Target } from '../support/apps/view-urls.js';
import { declaredOrigin, deriveCsp } from '../../apps/csp.js';
import type { RepoFacts } from '../../facts/repo.js';

/**
 * the View stays in its sandbox (static). Reads the View's code — its UI source files and the inline
 * scripts of its built single-file bundles (parse5 for the HTML: a `<script>` inside a comment is no script;
 * ts-morph for the JavaScript) — for what reaches outside the sandboxed iframe:
 *   - the parent, top or opener window (`window.parent`, `window.top`, `window.opener`, `parent.x`): red unless it is the App bridge,
 *     that is the frame is only compared (`e.source !== host`), only sent JSON-RPC message literals
 *     (`host.postMessage({ jsonrpc: '2.0', … })`, through a local alias too), or handed to a postMessage
 *     transport class (a class that posts messages, listens to `message` events and speaks JSON-RPC: the
 *     PostMessageTransport of @modelcontextprotocol/ext-apps bundled in, `new T(window.parent, window.parent)`);
 *   - direct storage: `localStorage`, `sessionStorage`, `indexedDB`;
 *   - direct network: `fetch`, `XMLHttpRequest`, `WebSocket`, `EventSource`, `navigator.sendBeacon` — except
 *     Vite's module-preload polyfill, whose `fetch(link.href)` only warms the `<link rel=modulepreload>` tags
 *     of the page itself (inert in a single-file bundle; A-2 judges such links).
 * A network use stays inside when its URL is a `data:` or `blob:` URL (or `URL.createObjectURL(…)`), or an
 * absolute URL whose origin the App's resource declares in `_meta.ui.csp.connectDomains` (literal arrays in the
 * server's source): the per-resource CSP of the double-iframe model then governs it, which the standard counts as
 * green. A URL the reading cannot resolve is red in the View's own source unless the App declares connect origins;
 * in a built bundle (the View's code and the libraries bundled with it, not told apart) only a resolved absolute URL
 * outside the declared origins counts — what really runs is the dynamic part's. `typeof localStorage` tests for the
 * API without using it. No View code at all: could-not-judge; a View file that cannot be read or parsed: could-not-judge.
 */

const GLOBAL_OBJECTS = new Set(['window', 'self', 'globalThis']);
const FRAMES = new Set(['parent', 'top', 'opener']);
const STORAGE = new Set(['localStorage', 'sessionStorage', 'indexedDB']);
const NETWORK_CTORS = new Set(['XMLHttpRequest', 'WebSocket', 'EventSource']);

type Kind = 'frame' | 'storage' | 'network';
interface Use {
  kind: Kind;
  api: string;
  node: ts.Node;
  url?: Target;
}

/** The connect origins the App's resources declare: `connectDomains: ['https://…']` in the repository's own source. */
function declaredConnect(repo: RepoFacts): string[] {
  const out: string[] = [];
  for (const [file, sf] of parsedSources(repo).files) {
    if (file.startsWith('node_modules/')) continue;
    const visit = (cn: ts.Node): void => {
      if (ts.isPropertyAssignment(cn) && (ts.isIdentifier(cn.name) || ts.isStringLiteral(cn.name)) && cn.name.text === 'connectDomains' && ts.isArrayLiteralExpression(cn.initializer)) {
        for (const el of cn.initializer.elements) if (ts.isStringLiteral(el) || ts.isNoSubstitutionTemplateLiteral(el)) out.push(el.text);
      }
      ts.forEachChild(cn, visit);
    };
    visit(sf.compilerNode);
  }
  return deriveCsp({ csp: { connectDomains: out } }).declared.connectDomains;
}

/** Does this network use leave the View for a place its resource did not declare? */
function escapes(u: Use, bundle: boolean, declared: () => readonly string[]): boolean {
  if (u.kind !== 'network' || !u.url) return true;
  if (u.url.kind === 'local') return false;
  if (u.url.kind === 'absolute') return !declaredOrigin(u.url.url, declared());
  return !bundle && declared().length === 0;
}

/** Names the file declares itself (variables, parameters, functions, classes, imports): such a `top` is not the global. */
function declaredNames(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const visit = (cn: ts.Node): void => {
    if ((ts.isVariableDeclaration(cn) || ts.isParameter(cn) || ts.isFunctionDeclaration(cn) || ts.isClassDeclaration(cn) || ts.isImportSpecifier(cn) || ts.isImportClause(cn) || ts.isNamespaceImport(cn)) && cn.name && ts.isIdentifier(cn.name)) out.add(cn.name.text);
    ts.forEachChild(cn, visit);
  };
  visit(sf);
  return out;
}

/** A global of the page: `name` unbound in the file, or `window.name` / `self.name` / `globalThis.name`. Returns the node standing for the global. */
function globalRef(cn: ts.Node, names: ReadonlySet<string>, declared: ReadonlySet<string>): { name: string; node: ts.Node } | undefined {
  if (ts.isPropertyAccessExpression(cn) && ts.isIdentifier(cn.expression) && GLOBAL_OBJECTS.has(cn.expression.text) && !declared.has(cn.expression.text) && names.has(cn.name.text)) return { name: cn.name.text, node: cn };
  if (ts.isIdentifier(cn) && names.has(cn.text) && !declared.has(cn.text)) {
    const p = cn.parent;
    if (ts.isPropertyAccessExpression(p) && p.name === cn) return undefined; // x.top: a property of something else
    if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) && p.name === cn) return undefined;
    if (ts.isShorthandPropertyAssignment(p)) return undefined;
    if (ts.isBindingElement(p) || ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return undefined;
    // A bare frame name counts only as the object of a property access (`parent.postMessage`): `top` alone is too common a word.
    if (FRAMES.has(cn.text) && !(ts.isPropertyAccessExpression(p) && p.expression === cn)) return undefined;
    return { name: cn.text, node: cn };
  }
  return undefined;
}

const text = (n: ts.Node, sf: ts.SourceFile) => n.getText(sf);

/** Is this object literal a JSON-RPC message (it has a `jsonrpc` member)? */
function isJsonRpcLiteral(n: ts.Node): boolean {
  let u = n;
  while (ts.isParenthesizedExpression(u)) u = u.expression;
  return ts.isObjectLiteralExpression(u) && u.properties.some((p) => p.name !== undefined && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === 'jsonrpc');
}

/** A class that is a postMessage JSON-RPC transport: it posts messages, listens to `message` events and checks `jsonrpc`. */
function isTransportClass(c: ts.Node, sf: ts.SourceFile): boolean {
  const t = text(c, sf);
  return /\.postMessage\s*\(/.test(t) && /addEventListener\s*\(\s*(['"`])message\1/.test(t) && /jsonrpc/.test(t);
}

/** The class a `new X(...)` builds, when X is a class of the same file (declaration or `X = class {…}`). */
function classNamed(name: string, sf: ts.SourceFile): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (cn: ts.Node): void => {
    if (found) return;
    if (ts.isClassDeclaration(cn) && cn.name?.text === name) found = cn;
    else if (ts.isVariableDeclaration(cn) && ts.isIdentifier(cn.name) && cn.name.text === name && cn.initializer && ts.isClassExpression(cn.initializer)) found = cn.initializer;
    else ts.forEachChild(cn, visit);
  };
  visit(sf);
  return found;
}

/** Is this use of the parent/top frame the bridge (compared, sent JSON-RPC, handed to a transport)? `undefined` when the use is an alias to follow. */
function frameUseIsBridge(node: ts.Node, sf: ts.SourceFile, depth = 0): boolean {
  let n = node;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  // e.source !== window.parent
  if (ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(p.operatorToken.kind)) return true;
  // window.parent.postMessage({ jsonrpc: '2.0', … }, '*')
  if (ts.isPropertyAccessExpression(p) && p.expression === n && p.name.text === 'postMessage' && ts.isCallExpression(p.parent) && p.parent.expression === p) {
    const msg = p.parent.arguments[0];
    return !!msg && isJsonRpcLiteral(msg);
  }
  // constructor(target = window.parent): the parameter's class is the transport.
  if (ts.isParameter(p) && p.initializer === n) {
    let c: ts.Node | undefined = p.parent;
    while (c && !ts.isClassLike(c)) c = c.parent;
    return !!c && isTransportClass(c, sf);
  }
  // new Transport(window.parent, window.parent)
  if (ts.isNewExpression(p) && p.arguments?.includes(n as ts.Expression)) {
    const ctor = ts.isIdentifier(p.expression) ? classNamed(p.expression.text, sf) : ts.isClassExpression(p.expression) ? p.expression : undefined;
    return !!ctor && isTransportClass(ctor, sf);
  }
  // const host = window.parent: every use of `host` in its scope must be the bridge.
  if (ts.isVariableDeclaration(p) && p.initializer === n && ts.isIdentifier(p.name) && depth < 2) {
    const alias = p.name.text;
    let scope: ts.Node = p;
    while (scope.parent && !ts.isBlock(scope) && !ts.isSourceFile(scope) && !ts.isFunctionLike(scope)) scope = scope.parent;
    const uses: ts.Identifier[] = [];
    const visit = (cn: ts.Node): void => {
      if (ts.isIdentifier(cn) && cn.text === alias && cn !== p.name && !(ts.isPropertyAccessExpression(cn.parent) && cn.parent.name === cn) && !(ts.isPropertyAssignment(cn.parent) && cn.parent.name === cn)) uses.push(cn);
      ts.forEachChild(cn, visit);
    };
    visit(scope);
    return uses.every((u) => frameUseIsBridge(u, sf, depth + 1));
  }
  return false;
}

/** Vite's module-preload polyfill: `fetch(link.href, …)` in a function that deals with `modulepreload` links. */
function isPreloadPolyfill(call: ts.CallExpression, sf: ts.SourceFile): boolean {
  const arg = call.arguments[0];
  if (!arg || !ts.isPropertyAccessExpression(arg) || arg.name.text !== 'href') return false;
  let outer: ts.Node | undefined;
  for (let c: ts.Node | undefined = call.parent; c && !ts.isSourceFile(c); c = c.parent) if (ts.isFunctionLike(c)) outer = c;
  return !!outer && /modulepreload/.test(text(outer, sf));
}

const ALL = new Set([...FRAMES, ...STORAGE, ...NETWORK_CTORS, 'fetch', 'navigator']);

export function sandboxEscapes(sf: SourceFile): Use[] {
  const raw = sf.compilerNode;
  const declared = declaredNames(raw);
  const uses: Use[] = [];
  const visit = (cn: ts.Node): void => {
    const g = globalRef(cn, ALL, declared);
    if (g) {
      const p = g.node.parent;
      if (FRAMES.has(g.name)) {
        if (!frameUseIsBridge(g.node, raw)) uses.push({ kind: 'frame', api: ts.isPropertyAccessExpression(p) && p.expression === g.node ? `${text(g.node, raw)}.${p.name.text}` : text(g.node, raw), node: g.node });
      } else if (STORAGE.has(g.name)) {
        if (!ts.isTypeOfExpression(p)) uses.push({ kind: 'storage', api: g.name, node: g.node });
      } else if (g.name === 'fetch') {
        if (ts.isCallExpression(p) && p.expression === g.node && !isPreloadPolyfill(p, raw)) uses.push({ kind: 'network', api: 'fetch', node: g.node, url: urlOf(p.arguments[0]) });
      } else if (NETWORK_CTORS.has(g.name)) {
        if (ts.isNewExpression(p) && p.expression === g.node) uses.push({ kind: 'network', api: g.name, node: g.node, url: g.name === 'XMLHttpRequest' ? { kind: 'unknown' } : urlOf(p.arguments?.[0]) });
      } else if (g.name === 'navigator' && ts.isPropertyAccessExpression(p) && p.expression === g.node && p.name.text === 'sendBeacon') {
        const call = p.parent;
        uses.push({ kind: 'network', api: 'navigator.sendBeacon', node: p, url: urlOf(ts.isCallExpression(call) && call.expression === p ? call.arguments[0] : undefined) });
      }
      if (ts.isPropertyAccessExpression(g.node)) return; // window.top: its children are not other uses
    }
    ts.forEachChild(cn, visit);
  };
  visit(raw);
  return uses;
}

export default defineDetector({
  ruleId: 'A-3',
  genre: 'static',
  needs: ['repo'],
  messages: { 'view-code-escapes-sandbox': ['file', 'kind', 'api'] },
  judge({ inputs: { repo } }) {
    const view = viewCode(repo);
    if (view.unread.length) return couldNotJudge('file-not-read', fileNotReadData(view.unread[0]!));
    // No View file and no built bundle: the View the server's code serves whole, when all its code is inline.
    // (A View without any script escapes nothing.)
    const code = view.code.length ? (view.code as ViewCode[]) : embeddedViewCode(repo);
    if (!code) return couldNotJudge('no-view-code');
    const findings: Finding[] = [];
    const seen = new Set<string>();
    // Read from the server's source only when a network use needs it (most Views have none).
    let connect: string[] | undefined;
    const declared = () => (connect ??= declaredConnect(repo));
    for (const c of code) {
      let uses: Use[];
      try {
        uses = sandboxEscapes(c.sf);
      } catch (e) {
        if (e instanceof RangeError) return couldNotJudge('file-not-read', fileNotReadData({ file: c.file, cause: 'too-deep' }));
        throw e;
      }
      for (const u of uses) {
        if (!escapes(u, c.bundle, declared)) continue;
        const line = lineIn(c, wrapNode(c.sf, u.node) as Node);
        const key = `${c.file}|${line}|${u.api}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push({ messageId: 'view-code-escapes-sandbox', data: { file: c.file, kind: u.kind, api: u.api.slice(0, 80) }, location: { file: c.file, line }, evidence: u.api.slice(0, 200) });
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
