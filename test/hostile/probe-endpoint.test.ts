import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../../src/engine/paths.js';
import { RawStdio } from '../support/raw-stdio.js';
import { daemonSetup, IGNORE_SIGTERM_SETUP, killLeftovers, leftovers, scratch, settledLeftovers, waitForFile, writeServer } from './support/servers.js';

/**
 * probe_endpoint under abuse (issue 10), through our real MCP server over stdio and the raw wire: a target that
 * serves catastrophic patterns does not freeze our server, and a probe interrupted from the client's side (a
 * cancel, the end of our stdin, SIGTERM to our server) leaves no process of the target. Leftovers are found in
 * /proc by the probe's per-run marker (MCP_DOCTOR_RUN=<our server's pid>.…) and the test's tag, never by timing.
 * The client cannot elicit, so the commands run through the allow-list the user sets in the environment.
 */

const linux = process.platform === 'linux';
const LEGACY = '2025-06-18';
type Msg = Record<string, any>;
const s = scratch();
after(() => s.cleanup());

/** Our server, allowed to run `node <anything>` without asking (the client has no elicitation). */
async function ourServer(): Promise<RawStdio> {
  const c = new RawStdio({ MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([[process.execPath]]), MCP_DOCTOR_ALLOW_ENV: '', MCP_DOCTOR_ROOTS: '' }, { cwd: s.dir });
  const init = (await c.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'hostile-test', version: '1' } }, 120_000)) as Msg;
  assert.equal(init.result.protocolVersion, LEGACY);
  c.notify('notifications/initialized');
  return c;
}

const exited = (c: RawStdio): Promise<number | null> =>
  c.child.exitCode !== null ? Promise.resolve(c.child.exitCode) : new Promise((r) => c.child.once('exit', (code) => r(code)));

describe('probe_endpoint on a server serving ReDoS patterns', () => {
  it('our server stays responsive and returns a report', { timeout: 240_000 }, async () => {
    const raw = pathToFileURL(join(packageRoot(), 'test', 'fixtures', 'servers', 'raw-stdio.mjs')).href;
    const ro = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    const config = {
      name: 'redos-server',
      tools: [
        { name: 'find_code', description: 'Finds a code.', inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 48, pattern: '(x+x+)+y' } }, required: ['q'] }, annotations: ro },
        { name: 'peek_code', description: 'Peeks at a code.', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?!x)(a+)+$' } } }, annotations: ro },
        {
          name: 'get_code',
          description: 'Returns the current code.',
          inputSchema: { type: 'object', properties: {} },
          outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] },
          annotations: ro,
        },
      ],
      results: { get_code: { content: [{ type: 'text', text: 'code ready' }], structuredContent: { code: 'a'.repeat(20_000) + '!' } } },
    };
    const file = s.file('redos-server.mjs');
    writeFileSync(file, `import { serve } from ${JSON.stringify(raw)};\nserve(${JSON.stringify(config)});\n`);
    const c = await ourServer();
    try {
      const call = c.request('tools/call', { name: 'probe_endpoint', arguments: { command: [process.execPath, file], exercise: ['read-only'], rules: ['S-11'], timeout_ms: 60_000 } }, 200_000);
      // Sent while the probe runs: a frozen event loop (a backtracking RegExp) would never answer it.
      const ping = (await c.request('ping', {}, 200_000)) as Msg;
      assert.deepEqual(ping.result, {});
      const r = (await call) as Msg;
      assert.equal(r.result.isError, undefined, JSON.stringify(r.result.content));
      // The tool result is compact; the full report (parts, message ids) is one resources/read away.
      const read = (await c.request('resources/read', { uri: r.result.structuredContent.report }, 60_000)) as Msg;
      const full = JSON.parse(read.result.contents[0].text) as Msg;
      const s11 = (full.results as Msg[]).find((x) => x.ruleId === 'S-11')!;
      assert.equal(s11.parts.find((p: Msg) => p.genre === 'dynamic').state, 'non-conforming');
      assert.ok((s11.findings as Msg[]).some((f) => f.messageId === 'structured-content-invalid'));
    } finally {
      await c.close();
    }
  });
});

describe('probe_endpoint interrupted mid-probe leaves no process of the target', { skip: !linux && 'needs /proc' }, () => {
  /**
   * Start a probe of a target that ignores SIGTERM, starts a setsid'd double-forked daemon, answers initialize
   * and never answers tools/list; resolve once the daemon is up (the probe is then mid-flight).
   */
  async function midProbe(c: RawStdio, id: string) {
    const ready = s.file(`ready-${randomBytes(4).toString('hex')}`);
    const tag = `${s.tag}-${randomBytes(3).toString('hex')}`;
    const file = writeServer(s, `hang-${randomBytes(4).toString('hex')}.mjs`, {
      setup: daemonSetup({ ready }) + '\n' + IGNORE_SIGTERM_SETUP,
      onRequest: "  if (msg.method === 'tools/list') return;",
    });
    // A long timeout: only the interruption can end this probe before the test's own deadline.
    c.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'probe_endpoint', arguments: { command: [process.execPath, file, tag], timeout_ms: 600_000 } } }) + '\n');
    const markerPrefix = `${c.child.pid}.`;
    assert.ok(await waitForFile(ready, 2400), 'the daemon came up');
    // On a loaded machine a connection may time out and the next one start the target again: wait for one that runs.
    let running = leftovers({ markerPrefix, tag });
    for (let i = 0; i < 300 && running.length < 3 && !c.received.some((m) => m.id === id); i++) {
      await new Promise((r) => setTimeout(r, 100));
      running = leftovers({ markerPrefix, tag });
    }
    const answer = c.received.find((m) => m.id === id);
    assert.ok(running.length >= 3, `the target is running when the interruption comes: ${JSON.stringify({ running, answer })}`);
    return { markerPrefix, tag };
  }

  it('the client cancels the call: the target is killed, no answer follows, the server still answers', { timeout: 240_000 }, async () => {
    const c = await ourServer();
    let where: { markerPrefix: string; tag: string } | undefined;
    try {
      where = await midProbe(c, 'probe-to-cancel');
      c.notify('notifications/cancelled', { requestId: 'probe-to-cancel', reason: 'the user pressed stop' });
      // The promise is a deadline: every process of the target is gone within 1 s of the cancel (no retry past it).
      const sent = performance.now();
      let left = leftovers(where);
      while (left.length && performance.now() - sent < 1000) {
        await new Promise((r) => setTimeout(r, 20));
        left = leftovers(where);
      }
      const waited = performance.now() - sent;
      assert.deepEqual(left, [], `still running ${waited.toFixed(0)} ms after the cancel`);
      assert.deepEqual(((await c.request('ping', {}, 60_000)) as Msg).result, {});
      assert.equal(c.received.some((m) => m.id === 'probe-to-cancel'), false, 'a cancelled request gets no answer');
      assert.equal(c.child.exitCode, null, 'the server is still up');
    } finally {
      if (where) killLeftovers(where);
      await c.close();
    }
  });

  it('the client disconnects (our stdin ends): the server exits and the target is gone', { timeout: 240_000 }, async () => {
    const c = await ourServer();
    let where: { markerPrefix: string; tag: string } | undefined;
    try {
      where = await midProbe(c, 'probe-then-disconnect');
      c.child.stdin.end();
      await exited(c);
      assert.deepEqual(await settledLeftovers(where, 300), []);
    } finally {
      if (where) killLeftovers(where);
      await c.close();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`our server gets ${signal} mid-probe: it exits and the target is gone`, { timeout: 240_000 }, async () => {
      const c = await ourServer();
      let where: { markerPrefix: string; tag: string } | undefined;
      try {
        where = await midProbe(c, `probe-then-${signal}`);
        c.child.kill(signal);
        await exited(c);
        assert.deepEqual(await settledLeftovers(where, 300), []);
      } finally {
        if (where) killLeftovers(where);
        await c.close();
      }
    });
  }
});
