import { defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { short } from '../support/live/dynamic-support.js';
import { hostCalls } from '../support/live/host-session.js';

/**
 * E-2, dynamic part: under mcp-doctor's extension host (src/extensions/host.ts), a client that does not
 * declare the extension (the probe declares none) gets the host's bare answer: each call of `host_echo`
 * answers, without error, exactly `echo: <text>`. Red: 'host-call-failed' (no answer, a JSON-RPC error or
 * a tool error), 'answer-changed' (the extension rewrote the answer for a client that did not opt in).
 */
export default defineDetector({
  ruleId: 'E-2',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'host-call-failed': ['era'], 'answer-changed': ['era'] },
  judge({ inputs: { session } }): Verdict {
    const got = hostCalls(session);
    if (!got.ok) return got.verdict;
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const c of got.calls) {
      let f: Finding | undefined;
      if (!c.answered || c.error) f = { messageId: 'host-call-failed', data: { era: c.era } };
      else if (c.got !== `echo: ${c.text}`) f = { messageId: 'answer-changed', data: { era: c.era }, evidence: short(c.got ?? null, 200) };
      if (f && !seen.has(`${f.messageId}:${c.era}`)) {
        seen.add(`${f.messageId}:${c.era}`);
        findings.push(f);
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
