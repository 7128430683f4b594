import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sourceDirOf } from '../engine/paths.js';
import { scrubbedEnv } from '../probe/env.js';
import { execFileSync } from 'node:child_process';
import { BrowserMissing, CANDIDATES, findChromium, locateChromium, packagedLibDir } from './browser.js';
import { runHarness } from './harness.js';
import type { AppsRecord } from '../probe/apps-record.js';

/**
 * A machine without a system Chromium: MCP_DOCTOR_SYSTEM_CHROMIUM=off hides the system candidates, as on a bare
 * machine, and the Apps harness must still render, with the Chromium the npm package @sparticuz/chromium ships.
 */

const hostile = join(sourceDirOf(import.meta.url), 'fixtures', 'hostile');

describe('no system Chromium: the packaged one renders', () => {
  const saved = { system: process.env.MCP_DOCTOR_SYSTEM_CHROMIUM, explicit: process.env.MCP_DOCTOR_CHROMIUM };
  let rec: AppsRecord;
  let artifacts: string;
  before(async () => {
    process.env.MCP_DOCTOR_SYSTEM_CHROMIUM = 'off';
    delete process.env.MCP_DOCTOR_CHROMIUM;
    artifacts = mkdtempSync(join(tmpdir(), 'mcp-doctor-apps-'));
    rec = await runHarness({
      target: { stdio: { command: process.execPath, args: ['server.mjs'], cwd: hostile, env: scrubbedEnv({}) } },
      era: 'legacy',
      exercise: [],
      artifactsDir: artifacts,
      limits: { viewBudgetMs: 25_000, settleMaxMs: 1500, maxControls: 3 },
    });
  });
  after(() => {
    rmSync(artifacts, { recursive: true, force: true });
    for (const [k, v] of [['MCP_DOCTOR_SYSTEM_CHROMIUM', saved.system], ['MCP_DOCTOR_CHROMIUM', saved.explicit]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('the system candidates are hidden', () => {
    assert.throws(() => findChromium(), BrowserMissing);
  });

  it('the browser found is the packaged one, not a system candidate', async () => {
    const exe = await locateChromium();
    assert.ok(!CANDIDATES.includes(exe), exe);
  });

  it('brings the NSS libraries a bare machine may lack, and the binary links against them', async () => {
    const exe = await locateChromium();
    const lib = packagedLibDir(exe);
    assert.ok(lib, 'a library folder');
    const ldd = execFileSync('ldd', [exe], { env: { PATH: process.env.PATH, LD_LIBRARY_PATH: lib }, encoding: 'utf8' });
    assert.match(ldd, new RegExp(`libnss3\\.so => ${lib.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/libnss3\\.so`));
    assert.doesNotMatch(ldd, /not found/);
  });

  it('renders the Views with it', () => {
    assert.equal(rec.skipped, undefined, JSON.stringify(rec.skipped));
    assert.equal(rec.views[1]?.outcome, 'rendered', JSON.stringify(rec.views[1]?.detail));
    assert.equal(rec.views[2]?.outcome, 'rendered', JSON.stringify(rec.views[2]?.detail));
  });

  it('MCP_DOCTOR_CHROMIUM naming a missing file is never replaced by the packaged one', async () => {
    await assert.rejects(locateChromium({ MCP_DOCTOR_CHROMIUM: '/nonexistent/chromium', MCP_DOCTOR_SYSTEM_CHROMIUM: 'off' }), BrowserMissing);
  });
});
