import assert from 'node:assert/strict';
import { it } from 'node:test';
import detectors, { instructionLike } from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks, testPythonLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('C-16', detectors, import.meta.url);
testLineMarks('C-16', detectors, import.meta.url);
testPythonLineMarks('C-16', detectors, import.meta.url);

it('C-16 instruction phrases', () => {
  assert.ok(instructionLike('Follow these steps before opening a pull request:'));
  assert.ok(instructionLike('You must run the commands below'));
  assert.ok(instructionLike('Instructions: '));
  assert.ok(!instructionLike('Found 3 results for '));
  assert.ok(!instructionLike('Page title: '));
});
