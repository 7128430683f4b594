import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { loadPythonParser } from '../src/facts/python-source.js';
import { RepoFacts } from '../src/facts/repo.js';
import { parsedSources } from '../src/facts/ts-source.js';
import { DEPENDENCY_LIMITS } from '../src/facts/published.js';
import { judgeFolder } from './support/detector-tester.js';
import { registry } from '../src/detectors/index.js';

/**
 * A published server whose MCP code lives in a dependency package of the same vendor (issue 20): the package's
 * `bin` is a launcher of a few lines that requires the dependency's program (`@acme/browser-core/lib/mcp/program`,
 * `import { start } from '@acme/desktop-core/mcp'`). The static reading follows the launcher's imports into the
 * installed dependency and judges the server there, with findings at the dependency's file and line — also when
 * the rest of the dependency is large (hundreds of modules, a vendored bundle of several MB) and reached from the
 * program but not from the server; a file of the server that is not read is named with its cause.
 */

const fx = (state: string, name: string) => join(packageRoot(), 'src', 'detectors', 'C-15-tool-annotations', 'fixtures', state, name);
const PRESENT = fx('present', 'launcher-over-core-program');
const RED = fx('non-conforming', 'launcher-over-core-tool-table');
const MISSING = fx('could-not-judge', 'launcher-core-not-installed');
const CORE = 'node_modules/@acme/browser-core';

function staticPart(rule: string, dir: string) {
  const { result } = judgeFolder(rule, registry.filter((d) => d.ruleId === rule && d.genre === 'static'), dir);
  const p = result.parts.find((x) => x.genre === 'static' && x.reason?.code !== 'no-python-source')!;
  return { state: p.state, code: p.reason?.code, data: p.reason?.data, at: p.findings.map((f) => `${f.messageId}@${f.location?.file}:${f.location?.line}`) };
}

/** Several MB of plain vendored code (no bundler comments), with what the pattern screen looks for. */
function vendoredBundle(bytes: number): string {
  const parts: string[] = ["'use strict';"];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const block = `function helper${i}(value) {\n  if (process.env.DEBUG_HELPERS) process.stderr.write('helper${i} ' + String(value) + '\\n');\n  return typeof value === 'string' ? value.trim() : value;\n}\nexports.helper${i} = helper${i};\n`;
    parts.push(block);
    size += block.length;
  }
  const base = readFileSync(join(PRESENT, CORE, 'lib/utilsBundleImpl.js'), 'utf8');
  return base + parts.join('');
}

describe('a server that lives in a dependency package, started by a thin launcher', () => {
  let tmp: string;
  before(async () => {
    await loadPythonParser();
    tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-depsrv-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('CommonJS launcher over lib/mcp/program, McpServer in the dependency: judged there (green)', () => {
    for (const rule of ['C-15', 'X-4', 'X-1', 'X-2']) assert.equal(staticPart(rule, PRESENT).state, 'present', rule);
    assert.deepEqual(staticPart('S-24', PRESENT).at, [`no-rate-guard@${CORE}/lib/mcp/tools/navigate.js:6`]);
  });

  it('ESM launcher over a subpath export, low-level Server with a tools table: the reds are at the dependency\'s lines', () => {
    const desk = 'node_modules/@acme/desktop-core/dist/mcp/tools';
    assert.deepEqual(staticPart('C-15', RED).at, [`read-only-tool-changes-things@${desk}/save-note.js:12`]);
    assert.deepEqual(staticPart('X-4', RED).at, [`argument-in-shell-command@${desk}/run-script.js:16`]);
  });

  for (const rule of ['C-4', 'C-8', 'C-15', 'S-24', 'X-4', 'X-8']) {
    it(`${rule}: the dependency is not installed: could-not-judge naming it`, () => {
      const p = staticPart(rule, MISSING);
      assert.deepEqual([p.state, p.code, p.data], ['could-not-judge', 'file-not-read', { file: 'node_modules/@acme/mail-core/', cause: 'dependency-not-installed' }]);
    });
  }

  it('a large dependency (hundreds of modules, a multi-MB vendored bundle) reached beside the server: the server is judged, the rest listed as skipped', () => {
    const dir = join(tmp, 'large');
    cpSync(PRESENT, dir, { recursive: true });
    const core = join(dir, CORE);
    // The browser host (reached from the program, not from the server) pulls in every protocol module.
    const n = DEPENDENCY_LIMITS.files + 50;
    mkdirSync(join(core, 'lib/server/protocol'), { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < n; i++) {
      const name = `domain${String(i).padStart(3, '0')}`;
      names.push(name);
      writeFileSync(join(core, 'lib/server/protocol', `${name}.js`), `'use strict';\nexports.${name} = { method: '${name}.enable', params: (p) => ({ ...p, id: ${i} }) };\n`);
    }
    writeFileSync(join(core, 'lib/server/protocol/index.js'), names.map((x) => `exports.${x} = require('./${x}').${x};`).join('\n') + '\n');
    const host = join(core, 'lib/server/browserHost.js');
    writeFileSync(host, `const protocol = require('./protocol/index');\n` + readFileSync(host, 'utf8'));
    writeFileSync(join(core, 'lib/utilsBundleImpl.js'), vendoredBundle(7 * 1024 * 1024));

    for (const rule of ['C-15', 'X-4', 'X-1', 'X-2']) assert.equal(staticPart(rule, dir).state, 'present', rule);
    assert.deepEqual(staticPart('S-24', dir).at, [`no-rate-guard@${CORE}/lib/mcp/tools/navigate.js:6`]);
    const parsed = parsedSources(RepoFacts.gather(dir, []));
    assert.deepEqual(parsed.unread, []);
    const skipped = new Map(parsed.screened.map((s) => [s.file, s.cause]));
    assert.equal(skipped.get(`${CORE}/lib/utilsBundleImpl.js`), 'too-large');
    assert.ok([...skipped.values()].filter((c) => c === 'too-many-files').length >= 50);
    for (const f of ['lib/mcp/index.js', 'lib/mcp/program.js', 'lib/mcp/tools/navigate.js', 'lib/mcp/tools/snapshot.js']) assert.ok(parsed.files.has(`${CORE}/${f}`), f);
  });

  it('a dependency whose server is one file too large to read: that file is named, not the whole dependency', () => {
    const dir = join(tmp, 'one-large-program');
    cpSync(MISSING, dir, { recursive: true });
    const core = join(dir, 'node_modules/@acme/mail-core');
    mkdirSync(join(core, 'lib/mcp'), { recursive: true });
    writeFileSync(join(core, 'package.json'), JSON.stringify({ name: '@acme/mail-core', version: '2.1.0', main: 'lib/index.js', dependencies: { '@modelcontextprotocol/sdk': '1.17.0' } }));
    const program = [
      "'use strict';",
      "const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');",
      "const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');",
      'exports.run = async () => {',
      "  const server = new McpServer({ name: 'acme-mail', version: '2.1.0' });",
      "  server.registerTool('list_folders', { description: 'List the mail folders' }, async () => ({ content: [{ type: 'text', text: 'INBOX' }] }));",
      '  await server.connect(new StdioServerTransport());',
      '};',
    ].join('\n');
    writeFileSync(join(core, 'lib/mcp/program.js'), program + '\n' + vendoredBundle(7 * 1024 * 1024));
    for (const rule of ['C-15', 'X-4']) {
      const p = staticPart(rule, dir);
      assert.deepEqual([p.state, p.code, (p.data as Record<string, unknown>).file, (p.data as Record<string, unknown>).cause], ['could-not-judge', 'file-not-read', 'node_modules/@acme/mail-core/lib/mcp/program.js', 'too-large'], rule);
    }
  });

  it('a file of the server itself too large to read: named with its cause, not the whole dependency', () => {
    const dir = join(tmp, 'large-in-server');
    cpSync(PRESENT, dir, { recursive: true });
    const core = join(dir, CORE);
    writeFileSync(join(core, 'lib/utilsBundleImpl.js'), vendoredBundle(7 * 1024 * 1024));
    const tool = join(core, 'lib/mcp/tools/snapshot.js');
    writeFileSync(tool, readFileSync(tool, 'utf8').replace("const { z } = require('zod');", "const { z } = require('zod');\nconst { debug } = require('../../utilsBundleImpl');"));
    for (const rule of ['C-15', 'X-4']) {
      const p = staticPart(rule, dir);
      assert.equal(p.state, 'could-not-judge', rule);
      assert.equal(p.code, 'file-not-read', rule);
      assert.deepEqual([(p.data as Record<string, unknown>).file, (p.data as Record<string, unknown>).cause], [`${CORE}/lib/utilsBundleImpl.js`, 'too-large'], rule);
    }
  });
});
