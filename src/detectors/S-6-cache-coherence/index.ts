import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import { canonical } from '../../facts/lock.js';
import { SessionFacts } from '../../facts/session.js';
import { noEraServed } from '../support/live/dynamic-support.js';

/**
 * S-6, dynamic part — what can be seen of cache coherence from one client. The probe lists tools twice on
 * the 2026-07-28 connection. If the first answer said it stays fresh for ttlMs, and the second answer, well
 * within that time, serves different tool definitions with no tools/list_changed notification in between,
 * the hint lied: a client that trusted it kept a stale catalog. A tenant-dependent list served with
 * cacheScope "public" needs two identities to see, so it is not judged here.
 */
export default [
  defineDetector({
    ruleId: 'S-6',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'stale-within-ttl': ['ttlMs'] },
    judge({ inputs: { session } }) {
      const none = noEraServed(session);
      if (none) return none;
      if (!session.answered('modern')) return notApplicable('modern-not-served');
      const c = session.connection('modern')!;
      const lists = session.calls('modern', 'tools/list').filter((e) => {
        const params = (e.request.params ?? {}) as { cursor?: unknown };
        return params.cursor === undefined && SessionFacts.result(e);
      });
      if (lists.length < 2) return couldNotJudge('tools-list-not-repeated', { era: 'modern' });
      const [a, b] = lists as [(typeof lists)[0], (typeof lists)[0]];
      const ra = SessionFacts.result(a)!;
      const rb = SessionFacts.result(b)!;
      const ttl = typeof ra.ttlMs === 'number' ? ra.ttlMs : 0;
      const at = (id: unknown) => c.messages.find((m) => m.dir === 'in' && m.message.id === id)?.at ?? 0;
      const elapsed = at(b.request.id) - at(a.request.id);
      const sameTools = canonical(ra.tools) === canonical(rb.tools);
      if (sameTools || ttl <= 0 || elapsed >= ttl) return present();
      const notified = c.messages.some((m) => m.dir === 'in' && m.message.method === 'notifications/tools/list_changed');
      return notified ? present() : { state: 'non-conforming', findings: [{ messageId: 'stale-within-ttl', data: { ttlMs: ttl } }] };
    },
  }),
];
