import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/engine/paths.js';
import { audit } from '../../src/run/audit.js';
import { scrubbedEnv } from '../../src/probe/env.js';
import { probeStdio } from '../../src/probe/probe.js';
import { settledLeftovers } from './support/servers.js';

const server = join(packageRoot(), 'test', 'fixtures', 'servers', 'hostile.mjs');

/**
 * Bounded capture and cleanup on a committed hostile fixture (test/fixtures/servers/hostile.mjs). Leftovers are
 * found by the probe's run marker in /proc (this process is the one probing, so its pid is the marker's
 * prefix): pids written by the server are namespace-local when the target runs in a PID namespace.
 */
const markerPrefix = `${process.pid}.`;

async function probeHostile(mode: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-hostile-'));
  const pidfile = join(dir, 'pids');
  try {
    const session = await probeStdio({
      target: { command: process.execPath, args: [server], env: scrubbedEnv({ MODE: mode, PIDFILE: pidfile }) },
      limits: { requestTimeoutMs: 3000, connectionTimeoutMs: 5000, maxLineBytes: 1024 * 1024 },
    });
    const pids = readFileSync(pidfile, 'utf8').split('\n').filter(Boolean).map(Number);
    return { session, pids };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a hostile target leaves nothing behind and yields a report', () => {
  it('garbage on stdout is recorded as noise (X-7 evidence), the protocol still read', async () => {
    const { session } = await probeHostile('garbage');
    const legacy = session.connections.find((c) => c.label === 'legacy')!;
    assert.equal(legacy.outcome, 'answered');
    assert.ok(legacy.noise.some((l) => l.includes('Server starting')));
    assert.deepEqual(await settledLeftovers({ markerPrefix }), []);
    const report = await audit({ target: { command: ['hostile'] }, session });
    assert.ok(report.results.length > 60);
  });
  it('a server that never answers times out on every connection', async () => {
    const { session } = await probeHostile('silent');
    assert.deepEqual(session.connections.map((c) => c.outcome), ['timeout', 'timeout', 'timeout']);
    assert.deepEqual(await settledLeftovers({ markerPrefix }), []);
  });
  it('megabytes on one line are discarded at the bound, not held', async () => {
    const { session } = await probeHostile('megabytes');
    for (const c of session.connections) {
      assert.equal(c.truncated, true, c.label);
      assert.ok(JSON.stringify(c).length < 1024 * 1024, `${c.label} record stays small`);
    }
    assert.deepEqual(await settledLeftovers({ markerPrefix }), []);
  });
  it('children, even one that left the process group, are killed with the server', async () => {
    const { session, pids } = await probeHostile('children');
    assert.equal(pids.length, 9, 'three connections, each a server and two children');
    assert.deepEqual(await settledLeftovers({ markerPrefix }), []);
    assert.equal(session.connections[0]!.outcome, 'timeout');
  });
  it('a server that exits mid-call is reported as exited', async () => {
    const { session } = await probeHostile('exit-mid-call');
    const legacy = session.connections.find((c) => c.label === 'legacy')!;
    assert.equal(legacy.exit?.code, 3);
    assert.deepEqual(await settledLeftovers({ markerPrefix }), []);
  });
  it('the probed program gets a scrubbed environment', () => {
    const env = scrubbedEnv({ EXTRA: '1' }, { PATH: '/bin', HOME: '/h', AWS_SECRET_ACCESS_KEY: 'x', GITHUB_TOKEN: 'y' });
    assert.deepEqual(env, { PATH: '/bin', HOME: '/h', EXTRA: '1' });
  });
});
