import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog } from '../src/engine/catalog.js';
import { keysOf, locales, placeholders, raw } from '../src/engine/i18n.js';
import { packageRoot } from '../src/engine/paths.js';
import { folders, registry } from '../src/detectors/index.js';
import { SCAN_MESSAGES } from '../src/scan/judge.js';
import { DETECTOR_GENRES, DETECTOR_PARTS } from '../src/detectors/genres.js';
import { liveParts, liveRegistry } from '../src/detectors/live.js';
import { audit } from '../src/run/audit.js';
import { loadSession } from '../src/run/probe.js';

const detectorsDir = join(packageRoot(), 'src', 'detectors');

describe('detector registry', () => {
  const catalog = loadCatalog();
  // support/ holds the helpers shared by several rules (src/detectors/support), not a rule.
  const onDisk = readdirSync(detectorsDir, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'support').map((d) => d.name).sort();

  it('DETECTOR_GENRES (what rules and explain show without loading the detectors) matches the registry', () => {
    const fromRegistry: Record<string, string[]> = {};
    for (const d of registry) {
      const genres = (fromRegistry[d.ruleId] ??= []);
      if (!genres.includes(d.genre)) genres.push(d.genre);
    }
    assert.deepEqual(Object.fromEntries(Object.entries(DETECTOR_GENRES).map(([k, v]) => [k, [...v]])), fromRegistry);
  });
  it('DETECTOR_PARTS lists every detector of every rule, in registry order', () => {
    const fromRegistry: Record<string, string[]> = {};
    for (const d of registry) (fromRegistry[d.ruleId] ??= []).push(d.genre);
    assert.deepEqual(Object.fromEntries(Object.entries(DETECTOR_PARTS).map(([k, v]) => [k, [...v]])), fromRegistry);
  });
  it('the live registry holds the registry\'s own dynamic parts, in order, and stands in for the others', () => {
    const dynamic = registry.filter((d) => d.genre === 'dynamic');
    assert.equal(liveParts.length, dynamic.length);
    dynamic.forEach((d, i) => assert.equal(liveParts[i], d, `${d.ruleId}: the same detector object`));
    // The stand-ins' premise: a source part needs the repository first, a gate part the gate.
    for (const d of registry) {
      if (d.genre === 'static') assert.equal(d.needs[0], 'repo', `${d.ruleId}/static needs the repository first`);
      if (d.genre === 'gate') assert.equal(d.needs[0], 'gate', `${d.ruleId}/gate needs the gate first`);
    }
    const live = liveRegistry();
    assert.deepEqual(
      live.map((d) => `${d.ruleId}/${d.genre}`),
      registry.map((d) => `${d.ruleId}/${d.genre}`),
    );
  });
  it('judges a recorded session without a package exactly as the full registry does', async () => {
    const fixtures = [
      ['X-1-tool-poisoning', 'present', 'clean-sdk'],
      ['E-2-graceful-degradation', 'non-conforming', 'live-rewrites-everyone'],
      ['E-2-graceful-degradation', 'could-not-judge', 'live-entry-fails'],
    ];
    for (const f of fixtures) {
      const session = loadSession(join(detectorsDir, f[0]!, 'fixtures', f[1]!, f[2]!, 'session.json'));
      const target = { command: ['node', 'server.mjs'] };
      for (const repoReason of [undefined, { code: 'source-skipped' }]) {
        const lazy = await audit({ target, session, repoReason });
        const full = await audit({ target, session, repoReason, detectors: registry });
        assert.deepEqual(lazy.results, full.results, f.join('/'));
        assert.ok(lazy.results.some((r) => r.parts.some((p) => p.genre === 'dynamic' && p.state !== 'could-not-judge')), `${f.join('/')}: something judged live`);
      }
    }
  });
  it('lists exactly the detector folders on disk, sorted by rule id', () => {
    assert.deepEqual([...folders.map((f) => f.folder)].sort(), onDisk);
    const ids = folders.map((f) => f.folder.replace(/^([A-Z]-\d+)-.*$/, '$1'));
    const sorted = [...ids].sort((a, b) => a[0] === b[0] ? Number(a.slice(2)) - Number(b.slice(2)) : 'CSAEX'.indexOf(a[0]!) - 'CSAEX'.indexOf(b[0]!));
    assert.deepEqual(ids, sorted);
  });
  it('names every folder <rule id>-<slug> from the catalog, with detectors for that rule and genres it declares', () => {
    for (const f of folders) {
      const id = f.folder.replace(/^([A-Z]-\d+)-.*$/, '$1');
      const meta = catalog.byId.get(id);
      assert.ok(meta, `${f.folder}: ${id} is in the catalog`);
      assert.equal(f.folder, `${meta.id}-${meta.slug}`);
      assert.ok(f.detectors.length > 0);
      for (const d of f.detectors) {
        assert.equal(d.ruleId, id);
        assert.ok(meta.genres.includes(d.genre), `${f.folder}: genre ${d.genre} is one of the rule's genres`);
      }
    }
  });
  it('keeps a test and red/green fixtures beside every detector', () => {
    for (const f of folders) {
      const dir = join(detectorsDir, f.folder);
      const files = readdirSync(dir);
      assert.ok(files.some((x) => x.endsWith('.test.ts')), `${f.folder} has a test`);
      if (f.detectors.some((d) => d.genre === 'static')) {
        assert.ok(existsSync(join(dir, 'fixtures', 'present')), `${f.folder} has a green fixture`);
        assert.ok(existsSync(join(dir, 'fixtures', 'absent')) || existsSync(join(dir, 'fixtures', 'non-conforming')), `${f.folder} has a red fixture`);
      }
    }
  });
  it('has a text in every locale for every message a detector declares, with the declared placeholders', () => {
    for (const d of registry) {
      for (const [id, ph] of Object.entries(d.messages)) {
        for (const l of locales()) {
          for (const part of ['message', 'fix']) {
            const key = `findings.${d.ruleId}.${id}.${part}`;
            const tpl = raw(l, key);
            assert.ok(tpl !== undefined && keysOf(l).includes(key), `${l}: ${key} exists`);
            for (const p of placeholders(tpl)) assert.ok(ph.includes(p), `${l}: ${key} uses undeclared placeholder ${p}`);
          }
          const used = new Set([...placeholders(raw(l, `findings.${d.ruleId}.${id}.message`)!), ...placeholders(raw(l, `findings.${d.ruleId}.${id}.fix`)!)]);
          assert.deepEqual([...used].sort(), [...ph].sort(), `${l}: findings.${d.ruleId}.${id} uses every declared placeholder`);
        }
      }
    }
  });
  it('has no message text that no detector declares', () => {
    const declared = new Set(registry.flatMap((d) => Object.keys(d.messages).map((m) => `findings.${d.ruleId}.${m}.`)));
    // The scan's findings on configuration files and sets (src/scan/judge.ts) are declared there.
    for (const [rule, msgs] of Object.entries(SCAN_MESSAGES)) for (const m of Object.keys(msgs)) declared.add(`findings.${rule}.${m}.`);
    for (const k of keysOf('en').filter((k) => k.startsWith('findings.'))) {
      assert.ok([...declared].some((p) => k.startsWith(p)), `${k} belongs to a declared message`);
    }
  });
});
