import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pinnedLookup } from '../src/probe/http.js';
import { checkUrl } from '../src/probe/ssrf.js';

const resolver = (answers: Record<string, string[]>) =>
  (async (host: string) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as unknown as typeof import('node:dns/promises').lookup;

describe('SSRF policy for probe --url', () => {
  const policy = { allowPrivate: false };
  it('allows loopback, the main use', async () => {
    for (const u of ['http://127.0.0.1:3000/mcp', 'http://[::1]:8080/', 'http://2130706433/', 'http://0x7f.1/']) {
      assert.equal((await checkUrl(u, policy)).ok, true, u);
    }
  });
  it('refuses other schemes, credentials in the URL and metadata hosts', async () => {
    assert.deepEqual(await checkUrl('file:///etc/passwd', policy), { ok: false, code: 'ssrf-scheme', data: { scheme: 'file:' } });
    assert.equal((await checkUrl('http://u:p@127.0.0.1/', policy)).ok, false);
    assert.equal((await checkUrl('http://metadata.google.internal/computeMetadata/v1/', policy)).ok, false);
  });
  it('always refuses link-local and cloud metadata ranges, even when mapped into IPv6', async () => {
    for (const u of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/', 'http://0.0.0.0/']) {
      const v = await checkUrl(u, { allowPrivate: true });
      assert.equal(v.ok, false, u);
    }
  });
  it('refuses private ranges unless asked', async () => {
    assert.equal((await checkUrl('http://10.1.2.3/', policy)).ok, false);
    assert.equal((await checkUrl('http://10.1.2.3/', { allowPrivate: true })).ok, true);
  });
  it('checks every resolved address, not just the first', async () => {
    const r = resolver({ 'rebind.test': ['127.0.0.1', '169.254.169.254'] });
    const v = await checkUrl('http://rebind.test/mcp', policy, r);
    assert.equal(v.ok, false);
    assert.equal(!v.ok && v.data.address, '169.254.169.254');
    assert.equal((await checkUrl('http://ok.test/mcp', policy, resolver({ 'ok.test': ['127.0.0.5'] }))).ok, true);
    assert.equal((await checkUrl('http://nothing.test/', policy, resolver({}))).ok, false);
  });
  it('the pinned lookup answers one-address and all-addresses lookups with checked addresses only', async () => {
    const lookup = pinnedLookup({ address: '::1', family: 6, addresses: [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }] });
    const ask = (o: { all?: boolean; family?: number | string }) => new Promise<unknown[]>((r) => lookup('any.name', o, (...a: unknown[]) => r(a)));
    assert.deepEqual(await ask({}), [null, '::1', 6]);
    assert.deepEqual(await ask({ all: true }), [null, [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }]]);
    assert.deepEqual(await ask({ all: true, family: 4 }), [null, [{ address: '127.0.0.1', family: 4 }]]);
    assert.deepEqual(await ask({ family: 'IPv4' }), [null, '127.0.0.1', 4]);
    const onlyV6 = pinnedLookup({ address: '::1', family: 6 });
    const [err] = await new Promise<unknown[]>((r) => onlyV6('any.name', { family: 4 }, (...a: unknown[]) => r(a)));
    assert.ok(err instanceof Error, 'no checked address of that family: an error, never an unchecked address');
  });
});
