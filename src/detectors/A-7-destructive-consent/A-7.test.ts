import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

describe('A-7 on a View that calls no server tool', () => {
  const dir = join(sourceDirOf(import.meta.url), 'fixtures', 'not-applicable', 'clock-view');
  it('the dynamic part is not-applicable on the served code and the recorded traffic', () => {
    const part = judgeFolder('A-7', detectors.filter((d) => d.genre === 'dynamic'), dir).result.parts.find((p) => p.genre === 'dynamic');
    assert.equal(part?.state, 'not-applicable', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'view-calls-no-tool');
    assert.equal(part?.reason?.data?.evidence, 'code');
  });
  it('the static part reads the built bundle (no View source in the package) and finds no call', () => {
    const part = judgeFolder('A-7', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'not-applicable', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'no-tool-call-in-view');
  });
});

describe('A-7 (static) on a published-package shape: the built React bundle only', () => {
  const judgeBundleOnly = (fixture: string[], bundle: string) => {
    const src = join(sourceDirOf(import.meta.url), '..', ...fixture);
    const dir = mkdtempSync(join(tmpdir(), 'a7-bundle-'));
    try {
      cpSync(join(src, 'package.json'), join(dir, 'package.json'));
      cpSync(join(src, 'server.mjs'), join(dir, 'server.mjs'));
      mkdirSync(join(dir, 'dist'));
      cpSync(join(src, 'dist', bundle), join(dir, 'dist', bundle));
      return judgeFolder('A-7', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it('a delete rendered only under the confirmation state (compiled JSX) is green', () => {
    const part = judgeBundleOnly(['A-3-sandbox', 'fixtures', 'present', 'react-tasks'], 'index.html');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});
