import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import {
  isArgumentElement,
  isDateElement,
  isNumberElement,
  isPluralElement,
  isSelectElement,
  isTimeElement,
  parse,
  type MessageFormatElement,
} from '@formatjs/icu-messageformat-parser';
import { packageRoot } from './paths.js';
import type { MessageData } from './types.js';

/**
 * Every user-facing string lives in i18n/<locale>.json. The set of locales is derived from that folder,
 * never written down anywhere else.
 */
type Tree = { [k: string]: string | Tree };

let tables: Map<string, Tree> | undefined;

function load(): Map<string, Tree> {
  if (tables) return tables;
  const dir = join(packageRoot(), 'i18n');
  tables = new Map();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    tables.set(f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), 'utf8')) as Tree);
  }
  return tables;
}

export const DEFAULT_LOCALE = 'en';

export function locales(): string[] {
  return [...load().keys()];
}

export function isLocale(s: string | undefined): s is string {
  return !!s && load().has(s);
}

/** The locale to serve when none is asked: MCP_DOCTOR_LOCALE if it names a known locale, else English. */
export function defaultLocale(env: NodeJS.ProcessEnv = process.env): string {
  const l = env.MCP_DOCTOR_LOCALE;
  if (isLocale(l)) return l;
  // Then the POSIX locale of the process (LC_ALL wins over LC_MESSAGES over LANG): fr_FR.UTF-8 -> fr.
  for (const v of [env.LC_ALL, env.LC_MESSAGES, env.LANG]) {
    const lang = v?.split(/[_.@-]/)[0]?.toLowerCase();
    if (lang && lang !== 'c' && lang !== 'posix') return isLocale(lang) ? lang : DEFAULT_LOCALE;
  }
  return DEFAULT_LOCALE;
}

function lookup(tree: Tree | undefined, key: string): string | Tree | undefined {
  let node: string | Tree | undefined = tree;
  for (const part of key.split('.')) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = node[part];
  }
  return node;
}

export function has(locale: string, key: string): boolean {
  return typeof lookup(load().get(locale), key) === 'string';
}

/** Raw template (no formatting), falling back to English. */
export function raw(locale: string, key: string): string | undefined {
  const v = lookup(load().get(locale), key) ?? lookup(load().get(DEFAULT_LOCALE), key);
  return typeof v === 'string' ? v : undefined;
}

/**
 * The `select` arguments of a template (memoised). ICU selector keys cannot contain '-', while some data values
 * are hyphenated words (a cause such as 'too-large'): templates write those keys with '_' ('too_large') and the
 * value of a select argument is matched with its '-' read as '_'.
 */
const selectArgs = new Map<string, ReadonlySet<string>>();
function selectsOf(template: string): ReadonlySet<string> {
  let hit = selectArgs.get(template);
  if (!hit) {
    const names = new Set<string>();
    const walk = (els: MessageFormatElement[]) => {
      for (const el of els) {
        if (isSelectElement(el)) names.add(el.value);
        if ('options' in el) for (const o of Object.values(el.options)) walk(o.value);
        if ('children' in el) walk(el.children);
      }
    };
    try {
      walk(parse(template, { ignoreTag: true }));
    } catch {
      /* formatted as is below */
    }
    selectArgs.set(template, (hit = names));
  }
  return hit;
}

/** Compiled messages, per locale and template: compiling is most of the cost of a message, and a server start
 * formats every tool's texts. Bounded by the number of keys in the catalogues. */
const compiled = new Map<string, IntlMessageFormat>();
function compile(tpl: string, locale: string): IntlMessageFormat {
  const key = `${locale}\u0000${tpl}`;
  let f = compiled.get(key);
  if (!f) compiled.set(key, (f = new IntlMessageFormat(tpl, locale, undefined, { ignoreTag: true })));
  return f;
}

/**
 * Whether a template formats to itself: no argument and no ICU quoting (an apostrophe quotes only before
 * `'`, `{`, `}`, `<`, `>` or `#`). A server start formats every tool's texts, most of them plain: those skip
 * the compiler (a test checks that both paths agree on every message).
 */
export const isLiteral = (tpl: string): boolean => !/[{}]|'['{}<>#]/.test(tpl);

/** Format a message. Unknown keys come back as the key itself so a missing string is visible, never silent. */
export function t(locale: string, key: string, data: MessageData = {}): string {
  const tpl = raw(locale, key);
  if (tpl === undefined) return key;
  if (isLiteral(tpl)) return tpl;
  try {
    const selects = selectsOf(tpl);
    let values = data;
    if (selects.size) {
      values = { ...data };
      for (const k of selects) if (typeof values[k] === 'string') values[k] = (values[k] as string).replace(/-/g, '_');
    }
    return String(compile(tpl, locale).format(values));
  } catch {
    return tpl;
  }
}

/** The compiler's rendering of a template without data (for the test of the literal path). */
export function formatCompiled(locale: string, tpl: string): string {
  return String(new IntlMessageFormat(tpl, locale, undefined, { ignoreTag: true }).format({}));
}

/** Sub-tree (e.g. for listing headings). */
export function subtree(locale: string, key: string): Tree | undefined {
  const v = lookup(load().get(locale), key);
  return typeof v === 'object' ? v : undefined;
}

/** The placeholder names used in a template (for the consistency test), read with the ICU parser. */
export function placeholders(template: string): string[] {
  const names = new Set<string>();
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (isArgumentElement(el) || isNumberElement(el) || isDateElement(el) || isTimeElement(el) || isSelectElement(el) || isPluralElement(el)) names.add(el.value);
      if ('options' in el) for (const o of Object.values(el.options)) walk(o.value);
      if ('children' in el) walk(el.children);
    }
  };
  walk(parse(template, { ignoreTag: true }));
  return [...names].sort();
}

/** All dotted keys of a locale (for the consistency test). */
export function keysOf(locale: string): string[] {
  const out: string[] = [];
  const walk = (node: Tree, prefix: string) => {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string') out.push(prefix + k);
      else walk(v, prefix + k + '.');
    }
  };
  walk(load().get(locale) ?? {}, '');
  return out.sort();
}
