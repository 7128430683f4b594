import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { isObj } from '../support/live/dynamic-support.js';
import { earnedOn, servedTools, toolName, unreadToolPages } from '../support/live/dynamic-text.js';

/**
 * C-15 — tool annotations (dynamic). Reads `annotations` of every tool the running server serves: the four
 * behaviour hints must each be declared, as a boolean. Absent when no served tool declares any annotation
 * object; non-conforming when some are missing or mistyped. One finding per defect per tool: the hints a
 * tool leaves out are listed in one finding, and so are the ones it writes as something other than a boolean.
 */

export const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export default defineDetector({
  ruleId: 'C-15',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'missing-annotations': ['tool'],
    'missing-hint': ['tool', 'hints', 'count'],
    'hint-not-boolean': ['tool', 'hints', 'count'],
  },
  judge({ inputs: { session } }) {
    const served = servedTools(session);
    if (!served.ok) return served.verdict;
    const gap = unreadToolPages(served);
    if (served.tools.length === 0) return gap ?? notApplicable('no-tools-served');
    const findings: Finding[] = [];
    for (const t of served.tools) {
      const tool = toolName(t);
      const ann = t.annotations;
      if (!isObj(ann)) {
        findings.push({ messageId: 'missing-annotations', data: { tool } });
        continue;
      }
      const missing = HINTS.filter((h) => !(h in ann) || ann[h] === undefined);
      const mistyped = HINTS.filter((h) => !missing.includes(h) && typeof ann[h] !== 'boolean');
      if (missing.length) findings.push({ messageId: 'missing-hint', data: { tool, hints: missing.join(', '), count: missing.length } });
      if (mistyped.length) {
        const evidence = mistyped.map((h) => `${h}: ${JSON.stringify(ann[h])}`).join(', ').slice(0, 200);
        findings.push({ messageId: 'hint-not-boolean', data: { tool, hints: mistyped.join(', '), count: mistyped.length }, evidence });
      }
    }
    if (findings.length === 0) return gap ?? present();
    return { state: findings.every((f) => f.messageId === 'missing-annotations') ? 'absent' : 'non-conforming', findings };
  },
});
