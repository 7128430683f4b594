import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';

/**
 * S-5, dynamic part: a server that protects itself answers 401 with a Bearer challenge naming its
 * resource_metadata, serves RFC 9728 metadata at /.well-known/oauth-protected-resource, lists its
 * authorization servers (within policy.authorizationServers when set), and refuses forged tokens.
 * Signature keys and audiences beyond forgery cannot be checked from outside: the static part (static.ts) reads code.
 */
export default defineDetector({
  ruleId: 'S-5',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'challenge-malformed': ['header'],
    'metadata-missing': ['status'],
    'metadata-incomplete': ['field'],
    'authorization-server-not-allowed': ['issuer'],
    'forged-token-accepted': ['kind', 'status'],
  },
  judge({ inputs: { session }, config }) {
    if (!session.isHttp()) return notApplicable('not-http');
    const challenge = session.session.connections.flatMap((c) => c.http ?? []).find((x) => x.response?.status === 401);
    if (!challenge) return notApplicable('no-auth-challenge');
    const findings: Finding[] = [];
    const header = challenge.response!.headers['www-authenticate'] ?? '';
    if (!/^Bearer\b/i.test(header) || !/resource_metadata="[^"]+"/i.test(header)) findings.push({ messageId: 'challenge-malformed', data: { header: header || '(none)' } });
    const prm = session.httpCheck('protected-resource-metadata');
    let doc: Record<string, unknown> | undefined;
    try {
      doc = prm?.response?.status === 200 ? (JSON.parse(prm.response.body) as Record<string, unknown>) : undefined;
    } catch {
      doc = undefined;
    }
    if (!doc) findings.push({ messageId: 'metadata-missing', data: { status: prm?.response?.status ?? 'none' } });
    else {
      if (typeof doc.resource !== 'string') findings.push({ messageId: 'metadata-incomplete', data: { field: 'resource' } });
      const as = Array.isArray(doc.authorization_servers) ? doc.authorization_servers.filter((x): x is string => typeof x === 'string') : [];
      if (!as.length) findings.push({ messageId: 'metadata-incomplete', data: { field: 'authorization_servers' } });
      const allowed = config.policy.authorizationServers;
      for (const issuer of as) if (allowed.length && !allowed.includes(issuer)) findings.push({ messageId: 'authorization-server-not-allowed', data: { issuer } });
    }
    for (const kind of ['token-alg-none', 'token-bad-signature']) {
      const ex = session.httpCheck(kind);
      if (ex?.response && ex.response.status !== 401 && ex.response.status !== 403) findings.push({ messageId: 'forged-token-accepted', data: { kind, status: ex.response.status } });
    }
    if (!findings.length) return present();
    return { state: findings.some((f) => f.messageId === 'metadata-missing') && findings.length === 1 ? 'absent' : 'non-conforming', findings };
  },
});
