import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { bundleFromJSON } from '@sigstore/bundle';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import type { Reason } from '../engine/types.js';
import type { Got } from './got.js';
import { readInside } from './safe-read.js';

/**
 * C-17 at the gate: the registry's provenance attestation of a published version, verified.
 *
 *  - The attestation document is the one the packument names (`dist.attestations.url`), fetched with
 *    npm-registry-fetch, or read from a saved file (`--attestations FILE`). Offline: a reason.
 *  - The trust material is Sigstore's trusted root as shipped in the seed of `@sigstore/tuf` (installed from
 *    the npm registry, not fetched at run time): the TUF root that signs it carries an expiry, and a seed past
 *    its expiry is stale — could-not-judge, never a pass. A newer trusted root cannot be fetched offline.
 *  - The SLSA provenance bundle (predicate https://slsa.dev/provenance/…) is checked in this order: its in-toto
 *    statement names this package@version (`pkg:npm/<name>@<version>`) with the sha512 of `dist.integrity`;
 *    then the bundle is verified with `@sigstore/verify` (certificate chain to Fulcio, transparency-log entry,
 *    signature over the DSSE envelope). Any failure is red with its cause.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

export interface ProvenanceVerdict {
  verified: boolean;
  /** When not verified: what failed. */
  failure?: 'no-provenance-bundle' | 'malformed' | 'subject-name' | 'subject-digest' | 'signature';
  /** The verifier's error code or the subject seen (data, quoted inertly). */
  detail?: string;
  /** The signing identity (the certificate's SAN) when verified. */
  identity?: string;
}

export interface TrustRoot {
  /** The trusted root (Sigstore's protobuf JSON). */
  root: unknown;
  /** Expiry of the TUF root metadata that ships it. */
  expires: string;
  from: string;
}

const SEED_REPO = 'https://tuf-repo-cdn.sigstore.dev';

/** Sigstore's trusted root from the `@sigstore/tuf` seed; stale when its TUF root has expired at `now`. */
export function loadTrustRoot(now: Date = new Date(), seedFile?: string): Got<TrustRoot> {
  let seeds: Obj | undefined;
  let from: string;
  try {
    from = seedFile ?? createRequire(import.meta.url).resolve('@sigstore/tuf/seeds.json');
    seeds = obj(JSON.parse(readFileSync(from, 'utf8')));
  } catch (e) {
    return { ok: false, reason: { code: 'trust-material-missing', data: { error: String((e as Error).message ?? e).slice(0, 200) } } };
  }
  const repo = obj(seeds?.[SEED_REPO]);
  const rootB64 = repo?.['root.json'];
  const trustedB64 = obj(repo?.targets)?.['trusted_root.json'];
  if (typeof rootB64 !== 'string' || typeof trustedB64 !== 'string') return { ok: false, reason: { code: 'trust-material-missing', data: { error: 'no trusted root in the seed' } } };
  try {
    const tufRoot = obj(obj(JSON.parse(Buffer.from(rootB64, 'base64').toString('utf8')))?.signed);
    const expires = typeof tufRoot?.expires === 'string' ? tufRoot.expires : '';
    if (!expires || !(Date.parse(expires) > now.getTime())) return { ok: false, reason: { code: 'trust-material-stale', data: { expires: expires || 'unknown', from: '@sigstore/tuf' } } };
    const root = JSON.parse(Buffer.from(trustedB64, 'base64').toString('utf8')) as unknown;
    return { ok: true, value: { root, expires, from: '@sigstore/tuf' } };
  } catch (e) {
    return { ok: false, reason: { code: 'trust-material-missing', data: { error: String((e as Error).message ?? e).slice(0, 200) } } };
  }
}

/** The hex sha512 of an SRI `dist.integrity` (sha512-<base64>), or undefined. */
export function sha512Hex(integrity: string | undefined): string | undefined {
  const m = /(?:^|\s)sha512-([A-Za-z0-9+/=]+)/.exec(integrity ?? '');
  return m ? Buffer.from(m[1]!, 'base64').toString('hex') : undefined;
}

/** The purl npm uses as the provenance subject name. */
export const npmPurl = (name: string, version: string): string => `pkg:npm/${name.replace(/^@/, '%40')}@${version}`;

/** Verify the SLSA provenance of an attestation document (`{ attestations: [{ predicateType, bundle }] }`). */
export function verifyProvenance(doc: unknown, want: { name: string; version: string; integrity?: string }, trust: TrustRoot): ProvenanceVerdict {
  const list = obj(doc)?.attestations;
  const slsa = Array.isArray(list) ? list.map(obj).find((a) => typeof a?.predicateType === 'string' && a.predicateType.startsWith('https://slsa.dev/provenance/')) : undefined;
  if (!slsa) return { verified: false, failure: 'no-provenance-bundle' };
  let statement: Obj | undefined;
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    bundle = bundleFromJSON(slsa.bundle);
    const env = bundle.content.$case === 'dsseEnvelope' ? bundle.content.dsseEnvelope : undefined;
    if (!env) return { verified: false, failure: 'malformed', detail: 'not a DSSE envelope' };
    statement = obj(JSON.parse(Buffer.from(env.payload).toString('utf8')));
  } catch (e) {
    return { verified: false, failure: 'malformed', detail: String((e as Error).message ?? e).slice(0, 200) };
  }
  const subjects = Array.isArray(statement?.subject) ? statement.subject.map(obj) : [];
  const purl = npmPurl(want.name, want.version);
  const subject = subjects.find((s) => s?.name === purl);
  if (!subject) return { verified: false, failure: 'subject-name', detail: subjects.map((s) => String(s?.name)).join(', ').slice(0, 200) };
  const wanted = sha512Hex(want.integrity);
  const got = obj(subject.digest)?.sha512;
  if (!wanted || typeof got !== 'string' || got.toLowerCase() !== wanted) return { verified: false, failure: 'subject-digest', detail: typeof got === 'string' ? got.slice(0, 16) : 'none' };
  try {
    const verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(trust.root)));
    const signer = verifier.verify(toSignedEntity(bundle));
    return { verified: true, ...(signer.identity?.subjectAlternativeName ? { identity: signer.identity.subjectAlternativeName } : {}) };
  } catch (e) {
    const x = e as { code?: string; message?: string };
    return { verified: false, failure: 'signature', detail: `${x.code ?? 'error'}: ${String(x.message ?? e)}`.slice(0, 200) };
  }
}

/** The attestation document: a saved file, or the URL the packument names (npm-registry-fetch); offline is a reason. */
export async function fetchAttestations(url: string, opts: { file?: string; offline?: boolean }): Promise<Got<unknown>> {
  if (opts.file) {
    const r = readInside('/', resolve(opts.file), 16 * 1024 * 1024);
    if (!r.ok) return { ok: false, reason: { code: 'attestations-unreadable', data: { file: opts.file, error: r.cause } } };
    try {
      return { ok: true, value: JSON.parse(r.text) as unknown };
    } catch (e) {
      return { ok: false, reason: { code: 'attestations-unreadable', data: { file: opts.file, error: String((e as Error).message).slice(0, 200) } } };
    }
  }
  if (opts.offline) return { ok: false, reason: { code: 'attestations-offline', data: { url } } };
  try {
    const { default: fetchRegistry } = await import('npm-registry-fetch');
    return { ok: true, value: (await fetchRegistry.json(url, { timeout: 20_000, retry: { retries: 1 } })) as unknown };
  } catch (e) {
    const status = (e as { statusCode?: number }).statusCode;
    return { ok: false, reason: { code: 'attestations-unreachable', data: { url, error: status ? `HTTP ${status}` : String((e as Error).message).slice(0, 200) } } };
  }
}

/** Gather and verify the provenance of a published version (the fact C-17's gate part judges). */
export async function provenanceFacts(
  packument: Obj | undefined,
  name: string | undefined,
  version: string | undefined,
  opts: { file?: string; offline?: boolean; now?: Date },
): Promise<Got<ProvenanceVerdict> | undefined> {
  if (!name || !version) return undefined;
  const dist = obj(obj(obj(packument?.versions)?.[version])?.dist);
  const att = obj(dist?.attestations);
  if (!att || !obj(att.provenance)) return undefined;
  const url = typeof att.url === 'string' ? att.url : '';
  const trust = loadTrustRoot(opts.now);
  if (!trust.ok) return trust;
  const doc = await fetchAttestations(url, { file: opts.file, offline: opts.offline });
  if (!doc.ok) return doc as { ok: false; reason: Reason };
  return { ok: true, value: verifyProvenance(doc.value, { name, version, integrity: typeof dist?.integrity === 'string' ? dist.integrity : undefined }, trust.value) };
}
