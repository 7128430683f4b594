import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Detector } from '../../src/engine/detector.js';
import { sourceDirOf } from '../../src/engine/paths.js';
import { fixtureCases, judgeFolder } from './detector-tester.js';

/**
 * Line markers in JavaScript/TypeScript source fixtures, after Semgrep's test annotations: a comment
 * `// ruleid: X-4` at the end of the line where the rule must report, `// ok: X-4` at the end of a line
 * where it must not (Python fixtures carry `# ruleid:` markers, read by python-tester.ts). Several ids may be listed, comma-separated. The finding lines of a fixture must equal
 * its `ruleid:` lines exactly, and no finding may sit on an `ok:` line.
 */

const MARKER = /(?:\/\/|\/\*)\s*(ruleid|ok)\s*:\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)/g;
const TEXT_FILE = /\.[cm]?[jt]sx?$/;

export interface MarkedLines {
  /** `file:line` (file relative to the fixture, forward slashes) of lines that must fire. */
  ruleid: string[];
  /** `file:line` of lines that must not fire. */
  ok: string[];
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (TEXT_FILE.test(name)) out.push(p);
  }
  return out;
}

/** The marked lines of one fixture folder for one rule. */
export function markedLines(dir: string, ruleId: string): MarkedLines {
  const res: MarkedLines = { ruleid: [], ok: [] };
  for (const file of walk(dir)) {
    const rel = relative(dir, file).split('\\').join('/');
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        for (const m of text.matchAll(MARKER)) {
          const ids = m[2]!.split(',').map((s) => s.trim());
          if (ids.includes(ruleId)) res[m[1] as 'ruleid' | 'ok'].push(`${rel}:${i + 1}`);
        }
      });
  }
  return res;
}

/** Judge a fixture and compare the lines of its findings with its markers. Returns false when it carries none. */
export function assertMarkedLines(ruleId: string, detectors: readonly Detector[], dir: string): boolean {
  const marks = markedLines(dir, ruleId);
  if (marks.ruleid.length === 0 && marks.ok.length === 0) return false;
  const genre = detectors[0]!.genre;
  const { result } = judgeFolder(ruleId, detectors, dir);
  const part = result.parts.find((p) => p.genre === genre);
  const got = [...new Set((part?.findings ?? []).filter((f) => f.location?.line !== undefined).map((f) => `${f.location!.file}:${f.location!.line}`))].sort();
  assert.deepEqual(got, [...new Set(marks.ruleid)].sort(), `finding lines of ${dir} (state ${part?.state})`);
  const wrong = got.filter((l) => marks.ok.includes(l));
  assert.deepEqual(wrong, [], `findings on ok: lines of ${dir}`);
  return true;
}

/** Check the markers of every fixture of a detector folder. `moduleUrl` is the test file's import.meta.url. */
export function testMarkedLines(ruleId: string, detectors: readonly Detector[], moduleUrl: string): void {
  const cases = fixtureCases(join(sourceDirOf(moduleUrl), 'fixtures'));
  describe(`${ruleId} marked lines`, () => {
    it('some fixture carries markers', () => {
      assert.ok(cases.some((c) => markedLines(c.dir, ruleId).ruleid.length > 0), `${ruleId}: no ruleid: marker in any fixture`);
    });
    for (const c of cases) {
      const marks = markedLines(c.dir, ruleId);
      if (marks.ruleid.length === 0 && marks.ok.length === 0) continue;
      it(`${c.state}/${c.name}: findings on the ruleid lines only`, () => {
        assertMarkedLines(ruleId, detectors, c.dir);
      });
    }
  });
}
