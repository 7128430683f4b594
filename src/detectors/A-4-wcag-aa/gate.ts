import { fileNotReadData } from '../../facts/not-read.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';

/**
 * A-4 — WCAG AA checked in CI, the gate half: a repository whose own code registers an App (a call of
 * `registerAppTool(server, …)` or `registerAppResource(server, …)`, or a resource served with the MIME type
 * `text/html;profile=mcp-app`) must run axe-core in its CI: a workflow under .github/workflows that runs it
 * (`@axe-core/cli`, `axe-core`, `pa11y --runner axe`…) or a test of the repository that loads it (axe-core,
 * @axe-core/playwright / puppeteer / webdriverjs, jest-axe, vitest-axe, cypress-axe, axe-playwright). No App
 * registered in the own code: not applicable. A file that could not be read keeps the part could-not-judge.
 * Comment lines are left out (a comment that names registerAppTool registers nothing).
 */

const CODE = /\.(?:[cm]?[jt]sx?)$/i;
const TEST_FILE = /(^|\/)(test|tests|__tests__|e2e|spec|specs)\/|\.(test|spec|e2e)\.[cm]?[jt]sx?$/i;
const NOT_OWN = /(^|\/)(node_modules|fixtures|examples?)\//;
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
const REGISTERS_APP = /\bregisterApp(?:Tool|Resource)\s*\(\s*[\w.$]+\s*,|\bmimeType\s*:\s*(['"`])text\/html;profile=mcp-app\1/;
const AXE_PACKAGES = String.raw`axe-core|@axe-core\/[\w-]+|jest-axe|vitest-axe|cypress-axe|axe-playwright`;
const AXE_IMPORT = new RegExp(String.raw`(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)(['"\`])(?:${AXE_PACKAGES})(?:\/[\w./-]*)?\1`, 'm');
const AXE_IN_WORKFLOW = new RegExp(String.raw`^(?!\s*#).*(?:${AXE_PACKAGES}|\bpa11y(?:-ci)?\b.*\baxe\b|\bnpx\s+axe\b)`, 'm');

/** The text without its comment lines (`//`, `/*`, ` * `): what is documented is not what runs. */
const codeLines = (text: string): string => text.split('\n').map((l) => (/^\s*(?:\/\/|\/\*|\*)/.test(l) ? '' : l)).join('\n');

export function judgeAxeInCi(repo: RepoFacts): Verdict {
  let app: { file: string; line: number } | undefined;
  let axe = false;
  let unread: { file: string; cause: string; size?: number; limit?: number } | undefined;
  for (const wf of repo.under('.github/workflows').filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const t = repo.text(wf);
    if (!t.ok) unread ??= { file: wf, cause: 'unreadable' };
    else if (AXE_IN_WORKFLOW.test(t.value)) axe = true;
  }
  for (const file of repo.files.filter((f) => CODE.test(f) && !f.endsWith('.d.ts') && !NOT_OWN.test(f))) {
    const isTest = TEST_FILE.test(file);
    if (isTest && axe) continue;
    if (!isTest && app) continue;
    const r = repo.source(file, MAX_SOURCE_BYTES);
    if (!r.ok) {
      unread ??= { file, cause: r.cause, size: r.size, limit: r.limit };
      continue;
    }
    const code = codeLines(r.text);
    if (isTest) {
      if (AXE_IMPORT.test(code)) axe = true;
    } else {
      const m = REGISTERS_APP.exec(code);
      if (m) app = { file, line: code.slice(0, m.index).split('\n').length };
    }
  }
  if (app && axe) return present();
  if (app && !unread) return { state: 'absent', findings: [{ messageId: 'no-axe-in-ci', data: { file: app.file }, location: app }] };
  if (unread) return couldNotJudge('file-not-read', fileNotReadData(unread));
  return { state: 'not-applicable', findings: [], reason: { code: 'no-app-registered' } };
}

export default [
  defineDetector({
    ruleId: 'A-4',
    genre: 'gate',
    needs: ['gate', 'repo'],
    messages: { 'no-axe-in-ci': ['file'] },
    judge: ({ inputs }) => judgeAxeInCi(inputs.repo),
  }),
];
