import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import staticPart from './static.js';
import { matchShape, SECRET_SHAPES, SHAPE_MARKERS } from './patterns.js';
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

describe('X-6 shape markers', () => {
  // One made-up value per shape (built by concatenation: no token-looking literal in this file).
  const examples: Record<string, string> = {
    '\\b(?:AKIA|ASIA)': 'key=' + 'AKIA' + 'Q'.repeat(16),
    '\\bgh[pousr]_': 'ghp_' + 'a1'.repeat(18),
    '\\bgithub_pat_': 'github_pat_' + 'b2'.repeat(11) + '_' + 'c'.repeat(59),
    '\\bxox[abpr]-': 'xoxb-' + '7654321' + '-' + 'k3m9p2q7r8',
    '\\b[rs]k_live_': 'sk_live_' + 'd4'.repeat(12),
    '\\bAIza': 'AIza' + 'e'.repeat(35),
    '\\bsk-(?:proj-': 'sk-proj-' + 'f'.repeat(16) + 'T3BlbkFJ' + 'g'.repeat(16),
    '\\bsk-ant-': 'sk-ant-api03-' + 'h'.repeat(80),
    '-----BEGIN': '-----BEGIN ' + 'PRIVATE KEY-----\n' + 'M'.repeat(40),
    '\\beyJ': 'eyJ' + 'i'.repeat(10) + '.eyJ' + 'j'.repeat(10) + '.' + 'k'.repeat(16),
  };
  it('every shape has an example that it matches and that the marker scan lets through', () => {
    for (const s of SECRET_SHAPES) {
      const key = Object.keys(examples).find((k) => s.re.source.startsWith(k));
      assert.ok(key, `no example for the shape ${s.re.source}`);
      const text = examples[key!]!;
      assert.ok(s.re.test(text), `${s.id}: the example does not match ${s.re.source}`);
      assert.ok(SHAPE_MARKERS.test(text), `${s.id}: SHAPE_MARKERS would skip ${text}`);
      assert.ok(matchShape(text), `${s.id}: matchShape misses it`);
    }
  });
  it('a text without any marker matches no shape', () => {
    assert.equal(matchShape('an ordinary description of a tool, 1234567890'), undefined);
  });
});
