import { Node, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { propertyName, stringValue } from '../../facts/ts-source.js';
import { mentions } from '../support/auth/oauth-support.js';
import { callersOf, calleeImport, calleeName, receiverOf, enclosingFunction, importsOf, isCall, locationOf, readSources, sitesOf, K, type Site, rawCallNamed, rawPropNamed, rawStringWhere } from '../support/source/source-support.js';

import { judgePythonAuthCondition, PY_AUTH_EVIDENCE } from '../support/auth/python-auth.js';
/**
 * S-17 — forward-compatible OAuth client behaviour (static). Applies when the server itself acts as an
 * OAuth client of an authorization server:
 *   - it receives an authorization response (a function reading `code` from the query: `req.query.code`,
 *     `{ code } = req.query`, `searchParams.get('code')`, `c.req.query('code')`) and redeems it (a token
 *     request with grant_type authorization_code, or the SDK's exchangeAuthorization) in that function or
 *     one it calls (two levels of local callers are read). Red when none of those functions reads `iss`
 *     (RFC 9207) — the mix-up defence the 2026-07-28 revision requires before the code is sent anywhere.
 *   - it registers dynamically with an authorization server found through its metadata (a request to
 *     `registration_endpoint`, or the SDK's registerClient): red when the code never looks at
 *     `client_id_metadata_document_supported`, so DCR runs even where Client ID Metadata Documents work.
 * The OAuth client libraries of Google (`getToken(code)` of google-auth-library / googleapis) and Microsoft
 * (`acquireTokenByCode` of MSAL) redeem the code the same way and are judged like a hand-written request.
 * Redemption relayed for a client (the code arrives in a token request body) is the client's business.
 * A flow left to an OAuth library (openid-client, oauth4webapi, simple-oauth2, the SDK's auth()) is
 * could-not-judge, as is an OAuthClientProvider given to the SDK's client transports (a proxy to a remote
 * server: the SDK redeems the code and registers); the binding of stored credentials to their issuer is not judged.
 */

const CODE_READ = /query\.code\b|query\[['"]code['"]\]|searchParams\.get\(\s*['"]code['"]\s*\)|query\(\s*['"]code['"]\s*\)|\{[^}]*\bcode\b[^}]*\}\s*=\s*(?:req|request|ctx|c\.req)\.query\b/;
const SDK_CLIENT_AUTH = /^@modelcontextprotocol\/(sdk\/client\/auth(\.js)?|client)$/;
const SDK_AUTH_NAMES = new Set(['auth', 'exchangeAuthorization', 'registerClient', 'startAuthorization']);
const GOOGLE_AUTH = new Set(['google-auth-library', 'googleapis']);
const MSAL = new Set(['@azure/msal-node', '@azure/msal-browser']);
const LIBRARIES = ['openid-client', 'oauth4webapi', 'simple-oauth2', '@badgateway/oauth2-client', 'client-oauth2', '@google-cloud/local-auth'];

/** Token requests redeeming an authorization code: grant_type authorization_code, or the SDK's exchangeAuthorization. */
function redemptions(files: [string, SourceFile][]): Site[] {
  const out: Site[] = [];
  for (const s of sitesOf(files, K.properties, Node.isPropertyAssignment, rawPropNamed(new Set(['grant_type'])))) {
    if (propertyName(s.node.getNameNode()) === 'grant_type' && stringValue(s.node.getInitializer()) === 'authorization_code') out.push(s);
  }
  for (const s of sitesOf(files, K.strings, (n) => /grant_type=authorization_code/.test(stringValue(n) ?? ''), rawStringWhere((t) => t.includes('grant_type=authorization_code')))) out.push(s);
  // OAuth client libraries of Google and Microsoft: `oauth2Client.getToken(code)`, `pca.acquireTokenByCode({ code, … })`.
  for (const s of sitesOf(files, K.call, Node.isCallExpression, rawCallNamed(new Set(['getToken', 'acquireTokenByCode'])))) {
    const modules = new Set([...importsOf(s.node.getSourceFile()).values()].map((b) => b.module));
    const name = calleeName(s.node) ?? '';
    const lib = name === 'getToken' ? [...GOOGLE_AUTH].some((m) => modules.has(m)) : [...MSAL].some((m) => modules.has(m));
    if (lib && s.node.getArguments().length >= 1 && receiverOf(s.node)) out.push(s);
  }
  for (const s of sitesOf(files, K.call, Node.isCallExpression, rawCallNamed(new Set(['set', 'append', 'exchangeAuthorization'])))) {
    const name = calleeName(s.node) ?? '';
    const a0 = stringValue(s.node.getArguments()[0]);
    if (['set', 'append'].includes(name) && a0 === 'grant_type' && stringValue(s.node.getArguments()[1]) === 'authorization_code') out.push(s);
    const from = calleeImport(s.node);
    if (name === 'exchangeAuthorization' && from && SDK_CLIENT_AUTH.test(from.module)) out.push(s);
  }
  return out;
}

/** The function holding a site and the local functions that call it, two levels up. */
function callChain(site: Node, files: [string, SourceFile][]): Node[] {
  const chain: Node[] = [];
  let level = [enclosingFunction(site) ?? site.getSourceFile()];
  for (let depth = 0; depth < 3 && level.length; depth++) {
    chain.push(...level);
    level = level.flatMap((fn) => callersOf(fn, files).map((c) => enclosingFunction(c.node) ?? c.node.getSourceFile())).filter((f) => !chain.includes(f));
  }
  return chain;
}

const readsIss = (fn: Node): boolean => mentions(fn, /^iss$/);

/** Dynamic registration with an authorization server found in its metadata. */
function registrations(files: [string, SourceFile][]): Site[] {
  return sitesOf(files, K.calls, isCall, rawCallNamed(new Set(['registerClient', 'fetch', 'post', 'request', 'got', 'ky', 'axios']))).filter((s) => {
    const name = calleeName(s.node) ?? '';
    const from = calleeImport(s.node);
    if (name === 'registerClient' && from && SDK_CLIENT_AUTH.test(from.module)) return true;
    const url = s.node.getArguments()[0];
    return !!url && /\bregistration_endpoint\b/.test(url.getText()) && ['fetch', 'post', 'request', 'got', 'ky', 'axios'].includes(name);
  });
}

export default [
  defineDetector({
    ruleId: 'S-17',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'iss-not-checked': [],
      'registration-without-cimd': [],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo, { pythonPart: true });
      if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonAuthCondition(repo, PY_AUTH_EVIDENCE.client, 'not-oauth-client') : src.verdict;
      const files = src.files.filter(([, sf]) => /authorization_code|exchangeAuthorization|registration_endpoint|registerClient|getToken|acquireTokenByCode/.test(sf.getFullText()));
      const findings: Finding[] = [];
      let judged = 0;
      for (const r of redemptions(files)) {
        const chain = callChain(r.node, src.files);
        if (!chain.some((fn) => CODE_READ.test(fn.getText()))) continue;
        judged++;
        if (!chain.some(readsIss)) findings.push({ messageId: 'iss-not-checked', location: locationOf(r.file, r.node) });
      }
      const regs = registrations(files);
      if (regs.length) {
        judged++;
        const cimd = src.files.some(([, sf]) => /client_id_metadata_document_supported|clientMetadataUrl/.test(sf.getFullText()));
        if (!cimd) for (const r of regs) findings.push({ messageId: 'registration-without-cimd', location: locationOf(r.file, r.node) });
      }
      if (findings.length) return { state: 'non-conforming', findings: findings.sort((a, b) => (a.location!.file).localeCompare(b.location!.file) || (a.location!.line ?? 0) - (b.location!.line ?? 0)) };
      if (judged) return present();
      for (const [file, sf] of src.files) {
        for (const b of importsOf(sf).values()) {
          const sdkAuth = /^@modelcontextprotocol\/sdk\/client\/auth(\.js)?$/.test(b.module) || (b.module === '@modelcontextprotocol/client' && SDK_AUTH_NAMES.has(b.imported));
          if (LIBRARIES.includes(b.module) || sdkAuth) return couldNotJudge('oauth-client-library', { module: b.module, file });
        }
      }
      // An OAuthClientProvider handed to the SDK's client transports (`saveCodeVerifier` and `clientMetadata`
      // members, or `transport.finishAuth(code)`): the SDK redeems the code and registers, out of this source.
      const sdkClient = src.files.some(([, sf]) => [...importsOf(sf).values()].some((b) => /^@modelcontextprotocol\/(sdk\/client\/|client$)/.test(b.module)));
      for (const [file, sf] of sdkClient ? src.files : []) {
        const text = sf.getFullText();
        const provider = /\bsaveCodeVerifier\b/.test(text) && /\bclientMetadata\b/.test(text);
        if (provider || /\.finishAuth\s*\(\s*[\w$.]/.test(text)) return couldNotJudge('oauth-client-library', { module: '@modelcontextprotocol/sdk', file });
      }
      return notApplicable('not-oauth-client');
    },
  }),
];
