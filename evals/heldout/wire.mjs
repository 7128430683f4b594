#!/usr/bin/env node
// A tiny raw JSON-RPC client over stdio, used to label the held-out servers by hand (never by mcp-doctor).
// It records every stdout line as received (JSON or not) and the tail of stderr, on three connections:
//   modern:      server/discover with a 2026-07-28 _meta envelope, then an enveloped tools/list;
//   legacy:      initialize 2025-06-18, notifications/initialized, tools/list (every page, twice),
//                prompts/list, resources/list, resources/templates/list when declared, tools/call of a
//                tool that does not exist, tools/call of the first tool with a required argument
//                without it (invalid arguments), tools/list with a made-up cursor;
//   negotiation: initialize offering 2099-01-01.
// It never calls a served tool with valid arguments. Usage:
//   node wire.mjs <out.jsonl> [--cwd DIR] [--timeout MS] [--env K=V]... -- <command> [args...]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const out = argv.shift();
const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: mkdtempSync(join(tmpdir(), 'wire-home-')) };
let cwd = process.cwd();
let timeoutMs = 8000;
while (argv[0] !== '--') {
  const a = argv.shift();
  if (a === '--cwd') cwd = argv.shift();
  else if (a === '--timeout') timeoutMs = Number(argv.shift());
  else if (a === '--env') {
    const kv = argv.shift();
    env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
  } else throw new Error(`unknown option ${a}`);
}
argv.shift();
const [cmd, ...args] = argv;
const records = [];
const MODERN = '2026-07-28';
const envelope = (params = {}) => ({
  ...params,
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'heldout-wire', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  },
});

async function connection(name, script) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = '';
  let stderr = '';
  const waiting = new Map();
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        records.push({ conn: name, dir: 'in', raw: line, json: false });
        continue;
      }
      records.push({ conn: name, dir: 'in', msg });
      if (msg && msg.id !== undefined && waiting.has(msg.id)) waiting.get(msg.id)(msg);
    }
  });
  let next = 1;
  const send = (msg) => {
    records.push({ conn: name, dir: 'out', msg });
    child.stdin.write(JSON.stringify(msg) + '\n');
  };
  const request = (method, params) =>
    new Promise((res) => {
      const id = next++;
      const t = setTimeout(() => {
        waiting.delete(id);
        records.push({ conn: name, note: `timeout on ${method}` });
        res(undefined);
      }, timeoutMs);
      waiting.set(id, (m) => {
        clearTimeout(t);
        waiting.delete(id);
        res(m);
      });
      send({ jsonrpc: '2.0', id, method, params });
    });
  const notify = (method, params) => send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  const exited = new Promise((res) => child.on('exit', (code, sig) => res({ code, sig })));
  child.on('error', (e) => records.push({ conn: name, note: `spawn error ${e.message}` }));
  try {
    await script({ request, notify });
  } finally {
    child.stdin.end();
    const t = setTimeout(() => child.kill('SIGTERM'), 2000);
    const ex = await exited;
    clearTimeout(t);
    if (buf) records.push({ conn: name, dir: 'in', raw: buf, json: false, partial: true });
    records.push({ conn: name, exit: ex, stderrTail: stderr.slice(-2000) });
  }
}

const listAll = async (request, method, key, wrap) => {
  let cursor;
  const items = [];
  for (let page = 0; page < 20; page++) {
    const r = await request(method, wrap(cursor ? { cursor } : {}));
    if (!r?.result) break;
    items.push(...(r.result[key] ?? []));
    cursor = r.result.nextCursor;
    if (!cursor) break;
  }
  return items;
};

await connection('modern', async ({ request }) => {
  const d = await request('server/discover', envelope());
  if (d?.result) await listAll(request, 'tools/list', 'tools', envelope);
});
await connection('legacy', async ({ request, notify }) => {
  const i = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'heldout-wire', version: '0.0.0' } });
  if (!i?.result) return;
  notify('notifications/initialized');
  const caps = i.result.capabilities ?? {};
  const id = (x) => x;
  if (caps.tools) {
    await listAll(request, 'tools/list', 'tools', id);
    await listAll(request, 'tools/list', 'tools', id);
  }
  if (caps.prompts) await listAll(request, 'prompts/list', 'prompts', id);
  if (caps.resources) {
    await listAll(request, 'resources/list', 'resources', id);
    await listAll(request, 'resources/templates/list', 'resourceTemplates', id);
  }
  if (caps.tools) {
    await request('tools/call', { name: 'heldout_no_such_tool', arguments: {} });
    // Invalid arguments: the first tool with a required property, called without it (a validating server
    // refuses before its handler runs).
    const listed = records.find((r) => r.conn === 'legacy' && r.dir === 'in' && Array.isArray(r.msg?.result?.tools))?.msg.result.tools ?? [];
    const target = listed.find((t) => Array.isArray(t.inputSchema?.required) && t.inputSchema.required.length);
    if (target) await request('tools/call', { name: target.name, arguments: {} });
    await request('tools/list', { cursor: 'heldout-made-up-cursor' });
  }
});
await connection('negotiation', async ({ request }) => {
  await request('initialize', { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'heldout-wire', version: '0.0.0' } });
});
writeFileSync(out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
rmSync(env.HOME, { recursive: true, force: true });
process.stdout.write(`${records.length} records -> ${out}\n`);
