import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { sourceDirOf } from '../../engine/paths.js';
import { fixtureCases, judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkedLines } from '../../../test/support/marked-lines.js';

testDetectorFolder('X-4', detectors, import.meta.url, { skipPythonFixtures: true });
testMarkedLines('X-4', detectors, import.meta.url);

// The py-* fixtures belong to the Python part (python.ts): this part leaves them to it.
describe('X-4 (static, JavaScript/TypeScript) on the Python fixtures', () => {
  for (const c of fixtureCases(join(sourceDirOf(import.meta.url), 'fixtures')).filter((c) => c.name.startsWith('py-'))) {
    it(`${c.state}/${c.name} is not-applicable (no-js-source)`, () => {
      const part = judgeFolder('X-4', detectors, c.dir).result.parts.find((p) => p.genre === 'static');
      assert.equal(part?.state, 'not-applicable');
      assert.equal(part?.reason?.code, 'no-js-source');
    });
  }
});
