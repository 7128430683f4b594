import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Reason } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { SessionFacts } from '../../facts/session.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { evidenceOf, isObj, KNOWN_REVISIONS, LEGACY_REVISION, outcomeOf, paramsOf, short } from '../support/live/dynamic-support.js';

/**
 * S-14 — version negotiation with era-guarded capabilities (dynamic). Judges what the probe recorded:
 * - `initialize` offering the 2025-06-18 floor gets exactly that version back;
 * - `initialize` offering an unknown future version gets a result that counter-offers a different, published
 *   revision (not an error, not an echo);
 * - 2025-era results carry none of the 2026-07-28-only fields.
 * A modern-only server may refuse both offers with -32022 (UnsupportedProtocolVersion) when its manifest
 * (mcp.json minProtocolVersion, read when the package folder is known) says it starts after 2025-06-18.
 */
const MODERN_ONLY_FIELDS = ['resultType', 'ttlMs', 'cacheScope'];
const UNSUPPORTED_VERSION = -32022;

/** Does the manifest declare a floor above 2025-06-18 (a modern-only server)? */
function declaresModernOnly(repo: RepoFacts | undefined): boolean {
  if (!repo?.has('mcp.json')) return false;
  const m = repo.object('mcp.json');
  const min = m.ok ? m.value.minProtocolVersion : undefined;
  return typeof min === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(min) && min > LEGACY_REVISION;
}

export default [
  defineDetector({
    ruleId: 'S-14',
    genre: 'dynamic',
    needs: ['session'],
    wants: ['repo'],
    messages: {
      'floor-not-echoed': ['expected'],
      'floor-refused': ['expected', 'code'],
      'future-version-echoed': ['offered'],
      'future-version-refused': ['offered', 'code'],
      'counter-offer-unknown': ['offered'],
      'modern-field-in-legacy': ['era', 'method', 'fields'],
    },
    judge({ inputs: { session, repo } }) {
      const findings: Finding[] = [];
      const unjudged: Reason[] = [];
      const modernOnly = declaresModernOnly(repo);
      const refusedAsModernOnly = (e: { code?: unknown; data?: unknown }) =>
        modernOnly && e.code === UNSUPPORTED_VERSION && isObj(e.data) && Array.isArray(e.data.supported);

      const opening = (label: ConnectionLabel) => {
        const first = session.exchanges(label)[0];
        const result = SessionFacts.result(first);
        const error = SessionFacts.error(first);
        if (!result && !error) unjudged.push({ code: 'connection-not-run', data: { era: label, outcome: outcomeOf(session, label) } });
        const offered = first ? paramsOf(first).protocolVersion : undefined;
        return { result, error, offered: typeof offered === 'string' ? offered : undefined };
      };

      // The 2025-06-18 floor.
      const legacy = opening('legacy');
      const floor = legacy.offered ?? LEGACY_REVISION;
      if (legacy.result && legacy.result.protocolVersion !== floor) {
        findings.push({ messageId: 'floor-not-echoed', data: { expected: floor }, evidence: evidenceOf(legacy.result.protocolVersion) });
      }
      if (legacy.error && !refusedAsModernOnly(legacy.error)) {
        findings.push({ messageId: 'floor-refused', data: { expected: floor, code: short(legacy.error.code) }, evidence: evidenceOf(legacy.error.message) });
      }

      // An unknown (future) version: counter-offer a supported one.
      const nego = opening('negotiation');
      const offered = nego.offered ?? '';
      if (nego.result) {
        const v = nego.result.protocolVersion;
        if (v === offered) findings.push({ messageId: 'future-version-echoed', data: { offered } });
        else if (!(typeof v === 'string' && KNOWN_REVISIONS.includes(v))) {
          findings.push({ messageId: 'counter-offer-unknown', data: { offered }, evidence: evidenceOf(v) });
        }
      }
      if (nego.error && !refusedAsModernOnly(nego.error)) {
        findings.push({ messageId: 'future-version-refused', data: { offered, code: short(nego.error.code) }, evidence: evidenceOf(nego.error.message) });
      }

      // 2025-era sessions carry no 2026-07-28-only fields.
      for (const era of ['legacy', 'negotiation'] as ConnectionLabel[]) {
        const byMethod = new Map<string, Set<string>>();
        for (const { method, result } of session.results(era)) {
          for (const field of MODERN_ONLY_FIELDS) if (field in result) byMethod.set(method, (byMethod.get(method) ?? new Set()).add(field));
        }
        for (const [method, fields] of byMethod) {
          findings.push({ messageId: 'modern-field-in-legacy', data: { era, method, fields: MODERN_ONLY_FIELDS.filter((f) => fields.has(f)).join(', ') } });
        }
      }

      if (findings.length) return { state: 'non-conforming', findings };
      if (unjudged.length) return couldNotJudge(unjudged[0]!.code, unjudged[0]!.data);
      return present();
    },
  }),
];
