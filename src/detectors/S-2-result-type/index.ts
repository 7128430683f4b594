import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { evidenceOf, modernUnread, outcomeOf } from '../support/live/dynamic-support.js';

/**
 * S-2 — every result carries resultType (dynamic). Reads the raw `result` of every response on the
 * 2026-07-28 connection; JSON-RPC errors and notifications are not results. Applies only when the server
 * answered server/discover with a result.
 */
const VALUES = ['complete', 'input_required'];

export default [
  defineDetector({
    ruleId: 'S-2',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'missing-result-type': ['method', 'count'],
      'invalid-result-type': ['method'],
    },
    judge({ inputs: { session } }) {
      if (!session.answered('modern')) return modernUnread(session) ?? notApplicable('modern-era-not-served', { outcome: outcomeOf(session, 'modern') });
      const missing = new Map<string, number>();
      const invalid = new Map<string, unknown>();
      let carried = 0;
      for (const { method, result } of session.results('modern')) {
        if (!('resultType' in result)) {
          missing.set(method, (missing.get(method) ?? 0) + 1);
          continue;
        }
        carried++;
        const v = result.resultType;
        if (!(typeof v === 'string' && VALUES.includes(v)) && !invalid.has(method)) invalid.set(method, v);
      }
      const findings: Finding[] = [
        ...[...missing].map(([method, count]) => ({ messageId: 'missing-result-type', data: { method, count } })),
        ...[...invalid].map(([method, v]) => ({ messageId: 'invalid-result-type', data: { method }, evidence: evidenceOf(v) })),
      ];
      if (findings.length === 0) return present();
      return { state: carried === 0 ? 'absent' : 'non-conforming', findings };
    },
  }),
];
