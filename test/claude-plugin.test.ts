import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot, ownPackage } from '../src/engine/paths.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const claude = join(require.resolve('@anthropic-ai/claude-code/package.json'), '..', 'bin', 'claude.exe');
const root = packageRoot();
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;

/** What each slash command must tell the model to call (a slash command's first turn carries no MCP tools). */
const COMMANDS: Record<string, string> = { audit: 'audit_repository', probe: 'probe_endpoint', explain: 'explain_rule' };

describe('Claude Code plugin', () => {
  it('plugin.json and marketplace.json carry the package version; each command names the tool to call', () => {
    const plugin = json('.claude-plugin/plugin.json');
    const market = json('.claude-plugin/marketplace.json') as { plugins: { name: string; version: string; source: string }[] };
    assert.equal(plugin.version, ownPackage().version);
    assert.deepEqual(
      market.plugins.map((p) => [p.name, p.version, p.source]),
      [[plugin.name, ownPackage().version, './']],
    );
    for (const [command, tool] of Object.entries(COMMANDS)) {
      const text = readFileSync(join(root, 'commands', `${command}.md`), 'utf8');
      assert.match(text, /^---\ndescription: .+\n/, `${command}: a description in the front matter`);
      assert.ok(text.includes(`\`${tool}\``), `${command}.md names ${tool}`);
      assert.ok(text.includes('$ARGUMENTS'), `${command}.md passes its arguments`);
    }
  });

  it('claude plugin marketplace add + plugin install: the server connects and the three commands are listed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-doctor-plugin-home-'));
    const project = mkdtempSync(join(tmpdir(), 'mcp-doctor-plugin-proj-'));
    // Offline: no official marketplace, no telemetry, no update, no git over SSH (notes on Claude Code).
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
      GIT_SSH_COMMAND: 'false',
    };
    const cc = (args: string[]) => run(claude, args, { cwd: project, env, timeout: 120_000 });
    try {
      const validated = await cc(['plugin', 'validate', root]);
      assert.match(validated.stdout, /Validation passed/);
      assert.match((await cc(['plugin', 'marketplace', 'add', root])).stdout, /Successfully added marketplace: mcp-doctor/);
      assert.match((await cc(['plugin', 'install', 'mcp-doctor@mcp-doctor'])).stdout, /Successfully installed plugin: mcp-doctor@mcp-doctor/);
      const { stdout: list } = await cc(['mcp', 'list']);
      assert.match(list, /plugin:mcp-doctor:mcp-doctor: .*dist\/src\/cli\.js serve - ✔ Connected/);
      const { stdout: details } = await cc(['plugin', 'details', 'mcp-doctor@mcp-doctor']);
      const components = details.split('\n').find((l) => /^\s*(Skills|Commands) \(\d+\)/.test(l)) ?? '';
      for (const command of Object.keys(COMMANDS)) assert.match(components, new RegExp(`\\b${command}\\b`), `${command} listed: ${components}`);
      assert.match(details, /MCP servers \(1\)\s+mcp-doctor/);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  });
});
