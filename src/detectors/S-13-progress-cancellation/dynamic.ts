import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';

/**
 * S-13, dynamic part: what can be seen of progress on the wire. For every tool call the probe sent with a
 * progressToken (only with `--exercise read-only`), the server's progress notifications for that token
 * must increase and must stop once the response is sent; and the server never sends progress for a token
 * it did not receive. Sending no progress at all is allowed (progress is optional).
 */
export default defineDetector({
  ruleId: 'S-13',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'progress-not-increasing': ['token', 'previous', 'next'],
    'progress-after-response': ['token'],
    'progress-unknown-token': ['token'],
  },
  judge({ inputs: { session } }) {
    const findings: Finding[] = [];
    let observed = 0;
    for (const c of session.session.connections) {
      const sent = new Set<unknown>();
      const done = new Set<unknown>();
      const byId = new Map<unknown, unknown>();
      const last = new Map<unknown, number>();
      for (const m of c.messages) {
        const msg = m.message;
        if (m.dir === 'out') {
          const token = (msg.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken;
          if (token !== undefined && msg.id != null) {
            sent.add(token);
            byId.set(msg.id, token);
            observed++;
          }
          continue;
        }
        if (msg.method === 'notifications/progress') {
          const p = (msg.params ?? {}) as { progressToken?: unknown; progress?: unknown };
          const token = p.progressToken;
          if (!sent.has(token)) findings.push({ messageId: 'progress-unknown-token', data: { token: String(token) } });
          else if (done.has(token)) findings.push({ messageId: 'progress-after-response', data: { token: String(token) } });
          else if (typeof p.progress === 'number') {
            const prev = last.get(token);
            if (prev !== undefined && !(p.progress > prev)) findings.push({ messageId: 'progress-not-increasing', data: { token: String(token), previous: prev, next: p.progress } });
            last.set(token, p.progress);
          }
        } else if (msg.method === undefined && msg.id != null && byId.has(msg.id)) done.add(byId.get(msg.id));
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (observed === 0) return couldNotJudge('no-progress-token-sent');
    return present();
  },
});
