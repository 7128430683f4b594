import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import detectors from './index.js';
import { sourceDirOf } from '../../engine/paths.js';
import { combine } from '../../engine/runner.js';
import { loadPythonParser } from '../../facts/python-source.js';
import { judgeFolder } from '../../../test/support/detector-tester.js';

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');

/**
 * X-1 lets its live part decide (combine: live-decides): servers whose texts are computed from a catalogue
 * file cannot be read from the source, but the running server serves every text, and that is what the
 * model reads.
 */
describe('X-1: the live part decides over computed texts', () => {
  before(async () => {
    await loadPythonParser();
  });
  it('clean served texts make the rule present although the source part could not judge', () => {
    const { result } = judgeFolder('X-1', detectors, join(fixtures, 'present', 'computed-descriptions-served-clean'));
    const stat = result.parts.find((p) => p.genre === 'static' && p.state !== 'not-applicable');
    assert.deepEqual([stat?.state, stat?.reason?.code], ['could-not-judge', 'descriptions-not-literal']);
    assert.equal(result.parts.find((p) => p.genre === 'dynamic')?.state, 'present');
    assert.equal(result.state, 'present');
    // The same parts under the default combination stay unjudged: the catalogue field is what decides.
    assert.equal(combine(result.parts, 'any-unjudged').state, 'could-not-judge');
  });
  it('poisoned served texts make it red, with the live findings', () => {
    const { result } = judgeFolder('X-1', detectors, join(fixtures, 'non-conforming', 'computed-descriptions-served-poisoned'));
    assert.equal(result.state, 'non-conforming');
    assert.deepEqual(result.findings.map((f) => f.messageId), ['credential-reference', 'model-directive']);
  });
  it('a file tool naming .env as an example is clean in the source and on the wire', () => {
    const { result } = judgeFolder('X-1', detectors, join(fixtures, 'present', 'file-search-examples'));
    assert.deepEqual(result.parts.filter((p) => p.state !== 'not-applicable').map((p) => [p.genre, p.state]), [['static', 'present'], ['dynamic', 'present']]);
  });
  it('a listing the probe could not read to its end decides nothing', () => {
    const { result } = judgeFolder('X-1', detectors, join(fixtures, 'could-not-judge', 'truncated-listing'));
    assert.equal(result.parts.find((p) => p.genre === 'dynamic')?.reason?.code, 'served-list-incomplete');
    assert.equal(result.state, 'could-not-judge');
  });
});
