import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import { INVALID_CURSOR } from '../../probe/scenario.js';

/**
 * C-11, dynamic part: a paginated tool refuses a cursor it never issued. With `--exercise read-only`, each
 * read-only tool whose input schema has a `cursor` is called once more with a made-up cursor. A JSON-RPC
 * -32602 or a tool error is a refusal; an ordinary result (a silent first page) is not; a JSON-RPC error with
 * another code is the wrong error.
 */
export default defineDetector({
  ruleId: 'C-11',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'invalid-cursor-accepted': ['tool'], 'invalid-cursor-wrong-code': ['tool', 'code'] },
  judge({ inputs: { session } }) {
    const findings: Finding[] = [];
    let tried = 0;
    for (const era of ['modern', 'legacy'] as const) {
      for (const e of session.calls(era, 'tools/call')) {
        const params = (e.request.params ?? {}) as { name?: unknown; arguments?: { cursor?: unknown } };
        if (params.arguments?.cursor !== INVALID_CURSOR || !e.response) continue;
        tried++;
        const tool = String(params.name);
        const err = SessionFacts.error(e);
        const result = SessionFacts.result(e);
        if (err) {
          if (err.code !== -32602) findings.push({ messageId: 'invalid-cursor-wrong-code', data: { tool, code: String(err.code) } });
        } else if (result && result.isError !== true) findings.push({ messageId: 'invalid-cursor-accepted', data: { tool } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    return tried ? present() : couldNotJudge('no-paginated-tool-exercised');
  },
});
