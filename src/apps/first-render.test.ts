import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sourceDirOf } from '../engine/paths.js';
import { scrubbedEnv } from '../probe/env.js';
import { runHarness, startHarnessBrowser, type HarnessBrowser } from './harness.js';

/**
 * The first-render figure from what the page shows (issue 24): the first contentful paint when there is
 * one (a WebGL scene), else the first paint, else the View's own first ui/notifications/size-changed — a chart
 * that draws nothing before its data still lays out and says so. A View that paints nothing and never says its
 * size gives no figure (A-5 then says could-not-judge apps-figure-missing).
 */

const fixtures = join(sourceDirOf(import.meta.url), '..', 'detectors', 'A-5-performance-budgets', 'fixtures');
const target = (dir: string) => ({ stdio: { command: process.execPath, args: ['server.mjs'], cwd: join(fixtures, dir), env: scrubbedEnv({}) } });

describe('MCP Apps: the first render of a View', () => {
  let hb: HarnessBrowser;
  before(async () => (hb = await startHarnessBrowser()));
  after(() => hb.close());
  const run = (dir: string) => runHarness({ target: target(dir), era: 'legacy', exercise: [], browser: hb, limits: { settleMaxMs: 1000, maxControls: 1, paintTimeoutMs: 3000 } });

  it('a WebGL scene: its first contentful paint', { timeout: 180_000 }, async () => {
    const v = (await run('present/webgl-scene')).views[0]!;
    assert.equal(v.outcome, 'rendered');
    assert.equal(v.renderBy, 'first-contentful-paint');
    assert.ok(typeof v.renderMs === 'number' && v.renderMs >= 0);
  });

  it('a chart waiting for its data: a paint or its size-changed notification, not nothing', { timeout: 180_000 }, async () => {
    const v = (await run('present/chart-awaits-data')).views[0]!;
    assert.equal(v.outcome, 'rendered');
    assert.ok(v.renderBy === 'first-paint' || v.renderBy === 'size-changed', String(v.renderBy));
    assert.ok(typeof v.renderMs === 'number' && v.renderMs >= 0);
  });

  it('a View that paints nothing and never says its size: no figure', { timeout: 180_000 }, async () => {
    const v = (await run('could-not-judge/never-paints')).views[0]!;
    assert.equal(v.outcome, 'rendered');
    assert.equal(v.renderMs, undefined);
    assert.equal(v.renderBy, undefined);
  });
});
