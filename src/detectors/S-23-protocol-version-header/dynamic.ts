import { defineDetector, couldNotJudge, present } from '../../engine/detector.js';
import { authFirst, checkOrUnjudged, isVerdict, requireHttp } from '../support/live/http-support.js';

/** S-23, dynamic part: an unsupported MCP-Protocol-Version header gets HTTP 400 (2025-06-18 basic/transports, Protocol Version Header). */
export default defineDetector({
  ruleId: 'S-23',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'unsupported-version-accepted': ['status'] },
  judge({ inputs: { session } }) {
    const na = requireHttp(session);
    if (na) return na;
    const ex = checkOrUnjudged(session, 'unsupported-protocol-version');
    if (isVerdict(ex)) return ex;
    if (authFirst(ex)) return couldNotJudge('auth-before-check', { check: 'unsupported-protocol-version' });
    if (ex.response!.status === 400) return present();
    return { state: 'non-conforming', findings: [{ messageId: 'unsupported-version-accepted', data: { status: ex.response!.status } }] };
  },
});
