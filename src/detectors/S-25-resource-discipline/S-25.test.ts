import assert from 'node:assert/strict';
import { it } from 'node:test';
import detectors, { schemeProblem } from './index.js';
import { join } from 'node:path';
import { sourceDirOf } from '../../engine/paths.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('S-25', detectors, import.meta.url);
testLineMarks('S-25', detectors, import.meta.url);

it('S-25 schemes per RFC 3986', () => {
  assert.equal(schemeProblem('notes://{id}'), undefined);
  assert.equal(schemeProblem('my-app+v1.x://a'), undefined);
  assert.equal(schemeProblem('file:///srv/{+path}'), undefined);
  assert.deepEqual(schemeProblem('my_app://a'), { kind: 'invalid', scheme: 'my_app' });
  assert.deepEqual(schemeProblem('1app://a'), { kind: 'invalid', scheme: '1app' });
  assert.deepEqual(schemeProblem('config/app'), { kind: 'none', scheme: '' });
  assert.equal(schemeProblem('{uri}'), undefined);
});

it('S-25 Python: an unsound URI check names the line of the check, not the line of the call it fails to guard', () => {
  const dir = join(sourceDirOf(import.meta.url), 'fixtures', 'non-conforming', 'py-gallery-blobs');
  const { staticPart } = judgeFolder('S-25', detectors, dir);
  const f = staticPart?.findings?.find((x) => x.messageId === 'uri-check-unsound');
  assert.ok(f, 'uri-check-unsound found');
  // server.py: the raw `".." in name` check is on line 14, the open() it lets through on line 16.
  assert.equal(f.location?.line, 16);
  assert.equal(f.data?.guardLine, 14);
});
