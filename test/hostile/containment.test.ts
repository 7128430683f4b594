import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { CLEAN_TOOL, canarySetup, daemonSetup, IGNORE_SIGTERM_SETUP, killLeftovers, leftovers, scratch, settledLeftovers, startCli, waitForFile, writeServer } from './support/servers.js';

/**
 * Containment (issue 10): nothing a probed server starts outlives the probe — daemons that setsid() and
 * double-fork, processes that ignore SIGTERM, and all of them when mcp-doctor itself is interrupted — and the
 * target cannot read mcp-doctor's own environment through /proc. Leftovers are found by scanning /proc for the
 * probe's per-run marker (MCP_DOCTOR_RUN=<mcp-doctor pid>.<random>) and for the test's tag on command lines.
 */

const linux = process.platform === 'linux';
const s = scratch();
after(() => s.cleanup());

type Json = Record<string, any>;

/** A tag of its own for each probe, so that one case never sees another's processes. */
const newTag = () => `${s.tag}-${randomBytes(3).toString('hex')}`;

/** Probe a generated server with the real CLI; return the JSON report and what is left in /proc. */
async function probe(file: string, env: NodeJS.ProcessEnv = {}) {
  const tag = newTag();
  const run = startCli(['probe', '--format', 'json', '--timeout-ms', '6000', '--', process.execPath, file, tag], { env });
  const r = await run.done;
  const markerPrefix = `${run.child.pid}.`;
  const left = await settledLeftovers({ markerPrefix, tag });
  killLeftovers({ markerPrefix, tag });
  return { ...r, left, report: r.stdout ? (JSON.parse(r.stdout) as Json) : undefined };
}

/** A report came out (exit 0 or 1: red findings are expected on a bare server), not an operational failure. */
function assertReported(r: { code: number | null; stderr: string; report?: Json }): void {
  assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr}`);
  assert.ok(r.report?.results?.length, 'a report');
}

const FALLBACK = { MCP_DOCTOR_CONTAINMENT: 'process-group' };

describe('hostile: containment of what the probe starts', { skip: !linux && 'needs /proc' }, () => {
  it('a daemon that setsid()s, double-forks and ignores SIGTERM does not outlive the probe', async () => {
    const r = await probe(writeServer(s, 'daemon.mjs', { setup: daemonSetup() }));
    assertReported(r);
    assert.deepEqual(r.left, []);
    const c = r.report!.inputs?.containment;
    assert.ok(c && ['pid-namespace', 'process-group'].includes(c.method), JSON.stringify(r.report!.inputs));
    if (c.method === 'process-group') assert.ok(c.reason, 'the report says why there is no PID namespace');
  });

  it('in a PID namespace, even a daemon that drops its environment (and the marker) is gone', async (t) => {
    const r = await probe(writeServer(s, 'daemon-noenv.mjs', { setup: daemonSetup({ clearEnv: true }) }));
    if (r.report?.inputs?.containment?.method !== 'pid-namespace') return t.skip('no PID namespace here: the report says why');
    assert.deepEqual(r.left, []);
  });

  it('the process-group fallback kills every process carrying the run marker', async () => {
    const r = await probe(writeServer(s, 'daemon-fallback.mjs', { setup: daemonSetup() }), FALLBACK);
    assertReported(r);
    assert.equal(r.report!.inputs.containment.method, 'process-group');
    assert.ok(r.report!.inputs.containment.reason);
    assert.deepEqual(r.left, []);
  });

  it('a server and a child that ignore SIGTERM, SIGINT and the end of stdin are killed', async () => {
    for (const env of [{}, FALLBACK]) {
      const r = await probe(writeServer(s, 'stubborn.mjs', { setup: IGNORE_SIGTERM_SETUP }), env);
      assertReported(r);
      assert.deepEqual(r.left, [], JSON.stringify(env));
    }
  });

  // SIGKILL cannot be handled: then the kernel does the work (setpriv's parent-death signal on the namespace,
  // the launcher's pipe to mcp-doctor in the fallback).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    for (const [mode, env] of [['namespace when permitted', {}], ['process-group fallback', FALLBACK]] as const) {
      it(`mcp-doctor interrupted by ${signal} mid-probe leaves no process of the target (${mode})`, { timeout: 180_000 }, async () => {
        const ready = s.file(`ready-${randomBytes(4).toString('hex')}`);
        const tag = newTag();
        // Ignores SIGTERM, starts a daemon, answers initialize, never answers tools/list: mid-flight when the signal comes.
        const file = writeServer(s, `hang-${randomBytes(4).toString('hex')}.mjs`, {
          setup: daemonSetup({ ready }) + '\n' + IGNORE_SIGTERM_SETUP,
          onRequest: "  if (msg.method === 'tools/list') return;",
        });
        const run = startCli(['probe', '--format', 'json', '--timeout-ms', '120000', '--', process.execPath, file, tag], { env });
        const markerPrefix = `${run.child.pid}.`;
        try {
          assert.ok(await waitForFile(ready, 2400), 'the daemon came up');
          assert.ok(leftovers({ markerPrefix, tag }).length >= 3, 'the target is running when the signal comes');
          run.child.kill(signal);
          const r = await run.done;
          if (signal === 'SIGKILL') assert.equal(r.signal, 'SIGKILL');
          else assert.equal(r.code, signal === 'SIGINT' ? 130 : 143, r.stderr);
          assert.deepEqual(await settledLeftovers({ markerPrefix, tag }), []);
        } finally {
          run.child.kill('SIGKILL');
          killLeftovers({ markerPrefix, tag });
        }
      });
    }
  }
});

describe('hostile: secrets via /proc', { skip: !linux && 'needs /proc' }, () => {
  const needle = `canary-${randomBytes(8).toString('hex')}`;
  const canaries = { MCP_DOCTOR_TEST_CANARY: needle, GITHUB_TOKEN: `ghp_${needle}`, AWS_SECRET_ACCESS_KEY: `${needle}/aws` };

  it('a server that greps /proc/*/environ and its ancestors finds no canary of mcp-doctor', async () => {
    const out = s.file('canary-namespace.json');
    const r = await probe(writeServer(s, 'canary.mjs', { setup: canarySetup(out, needle), tools: [CLEAN_TOOL] }), canaries);
    assertReported(r);
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { scanned: number; found: string[]; ancestors: number[]; env: string[] };
    assert.ok(seen.scanned > 0, 'the hostile server did read /proc');
    assert.ok(!seen.env.some((k) => k in canaries), 'the scrubbed environment holds no canary');
    if (r.report!.inputs.containment.method === 'pid-namespace') assert.deepEqual(seen.found, []);
    else assert.deepEqual(seen.found.filter((f) => f.startsWith(`ancestor ${seen.ancestors[0]} `)), [], 'the parent holds no secret');
    assert.ok(!r.stdout.includes(needle));
  });

  it('in the process-group fallback the target\'s parent is a launcher that holds no secret', async () => {
    const out = s.file('canary-fallback.json');
    const r = await probe(writeServer(s, 'canary-fallback.mjs', { setup: canarySetup(out, needle) }), { ...canaries, ...FALLBACK });
    assertReported(r);
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { found: string[]; ancestors: number[] };
    assert.deepEqual(seen.found.filter((f) => f.startsWith(`ancestor ${seen.ancestors[0]} `)), []);
  });
});
