import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { isLock, LOCK_FILE, servedDefinitions } from '../../facts/lock.js';

/**
 * definition drift (rug pull). Compares what the server serves now with the committed lock written
 * by `mcp-doctor pin`: an added, removed or changed tool, prompt, resource or template is a finding.
 */
export default [
  defineDetector({
    ruleId: 'X-3',
    genre: 'dynamic',
    needs: ['session'],
    wants: ['repo'],
    messages: {
      'definition-added': ['kind', 'key'],
      'definition-removed': ['kind', 'key'],
      'definition-changed': ['kind', 'key', 'fields'],
    },
    judge({ inputs: { session, repo } }) {
      if (!repo) return couldNotJudge('lock-unknown', { file: LOCK_FILE });
      if (!repo.has(LOCK_FILE)) return notApplicable('no-lock', { file: LOCK_FILE });
      const raw = repo.json(LOCK_FILE);
      if (!raw.ok || !isLock(raw.value)) return couldNotJudge('file-invalid', { file: LOCK_FILE, detail: raw.ok ? 'not an mcp-doctor lock' : (raw.detail ?? raw.problem) });
      const served = servedDefinitions(session);
      if (!served) return couldNotJudge('server-did-not-answer');
      const id = (x: { kind: string; key: string }) => `${x.kind}\u0000${x.key}`;
      const locked = new Map(raw.value.items.map((x) => [id(x), x]));
      const now = new Map(served.map((x) => [id(x), x]));
      const findings: Finding[] = [];
      for (const [k, cur] of now) {
        const old = locked.get(k);
        const location = { file: LOCK_FILE, line: repo.lineOf(LOCK_FILE, JSON.stringify(cur.key)) ?? 1 };
        if (!old) findings.push({ messageId: 'definition-added', data: { kind: cur.kind, key: cur.key }, evidence: String(cur.definition.description ?? '') });
        else if (old.sha256 !== cur.sha256) {
          const fields = [...new Set([...Object.keys(old.definition), ...Object.keys(cur.definition)])]
            .filter((f) => JSON.stringify(old.definition[f]) !== JSON.stringify(cur.definition[f]))
            .sort();
          findings.push({ messageId: 'definition-changed', data: { kind: cur.kind, key: cur.key, fields: fields.join(', ') }, location, evidence: String(cur.definition.description ?? '') });
        }
      }
      for (const [k, old] of locked) {
        if (!now.has(k)) findings.push({ messageId: 'definition-removed', data: { kind: old.kind, key: old.key }, location: { file: LOCK_FILE, line: repo.lineOf(LOCK_FILE, JSON.stringify(old.key)) ?? 1 } });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
