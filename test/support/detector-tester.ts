import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { loadCatalog } from '../../src/engine/catalog.js';
import { defaultConfig, loadConfig } from '../../src/engine/config.js';
import type { Detector } from '../../src/engine/detector.js';
import { judgeRule } from '../../src/engine/runner.js';
import { STATES, type State } from '../../src/engine/types.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { loadPythonParser } from '../../src/facts/python-source.js';
import { SessionFacts } from '../../src/facts/session.js';
import type { RecordedSession } from '../../src/probe/session.js';
import { packageRoot, sourceDirOf } from '../../src/engine/paths.js';

/**
 * The detector tester (after ESLint's RuleTester and Semgrep's fixture convention).
 * Fixtures are real little repositories in `<detector folder>/fixtures/<expected state>/<name>/`.
 * A fixture may hold `expect.json`: { "messages": [{ "messageId": "...", "file": "...", "line": 3 }], "reason": "code" },
 * and `"states": { "static": "non-conforming" }` when another part's truth differs from the folder's state.
 * — the test then pins message ids and locations, never wording.
 * The tester refuses a detector folder without at least one red (absent / non-conforming) and one green
 * (present) fixture.
 */

interface Expectation {
  messages?: { messageId: string; file?: string; line?: number }[];
  reason?: string;
  /** The state of another genre's part where it differs from the folder's (e.g. { "static": "non-conforming" }). */
  states?: Partial<Record<'static' | 'dynamic' | 'gate', State>>;
}

export interface FixtureCase {
  state: State;
  name: string;
  dir: string;
  expect?: Expectation;
}

export function fixtureCases(fixturesDir: string): FixtureCase[] {
  const out: FixtureCase[] = [];
  if (!existsSync(fixturesDir)) return out;
  for (const state of readdirSync(fixturesDir).sort()) {
    if (!(STATES as readonly string[]).includes(state)) throw new Error(`fixture folder ${state} is not a state name`);
    for (const name of readdirSync(join(fixturesDir, state)).sort()) {
      const dir = join(fixturesDir, state, name);
      const ef = join(dir, 'expect.json');
      out.push({ state: state as State, name, dir, expect: existsSync(ef) ? JSON.parse(readFileSync(ef, 'utf8')) : undefined });
    }
  }
  return out;
}

/** A fixture that is a live server: `server.mjs`, a `probe.json` command, or a recorded `session.json`. */
export const isServerFixture = (dir: string): boolean =>
  ['server.mjs', 'probe.json', 'session.json'].some((f) => existsSync(join(dir, f)));

/** Judge one rule statically on a folder with the given detectors. */
export function judgeFolder(ruleId: string, detectors: readonly Detector[], dir: string) {
  const rule = loadCatalog().byId.get(ruleId);
  assert.ok(rule, `rule ${ruleId} is in the catalog`);
  let config = defaultConfig();
  if (existsSync(join(dir, '.mcp-doctor.json'))) config = loadConfig(dir).config;
  const repo = RepoFacts.gather(dir, config.ignorePaths);
  const kind = config.targetKind ?? repo.kind();
  const sessionFile = join(dir, 'session.json');
  const session = existsSync(sessionFile)
    ? { ok: true as const, value: new SessionFacts(JSON.parse(readFileSync(sessionFile, 'utf8')) as RecordedSession) }
    : { ok: false as const, reason: { code: 'needs-session' } };
  const result = judgeRule(rule, detectors, { repo: { ok: true, value: repo }, session }, config, kind);
  const staticPart = result.parts.find((p) => p.genre === 'static');
  return { result, staticPart };
}

/**
 * The static part of one rule on a folder, summed up for a deep comparison: state, reason id and each finding as
 * [message id, tool, ...the extra data keys asked for, file:line].
 */
export function staticSummary(ruleId: string, detector: Detector, dir: string, extraKeys: readonly string[] = []) {
  const { staticPart } = judgeFolder(ruleId, [detector], dir);
  assert.ok(staticPart);
  return {
    state: staticPart.state,
    reason: staticPart.reason?.code,
    findings: staticPart.findings.map((f) => [f.messageId, f.data?.tool ?? null, ...extraKeys.map((k) => f.data?.[k] ?? null), `${f.location?.file}:${f.location?.line}`]),
  };
}

/**
 * Run every fixture of a detector folder. `moduleUrl` is the test file's import.meta.url.
 * The state asserted is the state of the detector's own genre part (static), so a rule whose other
 * parts are judged elsewhere can still be tested here.
 */
export function testDetectorFolder(
  ruleId: string,
  detectors: readonly Detector[],
  moduleUrl: string,
  opts: { skipServerFixtures?: boolean; skipPythonFixtures?: boolean } = {},
): void {
  const dir = sourceDirOf(moduleUrl);
  const genre = detectors[0]!.genre;
  // A dynamic detector is judged on the fixtures that are servers (or carry a recorded session); plain
  // repository fixtures of a static detector in the same folder are not its cases. A static detector
  // added beside a dynamic one may leave the recorded servers out (skipServerFixtures): their expect.json
  // pins the dynamic part's message ids and reasons. Gate fixtures (gate.json) are test/support/gate-tester.ts's. Likewise a TypeScript static detector may leave out
  // the `py-*` fixtures of a Python part in the same folder (skipPythonFixtures; see python-tester.ts).
  const cases = fixtureCases(join(dir, 'fixtures')).filter(
    (c) =>
      !existsSync(join(c.dir, 'gate.json')) &&
      (genre !== 'dynamic' || isServerFixture(c.dir)) &&
      !(opts.skipServerFixtures && isServerFixture(c.dir)) &&
      !(opts.skipPythonFixtures && c.name.startsWith('py-')),
  );
  describe(`${ruleId} (${genre}) fixtures`, () => {
    before(async () => { await loadPythonParser(); });
    it('has at least one red and one green fixture', () => {
      assert.ok(cases.some((c) => c.state === 'present'), `${ruleId}: no fixtures/present/* case`);
      assert.ok(cases.some((c) => c.state === 'absent' || c.state === 'non-conforming'), `${ruleId}: no red fixture`);
    });
    for (const c of cases) {
      it(`${c.state}/${c.name}`, () => {
        const { result } = judgeFolder(ruleId, detectors, c.dir);
        const part = result.parts.find((p) => p.genre === genre);
        assert.ok(part, 'the detector part was judged');
        // A fixture judged by two parts whose truths differ names the other part's state in expect.json (`states`).
        const other = c.expect?.states?.[genre];
        const want = other ?? c.state;
        assert.equal(part.state, want, `state of ${relative(packageRoot(), c.dir)}: ${JSON.stringify(part)}`);
        if (want === 'could-not-judge' || want === 'not-applicable') assert.ok(part.reason?.code, 'a reason is given');
        if (!other && c.expect?.reason) assert.equal(part.reason?.code, c.expect.reason);
        if (want === 'absent' || want === 'non-conforming') assert.ok(part.findings.length > 0, 'a red verdict carries findings');
        if (!other && c.expect?.messages) {
          const got = part.findings.map((f) => ({
            messageId: f.messageId,
            ...(c.expect!.messages!.some((m) => m.file !== undefined) ? { file: f.location?.file } : {}),
            ...(c.expect!.messages!.some((m) => m.line !== undefined) ? { line: f.location?.line } : {}),
          }));
          assert.deepEqual(got, c.expect.messages);
        }
      });
    }
  });
}
