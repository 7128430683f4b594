import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { serverModel } from '../../facts/server-model.js';
import { propertyName, stringValue, unwrap } from '../../facts/ts-source.js';
import { stringList } from '../support/auth/oauth-support.js';
import { posix } from 'node:path';
import { callersOf, calleeName, declarationOf, importsOf, isCall, locationOf, named, propertyOf, rawCallNamed, rawNameText, rawStringWhere, readSources, receiverOf, resolveValue, sitesOf, staticString, K } from '../support/source/source-support.js';

import { judgePythonAuthCondition, PY_AUTH_EVIDENCE } from '../support/auth/python-auth.js';
/**
 * S-20 — minimal scopes, and scopes never suffice alone (static). Reads the scopes written in code: the
 * gate's `requiredScopes` (the baseline), the published `scopesSupported` / `scopes_supported`, the
 * per-operation ones (`requireScopes(…)`, `scopes.includes('…')` / `.has('…')` checks) and the scope=
 * of written WWW-Authenticate challenges.
 *   - a wildcard or omnibus scope (`*`, `all`, `full-access`, `files:*`) is red where it is written;
 *   - scopes_supported that lists every scope the operations ask for beyond the baseline publishes the
 *     whole catalogue instead of the minimal set: red at the list;
 *   - a tool that checks the token's scopes, takes the id of a user, account, tenant… as an argument and
 *     never looks at who the caller is (authInfo's clientId / extra / sub, an ownership or permission
 *     check) lets any holder of the scope act on anyone's data: red at the tool.
 * With a token gate and no scope in the code, scopes are decided elsewhere (the authorization server, a
 * gateway): could-not-judge. Down-scoping tolerance and elevation logging are not judged.
 */

const OMNIBUS = /^(\*|all|full[-_]?access|[\w.-]+:\*|\*:[\w.-]+|[\w-]+\.\*)$/i;
const GATES = new Set(['requireBearerAuth', 'verifyBearerToken', 'jwtVerify', 'ProxyOAuthServerProvider', 'mcpAuthRouter', 'introspectToken']);
/** The scopes a token carries: `authInfo.scopes`, `req.auth.scopes`, `grantedScopes`. */
const SCOPE_LIST = /(^|\.)(scopes|grantedScopes|tokenScopes)$/;
const ID_ARGUMENT = /^(user|account|tenant|org|organization|owner|customer|member|workspace|team|project)_?id$/i;
const CALLER = /clientId|client_id|\.sub\b|\.extra\b|owner|canAccess|hasAccess|assert\w*Access|authori[sz]e\w*\(|isMember|belongsTo|permission|acl/i;

const SCOPE_CALLS: ReadonlySet<string> = new Set(['requireScopes', 'includes', 'has']);

/**
 * Scopes the server asks an upstream authorization server for, as an OAuth client of Google or Microsoft
 * (a login for the user, a device code, a service account). Read only when the source imports one of
 * their OAuth client libraries.
 */
const OAUTH_CLIENT_MODULES = new Set(['google-auth-library', 'googleapis', '@google-cloud/local-auth', '@azure/msal-node', '@azure/msal-browser', '@azure/identity']);
const UPSTREAM_SCOPE = /^(?:https:\/\/(?:www\.googleapis\.com\/auth\/|mail\.google\.com\/?$|graph\.microsoft\.com\/)|[A-Z][A-Za-z]+\.(?:Read|ReadWrite|ReadBasic|Send|FullControl|Manage)(?:\.[A-Za-z]+)*$)/;
/** Upstream scopes that grant everything of a kind: all of Drive, all of Gmail, all of Google Cloud; tenant-wide Graph writes. */
const UPSTREAM_OMNIBUS = /^(?:https:\/\/www\.googleapis\.com\/auth\/(?:drive|cloud-platform)|https:\/\/mail\.google\.com\/?|(?:https:\/\/graph\.microsoft\.com\/)?(?:[A-Za-z]+\.ReadWrite\.All|Sites\.FullControl\.All|full_access_as_user))$/;
/** Calls of those libraries that take the scopes to ask for. */
const UPSTREAM_SCOPE_CALLS: ReadonlySet<string> = new Set(['generateAuthUrl', 'getAuthCodeUrl', 'acquireTokenByDeviceCode', 'acquireTokenByCode', 'acquireTokenInteractive', 'acquireTokenSilent', 'acquireTokenByClientCredential', 'authenticate', 'GoogleAuth', 'JWT', 'getClient']);

const APP_DEFAULT_SCOPE = /^https:\/\/graph\.microsoft\.com\/\.default$/;

/** `credential.getToken(…)` / `this.credential.getToken(…)` of an @azure/identity credential (its first argument is the scopes). */
const credentialTokenCall = (n: Node | undefined): n is import('ts-morph').CallExpression =>
  !!n && Node.isCallExpression(n) && calleeName(n) === 'getToken' && /credential$/i.test((receiverOf(n)?.getText() ?? '').replace(/^this\./, ''));

/** Where a literal is held: an array element, or the value of a property or variable named like scopes. */
function heldAsScope(n: Node): boolean {
  const p = n.getParent();
  if (!p) return false;
  if (Node.isArrayLiteralExpression(p)) return true;
  const name = Node.isPropertyAssignment(p) ? propertyName(p.getNameNode()) : Node.isVariableDeclaration(p) ? p.getName() : undefined;
  return !!name && /scopes?$/i.test(name);
}

/**
 * Scopes written in the source: a literal list or string, or a parameter that every local caller gives one
 * (`authenticateWithTimeout(keyfilePath, SCOPES)` with `const SCOPES = [ … ]`; the literals are read where written).
 */
function writtenScopes(v: Node, files: [string, SourceFile][], depth = 0): boolean {
  if (stringList(v).length > 0 || staticString(v) !== undefined) return true;
  const u = unwrap(v);
  const d = depth < 2 && Node.isIdentifier(u) ? declarationOf(u) : undefined;
  if (!d || !Node.isParameterDeclaration(d)) return false;
  const fn = d.getParent();
  if (!(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return false;
  const i = fn.getParameters().indexOf(d);
  const calls = callersOf(fn, files);
  return calls.length > 0 && calls.every((c) => {
    const a = c.node.getArguments()[i];
    return !!a && writtenScopes(a, files, depth + 1);
  });
}

function upstreamScopes(files: [string, SourceFile][]): { literals: ScopeLiteral[]; unread: ScopeLiteral[] } {
  const literals: ScopeLiteral[] = [];
  const unread: ScopeLiteral[] = [];
  const client = files.some(([, sf]) => [...importsOf(sf).values()].some((b) => OAUTH_CLIENT_MODULES.has(b.module)));
  if (!client) return { literals, unread };
  const words = (t: string): string[] => t.split(/\s+/).filter(Boolean);
  for (const s of sitesOf(files, K.strings, (n) => words(stringValue(n) ?? '').some((w) => UPSTREAM_SCOPE.test(w)), rawStringWhere((t) => words(t).some((w) => UPSTREAM_SCOPE.test(w))))) {
    if (!heldAsScope(s.node) && !credentialTokenCall(s.node.getParent())) continue;
    for (const w of words(stringValue(s.node)!)) {
      // `https://graph.microsoft.com/.default`: whatever the app registration was granted, which the source does not show.
      if (APP_DEFAULT_SCOPE.test(w)) unread.push({ file: s.file, node: s.node, value: '.default' });
      else if (UPSTREAM_SCOPE.test(w)) literals.push({ file: s.file, node: s.node, value: w });
    }
  }
  // @azure/identity: `credential.getToken(scopes)` takes the scopes themselves.
  if (files.some(([, sf]) => [...importsOf(sf).values()].some((b) => b.module === '@azure/identity'))) {
    for (const s of sitesOf(files, K.calls, credentialTokenCall, rawCallNamed(new Set(['getToken'])))) {
      const a0 = s.node.getArguments()[0];
      if (a0 && !writtenScopes(a0, files)) unread.push({ file: s.file, node: a0, value: 'scopes' });
    }
  }
  for (const s of sitesOf(files, K.calls, isCall, rawCallNamed(UPSTREAM_SCOPE_CALLS))) {
    const a0 = s.node.getArguments()[0];
    // The request may be a const (`const request = { scopes, deviceCodeCallback }; pca.acquireTokenByDeviceCode(request)`).
    const opts = a0 ? (resolveValue(a0) ?? a0) : undefined;
    for (const key of ['scope', 'scopes']) {
      const v = propertyOf(opts, key);
      if (v && !writtenScopes(v, files)) unread.push({ file: s.file, node: v, value: key });
    }
  }
  return { literals, unread };
}

/**
 * The JSON data files the sources load, relative to the root: `import endpoints from './endpoints.json'`,
 * `require('./data/endpoints.json')`, `readFileSync(join(__dirname, 'endpoints.json'))` — any string naming a
 * `.json` file beside the source or below it, except the package manifest. Scopes built at run time are
 * often gathered from such a file (a list of endpoints, each with the scopes it needs).
 */
function jsonDataFiles(files: [string, SourceFile][]): string[] {
  const out = new Set<string>();
  for (const s of sitesOf(files, K.strings, (n) => /\.json$/.test(stringValue(n) ?? ''), rawStringWhere((t) => /^[\w./@-]+\.json$/.test(t)))) {
    const spec = stringValue(s.node)!;
    if (/(^|\/)package(-lock)?\.json$/.test(spec) || spec.startsWith('/') || !/^(\.{1,2}\/|[\w@-])/.test(spec)) continue;
    const rel = posix.normalize(posix.join(posix.dirname(s.file), spec.replace(/^\.\//, '')));
    if (!rel.startsWith('..')) out.add(rel);
  }
  return [...out].sort();
}

/** The upstream scopes a JSON data file lists: strings held in arrays or values under keys named scope/scopes, at any depth. */
function jsonScopes(value: unknown, out: string[] = [], underScopes = false, depth = 0): string[] {
  if (depth > 12 || out.length > 5000) return out;
  if (typeof value === 'string') {
    if (underScopes) for (const w of value.split(/\s+/)) if (UPSTREAM_SCOPE.test(w)) out.push(w);
  } else if (Array.isArray(value)) {
    for (const v of value) jsonScopes(v, out, underScopes, depth + 1);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) jsonScopes(v, out, /scopes?$/i.test(k), depth + 1);
  }
  return out;
}

interface ScopeLiteral {
  file: string;
  node: Node;
  value: string;
}

function scopes(files: [string, SourceFile][]) {
  const baseline: ScopeLiteral[] = [];
  const published: { file: string; node: Node; values: string[] }[] = [];
  const perOperation: ScopeLiteral[] = [];
  const challenged: ScopeLiteral[] = [];
  const listed: ScopeLiteral[] = [];
  const props = new Set(['requiredScopes', 'scopesSupported', 'scopes_supported']);
  for (const s of sitesOf(files, K.properties, Node.isPropertyAssignment, named(props, (cn) => ts.isPropertyAssignment(cn) && props.has(rawNameText(cn.name) ?? '')))) {
    const name = propertyName(s.node.getNameNode());
    const list = stringList(s.node.getInitializer());
    if (name === 'requiredScopes') baseline.push(...list.map((l) => ({ file: s.file, ...l })));
    else if (name === 'scopesSupported' || name === 'scopes_supported') {
      published.push({ file: s.file, node: s.node, values: list.map((l) => l.value) });
      listed.push(...list.map((l) => ({ file: s.file, ...l })));
    }
  }
  for (const s of sitesOf(files, K.calls, isCall, rawCallNamed(SCOPE_CALLS))) {
    const name = calleeName(s.node) ?? '';
    const a = s.node.getArguments() as Node[];
    if (name === 'requireScopes') for (const x of a) perOperation.push(...literal(s.file, x));
    else if (['includes', 'has'].includes(name) && SCOPE_LIST.test((receiverOf(s.node)?.getText() ?? '').replace(/\?\./g, '.').replace(/!/g, ''))) perOperation.push(...literal(s.file, a[0]));
  }
  for (const s of sitesOf(files, K.strings, (n) => /\bscope="[^"]+"/.test(stringValue(n) ?? ''), (cn) => !!(cn as ts.StringLiteralLike).text?.includes('scope="'))) {
    const m = /\bscope="([^"]+)"/.exec(stringValue(s.node)!)!;
    for (const v of m[1]!.split(/\s+/)) challenged.push({ file: s.file, node: s.node, value: v });
  }
  return { baseline, published, perOperation, challenged, listed };
}

const literal = (file: string, n: Node | undefined): ScopeLiteral[] => {
  const v = stringValue(n);
  return v === undefined ? [] : [{ file, node: n!, value: v }];
};

export default [
  defineDetector({
    ruleId: 'S-20',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'omnibus-scope': ['scope'],
      'scopes-supported-catalogue': ['count'],
      'scope-only-authorization': ['tool', 'argument'],
      'omnibus-upstream-scope': ['scope'],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo, { pythonPart: true });
      if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonAuthCondition(repo, PY_AUTH_EVIDENCE.scopes, 'no-oauth-scopes') : src.verdict;
      const files = src.files.filter(([, sf]) => /scope/i.test(sf.getFullText()));
      const { baseline, published, perOperation, challenged, listed } = scopes(files);
      const all = [...baseline, ...perOperation, ...challenged, ...listed].sort((a, b) => a.node.getPos() - b.node.getPos());
      const upstream = upstreamScopes(src.files);
      // A scopes_supported copied from elsewhere (`upstream.scopes_supported`, a proxy relaying metadata) writes no scope.
      // Scopes built at run time: what the JSON data the sources load lists (an endpoint table with each endpoint's scopes).
      const unread = upstream.unread[0];
      const wideFromData = unread
        ? [...new Set(jsonDataFiles(src.files).flatMap((rel) => {
            const r = repo.json(rel);
            return r.ok ? jsonScopes(r.value) : [];
          }))].filter((v) => UPSTREAM_OMNIBUS.test(v))
        : [];
      if (all.length === 0 && published.every((p) => p.values.length === 0) && upstream.literals.length === 0 && wideFromData.length === 0) {
        const gated = sitesOf(src.files, K.calls, (n) => isCall(n) && GATES.has(calleeName(n) ?? ''), rawCallNamed(GATES)).length > 0;
        if (!gated && upstream.unread[0]) return unreadScopes(upstream.unread);
        return gated ? couldNotJudge('scopes-not-in-source') : notApplicable('no-oauth-scopes');
      }
      const findings: Finding[] = [];
      const flagged = new Set<string>();
      const unreadLeft = wideFromData.length ? undefined : upstream.unread[0];
      const at = upstream.unread.find((u) => u.value !== '.default') ?? upstream.unread[0];
      for (const v of wideFromData) findings.push({ messageId: 'omnibus-upstream-scope', data: { scope: v }, location: locationOf(at!.file, at!.node) });
      for (const u of upstream.literals) {
        const key = `${u.file}:${u.node.getPos()}:${u.value}`;
        if (!UPSTREAM_OMNIBUS.test(u.value) || flagged.has(key)) continue;
        flagged.add(key);
        findings.push({ messageId: 'omnibus-upstream-scope', data: { scope: u.value }, location: locationOf(u.file, u.node) });
      }
      const seen = new Set<Node>();
      for (const s of all) {
        if (!OMNIBUS.test(s.value) || seen.has(s.node)) continue;
        seen.add(s.node);
        findings.push({ messageId: 'omnibus-scope', data: { scope: s.value }, location: locationOf(s.file, s.node) });
      }
      const base = new Set(baseline.map((b) => b.value));
      const elevated = new Set(perOperation.map((p) => p.value).filter((v) => !base.has(v)));
      for (const p of published) {
        if (elevated.size > 0 && [...elevated].every((v) => p.values.includes(v))) {
          findings.push({ messageId: 'scopes-supported-catalogue', data: { count: p.values.length }, location: locationOf(p.file, p.node) });
        }
      }
      for (const t of serverModel(repo).tools) {
        if (!t.handler) continue;
        const body = t.handler.getText();
        if (!/scopes\??\.(includes|has|some|every)\(/.test(body) || CALLER.test(body)) continue;
        const arg = t.inputSchema ? idArgument(t.inputSchema) : undefined;
        if (arg) findings.push({ messageId: 'scope-only-authorization', data: { tool: t.name, argument: arg }, location: { file: t.file, line: t.line, column: t.column } });
      }
      if (findings.length) {
        findings.sort((a, b) => a.location!.file.localeCompare(b.location!.file) || (a.location!.line ?? 0) - (b.location!.line ?? 0));
        return { state: 'non-conforming', findings };
      }
      // A narrow literal elsewhere says nothing about the scopes a login asks for when they are built at run time.
      if (unreadLeft) return unreadScopes(upstream.unread);
      return present();
    },
  }),
];

/** could-not-judge for upstream scopes the source does not show: built at run time, or an app registration's `.default`. */
function unreadScopes(unread: ScopeLiteral[]): Verdict {
  const built = unread.find((u) => u.value !== '.default');
  const u = built ?? unread[0]!;
  return couldNotJudge(built ? 'upstream-scopes-not-read' : 'upstream-scopes-app-default', { file: u.file, line: locationOf(u.file, u.node).line ?? 0 });
}

/** The first argument of an input schema (zod shape or JSON Schema properties) named like the id of a user, account, tenant… */
function idArgument(schema: Node): string | undefined {
  let found: string | undefined;
  schema.forEachDescendant((n, t) => {
    if ((Node.isPropertyAssignment(n) || Node.isShorthandPropertyAssignment(n)) && ID_ARGUMENT.test(propertyName(n.getNameNode()) ?? '')) {
      found = propertyName(n.getNameNode());
      t.stop();
    }
  });
  return found;
}
