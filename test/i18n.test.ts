import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { keysOf, locales, placeholders, raw } from '../src/engine/i18n.js';
import { packageRoot } from '../src/engine/paths.js';

describe('i18n', () => {
  it('derives the locales from the i18n folder', () => {
    const files = readdirSync(join(packageRoot(), 'i18n')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
    assert.deepEqual(locales(), files);
    assert.ok(locales().includes('en') && locales().includes('fr'));
  });
  it('every locale has the same keys', () => {
    const en = keysOf('en');
    for (const l of locales()) assert.deepEqual(keysOf(l), en, `${l} keys`);
  });
  it('every message uses the same placeholders in every locale', () => {
    for (const key of keysOf('en')) {
      const p = placeholders(raw('en', key)!);
      for (const l of locales()) assert.deepEqual(placeholders(raw(l, key)!), p, `${l}:${key}`);
    }
  });
});
