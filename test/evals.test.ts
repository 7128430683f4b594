import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { envelope, RawStdio } from './support/raw-stdio.js';

type Msg = Record<string, any>;
interface Eval {
  id: number;
  tool: string;
  degraded?: boolean;
  call: { arguments: Record<string, unknown> };
  check: { isError: boolean; textIncludes?: string; structured?: Record<string, unknown> };
}
const suite = JSON.parse(readFileSync('evals/evals.json', 'utf8')) as { evals: Eval[] };

describe('evals/evals.json against the real server (2026-07-28 era)', () => {
  // The client here cannot elicit: eval #10 probes our own server, which the user allow-lists beforehand.
  const c = new RawStdio({ MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([['node', 'dist/src/cli.js', 'serve']]), MCP_DOCTOR_ALLOW_ENV: '' });
  let tools: string[] = [];
  before(async () => {
    await c.request('server/discover', envelope());
    tools = ((await c.request('tools/list', envelope())) as Msg).result.tools.map((t: Msg) => t.name);
  });
  after(() => c.close());

  it('has at least three cases per served tool, one of them degraded', () => {
    for (const t of tools) {
      const cases = suite.evals.filter((e) => e.tool === t);
      assert.ok(cases.length >= 3, `${t}: ${cases.length} cases`);
      assert.ok(cases.some((e) => e.degraded), `${t}: a degraded case`);
    }
  });
  for (const e of suite.evals) {
    it(`#${e.id} ${e.tool}${e.degraded ? ' (degraded)' : ''}`, async () => {
      // A probe also audits the package it runs (here this repository), so it gets more time than a lookup.
      const m = (await c.request('tools/call', envelope({ name: e.tool, arguments: e.call.arguments }), e.tool === 'probe_endpoint' ? 300_000 : 60_000)) as Msg;
      const isError = m.error !== undefined || m.result?.isError === true;
      assert.equal(isError, e.check.isError, JSON.stringify(m).slice(0, 500));
      const text = m.error ? m.error.message : m.result.content.map((x: Msg) => x.text).join('\n');
      if (e.check.textIncludes) assert.ok(text.includes(e.check.textIncludes), text.slice(0, 300));
      for (const [k, v] of Object.entries(e.check.structured ?? {})) assert.deepEqual(m.result.structuredContent[k], v, k);
    });
  }
});
