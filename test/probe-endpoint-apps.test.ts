import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { envelope, RawStdio } from './support/raw-stdio.js';

/**
 * probe_endpoint's MCP Apps arguments (issue 12 §3), as the CLI's --no-browser and --artifacts DIR: no_browser
 * skips the host harness (the browser parts could-not-judge, with that reason); artifacts names an existing
 * folder inside the allowed roots where a PNG of each rendered View goes, and anything else gets the one path
 * refusal. The App is ours (src/apps/fixtures/http-app, served over stdio with --stdio).
 */

type Rep = {
  target: { kind: string };
  inputs?: { apps?: { skipped?: string; views: { tool: string; outcome: string; screenshot?: string }[] } };
  results: { ruleId: string; parts: { genre: string; state: string; reason?: { code: string } }[] }[];
};
async function fullReport(c: RawStdio, m: Record<string, any>): Promise<Rep> {
  const link = (m.result.content as { type: string; uri?: string }[]).find((x) => x.type === 'resource_link')!;
  const r = (await c.request('resources/read', envelope({ uri: link.uri }))) as Record<string, any>;
  return JSON.parse(r.result.contents[0].text) as Rep;
}

const app = join(packageRoot(), 'src', 'apps', 'fixtures', 'http-app');
const command = ['node', join(app, 'server.mjs'), '--stdio'];

describe('probe_endpoint: no_browser and artifacts', () => {
  let c: RawStdio;
  let tmp: string;
  let shots: string;
  before(async () => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-doctor-pe-apps-')));
    shots = join(tmp, 'shots');
    mkdirSync(shots);
    writeFileSync(join(tmp, 'a-file'), 'not a folder\n');
    c = new RawStdio({ MCP_DOCTOR_ROOTS: [app, shots].join(delimiter), MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([['node']]) });
    await c.request('server/discover', envelope());
  });
  after(async () => {
    await c.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const call = (args: Record<string, unknown>) => c.request('tools/call', envelope({ name: 'probe_endpoint', arguments: { command, cwd: app, ...args } }), 240_000) as Promise<Record<string, any>>;

  it('lists both arguments in its input schema', async () => {
    const m = (await c.request('tools/list', envelope())) as Record<string, any>;
    const props = m.result.tools.find((t: { name: string }) => t.name === 'probe_endpoint').inputSchema.properties;
    assert.equal(props.no_browser.type, 'boolean');
    assert.equal(props.artifacts.type, 'string');
  });

  for (const [what, where] of [
    ['a folder outside the roots', () => tmp],
    ['a missing folder', () => join(shots, 'missing')],
    ['a file', () => join(tmp, 'a-file')],
  ] as const) {
    it(`artifacts: ${what} gets the path refusal, and nothing runs`, async () => {
      const m = await call({ artifacts: where(), no_browser: true });
      assert.equal(m.result.isError, true);
      assert.match(m.result.content[0].text, /artifacts.*outside the folders/s);
    });
  }

  it('no_browser: the App is not rendered, and the browser-judged parts could-not-judge with that reason', async () => {
    const m = await call({ no_browser: true, rules: ['A-2', 'A-4'] });
    assert.equal(m.result.isError, undefined, JSON.stringify(m).slice(0, 400));
    const rep = await fullReport(c, m);
    assert.equal(rep.target.kind, 'app');
    assert.equal(rep.inputs?.apps?.skipped, 'apps-no-browser');
    for (const id of ['A-2', 'A-4']) {
      const dyn = rep.results.find((r) => r.ruleId === id)!.parts.find((p) => p.genre === 'dynamic')!;
      assert.equal(dyn.state, 'could-not-judge');
      assert.equal(dyn.reason?.code, 'apps-no-browser');
    }
    assert.match(m.result.content[0].text, /--no-browser/);
    // The compact text says in one line why the target is an App.
    // (the package read names the ext-apps dependency; the served tool its keys).
    assert.match(m.result.content[0].text, /\nWhy App: package\.json depends on "@modelcontextprotocol\/ext-apps"; 1 served tool links a ui:\/\/ View: "show_time" \("_meta\.ui\.resourceUri", /);
  });

  it('artifacts inside the roots: a PNG of the rendered View is saved there and named in the report', async () => {
    const m = await call({ artifacts: shots, rules: ['A-2'] });
    assert.equal(m.result.isError, undefined, JSON.stringify(m).slice(0, 400));
    const rep = await fullReport(c, m);
    const v = rep.inputs?.apps?.views[0];
    assert.equal(v?.outcome, 'rendered', JSON.stringify(rep.inputs?.apps));
    assert.ok(v?.screenshot?.startsWith(shots + '/') && existsSync(v.screenshot), String(v?.screenshot));
    assert.equal(readFileSync(v!.screenshot!).subarray(1, 4).toString(), 'PNG');
  });
});
