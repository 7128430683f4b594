import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../src/engine/paths.js';
import type { Detector } from '../src/engine/detector.js';
import c2 from '../src/detectors/C-2-naming/index.js';
const c2Static = c2.find((d) => d.genre === 'static')!;
import c4 from '../src/detectors/C-4-typed-schemas/static.js';
import x8 from '../src/detectors/X-8-lethal-trifecta/static.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { staticSummary } from './support/detector-tester.js';

/**
 * Tools generated one per endpoint from an API description at build time: a client module written by a generator
 * (openapi-zod-client / zodios: `const endpoints = makeApi([{ method, path, alias, description, parameters: [{ name,
 * type, schema: z… }] }]); export const api = new Zodios(endpoints)`), and a loop registering each endpoint with one
 * shared handler (`for (const tool of api.endpoints) server.tool(tool.alias, tool.description ?? '', paramSchema, …,
 * async (params) => executeGraphTool(tool, graphClient, params))`), the input shape built from the row's parameters.
 * Microsoft Graph wrappers shaped like published ones (a bin/ launcher over dist/):
 *   graph-zodios          ESM, mail + OneDrive rows, one with `z.any()`, a send-mail row: C-4 and X-8 red;
 *   graph-zodios-typed    CommonJS (`(0, core_1.makeApi)([...])`, `client_1.api.endpoints.forEach(…)`), two read-only
 *                         calendar rows with typed parameters, registerTool with an outputSchema: C-4 and X-8 green;
 *   graph-zodios-bundle   one tsup/esbuild file: zodios inlined (`function makeApi`, `var Zodios2 = class …`), Teams and
 *                         Outlook rows, `tool.description || ""`: C-4 and X-8 red;
 *   graph-zodios-fetched  the endpoint list is downloaded when the server starts: names, descriptions and legs unread.
 * On main the loop was one tool named `tool.alias` (C-2 tool-names-computed, X-8 tool-legs-incomplete, C-4 only the
 * output schema of `tool.alias`).
 */

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures', 'generated-client');

function judge(rule: string, detector: Detector, name: string) {
  return staticSummary(rule, detector, join(fixtures, name), ['schema']);
}

describe('tools from a generated endpoint table (server model)', () => {
  it('reads one tool per makeApi row: name from alias, description, the parameters as input schema, one shared handler', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-zodios')));
    assert.deepEqual(
      model.tools.map((t) => [t.name, t.nameIsLiteral, t.description?.slice(0, 24), t.file, t.inputSchema?.getKindName()]),
      [
        ['list-mail-messages', true, 'List the messages in the', 'dist/generated/client.js', 'ArrayLiteralExpression'],
        ['get-mail-message', true, 'Read the body and header', 'dist/generated/client.js', 'ArrayLiteralExpression'],
        ['send-mail', true, 'Send an email message to', 'dist/generated/client.js', 'ArrayLiteralExpression'],
        ['list-drive-items', true, 'List the files and folde', 'dist/generated/client.js', 'ArrayLiteralExpression'],
        // A row without a description: `tool.description ?? ''` is still the description, not the input shape.
        ['get-drive-item-content', true, undefined, 'dist/generated/client.js', 'ArrayLiteralExpression'],
      ],
    );
    assert.deepEqual(model.tools.map((t) => t.annotationsNode?.getKindName()), Array(5).fill('ObjectLiteralExpression'));
    assert.equal(new Set(model.tools.map((t) => t.handler)).size, 1);
    // The rows share one handler: one entry at the registration, not one reading per row.
    assert.deepEqual(model.entries.map((e) => [e.name, `${e.file}:${e.line}`, e.nameComputed]), [['tool.alias', 'dist/graph-tools.js:30', true]]);
  });

  it('CommonJS output: (0, core_1.makeApi)([...]) through client_1.api.endpoints.forEach', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-zodios-typed')));
    assert.deepEqual(model.tools.map((t) => [t.name, t.title, t.annotations?.readOnlyHint]), [
      ['list-calendar-events', 'List calendar events', true],
      ['get-calendar-event', 'Get a calendar event', true],
    ]);
  });

  it('a bundle with zodios inlined (a renamed Zodios2 class): the rows are read as in a module', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-zodios-bundle')));
    assert.deepEqual(model.tools.map((t) => [t.name, t.line, t.description?.slice(0, 16)]), [
      ['list-chat-messages', 27, 'List the message'],
      ['send-chat-message', 39, 'Send a new messa'],
      ['list-inbox-messages', 51, 'List the message'],
    ]);
    assert.equal(model.entries.length, 1);
  });

  it('a generated table larger than a written list (700 rows) is read, its one handler read once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-table-'));
    try {
      mkdirSync(join(dir, 'dist', 'generated'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'big-graph-mcp', version: '1.0.0', type: 'module', main: 'dist/index.js' }));
      const rows = Array.from({ length: 700 }, (_, i) => `  { method: 'get', path: '/sites/${i}', alias: 'get-site-${i}', description: 'Site ${i}', parameters: [] },`);
      writeFileSync(join(dir, 'dist', 'generated', 'client.js'), `import { makeApi, Zodios } from '@zodios/core';\nconst endpoints = makeApi([\n${rows.join('\n')}\n]);\nexport const api = new Zodios(endpoints);\n`);
      writeFileSync(
        join(dir, 'dist', 'index.js'),
        `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { api } from './generated/client.js';\nconst server = new McpServer({ name: 'big', version: '1.0.0' });\nfor (const e of api.endpoints) server.tool(e.alias, e.description, {}, async () => ({ content: [{ type: 'text', text: e.path }] }));\n`,
      );
      const model = serverModel(RepoFacts.gather(dir));
      assert.equal(model.tools.length, 700);
      assert.equal(model.tools[699]!.name, 'get-site-699');
      assert.equal(model.entries.length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a list downloaded at run time: the registration stays one tool with a computed name', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-zodios-fetched')));
    // `endpoint.description ?? ''` is the description (on main it was read as the input shape, and the shape as annotations).
    assert.deepEqual(model.tools.map((t) => [t.name, t.nameIsLiteral, t.descriptionNode?.getText(), t.inputSchema?.getText(), t.annotationsNode]), [['endpoint.alias', false, "endpoint.description ?? ''", 'paramSchema', undefined]]);
  });
});

describe('static rules over the generated tools', () => {
  it('C-4: a z.any() parameter of a row is a catch-all at its line; typed rows with an output schema are present', () => {
    const red = judge('C-4', c4, 'graph-zodios');
    assert.equal(red.state, 'non-conforming');
    assert.ok(red.findings.some((f) => f[0] === 'source-catch-all' && f[1] === 'list-drive-items' && f[2] === 'input' && f[3] === 'dist/generated/client.js:51'), JSON.stringify(red.findings));
    assert.ok(red.findings.some((f) => f[0] === 'source-missing-schema' && f[1] === 'send-mail' && f[2] === 'output'));
    assert.deepEqual(judge('C-4', c4, 'graph-zodios-typed'), { state: 'present', reason: undefined, findings: [] });
    const bundle = judge('C-4', c4, 'graph-zodios-bundle');
    assert.deepEqual(bundle.findings.map((f) => f[1]), ['list-chat-messages', 'send-chat-message', 'list-inbox-messages']);
  });

  it('X-8: mail read and send-mail rows make the trifecta; read-only calendar rows do not; a downloaded list is could-not-judge', () => {
    const red = judge('X-8', x8, 'graph-zodios');
    assert.equal(red.state, 'non-conforming');
    assert.equal(red.findings[0]![1], 'send-mail');
    assert.equal(judge('X-8', x8, 'graph-zodios-bundle').findings[0]![1], 'send-chat-message');
    const green = judge('X-8', x8, 'graph-zodios-typed');
    assert.equal(green.state, 'present');
    assert.equal(green.reason, 'trifecta-legs');
    assert.deepEqual(judge('X-8', x8, 'graph-zodios-fetched'), { state: 'could-not-judge', reason: 'tool-legs-incomplete', findings: [] });
  });

  it('C-2: the aliases are read (kebab-case names), the downloaded list’s are computed', () => {
    const red = judge('C-2', c2Static, 'graph-zodios');
    assert.equal(red.state, 'non-conforming');
    assert.deepEqual(red.findings.map((f) => f[1] ?? null).length, 5);
    // Each row's own alias, at its row: the names were read, not counted.
    const named = staticSummary('C-2', c2Static, join(fixtures, 'graph-zodios'), ['name']).findings.map((f) => `${f[2]} ${f[3]}`);
    assert.deepEqual(named, ['list-mail-messages', 'get-mail-message', 'send-mail', 'list-drive-items', 'get-drive-item-content'].map((n, i) => `${n} dist/generated/client.js:${[13, 25, 36, 47, 58][i]}`));
    assert.equal(judge('C-2', c2Static, 'graph-zodios-fetched').reason, 'tool-names-computed');
  });
});
