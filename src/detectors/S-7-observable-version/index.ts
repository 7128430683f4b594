import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { noEraServed, short } from '../dynamic-support.js';

/**
 * S-7 — the running version is observable before authentication (dynamic). Reads the version the server
 * serves without credentials in each era it answered: `_meta["io.modelcontextprotocol/serverInfo"].version`
 * in the DiscoverResult (2026-07-28), `serverInfo.version` in the InitializeResult (2025). When the package
 * folder is known and package.json has a version, the served version must equal it.
 */
const MANIFEST = 'package.json';

export default [
  defineDetector({
    ruleId: 'S-7',
    genre: 'dynamic',
    needs: ['session'],
    wants: ['repo'],
    messages: {
      'version-missing': ['era'],
      'version-differs-from-package': ['era', 'served', 'expected', 'file'],
      'versions-differ-between-eras': ['modern', 'legacy'],
    },
    judge({ inputs: { session, repo } }) {
      const unread = noEraServed(session);
      if (unread) return unread;
      const eras = (['modern', 'legacy'] as ConnectionLabel[]).filter((l) => session.answered(l));
      const served = new Map<ConnectionLabel, string>();
      const findings: Finding[] = [];
      for (const era of eras) {
        const v = session.serverInfo(era)?.version;
        if (typeof v === 'string' && v.trim() !== '') served.set(era, v);
        else findings.push({ messageId: 'version-missing', data: { era } });
      }
      if (served.size === 0) return { state: 'absent', findings };
      const [modern, legacy] = [served.get('modern'), served.get('legacy')];
      if (modern !== undefined && legacy !== undefined && modern !== legacy) {
        findings.push({ messageId: 'versions-differ-between-eras', data: { modern: short(modern), legacy: short(legacy) } });
      }
      const pj = repo?.has(MANIFEST) ? repo.object(MANIFEST) : undefined;
      const expected = pj?.ok && typeof pj.value.version === 'string' && pj.value.version.trim() !== '' ? pj.value.version : undefined;
      if (repo && expected !== undefined) {
        const reported = new Set<string>();
        for (const [era, v] of served) {
          if (v === expected || reported.has(v)) continue;
          reported.add(v);
          findings.push({
            messageId: 'version-differs-from-package',
            data: { era, served: short(v), expected: short(expected), file: MANIFEST },
            location: { file: MANIFEST, line: repo.keyLine(MANIFEST, 'version') ?? 1 },
          });
        }
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
