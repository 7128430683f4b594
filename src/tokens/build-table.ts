import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { TABLE_FILE } from './count.js';

/**
 * Build step (`npm run build`): writes gpt-tokenizer's own o200k_base table (the list of merge ranks its
 * o200k_base encoding loads) as JSON beside count.js. JSON.parse reads it faster, and with a smaller heap
 * peak, than V8 compiles the same 2.4 MB array literal; the counts are the library's (count.ts, tested).
 * Without this file count.ts loads the library's module instead.
 */
export function writeTable(file = TABLE_FILE): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(ranks));
  return file;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeTable();
