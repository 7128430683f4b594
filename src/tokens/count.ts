import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/**
 * Token counts with gpt-tokenizer's o200k_base encoding (what C-19, C-21 and the compact results measure),
 * loaded on the first count, not when a module that counts is imported: a probe whose server serves no text
 * never loads the table. The table is read from the JSON that the build writes from the library's own table
 * (build-table.ts); when that file is absent (a build that skipped the step) the library's module is loaded
 * instead. Same table, same encoder, same counts either way (test/context-tokens.test.ts).
 */
export const TABLE_FILE = new URL('./o200k_base.json', import.meta.url).pathname;

type Ranks = (string | number[])[];
let encoder: GptEncoding | undefined;
/** Where the table came from (for tests): 'json' (the build's file) or 'module' (the library's module). */
export let tableSource: 'json' | 'module' | undefined;

/** The merge ranks: the build's JSON when `file` exists, else the library's own module. */
export function loadRanks(file = TABLE_FILE): Ranks {
  if (existsSync(file)) {
    tableSource = 'json';
    return JSON.parse(readFileSync(file, 'utf8')) as Ranks;
  }
  tableSource = 'module';
  return (createRequire(import.meta.url)('gpt-tokenizer/cjs/bpeRanks/o200k_base') as { default: Ranks }).default;
}

/** No special token is honoured: a served text that spells one (`<|endoftext|>`) is counted as the plain text
 * it is, as a model API encodes it, instead of making the encoder throw (a target could otherwise turn C-19 and
 * C-21 into a detector error). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** The token ids of a text (o200k_base). */
export function encode(text: string): number[] {
  encoder ??= GptEncoding.getEncodingApi('o200k_base', () => loadRanks());
  return encoder.encode(text, AS_TEXT);
}

/** The number of tokens of a text (o200k_base). */
export const countTokens = (text: string): number => encode(text).length;
