import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { audit } from '../src/run/audit.js';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { frameworkRegions, inRegions, ownModules, packageRegionsExcept } from '../src/facts/bundle-regions.js';
import { SourceSet } from '../src/facts/ts-source.js';
import { packageRoot } from '../src/engine/paths.js';

/**
 * A published server bundled with its MCP framework reads like the same server installed unbundled. The two
 * packages in test/fixtures/packages are one echo server built twice with esbuild 0.25.0 from the same source:
 * `bundled-sdk` with @modelcontextprotocol/sdk 1.29.0 inlined in dist/index.js (its module comments kept),
 * `unbundled-sdk` importing it. Before the framework's modules were left out of the index, the bundle got
 * S-12 non-conforming (the SDK's own tools/list handler), S-25 present and S-27 present where the server
 * declares no resources and elicits nothing, S-8 and S-26 could-not-judge.
 */
const pkg = (name: string) => join(packageRoot(), 'test', 'fixtures', 'packages', name);
const staticParts = async (dir: string) => {
  const r = await audit({ target: { path: dir } });
  return new Map(r.results.map((x) => [x.ruleId, x.parts.filter((p) => p.genre === 'static').map((p) => `${p.state}:${p.reason?.code ?? ''}`).join(' / ')]));
};

test('a bundle of the SDK gets the static verdicts of the same server unbundled, rule by rule', async () => {
  const bundled = await staticParts(pkg('bundled-sdk'));
  const plain = await staticParts(pkg('unbundled-sdk'));
  const differ = [...plain].filter(([id, v]) => bundled.get(id) !== v).map(([id, v]) => `${id}: bundled ${bundled.get(id)} | unbundled ${v}`);
  assert.deepEqual(differ, []);
  // Not vacuous: the server's own tool is read in both.
  assert.match(plain.get('S-12') ?? '', /^present/);
  assert.match(plain.get('S-27') ?? '', /^not-applicable:no-elicitation/);
});

test('a bundle built from a workspace package (module paths ../../node_modules/…) reads the same', async (t) => {
  // esbuild run from packages/echo of a workspace writes the same bundle with every node_modules path prefixed
  // by ../../ (checked byte for byte against a real build); the copy is made from the fixture that way.
  const dir = mkdtempSync(join(tmpdir(), 'bundled-ws-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(pkg('bundled-sdk'), dir, { recursive: true });
  const file = join(dir, 'dist', 'index.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^\/\/ node_modules\//gm, '// ../../node_modules/'));
  const bundled = await staticParts(dir);
  const plain = await staticParts(pkg('unbundled-sdk'));
  assert.deepEqual([...plain].filter(([id, v]) => bundled.get(id) !== v).map(([id]) => id), []);
});

test('a minified bundle: the SDK classes are recognised by their members, not read as the server', async () => {
  // Without module comments the SDK's classes are still known by methods only it defines
  // (assertCapabilityForMethod, setResourceRequestHandlers…). Before, S-25 read McpServer's own resource
  // handlers as the server's (present where the unbundled server is not-applicable).
  const bundled = await staticParts(pkg('bundled-sdk-minified'));
  const plain = await staticParts(pkg('unbundled-sdk'));
  for (const id of ['S-12', 'S-25', 'S-26']) assert.equal(bundled.get(id), plain.get(id), id);
  // Not vacuous: both read the server's tool (a missing dist/ would make both could-not-judge no-source).
  assert.match(bundled.get('S-12') ?? '', /^present/);
  // Left: S-8, S-27 (the SDK's zod schemas and functions outside a class) and X-7 (the stdio transport's class name is
  // mangled) still differ on a minified bundle; the reference says so.
});

test('framework regions: only framework modules of a bundle, never a lone comment', () => {
  const bundle = ['var x = 1;', '// node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js', 'class Server {}', '// node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js', 'class McpServer {}', '// node_modules/axios/lib/axios.js', 'function axios() {}', '// src/index.ts', 'new McpServer();', ''].join('\n');
  const regions = frameworkRegions(bundle);
  assert.equal(regions.length, 1, 'two adjacent SDK modules make one region');
  const at = (s: string) => bundle.indexOf(s);
  assert.ok(inRegions(regions, at('class Server')) && inRegions(regions, at('class McpServer')));
  assert.ok(!inRegions(regions, at('function axios')), 'another bundled package stays read');
  assert.ok(!inRegions(regions, at('new McpServer')) && !inRegions(regions, at('var x')), 'the server’s own modules stay read');
  assert.deepEqual(frameworkRegions('// node_modules/@modelcontextprotocol/sdk/x.js\nconst a = 1;\n'), [], 'one comment is not a bundle');
  const ws = bundle.replace(/^\/\/ node_modules\//gm, '// ../../node_modules/');
  assert.equal(frameworkRegions(ws).length, 1, 'paths relative to a workspace package');
});

test('a bundle too large to parse whole is read as its own modules, lines kept', () => {
  const file = join(pkg('bundled-sdk'), 'dist', 'index.js');
  const text = readFileSync(file, 'utf8');
  const read = (limit: number) => (text.length <= limit ? { ok: true as const, text, size: text.length } : { ok: false as const, cause: 'too-large' as const, size: text.length, limit });
  const screen = () => ({ ok: true as const, matched: [/registerTool/], size: text.length });
  // A per-file limit of 20 KB: the 200 KB bundle does not fit, its own module (a few hundred bytes) does.
  const small = new SourceSet(20_000);
  const sf = small.add('dist/index.js', read, screen);
  assert.ok(sf, 'parsed');
  assert.deepEqual(small.unread, []);
  const own = sf.getFullText();
  const line = text.split('\n').findIndex((l) => l.includes('server.registerTool("echo"'));
  assert.ok(line > 0 && own.split('\n')[line]!.includes('server.registerTool("echo"'), 'the tool registration keeps its line');
  assert.ok(!own.includes('class McpServer'), 'the SDK is not read');
  assert.ok(small.parsedBytes < 20_000);
  // A limit its own modules do not fit either: not parsed, named by the screen as before.
  const tiny = new SourceSet(100);
  assert.equal(tiny.add('dist/index.js', read, screen), undefined);
  assert.equal(tiny.unread[0]?.file, 'dist/index.js');
});

test('rolldown/tsdown regions: //#region <path> … //#endregion, pnpm paths, the runtime and the exports left read', () => {
  const bundle = [
    '#!/usr/bin/env node',
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";',
    '//#region rolldown:runtime',
    'var __commonJS = (cb, mod) => function() { return mod; };',
    '//#endregion',
    '//#region ../../node_modules/.pnpm/axios@1.12.2/node_modules/axios/lib/helpers/throttle.js',
    'function throttle(fn, freq) { return [fn, freq]; }',
    '//#endregion',
    '//#region ../../node_modules/.pnpm/retry-queue@2.0.1/node_modules/retry-queue/index.js',
    'var require_retry_queue = /* @__PURE__ */ __commonJS({ "../../node_modules/.pnpm/retry-queue@2.0.1/node_modules/retry-queue/index.js": ((exports, module) => {',
    '\tfunction tokenBucket(size) { return size; }',
    '}) });',
    '//#endregion',
    '//#region ../mcp-core/dist/client-YhNXiNEU.js',
    'class ApiClient {}',
    '//#endregion',
    '//#region src/index.ts',
    'const server = new McpServer({ name: "x", version: "1" });',
    '//#endregion',
    'export { server };',
    '',
  ].join('\n');
  const at = (s: string) => bundle.indexOf(s);
  const libs = packageRegionsExcept(bundle, new Set());
  assert.equal(libs.length, 2, 'one region per library module (an //#endregion line between them)');
  assert.ok(inRegions(libs, at('function throttle')) && inRegions(libs, at('function tokenBucket')), 'library code, a require_x namespace included');
  for (const own of ['var __commonJS', 'class ApiClient', 'const server', 'export { server }']) assert.ok(!inRegions(libs, at(own)), `${own} stays read`);
  const own = ownModules(bundle);
  assert.ok(own, 'a tsdown bundle is read as its own modules');
  assert.equal(own.text.split('\n').length, bundle.split('\n').length, 'lines kept');
  assert.ok(!own.text.includes('throttle') && own.text.includes('export { server };') && own.text.includes('class ApiClient'));
  // main read no //#region line: a tsdown bundle past the parse limit was not parsed at all.
  const big = new SourceSet(own.kept + 10);
  const read = (limit: number) => (bundle.length <= limit ? { ok: true as const, text: bundle, size: bundle.length } : { ok: false as const, cause: 'too-large' as const, size: bundle.length, limit });
  const sf = big.add('dist/index.js', read, () => ({ ok: true as const, matched: [/McpServer/], size: bundle.length }));
  assert.ok(sf && !sf.getFullText().includes('function throttle') && sf.getFullText().includes('new McpServer'));
});
