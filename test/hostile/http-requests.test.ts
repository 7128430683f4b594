import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCli } from './support/servers.js';

/**
 * Requests from the server over Streamable HTTP (issue 20): a server that, inside the event stream answering
 * tools/list, asks the client 300 times (sampling/createMessage, roots/list, elicitation/create) and waits for the
 * answers before it gives the tool list. The probe answers each one as it reads it, by a POST to the endpoint, the
 * way it does over stdio: an error for sampling and roots, a decline for an elicitation, never any data. The server
 * here is real (node:http, written by hand) and counts what reaches it.
 */

const ASKS = 300;
const METHODS = ['sampling/createMessage', 'roots/list', 'elicitation/create'] as const;
type Msg = Record<string, any>;

interface Asker {
  port: number;
  /** Per tools/list stream: how many requests it sent and the answers it got, by kind. */
  streams: { sent: number; answers: Record<string, number> }[];
  close(): Promise<void>;
}

async function asker(): Promise<Asker> {
  const streams: Asker['streams'] = [];
  const waiting = new Map<string, () => void>();
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'mcp-session-id': 'sid-1' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return json(res, 405);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let m: Msg;
      try {
        m = JSON.parse(body) as Msg;
      } catch {
        return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      if (m.method === undefined && typeof m.id === 'string' && m.id.startsWith('s')) {
        // An answer to one of our requests: s<stream>-<n>.
        const [stream, n] = m.id.slice(1).split('-').map(Number);
        const kind = `${METHODS[n! % 3]} ${'error' in m ? 'error' : 'result ' + JSON.stringify(m.result)}`;
        const s = streams[stream!];
        if (s) s.answers[kind] = (s.answers[kind] ?? 0) + 1;
        waiting.get(m.id)?.();
        return json(res, 202);
      }
      if (m.id === undefined) return json(res, 202);
      if (m.method === 'initialize')
        return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1.0.0' } } });
      if (m.method !== 'tools/list') return json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
      const index = streams.push({ sent: 0, answers: {} }) - 1;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sid-1' });
      const answered: Promise<void>[] = [];
      for (let n = 0; n < ASKS; n++) {
        const id = `s${index}-${n}`;
        const method = METHODS[n % 3];
        answered.push(new Promise((r) => waiting.set(id, r)));
        const params = method === 'roots/list' ? {} : method === 'sampling/createMessage' ? { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } : { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n\n`);
        streams[index]!.sent++;
      }
      // The tool list comes once every request is answered, or after 8 s.
      const late = new Promise((r) => setTimeout(r, 8000).unref());
      void Promise.race([Promise.all(answered), late]).then(() => {
        const tools = [{ name: 'get_time', description: 'Returns the time.', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }];
        res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools } })}\n\n`);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    streams,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('hostile: requests from the server over HTTP', () => {
  let a: Asker;
  before(async () => (a = await asker()));
  after(() => a.close());

  it(`${ASKS} requests on the event stream are each answered at once, with no data`, { timeout: 180_000 }, async () => {
    const r = await runCli(['probe', '--url', `http://127.0.0.1:${a.port}/mcp`, '--format', 'json', '--timeout-ms', '60000']);
    assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr.slice(0, 800)}`);
    assert.ok(a.streams.length >= 1, 'tools/list was asked');
    for (const s of a.streams) {
      assert.equal(s.sent, ASKS);
      assert.deepEqual(s.answers, {
        'sampling/createMessage error': ASKS / 3,
        'roots/list error': ASKS / 3,
        'elicitation/create result {"action":"decline"}': ASKS / 3,
      });
    }
    const report = JSON.parse(r.stdout) as Msg;
    assert.ok(report.results.length > 60, 'a report');
  });
});
