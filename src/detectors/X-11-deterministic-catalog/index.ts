import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Reason } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { evidenceOf, isObj, noEraServed, paramsOf } from '../support/live/dynamic-support.js';

/**
 * deterministic catalog order (dynamic). In each era that listed tools, the probe called tools/list
 * twice without a cursor; the first pages must hold the same tool names in the same order.
 */
const names = (r: Record<string, unknown>): string[] =>
  (Array.isArray(r.tools) ? r.tools : []).filter(isObj).map((t) => (typeof t.name === 'string' ? t.name : evidenceOf(t.name ?? null, 60)));

export default [
  defineDetector({
    ruleId: 'X-11',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'tool-order-changed': ['era'],
      'tool-set-changed': ['era'],
    },
    judge({ inputs: { session } }) {
      const unread = noEraServed(session);
      if (unread) return unread;
      const findings: Finding[] = [];
      let unjudged: Reason | undefined;
      let listed = 0;
      for (const era of ['modern', 'legacy'] as ConnectionLabel[]) {
        if (!session.answered(era)) continue;
        const firstPages = session.calls(era, 'tools/list').filter((e) => paramsOf(e).cursor === undefined);
        if (firstPages.length === 0) continue;
        listed++;
        const [a, b] = firstPages.map((e) => SessionFacts.result(e));
        if (!a || !b) {
          unjudged ??= { code: 'tools-list-not-repeated', data: { era } };
          continue;
        }
        const [x, y] = [names(a), names(b)];
        if (JSON.stringify(x) === JSON.stringify(y)) continue;
        const sameSet = JSON.stringify([...x].sort()) === JSON.stringify([...y].sort());
        findings.push({ messageId: sameSet ? 'tool-order-changed' : 'tool-set-changed', data: { era }, evidence: evidenceOf(`${x.join(', ')} | ${y.join(', ')}`, 400) });
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (listed === 0) return notApplicable('no-tools-served');
      if (unjudged) return couldNotJudge(unjudged.code, unjudged.data);
      return present();
    },
  }),
];
