import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import type { GateFacts } from '../../facts/gate.js';
import type { RepoFacts } from '../../facts/repo.js';

/**
 * C-17 — supply chain, the provenance half at the gate (`mcp-doctor gate`).
 *  - The version is already on the registry (its metadata lists it): the registry must record a provenance
 *    attestation for it (`dist.attestations.provenance`). None: red. One recorded: verified below — never a
 *    pass on the registry's word alone.
 *  - The version is not on the registry yet (first publication, or a new version): a release workflow under
 *    .github/workflows must publish with provenance — `npm publish` with `--provenance` (or
 *    NPM_CONFIG_PROVENANCE=true, or publishConfig.provenance in package.json) and the `id-token: write`
 *    permission the attestation needs.
 *  - Recorded: the attestation is verified (facts/provenance.ts: Sigstore with @sigstore/verify, the trusted
 *    root of @sigstore/tuf's seed, the subject = this package@version with the sha512 of dist.integrity).
 *    Verified: green; failed: red with the cause; no trust material, a stale one, or the attestation document
 *    not reachable: could-not-judge with the reason. A workflow that publishes without it: red at its publish line; no
 *    workflow that publishes: red.
 *  - Registry metadata not read (offline, unreachable): could-not-judge with the reason.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

const PUBLISH = /^(?!\s*#).*\b(?:npm|pnpm|yarn)\s+publish\b.*$/m;
const PROVENANCE = /--provenance\b|NPM_CONFIG_PROVENANCE\s*[:=]\s*['"]?true/i;
const ID_TOKEN = /\bid-token\s*:\s*write\b/;

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

function judgeWorkflows(name: string, version: string, repo: RepoFacts | undefined): Verdict {
  if (!repo) return couldNotJudge('needs-repo');
  const pj = repo.object('package.json');
  const configProvenance = pj.ok && obj(pj.value.publishConfig)?.provenance === true;
  const workflows = repo.under('.github/workflows').filter((f) => /\.ya?ml$/.test(f)).sort();
  const publishing: { file: string; line: number; ok: boolean }[] = [];
  for (const wf of workflows) {
    const t = repo.text(wf);
    if (!t.ok) return couldNotJudge('file-not-read', { file: wf, cause: 'unreadable' });
    const m = PUBLISH.exec(t.value);
    if (!m) continue;
    const withProvenance = configProvenance || PROVENANCE.test(t.value);
    publishing.push({ file: wf, line: lineAt(t.value, m.index), ok: withProvenance && ID_TOKEN.test(t.value) });
  }
  if (publishing.some((p) => p.ok)) return present();
  if (publishing.length === 0) {
    return { state: 'absent', findings: [{ messageId: 'no-release-workflow', data: { name, version }, location: { file: 'package.json', line: repo.keyLine('package.json', 'name') ?? 1 } }] };
  }
  return {
    state: 'non-conforming',
    findings: publishing.map((p) => ({ messageId: 'publish-without-provenance', data: { name, file: p.file }, location: { file: p.file, line: p.line } })),
  };
}

export function judgeProvenance(gate: GateFacts, repo?: RepoFacts): Verdict {
  const name = gate.name;
  const version = gate.version;
  if (!name) return couldNotJudge('no-package-name', { file: 'package.json' });
  if (!version) return couldNotJudge('no-package-version', { file: 'package.json' });
  if (!gate.registry.ok) return { state: 'could-not-judge', findings: [], reason: gate.registry.reason };
  const published = obj(obj(gate.registry.value.packument?.versions)?.[version]);
  if (!published) return judgeWorkflows(name, version, repo);
  const att = obj(obj(published.dist)?.attestations);
  if (!att || !obj(att.provenance)) {
    return {
      state: 'absent',
      findings: [{ messageId: 'published-without-provenance', data: { name, version }, location: { file: 'package.json', line: repo?.keyLine('package.json', 'version') ?? 1 } }],
    };
  }
  const url = typeof att.url === 'string' ? att.url : '';
  const p = gate.provenance;
  if (!p) return couldNotJudge('attestation-not-verified', { name, version, url });
  if (!p.ok) return { state: 'could-not-judge', findings: [], reason: p.reason };
  if (p.value.verified) return { state: 'present', findings: [], reason: { code: 'provenance-verified', data: { name, version, identity: p.value.identity ?? '' } } };
  return {
    state: 'non-conforming',
    findings: [
      {
        messageId: 'provenance-not-verified',
        data: { name, version, failure: (p.value.failure ?? 'signature').replace(/-/g, '_') },
        location: { file: 'package.json', line: repo?.keyLine('package.json', 'version') ?? 1 },
        ...(p.value.detail ? { evidence: p.value.detail } : {}),
      },
    ],
  };
}

export default [
  defineDetector({
    ruleId: 'C-17',
    genre: 'gate',
    needs: ['gate'],
    wants: ['repo'],
    messages: {
      'no-release-workflow': ['name', 'version'],
      'publish-without-provenance': ['name', 'file'],
      'published-without-provenance': ['name', 'version'],
      'provenance-not-verified': ['name', 'version', 'failure'],
    },
    judge: ({ inputs }) => judgeProvenance(inputs.gate, inputs.repo),
  }),
];
