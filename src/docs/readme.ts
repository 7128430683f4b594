import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { listRules } from '../run/api.js';
import { locales, t } from '../engine/i18n.js';
import { packageRoot } from '../engine/paths.js';

/** The README rule tables are generated from the catalog (one catalog feeds everything). */
export const START = '<!-- rules:start -->';
export const END = '<!-- rules:end -->';

export function rulesTable(locale: string): string {
  const rows = listRules(locale, locales()).map((r) => {
    const det = r.detectors.length ? r.detectors.map((g) => t(locale, `genres.${g}`)).join(' + ') : t(locale, 'cli.rulesTable.none');
    return `| ${r.id} | ${t(locale, `categories.${r.category}`)} | ${r.title} | ${r.genres.map((g) => t(locale, `genres.${g}`)).join(' + ')} | ${det} |`;
  });
  return [
    `| ${t(locale, 'cli.rulesTable.id')} | ${t(locale, 'cli.rulesTable.category')} | ${t(locale, 'cli.rulesTable.title')} | ${t(locale, 'cli.rulesTable.genres')} | ${t(locale, 'cli.rulesTable.detectors')} |`,
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

export const readmeFile = (locale: string) => join(packageRoot(), locale === 'en' ? 'README.md' : `README.${locale}.md`);

export function withTable(text: string, locale: string): string {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error('README has no rules markers');
  return text.slice(0, a + START.length) + '\n' + rulesTable(locale) + '\n' + text.slice(b);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const l of locales()) {
    const f = readmeFile(l);
    writeFileSync(f, withTable(readFileSync(f, 'utf8'), l));
  }
}
