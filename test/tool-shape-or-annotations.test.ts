import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';

// SDK v1 `server.tool(name, description, object, handler)`: the SDK reads the object as the input shape when its values
// are schemas, as annotations otherwise. A shape whose only key is `title` is still a shape (its values are calls).
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function toolsOf(middle: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-shape-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "t", "version": "1.0.0", "type": "module", "bin": "dist/index.js" }');
  writeFileSync(
    join(dir, 'dist/index.js'),
    `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
const server = new McpServer({ name: 't', version: '1.0.0' });
server.tool('set_title', 'Sets the window title.', ${middle}, async (a) => ({ content: [{ type: 'text', text: String(a) }] }));
`,
  );
  return serverModel(RepoFacts.gather(dir, [])).tools;
}

describe('server model: the object before a v1 handler', () => {
  it('is the input shape when its values are schemas, even with the key `title`', () => {
    const [tool] = toolsOf('{ title: z.string().describe("New title") }');
    assert.equal(tool?.name, 'set_title');
    assert.ok(tool?.inputSchema, 'the shape is the input schema');
    assert.equal(tool?.annotationsNode, undefined);
  });
  it('is annotations when its values are literals', () => {
    const [tool] = toolsOf('{ title: "Set title", readOnlyHint: false }');
    assert.equal(tool?.inputSchema, undefined);
    assert.ok(tool?.annotationsNode, 'the object is the annotations');
    assert.deepEqual(tool?.annotations, { readOnlyHint: false });
  });
});
