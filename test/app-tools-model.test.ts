import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { appSource } from '../src/detectors/support/apps/app-source.js';

// ext-apps' registerAppTool(server, name, config, handler) is registerTool with the server in front: its tools are
// the server's tools for every rule, read once (A-1's own reading of App tools names each once too).
describe('server model: tools registered with ext-apps registerAppTool', () => {
  it('reads direct calls in a class constructor and a local helper over a written list, with no tool named by the server', () => {
    const dir = join(packageRoot(), 'src/detectors/C-15-tool-annotations/fixtures/non-conforming/app-tools-in-class');
    const repo = RepoFacts.gather(dir, []);
    const tools = serverModel(repo).tools;
    assert.deepEqual(tools.map((t) => [t.name, t.nameIsLiteral, t.api]).sort(), [
      ['archive_invoice', true, 'registerTool'],
      ['export_csv', true, 'registerTool'],
      ['export_pdf', true, 'registerTool'],
      ['show_invoice', true, 'registerTool'],
    ]);
    const show = tools.find((t) => t.name === 'show_invoice')!;
    assert.equal(show.description, 'Shows one invoice in the viewer.');
    assert.deepEqual(show.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.ok(show.handler, 'the handler is the fourth argument');
    assert.deepEqual(tools.find((t) => t.name === 'export_pdf')?.annotations, { readOnlyHint: true, openWorldHint: false });
    assert.deepEqual(appSource(repo).appTools.map((t) => t.name).sort(), ['archive_invoice', 'export_csv', 'export_pdf', 'show_invoice']);
  });

  it('a wrapper addAppTool(server, tool) over definitions gives their tools, none named by the wrapper', () => {
    const dir = join(packageRoot(), 'src/detectors/A-1-text-fallback/fixtures/present/wrapped-app-tools');
    const repo = RepoFacts.gather(dir, []);
    assert.deepEqual(serverModel(repo).tools.map((t) => t.name).sort(), ['get-run', 'run-workflow']);
    assert.deepEqual(appSource(repo).appTools.map((t) => t.name).sort(), ['get-run', 'run-workflow']);
  });
});
