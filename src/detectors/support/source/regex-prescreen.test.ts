import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { liveRegexes, screenable } from './regex-prescreen.js';
import { sourceTexts } from './source-text.js';
import { TEXT_REGEXES } from '../../X-1-tool-poisoning/patterns.js';
import { REFERENCE_REGEXES } from '../../X-2-cross-server-shadowing/judge.js';
import { sourceDirOf } from '../../../engine/paths.js';
import { RepoFacts } from '../../../facts/repo.js';
import { fixtureCases } from '../../../../test/support/detector-tester.js';

describe('regex prescreen: which regexes the joined run may stand for', () => {
  it('screens word boundaries, positive lookarounds and one-class negative lookarounds', () => {
    for (const re of [/\bfoo\b/i, /(?<=a)b/, /(?<!\p{L})vous(?!\p{L})/iu, /(?<![\w.-])\.env(?![\w-])/, /[^.\n]{0,80}x/, /\$\{x\}/, /a\^b/]) {
      assert.equal(screenable(re), true, re.source);
    }
  });
  it('keeps without a test the regexes the blank line could hide a match from', () => {
    for (const re of [/^foo/, /foo$/, /(?:^|\n)Human:/, /\Bfoo/, /foo/y, /(?<!\s)foo/, /(?<![^a])foo/, /foo(?!\n)/, /(?<!ab)c/, /(?!.)/]) {
      assert.equal(screenable(re), false, re.source);
    }
  });
  it('keeps an unscreenable regex even when the joined batch does not match it', () => {
    // Alone, "foo" matches /(?<!\s)foo/; after the blank line of a join it would not.
    const re = /(?<!\s)foo/;
    assert.ok(re.test('foo'));
    assert.ok(!re.test('x\n\nfoo'));
    assert.ok(liveRegexes(['x', 'foo'], [re]).has(re));
  });
  it('drops a screened regex that matches none of the texts, and leaves g regexes reset', () => {
    const g = /zz+/g;
    const live = liveRegexes(['aa', 'bb zz'], [/qq/, g]);
    assert.deepEqual([...live], [g]);
    assert.equal(g.lastIndex, 0);
  });
});

describe('regex prescreen on the X-1 and X-2 batteries and the texts of their fixtures', () => {
  // Real material: every text the static parts read in the fixtures of X-1 and X-2 (red and green).
  const texts: string[] = [];
  for (const rule of ['X-1-tool-poisoning', 'X-2-cross-server-shadowing']) {
    for (const c of fixtureCases(join(sourceDirOf(import.meta.url), '..', '..', rule, 'fixtures'))) {
      if (c.name.startsWith('py-')) continue;
      try {
        texts.push(...sourceTexts(RepoFacts.gather(c.dir)).texts.map((t) => t.text));
      } catch {
        // a fixture without source (a recorded session) has no texts
      }
    }
  }
  const battery = [...TEXT_REGEXES, ...REFERENCE_REGEXES];
  const matches = (re: RegExp, t: string): boolean => {
    re.lastIndex = 0;
    const r = re.test(t);
    re.lastIndex = 0;
    return r;
  };

  it('reads texts from the fixtures, some of which the batteries flag', () => {
    assert.ok(texts.length > 20, `only ${texts.length} texts`);
    assert.ok(battery.some((re) => texts.some((t) => matches(re, t))));
  });
  it('never drops a regex that matches one of the texts, wherever that text sits in the batch', () => {
    for (const re of battery) {
      for (const t of texts.filter((x) => matches(re, x))) {
        for (const batch of [[t], ['plain words.', t], [t, 'plain words.'], ['a', t, 'b']]) {
          assert.ok(liveRegexes(batch, [re]).has(re), `${re.source} dropped for ${JSON.stringify(t)}`);
        }
      }
    }
  });
});
