import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { audit } from '../src/run/audit.js';
import { browserifyResolved, inRegions, ownModules, packageRegionsExcept, sourceMapOf, unsplitBundler } from '../src/facts/bundle-regions.js';
import { packageRoot } from '../src/engine/paths.js';
import { DEFAULT_PARSE_BUDGET } from '../src/facts/budget.js';
import { assertOwnLineRed, redLine, staticPart, stateOf } from './support/bundle-audit.js';
import { SourceSet } from '../src/facts/ts-source.js';

/**
 * Bundles over the per-file limit whose bundler leaves no mark between modules (rollup, vite's library mode:
 * every module hoisted into one scope, CommonJS ones in `requireX` wrappers with no path). With the source map
 * shipped beside the bundle, the lines it maps to sources under node_modules are left out and the rest is read
 * (lines kept); without one, the bundle stays unread with the cause 'bundle-without-modules' naming the bundler.
 * browserify's module map is read like webpack's.
 *
 * test/fixtures/packages/rollup-chat-bot is rollup 4's CommonJS output (plugin-commonjs, plugin-node-resolve,
 * sourcemap on) of a small chat-bot server written for this test, with its map; the test pads a line of the
 * client library's class past the 5 MB per-file limit in a copy, and adds an unmapped line to the map for each
 * line it adds (the padding is not kept in git).
 */
const fixture = join(packageRoot(), 'test', 'fixtures', 'packages', 'rollup-chat-bot');
const PAD_BYTES = DEFAULT_PARSE_BUDGET + 512 * 1024;

function padded(t: { after(fn: () => void): void }, options: { edit?: (text: string) => string; map?: 'keep' | 'drop' } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-unmarked-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(fixture, dir, { recursive: true });
  const file = join(dir, 'build', 'index.cjs');
  const text = (options.edit ?? ((s) => s))(readFileSync(file, 'utf8'));
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes('// PADDING'));
  const pad: string[] = [];
  let size = 0;
  for (let i = 0; size < PAD_BYTES; i++) {
    const l = `    this.frame${i} = { op: ${i % 11}, d: this.options.intents, s: ${i} };`;
    pad.push(l);
    size += l.length + 1;
  }
  lines.splice(at, 1, ...pad);
  writeFileSync(file, lines.join('\n'));
  const mapFile = join(dir, 'build', 'index.cjs.map');
  if (options.map === 'drop') rmSync(mapFile);
  else {
    const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { mappings: string };
    const rows = map.mappings.split(';');
    rows.splice(at + 1, 0, ...new Array<string>(pad.length - 1).fill(''));
    map.mappings = rows.join(';');
    const out = JSON.stringify(map);
    writeFileSync(mapFile, out);
  }
  return dir;
}


test('rollup bundle over the limit with its source map: the own lines are read, the log of the token is red on its line', async (t) => {
  const dir = padded(t);
  const r = await assertOwnLineRed(dir, 'build/index.cjs');
  const note = (r.inputs?.skipped ?? []).find((s) => s.file === 'build/index.cjs');
  assert.equal(note?.cause, 'bundled-libraries');
  assert.ok((note?.size ?? 0) > DEFAULT_PARSE_BUDGET, 'the padded library is what was left out');
});

test('the same rollup bundle without the token in the log: not red, and not file-not-read', async (t) => {
  const dir = padded(t, { edit: (s) => s.replace('console.log(`Parley bot logged in with token ${token}`);', 'console.error("Parley bot logged in");;;;;;;;;;;;;') });
  const r = await audit({ target: { path: dir } });
  for (const id of ['X-7', 'C-6']) {
    const s = stateOf(r, id);
    assert.doesNotMatch(s, /^non-conforming/, `${id}: ${s}`);
    assert.doesNotMatch(s, /file-not-read/, `${id}: ${s}`);
  }
});

test('the rollup bundle without its map stays unread, named as a bundle without module marks (rollup)', async (t) => {
  const dir = padded(t, { map: 'drop' });
  const r = await audit({ target: { path: dir } });
  const p = staticPart(r, 'X-7');
  assert.equal(`${p?.state}:${p?.reason?.code}`, 'could-not-judge:file-not-read');
  assert.equal(p?.reason?.data?.file, 'build/index.cjs');
  assert.equal(p?.reason?.data?.cause, 'bundle-without-modules');
  assert.equal(p?.reason?.data?.bundler, 'rollup');
});

test('a source map whose cut leaves code that does not parse is not used: the bundle stays unread, named', () => {
  // A library function whose closing line the map gives to the package's own source: cutting the library lines
  // leaves a brace that closes nothing.
  const text = ['function libHelper() {', '  return process.env.SECRET;', '} console.log("started");', ''].join('\n');
  const map = JSON.stringify({ version: 3, sources: ['../node_modules/helper/index.js', '../src/index.js'], mappings: 'AAAA;AACA;ACCA' });
  const own = ownModules(text, map);
  assert.ok(own?.byMap && own.text.startsWith('\n\n}'), 'the map cuts the library lines');
  const read = (limit: number) => (text.length <= limit ? { ok: true as const, text, size: text.length } : { ok: false as const, cause: 'too-large' as const, size: text.length, limit });
  const screen = () => ({ ok: true as const, matched: [/console/], size: text.length });
  const beside = (rel: string) => (rel === 'build/index.cjs.map' ? { ok: true as const, text: map, size: map.length } : { ok: false as const, cause: 'missing' as const });
  const set = new SourceSet(40);
  assert.equal(set.add('build/index.cjs', read, screen, beside), undefined);
  assert.equal(set.unread[0]?.file, 'build/index.cjs');
  // The same map over a cut that parses: read.
  const fine = text.replace('} console.log', '}\nconsole.log');
  const fineMap = JSON.stringify({ version: 3, sources: ['../node_modules/helper/index.js', '../src/index.js'], mappings: 'AAAA;AACA;AACA;ACCA' });
  const readFine = (limit: number) => (fine.length <= limit ? { ok: true as const, text: fine, size: fine.length } : { ok: false as const, cause: 'too-large' as const, size: fine.length, limit });
  const set2 = new SourceSet(40);
  const sf = set2.add('build/index.cjs', readFine, screen, () => ({ ok: true as const, text: fineMap, size: fineMap.length }));
  assert.ok(sf && !sf.getFullText().includes('SECRET') && sf.getFullText().includes('console.log("started")'));
});

test('source map location: the sourceMappingURL line, inline maps, <file>.map, nothing outside the package', () => {
  assert.deepEqual(sourceMapOf('x();\n//# sourceMappingURL=index.cjs.map\n', 'build/index.cjs'), { file: 'build/index.cjs.map' });
  assert.deepEqual(sourceMapOf('x();\n//# sourceMappingURL=../maps/a.map', 'build/index.cjs'), { file: 'maps/a.map' });
  assert.deepEqual(sourceMapOf('x();\n', 'build/index.cjs'), { file: 'build/index.cjs.map' });
  assert.equal(sourceMapOf('x();\n//# sourceMappingURL=../../../etc/x.map', 'build/index.cjs'), undefined);
  assert.equal(sourceMapOf('x();\n//# sourceMappingURL=https://cdn.example/x.map', 'build/index.cjs'), undefined);
  const inline = Buffer.from('{"version":3}').toString('base64');
  assert.deepEqual(sourceMapOf(`x();\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${inline}`, 'build/index.cjs'), { inline: '{"version":3}' });
});

test('source map regions: library lines and the wrapper lines around them are cut, own lines and imports kept', () => {
  const text = readFileSync(join(fixture, 'build', 'index.cjs'), 'utf8');
  const map = readFileSync(join(fixture, 'build', 'index.cjs.map'), 'utf8');
  const own = ownModules(text, map);
  assert.ok(own?.byMap);
  assert.equal(own.text.split('\n').length, text.split('\n').length, 'line breaks kept');
  for (const gone of ['class ParleyClient', 'zlib.deflateSync', 'function requireFrameCodec', 'return frameCodec;']) assert.ok(!own.text.includes(gone), gone);
  for (const kept of ["var require$$0 = require('zlib');", 'const TOOLS = [', 'Parley bot logged in with token', 'exports.start = start;']) assert.ok(own.text.includes(kept), kept);
  // A map of another file (more lines than the bundle) or naming no library source cuts nothing.
  const parsed = JSON.parse(map) as { mappings: string; sources: string[] };
  assert.equal(ownModules(text, JSON.stringify({ ...parsed, mappings: parsed.mappings + ';'.repeat(500) })), undefined);
  assert.equal(ownModules(text, JSON.stringify({ ...parsed, sources: parsed.sources.map((s) => s.replace('node_modules/', 'lib/')) })), undefined);
  assert.equal(ownModules(text), undefined, 'no map, no module marks');
  assert.equal(unsplitBundler(text), 'rollup');
});

test('bundlers without module marks are recognised by their runtime', () => {
  assert.equal(unsplitBundler('var commonjsGlobal = typeof globalThis !== "undefined" ? globalThis : {};\n'), 'rollup');
  assert.equal(unsplitBundler('function requireUtils () {\n\tif (hasRequiredUtils) return utils;\n\thasRequiredUtils = 1;\n'), 'rollup');
  assert.equal(unsplitBundler('var $parcel$global = globalThis;\nfunction $parcel$interopDefault(a) { return a && a.__esModule ? a.default : a; }\n'), 'parcel');
  assert.equal(unsplitBundler('const x = require("./a");\nmodule.exports = x;\n'), undefined);
});

const browserify = [
  '(function(){function r(e,n,t){function o(i,f){return n[i]}return o}return r})()({1:[function(require,module,exports){',
  "const { ChatClient } = require('chatlib');",
  "const { tools } = require('./tools');",
  'console.log(`token ${process.env.CHAT_TOKEN}`);',
  '},{"./tools":2,"chatlib":3,"@modelcontextprotocol/sdk/server/mcp.js":undefined}],2:[function(require,module,exports){',
  "exports.tools = [{ name: 'post' }];",
  '},{}],3:[function(require,module,exports){',
  "const wire = require('./wire');",
  'module.exports.ChatClient = class ChatClient { send() { return wire.open(); } };',
  '},{"./wire":4}],4:[function(require,module,exports){',
  "exports.open = () => require('net').connect(443);",
  '},{}],5:[function(require,module,exports){',
  'module.exports = function unused() { return 1; };',
  '},{}]},{},[1]);',
  '',
].join('\n');

test('browserify module map: modules a bare name reaches are libraries, the entries and their relative requires own', () => {
  const libs = packageRegionsExcept(browserify, new Set());
  const at = (s: string) => browserify.indexOf(s);
  assert.ok(inRegions(libs, at('class ChatClient')), 'required by a bare name');
  assert.ok(inRegions(libs, at("require('net')")), 'required relatively by a library module');
  assert.ok(inRegions(libs, at('function unused')), 'required by nothing');
  assert.ok(!inRegions(libs, at('console.log(`token')), 'the entry is own');
  assert.ok(!inRegions(libs, at("name: 'post'")), 'a relative require of the entry is own');
  const own = ownModules(browserify);
  assert.ok(own && !own.byMap);
  assert.equal(own.text.split('\n').length, browserify.split('\n').length);
  // What is left is still one object literal of modules.
  assert.doesNotThrow(() => new Function(own.text));
  assert.deepEqual([...browserifyResolved(browserify)].sort(), ['./tools', './wire', 'chatlib']);
  // A map whose entries do not follow each other (a bundle inlined in a module) is not split.
  assert.deepEqual(packageRegionsExcept(browserify.replace('},{}],3:[', '},{}],\n3:['), new Set()), []);
});
