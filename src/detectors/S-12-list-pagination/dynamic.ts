import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import { INVALID_CURSOR } from '../../probe/scenario.js';
import { evidenceOf, isObj, LIST_KEY, LIST_METHODS, listingPages, listingWalks, noEraServed, paramsOf, repeatedAcrossPages, sameSequence, short } from '../support/live/dynamic-support.js';

/**
 * S-12 — protocol list methods paginate (dynamic part). On the era that served the probe (2026-07-28
 * preferred), walks the first listing of each protocol list: every nextCursor the server returned must be
 * accepted when sent back and yield new items; when tools/list paginates, the made-up cursor must get
 * JSON-RPC -32602; a list longer than policy.maxUnpaginatedItems must not come back whole. A server that
 * never paginates short lists is fine, and may ignore a cursor it never issued.
 * A page repeats when one walk (the same cursor chain) serves an item again on a later page, and the probe's
 * second walk of that list served the same sequence: when the two walks differ, the order moved under the
 * cursor (X-11's finding, items moving between pages), which says nothing against the cursors themselves.
 * An item twice within one page is not paging. A list walked once is read from its one walk.
 */
const INVALID_PARAMS = -32602;

export default defineDetector({
  ruleId: 'S-12',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'unpaginated-long-list': ['method', 'count', 'max'],
    'cursor-refused': ['method', 'code'],
    'page-repeated': ['method'],
    'invalid-next-cursor': ['method'],
    'invalid-cursor-accepted': ['method'],
    'invalid-cursor-wrong-code': ['method', 'code'],
  },
  judge({ inputs: { session }, config }) {
    const unread = noEraServed(session);
    if (unread) return unread;
    const era = session.servingEra()!;
    const max = config.policy.maxUnpaginatedItems;
    const findings: Finding[] = [];
    let listed = 0;
    for (const method of LIST_METHODS) {
      const all = session.calls(era, method);
      if (all.length === 0) continue;
      listed++;
      const pages = listingPages(session, era, method);
      let paginated = false;
      let count = 0;
      for (const [i, e] of pages.entries()) {
        const err = SessionFacts.error(e);
        if (err) {
          if (i > 0) findings.push({ messageId: 'cursor-refused', data: { method, code: short(err.code ?? null) }, evidence: evidenceOf(err.message) });
          break;
        }
        const r = SessionFacts.result(e);
        if (!r) break;
        const items = Array.isArray(r[LIST_KEY[method]]) ? (r[LIST_KEY[method]] as unknown[]).filter(isObj) : [];
        count += items.length;
        if (r.nextCursor !== undefined && r.nextCursor !== null) {
          if (typeof r.nextCursor !== 'string') findings.push({ messageId: 'invalid-next-cursor', data: { method }, evidence: evidenceOf(r.nextCursor) });
          else paginated = true;
        }
      }
      const [walk, ...again] = listingWalks(session, era, method);
      const repeated = walk ? repeatedAcrossPages(walk) : [];
      if (repeated.length && again.every((w) => sameSequence(walk!, w))) findings.push({ messageId: 'page-repeated', data: { method }, evidence: evidenceOf(repeated.join(', '), 400) });
      if (!paginated && count > max) findings.push({ messageId: 'unpaginated-long-list', data: { method, count, max } });
      if (method === 'tools/list' && paginated) {
        const bogus = all.find((e) => paramsOf(e).cursor === INVALID_CURSOR && e.response);
        const err = SessionFacts.error(bogus);
        if (SessionFacts.result(bogus)) findings.push({ messageId: 'invalid-cursor-accepted', data: { method } });
        else if (err && err.code !== INVALID_PARAMS) findings.push({ messageId: 'invalid-cursor-wrong-code', data: { method, code: short(err.code ?? null) } });
      }
    }
    if (listed === 0) return notApplicable('no-lists-served');
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
