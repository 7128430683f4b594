import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../../src/engine/paths.js';
import { RawStdio } from '../support/raw-stdio.js';

/**
 * A cancelled audit_repository stops in the rule loop and the server answers a ping at once: between the cancel
 * and the ping's answer at most one more rule runs (the loop gives way to the event loop after every rule), so
 * a client never waits on a batch of rules it has cancelled. Judged by message order, not by wall time.
 */
type Msg = { id?: unknown; method?: string; params?: { progressToken?: string; progress?: number; total?: number } };

describe('hostile: cancelling a long audit', () => {
  const c = new RawStdio({ MCP_DOCTOR_ROOTS: packageRoot() });
  after(() => c.close());

  it('a ping sent with the cancel is answered before a second rule runs; the audit never answers', async () => {
    await c.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cancel-test', version: '1' } }, 60_000);
    c.notify('notifications/initialized');
    const isProgress = (m: Msg) => m.method === 'notifications/progress' && m.params?.progressToken === 'cancel-ping';
    c.child.stdin.write(
      JSON.stringify({ jsonrpc: '2.0', id: 'audit-cancel-ping', method: 'tools/call', params: { name: 'audit_repository', arguments: { path: packageRoot() }, _meta: { progressToken: 'cancel-ping' } } }) + '\n',
    );
    // Wait until the rule loop runs (a few rules judged).
    while (!(c.received as Msg[]).some((m) => isProgress(m) && (m.params!.progress ?? 0) >= 3)) await new Promise((r) => setTimeout(r, 10));
    const from = c.received.length;
    c.notify('notifications/cancelled', { requestId: 'audit-cancel-ping', reason: 'stop' });
    const pong = await c.request('ping', undefined, 60_000);
    const between = (c.received.slice(from, c.received.indexOf(pong)) as Msg[]).filter(isProgress);
    assert.ok(between.length <= 1, `${between.length} rules ran between the cancel and the ping's answer`);
    const total = (c.received as Msg[]).find(isProgress)!.params!.total!;
    await c.request('ping', undefined, 60_000);
    assert.ok((c.received as Msg[]).filter(isProgress).length < total, 'the loop stopped');
    assert.equal((c.received as Msg[]).some((m) => m.id === 'audit-cancel-ping'), false, 'a cancelled request gets no answer');
  });
});
