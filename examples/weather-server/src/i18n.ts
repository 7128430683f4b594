import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The set of locales is whatever i18n/ holds: adding de.json adds German.
const dir = join(import.meta.dirname, '..', 'i18n');
export const tables: Record<string, Record<string, string>> = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), 'utf8'))]),
);
export const t = (locale: string, key: string): string => tables[locale]?.[key] ?? tables.en![key] ?? key;
