import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import { unreadable } from '../support/verdicts.js';
import dynamicPart from './dynamic.js';

/**
 * E-2 — graceful degradation (static half). extension.json sets `graceful_degradation` to the boolean
 * true. Whether the host really keeps working for clients that ignore the extension is the dynamic half.
 */
const MANIFEST = 'extension.json';

export default [
  defineDetector({
    ruleId: 'E-2',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-graceful-degradation': ['file'],
      'graceful-degradation-not-true': ['file', 'value'],
    },
    judge({ inputs: { repo } }): Verdict {
      if (!repo.has(MANIFEST)) return couldNotJudge('file-missing', { file: MANIFEST });
      const ext = repo.object(MANIFEST);
      if (!ext.ok) return unreadable(ext);
      const value = ext.value.graceful_degradation;
      if (value === true) return present();
      const line = repo.keyLine(MANIFEST, 'graceful_degradation') ?? 1;
      if (value === undefined) {
        return { state: 'absent', findings: [{ messageId: 'missing-graceful-degradation', data: { file: MANIFEST }, location: { file: MANIFEST, line } }] };
      }
      return {
        state: 'non-conforming',
        findings: [
          {
            messageId: 'graceful-degradation-not-true',
            data: { file: MANIFEST, value: JSON.stringify(value) },
            location: { file: MANIFEST, line },
            evidence: JSON.stringify(value),
          },
        ],
      };
    },
  }),
  dynamicPart,
];
