import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts, type Exchange } from '../../facts/session.js';
import { BURST_META, CONTROL_VALUE, OVERSIZED_LENGTH, UNKNOWN_PROMPT } from '../../probe/scenario.js';
import { evidenceOf, isObj, noEraServed, paramsOf } from '../support/live/dynamic-support.js';

/**
 * S-15 — completions are validated, throttled and scoped (dynamic part). On the era that served the probe
 * (2026-07-28 preferred), when the server declares `completions` and lists a prompt argument or a template
 * variable, the probe (probe/scenario `probeCompletions`) asked completion/complete with an unknown
 * prompt, a value of OVERSIZED_LENGTH characters and a value made of control characters, then sent
 * BURST_SIZE requests at once.
 * Red:
 *   - 'unknown-ref-accepted': the unknown prompt got a result instead of an error;
 *   - 'invalid-input-suggested': the oversized or control-character value got suggestions;
 *   - 'invalid-input-internal-error': one of the invalid inputs got -32603 (the input reached code that broke);
 *   - 'burst-unthrottled': every request of the burst got a result, all within BURST_WINDOW_MS of the first
 *     request (no error, no delay).
 * Not judged here: whether suggestions stay within what the caller may read (needs two credentials), hence
 * `partial`.
 */

const INTERNAL_ERROR = -32603;
/** A burst answered in full within this window was not slowed down. */
export const BURST_WINDOW_MS = 1000;

const refOf = (e: Exchange): Record<string, unknown> => (isObj(paramsOf(e).ref) ? (paramsOf(e).ref as Record<string, unknown>) : {});
const valueOf = (e: Exchange): string | undefined => {
  const a = paramsOf(e).argument;
  return isObj(a) && typeof a.value === 'string' ? a.value : undefined;
};
const isBurst = (e: Exchange): boolean => isObj(paramsOf(e)._meta) && (paramsOf(e)._meta as Record<string, unknown>)[BURST_META] !== undefined;
const suggestions = (e: Exchange): unknown[] => {
  const r = SessionFacts.result(e);
  const c = r && isObj(r.completion) ? r.completion : undefined;
  return c && Array.isArray(c.values) ? c.values : [];
};

export default [
  defineDetector({
    ruleId: 'S-15',
    genre: 'dynamic',
    needs: ['session'],
    partial: true,
    messages: {
      'unknown-ref-accepted': ['name'],
      'invalid-input-suggested': ['input', 'count'],
      'invalid-input-internal-error': ['input'],
      'burst-unthrottled': ['count', 'ms'],
    },
    judge({ inputs: { session } }) {
      const unread = noEraServed(session);
      if (unread) return unread;
      const era = session.servingEra()!;
      if (!session.capabilities(era).completions) return notApplicable('completions-not-declared');
      const calls = session.calls(era, 'completion/complete');
      if (calls.length === 0) return couldNotJudge('no-completion-target');
      const findings: Finding[] = [];
      for (const e of calls) {
        if (isBurst(e) || !e.response) continue;
        const err = SessionFacts.error(e);
        const value = valueOf(e) ?? '';
        const input = refOf(e).name === UNKNOWN_PROMPT ? 'unknown_ref' : value.length >= OVERSIZED_LENGTH ? 'oversized' : value === CONTROL_VALUE ? 'control' : undefined;
        if (!input) continue;
        if (err?.code === INTERNAL_ERROR) findings.push({ messageId: 'invalid-input-internal-error', data: { input }, evidence: evidenceOf(err.message) });
        else if (input === 'unknown_ref' && SessionFacts.result(e)) findings.push({ messageId: 'unknown-ref-accepted', data: { name: UNKNOWN_PROMPT } });
        else if (input !== 'unknown_ref' && suggestions(e).length > 0) {
          findings.push({ messageId: 'invalid-input-suggested', data: { input, count: suggestions(e).length }, evidence: evidenceOf(suggestions(e).slice(0, 5)) });
        }
      }
      const burst = calls.filter(isBurst);
      if (burst.length > 0 && burst.every((e) => SessionFacts.result(e))) {
        // Timings from the wire: first request sent to last answer received.
        const at = new Map<unknown, { out?: number; in?: number }>();
        for (const m of session.connection(era)?.messages ?? []) {
          const id = m.message.id;
          if (id == null) continue;
          const slot = at.get(id) ?? {};
          if (m.dir === 'out' && m.message.method !== undefined) slot.out = m.at;
          if (m.dir === 'in' && m.message.method === undefined) slot.in = m.at;
          at.set(id, slot);
        }
        const outs = burst.map((e) => at.get(e.request.id)?.out ?? 0);
        const ins = burst.map((e) => at.get(e.request.id)?.in ?? 0);
        const ms = Math.max(0, Math.max(...ins) - Math.min(...outs));
        if (ms < BURST_WINDOW_MS) findings.push({ messageId: 'burst-unthrottled', data: { count: burst.length, ms } });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
