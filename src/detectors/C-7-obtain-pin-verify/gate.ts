import semver from 'semver';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding, Reason, Verdict } from '../../engine/types.js';
import type { GateFacts } from '../../facts/gate.js';
import type { RepoFacts } from '../../facts/repo.js';

/**
 * C-7 — obtain, pin, verify: the gate half, on a release candidate (`mcp-doctor gate`).
 *  (a) the tag at HEAD equals the version (`v1.2.3`, `1.2.3` or `name@1.2.3`); no tag at HEAD is not a
 *      release commit: could-not-judge;
 *  (b) every file of the packed artefact (npm pack of the folder, or the tarball given) that is tracked in git
 *      has the content of the commit (same git blob id); files the build makes (not tracked) are not compared;
 *      when this version is already on the registry and a tarball is given, its sha1 equals the published one;
 *  (c) the registry keeps earlier versions installable: the package was not unpublished, no version listed in
 *      its history is missing, and no version is deprecated without naming a replacement (a version or a
 *      package to use instead).
 *  (d) a second channel besides the registry is declared: a workflow under .github/workflows creates a GitHub
 *      release (gh release create/upload, softprops/action-gh-release, ncipollo/release-action…) and publishes
 *      a checksum with it (SHA256SUMS, sha256sum, shasum -a 256, checksums.txt). Before the version is
 *      published the declaration is what can be judged (the workflow makes the release after the gate); once
 *      the registry serves this version, whether its release exists is not asked (it needs the GitHub API), so
 *      the part is could-not-judge (`release-not-checked`), never a pass on the declaration alone.
 * Whatever could not be read (no git, no registry metadata offline) keeps the part could-not-judge, with
 * its reason; a red finding read elsewhere still stands.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/** A deprecation message that names a replacement: a version, a package (`@scope/x`, `x@2`), or "use"/"utilisez". */
const NAMES_REPLACEMENT = /\d+\.\d+(?:\.\d+)?|@[\w.-]+\/[\w.-]+|[\w.-]+@\d|\b(?:use|upgrade|migrate|moved|replaced|instead|utilise[rz]?|remplacé)\b/i;

const RELEASE = /\bgh\s+release\s+(?:create|upload)\b|\b(?:softprops\/action-gh-release|ncipollo\/release-action|actions\/create-release|actions\/upload-release-asset)@/;
const CHECKSUM = /\bSHA256SUMS\b|\bsha256sum\b|\bshasum\s+-a\s*256\b|\bchecksums?\.txt\b|\.sha256\b/i;

/** (d): a release workflow publishes a GitHub release with a checksum: undefined when it does, else a finding or a reason. */
function secondChannel(name: string, repo: RepoFacts | undefined): Finding | Reason | undefined {
  if (!repo) return { code: 'needs-repo' };
  const workflows = repo.under('.github/workflows').filter((f) => /\.ya?ml$/.test(f)).sort();
  let unread: Reason | undefined;
  for (const wf of workflows) {
    const t = repo.text(wf);
    if (!t.ok) {
      unread ??= { code: 'file-not-read', data: { file: wf, cause: 'unreadable' } };
      continue;
    }
    const code = t.value.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    if (RELEASE.test(code) && CHECKSUM.test(code)) return undefined;
  }
  return unread ?? { messageId: 'second-channel-not-released', data: { name }, location: { file: 'package.json', line: repo.keyLine('package.json', 'name') ?? 1 } };
}

const line = (repo: RepoFacts | undefined, key: string): number | undefined => repo?.keyLine('package.json', key);

export function judgeGate(gate: GateFacts, repo?: RepoFacts): Verdict {
  const findings: Finding[] = [];
  const unjudged: Reason[] = [];
  const name = gate.name ?? '';
  const version = gate.version;

  // (a) the tag equals the version.
  if (!version) unjudged.push({ code: 'no-package-version', data: { file: 'package.json' } });
  else if (!gate.git.ok) unjudged.push(gate.git.reason);
  else if (gate.git.value.tagsAtHead.length === 0) unjudged.push({ code: 'no-release-tag', data: { commit: gate.git.value.head.slice(0, 12) } });
  else {
    const wanted = new Set([`v${version}`, version, `${name}@${version}`]);
    if (!gate.git.value.tagsAtHead.some((t) => wanted.has(t))) {
      findings.push({
        messageId: 'tag-version-mismatch',
        data: { version, tags: gate.git.value.tagsAtHead.join(', ') },
        location: { file: 'package.json', line: line(repo, 'version') ?? 1 },
      });
    }
  }

  // (b) the artefact matches the source at the commit.
  if (!gate.artefact.ok) unjudged.push(gate.artefact.reason);
  else if (gate.git.ok) {
    const tracked = gate.git.value.tracked;
    for (const f of gate.artefact.value.files) {
      const blob = tracked.get(f.path);
      if (blob === undefined) continue;
      if (!f.blob) {
        unjudged.push({ code: 'file-not-read', data: { file: f.path, cause: f.unread ?? 'unreadable', size: f.size } });
        continue;
      }
      if (f.blob !== blob) {
        findings.push({ messageId: 'artefact-differs', data: { file: f.path, commit: gate.git.value.head.slice(0, 12) }, location: { file: f.path } });
      }
    }
  }

  // (c) earlier versions stay installable.
  if (!gate.registry.ok) unjudged.push(gate.registry.reason);
  else {
    const p = gate.registry.value.packument;
    if (p) {
      const time = obj(p.time) ?? {};
      const versions = obj(p.versions) ?? {};
      if (obj(time.unpublished)) {
        findings.push({ messageId: 'package-unpublished', data: { name }, location: { file: 'package.json', line: line(repo, 'name') ?? 1 } });
      } else {
        const history = Object.keys(time).filter((v) => semver.valid(v) !== null);
        for (const v of history.sort(semver.compare)) {
          if (!(v in versions)) {
            findings.push({ messageId: 'version-unpublished', data: { name, version: v }, location: { file: 'package.json', line: line(repo, 'version') ?? 1 } });
          }
        }
        for (const v of Object.keys(versions).filter((x) => semver.valid(x) !== null).sort(semver.compare)) {
          const dep = obj(versions[v])?.deprecated;
          if (typeof dep === 'string' && dep.trim() !== '' && !NAMES_REPLACEMENT.test(dep)) {
            findings.push({
              messageId: 'deprecated-without-replacement',
              data: { name, version: v },
              location: { file: 'package.json', line: line(repo, 'version') ?? 1 },
              evidence: dep.slice(0, 200),
            });
          }
        }
        // The tarball given is the one the registry serves for this version.
        const published = version ? obj(obj(versions[version])?.dist) : undefined;
        const sha = gate.artefact.ok ? gate.artefact.value.sha1 : undefined;
        if (published && sha && typeof published.shasum === 'string' && published.shasum !== sha) {
          findings.push({ messageId: 'published-tarball-differs', data: { name, version: version! }, location: { file: 'package.json', line: line(repo, 'version') ?? 1 } });
        }
      }
    }
  }

  // (d) a second channel, declared; for a version the registry already serves, its release should exist too,
  // which only the GitHub API could show: not asked, so could-not-judge rather than a pass on the declaration.
  const second = secondChannel(name, repo);
  if (second && 'messageId' in second) findings.push(second);
  else if (second) unjudged.push(second);
  else if (version && gate.registry.ok && obj(obj(gate.registry.value.packument?.versions)?.[version])) {
    unjudged.push({ code: 'release-not-checked', data: { version } });
  }

  if (findings.length) return { state: 'non-conforming', findings };
  if (unjudged.length) return { state: 'could-not-judge', findings: [], reason: unjudged[0] };
  return present();
}

export default [
  defineDetector({
    ruleId: 'C-7',
    genre: 'gate',
    needs: ['gate'],
    wants: ['repo'],
    messages: {
      'tag-version-mismatch': ['version', 'tags'],
      'artefact-differs': ['file', 'commit'],
      'package-unpublished': ['name'],
      'version-unpublished': ['name', 'version'],
      'deprecated-without-replacement': ['name', 'version'],
      'published-tarball-differs': ['name', 'version'],
      'second-channel-not-released': ['name'],
    },
    judge: ({ inputs }) => judgeGate(inputs.gate, inputs.repo),
  }),
];
