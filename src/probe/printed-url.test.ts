import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../engine/paths.js';
import { runCli } from '../../test/support/run.js';
import { printedHttpUrl, unreachableText } from './outcome.js';

/**
 * A stdio probe of a program that serves HTTP (the published MCP Apps examples do unless given --stdio) never
 * gets an answer; when the program printed where it listens, the refusal says so and names --url.
 */

describe('a silent stdio target that printed where it listens over HTTP', () => {
  it('finds the URL in a "listening on" line, and nothing in other lines', () => {
    assert.equal(printedHttpUrl(['MCP server listening on http://localhost:3001/mcp']), 'http://localhost:3001/mcp');
    assert.equal(printedHttpUrl(['Server running at https://127.0.0.1:8080/mcp.']), 'https://127.0.0.1:8080/mcp');
    assert.equal(printedHttpUrl(['see http://example.com/docs for help', 'hello']), undefined);
    assert.equal(printedHttpUrl(['listening on port 3001']), undefined);
  });

  it('the message quotes the URL inertly (it comes from the target)', () => {
    const text = unreachableText({ cause: 'timeout', command: 'x', printedUrl: 'http://a.example/\u001b[31m' }, 'en', (s) => JSON.stringify(s).replace(/\\u001b/g, '\\u{1B}'));
    assert.match(text, /It printed "http:\/\/a\.example\/.*" on stdout/);
    assert.ok(!text.includes('\u001b'));
  });

  for (const locale of ['en', 'fr']) {
    it(`probe -- <an App that serves HTTP>: exit 3, and the message names the address and --url (${locale})`, async () => {
      const app = join(packageRoot(), 'src', 'apps', 'fixtures', 'http-app', 'server.mjs');
      const r = await runCli(['probe', '--locale', locale, '--timeout-ms', '4000', '--', 'node', app]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /http:\/\/127\.0\.0\.1:\d+\/mcp on stdout|http:\/\/127\.0\.0\.1:\d+\/mcp sur stdout/);
      assert.match(r.stderr, /--url/);
      assert.match(r.stderr, locale === 'en' ? /It printed/ : /Il a écrit/);
    });
  }
});
