import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import staticPart from './static.js';
import { sourceDirOf } from '../../engine/paths.js';
import { fixtureCases, judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testMarkers } from '../../../test/support/markers.js';

// The py-* fixtures belong to the Python part (X-6-python.test.ts); recorded servers would belong to a dynamic part.
testDetectorFolder('X-6', [staticPart], import.meta.url, { skipServerFixtures: true, skipPythonFixtures: true });
testMarkers('X-6', [staticPart], import.meta.url);

describe('X-6 (static, TypeScript) on the Python part’s fixtures', () => {
  for (const c of fixtureCases(join(sourceDirOf(import.meta.url), 'fixtures')).filter((x) => x.name.startsWith('py-'))) {
    it(`${c.state}/${c.name} is left to the Python part`, () => {
      const part = judgeFolder('X-6', [staticPart], c.dir).result.parts.find((p) => p.genre === 'static');
      assert.equal(part?.state, 'not-applicable', JSON.stringify(part));
      assert.equal(part?.reason?.code, 'no-js-source');
    });
  }
});
