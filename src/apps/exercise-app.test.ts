import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../engine/paths.js';
import { runCli } from '../../test/support/run.js';

/**
 * The `app` opt-in calls each App tool once, the way a host that renders no UI does, so that A-1 reads the text
 * fallback of an App whose tool has no annotations (the read-only opt-in never reaches it). Without the opt-in
 * the tool's handler never runs and A-1's live part stays could-not-judge. A real App of ours over stdio; the
 * handler writes each call to a log, so the test sees what ran rather than what the probe says.
 */

const server = join(sourceDirOf(import.meta.url), 'fixtures', 'unannotated-app', 'server.mjs');

async function a1(args: string[], serverArgs: string[] = []): Promise<{ state: string; calls: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'app-opt-in-'));
  const log = join(dir, 'calls.log');
  try {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'A-1', '--no-browser', '--timeout-ms', '60000', '--env', `CALL_LOG=${log}`, ...args, '--', process.execPath, server, ...serverArgs]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const rep = JSON.parse(r.stdout) as { results: { ruleId: string; parts: { genre: string; state: string }[] }[] };
    const state = rep.results.find((x) => x.ruleId === 'A-1')!.parts.find((p) => p.genre === 'dynamic')!.state;
    let calls: string[] = [];
    try {
      calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      calls = [];
    }
    return { state, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the app opt-in and A-1 on a live App', () => {
  it('without the opt-in the App tool never runs: could-not-judge', async () => {
    const r = await a1([]);
    assert.deepEqual(r.calls, []);
    assert.equal(r.state, 'could-not-judge');
  });
  it('with --exercise app the App tool is called once and its text fallback read: present', async () => {
    const r = await a1(['--exercise', 'app']);
    assert.deepEqual(r.calls, ['roll_die']);
    assert.equal(r.state, 'present');
  });
  it('an App tool whose result has no text block: non-conforming', async () => {
    const r = await a1(['--exercise', 'app'], ['--structured-only']);
    assert.equal(r.state, 'non-conforming');
  });
});
