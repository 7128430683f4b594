import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import * as z from 'zod/v4';
import { packageRoot } from './paths.js';
import { locales, subtree } from './i18n.js';
import { CATEGORIES, COMBINATIONS, FAMILIES, GENRES, OBJECTIVES, SEVERITIES, TARGET_KINDS, byRuleId, type RuleMeta } from './types.js';

/** One catalog feeds everything: rules/catalog/<family>.json (metadata) + rules/<locale>/<ID>.md (texts). */

const SourceSchema = z.object({
  kind: z.enum(['mcp-spec', 'rfc', 'owasp', 'sep', 'standard', 'practice']),
  ref: z.string().min(1),
  section: z.string().optional(),
  anchor: z.string().optional(),
});

export const RuleMetaSchema = z.object({
  id: z.string().regex(/^[CSAEX]-\d+$/),
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  family: z.enum(FAMILIES),
  genres: z.array(z.enum(GENRES)).min(1),
  combine: z.enum(COMBINATIONS),
  severity: z.enum(SEVERITIES),
  category: z.enum(CATEGORIES),
  appliesTo: z.array(z.enum(TARGET_KINDS)).min(1),
  conditional: z.boolean(),
  objectives: z.array(z.enum(OBJECTIVES)),
  sources: z.array(SourceSchema).min(1),
});

export const SECTION_KEYS = ['checks', 'why', 'red', 'green', 'fix', 'sources'] as const;
export type SectionKey = (typeof SECTION_KEYS)[number];

export interface RuleText {
  id: string;
  locale: string;
  title: string;
  summary: string;
  condition: string | null;
  /** The markdown body (headings included). */
  body: string;
  sections: Partial<Record<SectionKey, string>>;
  /** Headings found, in order (for the structure test). */
  headings: string[];
}

export interface Catalog {
  rules: RuleMeta[];
  byId: Map<string, RuleMeta>;
  text(id: string, locale: string): RuleText | undefined;
}

function parseText(id: string, locale: string, file: string): RuleText {
  const { data, content } = frontMatter()(readFileSync(file, 'utf8'));
  const headingsMap = subtree(locale, 'ruleDoc.headings') ?? {};
  const keyByHeading = new Map(Object.entries(headingsMap).map(([k, v]) => [String(v), k as SectionKey]));
  const headings: string[] = [];
  const sections: Partial<Record<SectionKey, string>> = {};
  let current: SectionKey | undefined;
  let buf: string[] = [];
  const flush = () => {
    if (current) sections[current] = buf.join('\n').trim();
    buf = [];
  };
  for (const line of content.split('\n')) {
    const m = /^##\s+(.+?)\s*$/.exec(line);
    if (m) {
      flush();
      headings.push(m[1]!);
      current = keyByHeading.get(m[1]!);
      continue;
    }
    buf.push(line);
  }
  flush();
  return {
    id,
    locale,
    title: String(data.title ?? id),
    summary: String(data.summary ?? ''),
    condition: data.condition == null ? null : String(data.condition),
    body: content.trim(),
    sections,
    headings,
  };
}

let cached: Catalog | undefined;

/** gray-matter (CommonJS) is loaded when the catalogue is first read, not when a face starts. */
const requireCjs = createRequire(import.meta.url);
let matter: typeof import('gray-matter') | undefined;
const frontMatter = () => (matter ??= requireCjs('gray-matter') as typeof import('gray-matter'));

export function loadCatalog(): Catalog {
  if (cached) return cached;
  const root = join(packageRoot(), 'rules');
  const rules: RuleMeta[] = [];
  for (const fam of FAMILIES) {
    const f = join(root, 'catalog', `${fam}.json`);
    if (!existsSync(f)) continue;
    const arr = z.array(RuleMetaSchema).parse(JSON.parse(readFileSync(f, 'utf8')));
    rules.push(...(arr as RuleMeta[]));
  }
  rules.sort((a, b) => byRuleId(a.id, b.id));
  const byId = new Map(rules.map((r) => [r.id, r]));
  const texts = new Map<string, RuleText>();
  const text = (id: string, locale: string): RuleText | undefined => {
    const key = `${locale}/${id}`;
    if (texts.has(key)) return texts.get(key);
    const file = join(root, locale, `${id}.md`);
    if (!existsSync(file)) return undefined;
    const t = parseText(id, locale, file);
    texts.set(key, t);
    return t;
  };
  cached = { rules, byId, text };
  return cached;
}

/** Locales for which rule texts exist (folders under rules/ that are also i18n locales). */
export function ruleLocales(): string[] {
  const root = join(packageRoot(), 'rules');
  const dirs = new Set(readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));
  return locales().filter((l) => dirs.has(l));
}
