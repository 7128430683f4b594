import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../engine/paths.js';
import { scrubbedEnv } from '../probe/env.js';
import { DEFAULT_HARNESS_LIMITS, runHarness } from './harness.js';

/**
 * A View of a few MB (issue 24): published viewers inline a chart or map library and its data into one file of
 * several MB. The View of this fixture is 4.3 MB — its resources/read answer is one stdio line longer than the
 * probe's 4 MiB message line — and it must be read and rendered. A View past the harness's resource limit is
 * `too-large`, and that limit is named in the record.
 */

const dir = join(sourceDirOf(import.meta.url), 'fixtures', 'big-view');
const target = { stdio: { command: process.execPath, args: ['server.mjs'], cwd: dir, env: scrubbedEnv({}) } };

describe('MCP Apps: a View of several MB', () => {
  it('a 4.3 MB single-file View is read and rendered', { timeout: 240_000 }, async () => {
    const rec = await runHarness({ target, era: 'legacy', exercise: [], limits: { settleMaxMs: 1500, maxControls: 1 } });
    assert.equal(rec.skipped, undefined, JSON.stringify(rec.skipped));
    const v = rec.views.find((x) => x.tool === 'show_points');
    assert.ok(v, JSON.stringify(rec.views.map((x) => x.tool)));
    assert.equal(v.read, 'ok', JSON.stringify({ read: v.read, detail: v.detail }));
    assert.ok((v.html?.bytes ?? 0) > 4.2e6, String(v.html?.bytes));
    assert.equal(v.outcome, 'rendered', JSON.stringify(v.detail));
  });

  it('past the resource limit, the View is too-large and the record names the limit', { timeout: 240_000 }, async () => {
    const rec = await runHarness({ target, era: 'legacy', exercise: [], limits: { maxResourceBytes: 2 * 1024 * 1024 } });
    const v = rec.views.find((x) => x.tool === 'show_points')!;
    assert.equal(v.read, 'too-large');
    assert.equal(v.limitBytes, 2 * 1024 * 1024);
    assert.ok(DEFAULT_HARNESS_LIMITS.maxResourceBytes >= 8 * 1024 * 1024, 'the default limit holds a View of several MB');
  });
});
