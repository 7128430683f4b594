import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { canonical } from '../../facts/lock.js';
import { SessionFacts } from '../../facts/session.js';
import { noEraServed } from '../support/live/dynamic-support.js';

/**
 * S-26, dynamic part: a declared `listChanged` is backed by notifications. The probe lists prompts and
 * resources twice on the 2025-06-18 connection (where a server may notify unsolicited; in 2026-07-28 it
 * notifies only on a subscriptions/listen stream the probe does not open). When a list changed between the
 * two calls and its capability declares listChanged, a notifications/<kind>/list_changed must have arrived
 * in between. No change seen: nothing to judge.
 */
const KINDS = [
  { kind: 'prompts', method: 'prompts/list', key: 'prompts', note: 'notifications/prompts/list_changed' },
  { kind: 'resources', method: 'resources/list', key: 'resources', note: 'notifications/resources/list_changed' },
] as const;

export default defineDetector({
  ruleId: 'S-26',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'change-not-notified': ['kind'] },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    if (!session.answered('legacy')) return couldNotJudge('legacy-not-served');
    const caps = session.capabilities('legacy') as Record<string, { listChanged?: unknown } | undefined>;
    const declared = KINDS.filter((k) => caps[k.kind]?.listChanged === true);
    if (!declared.length) return notApplicable('list-changed-not-declared');
    const c = session.connection('legacy')!;
    const findings: Finding[] = [];
    let changes = 0;
    for (const k of declared) {
      const calls = session.calls('legacy', k.method).filter((e) => {
        const params = (e.request.params ?? {}) as { cursor?: unknown };
        return params.cursor === undefined && SessionFacts.result(e);
      });
      if (calls.length < 2) continue;
      const [a, b] = [calls[0]!, calls[calls.length - 1]!];
      if (canonical(SessionFacts.result(a)![k.key]) === canonical(SessionFacts.result(b)![k.key])) continue;
      changes++;
      const from = c.messages.findIndex((m) => m.dir === 'in' && m.message.id === a.request.id);
      const to = c.messages.findIndex((m) => m.dir === 'in' && m.message.id === b.request.id);
      const notified = c.messages.slice(from, to + 1).some((m) => m.dir === 'in' && m.message.method === k.note);
      if (!notified) findings.push({ messageId: 'change-not-notified', data: { kind: k.kind } });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    return changes ? present() : couldNotJudge('no-list-change-seen');
  },
});
