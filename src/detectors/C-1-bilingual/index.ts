import { defineDetector, couldNotJudge, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { readmeFile, str, unreadable } from '../support/verdicts.js';

/**
 * C-1 — bilingual or nothing (static). Reads the package manifest (package.json, and extension.json for an
 * extension) for a French description, and the tree for README.fr.md.
 */
export default [
  defineDetector({
    ruleId: 'C-1',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-description-fr': ['file'],
      'missing-readme-fr': ['file'],
    },
    judge({ inputs: { repo }, kind }) {
      const manifest = repo.has('package.json') ? 'package.json' : undefined;
      if (!manifest) {
        return repo.has('pyproject.toml') ? couldNotJudge('pyproject-not-read', { file: 'pyproject.toml' }) : couldNotJudge('no-package-manifest');
      }
      const pj = repo.object(manifest);
      if (!pj.ok) return unreadable(pj);
      const findings: Finding[] = [];
      const frIn = (o: Record<string, unknown>) => str(o.description_fr) ?? str(o['description@fr']);
      let fr = frIn(pj.value);
      if (!fr && kind === 'extension') {
        const ext = repo.object('extension.json');
        if (ext.ok) fr = frIn(ext.value);
      }
      if (!fr) {
        findings.push({
          messageId: 'missing-description-fr',
          data: { file: manifest },
          location: { file: manifest, line: repo.keyLine(manifest, 'description') ?? 1 },
        });
      }
      if (!readmeFile(repo, '.fr')) {
        const en = readmeFile(repo);
        findings.push({ messageId: 'missing-readme-fr', data: { file: 'README.fr.md' }, location: en ? { file: en, line: 1 } : undefined });
      }
      return findings.length ? { state: 'absent', findings } : present();
    },
  }),
];
