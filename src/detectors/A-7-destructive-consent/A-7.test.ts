import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// Both parts judge the same fixture Apps: the dynamic part their recorded rendering, the static part the
// View's source against the annotations of the server's code.
testDetectorFolder('A-7', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-7', detectors.filter((d) => d.genre === 'static'), import.meta.url);

describe('A-7 (static) on the React fixture App', () => {
  it('a delete behind the confirmation dialog state is green', () => {
    const dir = join(sourceDirOf(import.meta.url), '..', 'A-3-sandbox', 'fixtures', 'present', 'react-tasks');
    const part = judgeFolder('A-7', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});
