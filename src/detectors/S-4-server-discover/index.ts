import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { SessionFacts } from '../../facts/session.js';
import { evidenceOf, isObj, MODERN_REVISION, outcomeOf, responded, short, UNREACHED } from '../support/live/dynamic-support.js';

/**
 * S-4 — server/discover is implemented (dynamic). Reads the raw answer to the server/discover request that
 * opens the 2026-07-28 connection: a DiscoverResult with supportedVersions (including 2026-07-28),
 * capabilities, resultType, ttlMs and cacheScope. A refusal, or silence while the 2025 connection did
 * respond, means the method is absent; when neither connection got any response, nothing can be judged.
 */

export default [
  defineDetector({
    ruleId: 'S-4',
    genre: 'dynamic',
    needs: ['session'],
    messages: {
      'discover-refused': ['code'],
      'discover-unanswered': ['outcome'],
      'discover-field-missing': ['field'],
      'discover-field-invalid': ['field'],
      'modern-revision-not-listed': ['revision'],
    },
    judge({ inputs: { session } }) {
      const modern = outcomeOf(session, 'modern');
      const first = session.exchanges('modern')[0];
      const result = SessionFacts.result(first);
      const error = SessionFacts.error(first);
      if (error) {
        return { state: 'absent', findings: [{ messageId: 'discover-refused', data: { code: short(error.code) }, evidence: evidenceOf(error.message) }] };
      }
      if (!result) {
        if (UNREACHED.includes(modern)) return couldNotJudge('connection-not-run', { era: 'modern', outcome: modern });
        if (!responded(session, 'legacy')) return couldNotJudge('no-era-served', { modern, legacy: outcomeOf(session, 'legacy') });
        return { state: 'absent', findings: [{ messageId: 'discover-unanswered', data: { outcome: modern } }] };
      }
      const findings: Finding[] = [];
      const missing = (field: string) => findings.push({ messageId: 'discover-field-missing', data: { field } });
      const invalid = (field: string, v: unknown) => findings.push({ messageId: 'discover-field-invalid', data: { field }, evidence: evidenceOf(v) });
      const sv = result.supportedVersions;
      if (sv === undefined) missing('supportedVersions');
      else if (!Array.isArray(sv) || sv.length === 0 || !sv.every((v) => typeof v === 'string')) invalid('supportedVersions', sv);
      else if (!sv.includes(MODERN_REVISION)) {
        findings.push({ messageId: 'modern-revision-not-listed', data: { revision: MODERN_REVISION }, evidence: evidenceOf(sv) });
      }
      if (result.capabilities === undefined) missing('capabilities');
      else if (!isObj(result.capabilities)) invalid('capabilities', result.capabilities);
      const rt = result.resultType;
      if (rt === undefined) missing('resultType');
      else if (rt !== 'complete') invalid('resultType', rt);
      const ttl = result.ttlMs;
      if (ttl === undefined) missing('ttlMs');
      else if (!(typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0)) invalid('ttlMs', ttl);
      const scope = result.cacheScope;
      if (scope === undefined) missing('cacheScope');
      else if (scope !== 'public' && scope !== 'private') invalid('cacheScope', scope);
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
