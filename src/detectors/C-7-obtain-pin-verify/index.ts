import { posix } from 'node:path';
import semver from 'semver';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { readmeFile, str, unreadable } from '../support/verdicts.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * C-7 — the client can obtain, pin and verify the artefact without depending on us (static half).
 * Reads package.json `name`, README.md, the CI workflows and the tree, and asks for four things, each its own
 * finding when missing:
 *  (a) a one-command install from a named registry in the README: `npm install|i|add`, `npx`, `pnpm add|dlx`,
 *      `yarn add|dlx`, `bun add`, `bunx` (npm registry), `pip install`, `pipx install|run`, `uvx`,
 *      `uv tool|pip install` (PyPI), followed by the package's own name;
 *  (b) an exact pinned version of the package shown in the README: `name@1.2.3` or `name==1.2.3`;
 *  (c) a provenance or checksum signal: package.json `publishConfig.provenance: true`, a workflow under
 *      .github/workflows that publishes with `--provenance` (or `NPM_CONFIG_PROVENANCE: true`, or
 *      `actions/attest-build-provenance`), or a published checksum file (SHA256SUMS, *.sha256, checksums.txt…);
 *  (d) at least two independent channels named in the README: each registry install counts once, plus a GitHub
 *      release, a tarball URL, a container image, GitHub Packages, JSR or a git install.
 * That the published artefact really matches the source, and that no prior version was unpublished, is read at
 * the registry (the gate half).
 */


const REGISTRY_COMMANDS: [channel: string, command: string][] = [
  ['npm', String.raw`npm\s+(?:install|i|add)|npx|pnpm\s+(?:add|dlx)|yarn\s+(?:add|dlx)|bun\s+add|bunx`],
  ['pypi', String.raw`pip3?\s+install|pipx\s+(?:install|run)|uvx|uv\s+(?:tool|pip)\s+install`],
];
const FLAGS = String.raw`(?:\s+--?[A-Za-z][\w-]*(?:=\S+)?)*`;
const NAME_END = String.raw`(?=@|==|[\s\x60'")\]]|$)`;

const OTHER_CHANNELS: [channel: string, re: RegExp][] = [
  ['github-release', /github\.com\/[\w.-]+\/[\w.-]+\/releases/i],
  ['tarball', /https?:\/\/\S+\.(?:tgz|tar\.gz)\b/i],
  ['container', /\b(?:docker|podman)\s+(?:run|pull)\b|\b(?:ghcr\.io|quay\.io|docker\.io|registry\.gitlab\.com)\/[\w.-]+/i],
  ['github-packages', /npm\.pkg\.github\.com/i],
  ['jsr', /\bjsr\.io\/@|\bjsr:@|\bjsr\s+add\b/i],
  ['git', /\b(?:npm\s+(?:install|i)|pip3?\s+install)(?:\s+-\S+)*\s+(?:git\+|github:)/i],
];

const CHECKSUM_FILE = /^(?:SHA(?:256|512)SUMS(?:\.txt)?|SHASUMS(?:256|512)\.txt|checksums?(?:\.txt)?|.+\.(?:sha256|sha512)(?:sum)?)$/i;
const WORKFLOW_PROVENANCE = /--provenance\b|NPM_CONFIG_PROVENANCE\s*[:=]\s*['"]?true|actions\/attest-build-provenance/i;

function hasProvenanceSignal(repo: RepoFacts, pj: Record<string, unknown>): boolean {
  const pc = pj.publishConfig;
  if (typeof pc === 'object' && pc !== null && (pc as Record<string, unknown>).provenance === true) return true;
  for (const wf of repo.under('.github/workflows').filter((f) => /\.ya?ml$/.test(f))) {
    const t = repo.text(wf);
    if (t.ok && WORKFLOW_PROVENANCE.test(t.value)) return true;
  }
  return repo.files.some((f) => CHECKSUM_FILE.test(posix.basename(f)));
}

/** 1-based line of the first match of `re` in `text`. */
const lineOfMatch = (text: string, re: RegExp): number | undefined => {
  const m = re.exec(text);
  return m ? text.slice(0, m.index).split('\n').length : undefined;
};

export default [
  defineDetector({
    ruleId: 'C-7',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'readme-missing': ['file'],
      'install-command-missing': ['name', 'file'],
      'pinned-version-missing': ['name', 'file'],
      'provenance-missing': ['name', 'file'],
      'second-channel-missing': ['name', 'count', 'file'],
    },
    judge({ inputs: { repo } }) {
      const manifest = 'package.json';
      if (!repo.has(manifest)) return repo.has('pyproject.toml') ? couldNotJudge('pyproject-not-read', { file: 'pyproject.toml' }) : couldNotJudge('no-package-manifest');
      const pj = repo.object(manifest);
      if (!pj.ok) return unreadable(pj);
      const name = str(pj.value.name);
      if (!name) return couldNotJudge('no-package-name', { file: manifest });

      const findings: Finding[] = [];
      if (!hasProvenanceSignal(repo, pj.value)) {
        findings.push({
          messageId: 'provenance-missing',
          data: { name, file: manifest },
          location: { file: manifest, line: repo.keyLine(manifest, 'publishConfig') ?? 1 },
        });
      }

      const readme = readmeFile(repo);
      if (!readme) {
        findings.push({ messageId: 'readme-missing', data: { file: 'README.md' } });
        return { state: 'absent', findings };
      }
      const t = repo.text(readme);
      if (!t.ok) return unreadable(t);
      const text = t.value;

      // (a) one-command install, and the registries it names.
      const channels = new Set<string>();
      let installLine: number | undefined;
      for (const [channel, command] of REGISTRY_COMMANDS) {
        const re = new RegExp(String.raw`(?<![^\s\x60'"(>$])(?:${command})${FLAGS}\s+${escapeRegExp(name)}${NAME_END}`);
        const line = lineOfMatch(text, re);
        if (line !== undefined) {
          channels.add(channel);
          installLine = Math.min(installLine ?? line, line);
        }
      }
      if (installLine === undefined) {
        findings.push({ messageId: 'install-command-missing', data: { name, file: readme }, location: { file: readme, line: 1 } });
      }

      // (b) an exact pinned version.
      const pin = new RegExp(String.raw`(?<![\w@/.-])${escapeRegExp(name)}(?:@|==)v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)`, 'g');
      const pinned = [...text.matchAll(pin)].some((m) => semver.valid(m[1]!) !== null);
      if (!pinned) {
        findings.push({ messageId: 'pinned-version-missing', data: { name, file: readme }, location: { file: readme, line: installLine ?? 1 } });
      }

      // (d) a second, independent channel.
      for (const [channel, re] of OTHER_CHANNELS) if (re.test(text)) channels.add(channel);
      if (channels.size < 2) {
        findings.push({
          messageId: 'second-channel-missing',
          data: { name, count: channels.size, file: readme },
          location: { file: readme, line: installLine ?? 1 },
        });
      }
      return findings.length ? { state: 'absent', findings } : present();
    },
  }),
];
