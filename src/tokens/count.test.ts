import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encode as libraryEncode } from 'gpt-tokenizer';
import libraryRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { packageRoot } from '../engine/paths.js';
import { countTokens, encode, loadRanks, TABLE_FILE, tableSource } from './count.js';

/**
 * The token counts of C-19, C-21 and the compact results come from gpt-tokenizer's o200k_base encoding, with its
 * table read from the JSON the build writes (build-table.ts) or, without that file, from the library's module.
 */
describe('token counts (src/tokens/count.ts)', () => {
  const root = packageRoot();
  const texts = [
    readFileSync(join(root, 'README.md'), 'utf8'),
    readFileSync(join(root, 'README.fr.md'), 'utf8'),
    readFileSync(join(root, 'i18n', 'fr.json'), 'utf8'),
    'Ünïcödé, 日本語のテキスト, emoji 🎉🧪, tabs\tand\r\nnewlines',
    '',
  ];

  it('the build wrote the table, equal to the library\'s own', () => {
    assert.ok(existsSync(TABLE_FILE), `${TABLE_FILE} (npm run build writes it)`);
    assert.deepEqual(loadRanks(TABLE_FILE), libraryRanks);
  });
  it('counts exactly as gpt-tokenizer\'s encode, from the JSON table', () => {
    for (const t of texts) assert.deepEqual(encode(t), libraryEncode(t));
    assert.equal(tableSource, 'json');
    assert.equal(countTokens(texts[0]!), libraryEncode(texts[0]!).length);
    // A special token spelled in a text is counted as that text (the library refuses it by default): a served
    // description cannot make the count throw.
    const special = 'a <|endoftext|> b <|im_start|>';
    assert.throws(() => libraryEncode(special));
    assert.deepEqual(encode(special), libraryEncode(special, { disallowedSpecial: new Set() }));
    assert.ok(countTokens(special) > 4);
  });
  it('falls back to the library\'s module when the JSON is missing', () => {
    assert.deepEqual(loadRanks(join(root, 'no-such-table.json')), libraryRanks);
    assert.equal(tableSource, 'module');
  });
});
