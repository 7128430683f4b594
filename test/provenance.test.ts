import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { loadTrustRoot, npmPurl, sha512Hex, verifyProvenance } from '../src/facts/provenance.js';

/**
 * C-17's Sigstore verification (src/facts/provenance.ts): the trust material shipped in @sigstore/tuf's seed,
 * its expiry, and the checks of an attestation document before and by @sigstore/verify. The documents are the
 * C-17 gate fixtures (DSSE bundles shaped like the registry's, signed by a key that is not Sigstore's).
 */
const fixtures = join(packageRoot(), 'src', 'detectors', 'C-17-supply-chain', 'fixtures');
const load = (rel: string) => JSON.parse(readFileSync(join(fixtures, rel), 'utf8')) as Record<string, unknown>;
const integrityOf = (rel: string) => {
  const reg = load(rel) as { versions: Record<string, { dist: { integrity: string } }> };
  return reg.versions['1.2.0']!.dist.integrity;
};
const BEFORE_EXPIRY = new Date('2026-12-01T00:00:00Z');

describe('provenance verification (Sigstore)', () => {
  it('loads the trusted root from the @sigstore/tuf seed, with its log and CA keys', () => {
    const t = loadTrustRoot(BEFORE_EXPIRY);
    assert.ok(t.ok, JSON.stringify(!t.ok && t.reason));
    const root = t.value.root as { tlogs: unknown[]; certificateAuthorities: unknown[] };
    assert.ok(root.tlogs.length > 0 && root.certificateAuthorities.length > 0);
    assert.ok(Date.parse(t.value.expires) > BEFORE_EXPIRY.getTime());
  });
  it('stale or missing trust material is a reason, never a pass', () => {
    const t = loadTrustRoot(BEFORE_EXPIRY);
    assert.ok(t.ok);
    const stale = loadTrustRoot(new Date(Date.parse(t.value.expires) + 1000));
    assert.equal(!stale.ok && stale.reason.code, 'trust-material-stale');
    const missing = loadTrustRoot(BEFORE_EXPIRY, join(packageRoot(), 'no-such-seeds.json'));
    assert.equal(!missing.ok && missing.reason.code, 'trust-material-missing');
  });
  it('reads dist.integrity and names the npm subject as a purl', () => {
    assert.equal(sha512Hex('sha512-' + Buffer.from('abc').toString('base64')), Buffer.from('abc').toString('hex'));
    assert.equal(sha512Hex('sha1-abc'), undefined);
    assert.equal(npmPurl('@acme/weather-mcp', '1.2.0'), 'pkg:npm/%40acme/weather-mcp@1.2.0');
  });
  it('checks the subject before the signature: another version, another tarball, a malformed bundle', () => {
    const t = loadTrustRoot(BEFORE_EXPIRY);
    assert.ok(t.ok);
    const dir = 'non-conforming/gate-attestation-tampered';
    const doc = load(`${dir}/attestations.json`);
    const integrity = integrityOf(`${dir}/registry.json`);
    assert.equal(verifyProvenance(doc, { name: '@acme/weather-mcp', version: '1.2.1', integrity }, t.value).failure, 'subject-name');
    assert.equal(verifyProvenance(doc, { name: '@acme/weather-mcp', version: '1.2.0', integrity: 'sha512-' + Buffer.alloc(64).toString('base64') }, t.value).failure, 'subject-digest');
    assert.equal(verifyProvenance({ attestations: [{ predicateType: 'https://slsa.dev/provenance/v1', bundle: { mediaType: 'x' } }] }, { name: '@acme/weather-mcp', version: '1.2.0', integrity }, t.value).failure, 'malformed');
    assert.equal(verifyProvenance({ attestations: [] }, { name: '@acme/weather-mcp', version: '1.2.0', integrity }, t.value).failure, 'no-provenance-bundle');
  });
  it('a bundle whose certificate does not chain to Sigstore fails in @sigstore/verify', () => {
    const t = loadTrustRoot(BEFORE_EXPIRY);
    assert.ok(t.ok);
    const dir = 'non-conforming/gate-attestation-tampered';
    const r = verifyProvenance(load(`${dir}/attestations.json`), { name: '@acme/weather-mcp', version: '1.2.0', integrity: integrityOf(`${dir}/registry.json`) }, t.value);
    assert.equal(r.verified, false);
    assert.equal(r.failure, 'signature');
    assert.match(r.detail ?? '', /CERTIFICATE_ERROR/);
  });
});
