import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RepoFacts } from '../src/facts/repo.js';
import { parsedSources } from '../src/facts/ts-source.js';
import { DEPENDENCY_LIMITS } from '../src/facts/published.js';

/**
 * A published launcher that serves HTTP routes with a web framework installed beside it (express-like: one
 * package that requires a few dozen small packages, each a few KB). When the server is not found in what was
 * read, a dependency that could not be read is named; the name must say why it was not read: a package past the
 * count of packages followed is named for that count, never as "larger than" the byte limit of one dependency
 * (a 36 KB folder was named as larger than 12 MB), and a dependency stopped by the count of its files is named
 * for that count. A dependency that fits is read. The trees are built here.
 */

function write(root: string, rel: string, text: string): void {
  const f = join(root, rel);
  mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(f, text);
}

/** A launcher package (bin over dist/) importing `web-kit` (which requires `helpers` small packages) and `fetchy`. */
function launcher(root: string, helpers: number, bigHelper = false): void {
  write(root, 'package.json', JSON.stringify({ name: 'routes-launcher', version: '1.0.0', type: 'module', main: 'dist/index.js', bin: { 'routes-launcher': './dist/cli.js' }, dependencies: { 'web-kit': '^4.0.0', fetchy: '^3.0.0' } }, null, 2));
  write(root, 'dist/cli.js', "#!/usr/bin/env node\nimport { RoutesServer } from './index.js';\nnew RoutesServer(process.env.API_URL).start(Number(process.env.PORT ?? 3000));\n");
  write(root, 'dist/index.js', [
    "import webKit from 'web-kit';",
    "import fetch from 'fetchy';",
    'export class RoutesServer {',
    '    constructor(api = "http://localhost:11434") {',
    '        this.app = webKit();',
    '        this.api = api;',
    "        this.app.get('/models', async (req, res) => res.json(await (await fetch(`${this.api}/api/tags`)).json()));",
    '    }',
    '    start(port) {',
    '        this.app.listen(port);',
    '    }',
    '}',
    '',
  ].join('\n'));
  const names = Array.from({ length: helpers }, (_, i) => `helper-${String(i).padStart(2, '0')}`);
  const nm = join(root, 'node_modules');
  write(nm, 'web-kit/package.json', JSON.stringify({ name: 'web-kit', version: '4.0.0', main: 'index.js', dependencies: Object.fromEntries(names.map((n) => [n, '^1.0.0'])) }));
  write(nm, 'web-kit/index.js', `'use strict';\nmodule.exports = require('./lib/app');\n`);
  write(nm, 'web-kit/lib/app.js', `'use strict';\n${names.map((n, i) => `var h${i} = require('${n}');`).join('\n')}\nmodule.exports = function createApp() {\n  var routes = [];\n  return { get: function (p, fn) { routes.push([p, fn]); }, listen: function () { return routes.length + h0.size; } };\n};\n`);
  names.forEach((n, i) => {
    write(nm, `${n}/package.json`, JSON.stringify({ name: n, version: '1.0.0', main: 'index.js' }));
    // A few KB each, as the small packages of an HTTP framework are.
    const body = Array.from({ length: 40 }, (_, k) => `function part${k}(value) {\n  return typeof value === 'string' ? value.slice(${k}) : value;\n}\nexports.part${k} = part${k};\n`).join('');
    write(nm, `${n}/index.js`, `'use strict';\nexports.size = ${i};\n${body}`);
  });
  if (bigHelper) {
    // One helper whose index requires more modules than are read from one dependency (a few bytes each).
    const n = DEPENDENCY_LIMITS.files + 10;
    write(nm, 'helper-00/index.js', `'use strict';\n${Array.from({ length: n }, (_, k) => `require('./lib/m${k}');`).join('\n')}\nexports.size = 0;\n`);
    for (let k = 0; k < n; k++) write(nm, `helper-00/lib/m${k}.js`, `'use strict';\nexports.v${k} = ${k};\n`);
  }
  write(nm, 'fetchy/package.json', JSON.stringify({ name: 'fetchy', version: '3.0.0', type: 'module', main: 'src/index.js' }));
  write(nm, 'fetchy/src/index.js', 'export default async function fetch(url) {\n  return { json: async () => ({ url }) };\n}\n');
}

const unread = (dir: string) => parsedSources(RepoFacts.gather(dir, [])).unread.map((u) => ({ ...u }));

describe('the dependencies followed from a launcher: what is named as not read, and why', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-depbudget-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('an HTTP framework of some thirty small packages: all read, none named (was: named as larger than 12 MB)', () => {
    const dir = join(tmp, 'thirty');
    launcher(dir, 30);
    assert.deepEqual(unread(dir), []);
  });

  it('more small packages than are followed: the ones past the count are named for the count, never for a size', () => {
    const dir = join(tmp, 'many');
    const helpers = DEPENDENCY_LIMITS.packages + 5;
    launcher(dir, helpers);
    const u = unread(dir);
    assert.ok(u.length > 0);
    for (const f of u) {
      assert.match(f.file, /^node_modules\/helper-\d\d\/$/);
      assert.deepEqual([f.cause, f.limit], ['too-many-dependencies', DEPENDENCY_LIMITS.packages], f.file);
    }
    // web-kit and fetchy (depth 1) and the first helpers were followed: the count is what stopped the walk.
    assert.equal(u.length, helpers + 2 - DEPENDENCY_LIMITS.packages);
  });

  it('one dependency with more modules than are read from one: named for that count of files, its small siblings are read', () => {
    const dir = join(tmp, 'big');
    launcher(dir, 10, true);
    assert.deepEqual(unread(dir), [{ file: 'node_modules/helper-00/', cause: 'dependency-too-many-files', limit: DEPENDENCY_LIMITS.files }]);
  });
});
