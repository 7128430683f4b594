import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { probeAndJudge, ProbeUnreachable } from '../../src/run/probe.js';
import { RawStdio, MODERN } from '../support/raw-stdio.js';
import { CLEAN_TOOL, runCli, scratch, writeServer } from './support/servers.js';

/**
 * Exit codes a CI gate can trust (issue 10; issue 9 §1): when the target never answered anything — a missing
 * binary, a relative path resolved in the wrong folder, a crash before answering, a server that exits at once
 * — the probe is exit 3 with the bounded, inert tail of the server's stderr, not a report of could-not-judge
 * (exit 0). The MCP tool probe_endpoint answers the same with isError.
 */

const s = scratch();
after(() => s.cleanup());

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('hostile: exit codes', () => {
  it('a command that does not exist fails at once with exit 3, before any process is started', async () => {
    const steps: string[] = [];
    await assert.rejects(
      probeAndJudge({ command: ['mcp-doctor-no-such-command-4d2f'], onStep: (x) => steps.push(x) }),
      (e: unknown) => e instanceof ProbeUnreachable && e.data.cause === 'not-found' && e.data.command === 'mcp-doctor-no-such-command-4d2f',
    );
    assert.deepEqual(steps, [], 'no connection was attempted');
    const r = await runCli(['probe', '--', 'mcp-doctor-no-such-command-4d2f', '--stdio']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /mcp-doctor-no-such-command-4d2f/);
    assert.equal(r.stdout, '', 'no report');
  });

  it('a relative path resolved in the wrong folder is exit 3 (the launcher path, and a script node cannot find)', async () => {
    const missing = await runCli(['probe', '--cwd', s.dir, '--', './bin/server.js']);
    assert.equal(missing.code, 3, missing.stderr);
    assert.match(missing.stderr, /bin\/server\.js/);
    const crash = await runCli(['probe', '--cwd', s.dir, '--', process.execPath, 'dist/index.js']);
    assert.equal(crash.code, 3, crash.stderr);
    assert.match(crash.stderr, /Cannot find module/, 'the tail of the server\'s stderr says why');
    assert.equal(crash.stdout, '');
  });

  it('a server that exits at once is exit 3 with its stderr tail, bounded and stripped of control characters', async () => {
    const file = writeServer(s, 'exits.mjs', {
      setup: `process.stderr.write('x'.repeat(200000) + '\\n'); process.stderr.write('FATAL: WEATHER_API_KEY is not set \\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m\\n'); process.exit(1);`,
    });
    const r = await runCli(['probe', '--', process.execPath, file, s.tag]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /WEATHER_API_KEY is not set/);
    assert.doesNotMatch(r.stderr, CONTROL, 'no escape, BEL or C1 byte reaches the terminal');
    assert.ok(r.stderr.length < 8000, `${r.stderr.length} characters of stderr`);
    assert.equal(r.stdout, '');
  });

  it('a crash before answering is exit 3', async () => {
    const file = writeServer(s, 'crash.mjs', { onRequest: "  throw new Error('boom before answering');" });
    const r = await runCli(['probe', '--', process.execPath, file, s.tag]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /boom before answering/);
  });

  it('a server that answers is judged: exit 0 or 1 with a report, never 3', async () => {
    const file = writeServer(s, 'fine.mjs', { tools: [CLEAN_TOOL] });
    const r = await runCli(['probe', '--format', 'json', '--', process.execPath, file, s.tag]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.ok(JSON.parse(r.stdout).results.length > 60);
  });

  it('probe_endpoint answers isError when the target never answered', { timeout: 60_000 }, async () => {
    const sockets = new Set<Socket>();
    const hole = createServer((x) => {
      sockets.add(x);
      x.on('error', () => undefined);
    });
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', () => r()));
    const client = new RawStdio();
    try {
      const port = (hole.address() as { port: number }).port;
      const m = (await client.request(
        'tools/call',
        {
          name: 'probe_endpoint',
          arguments: { url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 1000 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'hostile-test', version: '1.0.0' },
          },
        },
        45_000,
      )) as { result?: { isError?: boolean; content?: { text?: string }[] } };
      assert.equal(m.result?.isError, true, JSON.stringify(m));
      assert.match(m.result!.content![0]!.text!, /never answered/);
    } finally {
      await client.close();
      for (const x of sockets) x.destroy();
      hole.close();
    }
  });
});
