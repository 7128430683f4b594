import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli, scratch, writeServer } from './support/servers.js';

/**
 * Names that are also properties of every JavaScript object (`__proto__`, `constructor`, `toString`,
 * `hasOwnProperty`) and fields of the wrong JSON type (a number for a name, an object for a description, a string
 * for a schema), in both eras, and server requests in any number: the probe reports (exit 1 with findings),
 * never crashes, and answers every request from the server with no data.
 */

const s = scratch();
after(() => s.cleanup());

const TOOLS = [
  { name: '__proto__', description: 'x', inputSchema: { type: 'object' } },
  { name: 'constructor', description: 42, inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } },
  { name: 'toString', description: null, inputSchema: 'nope', annotations: 'x' },
  { name: 'hasOwnProperty', title: ['a'], inputSchema: { type: 'object', properties: '__proto__' } },
  { name: 7, description: { toString: 1 } },
];
const ODD = `
if (msg.method === 'initialize') { send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: 'yes' }, prompts: [], resources: 5 }, serverInfo: { name: '__proto__', version: 12 }, instructions: { a: 1 } } }); return true; }
if (msg.method === 'server/discover') { send({ jsonrpc: '2.0', id: msg.id, result: JSON.parse('{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":"x"},"__proto__":{"polluted":true}},"instructions":42,"resultType":"complete","ttlMs":"soon","cacheScope":"everyone","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"constructor","version":"1"}}}') }); return true; }
if (msg.method === 'tools/list') { send({ jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS, nextCursor: 5 } }); return true; }
if (msg.method === 'prompts/list') { send({ jsonrpc: '2.0', id: msg.id, result: { prompts: [{ name: '__proto__' }, { name: 'constructor', arguments: 'x' }] } }); return true; }
if (msg.method === 'resources/list') { send({ jsonrpc: '2.0', id: msg.id, result: { resources: [{ uri: 5, name: 'toString' }] } }); return true; }
`;

/** Every answer the server gets to its own requests, counted by kind, written to a file after each. */
const REQUESTS_SETUP = (out: string) => `
const METHODS = ['sampling/createMessage', 'roots/list', 'elicitation/create'];
let n = 0; const seen = {};
globalThis.__flood = (k) => { for (let i = 0; i < k; i++) { const method = METHODS[n % 3]; send({ jsonrpc: '2.0', id: 's' + n++, method, params: method === 'roots/list' ? {} : { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5, message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } }); } };
createInterface({ input: process.stdin }).on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.method !== undefined || typeof m.id !== 'string' || !m.id.startsWith('s')) return;
  const method = METHODS[Number(m.id.slice(1)) % 3];
  const k = method + ' ' + ('error' in m ? 'error' : 'result ' + JSON.stringify(m.result));
  seen[k] = (seen[k] ?? 0) + 1; seen.sent = n;
  fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify(seen));
});
`;
const FLOOD_REQUESTS = `
if (msg.method === 'initialize') { __flood(300); return false; }
if (msg.method === 'tools/list') { __flood(600); return false; }
`;

describe('hostile: odd names, wrong types, server requests', () => {
  it('tools named after Object.prototype members and fields of the wrong type: a report, no crash', async () => {
    const server = writeServer(s, 'odd.mjs', { onRequest: ODD, tools: TOOLS });
    for (const extra of [[], ['--exercise', 'invalid-arguments,read-only']]) {
      const r = await runCli(['probe', '--format', 'json', '--timeout-ms', '30000', ...extra, '--', process.execPath, server, s.tag], { cwd: s.dir });
      assert.equal(r.code, 1, r.stderr.slice(0, 800));
      const report = JSON.parse(r.stdout) as { results: { ruleId: string; state: string }[] };
      assert.ok(report.results.length > 60);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
    }
  });

  it('900 requests from the server are each answered with no data', async () => {
    const out = s.file('answers.json');
    const server = writeServer(s, 'asks.mjs', { setup: REQUESTS_SETUP(out), onRequest: FLOOD_REQUESTS });
    const r = await runCli(['probe', '--format', 'json', '--no-source', '--timeout-ms', '30000', '--', process.execPath, server, s.tag]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr.slice(0, 800));
    const seen = JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>;
    // The last connection's answers: every request answered; sampling and roots by an error; an elicitation
    // declined (the probe declares form elicitation so a server shows what it asks; it never fills a form).
    assert.deepEqual(
      Object.keys(seen).filter((k) => k !== 'sent').sort(),
      ['elicitation/create result {"action":"decline"}', 'roots/list error', 'sampling/createMessage error'],
    );
    assert.equal(Object.entries(seen).filter(([k]) => k !== 'sent').reduce((a, [, v]) => a + v, 0), seen.sent);
  });
});
