import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Reason } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { compareOrder, evidenceOf, listingWalks, noEraServed, repeatedAcrossPages, sameSequence, twoOrders, type Walk } from '../support/live/dynamic-support.js';

/**
 * X-11 — deterministic catalog order (dynamic). The probe lists tools twice in each era, each listing walked
 * to its end through nextCursor, and on stdio each era runs in a process of its own; the version negotiation's
 * process lists them once more after a 2025-era counter-offer, and each locale connection once (when asked for). Red when one process lists the same tools in another order (two listings compared whole, or by their
 * first pages when one was cut short), when two launches list them in different orders, or when one walk serves
 * an item again on a later page while the order is seen to move (a cursor over a stable order that repeats a
 * page is S-12's). A set that changed is not an order: only the items both listings served are compared.
 */

/** The launches that listed tools: each era's process, the version negotiation's, and each locale connection's. */
function launches(session: SessionFacts): { label: string; walks: Walk[]; era?: ConnectionLabel }[] {
  const out: { label: string; walks: Walk[]; era?: ConnectionLabel }[] = [];
  for (const era of ['modern', 'legacy'] as ConnectionLabel[]) {
    if (session.answered(era)) out.push({ label: era, era, walks: listingWalks(session, era, 'tools/list') });
  }
  // The version negotiation's process lists tools once when it accepted a 2025-era counter-offer (probe.ts).
  if (session.answered('negotiation')) out.push({ label: 'negotiation', walks: listingWalks(session, 'negotiation', 'tools/list') });
  for (const c of session.session.connections) {
    if (c.label !== 'locale') continue;
    // A locale connection is a 2025-06-18 connection of its own (C-20 reads it the same way).
    const one = new SessionFacts({ ...session.session, connections: [{ ...c, label: 'legacy' }] });
    if (one.answered('legacy')) out.push({ label: 'locale', walks: listingWalks(one, 'legacy', 'tools/list') });
  }
  return out.filter((l) => l.walks.length > 0);
}

export default [
  defineDetector({
    ruleId: 'X-11',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'tool-order-changed': ['era'],
      'tool-moved-between-pages': ['era'],
      'tool-order-changed-between-launches': ['first', 'second'],
    },
    judge({ inputs: { session } }) {
      const unread = noEraServed(session);
      if (unread) return unread;
      const findings: Finding[] = [];
      let unjudged: Reason | undefined;
      const listed = launches(session);
      // A listing asked for and never answered with a result is not an absence of tools.
      for (const era of ['modern', 'legacy'] as ConnectionLabel[]) {
        if (session.answered(era) && session.calls(era, 'tools/list').length > 0 && !listed.some((l) => l.era === era)) unjudged ??= { code: 'tools-list-not-repeated', data: { era } };
      }
      for (const { era, walks } of listed) {
        if (!era) continue;
        const [first, ...again] = walks as [Walk, ...Walk[]];
        if (again.length === 0) {
          unjudged ??= { code: 'tools-list-not-repeated', data: { era } };
          continue;
        }
        let compared = false;
        let reordered = false;
        for (const w of again) {
          const c = compareOrder(first, w);
          if (c.kind === 'set-changed') continue;
          compared = true;
          if (c.kind === 'reordered' && !reordered) {
            reordered = true;
            findings.push({ messageId: 'tool-order-changed', data: { era }, evidence: evidenceOf(twoOrders(c.first, c.second), 400) });
          }
        }
        // An item served again on a later page of one walk, while the two walks differ: the order moved under the
        // cursor. Two identical walks that both repeat it are a cursor fault (S-12 page-repeated), not an order.
        const moved = again.some((w) => !sameSequence(first, w)) ? walks.map(repeatedAcrossPages).find((r) => r.length > 0) : undefined;
        if (moved) {
          compared = true;
          findings.push({ messageId: 'tool-moved-between-pages', data: { era }, evidence: evidenceOf(moved.join(', '), 400) });
        }
        if (!compared) unjudged ??= { code: 'tool-set-changed', data: { era } };
      }
      // Across launches: each process's first listing against the first launch's.
      const [ref, ...others] = listed;
      for (const o of ref ? others : []) {
        const c = compareOrder(ref!.walks[0]!, o.walks[0]!);
        if (c.kind !== 'reordered') continue;
        findings.push({ messageId: 'tool-order-changed-between-launches', data: { first: ref!.label, second: o.label }, evidence: evidenceOf(twoOrders(c.first, c.second), 400) });
        break;
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (listed.length === 0 && !unjudged) return notApplicable('no-tools-served');
      if (unjudged) return couldNotJudge(unjudged.code, unjudged.data);
      return present();
    },
  }),
];
