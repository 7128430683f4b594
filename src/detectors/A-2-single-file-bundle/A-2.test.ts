import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// The static part reads the built View (plain repository fixtures); the dynamic part judges the recorded host harness run of the fixture Apps.
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);

describe('A-2 (static) on the React fixture App', () => {
  it('the Vite + vite-plugin-singlefile bundle (with its inert module-preload polyfill) is one file', () => {
    const dir = join(sourceDirOf(import.meta.url), '..', 'A-3-sandbox', 'fixtures', 'present', 'react-tasks');
    const part = judgeFolder('A-2', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});
