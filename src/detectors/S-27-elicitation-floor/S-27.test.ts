import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';
import { testLineMarks } from '../../../test/support/line-marks.js';

testDetectorFolder('S-27', detectors, import.meta.url, { skipServerFixtures: true });
testLineMarks('S-27', detectors, import.meta.url, { skipServerFixtures: true });

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sensitiveName, sensitiveText } from './index.js';

it('S-27 names and texts of sensitive fields', () => {
  assert.equal(sensitiveName('apiKey'), 'api_key');
  assert.equal(sensitiveName('github_token'), 'token');
  assert.equal(sensitiveName('maxTokens'), undefined);
  assert.equal(sensitiveName('creditCardNumber'), 'card_number');
  assert.equal(sensitiveName('healthCheckUrl'), undefined);
  assert.equal(sensitiveName('email'), undefined);
  assert.equal(sensitiveText('Your personal access token'), 'token');
  assert.equal(sensitiveText('How many tokens to keep'), undefined);
});
