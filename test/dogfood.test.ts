import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isRed } from '../src/engine/types.js';
import { runCli } from './support/run.js';

describe('dogfood: mcp-doctor audit . on this repository', () => {
  it('reports no unsuppressed red result and exits 0; every suppression carries its reason', async () => {
    const r = await runCli(['audit', '.', '--format', 'json']);
    const rep = JSON.parse(r.stdout) as { results: { ruleId: string; state: 'present'; findings: unknown[]; suppressed?: { reason: string } }[] };
    const red = rep.results.filter((x) => isRed(x.state) && !x.suppressed);
    assert.deepEqual(red.map((x) => ({ id: x.ruleId, findings: x.findings })), []);
    assert.equal(r.code, 0, r.stderr);
    const config = JSON.parse(readFileSync('.mcp-doctor.json', 'utf8')) as { suppressions: { rule: string; reason: string }[] };
    for (const x of rep.results.filter((y) => y.suppressed)) {
      assert.ok(config.suppressions.some((s) => s.rule === x.ruleId && s.reason === x.suppressed!.reason), x.ruleId);
    }
    assert.ok(config.suppressions.length <= 1, 'suppressions stay the exception: ' + JSON.stringify(config.suppressions));
  });
});
