import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { audit } from '../src/run/audit.js';
import { inRegions, ownModules, packageRegionsExcept } from '../src/facts/bundle-regions.js';
import { packageRoot } from '../src/engine/paths.js';
import { DEFAULT_PARSE_BUDGET } from '../src/facts/budget.js';
import { assertOwnLineRed, redLine, staticPart, stateOf } from './support/bundle-audit.js';

/**
 * One bundle over the per-file limit, its module map kept by the bundler (webpack 5's `/***` `/ "./src/x.ts":`
 * entries, ncc's numeric ids, rspack's indented path keys, webpack's concatenated modules): the package's own
 * modules are read (lines kept), the library modules are left out and named in the skipped inputs. Without a
 * module map, the bundle stays unread (file-not-read naming it).
 *
 * test/fixtures/packages/webpack-chat-bot is a chat-platform bot server written by hand in webpack 5's CommonJS
 * output shape; the test pads its client library's module past the 5 MB per-file limit in a copy (the padding
 * is not kept in git).
 */
const fixture = join(packageRoot(), 'test', 'fixtures', 'packages', 'webpack-chat-bot');
const PAD_BYTES = DEFAULT_PARSE_BUDGET + 512 * 1024;

/** A copy of the fixture whose bundle is `edit`ed, then its library module padded past the limit. */
function padded(t: { after(fn: () => void): void }, edit: (text: string) => string = (s) => s): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-over-limit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(fixture, dir, { recursive: true });
  const file = join(dir, 'dist', 'index.js');
  const line = 'function parleyCodec_N(frame) { return frame.op === N ? { op: frame.op, d: frame.d, s: frame.s } : null; }\n';
  const pad: string[] = [];
  let size = 0;
  for (let i = 0; size < PAD_BYTES; i++) {
    const l = line.replace(/_N\b|=== N\b/g, (m) => m.replace('N', String(i)));
    pad.push(l);
    size += l.length;
  }
  writeFileSync(file, edit(readFileSync(file, 'utf8')).replace('/* PADDING */\n', pad.join('')));
  return dir;
}


test('webpack module map over the limit: the own modules are read, the console.log with the token is red on its line', async (t) => {
  const dir = padded(t);
  const r = await assertOwnLineRed(dir, 'dist/index.js');
  // The library modules are named as left out; the file itself counts as read.
  const skipped = r.inputs?.skipped ?? [];
  const note = skipped.find((s) => s.file === 'dist/index.js');
  assert.equal(note?.cause, 'bundled-libraries');
  assert.ok((note?.size ?? 0) > DEFAULT_PARSE_BUDGET, 'the padded library is what was left out');
});

test('the same bundle without the log to stdout and the token: not red, and not file-not-read', async (t) => {
  const dir = padded(t, (s) => s.replace(/ *console\.log\(`Parley bot logged in with token \$\{token\}`\);.*\n/, '    console.error("Parley bot logged in");\n'));
  const r = await audit({ target: { path: dir } });
  for (const id of ['X-7', 'C-6']) {
    const s = stateOf(r, id);
    assert.doesNotMatch(s, /^non-conforming/, `${id}: ${s}`);
    assert.doesNotMatch(s, /file-not-read/, `${id}: ${s}`);
  }
});

test('an over-limit bundle without module markers stays unread, named', async (t) => {
  // The same modules with numeric ids and no path comments: nothing tells the libraries from the package's code.
  let n = 100;
  const dir = padded(t, (s) =>
    s
      .replace(/^\/\*\*\*\/ "[^"]+":$/gm, () => `/***/ ${n++}:`)
      .replace(/^\/\*!\*+!\*\\\n {2}!\*\*\* .* \*\*\*!\n {2}\\\*+\/\n/gm, '')
      .replace(/__webpack_require__\(\/\*! [^*]+ \*\/ "[^"]+"\)/g, '__webpack_require__(0)'),
  );
  const text = readFileSync(join(dir, 'dist', 'index.js'), 'utf8');
  assert.doesNotMatch(text, /node_modules\/parley-client/);
  const r = await audit({ target: { path: dir } });
  const p = staticPart(r, 'X-7');
  assert.equal(`${p?.state}:${p?.reason?.code}`, 'could-not-judge:file-not-read');
  assert.equal(p?.reason?.data?.file, 'dist/index.js');
});

test('webpack named map: node_modules entries left out whole, own entries and the runtime kept, lines kept', () => {
  const text = readFileSync(join(fixture, 'dist', 'index.js'), 'utf8');
  const own = ownModules(text);
  assert.ok(own);
  assert.equal(own.text.split('\n').length, text.split('\n').length, 'line breaks kept');
  assert.ok(!own.text.includes('class ParleyClient') && !own.text.includes('class McpServer'), 'libraries left out');
  assert.ok(own.text.includes('exports.TOOLS = [') && own.text.includes('var __webpack_exports__ = __webpack_require__("./src/index.ts")'));
  const line = redLine(text);
  assert.ok(own.text.split('\n')[line - 1]!.includes('Parley bot logged in'), 'the own code keeps its line');
  assert.ok(own.left > 0);
});

test('ncc numeric ids: a module named under node_modules and what only it requires are libraries, the rest is own', () => {
  const bundle = [
    '/******/ (() => { // webpackBootstrap',
    '/******/ \tvar __webpack_modules__ = ({',
    '',
    '/***/ 7351:',
    '/***/ ((module, __unused_webpack_exports, __nccwpck_require__) => {',
    'const ws = __nccwpck_require__(2811);',
    'module.exports = class Gateway { connect() { return ws.open(); } };',
    '/***/ }),',
    '',
    '/***/ 2811:',
    '/***/ ((module) => {',
    'module.exports = { open() { return require("net").connect(443); } };',
    '/***/ }),',
    '',
    '/***/ 4120:',
    '/***/ ((module) => {',
    'module.exports = function secretOf() { return process.env.BOT_TOKEN; };',
    '/***/ }),',
    '',
    '/***/ 9001:',
    '/***/ ((module) => {',
    'module.exports = function neverRequired() { return 1; };',
    '/***/ })',
    '',
    '/******/ \t});',
    'var __webpack_exports__ = {};',
    '(() => {',
    '// EXTERNAL MODULE: ./node_modules/chatlib/src/index.js',
    'var src = __nccwpck_require__(7351);',
    'const secretOf = __nccwpck_require__(4120);',
    ';// CONCATENATED MODULE: ./src/index.ts',
    'console.log(secretOf());',
    '})();',
    '',
  ].join('\n');
  const libs = packageRegionsExcept(bundle, new Set());
  const at = (s: string) => bundle.indexOf(s);
  assert.ok(inRegions(libs, at('class Gateway')), 'named by EXTERNAL MODULE under node_modules');
  assert.ok(inRegions(libs, at('require("net")')), 'required only by a library module');
  assert.ok(inRegions(libs, at('neverRequired')), 'required by nothing the package runs');
  assert.ok(!inRegions(libs, at('process.env.BOT_TOKEN')), 'an unnamed module the entry requires is own');
  assert.ok(!inRegions(libs, at('console.log(secretOf())')), 'the entry is own');
  // Nothing named under node_modules: not a bundle we can split.
  assert.deepEqual(packageRegionsExcept(bundle.replace('./node_modules/chatlib/src/index.js', './src/gateway.js'), new Set()), []);
});

test('rspack path keys and webpack concatenated modules', () => {
  const bundle = [
    'var __webpack_modules__ = {',
    '    "../../node_modules/retry/lib/retry.js": function(module, exports1) {',
    '        exports1.operation = function() { return 1; };',
    '        if (exports1) {',
    '        }',
    '    },',
    '    "./src/tools.ts": function(module) {',
    '        module.exports = [{ name: "ping" }];',
    '    },',
    '};',
    '(() => {',
    ';// CONCATENATED MODULE: ./node_modules/kleur/index.mjs',
    'const kleur = { red: (s) => s };',
    ';// CONCATENATED MODULE: ./src/index.ts',
    'console.log(kleur.red("started"));',
    '})();',
    '',
  ].join('\n');
  const libs = packageRegionsExcept(bundle, new Set());
  const at = (s: string) => bundle.indexOf(s);
  assert.ok(inRegions(libs, at('exports1.operation')) && inRegions(libs, at('    },\n    "./src')), 'the rspack entry to its closing line');
  assert.ok(!inRegions(libs, at('name: "ping"')), 'an own rspack entry stays');
  assert.ok(inRegions(libs, at('const kleur')), 'a concatenated library module');
  assert.ok(!inRegions(libs, at('console.log(kleur')), 'the concatenated own module');
});
