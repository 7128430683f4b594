import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { evidenceOf, LIST_METHODS, listingPages, modernUnread, outcomeOf } from '../support/live/dynamic-support.js';
import { SessionFacts } from '../../facts/session.js';

/**
 * S-3 — list and read results carry cache hints (dynamic). On the 2026-07-28 connection, every raw result
 * of the five cacheable list/read methods must carry a non-negative integer ttlMs and a cacheScope of
 * "public" or "private", and the pages of one listing must share one cacheScope. Interim
 * "input_required" results carry no hints and are skipped; server/discover is judged under S-4.
 */
const METHODS = [...LIST_METHODS, 'resources/read'];
const SCOPES = ['public', 'private'];

export default [
  defineDetector({
    ruleId: 'S-3',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'missing-ttl': ['method', 'count'],
      'invalid-ttl': ['method'],
      'missing-cache-scope': ['method', 'count'],
      'invalid-cache-scope': ['method'],
      'mixed-cache-scope': ['method'],
    },
    judge({ inputs: { session } }) {
      if (!session.answered('modern')) return modernUnread(session) ?? notApplicable('modern-era-not-served', { outcome: outcomeOf(session, 'modern') });
      const results = session.results('modern').filter((r) => METHODS.includes(r.method) && r.result.resultType !== 'input_required');
      if (results.length === 0) return notApplicable('no-lists-served');
      const missing = { ttlMs: new Map<string, number>(), cacheScope: new Map<string, number>() };
      const invalid = { ttlMs: new Map<string, unknown>(), cacheScope: new Map<string, unknown>() };
      let carried = 0;
      for (const { method, result } of results) {
        for (const field of ['ttlMs', 'cacheScope'] as const) {
          if (!(field in result)) {
            missing[field].set(method, (missing[field].get(method) ?? 0) + 1);
            continue;
          }
          carried++;
          const v = result[field];
          const ok = field === 'ttlMs' ? typeof v === 'number' && Number.isInteger(v) && v >= 0 : typeof v === 'string' && SCOPES.includes(v);
          if (!ok && !invalid[field].has(method)) invalid[field].set(method, v);
        }
      }
      const findings: Finding[] = [
        ...[...missing.ttlMs].map(([method, count]) => ({ messageId: 'missing-ttl', data: { method, count } })),
        ...[...missing.cacheScope].map(([method, count]) => ({ messageId: 'missing-cache-scope', data: { method, count } })),
        ...[...invalid.ttlMs].map(([method, v]) => ({ messageId: 'invalid-ttl', data: { method }, evidence: evidenceOf(v) })),
        ...[...invalid.cacheScope].map(([method, v]) => ({ messageId: 'invalid-cache-scope', data: { method }, evidence: evidenceOf(v) })),
      ];
      for (const method of LIST_METHODS) {
        const scopes = listingPages(session, 'modern', method)
          .map((e) => SessionFacts.result(e)?.cacheScope)
          .filter((s) => s !== undefined);
        const distinct = [...new Set(scopes.map((s) => evidenceOf(s)))];
        if (distinct.length > 1) findings.push({ messageId: 'mixed-cache-scope', data: { method }, evidence: distinct.join(', ') });
      }
      if (findings.length === 0) return present();
      return { state: carried === 0 ? 'absent' : 'non-conforming', findings };
    },
  }),
];
