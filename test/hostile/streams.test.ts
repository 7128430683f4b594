import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCli, scratch, writeServer } from './support/servers.js';

/**
 * Servers that answer, but badly: byte by byte, after 200 MB of noise, or after one 100 MB line. The probe
 * still reports (exit 1 with findings, never 3, which is for a target that never answered): what it could judge,
 * X-7 red for the noise, within the overall deadline. Each server is a real stdio process.
 */

const s = scratch();
after(() => s.cleanup());

/** Answers written one character every 2 ms. */
const SLOW = `
const realSend = send;
globalThis.__slow = (m) => { const t = JSON.stringify(m) + '\\n'; let k = 0; const i = setInterval(() => { process.stdout.write(t[k++]); if (k >= t.length) clearInterval(i); }, 2); };
`;
const slowRequest = `
if (msg.method === 'initialize') { __slow({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1.0.0' } } }); return; }
if (msg.method === 'tools/list') { __slow({ jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS } }); return; }
`;
/** 200 lines of 1 MiB noise written at start, honouring back-pressure. */
const FLOOD = `{ const noise = 'x'.repeat(1 << 20) + '\\n'; let i = 0; const pump = () => { while (i < 200) { i++; if (!process.stdout.write(noise)) { process.stdout.once('drain', pump); return; } } }; pump(); }`;
/** One 100 MiB line (no line break inside) written at start. */
const LINE = `process.stdout.write('y'.repeat(100 * (1 << 20)) + '\\n');`;

type Result = { ruleId: string; state: string; findings: { messageId: string }[]; parts: { genre: string; state: string }[] };
async function probe(name: string, setup: string, onRequest?: string) {
  const server = writeServer(s, `${name}.mjs`, { setup, onRequest });
  const r = await runCli(['probe', '--format', 'json', '--no-source', '--timeout-ms', '60000', '--', process.execPath, server, s.tag]);
  assert.equal(r.code, 1, `a report with findings, not an operational failure: ${r.stderr.slice(0, 500)}`);
  const report = JSON.parse(r.stdout) as { results: Result[] };
  return (id: string) => report.results.find((x) => x.ruleId === id)!;
}

describe('hostile: servers that answer badly still get a report', () => {
  it('byte by byte: the tools are judged', async () => {
    const rule = await probe('slow', SLOW, slowRequest);
    // C-2 (naming) reads the served tool names: decided, so the lists were read through the slow answers.
    assert.notEqual(rule('C-2').state, 'could-not-judge');
    assert.equal(rule('X-7').parts.find((p) => p.genre === 'dynamic')?.state, 'present');
  });
  it('200 MB of noise on stdout: X-7 is red', async () => {
    const rule = await probe('flood', FLOOD);
    assert.equal(rule('X-7').state, 'non-conforming');
    assert.ok(rule('X-7').findings.some((f) => f.messageId === 'stdout-noise'));
  });
  it('one 100 MB line of noise: X-7 is red, not a silent truncation', async () => {
    const rule = await probe('line', LINE);
    assert.equal(rule('X-7').state, 'non-conforming');
    assert.ok(rule('X-7').findings.some((f) => f.messageId === 'stdout-noise'));
  });
});
