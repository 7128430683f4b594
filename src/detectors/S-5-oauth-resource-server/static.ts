import { Node, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Location, Verdict } from '../../engine/types.js';
import { parsedSources, stringValue } from '../../facts/ts-source.js';
import { objectLiteralOf } from '../../facts/server-model.js';
import {
  args,
  authChecks,
  calleeImport,
  calleeName,
  headerReads,
  httpTransports,
  isCall,
  isHeaderWrite,
  K,
  locationOf,
  rawCallNamed,
  readSources,
  sitesOf,
  type Call,
  type Site,
} from '../support/source/source-support.js';

/**
 * S-5 — OAuth 2.1 resource server (static part). Condition: the source serves HTTP and checks a credential
 * on its requests (an auth middleware or verifier, or the Authorization header read: source-support
 * authChecks). Then three things must be in the code:
 *
 *   1. tokens are verified: a signature check (jose `jwtVerify`, jsonwebtoken `verify`, express-jwt
 *      `expressjwt`, express-oauth2-jwt-bearer `auth`) or token introspection (RFC 7662). Each signature
 *      check must name the `issuer` and the `audience` it expects (RFC 8707: the token was minted for this
 *      server). Red: 'audience-not-checked', 'issuer-not-checked'; a token only decoded (`jwt.decode`,
 *      `decodeJwt`, `jwtDecode`), or compared with a shared secret, is 'token-not-verified';
 *   2. the 401 challenge points to the protected-resource metadata: the SDK's `requireBearerAuth` with
 *      `resourceMetadataUrl`, or a `WWW-Authenticate` header written with `resource_metadata`. Red:
 *      'challenge-without-metadata';
 *   3. that metadata is served: the path `/.well-known/oauth-protected-resource`, or the SDK's metadata
 *      router / response helpers. Red: 'metadata-not-served'.
 *
 * A check whose options are built by code the reading cannot follow is could-not-judge
 * ('verify-options-not-read') unless something else is red; a credential check with no verification the
 * reading recognises (a verifier from a package that was not read) is could-not-judge
 * ('bearer-verification-not-found').
 */

/** Signature checks: callee name → where the options are (argument index) and the modules it comes from. */
const VERIFIERS: Record<string, { options: number; modules: RegExp; audience: string[]; issuer: string[] }> = {
  jwtVerify: { options: 2, modules: /^jose(\/|$)/, audience: ['audience'], issuer: ['issuer'] },
  verify: { options: 2, modules: /^jsonwebtoken$/, audience: ['audience'], issuer: ['issuer'] },
  expressjwt: { options: 0, modules: /^express-jwt$/, audience: ['audience'], issuer: ['issuer'] },
  auth: { options: 0, modules: /^express-oauth2-jwt-bearer$/, audience: ['audience'], issuer: ['issuerBaseURL', 'issuer'] },
};
const DECODERS = new Set(['decode', 'decodeJwt', 'jwtDecode']);
const DECODER_MODULES = /^(?:jsonwebtoken|jose(?:\/.*)?|jwt-decode)$/;
const SDK_BEARER = new Set(['requireBearerAuth']);
const METADATA_HELPERS = new Set(['mcpAuthMetadataRouter', 'oauthMetadataResponse', 'createProtectedResourceMetadataRouter', 'protectedResourceMetadataHandler']);
const PRM_PATH = '/.well-known/oauth-protected-resource';

const fileOf = (files: [string, SourceFile][], n: Node): string => files.find(([, sf]) => sf === n.getSourceFile())?.[0] ?? n.getSourceFile().getFilePath();

/** The module a call's function comes from (import or require), or undefined for a local or global one. */
const moduleOf = (c: Call): string | undefined => calleeImport(c)?.module;

export default defineDetector({
  ruleId: 'S-5',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'audience-not-checked': ['call'],
    'issuer-not-checked': ['call'],
    'token-not-verified': ['call'],
    'challenge-without-metadata': [],
    'metadata-not-served': [],
  },
  judge({ inputs: { repo, session } }): Verdict {
    const src = readSources(repo);
    if ('verdict' in src) return src.verdict;
    const files = src.files;
    const transports = httpTransports(files);
    if (transports.length === 0) return session?.isHttp() ? couldNotJudge('http-served-not-in-source') : notApplicable('no-http-transport');
    const checks = authChecks(files).filter((c) => !(isCall(c.node) && calleeName(c.node) === 'timingSafeEqual'));
    const headerChecks = headerReads(files, 'authorization');
    const sharedSecret = authChecks(files).filter((c) => isCall(c.node) && calleeName(c.node) === 'timingSafeEqual');
    if (checks.length === 0 && sharedSecret.length === 0) return notApplicable('no-credential-check');
    const parsed = parsedSources(repo);

    const findings: Finding[] = [];
    let unreadOptions = 0;
    const calls = sitesOf(files, K.calls, isCall, rawCallNamed(new Set([...Object.keys(VERIFIERS), ...DECODERS, ...SDK_BEARER, ...METADATA_HELPERS])));
    const verifying: Site<Call>[] = [];
    const decoding: Site<Call>[] = [];
    const bearer: Site<Call>[] = [];
    let metadataHelper = false;
    for (const s of calls as Site<Call>[]) {
      const name = calleeName(s.node) ?? '';
      const mod = moduleOf(s.node);
      const v = VERIFIERS[name];
      if (v && mod !== undefined && v.modules.test(mod)) verifying.push(s);
      else if (DECODERS.has(name) && mod !== undefined && DECODER_MODULES.test(mod)) decoding.push(s);
      else if (SDK_BEARER.has(name)) bearer.push(s);
      else if (METADATA_HELPERS.has(name)) metadataHelper = true;
    }
    // 1. verification, with issuer and audience.
    for (const s of verifying) {
      const name = calleeName(s.node)!;
      const spec = VERIFIERS[name]!;
      const optsArg = args(s.node)[spec.options];
      const call = `${name}(…)`;
      const at = locationOf(s.file, s.node);
      if (!optsArg) {
        findings.push({ messageId: 'issuer-not-checked', data: { call }, location: at }, { messageId: 'audience-not-checked', data: { call }, location: at });
        continue;
      }
      const opts = objectLiteralOf(optsArg, parsed);
      if (!opts || opts.getProperties().some((p) => Node.isSpreadAssignment(p))) {
        unreadOptions++;
        continue;
      }
      const has = (keys: string[]) => keys.some((k) => opts.getProperty(k) !== undefined);
      if (!has(spec.issuer)) findings.push({ messageId: 'issuer-not-checked', data: { call }, location: at });
      if (!has(spec.audience)) findings.push({ messageId: 'audience-not-checked', data: { call }, location: at });
    }
    const introspects = files.some(([, sf]) => /introspect/i.test(sf.getFullText()));
    if (verifying.length === 0 && !introspects) {
      const first = decoding[0] ?? sharedSecret[0];
      if (first) findings.push({ messageId: 'token-not-verified', data: { call: `${calleeName(first.node as Call)}(…)` }, location: locationOf(first.file, first.node) });
    }
    // 2. the challenge names the metadata.
    const firstCheck: Location | undefined = [...checks, ...sharedSecret].map((c) => locationOf(c.file, c.node))[0];
    if (bearer.length) {
      for (const b of bearer) {
        const o = objectLiteralOf(args(b.node)[0], parsed);
        if (o && !o.getProperty('resourceMetadataUrl') && !o.getProperties().some((p) => Node.isSpreadAssignment(p))) {
          findings.push({ messageId: 'challenge-without-metadata', location: locationOf(b.file, b.node) });
        }
      }
    } else {
      const writes = sitesOf(files, K.headerReads, (n) => isHeaderWrite(n, 'www-authenticate'));
      const mentions = files.some(([, sf]) => /resource_metadata/.test(sf.getFullText()));
      if (!writes.length || !mentions) findings.push({ messageId: 'challenge-without-metadata', location: writes[0] ? locationOf(writes[0].file, writes[0].node) : firstCheck });
    }
    // 3. the metadata is served.
    const servesPrm =
      metadataHelper ||
      files.some(([, sf]) => sf.getFullText().includes(PRM_PATH)) ||
      sitesOf(files, K.strings, (n) => (stringValue(n) ?? '').includes('oauth-protected-resource')).length > 0;
    if (!servesPrm) findings.push({ messageId: 'metadata-not-served', location: locationOf(transports[0]!.file, transports[0]!.node) });

    if (findings.length) return { state: 'non-conforming', findings };
    if (unreadOptions) return couldNotJudge('verify-options-not-read', { count: unreadOptions });
    if (verifying.length === 0 && !introspects) {
      const at = headerChecks[0] ?? checks[0];
      return couldNotJudge('bearer-verification-not-found', { file: at ? fileOf(files, at.node) : '' });
    }
    return present();
  },
});

