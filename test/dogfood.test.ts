import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRed } from '../src/engine/types.js';
import { runCli } from './support/run.js';

describe('dogfood: mcp-doctor audit . on this repository', () => {
  it('reports no absent or non-conforming result and exits 0', async () => {
    const r = await runCli(['audit', '.', '--format', 'json']);
    const rep = JSON.parse(r.stdout) as { results: { ruleId: string; state: 'present'; findings: unknown[] }[] };
    const red = rep.results.filter((x) => isRed(x.state));
    assert.deepEqual(red.map((x) => ({ id: x.ruleId, findings: x.findings })), []);
    assert.equal(r.code, 0, r.stderr);
  });
});
