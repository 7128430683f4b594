import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { hostCalls } from '../support/live/host-session.js';

/**
 * E-6 — hook timeouts (dynamic). Under mcp-doctor's extension host (src/extensions/host.ts), every hook run
 * races its budget (extension.json `timeouts`, else init 5 s, beforeCall 1 s, afterCall 1 s, onError 500 ms);
 * the host abandons an overrun with a warning and reports each run in the result's `_meta`. Red
 * 'hook-over-budget': a hook of the extension ran past its budget (it relies on the host to cut it off;
 * a host that does not would wait). not-applicable when the extension ran no hook at all.
 */
export default [
  defineDetector({
    ruleId: 'E-6',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'hook-over-budget': ['hook', 'budget'] },
    judge({ inputs: { session } }): Verdict {
      const got = hostCalls(session);
      if (!got.ok) return got.verdict;
      const runs = got.calls.flatMap((c) => c.hooks);
      if (runs.length === 0) return notApplicable('no-hook-run');
      const findings: Finding[] = [];
      const seen = new Set<string>();
      for (const r of runs) {
        if (r.outcome !== 'timeout' || seen.has(r.hook)) continue;
        seen.add(r.hook);
        findings.push({ messageId: 'hook-over-budget', data: { hook: String(r.hook), budget: Number(r.budgetMs) } });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
