import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuditCancelled } from '../../src/engine/runner.js';
import { audit } from '../../src/run/audit.js';
import { packageRoot } from '../../src/engine/paths.js';
import { boundedJson, FINDINGS_PER_RULE } from '../../src/server/bound.js';
import { LineGate, MAX_MESSAGE_BYTES, recoverId, screenLine } from '../../src/server/bounded-stdio.js';
import { commandAllowed, readAllowList } from '../../src/server/confirm.js';
import { ReportOut } from '../../src/server/schemas.js';
import { FULL_FINDINGS, FULL_MAX_BYTES, jsonTokens } from '../../src/server/compact.js';
import { isRed } from '../../src/engine/types.js';
import { MODERN, RawStdio } from '../support/raw-stdio.js';

/**
 * Our own MCP server under abuse (issue 10), over real stdio and the raw wire, in both protocol eras:
 * probe_endpoint confirmation and allow-list, one refusal for paths outside the roots, oversized and malformed
 * messages, cancellation of a long audit, bounded results. A canary command that writes a file proves whether
 * a command ran.
 */

type Msg = Record<string, any>;
const LEGACY = '2025-06-18';
const ELICIT = { elicitation: { form: {} } };
/** No allow-list, no roots, unless a test sets them. */
const CLEAN = { MCP_DOCTOR_ALLOW_COMMANDS: '', MCP_DOCTOR_ALLOW_ENV: '', MCP_DOCTOR_ROOTS: '' };

const modern = (caps: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'hostile-test', version: '1.0.0' },
  },
  ...extra,
});

async function legacyClient(env: NodeJS.ProcessEnv, caps: Record<string, unknown>, opts: { cwd?: string } = {}): Promise<RawStdio> {
  const c = new RawStdio({ ...CLEAN, ...env }, opts);
  const init = (await c.request('initialize', { protocolVersion: LEGACY, capabilities: caps, clientInfo: { name: 'hostile-test', version: '1' } }, 120_000)) as Msg;
  assert.equal(init.result.protocolVersion, LEGACY);
  c.notify('notifications/initialized');
  return c;
}
async function modernClient(env: NodeJS.ProcessEnv = {}, opts: { cwd?: string } = {}): Promise<RawStdio> {
  const c = new RawStdio({ ...CLEAN, ...env }, opts);
  assert.ok(((await c.request('server/discover', modern(), 120_000)) as Msg).result);
  return c;
}

/** The first message received after index `from` that matches, waiting for it. */
async function waitFor(c: RawStdio, pred: (m: Msg) => boolean, from = 0, timeoutMs = 30_000): Promise<Msg> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = c.received.slice(from).find((x) => pred(x as Msg));
    if (m) return m as Msg;
    if (Date.now() > until || c.child.exitCode !== null) throw new Error('message never came');
    await new Promise((r) => setTimeout(r, 5));
  }
}
const textOf = (m: Msg): string => (m.error ? m.error.message : m.result.content.map((x: Msg) => x.text).join('\n'));

const scratch = mkdtempSync(join(tmpdir(), 'mcp-doctor-own-server-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let canaries = 0;
/** A command that writes a file when it runs (and then exits: the probe finds no MCP server there). */
function canary(): { command: string[]; file: string } {
  const file = join(scratch, `canary-${++canaries}`);
  // It leaves a trace, then answers like a minimal MCP server (a target that never answers is exit 3, not a report).
  const serve =
    "require('readline').createInterface({ input: process.stdin }).on('line', (l) => { let m; try { m = JSON.parse(l); } catch { return; } if (m.id === undefined) return;" +
    " const r = m.method === 'initialize' ? { result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'canary', version: '1.0.0' } } } : { error: { code: -32601, message: 'Method not found' } };" +
    " process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...r }) + '\\n'); });";
  return { command: [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(file)}, 'ran'); ${serve}`], file };
}

/**
 * The servers under test, started together (a start costs seconds on a busy machine):
 * modern and clean; legacy with form elicitation; modern with an allow-list in its environment; legacy without
 * elicitation started in a folder whose .mcp-doctor.json allow-lists one command, and one whose file is invalid;
 * modern confined to a scratch root.
 */
const root = join(scratch, 'root');
const outside = join(scratch, 'outside');
const startGood = join(scratch, 'start-good');
const startBad = join(scratch, 'start-bad');
const repo = join(root, 'big-server');
const TOOLS = 300;
const listed = canary();
const ALLOW_E = JSON.stringify([[process.execPath, '-e']]);
let plain: RawStdio;
let legacyAsk: RawStdio;
let allowEnv: RawStdio;
let legacyGood: RawStdio;
let legacyBad: RawStdio;
let confined: RawStdio;
before(async () => {
  mkdirSync(join(root, 'pkg'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  mkdirSync(startGood);
  mkdirSync(startBad);
  writeFileSync(join(root, 'pkg', 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0' }));
  writeFileSync(join(root, 'file.txt'), 'x');
  symlinkSync(outside, join(root, 'escape'));
  writeFileSync(join(startGood, '.mcp-doctor.json'), JSON.stringify({ probe: { allowCommands: [listed.command] } }));
  writeFileSync(join(startBad, '.mcp-doctor.json'), JSON.stringify({ probe: { allowCommands: 'bash' } }));
  writeBigRepo();
  [plain, legacyAsk, allowEnv, legacyGood, legacyBad, confined] = await Promise.all([
    modernClient(),
    legacyClient({ MCP_DOCTOR_ROOTS: [packageRoot(), root].join(delimiter) }, { elicitation: {} }),
    modernClient({ MCP_DOCTOR_ALLOW_COMMANDS: ALLOW_E, MCP_DOCTOR_ALLOW_ENV: 'PROBE_OK' }),
    legacyClient({}, {}, { cwd: startGood }),
    legacyClient({}, {}, { cwd: startBad }),
    modernClient({ MCP_DOCTOR_ROOTS: root, MCP_DOCTOR_ALLOW_COMMANDS: JSON.stringify([[process.execPath]]) }),
  ]);
});
after(() => Promise.all([plain, legacyAsk, allowEnv, legacyGood, legacyBad, confined].map((c) => c?.close())));

/** A package shaped like a published server (bin over dist, tools in one module), whose many tools each miss
 * declarations: hundreds of findings per rule, and an audit long enough to cancel. */
function writeBigRepo(): void {
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(
    join(repo, 'package.json'),
    JSON.stringify({ name: 'big-server', version: '1.0.0', type: 'module', bin: { 'big-server': 'dist/index.js' }, dependencies: { '@modelcontextprotocol/server': '2.4.0', zod: '4.6.7' } }),
  );
  const tools = Array.from(
    { length: TOOLS },
    (_, i) =>
      `server.registerTool('delete_record_${i}', { description: 'Deletes record ${i}', inputSchema: z.object({ id: z.string() }) }, async ({ id }) => ({ content: [{ type: 'text', text: 'deleted ' + id }] }));`,
  );
  writeFileSync(
    join(repo, 'src', 'index.ts'),
    [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { serveStdio } from '@modelcontextprotocol/server/stdio';",
      "import * as z from 'zod/v4';",
      "const server = new McpServer({ name: 'big-server', version: '1.0.0' });",
      ...tools,
      'serveStdio(() => server);',
      '',
    ].join('\n'),
  );
}

describe('probe_endpoint: the user confirms a command before it starts (2026-07-28, input_required)', () => {
  const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}, c = plain) =>
    c.request('tools/call', modern(ELICIT, { name: 'probe_endpoint', arguments: args, ...extra }), 60_000) as Promise<Msg>;

  it('asks with the exact command line and folder; accepted, the command runs and a report comes back', async () => {
    const k = canary();
    const args = { command: k.command, timeout_ms: 5000 };
    const ask = await call(args);
    assert.equal(ask.result.resultType, 'input_required', JSON.stringify(ask));
    const req = ask.result.inputRequests.confirm_probe;
    assert.equal(req.method, 'elicitation/create');
    assert.equal(req.params.mode ?? 'form', 'form');
    for (const a of k.command) assert.ok(req.params.message.includes(JSON.stringify(a)), `the message shows ${a}`);
    assert.ok(req.params.message.includes(JSON.stringify(realpathSync(packageRoot()))), 'the message shows the folder');
    assert.equal(req.params.requestedSchema.properties.run.type, 'boolean');
    assert.equal(existsSync(k.file), false, 'nothing runs before the answer');
    const done = await call(args, { inputResponses: { confirm_probe: { action: 'accept', content: { run: true } } }, requestState: ask.result.requestState });
    assert.equal(done.result.isError, undefined, textOf(done));
    // Target strings are cut in the compact result (160 characters): the program and the start of the script.
    const shown = done.result.structuredContent.target.command as string[];
    assert.deepEqual(shown.slice(0, 2), k.command.slice(0, 2));
    assert.ok(k.command[2]!.startsWith(shown[2]!.replace(/…$/, '')), shown[2]);
    assert.equal(existsSync(k.file), true, 'the confirmed command ran');
  });

  for (const [name, response] of [
    ['declined', { action: 'decline' }],
    ['cancelled', { action: 'cancel' }],
    ['accepted without ticking run', { action: 'accept', content: { run: false } }],
  ] as const) {
    it(`${name}: nothing runs`, async () => {
      const k = canary();
      const args = { command: k.command, timeout_ms: 5000 };
      const ask = await call(args);
      const r = await call(args, { inputResponses: { confirm_probe: response }, requestState: ask.result.requestState });
      assert.equal(r.result.isError, true);
      assert.match(textOf(r), /nothing was started/);
      assert.equal(existsSync(k.file), false);
    });
  }

  it('an answer cannot be replayed, nor moved to another command', async () => {
    const a = canary();
    const b = canary();
    const argsA = { command: a.command, timeout_ms: 5000 };
    const ask = await call(argsA);
    const accept = { inputResponses: { confirm_probe: { action: 'accept', content: { run: true } } }, requestState: ask.result.requestState };
    // The confirmation shown for A, sent with B.
    const swapped = await call({ command: b.command, timeout_ms: 5000 }, accept);
    assert.equal(swapped.result.isError, true);
    assert.match(textOf(swapped), /does not match/);
    // A one-time nonce: the failed attempt used it up, so A with the same answer is refused too.
    const replay = await call(argsA, accept);
    assert.equal(replay.result.isError, true);
    assert.equal(existsSync(a.file), false);
    assert.equal(existsSync(b.file), false);
  });

  it('a forged answer (no state, or a state we did not seal) runs nothing', async () => {
    const k = canary();
    const args = { command: k.command, timeout_ms: 5000 };
    const accept = { confirm_probe: { action: 'accept', content: { run: true } } };
    const noState = await call(args, { inputResponses: accept });
    assert.equal(noState.result?.isError, true, JSON.stringify(noState));
    const forged = await call(args, { inputResponses: accept, requestState: 'v1.eyJwIjp7fX0.AAAA' });
    assert.ok(forged.error || forged.result.isError, JSON.stringify(forged));
    assert.equal(existsSync(k.file), false);
  });

  it('allow_private asks too; a URL on the public policy does not', async () => {
    const ask = await call({ url: 'http://10.0.0.1:9/mcp', allow_private: true });
    assert.equal(ask.result.resultType, 'input_required');
    assert.match(ask.result.inputRequests.confirm_probe.params.message, /10\.0\.0\.1/);
    const declined = await call(
      { url: 'http://10.0.0.1:9/mcp', allow_private: true },
      { inputResponses: { confirm_probe: { action: 'decline' } }, requestState: ask.result.requestState },
    );
    assert.match(textOf(declined), /nothing was started/);
    const pub = await call({ url: 'http://127.0.0.1:9/mcp' });
    assert.notEqual(pub.result.resultType, 'input_required');
    assert.match(textOf(pub), /reached/);
  });

  it('an allow-listed command still asks when the client can ask', async () => {
    const k = canary();
    const ask = await call({ command: k.command }, {}, allowEnv);
    assert.equal(ask.result.resultType, 'input_required');
    assert.equal(existsSync(k.file), false);
  });
});

describe('probe_endpoint: the user confirms a command before it starts (2025-06-18, elicitation/create)', () => {
  async function confirmWith(result: Record<string, unknown>) {
    const c = legacyAsk;
    const k = canary();
    const from = c.received.length;
    const pending = c.request('tools/call', { name: 'probe_endpoint', arguments: { command: k.command, timeout_ms: 5000 } }, 60_000) as Promise<Msg>;
    const ask = await waitFor(c, (m) => m.method === 'elicitation/create', from);
    assert.ok(ask.params.message.includes(JSON.stringify(k.command[2])), 'the exact command is shown');
    assert.equal(existsSync(k.file), false, 'nothing runs before the answer');
    c.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: ask.id, result }) + '\n');
    return { r: await pending, ran: () => existsSync(k.file) };
  }

  it('accepted: the command runs', async () => {
    const { r, ran } = await confirmWith({ action: 'accept', content: { run: true } });
    assert.equal(r.result.isError, undefined, textOf(r));
    assert.equal(ran(), true);
  });
  it('declined: nothing runs', async () => {
    const { r, ran } = await confirmWith({ action: 'decline' });
    assert.equal(r.result.isError, true);
    assert.match(textOf(r), /nothing was started/);
    assert.equal(ran(), false);
  });
});

describe('probe_endpoint: a client that cannot ask runs only what the user allow-listed', () => {
  it('refused, in both eras, when the command is not allow-listed', async () => {
    const k = canary();
    const a = (await plain.request('tools/call', modern({}, { name: 'probe_endpoint', arguments: { command: k.command } }))) as Msg;
    const b = (await legacyGood.request('tools/call', { name: 'probe_endpoint', arguments: { command: k.command } })) as Msg;
    for (const r of [a, b]) {
      assert.equal(r.result.isError, true);
      assert.match(textOf(r), /MCP_DOCTOR_ALLOW_COMMANDS/);
    }
    // A client that offers only URL-mode elicitation cannot show the form either.
    const urlOnly = (await plain.request('tools/call', modern({ elicitation: { url: {} } }, { name: 'probe_endpoint', arguments: { command: k.command } }))) as Msg;
    assert.equal(urlOnly.result.isError, true);
    const priv = (await plain.request('tools/call', modern({}, { name: 'probe_endpoint', arguments: { url: 'http://10.0.0.1:9/mcp', allow_private: true } }))) as Msg;
    assert.match(textOf(priv), /allow_private/);
    assert.equal(existsSync(k.file), false);
  });

  it('MCP_DOCTOR_ALLOW_COMMANDS: an exact argv prefix runs; another command and unlisted variables do not', async () => {
    const call = (args: Record<string, unknown>) => allowEnv.request('tools/call', modern({}, { name: 'probe_endpoint', arguments: { timeout_ms: 5000, ...args } }), 60_000) as Promise<Msg>;
    const ok = canary();
    const r = await call({ command: ok.command, env: { PROBE_OK: '1' } });
    assert.equal(r.result.isError, undefined, textOf(r));
    assert.equal(existsSync(ok.file), true);
    // -p is not -e: not the allowed prefix.
    const other = canary();
    const p = await call({ command: [process.execPath, '-p', other.command[2]] });
    assert.equal(p.result.isError, true);
    assert.match(textOf(p), /allow-list/);
    const withEnv = canary();
    const e = await call({ command: withEnv.command, env: { NODE_OPTIONS: '--require=/tmp/evil.js' } });
    assert.equal(e.result.isError, true);
    assert.match(textOf(e), /NODE_OPTIONS/);
    assert.equal(existsSync(other.file), false);
    assert.equal(existsSync(withEnv.file), false);
  });

  it('probe.allowCommands in the .mcp-doctor.json of the folder the server starts in; an invalid one is ignored and named', async () => {
    const k2 = canary();
    const refused = (await legacyBad.request('tools/call', { name: 'probe_endpoint', arguments: { command: k2.command } })) as Msg;
    assert.equal(refused.result.isError, true);
    assert.match(textOf(refused), /\.mcp-doctor\.json could not be read/);
    assert.equal(existsSync(k2.file), false);
    const ran = (await legacyGood.request('tools/call', { name: 'probe_endpoint', arguments: { command: listed.command, timeout_ms: 5000 } }, 60_000)) as Msg;
    assert.equal(ran.result.isError, undefined, textOf(ran));
    assert.equal(existsSync(listed.file), true);
  });
});

describe('one refusal for every path the tools may not use, naming no absolute path', () => {
  const audit_ = (path: string) => confined.request('tools/call', modern({}, { name: 'audit_repository', arguments: { path, rules: ['C-1'] } })) as Promise<Msg>;

  it('audit_repository: an existing and a missing folder outside the roots, a file, a symlink out and .. all get the same text', async () => {
    const paths = [outside, join(outside, 'missing'), '/definitely/not/here', join(root, 'file.txt'), join(root, 'escape'), join(root, '..', 'outside'), '../../..'];
    const texts = new Set<string>();
    for (const p of paths) {
      const r = await audit_(p);
      assert.equal(r.result.isError, true, p);
      texts.add(textOf(r));
    }
    assert.equal(texts.size, 1, [...texts].join('\n'));
    const [only] = [...texts];
    for (const secret of [root, outside, scratch, realpathSync(scratch), packageRoot(), '/definitely']) assert.ok(!only!.includes(secret), `names ${secret}`);
    const inside = await audit_(join(root, 'pkg'));
    assert.equal(inside.result.isError, undefined, textOf(inside));
  });

  it('probe_endpoint: the same refusal for cwd, before anything is started', async () => {
    const k = canary();
    const texts = new Set<string>();
    for (const cwd of [outside, join(outside, 'missing'), join(root, 'escape'), join(root, 'file.txt')]) {
      const r = (await confined.request('tools/call', modern({}, { name: 'probe_endpoint', arguments: { command: k.command, cwd } }))) as Msg;
      assert.equal(r.result.isError, true);
      texts.add(textOf(r));
    }
    assert.equal(texts.size, 1);
    assert.match([...texts][0]!, /cwd/);
    assert.ok(![...texts][0]!.includes(scratch));
    // The server's own working directory (the repository) is outside MCP_DOCTOR_ROOTS here: no cwd, no run.
    const noCwd = (await confined.request('tools/call', modern({}, { name: 'probe_endpoint', arguments: { command: k.command } }))) as Msg;
    assert.equal(textOf(noCwd), [...texts][0]);
    assert.equal(existsSync(k.file), false);
  });
});

describe('bad arguments get a clear error and change nothing', () => {
  const call = (name: string, args: Record<string, unknown>) => allowEnv.request('tools/call', modern({}, { name, arguments: args })) as Promise<Msg>;

  it('huge strings, NUL bytes, control characters, bad rule ids and locales are refused by the schemas', async () => {
    const k = canary();
    const cases: [string, Record<string, unknown>][] = [
      ['audit_repository', { path: 'x'.repeat(100_000) }],
      ['audit_repository', { path: 'src\u0000/etc/passwd' }],
      ['audit_repository', { path: '.', rules: ['C-1'.padEnd(50_000, '1')] }],
      ['audit_repository', { path: '.', rules: ['../C-1'] }],
      ['audit_repository', { path: '.', locale: 'xx' }],
      ['probe_endpoint', { command: [...k.command.slice(0, 2), k.command[2] + '\u0000'] }],
      ['probe_endpoint', { command: k.command, cwd: '.\u0000' }],
      ['probe_endpoint', { command: k.command, env: { A: 'x'.repeat(10_000) } }],
      ['probe_endpoint', { url: 'http://127.0.0.1:9/mcp', headers: { 'X-A': 'a\r\nX-Injected: 1' } }],
      ['probe_endpoint', { command: Array.from({ length: 65 }, () => 'a') }],
      ['explain_rule', { rule_id: 'C-' + '1'.repeat(10_000) }],
      ['explain_rule', { rule_id: 'C-1', locale: 'de' }],
      ['list_rules', { cursor: '9'.repeat(5000) }],
    ];
    for (const [name, args] of cases) {
      const r = await call(name, args);
      assert.ok(r.error || r.result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`);
      assert.ok(textOf(r).length < 2000, 'the error does not echo the input');
    }
    // The allow-listed prefix matched, yet the bad argument stopped the call before it started.
    assert.equal(existsSync(k.file), false);
  });

  it('an unknown rule id is named, a relative path with .. inside the roots works', async () => {
    const r = await call('audit_repository', { path: '.', rules: ['C-99'] });
    assert.match(textOf(r), /C-99/);
    const ok = await call('audit_repository', { path: 'src/../examples/weather-server', rules: ['C-1'] });
    assert.equal(ok.result.isError, undefined, textOf(ok));
  });
});

describe('oversized and malformed messages get a JSON-RPC error and the server stays up', () => {
  const big = (n: number) => 'x'.repeat(n);

  it('2026-07-28: a 50 MB request is answered -32600 with its id, then tools/list is still answered', async () => {
    const c = plain;
    const line = JSON.stringify({ jsonrpc: '2.0', id: 'huge-1', method: 'tools/call', params: { ...modern(), name: 'explain_rule', arguments: { rule_id: big(50 * 1024 * 1024) } } });
    const from = c.received.length;
    c.child.stdin.write(line + '\n');
    const err = await waitFor(c, (m) => m.id === 'huge-1', from, 120_000);
    assert.equal(err.error.code, -32600);
    assert.equal(err.error.data.limit, MAX_MESSAGE_BYTES);
    assert.ok(err.error.data.size > 50 * 1024 * 1024);
    const list = (await c.request('tools/list', modern())) as Msg;
    assert.equal(list.result.tools.length, 6);
    assert.equal(c.child.exitCode, null);
  });

  it('2025-06-18: over-long (id at the end, or unrecoverable), not JSON, not JSON-RPC, 100k deep: errors, then ping answered', async () => {
    const c = legacyBad;
    const from = c.received.length;
    // The SDK client writes params before the id: the id is read from the end of the line.
    c.child.stdin.write(`{"method":"tools/call","params":{"name":"explain_rule","arguments":{"rule_id":"${big(3 * MAX_MESSAGE_BYTES)}"}},"jsonrpc":"2.0","id":41}\n`);
    c.child.stdin.write(`{"method":"tools/call","params":{"name":"x","arguments":{"a":"${big(2 * MAX_MESSAGE_BYTES)}"}},"id":42,"jsonrpc":"2.0"}\n`);
    c.child.stdin.write('this is not json\n');
    c.child.stdin.write('{"hello":"world","id":43}\n');
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    c.child.stdin.write(`{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"explain_rule","arguments":{"rule_id":${deep}}}}\n`);
    const e41 = await waitFor(c, (m) => m.id === 41, from);
    assert.equal(e41.error.code, -32600);
    const e43 = await waitFor(c, (m) => m.id === 43, from);
    assert.equal(e43.error.code, -32600);
    const nulls = c.received.slice(from, c.received.indexOf(e43)).filter((m) => (m as Msg).error && (m as Msg).id === null) as Msg[];
    assert.deepEqual(
      nulls.map((m) => m.error.code),
      [-32600, -32700],
      'id 42 sits in the middle of its line: not recovered; then the parse error',
    );
    const e44 = await waitFor(c, (m) => m.id === 44, from);
    assert.ok(e44.error || e44.result.isError);
    const ping = (await c.request('ping')) as Msg;
    assert.deepEqual(ping.result, {});
    assert.equal(c.child.exitCode, null);
    assert.deepEqual(c.nonJson, []);
  });
});

describe('a long audit: cancellation honoured, result bounded', () => {
  it('the result is compact (token budget, every red rule named), detail=full keeps at most 10 findings per rule within 200 kB, and the full report is one resources/read away', async () => {
    const full = await audit({ target: { path: realpathSync(repo) } });
    const fullCount = new Map(full.results.map((x) => [x.ruleId, x.findings.length]));
    assert.ok(Math.max(...fullCount.values()) >= TOOLS, 'the generated repository yields hundreds of findings for a rule');
    const redIds = full.results.filter((x) => isRed(x.state)).map((x) => x.ruleId).sort();

    const r = (await confined.request('tools/call', modern({}, { name: 'audit_repository', arguments: { path: repo } }), 120_000)) as Msg;
    assert.equal(r.result.isError, undefined, textOf(r));
    const sc = r.result.structuredContent;
    assert.ok((await jsonTokens(sc)) <= 1_500, 'the compact result fits the budget');
    assert.deepEqual(sc.red.map((x: Msg) => x.ruleId).sort(), redIds, 'every red rule is named');
    for (const x of sc.red) assert.equal(x.findings.length + (x.more ?? 0), fullCount.get(x.ruleId), x.ruleId);
    assert.equal(sc.results, undefined, 'no per-rule results in the summary form');
    assert.match(textOf(r), /mcp-doctor audit .*big-server --format json/);

    const f = (await confined.request('tools/call', modern({}, { name: 'audit_repository', arguments: { path: repo, detail: 'full' } }), 120_000)) as Msg;
    const fc = f.result.structuredContent;
    assert.ok(Buffer.byteLength(JSON.stringify(fc)) <= FULL_MAX_BYTES);
    assert.equal(fc.results.length, full.results.length);
    for (const x of fc.results) {
      assert.ok(x.findings.length <= FULL_FINDINGS, x.ruleId);
      assert.equal(x.findings.length + (x.more ?? 0), fullCount.get(x.ruleId), x.ruleId);
    }

    const link = r.result.content.find((x: Msg) => x.type === 'resource_link');
    assert.equal(link.uri, sc.report);
    const read = (await confined.request('resources/read', modern({}, { uri: link.uri }))) as Msg;
    const rep = JSON.parse(read.result.contents[0].text);
    for (const x of rep.results) assert.equal(x.findings.length + (x.omittedFindings ?? 0), fullCount.get(x.ruleId), x.ruleId);
    const gone = (await confined.request('resources/read', modern({}, { uri: 'mcp-doctor://reports/not-a-report' }))) as Msg;
    assert.ok(gone.error, 'an unknown report is an error');
  });

  for (const era of [MODERN, LEGACY]) {
    it(`${era}: a cancel mid-audit stops the rule loop; the next request is answered and no result follows`, async () => {
      const d = era === MODERN ? confined : legacyAsk;
      const p = (extra: Record<string, unknown> = {}) => (era === MODERN ? modern({}, extra) : extra);
      const from = d.received.length;
      const id = `audit-to-cancel-${era}`;
      const token = `cancel-me-${era}`;
      d.child.stdin.write(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: p({ name: 'audit_repository', arguments: { path: repo }, _meta: { ...((p()._meta as object) ?? {}), progressToken: token } }) }) + '\n',
      );
      const isProgress = (m: Msg) => m.method === 'notifications/progress' && m.params.progressToken === token;
      const first = await waitFor(d, isProgress, from, 120_000);
      d.notify('notifications/cancelled', p({ requestId: id, reason: 'the user pressed stop' }));
      const list = (await d.request('tools/list', p(), 120_000)) as Msg;
      assert.ok(list.result);
      const listAt = d.received.indexOf(list);
      // One more round trip, so that anything still coming from the audit would be here by now.
      await d.request('tools/call', p({ name: 'explain_rule', arguments: { rule_id: 'C-1' } }), 120_000);
      const progress = d.received.slice(from).filter((m) => isProgress(m as Msg)) as Msg[];
      const total = first.params.total as number;
      assert.ok(progress.length < total, `the loop stopped: ${progress.length} of ${total} rules`);
      assert.ok(d.received.indexOf(progress.at(-1)!) < listAt, 'no progress after the next request was answered');
      assert.equal(d.received.some((m) => (m as Msg).id === id), false, 'a cancelled request gets no answer');
    });
  }
});

describe('the pure parts: line gate, id recovery, screening, bounding, allow-list', () => {
  it('LineGate: lines split across chunks are joined; a line at the limit passes; one byte over is dropped with its edges', () => {
    const lines: string[] = [];
    const long: { size: number; head: string; tail: string }[] = [];
    const gate = new LineGate(
      10,
      (l) => lines.push(l.toString()),
      (size, head, tail) => long.push({ size, head: head.toString(), tail: tail.toString() }),
    );
    gate.push(Buffer.from('ab'));
    gate.push(Buffer.from('c\n0123456789\n'));
    gate.push(Buffer.from('0123456789'));
    gate.push(Buffer.from('X\nafter\n\npartial'));
    assert.deepEqual(lines, ['abc', '0123456789', 'after']);
    assert.deepEqual(long, [{ size: 11, head: '0123456789X', tail: '0123456789X' }]);
  });

  it('recoverId: first member, after jsonrpc/method, or last member; never a nested id', () => {
    assert.equal(recoverId('{"id":7,"method":"x","params":{', ''), 7);
    assert.equal(recoverId('{"jsonrpc":"2.0","method":"tools/call","id":"a\\"b","params":{', ''), 'a"b');
    assert.equal(recoverId('{"method":"x","params":{"a":"', '","b":1},"jsonrpc":"2.0","id":12}\n'), 12);
    assert.equal(recoverId('{"method":"x","params":{"id":5,"a":"', '"}}'), null);
    assert.equal(recoverId('{"method":"x","params":{"a":"', '"},"id":{"x":1}}'), null);
    assert.equal(recoverId('[{"id":1}', ''), null);
  });

  it('screenLine: blank lines are skipped, non-JSON is -32700, JSON that is not JSON-RPC is -32600 with its id', () => {
    assert.deepEqual(screenLine(Buffer.from('  \r')), { forward: false });
    assert.deepEqual(screenLine(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')), { forward: true });
    assert.deepEqual(screenLine(Buffer.from('{oops')), { forward: false, rejection: { code: -32700, id: null, cause: 'not-json' } });
    assert.deepEqual(screenLine(Buffer.from('{"id":"q","x":1}')), { forward: false, rejection: { code: -32600, id: 'q', cause: 'not-json-rpc' } });
    assert.deepEqual(screenLine(Buffer.from('[1,2]')), { forward: false, rejection: { code: -32600, id: null, cause: 'not-json-rpc' } });
  });

  it('boundedJson: fewer findings per rule, then verdicts only, when the budget is small; always valid; cancellable', async () => {
    const report = await audit({ target: { path: realpathSync(repo) } });
    const small = boundedJson(report, 'en', 'hint', undefined, { perRule: FINDINGS_PER_RULE, maxBytes: 60_000 });
    assert.ok(small.truncated && small.truncated.findingsPerRule < FINDINGS_PER_RULE && !small.truncated.detailsDropped, JSON.stringify(small.truncated));
    assert.ok(Buffer.byteLength(JSON.stringify(small)) <= 60_000);
    const tiny = boundedJson(report, 'en', 'hint', undefined, { perRule: FINDINGS_PER_RULE, maxBytes: 1000 });
    assert.equal(tiny.truncated?.detailsDropped, true);
    assert.ok(tiny.results.every((r) => r.findings.length === 0 && r.parts.length === 0));
    assert.equal(
      tiny.results.reduce((a, r) => a + (r.omittedFindings ?? 0), 0),
      report.results.reduce((a, r) => a + r.findings.length, 0),
    );
    for (const j of [small, tiny]) assert.ok(ReportOut.safeParse({ ...j, failing: 0 }).success);
    assert.throws(() => boundedJson(report, 'en', 'hint', AbortSignal.abort()), AuditCancelled);
  });

  it('readAllowList: environment (JSON argv prefixes, names) and the config file; anything unreadable is ignored and named', () => {
    const dir = join(scratch, 'allow-unit');
    mkdirSync(dir);
    writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ probe: { allowCommands: [['npx', '-y', 'some-mcp@1.2.3']], allowEnv: ['API_TOKEN'] } }));
    const list = readAllowList({ MCP_DOCTOR_ALLOW_COMMANDS: '[["node","dist/index.js"]]', MCP_DOCTOR_ALLOW_ENV: 'A, B' }, dir);
    assert.deepEqual(list, { commands: [['node', 'dist/index.js'], ['npx', '-y', 'some-mcp@1.2.3']], envNames: ['A', 'B', 'API_TOKEN'], invalid: [] });
    assert.equal(commandAllowed(list, ['node', 'dist/index.js', '--stdio']), true);
    assert.equal(commandAllowed(list, ['node', 'dist/index.jsx']), false);
    assert.equal(commandAllowed(list, ['node']), false);
    assert.equal(commandAllowed(list, ['npx', '-y', 'some-mcp@1.2.4']), false);
    const bad = readAllowList({ MCP_DOCTOR_ALLOW_COMMANDS: 'node dist/index.js', MCP_DOCTOR_ALLOW_ENV: 'A;rm' }, join(scratch, 'no-such-dir'));
    assert.deepEqual(bad, { commands: [], envNames: [], invalid: ['MCP_DOCTOR_ALLOW_COMMANDS', 'MCP_DOCTOR_ALLOW_ENV'] });
    assert.deepEqual(readAllowList({ MCP_DOCTOR_ALLOW_COMMANDS: '[[]]' }, join(scratch, 'no-such-dir')).invalid, ['MCP_DOCTOR_ALLOW_COMMANDS']);
  });
});

describe('audit_client_config: reads only inside the roots, starts nothing the user did not approve', () => {
  const call = (args: Record<string, unknown>) => confined.request('tools/call', modern({}, { name: 'audit_client_config', arguments: args }), 120_000) as Promise<Msg>;

  it('a project outside the roots gets the one path refusal; inside, the .mcp.json is judged without starting anything', async () => {
    const k = canary();
    const project = join(root, 'configured');
    mkdirSync(project, { recursive: true });
    // A shell launch that would write the canary if anything started it.
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { canary: { command: '/bin/sh', args: ['-c', `echo ran > ${k.file}`] } } }));
    const out = await call({ path: outside });
    assert.equal(out.result.isError, true);
    assert.match(textOf(out), /path/);
    assert.ok(!textOf(out).includes(scratch));
    const r = await call({ path: project });
    assert.equal(r.result.isError, undefined, textOf(r));
    // The tool result is compact; the full report (with its scan section) is one resources/read away.
    assert.ok(r.result.structuredContent.red.some((x: Msg) => x.ruleId === 'X-4' && x.state === 'non-conforming'));
    const read = (await confined.request('resources/read', modern({}, { uri: r.result.structuredContent.report }), 60_000)) as Msg;
    const full = JSON.parse(read.result.contents[0].text) as Msg;
    assert.deepEqual(full.scan.servers.map((s: Msg) => s.name), ['canary']);
    // probe: true from a client that cannot ask: /bin/sh is not allow-listed (only node is), so nothing runs.
    const p = await call({ path: project, probe: true });
    assert.equal(p.result.isError, true);
    assert.match(textOf(p), /MCP_DOCTOR_ALLOW_COMMANDS/);
    assert.equal(existsSync(k.file), false);
  });
});
