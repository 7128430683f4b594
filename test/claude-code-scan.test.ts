import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from './support/run.js';

const require = createRequire(import.meta.url);
const claude = join(require.resolve('@anthropic-ai/claude-code/package.json'), '..', 'bin', 'claude.exe');
const TOOL = 'mcp__mcp-doctor__audit_client_config';

/**
 * The real Claude Code from npm, offline, in a project whose .mcp.json declares mcp-doctor and an unpinned
 * server: asked to audit the project's MCP servers, the (stand-in) model calls audit_client_config, and the
 * result Claude Code hands back is our report of that .mcp.json. The model is a local HTTP server speaking the
 * Messages API (streaming): it asks for the tool when Claude Code offers it, and records the tool result.
 */
function standInModel(): Promise<{ server: Server; port: number; offered: () => boolean; result: () => string | undefined }> {
  let offered = false;
  let result: string | undefined;
  const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'stand-in', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let b: { stream?: boolean; tools?: { name: string }[]; messages?: { content: unknown }[] } = {};
      try {
        b = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      if (!req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1}');
        return;
      }
      const tools = (b.tools ?? []).map((t) => t.name);
      const results = (b.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; content?: unknown }[]) : [])).filter((c) => c.type === 'tool_result');
      if (results.length) result = JSON.stringify(results.at(-1)!.content);
      const call = tools.includes(TOOL) && !results.length;
      if (call) offered = true;
      if (!b.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...start.message, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' }));
        return;
      }
      const block = call ? { type: 'tool_use', id: 'toolu_01', name: TOOL, input: {} } : { type: 'text', text: '' };
      const delta = call ? { type: 'input_json_delta', partial_json: '{}' } : { type: 'text_delta', text: 'done' };
      const events: [string, unknown][] = [
        ['message_start', start],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
        ['message_stop', { type: 'message_stop' }],
      ];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [e, d] of events) res.write(`event: ${e}\ndata: ${JSON.stringify(d)}\n\n`);
      res.end();
    });
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, port: (server.address() as { port: number }).port, offered: () => offered, result: () => result })));
}

describe('Claude Code calls audit_client_config on the current project', () => {
  it('reads the project .mcp.json and reports the unpinned server at its line', { timeout: 600_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-doctor-cc-scan-'));
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(home);
    mkdirSync(project);
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { 'mcp-doctor': { command: process.execPath, args: [CLI, 'serve'] }, fetch: { command: 'uvx', args: ['mcp-server-fetch'] } } }, null, 2) + '\n',
    );
    // The project's servers approved beforehand, as a user who trusted the folder would have.
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ['mcp-doctor', 'fetch'] } } }));
    const model = await standInModel();
    const child = spawn(claude, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', TOOL], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
        ANTHROPIC_API_KEY: 'sk-ant-stand-in',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
        GIT_SSH_COMMAND: 'false',
        ENABLE_TOOL_SEARCH: 'false',
        MCP_TIMEOUT: '300000',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', () => undefined);
    const exited = new Promise<void>((ok) => child.on('close', () => ok()));
    const turns = () => out.split('\n').filter((l) => l.includes('"type":"result"')).length;
    try {
      // Claude Code connects MCP servers without waiting for them: a turn that comes before mcp-doctor is up does
      // not offer its tools. Ask again, turn after turn, until it does (or 40 turns).
      for (let turn = 0; turn < 40 && !model.result(); turn++) {
        child.stdin.write(JSON.stringify({ type: 'user', message: { role: 'user', content: 'Audit the MCP servers this project uses.' } }) + '\n');
        while (turns() <= turn) await new Promise((r) => setTimeout(r, 250));
        if (!model.offered()) await new Promise((r) => setTimeout(r, 3000));
      }
      const result = model.result();
      assert.ok(result, 'Claude Code returned the result of audit_client_config');
      // What Claude Code hands the model is the compact structured result (red rules with one line per finding).
      // Claude Code sends the resource link as one text block and the structured content as another.
      type Compact = { red: { ruleId: string; state: string; findings: string[] }[]; report?: string };
      let parsed = JSON.parse(result) as unknown;
      if (typeof parsed === 'string') parsed = JSON.parse(parsed);
      const blocks = Array.isArray(parsed) ? (parsed as { text?: string }[]).map((b) => b.text ?? '') : [];
      const json = blocks.find((t) => t.startsWith('{'));
      const compact = (json ? JSON.parse(json) : parsed) as Compact;
      assert.ok(Array.isArray(compact.red), String(result).slice(0, 600));
      const x3 = compact.red.find((r) => r.ruleId === 'X-3')!;
      assert.ok(x3, JSON.stringify(compact).slice(0, 500));
      assert.equal(x3.state, 'non-conforming');
      assert.equal(x3.findings.length, 1, JSON.stringify(x3.findings));
      assert.ok(x3.findings[0]!.startsWith('".mcp.json:12" '), x3.findings[0]);
      assert.match(x3.findings[0]!, /fetch/);
      assert.ok(compact.report?.startsWith('mcp-doctor://reports/'), 'the full report is one resources/read away');
    } finally {
      child.stdin.end();
      child.kill('SIGTERM');
      await exited;
      model.server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
