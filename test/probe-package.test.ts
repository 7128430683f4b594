import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { envelope, RawStdio } from './support/raw-stdio.js';
import { runCli } from './support/run.js';

/**
 * `probe -- node <pkg>/dist/index.js` judges the package too (issue 9 §1): the package is found from the
 * command, its static parts are judged with the live ones, S-7 compares the served version with its
 * package.json, and the report names the package. The servers are real (SDK v2 over stdio) and laid out as
 * published packages (a bin/ launcher over dist/), built at test time; their node_modules is a link to ours.
 */

type Part = { genre: string; state: string; reason?: { code: string; data?: Record<string, unknown> } };
type Rep = {
  inputs?: { package?: { folder: string; name?: string; version?: string; from: string }; command?: string[] };
  results: { ruleId: string; state: string; findings: { messageId: string; data?: Record<string, unknown>; location?: { file: string; line?: number } }[]; parts: Part[] }[];
};
/** The full report a tool result links to (mcp-doctor://reports/{id}), read with resources/read. */
async function fullReport(c: RawStdio, m: Record<string, any>): Promise<Rep> {
  const link = (m.result.content as { type: string; uri?: string }[]).find((x) => x.type === 'resource_link')!;
  assert.equal(link.uri, m.result.structuredContent.report);
  const r = (await c.request('resources/read', envelope({ uri: link.uri }))) as Record<string, any>;
  return JSON.parse(r.result.contents[0].text) as Rep;
}
const part = (r: Rep, id: string, genre = 'dynamic') => r.results.find((x) => x.ruleId === id)!.parts.find((p) => p.genre === genre)!;

const SERVER = (version: string) => `// Compiled server (SDK v2 over stdio), its version typed by hand.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

function buildServer() {
  const server = new McpServer({ name: 'weather-mcp', version: '${version}' });
  server.registerTool(
    'get_forecast',
    { description: 'Forecast for a city. Use it when the user asks about the weather.', inputSchema: z.object({ city: z.string() }) },
    async ({ city }) => ({ content: [{ type: 'text', text: 'Sunny in ' + city + '.' }] }),
  );
  return server;
}

const handle = serveStdio(buildServer, { onerror: (e) => console.error(e) });
process.on('SIGTERM', () => void handle.close());
`;

let root: string;
const w = (rel: string, text: string) => {
  const f = join(root, rel);
  mkdirSync(dirname(f), { recursive: true });
  writeFileSync(f, text);
};
const at = (rel: string) => realpathSync(join(root, rel));

before(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-doctor-probepkg-'));
  const modules = join(packageRoot(), 'node_modules');
  // A published package at 2026.8.31 whose server says 2.0.0.
  w('pkg/package.json', JSON.stringify({ name: '@acme/weather-mcp', version: '2026.8.31', type: 'module', bin: { 'weather-mcp': 'bin/weather-mcp.js' }, files: ['bin', 'dist'] }, null, 2) + '\n');
  w('pkg/bin/weather-mcp.js', "#!/usr/bin/env node\nimport '../dist/index.js';\n");
  w('pkg/dist/index.js', SERVER('2.0.0'));
  symlinkSync(modules, join(root, 'pkg/node_modules'));
  // A folder named with --source whose version is the served one.
  w('release/package.json', JSON.stringify({ name: '@acme/weather-mcp', version: '2.0.0', type: 'module' }, null, 2) + '\n');
  // A lone script: no manifest anywhere above it.
  w('lone/server.mjs', SERVER('2.0.0'));
  symlinkSync(modules, join(root, 'lone/node_modules'));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('probe -- node <pkg>/dist/index.js reads the package it runs', () => {
  it('judges static and dynamic parts together, S-7 is red against package.json, and the report says which package', async () => {
    const saved = join(root, 'session.json');
    const r = await runCli(['probe', '--format', 'json', '--save-session', saved, '--', 'node', join(root, 'pkg/dist/index.js')]);
    assert.equal(r.code, 1, r.stderr);
    const rep = JSON.parse(r.stdout) as Rep;
    assert.deepEqual(rep.inputs?.package, { folder: at('pkg'), name: '@acme/weather-mcp', version: '2026.8.31', from: 'command' });
    assert.deepEqual(rep.inputs?.command, ['node', join(root, 'pkg/dist/index.js')]);
    const s7 = rep.results.find((x) => x.ruleId === 'S-7')!;
    assert.equal(s7.state, 'non-conforming');
    assert.deepEqual(s7.findings.map((f) => [f.messageId, f.data?.served, f.data?.expected, f.location?.file]), [['version-differs-from-package', '2.0.0', '2026.8.31', 'package.json']]);
    // No part waits for a source tree: the package was read.
    const unread = rep.results.flatMap((x) => x.parts.filter((p) => p.reason?.code === 'needs-repo').map(() => x.ruleId));
    assert.deepEqual(unread, []);
    // Judged again from the saved session, the recorded command leads to the same package; Markdown names it.
    const again = await runCli(['probe', '--format', 'markdown', '--from-session', saved]);
    assert.match(again.stdout, /Package read: `@acme\/weather-mcp` `2026\.8\.31`, in `.*pkg` \(the package of the launched command\)/);
  });

  it('--source names another folder: S-7 compares with that one', async () => {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-7', '--source', join(root, 'release'), '--', 'node', join(root, 'pkg/dist/index.js')]);
    const rep = JSON.parse(r.stdout) as Rep;
    assert.deepEqual(rep.inputs?.package, { folder: at('release'), name: '@acme/weather-mcp', version: '2.0.0', from: 'source' });
    assert.equal(part(rep, 'S-7').state, 'present');
    assert.equal(r.code, 0, r.stderr);
  });

  it('a lone script with no package: S-7 could-not-judge (never present), no package in the report', async () => {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-7,C-18', '--', 'node', join(root, 'lone/server.mjs')]);
    const rep = JSON.parse(r.stdout) as Rep;
    assert.equal(rep.inputs?.package, undefined);
    assert.equal(part(rep, 'S-7').state, 'could-not-judge');
    assert.equal(part(rep, 'S-7').reason?.code, 'no-reference-version');
    assert.equal(part(rep, 'S-7').reason?.data?.why, 'no_package');
    assert.equal(part(rep, 'C-18', 'static').reason?.code, 'needs-repo');
  });

  it('a --source that is not a folder is a usage error before anything runs', async () => {
    const r = await runCli(['probe', '--source', join(root, 'nope'), '--', 'node', join(root, 'pkg/dist/index.js')]);
    assert.equal(r.code, 2);
  });
});

describe('probe -- npx -y <pkg>@<ver>: a real npx run, offline from the local tree', () => {
  it('finds the folder npx ran (server-everything, a devDependency) and compares its version', async () => {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-7', '--', 'npx', '-y', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio']);
    const rep = JSON.parse(r.stdout) as Rep;
    const folder = realpathSync(join(packageRoot(), 'node_modules', '@modelcontextprotocol', 'server-everything'));
    assert.deepEqual(rep.inputs?.package, { folder, name: '@modelcontextprotocol/server-everything', version: '2026.8.31', from: 'command' });
    assert.notEqual(part(rep, 'S-7').reason?.code, 'no-reference-version', JSON.stringify(part(rep, 'S-7')));
    assert.ok(['present', 'non-conforming'].includes(part(rep, 'S-7').state), JSON.stringify(part(rep, 'S-7')));
  });
});

describe('probe_endpoint (MCP): source confined to the allowed roots, the inferred package too', () => {
  let c: RawStdio;
  before(async () => {
    c = new RawStdio({ MCP_DOCTOR_ROOTS: root, MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([['node']]) });
    await c.request('server/discover', envelope());
  });
  after(() => c.close());

  it('a source outside the roots is refused', async () => {
    const m = (await c.request('tools/call', envelope({ name: 'probe_endpoint', arguments: { command: ['node', join(root, 'pkg/dist/index.js')], source: packageRoot() } }), 120_000)) as Record<string, any>;
    assert.equal(m.result.isError, true);
    assert.match(m.result.content[0].text, /outside|allowed/i);
  });
  it('the package of the command inside the roots is read, and the structured report names it', async () => {
    const m = (await c.request('tools/call', envelope({ name: 'probe_endpoint', arguments: { command: ['node', join(root, 'pkg/dist/index.js')], cwd: root, rules: ['S-7'] } }), 120_000)) as Record<string, any>;
    assert.equal(m.result.isError, undefined, JSON.stringify(m).slice(0, 500));
    // The compact result names the red rule; the full report (resources/read) names the package read.
    assert.deepEqual(m.result.structuredContent.red.map((r: { ruleId: string }) => r.ruleId), ['S-7']);
    const rep = await fullReport(c, m);
    assert.deepEqual(rep.inputs?.package, { folder: at('pkg'), name: '@acme/weather-mcp', version: '2026.8.31', from: 'command' });
    assert.equal(rep.results[0]!.state, 'non-conforming');
  });
  it('a command whose package lies outside the roots: the package is not read, and the reason says so', async () => {
    const outside = new RawStdio({ MCP_DOCTOR_ROOTS: join(root, 'release'), MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([['node']]) });
    try {
      await outside.request('server/discover', envelope());
      const m = (await outside.request('tools/call', envelope({ name: 'probe_endpoint', arguments: { command: ['node', join(root, 'pkg/dist/index.js')], cwd: join(root, 'release'), rules: ['S-7', 'C-18'] } }), 120_000)) as Record<string, any>;
      const rep = await fullReport(outside, m);
      assert.equal(rep.inputs?.package, undefined);
      assert.equal(part(rep, 'C-18', 'static').reason?.code, 'package-outside-roots');
      assert.equal(part(rep, 'S-7').state, 'could-not-judge');
    } finally {
      await outside.close();
    }
  });
});

