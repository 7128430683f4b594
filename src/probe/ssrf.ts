import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF policy for URLs given to `probe --url` / `probe_endpoint`: http(s) only, no credentials in the
 * URL, every resolved address checked with a maintained IP library (ipaddr.js), cloud-metadata endpoints
 * and link-local ranges always refused, loopback allowed (local servers are the main use), private ranges
 * only on request. The caller connects only to the checked addresses (DNS pinned) and never follows
 * redirects.
 *
 * Cloud metadata endpoints are refused whatever the flags (`--allow-private` included), on every resolved
 * address, and also when written inside an IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-
 * compatible, RFC 6145, NAT64, 6to4, Teredo).
 */

export interface SsrfPolicy {
  allowPrivate: boolean;
}

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export type SsrfVerdict =
  | { ok: true; url: URL; address: string; family: 4 | 6; /** Every resolved address, all checked (in resolver order). */ addresses: CheckedAddress[] }
  | { ok: false; code: 'ssrf-scheme' | 'ssrf-credentials' | 'ssrf-metadata' | 'ssrf-resolve' | 'ssrf-range' | 'ssrf-url'; data: Record<string, string> };

const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata.amazonaws.com',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

/**
 * Well-known cloud metadata (and host-agent) endpoints, refused always. Written as CIDR ranges and matched
 * with ipaddr.js.
 */
export const METADATA_RANGES: readonly { cidr: string; what: string }[] = [
  { cidr: '169.254.169.254/32', what: 'AWS, GCP, Azure, OCI, DigitalOcean, OpenStack instance metadata' },
  { cidr: '169.254.170.2/32', what: 'AWS ECS task metadata and credentials' },
  { cidr: '169.254.0.23/32', what: 'Tencent Cloud metadata' },
  { cidr: '100.100.100.200/32', what: 'Alibaba Cloud metadata' },
  { cidr: '168.63.129.16/32', what: 'Azure WireServer' },
  { cidr: '192.0.0.192/32', what: 'Oracle Cloud metadata' },
  { cidr: 'fd00:ec2::254/128', what: 'AWS instance metadata over IPv6' },
  { cidr: 'fd20:ce::254/128', what: 'GCP metadata over IPv6' },
  { cidr: 'fe80::a9fe:a9fe/128', what: 'OpenStack metadata over IPv6' },
];
const METADATA = METADATA_RANGES.map((r) => ipaddr.parseCIDR(r.cidr));

const ALWAYS_REFUSED = new Set(['linkLocal', 'unspecified', 'broadcast', 'multicast', 'reserved', 'benchmarking', 'amt', 'as112', 'as112v6', 'deprecated', 'orchid2', 'droneRemoteIdProtocolEntityTags', 'teredo', '6to4', 'rfc6145', 'rfc6052', 'discard']);
const PRIVATE = new Set(['private', 'uniqueLocal', 'carrierGradeNat', 'ipv4Mapped']);

const v4 = (b: number[]) => ipaddr.fromByteArray(b) as ipaddr.IPv4;

/** The IPv4 addresses an IPv6 address carries by a standard embedding (ipaddr.js names the ranges). */
export function embeddedIPv4(ip: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4[] {
  if (ip.kind() === 'ipv4') return [];
  const v6 = ip as ipaddr.IPv6;
  const b = v6.toByteArray();
  const last32 = () => v4(b.slice(12, 16));
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052': // NAT64, /96 prefixes: the IPv4 address is the last 32 bits
      return [last32()];
    case '6to4':
      return [v4(b.slice(2, 6))];
    case 'teredo': // server at bits 32-63, client obfuscated (inverted) in the last 32 bits
      return [v4(b.slice(4, 8)), v4(b.slice(12, 16).map((x) => x ^ 0xff))];
    default:
      // IPv4-compatible (::a.b.c.d, deprecated): the first 96 bits zero, and neither :: nor ::1.
      return b.slice(0, 12).every((x) => x === 0) && (b[12]! | b[13]! | b[14]!) !== 0 ? [last32()] : [];
  }
}

/** Whether an address is a well-known metadata endpoint, directly or embedded in an IPv6 address. */
export function isMetadataAddress(address: string): boolean {
  const ip = ipaddr.parse(address);
  return [ip, ...embeddedIPv4(ip)].some((a) => METADATA.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits)));
}

/** Classify one address: 'metadata', 'loopback', 'public', 'private' or a refused range name. */
export function classify(address: string): { range: string; allowed: (p: SsrfPolicy) => boolean } {
  if (isMetadataAddress(address)) return { range: 'metadata', allowed: () => false };
  const ip = ipaddr.process(address); // unwraps IPv4-mapped IPv6
  const range = ip.range();
  if (range === 'loopback') return { range, allowed: () => true };
  if (range === 'unicast') {
    // An IPv4-compatible IPv6 address (::a.b.c.d) is deprecated and routes nowhere useful: refused.
    if (embeddedIPv4(ip).length) return { range: 'ipv4Compatible', allowed: () => false };
    return { range: 'public', allowed: () => true };
  }
  if (PRIVATE.has(range)) return { range, allowed: (p) => p.allowPrivate };
  if (ALWAYS_REFUSED.has(range)) return { range, allowed: () => false };
  return { range, allowed: () => false };
}

export async function checkUrl(raw: string, policy: SsrfPolicy, resolver: typeof lookup = lookup): Promise<SsrfVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, code: 'ssrf-url', data: { url: raw } };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, code: 'ssrf-scheme', data: { scheme: url.protocol } };
  if (url.username || url.password) return { ok: false, code: 'ssrf-credentials', data: {} };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return { ok: false, code: 'ssrf-metadata', data: { host } };
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  else {
    try {
      addresses = await resolver(host, { all: true, verbatim: true });
    } catch (e) {
      return { ok: false, code: 'ssrf-resolve', data: { host, error: (e as Error).message } };
    }
  }
  if (addresses.length === 0) return { ok: false, code: 'ssrf-resolve', data: { host, error: 'no address' } };
  const checked: CheckedAddress[] = [];
  for (const a of addresses) {
    if (typeof a?.address !== 'string' || !ipaddr.isValid(a.address)) return { ok: false, code: 'ssrf-resolve', data: { host, error: 'not an IP address' } };
    // Metadata endpoints first, on every address, whatever the policy.
    if (isMetadataAddress(a.address)) return { ok: false, code: 'ssrf-metadata', data: { host: host === a.address ? host : `${host} (${a.address})`, address: a.address } };
    const c = classify(a.address);
    if (!c.allowed(policy)) return { ok: false, code: 'ssrf-range', data: { host, address: a.address, range: c.range } };
    checked.push({ address: a.address, family: ipaddr.parse(a.address).kind() === 'ipv6' ? 6 : 4 });
  }
  return { ok: true, url, address: checked[0]!.address, family: checked[0]!.family, addresses: checked };
}
