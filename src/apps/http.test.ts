import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sourceDirOf } from '../engine/paths.js';
import { scrubbedEnv } from '../probe/env.js';
import { killTree } from '../probe/stdio.js';
import { runCli } from '../../test/support/run.js';
import { runHarness, startHarnessBrowser, type HarnessBrowser } from './harness.js';

/**
 * The host harness over Streamable HTTP (issue 12 §2): a small App of ours served over HTTP on a free loopback
 * port, in both eras (createMcpHandler answers 2026-07-28 and 2025-06-18), rendered in the real browser; then
 * `probe --url` end to end. Offline: the fixture server is in the repository.
 */

const here = sourceDirOf(import.meta.url);
const fixture = join(here, 'fixtures', 'http-app');

let child: ChildProcess;
let url: string;

before(async () => {
  child = spawn(process.execPath, ['server.mjs'], { cwd: fixture, env: { ...scrubbedEnv({}), PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no "listening <port>": ${err}`)), 30_000);
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /listening (\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', () => reject(new Error(`the fixture server exited: ${err}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
});
after(async () => {
  await killTree(child.pid!);
});

describe('MCP Apps host harness over Streamable HTTP', () => {
  let hb: HarnessBrowser;
  before(async () => {
    hb = await startHarnessBrowser();
  });
  after(async () => {
    await hb.close();
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`${era} era: reads the ui:// resource over HTTP, renders the View and answers its bridge`, async () => {
      const rec = await runHarness({ target: { http: { url } }, era, exercise: ['app'], browser: hb, limits: { viewBudgetMs: 60_000, roundTripCalls: 3 } });
      assert.equal(rec.skipped, undefined, JSON.stringify(rec.skipped));
      // The host's own connection went over HTTP: its exchanges are recorded raw.
      assert.ok(rec.connection?.http?.length, 'HTTP exchanges recorded');
      const posted = rec.connection!.http!.map((x) => JSON.parse(x.request.body ?? '{}') as { method?: string });
      assert.ok(posted.some((m) => m.method === 'resources/read'), posted.map((m) => m.method).join(' '));
      assert.ok(posted.some((m) => m.method === (era === 'modern' ? 'server/discover' : 'initialize')));
      assert.deepEqual(rec.views.map((v) => [v.tool, v.outcome]), [['show_time', 'rendered']], JSON.stringify(rec.views.map((v) => v.detail)));
      const v = rec.views[0]!;
      assert.ok(v.bridge.some((m) => m.dir === 'from-view' && m.message.method === 'ui/initialize'));
      assert.ok(v.bridge.some((m) => m.dir === 'to-view' && m.message.id === 1 && m.message.result));
      // With --exercise app, the View's own tools/call went to the server over HTTP and came back.
      assert.ok(v.bridge.some((m) => m.dir === 'from-view' && m.message.method === 'tools/call'));
      assert.ok(posted.filter((m) => m.method === 'tools/call').length >= 1);
    });
  }
});

describe('probe --url on an App served over HTTP', () => {
  it('judges the A-* parts from a rendering, and the report says the target is an App and why', async () => {
    const r = await runCli(['probe', '--format', 'json', '--url', url, '--rules', 'A-2,A-3,A-4', '--timeout-ms', '120000']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const rep = JSON.parse(r.stdout) as {
      target: { kind: string };
      inputs?: { apps?: { views: { tool: string; outcome: string }[] }; kind?: { kind: string; because: unknown[] } };
      results: { ruleId: string; parts: { genre: string; state: string }[] }[];
    };
    assert.equal(rep.target.kind, 'app');
    // Why: the served tool that links a View, with the keys registerAppTool serves (nested, and the flat copy).
    assert.deepEqual(rep.inputs?.kind, { kind: 'app', because: [{ by: 'served', tools: [{ name: 'show_time', keys: ['nested', 'flat'] }] }] });
    assert.deepEqual(rep.inputs?.apps?.views.map((v) => [v.tool, v.outcome]), [['show_time', 'rendered']]);
    for (const id of ['A-2', 'A-3', 'A-4']) {
      const dyn = rep.results.find((x) => x.ruleId === id)!.parts.find((p) => p.genre === 'dynamic')!;
      assert.notEqual(dyn.state, 'could-not-judge', `${id} dynamic is judged over HTTP`);
    }
  });
});
