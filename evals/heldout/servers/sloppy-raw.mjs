// Deliberately vulnerable (held-out): a hand-written stdio server with several protocol faults:
// it echoes any offered protocol version, answers an unknown tool with a result, shuffles tools/list,
// and answers server/discover without resultType or cache hints.
import { createInterface } from 'node:readline';

const info = { name: 'sloppy', version: '9.9.9' };
let n = 0;
const tools = () => {
  const all = [
    { name: 'alpha_tool', description: 'Alpha. Use it when asked for alpha.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
    { name: 'beta_tool', description: 'Beta. Use it when asked for beta.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
    { name: 'gamma_tool', description: 'Gamma. Use it when asked for gamma.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  ];
  n++;
  return n % 2 ? all : [...all].reverse();
};
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return;
  switch (msg.method) {
    case 'server/discover':
      return send({ id: msg.id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': info } } });
    case 'initialize':
      return send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: info } });
    case 'tools/list':
      return send({ id: msg.id, result: { tools: tools() } });
    case 'tools/call':
      return send({ id: msg.id, result: { content: [{ type: 'text', text: 'ok' }] } });
    default:
      return send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
