import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog, ruleLocales, SECTION_KEYS } from '../src/engine/catalog.js';
import { locales, subtree, t } from '../src/engine/i18n.js';
import { ruleMarkdown } from '../src/run/api.js';
import { packageRoot } from '../src/engine/paths.js';

const numbered = [
  ...Array.from({ length: 22 }, (_, i) => `C-${i + 1}`),
  ...Array.from({ length: 27 }, (_, i) => `S-${i + 1}`),
  ...Array.from({ length: 7 }, (_, i) => `A-${i + 1}`),
  ...Array.from({ length: 6 }, (_, i) => `E-${i + 1}`),
];
const beyond = Array.from({ length: 7 }, (_, i) => `X-${i + 1}`);

describe('rule catalog', () => {
  const c = loadCatalog();
  it('holds the 62 numbered rules of the standard and X-1..X-7', () => {
    assert.equal(numbered.length, 62);
    for (const id of [...numbered, ...beyond]) assert.ok(c.byId.has(id), `${id} is in the catalog`);
  });
  it('has no duplicate ids and family prefixes match', () => {
    assert.equal(new Set(c.rules.map((r) => r.id)).size, c.rules.length);
    for (const r of c.rules) assert.equal(r.id.split('-')[0], r.family);
  });
  it('has a text folder for every i18n locale, and nothing else', () => {
    const dirs = readdirSync(join(packageRoot(), 'rules'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'catalog').map((d) => d.name).sort();
    assert.deepEqual(dirs, locales());
    assert.deepEqual(ruleLocales(), locales());
  });
  for (const loc of locales()) {
    it(`every rule has its ${loc} text with front matter and the fixed headings in order`, () => {
      const headings = subtree(loc, 'ruleDoc.headings')!;
      const expected = SECTION_KEYS.map((k) => String(headings[k]));
      for (const r of c.rules) {
        const t = c.text(r.id, loc);
        assert.ok(t, `${loc}/${r.id}.md exists`);
        assert.equal(t.id, r.id);
        assert.ok(t.title.length > 3, `${loc}/${r.id} has a title`);
        assert.ok(t.summary.length > 10, `${loc}/${r.id} has a summary`);
        assert.deepEqual(t.headings, expected, `${loc}/${r.id}.md headings`);
        for (const k of SECTION_KEYS) assert.ok((t.sections[k] ?? '').length > 0, `${loc}/${r.id} section ${k} is not empty`);
        if (r.conditional) assert.ok(t.condition, `${loc}/${r.id} is conditional and says when it applies`);
      }
    });
  }
  it('every rule says how its parts combine, and explain says it in every locale for a rule with several parts', () => {
    for (const r of c.rules) assert.ok(r.combine === 'any-unjudged' || r.combine === 'live-decides', r.id);
    // Live-decides only where a live part exists to decide.
    for (const r of c.rules.filter((x) => x.combine === 'live-decides')) assert.ok(r.genres.includes('dynamic'), r.id);
    for (const loc of locales()) {
      for (const r of c.rules.filter((x) => x.genres.length > 1)) {
        const md = ruleMarkdown(r.id, loc)!;
        assert.ok(md.includes(t(loc, `ruleDoc.combine.${r.combine}`)), `${loc} ${r.id}`);
      }
      assert.ok(!ruleMarkdown('C-1', loc)!.includes(t(loc, 'ruleDoc.labels.combine')), 'a single-part rule has nothing to combine');
    }
    assert.equal(c.byId.get('X-1')?.combine, 'live-decides');
    assert.equal(c.byId.get('C-6')?.combine, 'any-unjudged');
  });
  it('French texts are not the English ones', () => {
    for (const r of c.rules) assert.notEqual(c.text(r.id, 'fr')?.body, c.text(r.id, 'en')?.body, r.id);
  });
});
