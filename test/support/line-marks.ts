import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Detector } from '../../src/engine/detector.js';
import { sourceDirOf } from '../../src/engine/paths.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { sourceFilesOf } from '../../src/facts/ts-source.js';
import { loadPythonParser } from '../../src/facts/python-source.js';
import { fixtureCases, isServerFixture, judgeFolder } from './detector-tester.js';

/**
 * Semgrep-style line marks in source fixtures, checked against a static detector's findings:
 * `// ruleid: <ID>` on the line above each line that must carry a finding, `// ok: <ID>` above a line
 * that must carry none. Only fixtures with JS/TS source take part (HTTP probe fixtures have none). Findings located
 * in a JSON document are left to the fixture's expect.json.
 * `skipServerFixtures` leaves out the live servers of a dynamic part in the same folder (server.mjs,
 * session.json), whose own markers, if any, belong to that part.
 */
export function testLineMarks(ruleId: string, detectors: readonly Detector[], moduleUrl: string, opts: { skipServerFixtures?: boolean } = {}): void {
  const dir = sourceDirOf(moduleUrl);
  const genre = detectors[0]!.genre;
  const cases = fixtureCases(join(dir, 'fixtures'))
    .filter((c) => !(opts.skipServerFixtures && isServerFixture(c.dir)))
    .map((c) => ({ ...c, sources: sourceFilesOf(RepoFacts.gather(c.dir)) }))
    .filter((c) => c.sources.length > 0);
  const mark = new RegExp(`//\\s*(ruleid|ok):\\s*${ruleId.replace('-', '\\-')}\\b`);
  describe(`${ruleId} (${genre}) line marks`, () => {
    for (const c of cases) {
      it(`${c.state}/${c.name}`, () => {
        const want = new Set<string>();
        const quiet = new Set<string>();
        const { result } = judgeFolder(ruleId, detectors, c.dir);
        const part = result.parts.find((p) => p.genre === genre);
        // A finding located in a JSON data document (a row of an endpoint table, an OpenAPI operation) has no line to
        // mark, JSON carrying no comments: the fixture's expect.json names it instead.
        const got = new Set((part?.findings ?? []).filter((f) => !/\.json$/i.test(f.location?.file ?? '')).map((f) => `${f.location?.file}:${f.location?.line}`));
        // A followed dependency's files (node_modules/<name>/…, facts/published) carry marks too when a finding names them.
        const dependencyFiles = (part?.findings ?? []).map((f) => f.location?.file ?? '').filter((f) => f.startsWith('node_modules/') && existsSync(join(c.dir, f)));
        for (const rel of new Set([...c.sources, ...dependencyFiles])) {
          const lines = readFileSync(join(c.dir, rel), 'utf8').split('\n');
          lines.forEach((l, i) => {
            const m = mark.exec(l);
            if (m) (m[1] === 'ruleid' ? want : quiet).add(`${rel}:${i + 2}`);
          });
        }
        assert.deepEqual([...got].sort(), [...want].sort(), 'lines with findings = lines marked ruleid');
        for (const q of quiet) assert.ok(!got.has(q), `${q} is marked ok but carries a finding`);
      });
    }
  });
}

/**
 * The same check on the `py-` fixtures of a folder whose static part also reads Python: a line ending in
 * `# ruleid: <ID>` in a .py file must carry a finding and every finding must sit on such a line; a line
 * ending in `# ok: <ID>` must carry none.
 */
export function testPythonLineMarks(ruleId: string, detectors: readonly Detector[], moduleUrl: string): void {
  const dir = sourceDirOf(moduleUrl);
  const genre = detectors[0]!.genre;
  const mark = new RegExp(`#\\s*(ruleid|ok):\\s*${ruleId.replace('-', '\\-')}\\b`);
  const cases = fixtureCases(join(dir, 'fixtures')).filter((c) => c.name.startsWith('py-'));
  describe(`${ruleId} (${genre}) Python line marks`, () => {
    before(async () => {
      await loadPythonParser();
    });
    for (const c of cases) {
      it(`${c.state}/${c.name}`, () => {
        const want = new Set<string>();
        const quiet = new Set<string>();
        const repo = RepoFacts.gather(c.dir);
        for (const rel of repo.files.filter((f) => f.endsWith('.py'))) {
          readFileSync(join(c.dir, rel), 'utf8')
            .split('\n')
            .forEach((l, i) => {
              const m = mark.exec(l);
              if (m) (m[1] === 'ruleid' ? want : quiet).add(`${rel}:${i + 1}`);
            });
        }
        const { result } = judgeFolder(ruleId, detectors, c.dir);
        const part = result.parts.find((p) => p.genre === genre);
        // A finding located in a JSON data document (a row of an endpoint table, an OpenAPI operation) has no line to
        // mark, JSON carrying no comments: the fixture's expect.json names it instead.
        const got = new Set((part?.findings ?? []).filter((f) => !/\.json$/i.test(f.location?.file ?? '')).map((f) => `${f.location?.file}:${f.location?.line}`));
        assert.deepEqual([...got].sort(), [...want].sort(), 'lines with findings = lines marked ruleid');
        for (const q of quiet) assert.ok(!got.has(q), `${q} is marked ok but carries a finding`);
      });
    }
  });
}
