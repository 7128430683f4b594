import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { toolTokens } from '../src/detectors/C-21-measured-disclosure/dynamic.js';
import { DECLARATIONS_KEY } from '../src/facts/declarations-key.js';
import { CLI } from './support/run.js';

/** tools/list from our own server over stdio, read from the raw message (not through a client SDK). */
function servedTools(locale: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, MCP_DOCTOR_LOCALE: locale }, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    child.on('error', reject);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = JSON.parse(line) as { id?: unknown; result?: { tools?: Record<string, unknown>[] } };
        if (m.id === 2) {
          child.kill();
          resolve(m.result?.tools ?? []);
        }
      }
    });
    const send = (m: object) => child.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

describe('our declared contextTokens', () => {
  it('equal what our own C-21 measures from each served definition (default locale, English)', async () => {
    const tools = await servedTools('en');
    assert.ok(tools.length >= 4);
    for (const t of tools) {
      const declared = ((t._meta as Record<string, { contextTokens?: unknown }> | undefined)?.[DECLARATIONS_KEY])?.contextTokens;
      assert.equal(declared, toolTokens(t), `${String(t.name)}: declare contextTokens: ${toolTokens(t)} in src/server/build.ts`);
    }
  });
});
