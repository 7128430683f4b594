import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { parseList } from '../src/batch/list.js';
import { scoreboardHtml, type ScoreRow } from '../src/batch/merge.js';
import { loopbackOnly, type BatchResult } from '../src/batch/run.js';
import { parseShard, shardOf } from '../src/batch/shard.js';
import { packageRoot } from '../src/engine/paths.js';
import { startRegistry, serveMain, type LocalRegistry } from './support/batch-registry.js';

/**
 * `mcp-doctor batch` and `merge` against a real npm registry started here: Verdaccio (devDependency) on
 * 127.0.0.1 with a random port, storage in a temp folder and no uplink, holding fixture servers this test
 * publishes with npm: two answering servers (one scoped), one that never answers, one that floods stdout, one
 * without a program, one whose install script would leave a mark, one that tries to reach the registry from
 * inside the probe. Then batch in two shards, a rerun that resumes (nothing judged twice) and a merge.
 */

const root = packageRoot();
const cli = join(root, 'dist', 'src', 'cli.js');

let tmp = '';
let reg: LocalRegistry | undefined;
let registry = '';
let npmrc = '';
const marks = { postinstall: '', network: '' };

const LIST = [
  'mcpd-fx-good@1.0.0',
  'mcpd-fx-good@1.1.0',
  '@mcpd-fx/scoped@2.0.0',
  'mcpd-fx-hang@1.0.0',
  'mcpd-fx-flood@1.0.0',
  'mcpd-fx-nobin@1.0.0',
  'mcpd-fx-scripts@1.0.0',
  'mcpd-fx-netcheck@1.0.0',
  'mcpd-fx-missing@9.9.9', // not in the registry: install fails
];

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'mcpd-batch-'));
  reg = await startRegistry(tmp);
  registry = reg.url;
  npmrc = reg.npmrc;
  marks.postinstall = join(tmp, 'postinstall-ran');
  marks.network = join(tmp, 'network-seen');
  const publish = reg.publish;
  await publish('mcpd-fx-good', '1.0.0', serveMain('good'));
  await publish('mcpd-fx-good', '1.1.0', serveMain('good'));
  await publish('@mcpd-fx/scoped', '2.0.0', serveMain('scoped'));
  await publish('mcpd-fx-hang', '1.0.0', `process.stdin.resume();\nsetInterval(() => {}, 1000);`);
  await publish('mcpd-fx-flood', '1.0.0', `const junk = 'x'.repeat(65536) + '\\n';\nconst w = () => { while (process.stdout.write(junk)); process.stdout.once('drain', w); };\nw();`);
  await publish('mcpd-fx-nobin', '1.0.0', '', { bin: undefined });
  await publish('mcpd-fx-scripts', '1.0.0', serveMain('scripts'), { scripts: { postinstall: `node -e "require('fs').writeFileSync('${marks.postinstall}', 'ran')"` } });
  await publish(
    'mcpd-fx-netcheck',
    '1.0.0',
    `import { writeFileSync } from 'node:fs';\nimport { serve } from './raw-stdio.mjs';\nfetch(${JSON.stringify(registry + '-/ping')}).then(() => writeFileSync(${JSON.stringify(marks.network)}, 'reached'), () => writeFileSync(${JSON.stringify(marks.network)}, 'blocked'));\nserve({ name: 'netcheck' });`,
  );
});

after(() => {
  reg?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const run = (args: string[], timeout = 240_000) =>
  execa(process.execPath, [cli, ...args], { reject: false, timeout, env: { npm_config_userconfig: npmrc, MCP_DOCTOR_LOCALE: 'en' }, stdin: 'ignore' });

const results = (dir: string): BatchResult[] =>
  existsSync(join(dir, 'results')) ? readdirSync(join(dir, 'results')).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, 'results', f), 'utf8')) as BatchResult) : [];

describe('batch list and shards', () => {
  it('reads name@version lines, a server.json and a registry API export; keeps npm packages only', () => {
    const lines = parseList('# servers\nmcpd-a@1.0.0\n@s/b@^2\nc\n\nnot a spec!!\n');
    assert.deepEqual(lines.entries, [{ name: 'mcpd-a', version: '1.0.0' }, { name: '@s/b', version: '^2' }, { name: 'c', version: 'latest' }]);
    assert.equal(lines.skipped.length, 1);
    const server = { name: 'io.github.x/weather', version: '1.2.0', packages: [{ registryType: 'npm', identifier: '@x/weather', version: '1.2.0', transport: { type: 'stdio' } }, { registryType: 'pypi', identifier: 'weather', version: '1.2.0' }] };
    assert.deepEqual(parseList(JSON.stringify(server)).entries, [{ name: '@x/weather', version: '1.2.0' }]);
    const api = { servers: [{ server, _meta: { 'io.modelcontextprotocol.registry/official': { isLatest: true } } }, { server: { ...server, packages: [{ registryType: 'npm', identifier: 'other', version: '0.1.0' }] } }], metadata: { count: 2 } };
    const read = parseList(JSON.stringify(api));
    assert.deepEqual(read.entries, [{ name: '@x/weather', version: '1.2.0' }, { name: 'other', version: '0.1.0' }]);
    assert.deepEqual(read.skipped, [{ what: 'pypi:weather', why: 'not-npm' }]);
  });
  it('a shard is stable: from the name, not the position in the list', () => {
    assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
    assert.equal(parseShard('0/3'), undefined);
    assert.equal(parseShard('4/3'), undefined);
    const names = Array.from({ length: 200 }, (_, i) => `pkg-${i}`);
    const counts = [0, 0, 0, 0];
    for (const n of names) counts[shardOf(n, 4) - 1]!++;
    for (const c of counts) assert.ok(c > 25, `shares are balanced: ${counts}`);
    assert.equal(shardOf('pkg-7', 4), shardOf('pkg-7', 4));
  });
  it('the scoreboard page escapes what a package gives', () => {
    const row: ScoreRow = { name: '<script>alert(1)</script>', requested: '1', version: '"><img src=x onerror=alert(1)>', status: 'unreachable', cause: '<b>x</b>', network: 'host', red: { C: 1 }, worst: [] };
    const html = scoreboardHtml([row], 'en');
    assert.doesNotMatch(html, /<script>|<img|<b>/);
    assert.match(html, /&lt;script&gt;/);
  });
});

describe('batch against a local registry (Verdaccio)', { timeout: 600_000 }, () => {
  it('two shards judge every server once, resume skips what is done, merge joins them deterministically', async () => {
    const list = join(tmp, 'servers.txt');
    writeFileSync(list, LIST.join('\n') + '\n');
    const out1 = join(tmp, 'shard-1');
    const out2 = join(tmp, 'shard-2');
    const common = ['--registry', registry, '--concurrency', '2', '--timeout-ms', '20000'];
    const t0 = Date.now();
    const [r1, r2] = [await run(['batch', list, '--output', out1, '--shard', '1/2', ...common]), await run(['batch', list, '--output', out2, '--shard', '2/2', ...common])];
    assert.ok(Date.now() - t0 < 300_000);
    // Some servers cannot be judged (hang, flood, no bin, missing): exit 1, and a result for each.
    assert.equal(r1.exitCode === 1 || r2.exitCode === 1, true, `${r1.stderr}\n${r2.stderr}`);
    const a = results(out1);
    const b = results(out2);
    assert.equal(a.length + b.length, LIST.length);
    for (const r of a) assert.equal(shardOf(r.name, 2), 1);
    for (const r of b) assert.equal(shardOf(r.name, 2), 2);
    const all = new Map([...a, ...b].map((r) => [`${r.name}@${r.requested}`, r]));
    assert.deepEqual([...all.keys()].sort(), [...LIST].sort());
    const good = all.get('mcpd-fx-good@1.1.0')!;
    assert.equal(good.status, 'judged');
    assert.equal(good.version, '1.1.0');
    assert.ok(good.report && good.report.results.length > 40);
    assert.equal(all.get('@mcpd-fx/scoped@2.0.0')!.status, 'judged');
    assert.equal(all.get('mcpd-fx-scripts@1.0.0')!.status, 'judged');
    assert.equal(existsSync(marks.postinstall), false, 'install scripts are off');
    assert.ok(['timeout', 'unreachable'].includes(all.get('mcpd-fx-hang@1.0.0')!.status));
    assert.notEqual(all.get('mcpd-fx-flood@1.0.0')!.status, 'judged');
    assert.equal(all.get('mcpd-fx-nobin@1.0.0')!.status, 'no-bin');
    assert.equal(all.get('mcpd-fx-missing@9.9.9')!.status, 'install-failed');
    if (await loopbackOnly()) {
      assert.equal(good.network, 'loopback-only');
      assert.match(r1.stderr + r2.stderr, /without a network/);
      assert.equal(readFileSync(marks.network, 'utf8'), 'blocked', 'the server could not reach the registry on the host loopback');
    } else assert.match(r1.stderr + r2.stderr, /host's network/);
    // Nothing is left installed.
    assert.deepEqual(readdirSync(join(out1, 'work')), []);

    // Resume: a rerun of shard 1 judges nothing again.
    const before = readdirSync(join(out1, 'results')).map((f) => statSync(join(out1, 'results', f)).mtimeMs);
    const again = await run(['batch', list, '--output', out1, '--shard', '1/2', ...common], 60_000);
    assert.equal(again.exitCode, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /installing and probing/);
    assert.match(again.stderr, /already judged/);
    assert.deepEqual(readdirSync(join(out1, 'results')).map((f) => statSync(join(out1, 'results', f)).mtimeMs), before);

    // Merge, twice, in both orders: the same files.
    const m1 = await run(['merge', out1, out2, '--output', join(tmp, 'merged-1')]);
    const m2 = await run(['merge', out2, out1, '--output', join(tmp, 'merged-2')]);
    assert.equal(m1.exitCode, 0, m1.stderr);
    assert.equal(m2.exitCode, 0, m2.stderr);
    for (const f of ['report.json', 'scoreboard.json', 'scoreboard.html']) assert.equal(readFileSync(join(tmp, 'merged-1', f), 'utf8'), readFileSync(join(tmp, 'merged-2', f), 'utf8'), f);
    const board = JSON.parse(readFileSync(join(tmp, 'merged-1', 'scoreboard.json'), 'utf8')) as { scoreboard: ScoreRow[] };
    assert.deepEqual(board.scoreboard.map((r) => `${r.name}@${r.requested}`), [...LIST].sort());
    const row = board.scoreboard.find((r) => r.name === 'mcpd-fx-good' && r.requested === '1.1.0')!;
    assert.equal(row.version, '1.1.0');
    assert.deepEqual(Object.keys(row.red), ['C', 'S', 'A', 'E', 'X']);
    assert.match(readFileSync(join(tmp, 'merged-1', 'scoreboard.html'), 'utf8'), /mcpd-fx-good/);
  });
});
