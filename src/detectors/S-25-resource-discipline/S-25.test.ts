import assert from 'node:assert/strict';
import { it } from 'node:test';
import detectors, { schemeProblem } from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
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
