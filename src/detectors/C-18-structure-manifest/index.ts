import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, State, Verdict } from '../../engine/types.js';
import type { Read, RepoFacts } from '../../facts/repo.js';
import { readmeFile, unreadable } from '../support/verdicts.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * C-18 — structure and manifest conform (static). The tree and manifests are those of the object's own
 * complement: a server or an App carries mcp.json + package.json, an extension extension.json +
 * package.json. Checks the required tree entries, the required manifest fields, the version parity
 * between the object's manifest and package.json, and the level-2 sections of README.md (trunk §5.3).
 */

/** Oldest protocol revision a server may declare as its floor. */
const PROTOCOL_FLOOR = '2025-06-18';
const PACKAGE_FIELDS = ['name', 'version', 'description', 'license', 'engines.node'];
const MCP_FIELDS = ['name', 'version', 'transport', 'capabilities', 'minProtocolVersion'];
const EXTENSION_FIELDS = ['version', 'type', 'lifecycle'];
/**
 * README.md level-2 sections required by the trunk (§5.3), each with the headings READMEs usually give it:
 * a heading counts for a section when it contains one of them as whole words, case-insensitively
 * ("How to install", "🔧 Installation & setup", "License & Attribution").
 */
const README_SECTIONS: { section: string; accepted: string[] }[] = [
  { section: 'Installation', accepted: ['installation', 'install', 'installing', 'how to install', 'getting started', 'get started', 'quick start', 'quickstart', 'setup', 'set up', 'setting up'] },
  { section: 'Configuration', accepted: ['configuration', 'configure', 'configuring', 'config', 'settings', 'environment variables', 'options'] },
  { section: 'Tools', accepted: ['tools', 'available tools', 'tool reference', 'tool list', 'capabilities'] },
  { section: 'Examples', accepted: ['examples', 'example', 'usage', 'how to use', 'use cases'] },
  { section: 'Troubleshooting', accepted: ['troubleshooting', 'faq', 'common issues', 'known issues', 'debugging'] },
  { section: 'License', accepted: ['license', 'licence', 'licensing'] },
];
const SECTION_RE = new Map(README_SECTIONS.map((r) => [r.section, new RegExp(`(?:^|[^\\p{L}])(?:${r.accepted.map((a) => escapeRegExp(a).replace(/ /g, '\\s+')).join('|')})(?![\\p{L}])`, 'iu')]));

type Failed = Extract<Read<unknown>, { ok: false }>;

const get = (o: Record<string, unknown>, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined), o);

const isMissing = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Level-2 ATX headings of a Markdown text, outside fenced code blocks, without leading numbering or emoji. */
function level2Headings(md: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let fence: string | undefined;
  md.split(/\r?\n/).forEach((l, i) => {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(l)?.[1];
    if (fence) {
      if (f && f[0] === fence[0] && f.length >= fence.length) fence = undefined;
      return;
    }
    if (f) {
      fence = f;
      return;
    }
    const h = /^ {0,3}##(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(l);
    if (h) out.push({ text: (h[1] ?? '').replace(/^[^\p{L}]+/u, '').replace(/[*_`]/g, '').trim(), line: i + 1 });
  });
  return out;
}

function treeFindings(repo: RepoFacts, manifest: string, packageManifest: string): Finding[] {
  const missing = (entry: string): Finding => ({ messageId: 'missing-entry', data: { entry } });
  const out: Finding[] = [];
  if (!repo.has(packageManifest)) out.push(missing('package.json'));
  if (!repo.has(manifest)) out.push(missing(manifest));
  if (!repo.hasDir('src')) out.push(missing('src/'));
  if (!readmeFile(repo)) out.push(missing('README.md'));
  if (!readmeFile(repo, '.fr')) out.push(missing('README.fr.md'));
  if (!repo.has('CHANGELOG.md')) out.push(missing('CHANGELOG.md'));
  if (!repo.files.some((f) => /^licen[cs]e(?:[.\-_].*)?$/i.test(f))) out.push(missing('LICENSE'));
  if (!repo.has('evals/evals.json')) out.push(missing('evals/evals.json'));
  if (!repo.hasDir('tests') && !repo.hasDir('test')) out.push(missing('tests/'));
  const typescript = repo.under('src').some((f) => /\.(?:ts|tsx|mts|cts)$/.test(f) && !/\.d\.[cm]?ts$/.test(f));
  if (typescript && !repo.has('tsconfig.json')) out.push(missing('tsconfig.json'));
  return out;
}

function fieldFindings(repo: RepoFacts, file: string, o: Record<string, unknown>, fields: string[]): Finding[] {
  return fields
    .filter((field) => isMissing(get(o, field)))
    .map((field) => ({
      messageId: 'missing-field',
      data: { file, field },
      location: { file, line: repo.keyLine(file, field.split('.')[0]!) ?? 1 },
    }));
}

function readmeFindings(repo: RepoFacts): Finding[] {
  const file = readmeFile(repo);
  if (!file) return [];
  const t = repo.text(file);
  if (!t.ok) return [];
  const headings = level2Headings(t.value).map((h) => h.text);
  return README_SECTIONS.filter((r) => !headings.some((h) => SECTION_RE.get(r.section)!.test(h))).map((r) => ({
    messageId: 'readme-missing-section',
    data: { file, section: r.section, accepted: r.accepted.join(', ') },
    location: { file, line: 1 },
  }));
}

const NON_CONFORMING = new Set(['version-mismatch', 'min-protocol-version']);

export default [
  defineDetector({
    ruleId: 'C-18',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'missing-entry': ['entry'],
      'missing-field': ['file', 'field'],
      'min-protocol-version': ['file', 'value', 'floor'],
      'version-mismatch': ['manifest', 'manifestVersion', 'package', 'packageVersion'],
      'readme-missing-section': ['file', 'section', 'accepted'],
    },
    judge({ inputs: { repo }, kind }): Verdict {
      const manifest = kind === 'extension' ? 'extension.json' : 'mcp.json';
      // A Python object carries pyproject.toml in place of package.json; its fields are not read here.
      const python = !repo.has('package.json') && repo.has('pyproject.toml');
      const findings: Finding[] = treeFindings(repo, manifest, python ? 'pyproject.toml' : 'package.json');
      const blocked: Failed[] = [];

      let pkgVersion: unknown;
      if (repo.has('package.json')) {
        const pj = repo.object('package.json');
        if (!pj.ok) blocked.push(pj);
        else {
          findings.push(...fieldFindings(repo, 'package.json', pj.value, PACKAGE_FIELDS));
          pkgVersion = pj.value.version;
        }
      }

      if (repo.has(manifest)) {
        const m = repo.object(manifest);
        if (!m.ok) blocked.push(m);
        else {
          findings.push(...fieldFindings(repo, manifest, m.value, kind === 'extension' ? EXTENSION_FIELDS : MCP_FIELDS));
          if (kind !== 'extension') {
            const floor = m.value.minProtocolVersion;
            if (!isMissing(floor) && !(typeof floor === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(floor) && floor >= PROTOCOL_FLOOR)) {
              findings.push({
                messageId: 'min-protocol-version',
                data: { file: manifest, value: typeof floor === 'string' ? floor : JSON.stringify(floor), floor: PROTOCOL_FLOOR },
                location: { file: manifest, line: repo.keyLine(manifest, 'minProtocolVersion') ?? 1 },
              });
            }
          }
          const version = m.value.version;
          if (!isMissing(version) && !isMissing(pkgVersion) && version !== pkgVersion) {
            findings.push({
              messageId: 'version-mismatch',
              data: { manifest, manifestVersion: String(version), package: 'package.json', packageVersion: String(pkgVersion) },
              location: { file: manifest, line: repo.keyLine(manifest, 'version') ?? 1 },
            });
          }
        }
      }

      findings.push(...readmeFindings(repo));

      if (findings.length) {
        const state: State = findings.some((f) => NON_CONFORMING.has(f.messageId)) ? 'non-conforming' : 'absent';
        return { state, findings };
      }
      if (blocked.length) return unreadable(blocked[0]!);
      if (python) return couldNotJudge('pyproject-not-read', { file: 'pyproject.toml' });
      return present();
    },
  }),
];
