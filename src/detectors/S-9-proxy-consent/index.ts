import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { returnedExpressions } from '../../facts/server-model.js';
import { findNodes, isFunctionLike } from '../../facts/scope.js';
import { propertyName, stringValue, unwrap } from '../../facts/ts-source.js';
import { functionValue } from '../support/auth/oauth-support.js';
import { args, calledFunction, calleeImport, calleeName, declarationOf, initializerOf, isCall, locationOf, propertyOf, readSources, receiverOf, resolveValue, sitesOf, K, rawCallNamed } from '../support/source/source-support.js';

import { judgePythonAuthCondition, PY_AUTH_EVIDENCE } from '../support/auth/python-auth.js';
/**
 * S-9 — per-client consent on an OAuth proxy (static). The rule applies to a server that sends browsers
 * to a third-party authorization server under one static client id:
 *   - SDK v1 `new ProxyOAuthServerProvider({ getClient })` whose getClient answers with a client_id that
 *     is not the one asked for (a constant, an environment value): its authorize() redirects to the
 *     upstream at once, with no consent step — red. A getClient that echoes the requested id keeps each
 *     MCP client distinct at the upstream (the rule's condition does not hold); one we cannot read is
 *     could-not-judge.
 *   - an authorization endpoint written by hand — an `authorize(client, params, res)` method, or a route
 *     on a path ending in /authorize — that sets `client_id` to a static value (searchParams.set,
 *     URLSearchParams / object property, `client_id=${…}` in a template; in the handler or a local
 *     function it calls) and redirects off-site (redirect(), a Location header): red unless a consent
 *     step (a name or string saying consent / approve) comes before the redirect in the handler.
 * The consent page's own hardening (CSP, cookies, state) is not judged here.
 */

const CONSENT = /consent|approv/i;

/** Does an expression depend on the parameters of `fn` (the request, the client, the params)? */
function fromRequest(x: Node, fn: Node, depth = 0): boolean {
  if (depth > 4) return false;
  const ids = Node.isIdentifier(x) ? [x] : findNodes(x, ts.isIdentifier).filter(Node.isIdentifier);
  for (const id of ids) {
    const d = declarationOf(id);
    if (!d || !fn.containsRange(d.getPos(), d.getEnd())) continue;
    if (Node.isParameterDeclaration(d) || Node.isBindingElement(d)) return true;
    const init = initializerOf(d);
    if (init && fromRequest(init, fn, depth + 1)) return true;
  }
  return false;
}

/** The static client_id values set in a function: `set('client_id', X)`, `{ client_id: X }`, `client_id=${X}`. */
function staticClientIds(fn: Node): Node[] {
  const out: Node[] = [];
  fn.forEachDescendant((n) => {
    let value: Node | undefined;
    if (Node.isCallExpression(n) && ['set', 'append'].includes(calleeName(n) ?? '') && stringValue(n.getArguments()[0]) === 'client_id') value = n.getArguments()[1];
    else if (Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'client_id') value = n.getInitializer();
    else if (Node.isShorthandPropertyAssignment(n) && n.getName() === 'client_id') value = n.getNameNode();
    else if (Node.isTemplateExpression(n)) {
      const spans = n.getTemplateSpans();
      const i = [n.getHead().getLiteralText(), ...spans.map((s) => s.getLiteral().getLiteralText())].findIndex((t) => /[?&]client_id=$/.test(t));
      if (i >= 0 && spans[i]) value = spans[i]!.getExpression();
    }
    // google-auth-library / msal: the client id is the one the OAuth client was built with (`oauth2Client.generateAuthUrl({ … })`).
    else if (Node.isCallExpression(n) && AUTH_URL_BUILDERS.has(calleeName(n) ?? '')) value = receiverOf(n);
    if (value && !fromRequest(value, fn)) out.push(value);
  });
  return out;
}

/** Methods of OAuth client libraries that build the upstream authorization URL under the client's own id. */
const AUTH_URL_BUILDERS: ReadonlySet<string> = new Set(['generateAuthUrl', 'getAuthCodeUrl']);

/** Redirects in a function that leave the site: redirect(u) with u not a '/…' path, a Location header. */
function offsiteRedirects(fn: Node): Node[] {
  const out: Node[] = [];
  fn.forEachDescendant((n) => {
    if (!Node.isCallExpression(n)) return;
    const name = calleeName(n) ?? '';
    const a = args(n);
    let target: Node | undefined;
    if (name === 'redirect' && a.length) target = a[a.length === 2 && Node.isNumericLiteral(a[0]!) ? 1 : 0];
    else if (['setHeader', 'set', 'header'].includes(name) && stringValue(a[0])?.toLowerCase() === 'location') target = a[1];
    else if (name === 'writeHead') target = propertyOf(a[1], 'Location') ?? propertyOf(a[1], 'location');
    if (!target) return;
    const t = unwrap(target);
    const head = stringValue(t) ?? (Node.isTemplateExpression(t) ? t.getHead().getLiteralText() : undefined);
    if (head !== undefined && head.startsWith('/')) return;
    out.push(n);
  });
  return out;
}

/** A consent step written before `pos` in the function: a name or string saying consent / approve. */
function consentBefore(fn: Node, pos: number): boolean {
  let found = false;
  fn.forEachDescendant((n, t) => {
    if (n.getStart() >= pos) return;
    const text = Node.isIdentifier(n) ? n.getText() : Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n) ? n.getLiteralValue() : undefined;
    if (text !== undefined && CONSENT.test(text)) {
      found = true;
      t.stop();
    }
  });
  return found;
}

/** The authorization endpoints written by hand: `authorize(client, params, res)` methods and /authorize routes. */
function authorizeHandlers(files: [string, import('ts-morph').SourceFile][]): { file: string; fn: Node }[] {
  const out: { file: string; fn: Node }[] = [];
  // The path of the authorization endpoint this server publishes in its metadata (`authorization_endpoint: \`${base}/oauth/google/start\``).
  const published = new Set<string>();
  for (const [file, sf] of files) {
    if (!/authorize|authorization_endpoint/.test(sf.getFullText())) continue;
    // `authorize(client, params, res)` of a provider class (declared, or a class expression of a bundle) or of an object-literal provider given to mcpAuthRouter.
    const isAuthorize = (cn: ts.Node): boolean =>
      (ts.isMethodDeclaration(cn) || ts.isPropertyAssignment(cn)) && !!cn.name && ts.isIdentifier(cn.name) && cn.name.text === 'authorize';
    for (const m of findNodes(sf, isAuthorize)) {
      const fn = Node.isMethodDeclaration(m) ? m : Node.isPropertyAssignment(m) ? functionValue(m.getInitializer()) : undefined;
      if (fn && isFunctionLike(fn) && fn.getParameters().length >= 3) out.push({ file, fn });
    }
    for (const p of findNodes(sf, (cn) => ts.isPropertyAssignment(cn) && ((ts.isIdentifier(cn.name) && cn.name.text === 'authorization_endpoint') || (ts.isStringLiteral(cn.name) && cn.name.text === 'authorization_endpoint')))) {
      const v = Node.isPropertyAssignment(p) ? unwrap(p.getInitializerOrThrow()) : undefined;
      const text = v ? (stringValue(v) ?? (Node.isTemplateExpression(v) ? v.getTemplateSpans().at(-1)?.getLiteral().getLiteralText() : undefined)) : undefined;
      const m = text ? /(\/[\w./-]+)$/.exec(text.replace(/^https?:\/\/[^/]+/, '')) : null;
      if (m && m[1] !== '/') published.add(m[1]!);
    }
  }
  for (const s of sitesOf(files, K.call, Node.isCallExpression, rawCallNamed(new Set(['get', 'all', 'post', 'route', 'on'])))) {
    const name = calleeName(s.node) ?? '';
    if (!['get', 'all', 'post', 'route', 'on'].includes(name) || !receiverOf(s.node)) continue;
    const path = stringValue(s.node.getArguments()[0]);
    if (!path || !(/\/authorize$/.test(path) || published.has(path))) continue;
    const fn = [...s.node.getArguments()].reverse().map((a) => functionValue(a)).find((f) => f);
    if (fn) out.push({ file: s.file, fn });
  }
  return out;
}

/**
 * FastMCP's OAuth proxies: `new GoogleProvider({ clientId, clientSecret, baseUrl })` (Azure, GitHub, the generic
 * OAuthProvider) or `new OAuthProxy({ upstreamClientId, … })`. They relay every MCP client upstream under the
 * server's one client id, and show their own consent page unless `consentRequired: false`.
 */
const FASTMCP_PROXIES: ReadonlySet<string> = new Set(['GoogleProvider', 'AzureProvider', 'GitHubProvider', 'OAuthProvider', 'OAuthProxy']);
type FrameworkConsent = { kind: 'consent' } | { kind: 'none'; at: Node } | { kind: 'unknown'; at: Node };

function frameworkProxyConsent(call: Node): FrameworkConsent | undefined {
  if (!Node.isNewExpression(call) || !FASTMCP_PROXIES.has(calleeName(call) ?? '')) return undefined;
  const from = calleeImport(call);
  if (from && !/^fastmcp(\/|$)/.test(from.module)) return undefined;
  // Bundled: the library's own `new OAuthProxy({ … consentRequired: this.config.consentRequired ?? true })` inside a provider's createProxy().
  if (!from) {
    const m = call.getFirstAncestor((a) => Node.isMethodDeclaration(a));
    if (m && Node.isMethodDeclaration(m) && m.getName() === 'createProxy') return undefined;
    if (!/fastmcp/i.test(call.getSourceFile().getFullText().slice(0, 20000))) return undefined;
  }
  const a0 = call.getArguments()[0];
  const opts = a0 ? resolveValue(a0) : undefined;
  if (!opts || !Node.isObjectLiteralExpression(opts)) return { kind: 'unknown', at: call };
  if (opts.getProperties().some((p) => Node.isSpreadAssignment(p))) return { kind: 'unknown', at: call };
  const c = propertyOf(opts, 'consentRequired');
  if (!c) return { kind: 'consent' };
  const t = unwrap(c).getText();
  if (t === 'true') return { kind: 'consent' };
  if (t === 'false') return { kind: 'none', at: c };
  return { kind: 'unknown', at: c };
}

type ProxyClient = { kind: 'static'; value: string } | { kind: 'forwarded' } | { kind: 'unknown' };

/** What getClient answers: the requested id echoed back, a static id, or something we cannot read. */
function proxyClient(getClient: Node | undefined): ProxyClient {
  const fn = functionValue(getClient);
  const unknown: ProxyClient = { kind: 'unknown' };
  if (!fn || !isFunctionLike(fn)) return unknown;
  const param = fn.getParameters()[0];
  const returned = returnedExpressions(fn).map((r) => unwrap(Node.isAwaitExpression(unwrap(r)) ? (unwrap(r) as import('ts-morph').AwaitExpression).getExpression() : r));
  const objects = returned.filter(Node.isObjectLiteralExpression);
  if (objects.length === 0 || objects.length !== returned.filter((r) => !/^(undefined|null)$/.test(r.getText())).length) return unknown;
  for (const o of objects) {
    const v = propertyOf(o, 'client_id');
    if (!v) return unknown;
    const echoed = !!param && Node.isIdentifier(unwrap(v)) && declarationOf(unwrap(v) as import('ts-morph').Identifier) === param;
    if (!echoed) return { kind: 'static', value: v.getText().slice(0, 60) };
  }
  return { kind: 'forwarded' };
}

export default [
  defineDetector({
    ruleId: 'S-9',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'proxy-provider-without-consent': ['clientId'],
      'redirect-without-consent': ['clientId'],
      'framework-proxy-without-consent': ['provider'],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo, { pythonPart: true });
      if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonAuthCondition(repo, PY_AUTH_EVIDENCE.proxy, 'no-oauth-proxy') : src.verdict;
      const files = src.files.filter(([, sf]) => /client_id|ProxyOAuthServerProvider|generateAuthUrl|getAuthCodeUrl|(?:Google|Azure|GitHub|OAuth)Provider|OAuthProxy/.test(sf.getFullText()));
      const findings: Finding[] = [];
      let proxies = 0;
      let unknown: { file: string; line: number } | undefined;
      let forwarded = false;
      let consentUnread: { file: string; line: number } | undefined;
      for (const s of sitesOf(files, K.calls, isCall, rawCallNamed(new Set(['ProxyOAuthServerProvider'])))) {
        if (!Node.isNewExpression(s.node) || calleeName(s.node) !== 'ProxyOAuthServerProvider') continue;
        const from = calleeImport(s.node);
        if (from && !from.module.startsWith('@modelcontextprotocol/')) continue;
        const client = proxyClient(propertyOf(s.node.getArguments()[0], 'getClient'));
        const loc = locationOf(s.file, s.node);
        if (client.kind === 'forwarded') forwarded = true;
        else if (client.kind === 'unknown') unknown ??= { file: loc.file, line: loc.line ?? 0 };
        else {
          proxies++;
          findings.push({ messageId: 'proxy-provider-without-consent', data: { clientId: client.value }, location: loc });
        }
      }
      for (const s of sitesOf(files, K.calls, isCall, rawCallNamed(FASTMCP_PROXIES))) {
        const c = frameworkProxyConsent(s.node);
        if (!c) continue;
        proxies++;
        if (c.kind === 'none') findings.push({ messageId: 'framework-proxy-without-consent', data: { provider: calleeName(s.node) ?? '' }, location: locationOf(s.file, c.at) });
        else if (c.kind === 'unknown') consentUnread ??= { file: s.file, line: locationOf(s.file, c.at).line ?? 0 };
      }
      for (const h of authorizeHandlers(files)) {
        const helpers = [h.fn];
        h.fn.forEachDescendant((n) => {
          if (Node.isCallExpression(n)) {
            const f = calledFunction(n);
            if (f && !helpers.includes(f)) helpers.push(f);
          }
        });
        const ids = helpers.flatMap(staticClientIds);
        if (ids.length === 0) continue;
        proxies++;
        const label = ids[0]!.getText().slice(0, 60);
        for (const r of offsiteRedirects(h.fn)) {
          if (!consentBefore(h.fn, r.getStart())) findings.push({ messageId: 'redirect-without-consent', data: { clientId: label }, location: locationOf(h.file, r) });
        }
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (consentUnread) return couldNotJudge('proxy-consent-not-read', consentUnread);
      if (proxies > 0) return present();
      if (unknown) return couldNotJudge('proxy-client-id-not-read', unknown);
      return notApplicable(forwarded ? 'proxy-forwards-client-id' : 'no-oauth-proxy');
    },
  }),
];
