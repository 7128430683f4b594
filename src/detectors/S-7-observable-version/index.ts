import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { pyprojectFields } from '../../probe/package-of.js';
import { noEraServed, short } from '../support/live/dynamic-support.js';

/**
 * S-7 — the running version is observable before authentication (dynamic). Reads the version the server
 * serves without credentials in each era it answered: `_meta["io.modelcontextprotocol/serverInfo"].version`
 * in the DiscoverResult (2026-07-28), `serverInfo.version` in the InitializeResult (2025). The served version
 * must equal the package's own (package.json, else pyproject.toml): the probe reads the package of the
 * launched command, or the folder named with --source. Without a reference version the equality half is
 * could-not-judge, never present: a hard-coded "2.0.0" in a package at 2026.8.31 would otherwise pass.
 */

type Reference =
  | { ok: true; version: string; file: string; line: number }
  | { ok: false; why: 'no_package' | 'no_manifest' | 'no_version' | 'dynamic_version' };

/** The version the package declares, and where. */
export function referenceVersion(repo: RepoFacts | undefined): Reference {
  if (!repo) return { ok: false, why: 'no_package' };
  if (repo.has('package.json')) {
    const pj = repo.object('package.json');
    const v = pj.ok && typeof pj.value.version === 'string' && pj.value.version.trim() !== '' ? pj.value.version : undefined;
    if (v !== undefined) return { ok: true, version: v, file: 'package.json', line: repo.keyLine('package.json', 'version') ?? 1 };
    if (!repo.has('pyproject.toml')) return { ok: false, why: 'no_version' };
  }
  if (repo.has('pyproject.toml')) {
    const t = repo.text('pyproject.toml');
    const f = t.ok ? pyprojectFields(t.value) : undefined;
    if (f?.version) return { ok: true, version: f.version, file: 'pyproject.toml', line: repo.lineOf('pyproject.toml', /^\s*version\s*=/) ?? 1 };
    return { ok: false, why: f?.dynamic ? 'dynamic_version' : 'no_version' };
  }
  return { ok: false, why: 'no_manifest' };
}

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
      const ref = referenceVersion(repo);
      if (ref.ok) {
        const reported = new Set<string>();
        for (const [era, v] of served) {
          if (v === ref.version || reported.has(v)) continue;
          reported.add(v);
          findings.push({
            messageId: 'version-differs-from-package',
            data: { era, served: short(v), expected: short(ref.version), file: ref.file },
            location: { file: ref.file, line: ref.line },
          });
        }
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (!ref.ok) return couldNotJudge('no-reference-version', { served: short([...served.values()][0]), why: ref.why });
      return present();
    },
  }),
];
