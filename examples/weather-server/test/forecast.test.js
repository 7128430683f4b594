import assert from 'node:assert/strict';
import test from 'node:test';

test('placeholder kept with the example: run the server with `npm run build && node dist/index.js`', () => {
  assert.ok(true);
});
