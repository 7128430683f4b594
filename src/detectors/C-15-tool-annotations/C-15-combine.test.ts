import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { sourceDirOf } from '../../engine/paths.js';
import { judgeFolder } from '../../../test/support/detector-tester.js';

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');

describe('C-15: one finding per defect per tool', () => {
  it('mistyped hints of a tool, read in the source and on the wire, are one finding at the source line', () => {
    const { result } = judgeFolder('C-15', detectors, join(fixtures, 'non-conforming', 'string-hints'));
    assert.deepEqual(
      result.parts.map((p) => [p.genre, p.findings.length]),
      [['static', 1], ['dynamic', 1]],
    );
    assert.deepEqual(
      result.findings.map((f) => [f.messageId, f.data?.tool, f.data?.hints, `${f.location?.file}:${f.location?.line}`]),
      [['hint-not-boolean-in-source', 'archive_note', 'readOnlyHint, destructiveHint', 'server.mjs:13']],
    );
  });
});
