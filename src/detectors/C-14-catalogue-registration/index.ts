import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Config } from '../../engine/config.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { isStable, type GateFacts } from '../../facts/gate.js';

/**
 * C-14 — registered in the component catalogue. Applies only when the policy (.mcp-doctor.json
 * `policy.componentCatalog`) names a catalogue; none named: not-applicable, that setting being the evidence.
 * `mcp-doctor gate` connects to the catalogue (an MCP server: a command or a URL), calls its search tool
 * (`search_components` unless the policy says otherwise) with the package name, and keeps the entries named
 * after the package (src/facts/catalog-client.ts). Both parts read that answer:
 *  - dynamic: the search resolves an entry, and the entry carries every required field (the policy's
 *    `requiredFields`, or the standard's list); `bilingual` must be true;
 *  - gate: at a stable version, an entry records this version; a pre-release is not registered (not-applicable).
 * Catalogue not queried, unreachable, without its search tool, or an answer that cannot be read: could-not-judge.
 */

export const STANDARD_FIELDS = ['name', 'version', 'description', 'description_fr', 'repo_url', 'npm_url', 'keywords', 'auth_type', 'transport', 'bilingual', 'category'];

const filled = (v: unknown): boolean =>
  v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '') && !(Array.isArray(v) && v.length === 0);

type Entries = { name: string; catalog: string; entries: Record<string, unknown>[] };

function entries(config: Config, gate: GateFacts | undefined): Verdict | Entries {
  const policy = config.policy.componentCatalog;
  if (!policy) return notApplicable('no-component-catalog');
  if (!gate?.catalog) return couldNotJudge('catalog-not-queried', { catalog: policy.name });
  if (!gate.catalog.ok) return { state: 'could-not-judge', findings: [], reason: gate.catalog.reason };
  if (!gate.name) return couldNotJudge('no-package-name', { file: 'package.json' });
  return { name: gate.name, catalog: policy.name, entries: gate.catalog.value.entries };
}
const isVerdict = (x: Verdict | Entries): x is Verdict => 'state' in x;

export default [
  defineDetector({
    ruleId: 'C-14',
    genre: 'dynamic',
    needs: [],
    wants: ['gate'],
    messages: {
      'catalog-entry-missing': ['name', 'catalog'],
      'catalog-field-missing': ['name', 'catalog', 'field'],
    },
    judge({ inputs, config }) {
      const e = entries(config, inputs.gate);
      if (isVerdict(e)) return e;
      if (e.entries.length === 0) return { state: 'absent', findings: [{ messageId: 'catalog-entry-missing', data: { name: e.name, catalog: e.catalog } }] };
      const required = config.policy.componentCatalog!.requiredFields.length ? config.policy.componentCatalog!.requiredFields : STANDARD_FIELDS;
      // The best entry: the one that lacks the fewest fields (the newest registration usually).
      const missingOf = (x: Record<string, unknown>) => required.filter((f) => (f === 'bilingual' ? x[f] !== true : !filled(x[f])));
      const best = [...e.entries].sort((a, b) => missingOf(a).length - missingOf(b).length)[0]!;
      const missing = missingOf(best);
      if (!missing.length) return present();
      const findings: Finding[] = missing.map((field) => ({ messageId: 'catalog-field-missing', data: { name: e.name, catalog: e.catalog, field } }));
      return { state: 'non-conforming', findings };
    },
  }),
  defineDetector({
    ruleId: 'C-14',
    genre: 'gate',
    needs: ['gate'],
    messages: {
      'catalog-version-missing': ['name', 'catalog', 'version', 'recorded'],
    },
    judge({ inputs: { gate }, config }) {
      const e = entries(config, gate);
      if (isVerdict(e)) return e;
      if (!gate.version) return couldNotJudge('no-package-version', { file: 'package.json' });
      if (!isStable(gate.version)) return notApplicable('pre-release-version', { version: gate.version });
      if (e.entries.some((x) => x.version === gate.version)) return present();
      const recorded = e.entries.map((x) => (typeof x.version === 'string' ? x.version : '?')).join(', ');
      return {
        state: 'absent',
        findings: [{ messageId: 'catalog-version-missing', data: { name: e.name, catalog: e.catalog, version: gate.version, recorded: recorded || '-' }, location: { file: 'package.json' } }],
      };
    },
  }),
];
