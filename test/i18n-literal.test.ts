import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCompiled, isLiteral, keysOf, locales, raw, t } from '../src/engine/i18n.js';

describe('i18n literal path', () => {
  it('a template taken as literal is what the ICU compiler makes of it, for every message of every locale', () => {
    let literal = 0;
    for (const l of locales())
      for (const key of keysOf(l)) {
        const tpl = raw(l, key)!;
        if (!isLiteral(tpl)) continue;
        literal++;
        assert.equal(formatCompiled(l, tpl), tpl, `${l}:${key}`);
        assert.equal(t(l, key), tpl, `${l}:${key}`);
      }
    assert.ok(literal > 100, `${literal} literal messages`);
  });
  it('arguments and ICU quoting still go through the compiler', () => {
    for (const tpl of ['{n} files', "it''s", "'{'braces'}'", "a '<b>' tag", "{n, plural, one {# '#'} other {#}}"]) {
      assert.equal(isLiteral(tpl), false, tpl);
    }
    // An apostrophe before an ordinary letter is literal in ICU (French elisions).
    for (const tpl of ["l'audit d'un serveur", 'plain text, with: punctuation (and) <tags>']) {
      assert.equal(isLiteral(tpl), true, tpl);
      assert.equal(formatCompiled('fr', tpl), tpl);
    }
  });
});
