import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// The dynamic part judges the recorded renderings of the fixture Apps; the static part reads the markup of the
// plain repository fixtures (built bundle and JSX), the recorded servers' buttons being built by their scripts.
testDetectorFolder('A-4', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-4', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });

describe('A-4 (static) on the React fixture App', () => {
  it('its bundle markup and JSX name every control', () => {
    const dir = join(sourceDirOf(import.meta.url), '..', 'A-3-sandbox', 'fixtures', 'present', 'react-tasks');
    const part = judgeFolder('A-4', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});

describe('A-4 (static): a placeholder names a field as axe-core counts it', () => {
  it('an input or a text area with a non-empty placeholder is named; an empty one and a select are not', async () => {
    const { markupMisses } = await import('./static.js');
    const page = (body: string) => `<!doctype html><html lang="en"><head><title>t</title></head><body>${body}</body></html>`;
    assert.deepEqual(markupMisses(page('<input type="text" placeholder="Search"><textarea placeholder="Notes"></textarea>')), []);
    const misses = markupMisses(page('<input type="text" placeholder=" "><select placeholder="Pick"><option>a</option></select>'));
    assert.deepEqual(misses.map((m) => `${m.check} ${m.element}`), ['label <input>', 'label <select>']);
  });
});
