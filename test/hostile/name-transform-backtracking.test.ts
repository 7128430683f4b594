import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RepoFacts } from '../../src/facts/repo.js';
import { serverModel } from '../../src/facts/server-model.js';

// Tool names passed through a local transform are computed by running the package's own string methods
// (server-model/name-transforms). A hostile package can give a pattern that backtracks without end on its own name:
// that pattern is not run, the name stays computed, and the audit goes on.
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function toolsOf(pattern: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-redos-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "t", "version": "1.0.0", "type": "module", "bin": "dist/index.js" }');
  writeFileSync(
    join(dir, 'dist/index.js'),
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const server = new McpServer({ name: 't', version: '1.0.0' });
const toolName = (s) => s.replace(${pattern}, '_').toLowerCase();
server.tool(toolName('${'a'.repeat(40)}!'), 'Does a thing.', async () => ({ content: [{ type: 'text', text: 'ok' }] }));
`,
  );
  return serverModel(RepoFacts.gather(dir, [])).tools;
}

describe('hostile: a tool-name transform whose pattern backtracks without end', () => {
  for (const pattern of ['/(a+)+$/', '/(a|a)+$/', '/(a)\\1+$/']) {
    it(`${pattern} is not run; the name stays computed`, () => {
      const [tool] = toolsOf(pattern);
      assert.ok(tool, 'the registration is still read');
      assert.equal(tool.nameIsLiteral, false);
    });
  }
  it('a plain pattern is run and gives the name', () => {
    const [tool] = toolsOf('/A/g');
    assert.equal(tool?.name, `${'a'.repeat(40)}!`);
    assert.equal(tool?.nameIsLiteral, true);
  });
});
