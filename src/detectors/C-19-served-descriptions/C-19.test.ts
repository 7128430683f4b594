import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import dynamic from './dynamic.js';
import { sourceDirOf } from '../../engine/paths.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('C-19', [dynamic], import.meta.url);

describe('C-19 on descriptions that use "for", "use" and "if" without usage guidance', () => {
  it('names each tool whose description says only what it does, and spares the one that says when', () => {
    const { result } = judgeFolder('C-19', [dynamic], join(sourceDirOf(import.meta.url), 'fixtures/non-conforming/for-without-guidance'));
    const part = result.parts.find((p) => p.genre === 'dynamic');
    const tools = (part?.findings ?? []).filter((f) => f.messageId === 'no-when-to-use').map((f) => String(f.data?.tool));
    assert.deepEqual(tools.sort(), ['meteo', 'quote_lookup', 'shop_lookup', 'site_reader', 'web_lookup']);
  });
});
