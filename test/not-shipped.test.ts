import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit } from '../src/run/audit.js';
import { packageRoot } from '../src/engine/paths.js';

/**
 * A published package whose `bin` launcher imports a `dist/` it does not ship: the server's code is not there to
 * read, so no part that reads code comes out clean over it — it says could-not-judge file-not-read, naming the
 * missing module (cause not-shipped). The same package with its dist/ shipped is read and judged; a checkout whose
 * .gitignore leaves dist/ out (a build output, built from the source beside it) is judged as before.
 * test/fixtures/packages/launcher-dist-{missing,shipped}: a notes server shaped like a published package.
 */
const pkg = (name: string) => join(packageRoot(), 'test', 'fixtures', 'packages', name);
const staticPart = async (dir: string, rule: string) => {
  const r = await audit({ target: { path: dir } });
  const part = r.results.find((x) => x.ruleId === rule)?.parts.find((p) => p.genre === 'static');
  assert.ok(part, `${rule} has a static part`);
  return part;
};

test('a bin launcher over a dist/ that is not shipped: parts that read code say file-not-read, naming it', async () => {
  for (const rule of ['S-21', 'C-2', 'S-13']) {
    const p = await staticPart(pkg('launcher-dist-missing'), rule);
    assert.equal(p.state, 'could-not-judge', `${rule}: ${p.state} ${p.reason?.code}`);
    assert.equal(p.reason?.code, 'file-not-read');
    assert.deepEqual(p.reason?.data, { file: 'dist/index.js', cause: 'not-shipped' });
  }
});

test('the same package with its dist/ shipped is judged (S-21 not-applicable, C-2 present)', async () => {
  assert.equal((await staticPart(pkg('launcher-dist-shipped'), 'S-21')).reason?.code, 'no-process-launch');
  assert.equal((await staticPart(pkg('launcher-dist-shipped'), 'C-2')).state, 'present');
});

test('a checkout whose .gitignore leaves dist/ out is judged as before (the build output is not missing code)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'not-shipped-checkout-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(pkg('launcher-dist-missing'), dir, { recursive: true });
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n');
  const p = await staticPart(dir, 'S-21');
  assert.equal(p.state, 'not-applicable');
  assert.equal(p.reason?.code, 'no-process-launch');
});

/** A copy of launcher-dist-shipped whose bin launcher is replaced by `launcher`, with extra files written in. */
function variant(t: { after: (fn: () => void) => void }, launcher: string, extra: Record<string, string> = {}, drop: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'not-shipped-variant-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(pkg('launcher-dist-shipped'), dir, { recursive: true });
  writeFileSync(join(dir, 'bin', 'quillbook-notes-mcp.js'), launcher);
  for (const [rel, text] of Object.entries(extra)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  for (const rel of drop) rmSync(join(dir, rel), { recursive: true, force: true });
  return dir;
}

test('what the launcher needs and finds is not missing: package.json without extension, an optional require', async (t) => {
  const head = "#!/usr/bin/env node\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  const withPkg = variant(t, `${head}const pkg = require('../package');\nif (process.argv.includes('--version')) console.error(pkg.version);\nconst { main } = await import('../dist/index.js');\nawait main();\n`);
  assert.equal((await staticPart(withPkg, 'C-2')).state, 'present');
  const optional = variant(t, `${head}let local = {};\ntry {\n  local = require('./local-config');\n} catch {}\nconst extra = await import('./plugins.js').catch(() => undefined);\nconst { main } = await import('../dist/index.js');\nawait main(local, extra);\n`);
  assert.equal((await staticPart(optional, 'C-2')).state, 'present');
});

test('a dist/ path built from __dirname or import.meta.url that is not shipped is named too', async (t) => {
  const joined = variant(t, "#!/usr/bin/env node\nconst path = require('node:path');\nrequire(path.join(__dirname, '..', 'dist/index.cjs')).main();\n", {}, ['dist']);
  assert.deepEqual((await staticPart(joined, 'S-21')).reason?.data, { file: 'dist/index.cjs', cause: 'not-shipped' });
  const url = variant(t, "#!/usr/bin/env node\nconst { main } = await import(new URL('../dist/index.js', import.meta.url));\nawait main();\n", {}, ['dist']);
  assert.deepEqual((await staticPart(url, 'S-21')).reason?.data, { file: 'dist/index.js', cause: 'not-shipped' });
});

test('a package of a JavaScript monorepo whose dist/ is built from src/ beside it is judged from src/', async (t) => {
  // The .gitignore that leaves dist/ out lies above the audited folder: the counterpart src/index.js stands for it.
  const server = readFileSync(join(pkg('launcher-dist-shipped'), 'dist', 'index.js'), 'utf8');
  const dir = variant(t, "#!/usr/bin/env node\nimport { main } from '../dist/index.js';\nawait main();\n", { 'src/index.js': server }, ['dist']);
  const p = await staticPart(dir, 'C-2');
  assert.equal(p.state, 'present');
});
