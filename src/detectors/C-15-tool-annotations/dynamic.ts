import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { isObj } from '../dynamic-support.js';
import { earnedOn, servedTools, toolName, unreadToolPages } from '../dynamic-text.js';

/**
 * C-15 — tool annotations (dynamic). Reads `annotations` of every tool the running server serves: the four
 * behaviour hints must each be declared, as a boolean. Absent when no served tool declares any annotation
 * object; non-conforming when some are missing or mistyped.
 */

export const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export default defineDetector({
  ruleId: 'C-15',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'missing-annotations': ['tool'],
    'missing-hint': ['tool', 'hint'],
    'hint-not-boolean': ['tool', 'hint'],
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
      for (const hint of HINTS) {
        if (!(hint in ann) || ann[hint] === undefined) findings.push({ messageId: 'missing-hint', data: { tool, hint } });
        else if (typeof ann[hint] !== 'boolean') findings.push({ messageId: 'hint-not-boolean', data: { tool, hint }, evidence: JSON.stringify(ann[hint]).slice(0, 200) });
      }
    }
    if (findings.length === 0) return gap ?? present();
    return { state: findings.every((f) => f.messageId === 'missing-annotations') ? 'absent' : 'non-conforming', findings };
  },
});
