import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { derivedFigures, figuresOf, summarisesData } from './dynamic.js';

// The figures a summary derives from a result's data (A-1 dynamic): the recorded fixtures heatmap-derived-summary and
// heatmap-fixed-caption judge the whole; these pin the readings they rest on.
describe('A-1 dynamic: a summary built from the data', () => {
  it('reads figures as a text writes them', () => {
    assert.deepEqual(figuresOf('7,532 users, 47% on average, 3D, 12.5 kg, 2026'), [
      { value: 7532, decimals: 0 },
      { value: 47, decimals: 0 },
      { value: 12.5, decimals: 1 },
      { value: 2026, decimals: 0 },
    ]);
  });
  it('derives counts, ranges, totals, means and shares from the data', () => {
    const d = derivedFigures({ cohorts: [{ users: 1000, values: [1, 0.5] }, { users: 2000, values: [1, 0.4] }] });
    for (const x of [2, 3000, 1500, 50, 40, 45]) assert.ok(d.some((v) => Math.abs(v - x) < 1e-9), `${x} is derived`);
  });
  it('a figure rounded from the data stands for it; one of the input, or 0 and 1, does not', () => {
    const data = { rows: [{ share: 0.4712 }, { share: 0.3861 }, { share: 0.2 }] };
    assert.equal(summarisesData('Three rows, from 20% to 47%.', data, {}), true);
    assert.equal(summarisesData('Showing 3 rows.', data, {}), true);
    assert.equal(summarisesData('Showing 3 rows.', data, { limit: 3 }), false);
    assert.equal(summarisesData('Displayed 1 chart.', data, {}), false);
    assert.equal(summarisesData('Displayed the chart in 3D.', data, {}), false);
  });
});
