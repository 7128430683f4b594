import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ciFacts, gitBlobId, readTarball, registryFacts } from '../src/facts/gate.js';

/** The gate's fact gatherers on real material: a local registry on port 0 for npm-registry-fetch, broken files. */
describe('gate facts', () => {
  it('asks the registry with npm-registry-fetch: a packument, a 404 (never published), an unreachable registry', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/@acme%2fweather-mcp') res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"@acme/weather-mcp","versions":{"1.0.0":{}}}');
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const registry = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const found = await registryFacts('@acme/weather-mcp', { registry });
      assert.ok(found.ok && found.value.packument?.name === '@acme/weather-mcp');
      const missing = await registryFacts('@acme/not-published', { registry });
      assert.ok(missing.ok && missing.value.packument === undefined);
    } finally {
      server.close();
    }
    const down = await registryFacts('@acme/weather-mcp', { registry: 'http://127.0.0.1:9/' });
    assert.equal(!down.ok && down.reason.code, 'registry-unreachable');
    const offline = await registryFacts('@acme/weather-mcp', { offline: true });
    assert.equal(!offline.ok && offline.reason.code, 'registry-offline');
  });
  it('a metadata file that is not a JSON object, and a tarball that is not one, are reasons', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-gate-facts-'));
    try {
      writeFileSync(join(tmp, 'meta.json'), '[1, 2]');
      const m = await registryFacts('x', { metadataFile: join(tmp, 'meta.json') });
      assert.equal(!m.ok && m.reason.code, 'registry-metadata-unreadable');
      writeFileSync(join(tmp, 'x.tgz'), 'not a tarball at all');
      const t = await readTarball(join(tmp, 'x.tgz'));
      assert.equal(!t.ok && t.reason.code, 'tarball-unreadable');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
  it('hashes like git, and keeps the token out of the CI facts', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    assert.equal(gitBlobId(Buffer.from('hello\n')), 'ce013625030ba8dba906f756967f9e9ca394464a');
    const ci = ciFacts({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '42', GITHUB_REPOSITORY: 'a/b', GITHUB_TOKEN: 'ghs_secret' });
    assert.deepEqual(ci, { provider: 'github', runId: '42', repository: 'a/b', apiUrl: 'https://api.github.com', serverUrl: 'https://github.com', token: true });
    assert.ok(!JSON.stringify(ci).includes('ghs_secret'));
  });
});
