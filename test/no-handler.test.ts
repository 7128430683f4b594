import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { killTree } from '../src/probe/stdio.js';
import { runCli } from './support/run.js';

/**
 * The default probe reaches no tool handler (issue 9 §5). The target validates nothing and logs every handler
 * invocation to a file: after a default probe, over stdio and over HTTP, the file is empty; with the opt-in
 * it holds the invalid-arguments call, and only the opt-in's tools are ever reached.
 */

const SERVER = join(packageRoot(), 'test', 'fixtures', 'servers', 'unvalidated.mjs');
type Rep = { results: { ruleId: string; parts: { genre: string; state: string; reason?: { code: string; data?: Record<string, unknown>; message?: string } }[] }[] };
type Session = { actions: { kind: string; detail: string }[]; connections: { messages: { dir: string; message: { method?: string; params?: { name?: string } } }[] }[] };

const logged = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const s11 = (rep: Rep) => rep.results.find((r) => r.ruleId === 'S-11')!.parts.find((p) => p.genre === 'dynamic')!;
const calledTools = (s: Session) =>
  s.connections.flatMap((c) => c.messages.filter((m) => m.dir === 'out' && m.message.method === 'tools/call').map((m) => m.message.params?.name));

describe('the default probe calls no tool handler', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-nohandler-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('stdio: the handler log stays empty, only the unknown tool is called, and S-11 says how to opt in', async () => {
    const log = join(dir, 'stdio.log');
    const saved = join(dir, 'stdio-session.json');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--save-session', saved, '--env', `HANDLER_LOG=${log}`, '--', 'node', SERVER, 'stdio']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.deepEqual(logged(log), []);
    const session = JSON.parse(readFileSync(saved, 'utf8')) as Session;
    assert.deepEqual([...new Set(calledTools(session))], ['mcp_doctor_probe_unknown_tool']);
    assert.deepEqual(session.actions.filter((a) => a.kind === 'skip-invalid-arguments').map((a) => a.detail), ['get_status']);
    const part = s11(JSON.parse(r.stdout) as Rep);
    assert.equal(part.state, 'could-not-judge');
    assert.equal(part.reason?.code, 'invalid-arguments-not-sent');
    assert.match(part.reason?.message ?? '', /--exercise invalid-arguments/);
  });

  it('stdio with --exercise invalid-arguments: the handler runs, on the read-only closed-world tool first', async () => {
    const log = join(dir, 'stdio-opt-in.log');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--exercise', 'invalid-arguments', '--env', `HANDLER_LOG=${log}`, '--', 'node', SERVER, 'stdio']);
    assert.equal(r.code, 1, r.stderr);
    // One call per era (2026-07-28 and 2025-06-18), each with arguments that miss the required id.
    assert.deepEqual(logged(log), ['get_status {}', 'get_status {}']);
    assert.equal(s11(JSON.parse(r.stdout) as Rep).state, 'non-conforming');
  });

  it('stdio with --exercise invalid-arguments and no read-only tool: the first tool that takes arguments gets them', async () => {
    const log = join(dir, 'stdio-no-safe.log');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--exercise', 'invalid-arguments', '--env', `HANDLER_LOG=${log}`, '--env', 'TOOLS=no-safe', '--', 'node', SERVER, 'stdio']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(logged(log), ['search_issues {}', 'search_issues {}']);
  });

  it('stdio with --exercise read-only and no read-only tool: no handler runs', async () => {
    const log = join(dir, 'stdio-ro.log');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--exercise', 'read-only', '--env', `HANDLER_LOG=${log}`, '--env', 'TOOLS=no-safe', '--', 'node', SERVER, 'stdio']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    assert.deepEqual(logged(log), []);
  });

  it('an unknown --exercise value is a usage error', async () => {
    const r = await runCli(['probe', '--exercise', 'everything', '--', 'node', SERVER, 'stdio']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /invalid-arguments, read-only/);
  });

  describe('over Streamable HTTP', () => {
    let child: ReturnType<typeof spawn>;
    let url = '';
    let log = '';
    before(async () => {
      log = join(dir, 'http.log');
      child = spawn(process.execPath, [SERVER, 'http'], { env: { ...process.env, PORT: '0', HANDLER_LOG: log }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      url = await new Promise((resolve, reject) => {
        let err = '';
        child.stderr!.on('data', (d) => {
          err += d;
          const m = /listening (\d+)/.exec(err);
          if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
        });
        child.on('exit', () => reject(new Error(`server exited: ${err}`)));
      });
    });
    after(() => killTree(child.pid!));

    it('the default probe leaves the handler log empty; the opt-in reaches the handler', async () => {
      const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--url', url]);
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      assert.deepEqual(logged(log), []);
      assert.equal(s11(JSON.parse(r.stdout) as Rep).reason?.code, 'invalid-arguments-not-sent');
      // The report says what it probed: the URL, and no package (nothing tells which package serves a URL).
      assert.deepEqual((JSON.parse(r.stdout) as { inputs?: unknown }).inputs, { url });
      const opted = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--exercise', 'invalid-arguments', '--url', url]);
      assert.equal(opted.code, 1, opted.stderr);
      assert.deepEqual(logged(log), ['get_status {}', 'get_status {}']);
    });
  });
});
