import type { Detector } from '../engine/detector.js';
import type { Genre } from '../engine/types.js';
import { DETECTOR_PARTS } from './genres.js';
import c2 from './C-2-naming/dynamic.js';
import c4 from './C-4-typed-schemas/dynamic.js';
import c6 from './C-6-no-secrets-in-logs/dynamic.js';
import c8 from './C-8-declared-authority/dynamic.js';
import c9 from './C-9-declared-verb/dynamic.js';
import c10 from './C-10-declared-search-mechanism/dynamic.js';
import c11 from './C-11-bounded-pagination/dynamic.js';
import c14 from './C-14-catalogue-registration/index.js';
import c15 from './C-15-tool-annotations/dynamic.js';
import c19 from './C-19-served-descriptions/dynamic.js';
import c20 from './C-20-derived-locales/dynamic.js';
import c21 from './C-21-measured-disclosure/dynamic.js';
import s2 from './S-2-result-type/index.js';
import s3 from './S-3-cacheable-results/index.js';
import s4 from './S-4-server-discover/index.js';
import s5 from './S-5-oauth-resource-server/dynamic.js';
import s6 from './S-6-cache-coherence/index.js';
import s7 from './S-7-observable-version/index.js';
import s11 from './S-11-result-contract/dynamic.js';
import s12 from './S-12-list-pagination/dynamic.js';
import s13 from './S-13-progress-cancellation/dynamic.js';
import s14 from './S-14-version-negotiation/index.js';
import s15 from './S-15-completion-safety/index.js';
import s16 from './S-16-local-footprint/dynamic.js';
import s22 from './S-22-origin-validation/dynamic.js';
import s23 from './S-23-protocol-version-header/dynamic.js';
import s26 from './S-26-list-changed-parity/dynamic.js';
import s27 from './S-27-elicitation-floor/dynamic.js';
import a1 from './A-1-text-fallback/dynamic.js';
import a2 from './A-2-single-file-bundle/index.js';
import a3 from './A-3-sandbox/dynamic.js';
import a4 from './A-4-wcag-aa/dynamic.js';
import a5 from './A-5-performance-budgets/index.js';
import a6 from './A-6-ga-ui-key/index.js';
import a7 from './A-7-destructive-consent/dynamic.js';
import e2 from './E-2-graceful-degradation/dynamic.js';
import e6 from './E-6-hook-timeouts/index.js';
import x1 from './X-1-tool-poisoning/dynamic.js';
import x2 from './X-2-cross-server-shadowing/dynamic.js';
import x3 from './X-3-definition-drift/index.js';
import x6 from './X-6-secret-exposure/dynamic.js';
import x7 from './X-7-stdout-hygiene/dynamic.js';
import x8 from './X-8-lethal-trifecta/dynamic.js';
import x9 from './X-9-header-body-mirroring/index.js';
import x10 from './X-10-stateless-transport/dynamic.js';
import x11 from './X-11-deterministic-catalog/index.js';

/**
 * The registry of a judgement on a live session alone (a probe with no package read and no gate): the dynamic
 * parts, explicit and in registry order (index.ts), imported from modules that load neither the source readers
 * nor the static parts — a folder whose index mixes them keeps its dynamic part in dynamic.ts. The other parts
 * need the repository or the gate, which such a judgement does not have: each is a stand-in that asks for that
 * input, so the runner says could-not-judge with the same reason the real part would give, without loading it.
 * test/registry.test.ts checks that these are the registry's own dynamic parts and that the stand-ins match it.
 */
const LIVE: readonly (Detector | readonly Detector[])[] = [
  c2, c4, c6, c8, c9, c10, c11, c14, c15, c19, c20, c21,
  s2, s3, s4, s5, s6, s7, s11, s12, s13, s14, s15, s16, s22, s23, s26, s27,
  a1, a2, a3, a4, a5, a6, a7,
  e2, e6,
  x1, x2, x3, x6, x7, x8, x9, x10, x11,
];

/** The dynamic parts, in registry order. */
export const liveParts: readonly Detector[] = LIVE.flatMap((x) => (Array.isArray(x) ? x : [x as Detector])).filter((d) => d.genre === 'dynamic');

/** What a part of another genre needs first: the runner answers its absence (needs-repo, needs-gate, source-skipped…). */
const FIRST_NEED: Record<Exclude<Genre, 'dynamic'>, 'repo' | 'gate'> = { static: 'repo', gate: 'gate' };

/** The registry for a judgement without repository and gate: the dynamic parts, and a stand-in for every other part. */
export function liveRegistry(): Detector[] {
  const live = new Map<string, Detector[]>();
  for (const d of liveParts) live.set(d.ruleId, [...(live.get(d.ruleId) ?? []), d]);
  const out: Detector[] = [];
  for (const [ruleId, genres] of Object.entries(DETECTOR_PARTS)) {
    const mine = [...(live.get(ruleId) ?? [])];
    for (const genre of genres) {
      if (genre === 'dynamic') {
        out.push(mine.shift()!);
        continue;
      }
      out.push({
        ruleId,
        genre,
        needs: [FIRST_NEED[genre]],
        messages: {},
        judge: () => {
          throw new Error(`${ruleId}/${genre} judged without its input`);
        },
      });
    }
  }
  return out;
}
