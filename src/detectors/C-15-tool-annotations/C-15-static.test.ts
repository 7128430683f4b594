import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import staticPart from './static.js';
import { sourceDirOf } from '../../engine/paths.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

// The recorded servers of this folder belong to the dynamic part (their expect.json pins its message ids).
testDetectorFolder('C-15', [staticPart], import.meta.url, { skipServerFixtures: true });
testLineMarks('C-15', [staticPart], import.meta.url, { skipServerFixtures: true });

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');

describe('C-15 static: a deletion of a file the call did not create', () => {
  it('names, for each tool, the deletion that is not the cleanup of its own temp file', () => {
    const { staticPart: part } = judgeFolder('C-15', [staticPart], join(fixtures, 'non-conforming/deletes-files-it-did-not-create'));
    const got = (part?.findings ?? []).map((f) => `${String(f.data?.tool)} ${String(f.data?.call)} ${String(f.data?.file)}:${String(f.data?.line)}`);
    // reset_ledger: a local alias of the ledger; replace_ledger: a fixed name beside a fresh one; unlock: a
    // module-level lock; clear_socket: a unique-looking name nothing in the call wrote. The atomic save's
    // rm of its own temp file (dist/ledger.js:24, reached by add_rows and by none of these) is never named.
    assert.deepEqual(got.sort(), [
      'clear_socket rm dist/ledger.js:47',
      'replace_ledger unlink dist/ledger.js:41',
      'reset_ledger unlink dist/ledger.js:33',
      'unlock unlink dist/ledger.js:52',
    ]);
  });
});
