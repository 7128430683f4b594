import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keysOf, locales, placeholders, raw } from '../engine/i18n.js';
import type { ConfiguredServer } from '../facts/client-configs.js';
import { judgeConfig, launchedPackage, plainHttp, SCAN_MESSAGES, secretsIn, setNames, shellLaunch, unpinned } from './judge.js';

/** A configured server as discovery gives it (lines: each field on its own line after the name). */
function server(name: string, fields: Partial<ConfiguredServer>, file = '.mcp.json', line = 3): ConfiguredServer {
  return { client: 'claude-code', scope: 'project', name, file, path: `/p/${file}`, line, transport: fields.url ? 'http' : 'stdio', lines: { command: line + 1, args: line + 2, env: line + 3, url: line + 1, headers: line + 2 }, odd: [], ...fields };
}

// Shaped like real tokens, generated for this test (not live credentials).
const GH = 'ghp_' + 'Zq8RkT2mW9xLp4Vn7Bc1Hs6Jd3Fg5Ka0Ye2U';
const RANDOM = 'Qm9x7TzP4kLw2VnR8sYb3HcJ6dFg1AeU';

describe('scan: judging a configuration (nothing started)', () => {
  it('finds secrets written in env, headers, args and URLs, masked, at their line', () => {
    const s = server('api', { command: 'node', args: ['server.js', '--api-key', RANDOM, `--token=${GH}`], env: { GITHUB_PERSONAL_ACCESS_TOKEN: GH, LOG_LEVEL: 'debug' } });
    const f = secretsIn(s);
    assert.deepEqual(f.map((x) => x.data!.field), ['env.GITHUB_PERSONAL_ACCESS_TOKEN', 'args[2]', 'args[3]']);
    assert.ok(f.every((x) => !String(x.evidence).includes(GH.slice(8)) && !String(x.evidence).includes(RANDOM.slice(4))), 'values are masked');
    const r = server('remote', { url: `https://u:${RANDOM}@mcp.example.com/mcp?api_key=${RANDOM}`, headers: { Authorization: `Bearer ${RANDOM}`, 'X-Trace': 'on' } });
    assert.deepEqual(secretsIn(r).map((x) => x.data!.field), ['headers.Authorization', 'url (user:password)', 'url ?api_key']);
  });
  it('leaves references, placeholders and ordinary values alone', () => {
    const s = server('ok', { command: 'node', args: ['--token', '${input:token}', '--port', '8080'], env: { GITHUB_TOKEN: '${env:GITHUB_TOKEN}', API_KEY: 'your-api-key-here', MODE: 'Qm9x7TzP4kLw2VnR8sYb' } });
    assert.deepEqual(secretsIn(s), []);
    assert.deepEqual(secretsIn(server('h', { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } })), []);
  });

  it('flags plain http to another host, not to this machine', () => {
    assert.equal(plainHttp(server('a', { url: 'http://mcp.example.com/mcp' }))[0]?.data?.host, 'mcp.example.com');
    assert.equal(plainHttp(server('b', { url: 'http://10.0.0.5:8080/mcp' })).length, 1);
    for (const url of ['http://localhost:3000/mcp', 'http://127.0.0.1:3000/mcp', 'http://[::1]:3000/mcp', 'https://mcp.example.com/mcp']) assert.deepEqual(plainHttp(server('c', { url })), [], url);
  });

  it('tells pinned launches from unpinned ones', () => {
    const cases: [string, string[], boolean | undefined, string?][] = [
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], false, 'no_version'],
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/tmp'], true],
      ['npx', ['-y', 'tavily-mcp@latest'], false, 'tag'],
      ['npx', ['tavily-mcp@^0.2.0'], false, 'range'],
      ['npx', ['-y', 'github:someone/some-mcp#main'], false, 'git'],
      ['npx', ['-y', 'github:someone/some-mcp#0123456789abcdef0123456789abcdef01234567'], true],
      ['npx.cmd', ['-y', '--package=firecrawl-mcp', 'firecrawl-mcp'], false, 'no_version'],
      ['pnpm', ['dlx', 'some-mcp@1.2.3'], true],
      ['bunx', ['some-mcp'], false, 'no_version'],
      ['uvx', ['mcp-server-fetch'], false, 'no_version'],
      ['uvx', ['mcp-server-fetch==2025.4.7'], true],
      ['uvx', ['--from', 'git+https://github.com/x/y', 'y'], false, 'git'],
      ['uv', ['tool', 'run', 'mcp-server-time>=1'], false, 'range'],
      ['node', ['dist/index.js'], undefined],
      ['/usr/local/bin/my-server', [], undefined],
    ];
    for (const [command, args, pinned, how] of cases) {
      const p = launchedPackage(server('x', { command, args }));
      assert.equal(p?.pinned, pinned, `${command} ${args.join(' ')}`);
      if (how) assert.equal(p?.how, how, `${command} ${args.join(' ')}`);
      assert.equal(unpinned(server('x', { command, args })).length, pinned === false ? 1 : 0);
    }
  });

  it('flags launches through a shell string', () => {
    assert.equal(shellLaunch(server('a', { command: 'bash', args: ['-c', 'cd /srv && node index.js'] }))[0]?.data?.shell, 'bash');
    assert.equal(shellLaunch(server('b', { command: 'cmd', args: ['/c', 'npx', '-y', 'x'] }))[0]?.data?.shell, 'cmd');
    assert.equal(shellLaunch(server('c', { command: 'npx -y some-mcp' }))[0]?.data?.shell, 'command');
    assert.deepEqual(shellLaunch(server('d', { command: 'node', args: ['-e', 'x'] })), []);
    assert.deepEqual(shellLaunch(server('e', { command: 'C:\\Program Files\\nodejs\\node.exe' })), []);
  });

  it('sees one name in two places with other settings, and one server declared twice differently', () => {
    const a = server('files', { command: 'npx', args: ['-y', 'fs-mcp@1.0.0', '/tmp'] });
    const b = { ...server('files', { command: 'node', args: ['/opt/files.js'] }, '~/.claude.json', 10), scope: 'user' as const };
    const c = { ...server('fs', { command: 'npx', args: ['-y', 'fs-mcp@1.0.0', '/home'] }, '.vscode/mcp.json', 4), client: 'vscode' as const };
    const same = { ...server('files', { command: 'npx', args: ['-y', 'fs-mcp@1.0.0', '/tmp'] }, '.cursor/mcp.json', 2), client: 'cursor' as const };
    const f = setNames([a, b, c, same]);
    assert.deepEqual(f.map((x) => `${x.messageId} ${x.data!.server} ${x.location!.file}:${x.location!.line}`), [
      'config-name-collision files ~/.claude.json:10',
      'config-conflicting-duplicate fs .vscode/mcp.json:6',
    ]);
    // Identical declarations in two places are not a conflict.
    assert.deepEqual(setNames([a, same]), []);
  });

  it('judges a clean configuration clean', () => {
    const clean = [
      server('fs', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2025.8.21', '/work'], env: { LOG_LEVEL: 'info' } }),
      server('remote', { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:MCP_TOKEN}' } }),
      server('local', { url: 'http://127.0.0.1:8080/mcp' }),
    ];
    assert.deepEqual(judgeConfig(clean), []);
  });

  it('has a text in every locale for every scan message, with exactly the declared placeholders', () => {
    for (const [rule, msgs] of Object.entries(SCAN_MESSAGES)) {
      for (const [id, ph] of Object.entries(msgs)) {
        for (const l of locales()) {
          const used = new Set<string>();
          for (const part of ['message', 'fix']) {
            const key = `findings.${rule}.${id}.${part}`;
            assert.ok(keysOf(l).includes(key), `${l}: ${key}`);
            for (const p of placeholders(raw(l, key)!)) used.add(p);
          }
          assert.deepEqual([...used].sort(), [...ph].sort(), `${l}: findings.${rule}.${id}`);
        }
      }
    }
  });
});
