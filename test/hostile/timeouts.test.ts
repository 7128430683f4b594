import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { probeLimits } from '../../src/run/probe.js';
import type { RecordedSession } from '../../src/probe/session.js';
import { runCli, scratch, writeServer } from './support/servers.js';

/**
 * Limits (issue 10): one overall deadline bounds the whole probe, over HTTP as over stdio — every
 * connection, every request, the HTTP transport checks. "Bounded" is asserted on what the target received
 * after the deadline (nothing), never on wall time.
 */

const s = scratch();
after(() => s.cleanup());

/** A TCP server that accepts connections, reads requests and never answers a byte. */
function blackHole(): Promise<{ server: Server; port: number; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('data', (d) => (requests += (d.toString('latin1').match(/^(POST|GET) /gm) ?? []).length));
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as { port: number }).port,
        requests: () => requests,
        close: () =>
          new Promise((r) => {
            for (const x of sockets) x.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

describe('hostile: limits hold over HTTP as over stdio', () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  before(async () => (hole = await blackHole()));
  after(() => hole.close());

  it('--timeout-ms 1000 on an HTTP server that never answers: exit 3, nothing sent after the deadline', { timeout: 60_000 }, async () => {
    const saved = s.file('http-silent.session.json');
    const r = await runCli(['probe', '--url', `http://127.0.0.1:${hole.port}/mcp`, '--timeout-ms', '1000', '--save-session', saved]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /never answered/);
    // The full scenario sends at least 7 requests (3 connections, 4 transport checks): the deadline cut it.
    assert.ok(hole.requests() <= 2, `${hole.requests()} requests reached the server`);
    const session = JSON.parse(readFileSync(saved, 'utf8')) as RecordedSession;
    assert.ok(session.actions.some((a) => a.kind === 'deadline'), 'the session says the overall limit was reached');
    assert.deepEqual(session.connections.map((c) => c.outcome).filter((o) => o !== 'timeout'), []);
  });

  it('--timeout-ms 1000 on a stdio server that never answers: exit 3, one start per era and the negotiation, no locale', { timeout: 60_000 }, async () => {
    const starts = s.file('silent-starts');
    const file = writeServer(s, 'silent.mjs', { setup: `fs.appendFileSync(${JSON.stringify(starts)}, 'start\\n');`, onRequest: '  return;' });
    const r = await runCli(['probe', '--timeout-ms', '1000', '--', process.execPath, file, s.tag]);
    assert.equal(r.code, 3, r.stderr);
    // The two eras and the version negotiation start at once; nothing more is started for a target that never answers.
    assert.ok(readFileSync(starts, 'utf8').trim().split('\n').length <= 3);
  });

  it('the default limits are the same for both transports and bounded overall', () => {
    const d = probeLimits(undefined);
    assert.equal(d.overallMs, 60_000);
    assert.ok(d.requestTimeoutMs <= 10_000 && d.requestTimeoutMs >= 1000);
    const one = probeLimits(1000);
    assert.equal(one.overallMs, 1000);
    assert.ok(one.requestTimeoutMs <= 1000 && one.connectionTimeoutMs <= 1000);
  });
});
