import semver from 'semver';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { unreadable } from '../support/verdicts.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * C-3 — strict SemVer and a changelog (static). Reads package.json `version`: it must be a SemVer 2.0.0
 * version written exactly (no `v` or `=` prefix, no spaces). Reads CHANGELOG.md (or docs/CHANGELOG.md):
 * it must exist and hold a Markdown heading naming that exact version (`## [1.2.0] - 2026-01-31`,
 * `## 1.2.0`, `## v1.2.0`, `# pkg@1.2.0`); headings inside fenced code blocks do not count.
 * Whether a breaking change was released as a major version stays a reviewer's judgement.
 */

const CHANGELOGS = ['CHANGELOG.md', 'docs/CHANGELOG.md', 'changelog.md', 'docs/changelog.md'];

const isStrictSemver = (v: string): boolean => /^\d/.test(v) && semver.parse(v) !== null && semver.parse(v)!.raw === v;


/** 1-based line of the first heading naming `version` exactly, outside fenced code. */
export function headingLineFor(markdown: string, version: string): number | undefined {
  const exact = new RegExp(`(?<![0-9A-Za-z.+-])v?${escapeRegExp(version)}(?![0-9A-Za-z+-]|\\.[0-9A-Za-z])`);
  const lines = markdown.split(/\r?\n/);
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      continue;
    }
    if (fence) continue;
    const h = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    if (h && exact.test(h[1]!)) return i + 1;
  }
  return undefined;
}

export default [
  defineDetector({
    ruleId: 'C-3',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'version-missing': ['file'],
      'version-not-semver': ['version', 'file'],
      'changelog-missing': ['file'],
      'changelog-entry-missing': ['version', 'file'],
    },
    judge({ inputs: { repo } }) {
      const manifest = 'package.json';
      if (!repo.has(manifest)) return repo.has('pyproject.toml') ? couldNotJudge('pyproject-not-read', { file: 'pyproject.toml' }) : couldNotJudge('no-package-manifest');
      const pj = repo.object(manifest);
      if (!pj.ok) return unreadable(pj);
      const findings: Finding[] = [];
      let wrong = false;

      const raw = pj.value.version;
      let version: string | undefined;
      if (raw === undefined || raw === null || raw === '') {
        findings.push({ messageId: 'version-missing', data: { file: manifest }, location: { file: manifest, line: 1 } });
      } else if (typeof raw !== 'string' || !isStrictSemver(raw)) {
        wrong = true;
        findings.push({
          messageId: 'version-not-semver',
          data: { version: String(raw), file: manifest },
          location: { file: manifest, line: repo.keyLine(manifest, 'version') ?? 1 },
        });
      } else version = raw;

      const changelog = repo.first(...CHANGELOGS);
      if (!changelog) {
        findings.push({ messageId: 'changelog-missing', data: { file: 'CHANGELOG.md' }, location: { file: manifest, line: repo.keyLine(manifest, 'version') ?? 1 } });
      } else if (version) {
        const t = repo.text(changelog);
        if (!t.ok) return unreadable(t);
        if (headingLineFor(t.value, version) === undefined) {
          findings.push({ messageId: 'changelog-entry-missing', data: { version, file: changelog }, location: { file: changelog, line: 1 } });
        }
      }
      if (findings.length) return { state: wrong ? 'non-conforming' : 'absent', findings };
      return present();
    },
  }),
];
