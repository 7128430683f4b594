import { defineDetector, couldNotJudge, notApplicable, present } from '../../engine/detector.js';
import { authFirst, checkOrUnjudged, isVerdict, requireHttp, rpcErrorCode } from '../support/live/http-support.js';

/**
 * on 2026-07-28 Streamable HTTP, a request whose Mcp-Method header disagrees with its body is refused
 * with HTTP 400 and JSON-RPC error -32020 (HeaderMismatch).
 */
export default [
  defineDetector({
    ruleId: 'X-9',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'mismatch-accepted': ['status'], 'mismatch-wrong-code': ['status', 'code'] },
    judge({ inputs: { session } }) {
      const na = requireHttp(session);
      if (na) return na;
      if (!session.answered('modern')) {
        // Behind an auth wall the era cannot be seen: that is not evidence that 2026-07-28 is not served.
        if (session.http('modern').some((x) => x.response?.status === 401)) return couldNotJudge('auth-before-check', { check: 'header-mismatch' });
        return notApplicable('modern-not-served');
      }
      const ex = checkOrUnjudged(session, 'header-mismatch');
      if (isVerdict(ex)) return ex;
      if (authFirst(ex)) return couldNotJudge('auth-before-check', { check: 'header-mismatch' });
      const status = ex.response!.status;
      if (status !== 400) return { state: 'non-conforming', findings: [{ messageId: 'mismatch-accepted', data: { status } }] };
      const code = rpcErrorCode(ex);
      if (code !== -32020) return { state: 'non-conforming', findings: [{ messageId: 'mismatch-wrong-code', data: { status, code: code ?? 'none' } }] };
      return present();
    },
  }),
];
