import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, State, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { unreadable } from '../support/verdicts.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * C-17 — supply chain, the lockfile half (static). The provenance attestation is read at publication (gate).
 *  - JavaScript (package.json): a lockfile at the root — npm-shrinkwrap.json, package-lock.json,
 *    pnpm-lock.yaml, yarn.lock, bun.lock(b). For an npm lockfile, every dependency and devDependency of
 *    package.json must be locked: listed in `packages[""]` and present as `packages["node_modules/<name>"]`
 *    (lockfileVersion 2 and 3), or in `dependencies` (lockfileVersion 1). Other lockfiles count by presence.
 *  - Python (pyproject.toml, setup.py, setup.cfg, Pipfile or requirements*.txt): uv.lock, poetry.lock,
 *    pdm.lock or Pipfile.lock, or else requirements*.txt files whose every requirement is pinned with `==`
 *    (or `===`, or a direct `name @ url` reference); each unpinned requirement is a finding.
 */

const JS_LOCKS = ['npm-shrinkwrap.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb'];
const PY_LOCKS = ['uv.lock', 'poetry.lock', 'pdm.lock', 'Pipfile.lock'];
const PY_MANIFESTS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile'];
const REQUIREMENTS = /^requirements[\w.-]*\.txt$/;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/** 1-based line of `"name":` inside the manifest section `"section": {` (first occurrence after the section key). */
function depLine(text: string, section: string, name: string): number | undefined {
  const lines = text.split('\n');
  const key = `"${section}"`;
  const dep = new RegExp(`"${escapeRegExp(name)}"\\s*:`);
  const start = lines.findIndex((l) => l.includes(key));
  if (start < 0) return undefined;
  for (let i = start; i < lines.length; i++) {
    const part = i === start ? lines[i]!.slice(lines[i]!.indexOf(key) + key.length) : lines[i]!;
    if (dep.test(part)) return i + 1;
  }
  return undefined;
}

/** A requirement line: `name[extras] <specifier> ; marker`, without options (-r, -e, --hash…) or comments. */
function requirementOf(line: string): { name: string; pinned: boolean } | undefined {
  const l = line.replace(/\s+#.*$/, '').replace(/\\\s*$/, '').trim();
  if (!l || l.startsWith('#') || l.startsWith('-')) return undefined;
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$/.exec(l);
  if (!m) return undefined;
  const spec = m[3]!.split(';')[0]!.trim();
  const exact = /^===?\s*[^\s,*<>=!~]+$/.test(spec);
  const direct = /^@\s*\S+/.test(spec);
  return { name: m[1]!, pinned: exact || direct };
}

function judgeJs(repo: RepoFacts, findings: Finding[]): Verdict | undefined {
  const manifest = 'package.json';
  const lockfile = repo.first(...JS_LOCKS);
  if (!lockfile) {
    findings.push({ messageId: 'lockfile-missing', data: { manifest }, location: { file: manifest, line: 1 } });
    return undefined;
  }
  if (lockfile !== 'npm-shrinkwrap.json' && lockfile !== 'package-lock.json') return undefined;
  const pj = repo.object(manifest);
  if (!pj.ok) return unreadable(pj);
  const lock = repo.object(lockfile);
  if (!lock.ok) return unreadable(lock);
  const packages = obj(lock.value.packages);
  const v1 = obj(lock.value.dependencies);
  if (!packages && !v1) return couldNotJudge('file-invalid', { file: lockfile, detail: 'neither packages nor dependencies' });
  const root = obj(packages?.['']) ?? {};
  const rootDeclared = new Set(
    ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) => Object.keys(obj(root[k]) ?? {})),
  );
  const pjText = repo.text(manifest);
  const seen = new Set<string>();
  for (const section of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(obj(pj.value[section]) ?? {})) {
      if (seen.has(name)) continue;
      seen.add(name);
      const locked = packages ? rootDeclared.has(name) && obj(packages[`node_modules/${name}`]) !== undefined : obj(v1![name]) !== undefined;
      if (!locked) {
        findings.push({
          messageId: 'dependency-not-locked',
          data: { name, lockfile },
          location: { file: manifest, line: (pjText.ok && depLine(pjText.value, section, name)) || 1 },
        });
      }
    }
  }
  return undefined;
}

function judgePython(repo: RepoFacts, findings: Finding[], manifest: string): Verdict | undefined {
  if (repo.first(...PY_LOCKS)) return undefined;
  const reqFiles = repo.files.filter((f) => REQUIREMENTS.test(f));
  let requirements = 0;
  for (const file of reqFiles) {
    const t = repo.text(file);
    if (!t.ok) return unreadable(t);
    t.value.split('\n').forEach((line, i) => {
      const r = requirementOf(line);
      if (!r) return;
      requirements++;
      if (!r.pinned) findings.push({ messageId: 'requirement-unpinned', data: { name: r.name, file }, location: { file, line: i + 1 } });
    });
  }
  if (requirements === 0) findings.push({ messageId: 'lockfile-missing', data: { manifest }, location: { file: manifest, line: 1 } });
  return undefined;
}

export default [
  defineDetector({
    ruleId: 'C-17',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'lockfile-missing': ['manifest'],
      'dependency-not-locked': ['name', 'lockfile'],
      'requirement-unpinned': ['name', 'file'],
    },
    judge({ inputs: { repo } }) {
      const js = repo.has('package.json');
      const pyManifest = repo.first(...PY_MANIFESTS) ?? repo.files.find((f) => REQUIREMENTS.test(f));
      if (!js && !pyManifest) return couldNotJudge('no-package-manifest');
      const findings: Finding[] = [];
      const jsVerdict = js ? judgeJs(repo, findings) : undefined;
      const pyVerdict = pyManifest ? judgePython(repo, findings, pyManifest) : undefined;
      const unjudged = jsVerdict ?? pyVerdict;
      if (findings.length) {
        const state: State = findings.every((f) => f.messageId === 'lockfile-missing') ? 'absent' : 'non-conforming';
        return { state, findings };
      }
      return unjudged ?? present();
    },
  }),
];
