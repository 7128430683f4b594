import dynamicPart from './dynamic.js';
import { SyntaxKind, Node, ts, type PropertyAccessExpression } from '../../facts/morph.js';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { Read, RepoFacts } from '../../facts/repo.js';
import { ofKinds, parsedSources, positionOf, rawUnwrap, stringValue, unwrap } from '../../facts/ts-source.js';
import { unreadable } from '../support/verdicts.js';
import { flatKeys, keyLines } from './json-keys.js';

/**
 * C-20 — derived and verified locales (static half). The locale set is data: one <locale>.json per locale
 * in the locale folder (src/i18n/, or i18n/, or src/ui/i18n/ for an App), at least en and fr, all with
 * the same keys. Nowhere else in the source is the set of locales written out by hand: no array literal,
 * string-literal union type, TypeScript enum or zod enum/union listing locale codes.
 */

const FOLDERS = ['src/i18n', 'i18n', 'src/ui/i18n'];
/** The canonical locale: the reference for key sets. */
const CANONICAL = 'en';
/** The base every object carries (trunk §5.1): the canonical locale and French. */
const REQUIRED = [CANONICAL, 'fr'];

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const norm = (code: string): string => code.replace(/_/g, '-').toLowerCase();

/** A BCP 47-like tag (en, fr, pt-BR, pt_BR, zh-Hant) whose language subtag is a known language. */
function isLocaleCode(s: string): boolean {
  if (!/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(s)) return false;
  try {
    return languageNames.of(s.split(/[-_]/)[0]!.toLowerCase()) !== undefined;
  } catch {
    return false;
  }
}

interface LocaleFile {
  locale: string;
  file: string;
}

function localeFiles(repo: RepoFacts, folder: string): LocaleFile[] {
  return repo
    .under(folder)
    .filter((f) => !f.slice(folder.length + 1).includes('/') && f.endsWith('.json'))
    .map((file) => ({ locale: file.slice(folder.length + 1, -'.json'.length), file }))
    .filter((l) => isLocaleCode(l.locale));
}

type EnumerationKind = 'hardcoded-locale-array' | 'hardcoded-locale-union' | 'hardcoded-locale-enum' | 'hardcoded-locale-zod';

/**
 * Raw pre-filter of enumerations(): judge() needs two values or more, all read; an array element is read
 * only from a string or a call (z.literal), a union member only from a literal type.
 */
const mayEnumerate = (cn: ts.Node): boolean => {
  if (ts.isArrayLiteralExpression(cn)) {
    return cn.elements.length >= 2 && cn.elements.every((e) => {
      const u = rawUnwrap(e);
      return ts.isStringLiteral(u) || ts.isNoSubstitutionTemplateLiteral(u) || ts.isCallExpression(u);
    });
  }
  if (ts.isUnionTypeNode(cn)) return cn.types.length >= 2 && cn.types.every((t) => ts.isLiteralTypeNode(t));
  return true;
};

/** Hand-written enumerations of at least two of the folder's locales, in the object's source files. */
function enumerations(repo: RepoFacts, locales: Set<string>): Finding[] {
  const out: Finding[] = [];
  const { files } = parsedSources(repo);
  const judge = (values: (string | undefined)[], kind: EnumerationKind, file: string, node: Node): void => {
    if (values.length < 2 || values.some((v) => v === undefined || !isLocaleCode(v))) return;
    const known = new Set((values as string[]).map(norm).filter((v) => locales.has(v)));
    if (known.size < 2) return;
    const text = node.getText().replace(/\s+/g, ' ');
    out.push({
      messageId: kind,
      data: { file, locales: (values as string[]).join(', ') },
      location: { file, ...positionOf(node) },
      evidence: text.length > 160 ? text.slice(0, 157) + '...' : text,
    });
  };
  /** A string element, or a zod literal such as z.literal('en'). */
  const element = (n: Node): string | undefined => {
    const v = stringValue(n);
    if (v !== undefined) return v;
    const u = unwrap(n);
    if (Node.isCallExpression(u)) {
      const callee = u.getExpression();
      if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'literal' && u.getArguments().length === 1) {
        return stringValue(u.getArguments()[0]);
      }
    }
    return undefined;
  };
  for (const [file, sf] of files) {
    for (const node of ofKinds(sf, [SyntaxKind.ArrayLiteralExpression, SyntaxKind.UnionType, SyntaxKind.EnumDeclaration], mayEnumerate)) {
      if (Node.isArrayLiteralExpression(node)) {
        const parent = node.getParent();
        const zod =
          Node.isCallExpression(parent) &&
          Node.isPropertyAccessExpression(parent.getExpression()) &&
          ['enum', 'union'].includes((parent.getExpression() as PropertyAccessExpression).getName());
        judge(node.getElements().map(element), zod ? 'hardcoded-locale-zod' : 'hardcoded-locale-array', file, node);
      } else if (Node.isUnionTypeNode(node)) {
        const values = node.getTypeNodes().map((t) => {
          if (!Node.isLiteralTypeNode(t)) return undefined;
          return stringValue(t.getLiteral());
        });
        judge(values, 'hardcoded-locale-union', file, node);
      } else if (Node.isEnumDeclaration(node)) {
        const members = node.getMembers();
        const inits = members.map((m) => stringValue(m.getInitializer()));
        const values = inits.every((v) => v !== undefined) ? inits : members.map((m) => (m.hasInitializer() ? undefined : m.getName()));
        judge(values, 'hardcoded-locale-enum', file, node);
      }
    }
  }
  return out;
}

export default [
  defineDetector({
    ruleId: 'C-20',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'no-locale-folder': ['folder'],
      'missing-locale': ['folder', 'locale', 'file'],
      'missing-key': ['file', 'key', 'reference'],
      'extra-key': ['file', 'key', 'reference'],
      'hardcoded-locale-array': ['file', 'locales'],
      'hardcoded-locale-union': ['file', 'locales'],
      'hardcoded-locale-enum': ['file', 'locales'],
      'hardcoded-locale-zod': ['file', 'locales'],
    },
    judge({ inputs: { repo } }): Verdict {
      const folder = FOLDERS.find((d) => localeFiles(repo, d).length > 0) ?? FOLDERS.find((d) => repo.hasDir(d));
      if (!folder) {
        return { state: 'absent', findings: [{ messageId: 'no-locale-folder', data: { folder: FOLDERS[0]! } }] };
      }
      const files = localeFiles(repo, folder);
      const absent: Finding[] = [];
      for (const locale of REQUIRED) {
        if (files.some((f) => f.locale === locale)) continue;
        const anchor = files[0]?.file;
        absent.push({
          messageId: 'missing-locale',
          data: { folder, locale, file: `${folder}/${locale}.json` },
          location: anchor ? { file: anchor, line: 1 } : undefined,
        });
      }

      const findings: Finding[] = [];
      let blocked: Extract<Read<unknown>, { ok: false }> | undefined;
      const tables = new Map<LocaleFile, Record<string, unknown>>();
      for (const f of files) {
        const r = repo.object(f.file);
        if (r.ok) tables.set(f, r.value);
        else blocked ??= r;
      }
      if (!blocked && tables.size > 1) {
        const ref = [...tables.keys()].find((f) => f.locale === CANONICAL) ?? [...tables.keys()][0]!;
        const refKeys = new Set(flatKeys(tables.get(ref)));
        for (const [f, table] of tables) {
          if (f === ref) continue;
          const keys = new Set(flatKeys(table));
          const lines = keyLines((repo.text(f.file) as { value: string }).value);
          const lineOfNearest = (key: string): number => {
            const parts = key.split('.');
            for (let n = parts.length; n > 0; n--) {
              const l = lines.get(parts.slice(0, n).join('.'));
              if (l !== undefined) return l;
            }
            return 1;
          };
          for (const key of refKeys) {
            if (!keys.has(key)) {
              findings.push({ messageId: 'missing-key', data: { file: f.file, key, reference: ref.file }, location: { file: f.file, line: lineOfNearest(key) } });
            }
          }
          for (const key of keys) {
            if (!refKeys.has(key)) {
              findings.push({ messageId: 'extra-key', data: { file: f.file, key, reference: ref.file }, location: { file: f.file, line: lineOfNearest(key) } });
            }
          }
        }
      }

      findings.push(...enumerations(repo, new Set(files.map((f) => norm(f.locale)))));

      if (absent.length) return { state: 'absent', findings: [...absent, ...findings] };
      if (findings.length) return { state: 'non-conforming', findings };
      if (blocked) return unreadable(blocked);
      return present();
    },
  }),
  dynamicPart,
];
