import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
