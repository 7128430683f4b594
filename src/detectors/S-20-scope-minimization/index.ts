import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { serverModel } from '../../facts/server-model.js';
import { propertyName, stringValue } from '../../facts/ts-source.js';
import { stringList } from '../support/auth/oauth-support.js';
import { calleeName, isCall, locationOf, named, rawCallNamed, rawNameText, readSources, receiverOf, sitesOf, K } from '../support/source/source-support.js';

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
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo, { pythonPart: true });
      if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonAuthCondition(repo, PY_AUTH_EVIDENCE.scopes, 'no-oauth-scopes') : src.verdict;
      const files = src.files.filter(([, sf]) => /scope/i.test(sf.getFullText()));
      const { baseline, published, perOperation, challenged, listed } = scopes(files);
      const all = [...baseline, ...perOperation, ...challenged, ...listed].sort((a, b) => a.node.getPos() - b.node.getPos());
      if (all.length === 0 && published.length === 0) {
        const gated = sitesOf(src.files, K.calls, (n) => isCall(n) && GATES.has(calleeName(n) ?? ''), rawCallNamed(GATES)).length > 0;
        return gated ? couldNotJudge('scopes-not-in-source') : notApplicable('no-oauth-scopes');
      }
      const findings: Finding[] = [];
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
      return present();
    },
  }),
];

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
