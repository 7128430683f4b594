import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { citedRatios } from '../../facts/gate.js';
import { testGateFolder } from '../../../test/support/gate-tester.js';

testGateFolder('C-22', detectors, import.meta.url);

describe('C-22 ratios and run identifiers', () => {
  it('finds ratios in English and French, badges included, and leaves fenced code out', () => {
    const text = [
      'Couverture : 88 % (exécution https://github.com/a/b/actions/runs/123456789).',
      '',
      '```',
      'coverage 10 %',
      '```',
      '',
      '![coverage](https://img.shields.io/badge/coverage-75%25-green)',
      '',
      'Une phrase sans chiffre.',
    ].join('\n');
    const got = citedRatios('README.fr.md', text).map((r) => ({ line: r.line, runs: r.runs }));
    assert.deepEqual(got, [
      { line: 1, runs: [{ repository: 'a/b', id: '123456789' }] },
      { line: 7, runs: [] },
    ]);
  });
  it('does not take a version or a date for a ratio', () => {
    assert.deepEqual(citedRatios('CHANGELOG.md', '## 1.2.0 — 2026/12/01\n\n- 3 fixes, 20 % faster startup.\n'), []);
  });
});
