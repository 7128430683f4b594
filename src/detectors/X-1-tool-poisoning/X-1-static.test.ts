import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import detectors from './index.js';
import staticPart from './static.js';
import { sourceDirOf } from '../../engine/paths.js';
import { loadPythonParser } from '../../facts/python-source.js';
import { fixtureCases, judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

// The recorded servers belong to the dynamic part, the py-* fixtures to the Python part (python.ts).
testDetectorFolder('X-1', [staticPart], import.meta.url, { skipServerFixtures: true, skipPythonFixtures: true });
testLineMarks('X-1', [staticPart], import.meta.url, { skipServerFixtures: true });

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');

describe('X-1 (static, JavaScript/TypeScript) beside the Python part', () => {
  before(async () => {
    await loadPythonParser();
  });
  for (const c of fixtureCases(fixtures).filter((c) => c.name.startsWith('py-') && c.name !== 'py-mixed-languages')) {
    it(`${c.state}/${c.name} is not-applicable for this part (no-js-source)`, () => {
      const part = judgeFolder('X-1', [staticPart], c.dir).result.parts.find((p) => p.genre === 'static');
      assert.equal(part?.state, 'not-applicable');
      assert.equal(part?.reason?.code, 'no-js-source');
    });
  }
  it('a repository in both languages is judged on both: each static part reports its own file', () => {
    const { result } = judgeFolder('X-1', detectors, join(fixtures, 'non-conforming', 'py-mixed-languages'));
    const statics = result.parts.filter((p) => p.genre === 'static');
    assert.deepEqual(statics.map((p) => p.state), ['non-conforming', 'non-conforming']);
    assert.equal(result.state, 'non-conforming');
    assert.deepEqual([...new Set(result.findings.map((f) => f.location?.file))].sort(), ['server.py', 'src/server.ts']);
  });
});
