import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { packageRoot } from '../engine/paths.js';
import { tsMorphLoaded } from '../facts/morph.js';
import { probeAndJudge } from '../run/probe.js';

/**
 * `probe --no-source`: only the served session is judged. The parts that read the source say `source-skipped`,
 * and the static analyser is never loaded (ts-morph is loaded at its first use: facts/morph.ts). A recorded
 * session of a real SDK server (X-1's clean-sdk fixture) is judged without, then with, its folder. The order of
 * the two cases matters: this file runs in its own process, and ts-morph, once loaded, stays loaded.
 */
const fixture = join(packageRoot(), 'src', 'detectors', 'X-1-tool-poisoning', 'fixtures', 'present', 'clean-sdk');
const session = join(fixture, 'session.json');
const cli = fileURLToPath(new URL('../cli.js', import.meta.url));

describe('probe --no-source', () => {
  it('judges the session alone, says source-skipped for the source parts, and never loads ts-morph', async () => {
    const { report } = await probeAndJudge({ fromSession: session, noSource: true });
    const staticParts = report.results.flatMap((r) => r.parts.filter((p) => p.genre === 'static').map((p) => ({ rule: r.ruleId, ...p })));
    assert.ok(staticParts.length > 30);
    for (const p of staticParts) {
      assert.equal(p.state, 'could-not-judge', p.rule);
      assert.equal(p.reason?.code, 'source-skipped', p.rule);
    }
    assert.equal(report.inputs?.package, undefined);
    const x1 = report.results.find((r) => r.ruleId === 'X-1')!;
    assert.equal(x1.parts.find((p) => p.genre === 'dynamic')?.state, 'present');
    assert.equal(tsMorphLoaded(), false, 'ts-morph was not loaded');
  });

  it('with the package folder, the same session reads the source (and loads ts-morph)', async () => {
    const { report } = await probeAndJudge({ fromSession: session, source: fixture });
    const x1 = report.results.find((r) => r.ruleId === 'X-1')!;
    for (const p of x1.parts.filter((p) => p.genre === 'static')) assert.notEqual(p.reason?.code, 'source-skipped');
    assert.equal(report.inputs?.package?.from, 'source');
    assert.equal(tsMorphLoaded(), true);
  });

  it('every module takes ts-morph from facts/morph.ts (a direct import would load TypeScript with it)', () => {
    const src = join(packageRoot(), 'src');
    const direct = (readdirSync(src, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.split(/[\\/]/).includes('fixtures') && f !== join('facts', 'morph.ts'))
      .filter((f) => /^import (?!type )[^;]*from 'ts-morph';/m.test(readFileSync(join(src, f), 'utf8')));
    assert.deepEqual(direct, []);
  });

  it('refuses --source with --no-source (usage error, exit 2)', async () => {
    const r = await promisify(execFile)(process.execPath, [cli, 'probe', '--source', fixture, '--no-source', '--', process.execPath, join(fixture, 'server.mjs')], {
      env: { ...process.env, MCP_DOCTOR_LOCALE: 'en' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--source and --no-source cannot be used together/);
  });
});
