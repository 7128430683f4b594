import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { noEraServed } from '../support/live/dynamic-support.js';
import { excerpt, ownToolNames, servedTexts, unreadServedList } from '../support/live/dynamic-text.js';
import { judgeReferences, lookalikeOf, readsProse, spelled } from './judge.js';

/**
 * cross-server shadowing (dynamic). Reads every text the running server served (descriptions,
 * titles, schema strings, instructions) for sentences that steer the use of a tool it does not serve, or
 * lay down rules for all tools or other servers (references.ts); and compares each served tool name
 * with well-known tool names: a confusable glyph, a case or separator change, or one edited character
 * away, while not equal (judge.ts, shared with the static part). The server's own tools may be mentioned
 * freely.
 */

export { skeleton, withinOneEdit } from './judge.js';

export default defineDetector({
  ruleId: 'X-2',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'foreign-tool-reference': ['where', 'tool'],
    'global-tool-rule': ['where'],
    'lookalike-tool-name': ['tool', 'like'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const own = ownToolNames(session);
    const ownLower = new Set([...own].map((n) => n.toLowerCase()));
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
      if (!readsProse(t.field)) continue;
      for (const h of judgeReferences(t.text, ownLower)) {
        add({ messageId: h.kind, data: h.tool === undefined ? { where: t.where } : { where: t.where, tool: h.tool }, evidence: excerpt(t.text, h.index, h.end) });
      }
    }

    for (const name of own) {
      const like = lookalikeOf(name, own);
      if (like) add({ messageId: 'lookalike-tool-name', data: { tool: name, like }, evidence: spelled(name) });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // Clean only when every declared list was read to its end (X-2 lets this part decide: live-decides).
    const unread = unreadServedList(session);
    return unread ? couldNotJudge('served-list-incomplete', unread) : present();
  },
});
