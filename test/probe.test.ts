import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { isRed } from '../src/engine/types.js';
import { killTree } from '../src/probe/stdio.js';
import { runCli } from './support/run.js';

type Rep = { results: { ruleId: string; state: string; suppressed?: unknown; findings: { messageId: string }[]; reason?: { code: string }; parts: { genre: string; state: string }[] }[] };
const state = (r: Rep, id: string) => r.results.find((x) => x.ruleId === id)!.state;
/** The state of the dynamic part (a rule may also have a static part that a probe alone does not judge). */
const dyn = (r: Rep, id: string) => r.results.find((x) => x.ruleId === id)!.parts.find((p) => p.genre === 'dynamic')!.state;
const everything = join(packageRoot(), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

describe('mcp-doctor probe, stdio', () => {
  it('a probe of our own server reports no unsuppressed red (both eras, with the package folder)', async () => {
    const r = await runCli(['probe', '--format', 'json', '--cwd', '.', '--', 'node', 'dist/src/cli.js', 'serve']);
    const rep = JSON.parse(r.stdout) as Rep;
    assert.deepEqual(rep.results.filter((x) => isRed(x.state as 'absent') && !x.suppressed).map((x) => x.ruleId), []);
    assert.equal(r.code, 0, r.stderr);
    for (const id of ['S-2', 'S-3', 'S-4', 'S-7', 'S-14', 'C-20']) assert.equal(dyn(rep, id), 'present', id);
  });
  it('server-everything (a real v1 server, 2025 era only) is red where the standard says so, and every dynamic rule is decided or explained', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-probe-'));
    try {
      const saved = join(dir, 'session.json');
      const r = await runCli(['probe', '--format', 'json', '--save-session', saved, '--', 'node', everything, 'stdio']);
      assert.equal(r.code, 1, r.stderr);
      const rep = JSON.parse(r.stdout) as Rep;
      assert.equal(dyn(rep, 'S-4'), 'absent');
      assert.equal(dyn(rep, 'S-2'), 'not-applicable');
      assert.equal(dyn(rep, 'C-2'), 'non-conforming');
      for (const x of rep.results) if (x.state === 'could-not-judge') assert.ok(x.reason?.code, `${x.ruleId} says why`);
      // The saved session is judged again offline, to the same verdicts.
      const again = await runCli(['probe', '--format', 'json', '--from-session', saved]);
      const rep2 = JSON.parse(again.stdout) as Rep;
      assert.deepEqual(rep2.results.map((x) => [x.ruleId, x.state]), rep.results.map((x) => [x.ruleId, x.state]));
      const session = JSON.parse(readFileSync(saved, 'utf8')) as { actions: { kind: string }[] };
      assert.ok(session.actions.some((a) => a.kind === 'call-unknown-tool'), 'the probe says what it called');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('mcp-doctor probe with the package folder', () => {
  it('links a finding about a served tool to the line that registers it', async () => {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'C-2', '--cwd', 'evals/heldout/servers', '--source', 'evals/heldout/servers', '--', 'node', 'legacy-wired.mjs']);
    const rep = JSON.parse(r.stdout) as {
      results: { ruleId: string; findings: { messageId: string; location?: { file: string; line: number } }[]; parts: { genre: string; state: string }[] }[];
    };
    const c2 = rep.results.find((x) => x.ruleId === 'C-2')!;
    // Both parts see the defect; the rule reports it once (one finding per defect), at the registering line.
    assert.deepEqual(c2.parts.map((p) => [p.genre, p.state]), [['static', 'non-conforming'], ['dynamic', 'non-conforming']], 'a static and a dynamic finding');
    assert.ok(c2.findings.length >= 1);
    for (const f of c2.findings) assert.deepEqual(f.location, { file: 'legacy-wired.mjs', line: 8 }, f.messageId);
  });
});

describe('mcp-doctor probe --url, Streamable HTTP on loopback', () => {
  let child: ReturnType<typeof spawn>;
  let url = '';
  before(async () => {
    child = spawn(process.execPath, [join(packageRoot(), 'test', 'fixtures', 'servers', 'v2-http.mjs')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    url = await new Promise((resolve) => {
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /listening (\d+)/.exec(err);
        if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
      });
    });
  });
  after(() => killTree(child.pid!));

  it('judges the transport checks from the raw exchanges', async () => {
    const r = await runCli(['probe', '--format', 'json', '--url', url]);
    const rep = JSON.parse(r.stdout) as Rep;
    for (const id of ['S-22', 'S-23', 'X-9', 'X-10', 'S-2', 'S-3', 'S-4']) assert.equal(dyn(rep, id), 'present', id);
    assert.equal(dyn(rep, 'S-16'), 'non-conforming', 'a loopback HTTP server without any authorization');
    assert.equal(r.code, 1);
  });
  it('refuses a metadata address before sending anything (exit 2)', async () => {
    const r = await runCli(['probe', '--url', 'http://169.254.169.254/mcp']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /SSRF/);
  });
});
