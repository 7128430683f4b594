import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { audit } from '../src/engine/runner.js';
import { scrubbedEnv } from '../src/probe/env.js';
import { probeStdio } from '../src/probe/probe.js';

const server = join(packageRoot(), 'test', 'fixtures', 'servers', 'hostile.mjs');

/** Running (a zombie waiting for its reaper is dead: it holds no resources and runs no code). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function probeHostile(mode: string) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-hostile-'));
  const pidfile = join(dir, 'pids');
  try {
    const session = await probeStdio({
      target: { command: process.execPath, args: [server], env: scrubbedEnv({ MODE: mode, PIDFILE: pidfile }) },
      limits: { requestTimeoutMs: 800, connectionTimeoutMs: 5000, maxLineBytes: 1024 * 1024 },
    });
    await new Promise((r) => setTimeout(r, 200));
    const pids = readFileSync(pidfile, 'utf8').split('\n').filter(Boolean).map(Number);
    return { session, pids };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a hostile target leaves nothing behind and yields a report', () => {
  it('garbage on stdout is recorded as noise (X-7 evidence), the protocol still read', async () => {
    const { session, pids } = await probeHostile('garbage');
    const legacy = session.connections.find((c) => c.label === 'legacy')!;
    assert.equal(legacy.outcome, 'answered');
    assert.ok(legacy.noise.some((l) => l.includes('Server starting')));
    assert.deepEqual(pids.filter(alive), []);
    const report = await audit({ target: { command: ['hostile'] }, session });
    assert.ok(report.results.length > 60);
  });
  it('a server that never answers times out on every connection', async () => {
    const { session, pids } = await probeHostile('silent');
    assert.deepEqual(session.connections.map((c) => c.outcome), ['timeout', 'timeout', 'timeout']);
    assert.deepEqual(pids.filter(alive), []);
  });
  it('megabytes on one line are discarded at the bound, not held', async () => {
    const { session, pids } = await probeHostile('megabytes');
    for (const c of session.connections) {
      assert.equal(c.truncated, true, c.label);
      assert.ok(JSON.stringify(c).length < 1024 * 1024, `${c.label} record stays small`);
    }
    assert.deepEqual(pids.filter(alive), []);
  });
  it('children, even one that left the process group, are killed with the server', async () => {
    const { session, pids } = await probeHostile('children');
    assert.equal(pids.length, 9, 'three connections, each a server and two children');
    assert.deepEqual(pids.filter(alive), []);
    assert.equal(session.connections[0]!.outcome, 'timeout');
  });
  it('a server that exits mid-call is reported as exited', async () => {
    const { session, pids } = await probeHostile('exit-mid-call');
    const legacy = session.connections.find((c) => c.label === 'legacy')!;
    assert.equal(legacy.exit?.code, 3);
    assert.deepEqual(pids.filter(alive), []);
  });
  it('the probed program gets a scrubbed environment', () => {
    const env = scrubbedEnv({ EXTRA: '1' }, { PATH: '/bin', HOME: '/h', AWS_SECRET_ACCESS_KEY: 'x', GITHUB_TOKEN: 'y' });
    assert.deepEqual(env, { PATH: '/bin', HOME: '/h', EXTRA: '1' });
  });
});
