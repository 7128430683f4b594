import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { maskSecret, SECRETS } from '../C-6-no-secrets-in-logs/leaks.js';
import { noEraServed } from '../support/live/dynamic-support.js';

/**
 * X-6, dynamic part: nothing the server sends to the client carries a credential or the process
 * environment. Every server→client message of every connection is read (results, errors, notifications):
 * a well-known secret shape (the reviewed registry shared with C-6) or an environment dump (PATH and HOME
 * side by side, as JSON) is a finding. Secrets are quoted by their first characters only.
 */
const ENV_DUMP = /"PATH"\s*:\s*"[^"]*\/(?:usr\/)?bin[^"]*"[\s\S]{0,2000}"HOME"\s*:|"HOME"\s*:\s*"\/[^"]*"[\s\S]{0,2000}"PATH"\s*:/;

export default defineDetector({
  ruleId: 'X-6',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'secret-served': ['kind', 'method'], 'environment-served': ['method'] },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const c of session.session.connections) {
      const methodOf = new Map<unknown, string>();
      for (const m of c.messages) {
        if (m.dir === 'out') {
          if (m.message.id != null && typeof m.message.method === 'string') methodOf.set(m.message.id, m.message.method);
          continue;
        }
        const method = typeof m.message.method === 'string' ? m.message.method : (methodOf.get(m.message.id) ?? 'response');
        const text = JSON.stringify(m.message);
        for (const p of SECRETS) {
          const hit = p.re.exec(text);
          if (hit && !seen.has(`${p.id}|${method}`)) {
            seen.add(`${p.id}|${method}`);
            findings.push({ messageId: 'secret-served', data: { kind: p.id, method }, evidence: maskSecret(hit[0]) });
          }
        }
        // Text blocks carry JSON inside JSON: look through the escaping.
        if (ENV_DUMP.test(text.replace(/\\"/g, '"')) && !seen.has(`env|${method}`)) {
          seen.add(`env|${method}`);
          findings.push({ messageId: 'environment-served', data: { method } });
        }
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
