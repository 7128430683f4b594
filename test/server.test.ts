import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCatalog } from '../src/engine/catalog.js';
import { locales } from '../src/engine/i18n.js';
import { ownPackage, packageRoot } from '../src/engine/paths.js';
import { envelope, RawStdio } from './support/raw-stdio.js';

type Msg = Record<string, any>;
const catalog = loadCatalog();
const expectedResources = catalog.rules.length * locales().length;

async function listsOf(c: RawStdio, params: (extra?: Record<string, unknown>) => unknown) {
  const tools = (await c.request('tools/list', params())) as Msg;
  const prompts = (await c.request('prompts/list', params())) as Msg;
  const resources = (await c.request('resources/list', params())) as Msg;
  const templates = (await c.request('resources/templates/list', params())) as Msg;
  const read = (await c.request('resources/read', params({ uri: 'mcp-doctor://rules/fr/C-1' }))) as Msg;
  return { tools, prompts, resources, templates, read };
}

describe('mcp-doctor serve, 2026-07-28 client (server/discover)', () => {
  const c = new RawStdio();
  let discover: Msg;
  let lists: Awaited<ReturnType<typeof listsOf>>;
  before(async () => {
    // Generous: a start takes seconds on a busy machine.
    discover = (await c.request('server/discover', envelope(), 120_000)) as Msg;
    lists = await listsOf(c, (extra) => envelope(extra));
  });
  after(() => c.close());

  it('discover carries the package.json version, resultType and cache hints', () => {
    const r = discover.result;
    assert.ok(r, JSON.stringify(discover));
    assert.ok(r.supportedVersions.includes('2026-07-28'));
    assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].version, ownPackage().version);
    assert.equal(r.resultType, 'complete');
    assert.equal(typeof r.ttlMs, 'number');
    assert.ok(['public', 'private'].includes(r.cacheScope));
  });
  it('lists tools, prompts and resources with resultType, ttlMs and cacheScope', () => {
    for (const [name, m] of Object.entries(lists)) {
      assert.ok(m.result, `${name}: ${JSON.stringify(m.error)}`);
      assert.equal(m.result.resultType, 'complete', name);
      assert.equal(typeof m.result.ttlMs, 'number', name);
      assert.ok(['public', 'private'].includes(m.result.cacheScope), name);
    }
    const names = lists.tools.result.tools.map((t: Msg) => t.name).sort();
    assert.deepEqual(names, ['audit_client_config', 'audit_repository', 'explain_rule', 'fix_repository', 'list_rules', 'probe_endpoint']);
    for (const t of lists.tools.result.tools) {
      assert.ok(t.title && t.description && t.inputSchema && t.outputSchema && t.annotations, t.name);
      assert.ok(t._meta?.['dev.mcp-doctor/declarations']?.verb, `${t.name} declares its verb`);
    }
    assert.deepEqual(lists.prompts.result.prompts.map((p: Msg) => p.name), ['remediate']);
    assert.equal(lists.resources.result.resources.length, expectedResources);
    assert.equal(lists.templates.result.resourceTemplates[0].uriTemplate, 'mcp-doctor://rules/{locale}/{rule_id}');
    assert.match(lists.read.result.contents[0].text, /^# C-1 — /);
    assert.equal(lists.read.result.contents[0].mimeType, 'text/markdown');
  });
  it('explain_rule in French answers in French', async () => {
    const m = (await c.request('tools/call', envelope({ name: 'explain_rule', arguments: { rule_id: 'S-1', locale: 'fr' } }))) as Msg;
    assert.equal(m.result.isError, undefined);
    assert.equal(m.result.structuredContent.locale, 'fr');
    assert.equal(m.result.structuredContent.title, catalog.text('S-1', 'fr')!.title);
    assert.notEqual(catalog.text('S-1', 'fr')!.title, catalog.text('S-1', 'en')!.title);
    assert.match(m.result.content[0].text, /Ce que la règle vérifie/);
  });
  it('audit_repository returns a structured report and progress when asked', async () => {
    const m = (await c.request(
      'tools/call',
      envelope({ name: 'audit_repository', arguments: { path: packageRoot(), rules: ['C-1', 'S-1'], detail: 'full' }, _meta: { ...envelope()._meta, progressToken: 'p1' } }),
    )) as Msg;
    assert.ok(m.result.structuredContent, JSON.stringify(m));
    assert.deepEqual(m.result.structuredContent.results.map((r: Msg) => r.ruleId), ['C-1', 'S-1']);
    const progress = c.received.filter((x) => x.method === 'notifications/progress' && (x.params as Msg).progressToken === 'p1');
    assert.equal(progress.length, 2);
  });
  it('bad input gets a clear error and changes nothing', async () => {
    const m = (await c.request('tools/call', envelope({ name: 'audit_repository', arguments: { path: '/definitely/not/here' } }))) as Msg;
    assert.equal(m.result.isError, true);
    // One refusal for every path that cannot be used, naming the argument and no path (test/hostile/own-server).
    assert.match(m.result.content[0].text, /The path argument cannot be used/);
    assert.doesNotMatch(m.result.content[0].text, /definitely/);
    const bad = (await c.request('tools/call', envelope({ name: 'explain_rule', arguments: { rule_id: 'nope' } }))) as Msg;
    assert.ok(bad.error || bad.result.isError);
  });
  it('writes nothing but JSON-RPC on stdout', () => assert.deepEqual(c.nonJson, []));
});

describe('mcp-doctor serve, 2025-06-18 client (initialize)', () => {
  const c = new RawStdio();
  let init: Msg;
  let lists: Awaited<ReturnType<typeof listsOf>>;
  before(async () => {
    init = (await c.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } }, 120_000)) as Msg;
    c.notify('notifications/initialized');
    lists = await listsOf(c, (extra) => ({ ...extra }));
  });
  after(() => c.close());

  it('negotiates 2025-06-18 and reports the package version', () => {
    assert.equal(init.result.protocolVersion, '2025-06-18');
    assert.equal(init.result.serverInfo.version, ownPackage().version);
    assert.ok(init.result.capabilities.tools && init.result.capabilities.prompts && init.result.capabilities.resources);
  });
  it('answers every list completely', () => {
    assert.equal(lists.tools.result.tools.length, 6);
    assert.equal(lists.prompts.result.prompts.length, 1);
    assert.equal(lists.resources.result.resources.length, expectedResources);
    assert.match(lists.read.result.contents[0].text, /^# C-1 — /);
  });
  it('serves French when MCP_DOCTOR_LOCALE=fr', async () => {
    const fr = new RawStdio({ MCP_DOCTOR_LOCALE: 'fr' });
    try {
      await fr.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } }, 120_000);
      fr.notify('notifications/initialized');
      const tools = (await fr.request('tools/list')) as Msg;
      const audit = tools.result.tools.find((t: Msg) => t.name === 'audit_repository');
      assert.equal(audit.title, 'Auditer un dépôt');
    } finally {
      await fr.close();
    }
  });
});
