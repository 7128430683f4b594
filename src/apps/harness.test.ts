import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pidtree from 'pidtree';
import { sourceDirOf } from '../engine/paths.js';
import { scrubbedEnv } from '../probe/env.js';
import { runHarness, startHarnessBrowser, type HarnessBrowser } from './harness.js';
import { locateChromium } from './browser.js';
import type { AppsRecord } from '../probe/apps-record.js';

/**
 * The host harness against hostile Apps, in the real browser. These tests do not skip when Chromium is missing:
 * they fail, loudly (without a system Chromium, the devDependency @sparticuz/chromium ships one).
 */

const here = sourceDirOf(import.meta.url);
const hostile = join(here, 'fixtures', 'hostile');
const stdio = (cwd: string) => ({ stdio: { command: process.execPath, args: ['server.mjs'], cwd, env: scrubbedEnv({}) } });

/** Chromium processes among our own descendants. */
async function ourChromium(): Promise<number[]> {
  const pids = await pidtree(process.pid).catch(() => [] as number[]);
  return pids.filter((p) => {
    try {
      return /chrom/i.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

describe('MCP Apps host harness (Chromium)', () => {
  it('finds a Chromium: the system one, else the one an npm package ships (no browser download)', async () => {
    assert.ok(await locateChromium(), 'a Chromium is found');
  });

  describe('hostile Views', () => {
    let rec: AppsRecord;
    let artifacts: string;
    before(async () => {
      artifacts = mkdtempSync(join(tmpdir(), 'mcp-doctor-apps-'));
      rec = await runHarness({ target: stdio(hostile), era: 'legacy', exercise: [], artifactsDir: artifacts, limits: { viewBudgetMs: 25_000, settleMaxMs: 1500, maxControls: 3 } });
    });
    after(() => rmSync(artifacts, { recursive: true, force: true }));

    it('renders every View in turn, the one that hangs its renderer included, and closes the browser', async () => {
      assert.equal(rec.skipped, undefined, JSON.stringify(rec.skipped));
      assert.deepEqual(rec.views.map((v) => v.tool), ['a_hang', 'b_dialogs', 'c_network']);
      const hang = rec.views[0]!;
      assert.ok(['unresponsive', 'harness-error', 'rendered'].includes(hang.outcome), hang.outcome);
      assert.equal(rec.views[1]!.outcome, 'rendered', JSON.stringify(rec.views[1]!.detail));
      assert.equal(rec.views[2]!.outcome, 'rendered', JSON.stringify(rec.views[2]!.detail));
      assert.deepEqual(await ourChromium(), [], 'no browser process is left');
    });

    it('answers the View’s ui/initialize through the bridge, and records the raw messages', () => {
      const v = rec.views[1]!;
      assert.ok(v.bridge.some((m) => m.dir === 'from-view' && m.message.method === 'ui/initialize'));
      assert.ok(v.bridge.some((m) => m.dir === 'to-view' && m.message.id === 1 && m.message.result));
    });

    it('dialogs cannot block it: the sandbox has no modals, and each attempt is recorded', () => {
      const v = rec.views[1]!;
      const ignored = v.console.filter((c) => /alert|confirm|prompt/.test(c.text)).length + v.dialogs.length;
      assert.ok(ignored > 0, JSON.stringify(v.console.slice(0, 3)));
    });

    it('nothing leaves through the network: beacons, keepalive fetches, sockets, images, popups and top navigation are refused and recorded', () => {
      const v = rec.views[2]!;
      const origins = new Set(v.network.map((n) => n.origin));
      for (const o of ['https://collect.example.com', 'https://api.example.com', 'https://pixel.example.com']) assert.ok(origins.has(o), `${o} in ${[...origins].join(' ')}`);
      const apis = new Set(v.globals.map((g) => g.api));
      for (const a of ['sendBeacon', 'fetch', 'WebSocket']) assert.ok(apis.has(a), `${a} in ${[...apis].join(' ')}`);
    });

    it('saves a screenshot of a rendered View on request', () => {
      const v = rec.views[2]!;
      assert.ok(v.screenshot && existsSync(v.screenshot) && v.screenshot.startsWith(artifacts), String(v.screenshot));
      assert.equal(readFileSync(v.screenshot).subarray(1, 4).toString(), 'PNG');
    });
  });

  it('closes the browser when mcp-doctor is interrupted (SIGINT)', async () => {
    const child = spawn(process.execPath, [join(here, 'fixtures', 'sigint', 'hold-browser.mjs'), new URL('./harness.js', import.meta.url).href], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /browser (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before the browser started: ${out}`)));
    });
    assert.ok(pid > 0);
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    child.kill('SIGINT');
    assert.equal(await exited, 'SIGINT', 'the process still ends on the signal');
    // The browser's main process is gone (a zombie not yet reaped by init counts as gone).
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        alive = !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        alive = false;
      }
      if (alive) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(alive, false, `browser ${pid} is gone`);
  });

  describe('a browser reused across runs', () => {
    let hb: HarnessBrowser;
    before(async () => {
      hb = await startHarnessBrowser();
    });
    after(async () => {
      await hb.close();
      assert.deepEqual(await ourChromium(), []);
    });
    it('a server without App tools gets no rendering', async () => {
      const notes = join(here, '..', 'detectors', 'A-1-text-fallback', 'fixtures', 'not-applicable', 'no-ui');
      const rec = await runHarness({ target: stdio(notes), era: 'legacy', exercise: [], browser: hb });
      assert.equal(rec.skipped?.code, 'apps-no-ui-tool');
    });
  });
});
