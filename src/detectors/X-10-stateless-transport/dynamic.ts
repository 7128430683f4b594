import { defineDetector, couldNotJudge, notApplicable, present } from '../../engine/detector.js';
import { requireHttp } from '../support/live/http-support.js';

/** X-10, dynamic part: a 2026-07-28 exchange carries no protocol session (no Mcp-Session-Id header served). The static part (static.ts) reads the modern request path for session state. */
export default defineDetector({
  ruleId: 'X-10',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'session-id-served': ['method'] },
  judge({ inputs: { session } }) {
    const na = requireHttp(session);
    if (na) return na;
    if (!session.answered('modern')) {
      // Behind an auth wall the era cannot be seen: that is not evidence that 2026-07-28 is not served.
      if (session.http('modern').some((x) => x.response?.status === 401)) return couldNotJudge('auth-before-check', { check: 'modern' });
      return notApplicable('modern-not-served');
    }
    const hit = session.http('modern').find((x) => x.response?.headers['mcp-session-id'] !== undefined);
    if (!hit) return present();
    const method = /^modern (.+)$/.exec(hit.label)?.[1] ?? hit.label;
    return { state: 'non-conforming', findings: [{ messageId: 'session-id-served', data: { method }, evidence: hit.response!.headers['mcp-session-id'] }] };
  },
});
