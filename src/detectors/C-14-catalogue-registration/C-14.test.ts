import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { defaultConfig, loadConfig } from '../../engine/config.js';
import { sourceDirOf } from '../../engine/paths.js';
import { entriesOf, queryCatalog } from '../../facts/catalog-client.js';
import { judgeGateFixture, testGateFolder, type CatalogHook } from '../../../test/support/gate-tester.js';

/**
 * C-14 against a real little catalogue: fixtures/present/gate-stable-release-registered/catalog-server.mjs (an MCP server built with the SDK) started with the
 * fixture's catalog.json, asked by the product's own client (src/facts/catalog-client.ts). The policy of each
 * fixture's package names the catalogue; the test starts the server from this folder (the package copy has no
 * node_modules), under the search tool name the fixture asks for.
 */
const here = sourceDirOf(import.meta.url);
// The catalogue server lives in the green fixture and serves every fixture's catalog.json.
const server = join(here, 'fixtures', 'present', 'gate-stable-release-registered', 'catalog-server.mjs');

const catalog: CatalogHook = async (root, fixture, scenario) => {
  const config = existsSync(join(root, '.mcp-doctor.json')) ? loadConfig(root).config : defaultConfig();
  const policy = config.policy.componentCatalog;
  if (!policy) return undefined;
  const command = [process.execPath, server, join(fixture, 'catalog.json'), ...(scenario.catalogTool ? ['--tool', scenario.catalogTool] : [])];
  return queryCatalog({ command, searchTool: policy.searchTool, cwd: root, timeoutMs: 30_000 }, readName(root));
};
const readName = (root: string): string => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name;

testGateFolder('C-14', detectors, import.meta.url, { catalog });

describe('C-14 dynamic part (the entry and its required fields)', () => {
  const fixtures = join(here, 'fixtures');
  it('is present when the entry carries every required field', async () => {
    const { result } = await judgeGateFixture('C-14', detectors, join(fixtures, 'present', 'gate-stable-release-registered'), { catalog });
    assert.equal(result.parts.find((p) => p.genre === 'dynamic')?.state, 'present');
  });
  it('is red when the entry is not bilingual, naming the field', async () => {
    const { result } = await judgeGateFixture('C-14', detectors, join(fixtures, 'absent', 'gate-release-not-registered'), { catalog });
    const part = result.parts.find((p) => p.genre === 'dynamic')!;
    assert.equal(part.state, 'non-conforming');
    assert.deepEqual(part.findings.map((f) => [f.messageId, f.data?.field]), [['catalog-field-missing', 'bilingual']]);
  });
  it('could not judge when the catalogue was not asked (audit, probe)', async () => {
    const { result } = await judgeGateFixture('C-14', detectors, join(fixtures, 'present', 'gate-stable-release-registered'));
    const part = result.parts.find((p) => p.genre === 'dynamic')!;
    assert.equal(part.state, 'could-not-judge');
    assert.equal(part.reason?.code, 'catalog-not-queried');
  });
});

describe('C-14 catalogue answers', () => {
  it('reads entries from structured content or from JSON text, never from prose', () => {
    assert.deepEqual(entriesOf({ structuredContent: { components: [{ name: 'a' }] } }), [{ name: 'a' }]);
    assert.deepEqual(entriesOf({ content: [{ type: 'text', text: '[{"name":"b"}]' }] }), [{ name: 'b' }]);
    assert.equal(entriesOf({ content: [{ type: 'text', text: 'Found b, version 1.0.0' }] }), undefined);
  });
  it('says why when the catalogue command cannot start', async () => {
    const r = await queryCatalog({ command: ['mcp-doctor-no-such-catalogue'], searchTool: 'search_components', cwd: here }, 'x');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason.code, 'catalog-unreachable');
  });
});
