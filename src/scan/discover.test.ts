import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { discover } from '../facts/client-configs.js';

/** A scratch project and home with one configuration file per client, shaped as each client writes them. */
function scratch(files: Record<string, string>): { project: string; home: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'mcp-doctor-scan-'));
  const project = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel.replace('$PROJECT', project));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text.replaceAll('$PROJECT', project));
  }
  return { project, home, root };
}

describe('scan: discovery of configured servers', () => {
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('finds every client file with the line of each server', () => {
    const s = scratch({
      'project/.mcp.json': '{\n  "mcpServers": {\n    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "."] },\n    "remote": { "type": "http", "url": "https://mcp.example.com/mcp" }\n  }\n}\n',
      'project/.cursor/mcp.json': '{ "mcpServers": {\n  "cursor-one": { "command": "node", "args": ["server.js"] } } }',
      'project/.vscode/mcp.json': '{\n  // VS Code allows comments and trailing commas\n  "inputs": [],\n  "servers": {\n    "vs": { "type": "stdio", "command": "node", "args": ["a.js"], },\n  },\n}\n',
      'home/.claude.json': '{"numStartups": 3,\n "mcpServers": {\n  "user-one": {"command": "node", "args": ["u.js"]}\n },\n "projects": {\n  "$PROJECT": {\n   "mcpServers": {\n    "local-one": {"command": "node", "args": ["l.js"]}\n   }\n  },\n  "/elsewhere": { "mcpServers": { "not-this-project": {"command": "node"} } }\n }\n}\n',
      'home/.config/Claude/claude_desktop_config.json': '{ "mcpServers": { "desktop": { "command": "uvx", "args": ["mcp-server-time"] } } }',
      'home/Library/Application Support/Claude/claude_desktop_config.json': '{ "mcpServers": { "desktop-mac": { "command": "node" } } }',
      'home/AppData/Roaming/Claude/claude_desktop_config.json': '{ "mcpServers": { "desktop-win": { "command": "node.exe" } } }',
      'home/.cursor/mcp.json': '{ "mcpServers": { "cursor-user": { "url": "https://example.com/sse" } } }',
      'home/.config/Code/User/settings.json': '{\n  "editor.fontSize": 14, // a comment\n  "mcp": {\n    "servers": {\n      "from-settings": { "command": "node", "args": ["s.js"] }\n    }\n  }\n}\n',
      'home/.codeium/windsurf/mcp_config.json': '{ "mcpServers": { "wind": { "command": "npx", "args": ["-y", "wind-mcp"] } } }',
      'home/.codex/config.toml': 'model = "o3"\n\n[mcp_servers.codex-one]\ncommand = "npx"\nargs = ["-y", "codex-mcp@1.0.0"]\n\n[mcp_servers."quoted name"]\ncommand = "node"\nenv = { A = "1" }\n',
    });
    roots.push(s.root);
    const d = discover({ project: s.project, home: s.home });
    const got = d.servers.map((x) => `${x.client}|${x.scope}|${x.name}|${x.file}:${x.line}|${x.transport}`);
    assert.deepEqual(got, [
      'claude-code|project|files|.mcp.json:3|stdio',
      'claude-code|project|remote|.mcp.json:4|http',
      'claude-code|user|user-one|~/.claude.json:3|stdio',
      'claude-code|local|local-one|~/.claude.json:8|stdio',
      'claude-desktop|user|desktop|~/.config/Claude/claude_desktop_config.json:1|stdio',
      'claude-desktop|user|desktop-mac|~/Library/Application Support/Claude/claude_desktop_config.json:1|stdio',
      'claude-desktop|user|desktop-win|~/AppData/Roaming/Claude/claude_desktop_config.json:1|stdio',
      'cursor|project|cursor-one|.cursor/mcp.json:2|stdio',
      'cursor|user|cursor-user|~/.cursor/mcp.json:1|http',
      'vscode|project|vs|.vscode/mcp.json:5|stdio',
      'vscode|user|from-settings|~/.config/Code/User/settings.json:5|stdio',
      'windsurf|user|wind|~/.codeium/windsurf/mcp_config.json:1|stdio',
      'codex|user|codex-one|~/.codex/config.toml:3|stdio',
      'codex|user|quoted name|~/.codex/config.toml:7|stdio',
    ]);
    const codex = d.servers.find((x) => x.name === 'codex-one')!;
    assert.deepEqual(codex.args, ['-y', 'codex-mcp@1.0.0']);
    assert.equal(codex.lines.args, 5);
    assert.deepEqual(d.servers.find((x) => x.name === 'quoted name')!.env, { A: '1' });
    assert.ok(d.files.every((f) => f.status === 'read'));
  });

  it('only reads the clients asked for', () => {
    const s = scratch({ 'project/.mcp.json': '{"mcpServers":{"a":{"command":"node"}}}', 'home/.cursor/mcp.json': '{"mcpServers":{"b":{"command":"node"}}}' });
    roots.push(s.root);
    assert.deepEqual(discover({ project: s.project, home: s.home, clients: ['cursor'] }).servers.map((x) => x.name), ['b']);
  });

  it('reports malformed, oddly shaped and non-regular files with a cause, and never crashes', () => {
    const s = scratch({
      'project/.mcp.json': '{\n  "mcpServers": {\n    "a": { "command": "node", }\n  }\n}\n', // a trailing comma: not JSON
      'home/.cursor/mcp.json': '{ "mcpServers": ["not", "an", "object"] }',
      'home/.codex/config.toml': '[mcp_servers.x]\ncommand = \n',
      'home/.codeium/windsurf/mcp_config.json': '',
      'home/.claude.json': '[1, 2]',
    });
    roots.push(s.root);
    mkdirSync(join(s.home, '.config', 'Claude', 'claude_desktop_config.json'), { recursive: true }); // a folder where a file is expected
    const d = discover({ project: s.project, home: s.home });
    assert.deepEqual(d.servers, []);
    const st = Object.fromEntries(d.files.map((f) => [`${f.file}`, `${f.status}${f.line ? `@${f.line}` : ''}`]));
    assert.deepEqual(st, {
      '.mcp.json': 'malformed@3',
      '~/.claude.json': 'malformed@1',
      '~/.config/Claude/claude_desktop_config.json': 'not-regular',
      '~/.cursor/mcp.json': 'unexpected-shape',
      '~/.codeium/windsurf/mcp_config.json': 'malformed@1',
      '~/.codex/config.toml': 'malformed@2',
    });
  });

  it('reports a file nested deeper than the parser can follow as malformed, without a crash', () => {
    const s = scratch({ 'project/.mcp.json': `{"mcpServers":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, 'home/.cursor/mcp.json': '{"mcpServers":{"ok":{"command":"node"}}}' });
    roots.push(s.root);
    const d = discover({ project: s.project, home: s.home });
    assert.deepEqual(d.files.map((f) => `${f.file} ${f.status} ${f.detail ?? ''}`), ['.mcp.json malformed too-deep', '~/.cursor/mcp.json read ']);
    assert.deepEqual(d.servers.map((x) => x.name), ['ok']);
  });

  it('keeps names and values from a hostile file as data (control characters, odd types)', () => {
    const s = scratch({ 'project/.mcp.json': JSON.stringify({ mcpServers: { 'evil\u001b[2J\nname': { command: 42, args: 'rm -rf /', env: ['x'] }, plain: 'not an object' } }) });
    roots.push(s.root);
    const d = discover({ project: s.project, home: s.home });
    assert.equal(d.servers[0]!.name, 'evil\u001b[2J\nname');
    assert.deepEqual(d.servers[0]!.odd, ['command', 'args', 'env']);
    assert.equal(d.servers[0]!.transport, 'unknown');
    assert.deepEqual(d.servers[1]!.odd, ['entry']);
  });

  it('does not follow a project file that links out of the project', () => {
    const s = scratch({ 'outside.json': '{"mcpServers":{"x":{"command":"node"}}}' });
    roots.push(s.root);
    symlinkSync(join(s.root, 'outside.json'), join(s.project, '.mcp.json'));
    const d = discover({ project: s.project, home: s.home });
    assert.deepEqual(d.servers, []);
    assert.equal(d.files[0]?.status, 'unreadable');
  });
});
