import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../engine/paths.js';
import { runCli } from '../../test/support/run.js';

/** `mcp-doctor scan` without --probe: the faces (JSON, Markdown, SARIF), the exit codes, both languages. */
describe('mcp-doctor scan (static)', () => {
  const root = mkdtempSync(join(tmpdir(), 'mcp-doctor-scan-cli-'));
  const home = join(root, 'home');
  mkdirSync(join(home, '.codex'), { recursive: true });
  writeFileSync(join(home, '.codex', 'config.toml'), '[mcp_servers.notes]\ncommand = "node"\nargs = ["/opt/notes.js"]\nenv = { NOTES_TOKEN = "Zq8RkT2mW9xLp4Vn7Bc1Hs6Jd3Fg5Ka0" }\n');
  const project = join(packageRoot(), 'src', 'scan', 'fixtures', 'projects', 'unpinned');
  after(() => rmSync(root, { recursive: true, force: true }));

  it('lists every server with file and line in JSON, masks secrets, and exits 1 on red findings', async () => {
    const r = await runCli(['scan', '--project', project, '--home', home, '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const j = JSON.parse(r.stdout) as { scan: { servers: { name: string; file: string; line: number; envKeys?: string[] }[] }; results: { ruleId: string; state: string; findings: { messageId: string; evidence?: string; location?: { file: string; line: number } }[] }[] };
    assert.deepEqual(j.scan.servers.map((s) => `${s.name} ${s.file}:${s.line}`), ['filesystem .mcp.json:3', 'docs .mcp.json:7', 'notes ~/.codex/config.toml:1']);
    assert.deepEqual(j.scan.servers[2]!.envKeys, ['NOTES_TOKEN']);
    assert.ok(!r.stdout.includes('Zq8RkT2mW9xLp4Vn7Bc1'), 'the secret value never appears');
    const x6 = j.results.find((x) => x.ruleId === 'X-6')!;
    assert.deepEqual(x6.findings.map((f) => `${f.messageId} ${f.location?.file}:${f.location?.line} ${f.evidence}`), ['config-secret ~/.codex/config.toml:4 env.NOTES_TOKEN=Zq8R…']);
    assert.equal(j.results.find((x) => x.ruleId === 'X-8')!.state, 'could-not-judge');
  });

  it('points SARIF results into the configuration files', async () => {
    const r = await runCli(['scan', '--project', project, '--home', home, '--format', 'sarif', '--rules', 'X-3']);
    const sarif = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[] }[] }[] };
    const located = sarif.runs[0]!.results.filter((x) => x.locations).map((x) => `${x.ruleId} ${x.locations![0]!.physicalLocation.artifactLocation.uri}:${x.locations![0]!.physicalLocation.region?.startLine}`);
    assert.deepEqual(located, ['X-3 .mcp.json:5']);
  });

  it('speaks French, and exits 0 on a clean project', async () => {
    const clean = join(root, 'clean');
    mkdirSync(clean);
    writeFileSync(join(clean, '.mcp.json'), JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '.'] } } }));
    const r = await runCli(['scan', '--project', clean, '--home', join(root, 'empty-home'), '--locale', 'fr'].concat([]), {});
    assert.equal(r.code, 2, 'a missing --home folder is a usage error');
    mkdirSync(join(root, 'empty-home'));
    const ok = await runCli(['scan', '--project', clean, '--home', join(root, 'empty-home'), '--locale', 'fr']);
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /## Serveurs MCP configurés/);
    assert.match(ok.stdout, /`fs` — claude-code, project, `\.mcp\.json:1`, stdio/);
  });

  it('refuses an unknown client as a usage error', async () => {
    const r = await runCli(['scan', '--project', project, '--client', 'emacs']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown client "emacs"/);
  });
});
