import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF policy for URLs given to `probe --url` / `probe_endpoint`: http(s) only, no credentials in the
 * URL, every resolved address checked with a maintained IP library (ipaddr.js), cloud-metadata and
 * link-local ranges always refused, loopback allowed (local servers are the main use), private ranges only
 * on request. The caller connects to the checked address (DNS pinned) and never follows redirects.
 */

export interface SsrfPolicy {
  allowPrivate: boolean;
}

export type SsrfVerdict =
  | { ok: true; url: URL; address: string; family: 4 | 6 }
  | { ok: false; code: 'ssrf-scheme' | 'ssrf-credentials' | 'ssrf-metadata' | 'ssrf-resolve' | 'ssrf-range' | 'ssrf-url'; data: Record<string, string> };

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata.amazonaws.com', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
const ALWAYS_REFUSED = new Set(['linkLocal', 'unspecified', 'broadcast', 'multicast', 'reserved', 'benchmarking', 'amt', 'as112', 'as112v6', 'deprecated', 'orchid2', 'droneRemoteIdProtocolEntityTags', 'teredo', '6to4', 'rfc6145', 'rfc6052', 'discard']);
const PRIVATE = new Set(['private', 'uniqueLocal', 'carrierGradeNat', 'ipv4Mapped']);

/** Classify one address: 'loopback', 'public', 'private' or a refused range name. */
export function classify(address: string): { range: string; allowed: (p: SsrfPolicy) => boolean } {
  const ip = ipaddr.process(address); // unwraps IPv4-mapped IPv6
  const range = ip.range();
  if (range === 'loopback') return { range, allowed: () => true };
  if (range === 'unicast') return { range: 'public', allowed: () => true };
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
  for (const a of addresses) {
    const c = classify(a.address);
    if (!c.allowed(policy)) return { ok: false, code: 'ssrf-range', data: { host, address: a.address, range: c.range } };
  }
  return { ok: true, url, address: addresses[0]!.address, family: addresses[0]!.family === 6 ? 6 : 4 };
}
