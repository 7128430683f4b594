import { defineDetector, couldNotJudge, present } from '../../engine/detector.js';
import { authFirst, checkOrUnjudged, isVerdict, requireHttp } from '../support/live/http-support.js';

/** S-22, dynamic part: a request with a hostile Origin gets HTTP 403 (2025-06-18 basic/transports, Security Warning). */
export default defineDetector({
  ruleId: 'S-22',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'hostile-origin-accepted': ['status'] },
  judge({ inputs: { session } }) {
    const na = requireHttp(session);
    if (na) return na;
    const ex = checkOrUnjudged(session, 'hostile-origin');
    if (isVerdict(ex)) return ex;
    if (authFirst(ex)) return couldNotJudge('auth-before-check', { check: 'hostile-origin' });
    if (ex.response!.status === 403) return present();
    return { state: 'non-conforming', findings: [{ messageId: 'hostile-origin-accepted', data: { status: ex.response!.status } }] };
  },
});
