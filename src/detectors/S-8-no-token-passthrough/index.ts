import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Location, Verdict } from '../../engine/types.js';
import { namesAnyModule, parsedSources, propertyName, stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { carriesClientToken, functionValue, memberFunction, mentions, valueAcross, type Files } from '../support/auth/oauth-support.js';
import { importsOf, isHeaderRead, args, calledFunction, calleeImport, calleeName, calleeText, enclosingFunction, headerReads, isCall, locationOf, propertyOf, named, rawCalleeName, rawNameText, readSources, receiverOf, resolveValue, sitesOf, K, type Call, rawCallNamed } from '../support/source/source-support.js';
import { findNodes } from '../../facts/scope.js';
import { frameworkClass, frameworkRegions, inRegions } from '../../facts/bundle-regions.js';

import { judgePythonAuthCondition, PY_AUTH_EVIDENCE } from '../support/auth/python-auth.js';
/**
 * S-8 — no token passthrough, audience checked (static).
 * Passthrough: an `Authorization` header (object property, `headers.set/append`, `setHeader`) or an
 * `auth` / `accessToken` / `bearerToken` option of a client constructor or call whose value carries the
 * client's credential (the incoming Authorization header, `authInfo.token`, `req.auth.token`, through
 * consts, string operations and local callers). Calls made to validate the token at its issuer (userinfo,
 * introspection, tokeninfo) are not passthrough.
 * Audience: each verifier is judged on its own — jose `jwtVerify` and jsonwebtoken `verify` need an
 * `audience` option or an `aud` comparison in the same function; the SDK's `requireBearerAuth` /
 * `verifyBearerToken` need `expectedResource`, or a verifier whose `verifyAccessToken` checks `aud` (a
 * verifier that only looks tokens up in the server's own store issued them itself; one that introspects
 * over HTTP without an audience check is red). A hand-written Authorization check compared with a fixed
 * secret is an API key issued for this server. What cannot be read (a verifier from a package, options
 * built at run time, a header read with no check beside it) makes the part could-not-judge.
 */

type Judgement = { kind: 'ok' } | { kind: 'red'; finding: Finding } | { kind: 'unknown'; at: Location };

const JWT_VERIFIERS: Record<string, string> = { jose: 'jwtVerify', jsonwebtoken: 'verify' };
const SDK_GATES = new Set(['requireBearerAuth', 'verifyBearerToken']);
const VALIDATION_CALL = /userinfo|introspect|tokeninfo/i;
/** jose's jwtVerify as a bundler leaves it: the same name, or with a number appended. */
const BUNDLED_JOSE = /^jwtVerify\d*$/;
const rawGateOrBundledJose = (cn: ts.Node): boolean => {
  const n = rawCalleeName(cn);
  return !!n && (SDK_GATES.has(n) || BUNDLED_JOSE.test(n));
};
/** A jwtVerify call whose function is written in the same file (jose bundled in): `function jwtVerify(jwt, key, options)`, or `(0, import_jose.jwtVerify)(…)`. */
function bundledJose(call: Call): boolean {
  if (!Node.isCallExpression(call)) return false;
  const fn = calledFunction(call);
  if (fn) return (Node.isFunctionDeclaration(fn) || Node.isFunctionExpression(fn) || Node.isArrowFunction(fn)) && fn.getParameters().length >= 2;
  const e = unwrap(call.getExpression());
  const inner = Node.isBinaryExpression(e) ? unwrap(e.getRight()) : e;
  return Node.isPropertyAccessExpression(inner) && /jose/i.test(inner.getExpression().getText());
}
const CREDENTIAL_OPTIONS = new Set(['auth', 'accesstoken', 'bearertoken']);
/** Options that hand an API key to a client (`new Upstream({ apiKey })`): judged only on calls that are not local functions, responses, logs or context stores. */
const KEY_OPTIONS = new Set(['apikey', 'api_key', 'token']);
const NOT_SENDING = /^(?:json|send|write|end|render|log|info|warn|error|debug|trace|run|enterWith|set|emit)$/;
/** Outgoing API-key headers: `x-api-key`, `x-acme-api-key`, `api-key`, `x-auth-token`. */
const API_KEY_HEADER = /^(?:x-[\w-]*api[-_]?key|api[-_]?key|x-(?:auth|access|api)[-_]token|x-[\w-]+-(?:access[-_]key(?:[-_](?:id|secret))?|secret[-_]key|api[-_]token|access[-_]token))$/i;
/** Calls that copy an object locally rather than send it. */
const LOCAL_MERGES = /^(?:Object\.(?:assign|freeze|entries|keys|values|fromEntries)|structuredClone|(?:_|lodash)\.(?:merge|assign|extend|defaults|clone|cloneDeep)|merge|extend|deepmerge|JSON\.stringify)$/;
const HEADER_SETTERS: ReadonlySet<string> = new Set(['set', 'append', 'setHeader', 'header']);
const RESPONSE_OBJECTS = /^(res|response|reply|c|ctx)$/;

/** An object literal of request headers: `headers: { … }`, `new Headers({ … })`, `const headers = { … }` (not a log record). */
function outgoingHeaders(obj: Node | undefined): boolean {
  const p = obj?.getParent();
  if (!p) return false;
  if (Node.isPropertyAssignment(p)) return /headers$/i.test(propertyName(p.getNameNode()) ?? '');
  if (Node.isVariableDeclaration(p)) return /headers$/i.test(p.getName());
  if (Node.isNewExpression(p)) return calleeName(p) === 'Headers';
  return false;
}

/** Where the client's credential is written into an outgoing request: [site, the value, label]. */
function passthroughs(files: Files): Finding[] {
  const out: Finding[] = [];
  const report = (file: string, at: Node, value: Node | undefined, header: string): void => {
    if (!value || !carriesClientToken(value, files)) return;
    const fn = enclosingFunction(at);
    if (fn && VALIDATION_CALL.test(fn.getText())) return;
    out.push({ messageId: 'token-passthrough', data: { header }, location: locationOf(file, at) });
  };
  const rawProp = (cn: ts.Node): boolean => {
    const key = (ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn) ? rawNameText(cn.name) : undefined)?.toLowerCase() ?? '';
    return key === 'authorization' || CREDENTIAL_OPTIONS.has(key) || KEY_OPTIONS.has(key) || API_KEY_HEADER.test(key);
  };
  for (const s of sitesOf(files, K.properties, (n) => Node.isPropertyAssignment(n) || Node.isShorthandPropertyAssignment(n), rawProp)) {
    const p = s.node;
    const name = (Node.isPropertyAssignment(p) ? propertyName(p.getNameNode()) : Node.isShorthandPropertyAssignment(p) ? p.getName() : undefined) ?? '';
    const key = name.toLowerCase();
    const value = Node.isPropertyAssignment(p) ? p.getInitializer() : Node.isShorthandPropertyAssignment(p) ? p.getNameNode() : undefined;
    if ((key === 'authorization' || API_KEY_HEADER.test(key)) && outgoingHeaders(p.getParent())) report(s.file, p, value, name);
    else if (KEY_OPTIONS.has(key)) {
      const obj = p.getParent();
      const call = obj?.getParent();
      if (!call || !isCall(call) || !(call.getArguments() as Node[]).some((a) => unwrap(a) === obj)) continue;
      if (LOCAL_MERGES.test(calleeText(call)) || NOT_SENDING.test(calleeName(call) ?? '') || (Node.isCallExpression(call) && calledFunction(call))) continue;
      const recv = receiverOf(call);
      if (recv && RESPONSE_OBJECTS.test(recv.getText())) continue;
      report(s.file, p, value, name);
    } else if (CREDENTIAL_OPTIONS.has(key)) {
      const obj = p.getParent();
      const call = obj?.getParent();
      // Only options given to something that sends requests: `Object.assign(req, { auth })` attaches, it does not send.
      if (call && isCall(call) && (call.getArguments() as Node[]).some((a) => unwrap(a) === obj) && !LOCAL_MERGES.test(calleeText(call))) report(s.file, p, value, name);
    }
  }
  // headers['Authorization'] = value, on an object named like request headers.
  const outHeader = (v: string | undefined): boolean => v !== undefined && (v.toLowerCase() === 'authorization' || API_KEY_HEADER.test(v));
  for (const s of sitesOf(files, K.strings, (n) => outHeader(stringValue(n)), (cn) => ts.isStringLiteralLike(cn) && outHeader(cn.text))) {
    const access = s.node.getParent();
    if (!access || !Node.isElementAccessExpression(access) || access.getArgumentExpression() !== s.node) continue;
    const assign = access.getParent();
    if (!assign || !Node.isBinaryExpression(assign) || assign.getLeft() !== access || assign.getOperatorToken().getText() !== '=') continue;
    const target = unwrap(access.getExpression());
    if (!/headers$/i.test(Node.isIdentifier(target) ? target.getText() : Node.isPropertyAccessExpression(target) ? target.getName() : '')) continue;
    if (RESPONSE_OBJECTS.test(Node.isPropertyAccessExpression(target) ? unwrap(target.getExpression()).getText() : '')) continue;
    report(s.file, assign, assign.getRight(), stringValue(s.node)!);
  }
  const rawCall = named(HEADER_SETTERS, (cn: ts.Node): boolean => {
    const first = (cn as ts.CallExpression).arguments[0];
    return HEADER_SETTERS.has(rawCalleeName(cn) ?? '') && !!first && ts.isStringLiteralLike(first) && outHeader(first.text);
  });
  for (const s of sitesOf(files, K.call, Node.isCallExpression, rawCall)) {
    const name = calleeName(s.node) ?? '';
    if (!HEADER_SETTERS.has(name)) continue;
    const a = args(s.node);
    if (a.length < 2 || !outHeader(stringValue(a[0]))) continue;
    const recv = receiverOf(s.node);
    if (recv && RESPONSE_OBJECTS.test(recv.getText())) continue;
    report(s.file, s.node, a[1], stringValue(a[0])!);
  }
  // `new Resend(token)`, `new Credentials(keyId, keySecret)`: a client class of a package constructed with the client's
  // credential as a positional argument (a per-request or per-session client built from the request's headers).
  for (const s of sitesOf(files, K.calls, Node.isNewExpression, (cn) => ts.isNewExpression(cn) && ts.isIdentifier(cn.expression) && (cn.arguments?.length ?? 0) > 0)) {
    const e = unwrap(s.node.getExpression());
    if (!Node.isIdentifier(e)) continue;
    const from = importsOf(s.node.getSourceFile()).get(e.getText());
    if (!from || !packageModule(from.module)) continue;
    const a = (s.node.getArguments() as Node[]).find((x) => !Node.isObjectLiteralExpression(unwrap(x)) && carriesClientToken(x, files));
    if (a) report(s.file, s.node, a, `new ${e.getText()}(…)`);
  }
  return out;
}

/** A module of another package: not the package's own files (`./x`, `#x` subpath imports) nor Node's built-ins. */
const packageModule = (m: string): boolean => !/^(?:\.|#|node:)/.test(m) && !NODE_BUILTINS.has(m.split('/')[0]!);
const NODE_BUILTINS = new Set(['fs', 'path', 'http', 'https', 'url', 'crypto', 'events', 'stream', 'buffer', 'util', 'net', 'tls', 'child_process', 'os', 'zlib', 'async_hooks', 'worker_threads']);

/** The options object of a call, read through a `const`. */
const optionsOf = (n: Node | undefined): Node | undefined => {
  const v = n ? resolveValue(n) : undefined;
  return v && Node.isObjectLiteralExpression(v) ? v : undefined;
};

const AUDIENCE = /^(aud|audience|expectedAudience|checkResourceAllowed)$/;
const checksAudience = (fn: Node): boolean => mentions(fn, AUDIENCE);

/** The audience is checked on the call's own path: branches (if / else / case) that do not hold the call are not read. */
function checksAudienceAround(fn: Node, call: Node): boolean {
  const c = call.compilerNode;
  const offPath = (cn: ts.Node): boolean => {
    const p = cn.parent;
    const branch = (!!p && ts.isIfStatement(p) && (p.thenStatement === cn || p.elseStatement === cn)) || ts.isCaseClause(cn) || ts.isDefaultClause(cn);
    return branch && !(cn.pos <= c.pos && c.end <= cn.end);
  };
  return mentions(fn, AUDIENCE, offPath);
}
const verifiesJwt = (fn: Node): boolean => /\bjwtVerify\(|\bjwt\.verify\(/.test(fn.getText());

/**
 * The assignments of an audience to an options object after its literal (`opts.audience = x`,
 * `opts['audience'] = x`) in the function that holds the call, and whether each sits under a condition
 * that does not hold the call too (`if (this.expectedAudience) opts.audience = …`): then the check is optional.
 */
function audienceAssignments(fn: Node, opts: Node | undefined, call: Node): { conditional: boolean }[] {
  const o = opts ? unwrap(opts) : undefined;
  if (!o || !Node.isIdentifier(o)) return [];
  const name = o.getText();
  const c = call.compilerNode;
  const out: { conditional: boolean }[] = [];
  const target = (l: ts.Node): boolean =>
    (ts.isPropertyAccessExpression(l) && l.name.text === 'audience' && ts.isIdentifier(l.expression) && l.expression.text === name) ||
    (ts.isElementAccessExpression(l) && ts.isStringLiteralLike(l.argumentExpression) && l.argumentExpression.text === 'audience' && ts.isIdentifier(l.expression) && l.expression.text === name);
  // Raw walk of the one function: only `=` assignments to `<opts>.audience` are looked at.
  for (const cn of findNodes(fn, (x) => ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.EqualsToken && target(x.left))) {
    let conditional = false;
    for (let a: ts.Node | undefined = cn.compilerNode.parent; a && a !== fn.compilerNode; a = a.parent) {
      const guarded = ts.isIfStatement(a) || ts.isConditionalExpression(a) || (ts.isBinaryExpression(a) && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(a.operatorToken.kind));
      if (guarded && !(a.pos <= c.pos && c.end <= a.end)) conditional = true;
    }
    out.push({ conditional });
  }
  return out;
}

/** jose jwtVerify(token, key, options) / jsonwebtoken verify(token, secret, options). */
function judgeJwt(file: string, call: Call, label: string): Judgement {
  const opts = args(call)[2];
  const obj = optionsOf(opts);
  if (opts && !obj) return { kind: 'unknown', at: locationOf(file, call) };
  if (obj && propertyOf(obj, 'audience')) return { kind: 'ok' };
  const fn = enclosingFunction(call) ?? call.getSourceFile();
  // The options get their audience later: only when a setting is present (`if (cfg.audience) opts.audience = …`) is the check optional.
  const later = audienceAssignments(fn, opts, call);
  if (later.some((a) => !a.conditional)) return { kind: 'ok' };
  if (later.length) return { kind: 'red', finding: { messageId: 'audience-optional', data: { verifier: label }, location: locationOf(file, call) } };
  if (checksAudienceAround(fn, call)) return { kind: 'ok' };
  return { kind: 'red', finding: { messageId: 'audience-unchecked', data: { verifier: label }, location: locationOf(file, call) } };
}

/** The verifyAccessToken behind a `verifier` option: an object literal, a local class, or a ProxyOAuthServerProvider's option. */
function verifierFunction(verifier: Node | undefined, sources: ParsedSources): Node | undefined {
  const v = valueAcross(verifier, sources);
  if (!v) return undefined;
  if (Node.isObjectLiteralExpression(v)) return memberFunction(v, 'verifyAccessToken');
  if (Node.isClassDeclaration(v)) return memberFunction(v, 'verifyAccessToken');
  if (Node.isNewExpression(v)) {
    if (calleeName(v) === 'ProxyOAuthServerProvider') return functionValue(propertyOf(v.getArguments()[0], 'verifyAccessToken'));
    const cls = valueAcross(v.getExpression(), sources);
    return cls && Node.isClassDeclaration(cls) ? memberFunction(cls, 'verifyAccessToken') : undefined;
  }
  return undefined;
}

/**
 * JWT middlewares configured with options: express-jwt (`expressjwt({ secret, audience })`), passport-jwt
 * (`new Strategy({ …, audience }, verify)`), @fastify/jwt (`register(fastifyJwt, { verify: { allowedAud } })`).
 * Without the audience option (or an `aud` comparison beside), any token signed with the key is accepted.
 */
const JWT_MIDDLEWARES = new Set(['express-jwt', 'passport-jwt', '@fastify/jwt', 'fastify-jwt']);

function middlewareOptions(call: Call): { module: string; options: Node | undefined; label: string } | undefined {
  const from = calleeImport(call);
  if (from?.module === 'express-jwt' && isCall(call) && (from.name === '' || from.name === 'expressjwt')) return { module: from.module, options: args(call)[0], label: 'expressjwt' };
  if (from?.module === 'passport-jwt' && Node.isNewExpression(call) && (from.name === 'Strategy' || from.name === '')) return { module: from.module, options: args(call)[0], label: 'passport-jwt Strategy' };
  if (Node.isCallExpression(call) && calleeName(call) === 'register') {
    const plugin = args(call)[0];
    const b = plugin && Node.isIdentifier(plugin) ? importsOf(call.getSourceFile()).get(plugin.getText()) : undefined;
    if (b && (b.module === '@fastify/jwt' || b.module === 'fastify-jwt')) return { module: b.module, options: args(call)[1], label: '@fastify/jwt' };
  }
  return undefined;
}

function judgeMiddleware(file: string, call: Call, m: { module: string; options: Node | undefined; label: string }): Judgement {
  const obj = optionsOf(m.options);
  if (m.options && !obj) return { kind: 'unknown', at: locationOf(file, call) };
  const aud = m.module.includes('fastify') ? propertyOf(propertyOf(obj, 'verify'), 'allowedAud') : propertyOf(obj, 'audience');
  if (aud) return { kind: 'ok' };
  if (checksAudience(enclosingFunction(call) ?? call.getSourceFile())) return { kind: 'ok' };
  return { kind: 'red', finding: { messageId: 'audience-unchecked', data: { verifier: m.label }, location: locationOf(file, call) } };
}

/** requireBearerAuth({ verifier, expectedResource }) / verifyBearerToken(header, { … }). */
function judgeGate(file: string, call: Call, label: string, sources: ParsedSources): Judgement {
  const opts = optionsOf(args(call)[label === 'verifyBearerToken' ? 1 : 0]);
  if (!opts) return { kind: 'unknown', at: locationOf(file, call) };
  if (propertyOf(opts, 'expectedResource')) return { kind: 'ok' };
  const fn = verifierFunction(propertyOf(opts, 'verifier'), sources);
  if (!fn) return { kind: 'unknown', at: locationOf(file, call) };
  if (checksAudience(fn) || verifiesJwt(fn)) return { kind: 'ok' };
  // A verifier that asks another server about the token (introspection over HTTP) must check the audience it answers.
  if (/\b(fetch|axios|got|ky|request)\s*[.(]|introspect/i.test(fn.getText())) {
    return { kind: 'red', finding: { messageId: 'audience-unchecked', data: { verifier: label }, location: locationOf(file, call) } };
  }
  // Only packages can verify tokens we cannot see; a verifier using none looks tokens up in the server's own store.
  let imported = false;
  fn.forEachDescendant((n, t) => {
    if (Node.isCallExpression(n) && calleeImport(n) && !calleeImport(n)!.module.startsWith('.')) {
      imported = true;
      t.stop();
    }
  });
  return imported ? { kind: 'unknown', at: locationOf(file, call) } : { kind: 'ok' };
}

/** A hand-written Authorization check: compared with a fixed secret (an API key of this server), or left to an unseen verifier. */
function judgeHeaderRead(file: string, read: Node, files: Files): Judgement | undefined {
  const fn = enclosingFunction(read);
  if (!fn) return { kind: 'unknown', at: locationOf(file, read) };
  let seen: 'secret' | 'verified' | undefined;
  const EQUALITY = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);
  const wanted = (cn: ts.Node): boolean => (ts.isBinaryExpression(cn) && EQUALITY.has(cn.operatorToken.kind)) || ts.isCallExpression(cn);
  // Raw walk: only comparisons and calls are wrapped.
  const scan = (root: Node, depth: number): void => {
    for (const n of findNodes(root, (cn) => cn !== root.compilerNode && wanted(cn))) {
      if (seen === 'secret') return;
      if (Node.isBinaryExpression(n) && ['===', '!==', '==', '!='].includes(n.getOperatorToken().getText())) {
        const l = carriesClientToken(n.getLeft(), files);
        const other = l ? n.getRight() : n.getLeft();
        if (l !== carriesClientToken(n.getRight(), files) && !Node.isNullLiteral(unwrap(other)) && !/^(undefined|''|"")$/.test(other.getText())) seen = 'secret';
      } else if (Node.isCallExpression(n)) {
        const name = calleeName(n) ?? '';
        const local = depth === 0 ? calledFunction(n) : undefined;
        const callee = unwrap(n.getExpression());
        const [arg] = n.getArguments() as Node[];
        if (name === 'timingSafeEqual') seen = 'secret';
        // `authorization.endsWith(REMOTE_SECRET_KEY)`: the header's token compared with a value the server holds (not a literal prefix).
        else if (name === 'endsWith' && arg && Node.isPropertyAccessExpression(callee) && carriesClientToken(callee.getExpression(), files) && stringValue(arg) === undefined && !carriesClientToken(arg, files)) seen = 'secret';
        else if (local && local !== root) scan(local, depth + 1);
        else if (/verif|validat|authenticat|introspect/i.test(name)) seen ??= 'verified';
      }
    }
  };
  scan(fn, 0);
  if (seen === 'secret') return { kind: 'ok' };
  // Verified by a call judged on its own (jwtVerify, an SDK gate) or by one we cannot read.
  if (seen === 'verified') return undefined;
  return { kind: 'unknown', at: locationOf(file, read) };
}

export default [
  defineDetector({
    ruleId: 'S-8',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'token-passthrough': ['header'],
      'audience-unchecked': ['verifier'],
      'audience-optional': ['verifier'],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo, { pythonPart: true });
      if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonAuthCondition(repo, PY_AUTH_EVIDENCE.token, 'no-token-handling') : src.verdict;
      const files = src.files.filter(([, sf]) => /authorization|authInfo|\.auth\b|jwtVerify|jsonwebtoken|BearerAuth|api[-_]?key|access[-_]?key|[-_]token\b|\bsession\.|express-jwt|passport-jwt|fastify[-/]jwt/i.test(sf.getFullText()));
      if (files.length === 0) return notApplicable('no-token-handling');
      const findings = passthroughs(files);
      const judged: Judgement[] = [];
      let verifies = false;
      // Verifiers: a jose / jsonwebtoken import (any local name) or the SDK gates by name.
      // A bundle carries jose inside it: `jwtVerify` (or `jwtVerify2`, renamed by the bundler) is then a function of the same file.
      const verifierCalls = files.flatMap((f) =>
        sitesOf([f], K.calls, isCall, namesAnyModule(f[1], Object.keys(JWT_VERIFIERS)) ? undefined : /\bjwtVerify\d*\(/.test(f[1].getFullText()) ? rawGateOrBundledJose : rawCallNamed(SDK_GATES)),
      );
      for (const s of verifierCalls) {
        const name = calleeName(s.node) ?? '';
        const from = calleeImport(s.node);
        if (from && JWT_VERIFIERS[from.module] === from.name) {
          judged.push(judgeJwt(s.file, s.node, from.module === 'jose' ? 'jwtVerify' : 'jwt.verify'));
        } else if (!from && BUNDLED_JOSE.test(name) && bundledJose(s.node)) {
          judged.push(judgeJwt(s.file, s.node, 'jwtVerify'));
        } else if (SDK_GATES.has(name) && (!from || from.module.startsWith('@modelcontextprotocol/'))) {
          judged.push(judgeGate(s.file, s.node, name, parsedSources(repo)));
        } else continue;
        verifies = true;
      }
      // The Authorization header, and API-key headers (`x-api-key`) a client sends with its requests.
      for (const f of files) {
        if (![...importsOf(f[1]).values()].some((b) => JWT_MIDDLEWARES.has(b.module))) continue;
        for (const c of sitesOf([f], K.calls, isCall)) {
          const m = middlewareOptions(c.node);
          if (!m) continue;
          judged.push(judgeMiddleware(c.file, c.node, m));
          verifies = true;
        }
      }
      const reads = [
        ...headerReads(files, 'authorization'),
        ...sitesOf(files, K.strings, (n) => API_KEY_HEADER.test(stringValue(n) ?? '') && isHeaderRead(n, stringValue(n)!.toLowerCase()), (cn) => ts.isStringLiteralLike(cn) && API_KEY_HEADER.test(cn.text)),
      ].filter((r) => !assignedTo(r.node));
      for (const r of reads) {
        const j = judgeHeaderRead(r.file, r.node, files);
        if (j) judged.push(j);
      }
      const usesAuthInfo =
        sitesOf(
          files,
          K.headerReads,
          (n) => Node.isPropertyAccessExpression(n) && !handsOnExtra(n.compilerNode) && ((n.getName() === 'authInfo' && !ownField(n.compilerNode)) || (n.getName() === 'auth' && /^(req|request)$/.test(n.getExpression().getText()))),
          (cn) => ts.isPropertyAccessExpression(cn) && (cn.name.text === 'authInfo' || cn.name.text === 'auth'),
        ).length > 0;
      for (const j of judged) if (j.kind === 'red') findings.push(j.finding);
      if (findings.length) return { state: 'non-conforming', findings: dedupe(findings) };
      if (!verifies && reads.length === 0 && !usesAuthInfo) return notApplicable('no-token-handling');
      const unknown = judged.find((j): j is Extract<Judgement, { kind: 'unknown' }> => j.kind === 'unknown');
      if (unknown) return couldNotJudge('token-verification-not-read', { file: unknown.at.file, line: unknown.at.line ?? 0 });
      if (!judged.some((j) => j.kind === 'ok')) return couldNotJudge('token-verification-not-found');
      return present();
    },
  }),
];

/**
 * `this.authInfo`: a field of the server's own class (the sign-in it saved to a file and reloads), not the SDK's authInfo
 * of a request, which a handler reads from its extra or the request (`extra.authInfo`, `req.authInfo`).
 */
const ownField = (cn: ts.PropertyAccessExpression): boolean => cn.expression.kind === ts.SyntaxKind.ThisKeyword;

/** Keys of the SDK's own RequestHandlerExtra beside `authInfo` (Protocol's request dispatch, bundled with the server). */
const HANDLER_EXTRA_KEYS = new Set(['sendNotification', 'sendRequest', 'requestId', 'sessionId']);
/**
 * `authInfo: extra?.authInfo` among the keys of the extra a request handler is given (`{ signal, sessionId,
 * sendNotification, sendRequest, authInfo, requestId }`): the SDK's Protocol handing the transport's authInfo on to
 * the handlers, as a bundle (vite, minified, without module comments) carries it. No token is read there; the
 * server's own reads of `extra.authInfo` are looked at where they are.
 */
function handsOnExtra(cn: ts.PropertyAccessExpression): boolean {
  const p = cn.parent;
  if (cn.name.text !== 'authInfo' || !p || !ts.isPropertyAssignment(p) || p.initializer !== cn || !ts.isIdentifier(p.name) || p.name.text !== 'authInfo') return false;
  const keys = p.parent.properties.map((x) => (x.name && (ts.isIdentifier(x.name) || ts.isStringLiteral(x.name)) ? x.name.text : ''));
  return keys.filter((k) => HANDLER_EXTRA_KEYS.has(k)).length >= 2 && inSdkCode(cn);
}

/**
 * The SDK's own code: a bundled framework module (its module comment names `node_modules/@modelcontextprotocol/…`),
 * or, in a bundle without module comments, a class of the SDK (frameworkClass) or its Protocol (the request dispatch
 * `_onrequest`, a member name minifiers keep). A custom HTTP server of the package's own that builds the same keys
 * from `req.authInfo` is the server's code: its read stays.
 */
function inSdkCode(cn: ts.Node): boolean {
  const sf = cn.getSourceFile();
  let regions = sdkRegionsMemo.get(sf);
  if (!regions) sdkRegionsMemo.set(sf, (regions = frameworkRegions(sf.text)));
  if (inRegions(regions, cn.getStart(sf))) return true;
  for (let a: ts.Node | undefined = cn.parent; a; a = a.parent) {
    if (!ts.isClassDeclaration(a) && !ts.isClassExpression(a)) continue;
    if (frameworkClass(a) || a.members.some((m) => !!m.name && ts.isIdentifier(m.name) && m.name.text === '_onrequest')) return true;
  }
  return false;
}
const sdkRegionsMemo = new WeakMap<ts.SourceFile, ReadonlyArray<readonly [number, number]>>();

/**
 * A header access that is written, not read: the target of `=`, `??=`, `||=` (an axios interceptor's
 * `config.headers.Authorization = …`, an Octokit hook setting the server's own token on an outgoing request).
 */
function assignedTo(n: Node): boolean {
  const access = Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n) ? n.getParent() : n;
  const p = access?.getParent();
  if (!access || !p || !Node.isBinaryExpression(p) || p.getLeft() !== access) return false;
  const k = p.getOperatorToken().getKind();
  return k === ts.SyntaxKind.EqualsToken || k === ts.SyntaxKind.QuestionQuestionEqualsToken || k === ts.SyntaxKind.BarBarEqualsToken || k === ts.SyntaxKind.AmpersandAmpersandEqualsToken;
}

/** One finding per place, sorted by file and line. */
function dedupe(fs: Finding[]): Finding[] {
  const seen = new Set<string>();
  const sorted = [...fs].sort((a, b) => (a.location?.file ?? '').localeCompare(b.location?.file ?? '') || (a.location?.line ?? 0) - (b.location?.line ?? 0));
  return sorted.filter((f) => {
    const k = `${f.messageId}:${f.location?.file}:${f.location?.line}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
