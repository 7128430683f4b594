import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionFacts } from '../../facts/session.js';
import type { Connection, RecordedSession } from '../../probe/session.js';
import { compareOrder, listingWalks, repeatedAcrossPages, twoOrders } from '../support/live/dynamic-support.js';
import x11 from './index.js';
import s12 from '../S-12-list-pagination/dynamic.js';
import { defaultConfig } from '../../engine/config.js';

/** A 2025-era connection that answered initialize, then each tools/list call in `calls` (cursor, names, nextCursor). */
function connection(label: Connection['label'], calls: { cursor?: string; names: string[]; next?: string }[]): Connection {
  const messages: Connection['messages'] = [];
  let id = 1;
  const pair = (method: string, params: unknown, result: unknown) => {
    messages.push({ dir: 'out', at: 0, message: { jsonrpc: '2.0', id, method, params } });
    messages.push({ dir: 'in', at: 0, message: { jsonrpc: '2.0', id, result } });
    id++;
  };
  pair('initialize', { protocolVersion: '2025-06-18' }, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } });
  for (const c of calls) pair('tools/list', c.cursor ? { cursor: c.cursor } : {}, { tools: c.names.map((name) => ({ name, inputSchema: { type: 'object' } })), ...(c.next ? { nextCursor: c.next } : {}) });
  return { label, outcome: 'answered', messages, noise: [], stderr: '', truncated: false, durationMs: 0 };
}

const session = (...connections: Connection[]): SessionFacts =>
  new SessionFacts({ format: 'mcp-doctor-session/1', tool: { name: 'mcp-doctor', version: 't' }, target: { transport: 'stdio', command: ['node'] }, startedAt: '', durationMs: 0, actions: [], connections } as RecordedSession);

const judge = (d: typeof x11[number] | typeof s12, s: SessionFacts) => d.judge({ inputs: { session: s }, config: defaultConfig() } as never);

describe('catalog order across walks and launches', () => {
  it('a repeat within one page is not paging; pages that repeat an earlier one are', () => {
    const s = session(connection('legacy', [{ names: ['a', 'a', 'b'] }, { names: ['a', 'b', 'c'], next: 'p2' }, { cursor: 'p2', names: ['b', 'c'] }]));
    const walks = listingWalks(s, 'legacy', 'tools/list');
    assert.equal(walks.length, 2);
    assert.deepEqual(repeatedAcrossPages(walks[0]!), []);
    assert.deepEqual(repeatedAcrossPages(walks[1]!), ['b', 'c']);
  });

  it('a set that changed compares the items both listings served', () => {
    const walk = (...names: string[]) => ({ pages: [{ keys: names.map((n) => `name:${n}`), items: names.map((name) => ({ name })) }], complete: true });
    const one = walk('a', 'b', 'c');
    assert.equal(compareOrder(one, walk('a', 'c', 'd')).kind, 'same');
    assert.deepEqual(compareOrder(one, walk('c', 'a', 'd')), { kind: 'reordered', first: ['a', 'c'], second: ['c', 'a'] });
    assert.equal(compareOrder(one, walk('a', 'x')).kind, 'set-changed');
  });

  it('quotes both orders from just before they part, bounded', () => {
    assert.equal(twoOrders(['a', 'b', 'c', 'd'], ['a', 'b', 'd', 'c']), '…, b, c, d | …, b, d, c');
    const long = Array.from({ length: 500 }, (_, i) => `tool_${i}`);
    const q = twoOrders(long, [...long].reverse());
    assert.ok(q.length < 400, q);
    assert.match(q, /^tool_0, tool_1, .*… \| tool_499, tool_498, .*…$/);
  });

  it('legacy-only server: the negotiation launch listing another order is red, with both orders', () => {
    const v = judge(x11[0]!, session(connection('legacy', [{ names: ['a', 'b', 'c'] }, { names: ['a', 'b', 'c'] }]), connection('negotiation', [{ names: ['c', 'a', 'b'] }])));
    assert.equal(v.state, 'non-conforming');
    assert.deepEqual(v.findings?.map((f) => [f.messageId, f.data]), [['tool-order-changed-between-launches', { first: 'legacy', second: 'negotiation' }]]);
    assert.equal(v.findings?.[0]?.evidence, 'a, b, c | c, a, b');
  });

  it('two listings sharing fewer than two tools cannot be compared', () => {
    const v = judge(x11[0]!, session(connection('legacy', [{ names: ['a', 'b'] }, { names: ['c', 'd'] }])));
    assert.equal(v.state, 'could-not-judge');
    assert.equal(v.reason?.code, 'tool-set-changed');
  });

  it('S-12: items on two pages while the second walk differs are not a repeated page; identical walks are', () => {
    const walk = (p2: string[]) => [{ names: ['a', 'b'], next: 'o2' }, { cursor: 'o2', names: p2 }];
    const moved = session(connection('legacy', [...walk(['b', 'c']), ...walk(['c', 'd'])]));
    assert.equal(judge(s12, moved).state, 'present');
    assert.equal(judge(x11[0]!, moved).state, 'non-conforming');
    const stuck = session(connection('legacy', [...walk(['b', 'c']), ...walk(['b', 'c'])]));
    const v = judge(s12, stuck);
    assert.deepEqual(v.findings?.map((f) => [f.messageId, f.evidence]), [['page-repeated', 'b']]);
    assert.equal(judge(x11[0]!, stuck).state, 'present');
  });

  it('judges a hostile catalog (ten pages of 20,000 repeated tools, twice, in three launches) without a quadratic reading (seconds, not minutes)', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `t${i}`);
    const calls = Array.from({ length: 10 }, (_, i) => ({ ...(i ? { cursor: `c${i}` } : {}), names, next: `c${i + 1}` }));
    const s = session(connection('legacy', [...calls, ...calls]), connection('negotiation', [...calls].reverse().map((c, i) => ({ ...c, names: i ? c.names : [...names].reverse() }))));
    const t = performance.now();
    judge(x11[0]!, s);
    judge(s12, s);
    assert.ok(performance.now() - t < 4000, `${performance.now() - t} ms`);
  });
});
