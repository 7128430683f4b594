import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RepoFacts } from '../facts/repo.js';
import type { RecordedSession } from '../probe/session.js';
import { renderMarkdown } from '../report/markdown.js';
import { compactText } from '../server/compact.js';
import { sourceDirOf } from './paths.js';
import { KIND_TOOLS_SHOWN, kindInputs, kindWhyText, servedAppTools } from './kind.js';
import type { Report } from './runner.js';

/**
 * The report says why the target is an App (issue 12 §4): from the served tools (which link a View, with which
 * `_meta` key) and from the repository (the ext-apps dependency, the UI extension in mcp.json). The sessions are
 * real recordings of our App fixtures: registerAppTool serves the nested key and the flat copy; the flat-key
 * fixture serves the flat key alone.
 */

const fx = join(sourceDirOf(import.meta.url), '..', 'detectors', 'A-6-ga-ui-key', 'fixtures');
const session = (rel: string) => JSON.parse(readFileSync(join(fx, rel, 'session.json'), 'utf8')) as RecordedSession;
const code = (s: string) => `\`${s}\``;

/** A copy of a recording whose tools/list answers list `tools` instead. */
function withTools(s: RecordedSession, tools: Record<string, unknown>[]): RecordedSession {
  const copy = structuredClone(s);
  for (const c of copy.connections) for (const m of c.messages) {
    const r = (m.message as { result?: { tools?: unknown } }).result;
    if (r && Array.isArray(r.tools)) r.tools = tools;
  }
  return copy;
}

describe('why the target is an App', () => {
  it('names each served App tool with the key it links its View by (nested and the flat copy of registerAppTool)', () => {
    const k = kindInputs('app', { configured: false, session: session('present/vanilla-notes') })!;
    assert.deepEqual(k.because, [{ by: 'served', tools: [{ name: 'show_notes', keys: ['nested', 'flat'] }] }]);
    assert.equal(kindWhyText(k, 'en', code), 'Why App: 1 served tool links a ui:// View: `show_notes` (`_meta.ui.resourceUri`, `_meta["ui/resourceUri"]`).');
    assert.equal(kindWhyText(k, 'fr', code), 'Pourquoi App : 1 outil servi lie une vue ui:// : `show_notes` (`_meta.ui.resourceUri`, `_meta["ui/resourceUri"]`).');
  });

  it('the flat key alone, and the repository: the ext-apps dependency', () => {
    const dir = join(fx, 'non-conforming', 'flat-key');
    const k = kindInputs('app', { configured: false, repo: RepoFacts.gather(dir), session: session('non-conforming/flat-key') })!;
    assert.deepEqual(k.because, [
      { by: 'dependency', name: '@modelcontextprotocol/ext-apps' },
      { by: 'served', tools: [{ name: 'show_notes', keys: ['flat'] }] },
    ]);
  });

  it('a server needs no reason; a kind set in the configuration says so', () => {
    assert.equal(kindInputs('server', { configured: false, session: session('present/vanilla-notes') }), undefined);
    assert.deepEqual(kindInputs('app', { configured: true })?.because, [{ by: 'config' }]);
  });

  it('a hostile tools/list: at most 20 names, the rest counted, each name quoted inertly in Markdown and in the MCP text', () => {
    const base = session('present/vanilla-notes');
    const tools = Array.from({ length: KIND_TOOLS_SHOWN + 5 }, (_, i) => ({
      name: `t${String(i).padStart(2, '0')}\`\n# forged [link](http://x)`,
      inputSchema: { type: 'object' },
      _meta: { ui: { resourceUri: 'ui://x/v.html' } },
    }));
    const k = kindInputs('app', { configured: false, session: withTools(base, tools) })!;
    const served = k.because[0] as { by: 'served'; tools: unknown[]; more?: number };
    assert.equal(served.tools.length, KIND_TOOLS_SHOWN);
    assert.equal(served.more, 5);
    const report: Report = { tool: { name: 'mcp-doctor', version: 't' }, target: { command: ['x'], kind: 'app' }, inputs: { kind: k }, results: [] };
    const md = renderMarkdown(report, 'en');
    const line = md.split('\n').find((l) => l.startsWith('Why App:'))!;
    assert.ok(line, md.slice(0, 400));
    assert.match(line, /25 served tools link a ui:\/\/ View: .* and 5 more\.$/);
    assert.ok(!md.split('\n').some((l) => l.startsWith('# forged')), 'no forged heading');
    const text = compactText({ tool: report.tool, target: { kind: 'app' }, locale: 'en', summary: { present: 0, absent: 0, nonConforming: 0, couldNotJudge: 0, notApplicable: 0, suppressed: 0 }, failing: 0, red: [], couldNotJudge: [] }, 'en', 'x', 'mcp-doctor probe', k);
    const lines = text.split('\n');
    assert.match(lines[1]!, /^Why App: 25 served tools link/);
    assert.ok(!lines.some((l) => l.startsWith('# forged')));
  });
});

describe('a package that only hosts Apps is not an App', () => {
  const pkg = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'kind-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'k', version: '1.0.0', dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    return dir;
  };
  it('imports of app-bridge alone (an inspector, an auditor): server; fixtures and tests do not count', () => {
    const dir = pkg({
      'src/host.ts': "import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';\nexport const b = AppBridge;\n",
      'test/fixtures/app/server.ts': "import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';\n",
    });
    try {
      assert.equal(RepoFacts.gather(dir).kind(), 'server');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('an author entry imported anywhere in the published source (or no import at all): app', () => {
    const cases: Record<string, string>[] = [
      { 'src/host.ts': "import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';\n", 'src/server.ts': "import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';\n" },
      { 'src/view.ts': "const { App } = require('@modelcontextprotocol/ext-apps');\n" },
      { 'src/index.ts': 'export {};\n' },
    ];
    for (const files of cases) {
      const dir = pkg(files);
      try {
        assert.equal(RepoFacts.gather(dir).kind(), 'app', Object.keys(files).join(', '));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('a package whose own code links a tool to a ui:// View is an App without the SDK in package.json', () => {
  const judge = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'kind-source-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { '@modelcontextprotocol/sdk': '1.25.0' } }));
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(dir, rel, '..'), { recursive: true });
        writeFileSync(join(dir, rel), text);
      }
      const repo = RepoFacts.gather(dir);
      return { kind: repo.kind(), why: kindInputs(repo.kind(), { configured: false, repo }) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const link = 'const URI = "ui://notes/view.html";\nserver.registerTool("show", { _meta: { ui: { resourceUri: URI } } }, show);\n';
  it('the server code writes a ui:// URI and the resourceUri key (or the App MIME type): app, named by the file', () => {
    const got = judge({ 'dist/server.js': link });
    assert.equal(got.kind, 'app');
    assert.deepEqual(got.why?.because, [{ by: 'source', file: 'dist/server.js' }]);
    assert.equal(kindWhyText(got.why!, 'en', code), 'Why App: `dist/server.js` links a tool to a ui:// View.');
    assert.equal(judge({ 'server.py': 'URI = "ui://notes/view.html"\nMIME = "text/html;profile=mcp-app"\n' }).kind, 'app');
  });
  it('a key without a ui:// URI, a ui:// string alone, or a link only in tests, examples or declaration files: server', () => {
    assert.equal(judge({ 'dist/host.js': 'const uri = tool._meta.ui.resourceUri;\nrender({ resourceUri: uri });\n' }).kind, 'server');
    assert.equal(judge({ 'dist/docs.js': 'export const HELP = "Views use ui:// URIs";\nconst u = "ui://x";\n' }).kind, 'server');
    assert.equal(judge({ 'test/app.test.js': link, 'examples/notes/server.js': link, 'dist/types.d.ts': link }).kind, 'server');
  });
  it('the link read as code: a registration argument, a tool object\'s _meta, or the App MIME type beside a registered ui:// URI: app', () => {
    const mime = 'const MIME = "text/html;profile=mcp-app";\nserver.registerResource("v", "ui://notes/v.html", { mimeType: MIME }, read);\n';
    assert.equal(judge({ 'dist/server.js': mime }).kind, 'app');
    const table = 'export const tools = [{ name: "show", _meta: { "ui/resourceUri": `ui://notes/${"v"}.html` } }];\n';
    assert.equal(judge({ 'src/tools.ts': table }).kind, 'app');
  });
  it('a link only in comments, in a client reading _meta.ui, in test doubles or in a bundled library: server', () => {
    const doc = '/**\n * A tool links a View: `_meta: { ui: { resourceUri: "ui://weather/forecast.html" } }`\n */\nexport const viewOf = (tool) => tool._meta?.ui?.resourceUri;\n';
    assert.equal(judge({ 'dist/host.js': doc }).kind, 'server');
    const client = 'const HOME = "ui://host/home.html";\nconst uri = tool._meta.ui.resourceUri ?? HOME;\nshow({ resourceUri: uri });\n';
    assert.equal(judge({ 'dist/host.js': client }).kind, 'server');
    assert.equal(judge({ 'dist/testing/mock-server.js': link, 'src/mocks/app.ts': link, 'lib/fixtures/app.js': link }).kind, 'server');
    const bundle = '// node_modules/kit/dist/index.js\n' + link + '\n// src/index.ts\nkit.tool("add", "Add", {}, add);\n';
    assert.equal(judge({ 'dist/index.js': bundle }).kind, 'server');
    assert.equal(judge({ 'dist/index.js': '// node_modules/kit/dist/index.js\nvar k = 1;\n\n// src/index.ts\n' + link }).kind, 'app');
  });
});

/**
 * Packages that write `ui://` and `resourceUri` without serving an App of their own (test/fixtures/app-kind/server):
 * a host whose only link is a JSDoc example, a host that exports a mock App server under `testing/`, and a stdio
 * server bundled with esbuild whose only link is in a bundled toolkit's module. All are servers, so the A-* rules
 * are not applicable to them (kind-mismatch).
 */
describe('packages that only mention, mock or bundle a ui:// link are servers', () => {
  const dir = join(sourceDirOf(import.meta.url), '..', '..', 'test', 'fixtures', 'app-kind', 'server');
  const cases = readdirSync(dir);
  it('has the three shapes', () => assert.deepEqual(cases.sort(), ['bundled-toolkit-widget-library', 'host-jsdoc-view-example', 'host-mock-app-server-testing']));
  for (const c of cases) {
    it(c, () => {
      const repo = RepoFacts.gather(join(dir, c));
      assert.equal(repo.kind(), 'server');
      assert.deepEqual(repo.appEvidence(), {});
    });
  }
});
