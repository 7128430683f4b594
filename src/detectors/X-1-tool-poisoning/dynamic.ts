import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { noEraServed } from '../support/live/dynamic-support.js';
import { excerpt, servedTexts, unreadServedList } from '../support/live/dynamic-text.js';
import { judgeText } from './patterns.js';

/**
 * tool poisoning (dynamic). Offline and deterministic: every text the running server served in any
 * era (names, titles and descriptions of tools, prompts, resources and templates; every string of the
 * input and output schemas; the server instructions) is scanned with the pattern registry of
 * patterns.ts (judgeText, shared with the static part). One finding per category and place, quoting the
 * first match. Clean (present) only when every list the server declares was read to its last page
 * (unreadServedList): otherwise could-not-judge 'served-list-incomplete', since X-1 lets this part decide
 * the rule (combine: live-decides).
 */

export default defineDetector({
  ruleId: 'X-1',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'model-directive': ['where'],
    'hidden-markup': ['where'],
    'credential-reference': ['where'],
    'exfiltration-parameter': ['where', 'parameter'],
    'invisible-characters': ['where', 'codepoints'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const findings: Finding[] = [];
    const seen = new Set<string>();
    const add = (f: Finding) => {
      const key = `${f.messageId}|${JSON.stringify(f.data)}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(f);
      }
    };
    for (const t of servedTexts(session)) {
      for (const h of judgeText(t)) add({ messageId: h.kind, data: { where: t.where, ...h.data }, evidence: excerpt(t.text, h.index, h.end) });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // Clean only when every list the server declares was read to its end: a failed or truncated list hides texts.
    const unread = unreadServedList(session);
    return unread ? couldNotJudge('served-list-incomplete', unread) : present();
  },
});
