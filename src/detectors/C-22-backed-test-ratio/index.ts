import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Reason } from '../../engine/types.js';
import { citedRatios, RATIO_DOCUMENTS, runKey, type CitedRatio } from '../../facts/gate.js';

/**
 * C-22 — test ratios backed by an automated run (gate). Reads README.md, README.fr.md and CHANGELOG.md (fenced
 * code left out) for test or coverage ratios ("142/142 tests", "coverage 86 %", a coverage badge, their French
 * forms). Each ratio must have, in its paragraph, the identifier of an automated run (a GitHub Actions run URL,
 * or "run 123456789" for this repository), and that run must resolve: `mcp-doctor gate` asks the GitHub API
 * with the job's token whether it exists, belongs to this repository and has finished (the current run
 * counts). A ratio without a run identifier, or whose runs are unknown, of another repository or unfinished:
 * red, at its line. A run that could not be asked (no token, not in GitHub Actions, offline): could-not-judge.
 * No ratio cited: nothing to back, present.
 */

export default [
  defineDetector({
    ruleId: 'C-22',
    genre: 'gate',
    needs: ['gate', 'repo'],
    messages: {
      'ratio-without-run': ['ratio', 'file'],
      'run-not-resolved': ['ratio', 'run', 'outcome'],
    },
    judge({ inputs: { gate, repo } }) {
      const ratios: CitedRatio[] = [];
      for (const f of RATIO_DOCUMENTS) {
        if (!repo.has(f)) continue;
        const t = repo.text(f);
        if (!t.ok) return couldNotJudge('file-not-read', { file: f, cause: 'unreadable' });
        ratios.push(...citedRatios(f, t.value));
      }
      const findings: Finding[] = [];
      let unjudged: Reason | undefined;
      for (const r of ratios) {
        const at = { file: r.file, line: r.line };
        if (r.runs.length === 0) {
          findings.push({ messageId: 'ratio-without-run', data: { ratio: r.text, file: r.file }, location: at, evidence: r.text });
          continue;
        }
        const checks = r.runs.map((run) => {
          const repository = run.repository ?? gate.ci.repository;
          return repository ? gate.runs.get(runKey(repository, run.id)) : undefined;
        });
        if (checks.some((c) => c?.outcome === 'resolved')) continue;
        const bad = checks.find((c) => c && (c.outcome === 'not-found' || c.outcome === 'other-repository' || c.outcome === 'unfinished'));
        if (bad) {
          findings.push({ messageId: 'run-not-resolved', data: { ratio: r.text, run: `${bad.repository}#${bad.id}`, outcome: bad.outcome }, location: at, evidence: r.text });
          continue;
        }
        const first = checks.find((c) => c);
        unjudged ??= first
          ? { code: 'run-not-checked', data: { run: `${first.repository}#${first.id}`, why: first.outcome, detail: first.detail ?? '' } }
          : { code: 'run-repository-unknown', data: { run: r.runs[0]!.id, file: r.file } };
      }
      if (findings.length) return { state: 'non-conforming', findings };
      if (unjudged) return { state: 'could-not-judge', findings: [], reason: unjudged };
      return present();
    },
  }),
];
