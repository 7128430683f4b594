import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/engine/paths.js';
import { send, type HttpTarget } from '../../src/probe/http.js';
import { checkUrl, METADATA_RANGES } from '../../src/probe/ssrf.js';
import { killTree } from '../../src/probe/stdio.js';
import { runCli } from '../support/run.js';

/**
 * The SSRF policy under attack: cloud metadata endpoints are refused always (with --allow-private too, on
 * every resolved address, in every IPv6 form that carries an IPv4 address), and a loopback server reached
 * by name works, with the socket pinned to the checked addresses.
 */

type Lookup = typeof import('node:dns/promises').lookup;
const resolver = (answers: Record<string, string[]>): Lookup =>
  (async (host: string) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as unknown as Lookup;

const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/', // AWS, GCP, Azure, OCI IMDS
  'http://100.100.100.200/latest/meta-data/', // Alibaba (inside 100.64/10, "private" for --allow-private)
  'http://[fd00:ec2::254]/latest/meta-data/', // AWS IMDS over IPv6 (inside fc00::/7)
  'http://[fd20:ce::254]/computeMetadata/v1/', // GCP over IPv6
  'http://168.63.129.16/machine?comp=goalstate', // Azure WireServer (a public address)
  'http://192.0.0.192/', // Oracle
  'http://[::ffff:100.100.100.200]/', // IPv4-mapped
  'http://[::ffff:a9fe:a9fe]/', // IPv4-mapped, hex
  'http://[::ffff:0:a83f:8110]/', // RFC 6145 (::ffff:0:a.b.c.d) of 168.63.129.16
  'http://[64:ff9b::6464:64c8]/', // NAT64 of 100.100.100.200
  'http://[64:ff9b::a83f:8110]/', // NAT64 of 168.63.129.16
  'http://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
  'http://[2001:0:4136:e378:8000:63bf:9b9b:9b37]/', // Teredo, client 100.100.100.200 (inverted bits)
  'http://[::a83f:8110]/', // IPv4-compatible, 168.63.129.16
  'http://0xa83f8110/', // 168.63.129.16 written as one hexadecimal number
];

describe('cloud metadata endpoints are refused whatever the flags', () => {
  for (const allowPrivate of [false, true]) {
    it(`every metadata address and form (allowPrivate: ${allowPrivate})`, async () => {
      for (const u of METADATA_URLS) {
        const v = await checkUrl(u, { allowPrivate });
        assert.equal(v.ok, false, u);
        assert.equal(!v.ok && v.code, 'ssrf-metadata', `${u}: ${JSON.stringify(v)}`);
      }
    });
  }
  it('a name that resolves to a metadata address among others is refused, with --allow-private too', async () => {
    const r = resolver({ 'imds.test': ['127.0.0.1', 'fd00:ec2::254'], 'ali.test': ['100.100.100.200'], 'wire.test': ['10.0.0.5', '168.63.129.16'] });
    for (const host of ['imds.test', 'ali.test', 'wire.test']) {
      const v = await checkUrl(`http://${host}/mcp`, { allowPrivate: true }, r);
      assert.equal(!v.ok && v.code, 'ssrf-metadata', host);
    }
  });
  it('the neighbours of the metadata addresses keep their ordinary verdicts (the check is by address, not by range)', async () => {
    assert.equal((await checkUrl('http://100.100.100.201/', { allowPrivate: true })).ok, true, 'carrier-grade NAT with --allow-private');
    assert.equal((await checkUrl('http://100.100.100.201/', { allowPrivate: false })).ok, false, 'carrier-grade NAT without');
    assert.equal((await checkUrl('http://168.63.129.17/', { allowPrivate: false })).ok, true, 'a public address');
    assert.equal((await checkUrl('http://[fd00:ec2::253]/', { allowPrivate: true })).ok, true, 'unique-local with --allow-private');
  });
  it('every listed range is one ipaddr.js parses (no hand-written addresses)', () => {
    assert.ok(METADATA_RANGES.length >= 8);
    for (const r of METADATA_RANGES) assert.match(r.cidr, /\/\d+$/);
  });
  it('the CLI refuses a metadata address with --allow-private before sending anything (exit 2)', async () => {
    for (const u of ['http://100.100.100.200/mcp', 'http://[fd00:ec2::254]/mcp', 'http://168.63.129.16/mcp']) {
      const r = await runCli(['probe', '--allow-private', '--url', u]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /SSRF/);
      assert.match(r.stderr, /metadata/);
    }
  });
});

/** Start the SDK-built Streamable HTTP fixture on a free port at `host`. */
async function startHttpFixture(host: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(packageRoot(), 'test', 'fixtures', 'servers', 'v2-http.mjs')], {
    env: { ...process.env, PORT: '0', HOST: host },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /listening (\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error(`fixture exited: ${err}`)));
  });
  return { child, port };
}

type Rep = { target: { url: string }; results: { ruleId: string; parts: { genre: string; state: string }[] }[] };
const dyn = (r: Rep, id: string) => r.results.find((x) => x.ruleId === id)!.parts.find((p) => p.genre === 'dynamic')!.state;

describe('loopback by name: probe --url http://localhost:PORT/mcp', () => {
  let v4: { child: ChildProcess; port: number };
  let v6: { child: ChildProcess; port: number };
  before(async () => {
    v4 = await startHttpFixture('127.0.0.1');
    v6 = await startHttpFixture('::1');
  });
  after(async () => {
    await killTree(v4.child.pid!);
    await killTree(v6.child.pid!);
  });

  for (const [label, url] of [
    ['localhost (resolved by the system)', () => `http://localhost:${v4.port}/mcp`],
    ['[::1]', () => `http://[::1]:${v6.port}/mcp`],
    ['127.0.0.1', () => `http://127.0.0.1:${v4.port}/mcp`],
  ] as const) {
    it(`${label}: the probe reaches the server and judges it`, async () => {
      const r = await runCli(['probe', '--format', 'json', '--url', url()]);
      assert.notEqual(r.code, 3, r.stderr);
      assert.doesNotMatch(r.stderr, /Invalid IP address/);
      const rep = JSON.parse(r.stdout) as Rep;
      for (const id of ['S-2', 'S-4', 'S-22']) assert.equal(dyn(rep, id), 'present', `${label} ${id}`);
      assert.equal(r.code, 1, 'the fixture has no authorization: S-16 is red');
    });
  }
});

describe('a name with several addresses: every one checked, the socket pinned to them', () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.socket.remoteAddress ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const post = (target: HttpTarget) => send(target, { label: 't', body: '{}', timeoutMs: 10_000, started: Date.now() });

  it('connects through a name no DNS knows, to a checked address only (happy eyeballs over the checked list)', async () => {
    // ::1 is checked first and has no listener on this port: Node tries the next checked address.
    const r = resolver({ 'multi.invalid': ['::1', '127.0.0.1'] });
    const v = await checkUrl(`http://multi.invalid:${port}/mcp`, { allowPrivate: false }, r);
    assert.ok(v.ok);
    assert.deepEqual(v.addresses, [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const ex = await post({ url: v.url, address: v.address, family: v.family, addresses: v.addresses, headers: {} });
    assert.equal(ex.error, undefined, ex.error);
    assert.equal(ex.response?.status, 200);
    assert.deepEqual(seen, ['127.0.0.1']);
  });
  it('never connects to an address that was not checked, whatever DNS says', async () => {
    // `localhost` resolves to 127.0.0.1 here; the target pins it to a checked address where nothing listens.
    const ex = await post({ url: new URL(`http://localhost:${port}/mcp`), address: '::1', family: 6, addresses: [{ address: '::1', family: 6 }], headers: {} });
    assert.ok(ex.error, 'no connection to the unchecked 127.0.0.1');
    assert.doesNotMatch(ex.error!, /Invalid IP address/);
    assert.equal(seen.length, 1);
  });
  it('refuses the whole name when one of its addresses is refused', async () => {
    const r = resolver({ 'mixed.test': ['127.0.0.1', '10.0.0.1'] });
    const v = await checkUrl('http://mixed.test/mcp', { allowPrivate: false }, r);
    assert.equal(!v.ok && v.code, 'ssrf-range');
  });
});
