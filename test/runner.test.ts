import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditCancelled, combine } from '../src/engine/runner.js';
import { audit } from '../src/run/audit.js';
import { defineDetector, present } from '../src/engine/detector.js';
import type { PartResult } from '../src/engine/types.js';
import { packageRoot } from '../src/engine/paths.js';
import c1 from '../src/detectors/C-1-bilingual/index.js';
import { runCli } from './support/run.js';

const red = join(packageRoot(), 'src', 'detectors', 'C-1-bilingual', 'fixtures', 'absent', 'english-only');

function copyRed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-runner-'));
  cpSync(red, dir, { recursive: true });
  rmSync(join(dir, 'expect.json'));
  return dir;
}

describe('runner', () => {
  it('combines parts: red wins, then could-not-judge, then present; all not-applicable stays not-applicable', () => {
    const p = (state: any, code?: string) => ({ genre: 'static' as const, state, findings: state === 'absent' ? [{ messageId: 'x' }] : [], ...(code ? { reason: { code } } : {}) });
    assert.equal(combine([p('present'), p('absent')]).state, 'absent');
    assert.equal(combine([p('present'), p('could-not-judge', 'needs-session')]).state, 'could-not-judge');
    assert.equal(combine([p('present'), p('not-applicable', 'x')]).state, 'present');
    assert.equal(combine([p('not-applicable', 'x')]).state, 'not-applicable');
  });
  it('live-decides: a clean live part decides over a static part that could not judge; any-unjudged does not', () => {
    const part = (genre: 'static' | 'dynamic', state: any, code?: string, findings: any[] = []) => ({ genre, state, findings, ...(code ? { reason: { code } } : {}) });
    const computed = part('static', 'could-not-judge', 'descriptions-not-literal');
    const clean = part('dynamic', 'present');
    assert.equal(combine([computed, clean], 'any-unjudged').state, 'could-not-judge');
    assert.equal(combine([computed, clean], 'any-unjudged').reason?.code, 'descriptions-not-literal');
    assert.equal(combine([computed, clean], 'live-decides').state, 'present');
    // The live part must itself have judged: an unjudged live part decides nothing.
    const unread = part('dynamic', 'could-not-judge', 'tools-list-failed');
    assert.equal(combine([part('static', 'present'), unread], 'live-decides').state, 'could-not-judge');
    assert.equal(combine([computed, unread], 'live-decides').reason?.code, 'descriptions-not-literal');
    // Red always wins, whatever the live part says.
    const red = part('static', 'non-conforming', undefined, [{ messageId: 'source-x', data: { tool: 'a' }, location: { file: 'a.ts', line: 3 } }]);
    assert.equal(combine([red, clean], 'live-decides').state, 'non-conforming');
    // A live part that shows nothing is served on the subject makes the rule not-applicable, with its reason.
    const none = part('dynamic', 'not-applicable', 'no-tools-served');
    const na = combine([computed, none], 'live-decides');
    assert.deepEqual([na.state, na.reason?.code], ['not-applicable', 'no-tools-served']);
    // Without a live part, live-decides is any-unjudged.
    assert.equal(combine([computed, part('static', 'present')], 'live-decides').state, 'could-not-judge');
  });
  it('one finding per defect: the same defect from two parts is kept once, with its location; two lines of one part stay two', () => {
    const st: PartResult = { genre: 'static', state: 'non-conforming', findings: [
      { messageId: 'missing-hint-in-source', data: { tool: 'a', hints: 'readOnlyHint' }, location: { file: 'src/a.ts', line: 4 } },
      { messageId: 'missing-hint-in-source', data: { tool: 'b', hints: 'readOnlyHint' }, location: { file: 'src/a.ts', line: 9 } },
      { messageId: 'source-model-directive', data: { where: 'tool a description' }, location: { file: 'src/a.ts', line: 5 } },
      { messageId: 'source-model-directive', data: { where: 'tool a description' }, location: { file: 'src/a.ts', line: 6 } },
    ] };
    const dy: PartResult = { genre: 'dynamic', state: 'non-conforming', findings: [
      { messageId: 'missing-hint', data: { tool: 'a', hints: 'readOnlyHint' } },
      { messageId: 'missing-hint', data: { tool: 'c', hints: 'readOnlyHint' } },
      { messageId: 'model-directive', data: { where: 'tool a description' }, evidence: 'ignore previous instructions' },
    ] };
    const c = combine([st, dy]);
    assert.deepEqual(
      c.findings.map((f) => [f.messageId, f.data?.tool ?? f.data?.where, f.location?.line ?? null]),
      [
        ['missing-hint-in-source', 'a', 4],
        ['missing-hint-in-source', 'b', 9],
        ['source-model-directive', 'tool a description', 5],
        ['source-model-directive', 'tool a description', 6],
        ['missing-hint', 'c', null],
      ],
    );
    // The same defect located in two files (a TypeScript and a Python part) is two findings.
    const ts: PartResult = { genre: 'static', state: 'non-conforming', findings: [{ messageId: 'source-model-directive', data: { where: 'tool a description' }, location: { file: 'src/a.ts', line: 5 } }] };
    const py: PartResult = { genre: 'static', state: 'non-conforming', findings: [{ messageId: 'python-model-directive', data: { where: 'tool a description' }, location: { file: 'a.py', line: 7 } }] };
    assert.equal(combine([ts, py]).findings.length, 2);
    // The evidence of the dropped twin is kept when the located finding had none.
    assert.equal(c.findings.find((f) => f.messageId === 'source-model-directive')?.evidence, 'ignore previous instructions');
  });
  it('reports a rule with no detector as could-not-judge "no-detector", never silently', async () => {
    const r = await audit({ target: { path: red }, rules: ['C-22'], detectors: [] });
    assert.equal(r.results[0]!.state, 'could-not-judge');
    assert.equal(r.results[0]!.reason?.code, 'no-detector');
  });
  it('turns a missing input into could-not-judge with the input reason', async () => {
    const r = await audit({ target: { path: red }, rules: ['C-1'], detectors: c1 });
    assert.equal(r.results[0]!.state, 'absent');
    const noRepo = await audit({ target: { command: ['x'] }, rules: ['C-1'], detectors: c1 });
    assert.equal(noRepo.results[0]!.state, 'could-not-judge');
    assert.equal(noRepo.results[0]!.reason?.code, 'needs-repo');
  });
  it('a detector that throws or emits an undeclared message becomes could-not-judge, not a pass', async () => {
    const boom = defineDetector({ ruleId: 'C-1', genre: 'static', needs: ['repo'], messages: {}, judge: () => { throw new Error('boom'); } });
    const liar = defineDetector({ ruleId: 'C-1', genre: 'static', needs: ['repo'], messages: {}, judge: () => ({ state: 'absent', findings: [{ messageId: 'nope' }] }) });
    for (const d of [boom, liar]) {
      const r = await audit({ target: { path: red }, rules: ['C-1'], detectors: [d] });
      assert.equal(r.results[0]!.state, 'could-not-judge');
      assert.equal(r.results[0]!.reason?.code, 'detector-error');
    }
    const ok = defineDetector({ ruleId: 'C-1', genre: 'static', needs: ['repo'], messages: {}, judge: () => present() });
    assert.equal((await audit({ target: { path: red }, rules: ['C-1'], detectors: [ok] })).results[0]!.state, 'present');
  });
  it('stops on cancellation', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(audit({ target: { path: red }, signal: ac.signal }), AuditCancelled);
  });
  it('reports the kind of target and marks family rules not-applicable', async () => {
    const r = await audit({ target: { path: red }, rules: ['E-1', 'A-2'] });
    assert.equal(r.target.kind, 'server');
    assert.deepEqual(r.results.map((x) => [x.ruleId, x.state, x.reason?.code]), [
      ['A-2', 'not-applicable', 'kind-mismatch'],
      ['E-1', 'not-applicable', 'kind-mismatch'],
    ]);
  });
});

describe('configuration', () => {
  it('a suppression with a reason keeps the result visible but does not fail', async () => {
    const dir = copyRed();
    try {
      writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ suppressions: [{ rule: 'C-1', reason: 'French texts are being translated this week.' }] }));
      const r = await runCli(['audit', dir, '--rules', 'C-1', '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const c1r = JSON.parse(r.stdout).results[0];
      assert.equal(c1r.state, 'absent');
      assert.equal(c1r.suppressed.source, 'config');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a suppression without a reason is a usage error (exit 2) and nothing is judged', async () => {
    const dir = copyRed();
    try {
      writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ suppressions: [{ rule: 'C-1' }] }));
      const r = await runCli(['audit', dir]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /reason/);
      assert.equal(r.stdout, '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a baseline accepts the red findings it already holds, and only those', async () => {
    const dir = copyRed();
    try {
      const first = await runCli(['audit', dir, '--rules', 'C-1', '--format', 'json']);
      writeFileSync(join(dir, 'baseline.json'), first.stdout);
      writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ baseline: 'baseline.json' }));
      assert.equal((await runCli(['audit', dir, '--rules', 'C-1'])).code, 0);
      rmSync(join(dir, 'README.md'));
      writeFileSync(join(dir, 'README.txt'), 'moved');
      assert.equal((await runCli(['audit', dir, '--rules', 'C-1'])).code, 1, 'a new finding location is not in the baseline');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
