import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { listFacts } from '../src/detectors/support/source/list-sources.js';

// A browser-extension bridge bundled whole (tsup inlining its workspace packages): tools built by factories
// (`navigate(true)`), named and described by zod schema objects (`NavigateTool.shape.name.value`), handed to a server
// factory (`createServerWithTools({ tools })`) whose tools/list maps `tools.map((tool) => tool.schema)`.
describe('server model: extension-bridge bundles', () => {
  const dir = join(packageRoot(), 'src/detectors/C-2-naming/fixtures/present/dist-extension-bridge-schema-objects');
  it('reads every tool, factory-built or not, named and described from its schema object', () => {
    const repo = RepoFacts.gather(dir, []);
    const tools = serverModel(repo).tools;
    assert.deepEqual(tools.map((t) => [t.name, t.nameIsLiteral, t.api]), [
      ['browser_navigate', true, 'tools/list'],
      ['browser_go_back', true, 'tools/list'],
      ['browser_wait', true, 'tools/list'],
      ['browser_snapshot', true, 'tools/list'],
      ['browser_click', true, 'tools/list'],
      ['browser_type', true, 'tools/list'],
    ]);
    assert.equal(tools[0]!.description, 'Navigate to a URL');
    // The factory's object holds its own handler: the arguments are its `params`.
    assert.equal(tools[0]!.argsParam, 1);
    assert.ok(serverModel(repo).entries.some((e) => e.name === 'browser_navigate'));
    // The list the server factory is handed is written in the code: fixed.
    assert.deepEqual(listFacts(repo).sources.map((s) => [s.method, s.items]), [['tools/list', 'fixed']]);
  });

  it('reads names through .extend/.strict of a same-file zod schema and nested constant tables, not through a call', () => {
    const root = mkdtempSync(join(tmpdir(), 'bridge-names-'));
    try {
      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x-bridge', version: '1.0.0', type: 'module' }));
      writeFileSync(
        join(root, 'dist/index.js'),
        [
          'import { z } from "zod";',
          'import { Server } from "@modelcontextprotocol/sdk/server/index.js";',
          'import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";',
          'var NAMES = { TABS: { LIST: "list_tabs" } };',
          'var Base = z.object({ name: z.literal("base_tool"), arguments: z.object({}) });',
          'var TypeTool = Base.extend({ name: z.literal("browser_type"), description: z.literal("Type text") }).strict();',
          'var Made = makeSchema("made_tool");',
          'var tools = [',
          '  { name: NAMES.TABS.LIST, inputSchema: { type: "object" } },',
          '  { name: TypeTool.shape.name.value, description: TypeTool.shape.description.value, inputSchema: { type: "object" } },',
          '  { name: Made.shape.name.value, inputSchema: { type: "object" } },',
          '];',
          'var server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });',
          'server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));',
        ].join('\n'),
      );
      const tools = serverModel(RepoFacts.gather(root, [])).tools;
      assert.deepEqual(tools.map((t) => [t.name, t.nameIsLiteral]), [
        ['list_tabs', true],
        ['browser_type', true],
        ['Made.shape.name.value', false],
      ]);
      assert.equal(tools[1]!.description, 'Type text');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
