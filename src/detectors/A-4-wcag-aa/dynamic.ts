import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { renderedApps } from '../support/apps/apps-support.js';

/**
 * WCAG 2.x AA (dynamic). The host harness runs axe-core in the rendered View (its own isolated world,
 * WCAG 2.0/2.1/2.2 A and AA tags only, cross-origin preloading off) on the initial render and again after the
 * View received a tool result. A violation of impact serious or critical is red, with the axe rule id and the
 * selectors of the offending nodes as evidence. When axe could not run on a View, the part cannot be judged.
 */

const RED_IMPACTS = new Set(['serious', 'critical']);

export default defineDetector({
  ruleId: 'A-4',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'axe-violation': ['tool', 'rule', 'impact', 'phase', 'nodes'] },
  judge({ inputs: { session } }) {
    const got = renderedApps(session);
    if ('state' in got) return got;
    const findings: Finding[] = [];
    for (const v of got.rendered) {
      const ran = v.axe.filter((r) => !r.error);
      if (!ran.length) return couldNotJudge('axe-failed', { tool: v.tool, error: v.axe[0]?.error ?? 'not run' });
      const seen = new Set<string>();
      for (const r of ran) {
        for (const x of [...r.violations].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
          if (!RED_IMPACTS.has(x.impact) || seen.has(x.id)) continue;
          seen.add(x.id);
          findings.push({ messageId: 'axe-violation', data: { tool: v.tool, rule: x.id, impact: x.impact, phase: r.phase, nodes: x.nodes }, evidence: x.targets.join(', ').slice(0, 300) });
        }
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
