/**
 * C-1 and C-20 fixes: the missing locale skeletons, every text in them marked as to translate.
 *   - C-1 'missing-description-fr': `description_fr` in package.json, the English description behind the marker;
 *   - C-1 'missing-readme-fr': README.fr.md, the English README behind a comment saying it is to translate;
 *   - C-20 'missing-locale': the locale's file in the locale folder, with the keys of the reference file (en, else
 *     the first one) and their texts behind the marker;
 *   - C-20 'missing-key': the key added to the locale's file, the reference's text behind the marker.
 * Keys in excess, locale lists written in the code and a missing locale folder are not mechanical.
 * JSON is edited with jsonc-parser (the file's own layout is kept).
 */
import { applyEdits as applyJsonEdits, modify, parse, type FormattingOptions } from 'jsonc-parser';
import { t } from '../engine/i18n.js';
import type { Finding } from '../engine/types.js';
import type { Fix, FixerResult, Skip, Target } from './edits.js';
import { findingsOf, targetOf, type Reading } from './reading.js';

/** The mark put before a text copied from another language. */
export const TO_TRANSLATE = 'TODO(translate): ';

const mark = (v: unknown): unknown => {
  if (typeof v === 'string') return v.startsWith(TO_TRANSLATE) ? v : `${TO_TRANSLATE}${v}`;
  if (Array.isArray(v)) return v.map(mark);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mark(x)]));
  return v;
};

/** The layout of a JSON file, to write new members alike; none for a one-line file (the member is inserted as is). */
function formatting(text: string): FormattingOptions | undefined {
  if (!text.trim().includes('\n')) return undefined;
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.includes('\t'), tabSize: indent.includes('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** A JSON file's whole new text as one edit. */
const wholeFile = (file: string, before: string, after: string) => [{ file, start: 0, end: before.length, text: after }];

function fixC1(r: Reading, fixes: Fix[], skips: Skip[]): void {
  for (const f of findingsOf(r, 'C-1', ['missing-description-fr', 'missing-readme-fr'])) {
    const target = targetOf('C-1', f);
    if (f.messageId === 'missing-description-fr') {
      const file = String(f.data?.file ?? 'package.json');
      const text = r.text(file);
      if (file !== 'package.json' || text === undefined || !r.editable(file)) {
        skips.push({ target, reason: 'not-editable' });
        continue;
      }
      const pj = parse(text) as Record<string, unknown> | undefined;
      const en = typeof pj?.description === 'string' && pj.description.trim() ? pj.description : undefined;
      const edits = modify(text, ['description_fr'], en ? `${TO_TRANSLATE}${en}` : TO_TRANSLATE.replace(/: $/, ''), {
        formattingOptions: formatting(text),
        getInsertionIndex: (keys) => (keys.includes('description') ? keys.indexOf('description') + 1 : keys.length),
      });
      // A one-line file: the member inserted unformatted gets the space after its comma.
      const after = applyJsonEdits(text, edits.map((e) => ({ ...e, content: e.content.replace(/^,"/, ', "') })));
      fixes.push({ targets: [target], edits: wholeFile(file, text, after) });
      continue;
    }
    // README.fr.md, next to the English README when there is one.
    const en = ['README.md', 'docs/README.md', 'readme.md'].find((x) => r.text(x) !== undefined);
    const file = en ? en.replace(/\.md$/, '.fr.md') : 'README.fr.md';
    if (r.repo.has(file)) {
      skips.push({ target, reason: 'not-editable' });
      continue;
    }
    const body = en ? r.text(en)! : `# ${String((parse(r.text('package.json') ?? '{}') as { name?: string } | undefined)?.name ?? '')}\n`;
    const banner = `<!-- ${TO_TRANSLATE}${t(r.locale, 'fix.readmeBanner', { file: en ?? 'README.md' })} -->\n\n`;
    fixes.push({ targets: [target], edits: [], create: [{ file, text: banner + body }] });
  }
}

/** The value at a dotted key of a table, following nested objects. */
function valueAt(table: unknown, key: string): { path: string[]; value: unknown } | undefined {
  // Keys may hold dots themselves: try the longest own key first at each level.
  const walk = (node: unknown, rest: string): { path: string[]; value: unknown } | undefined => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const o = node as Record<string, unknown>;
    if (rest in o) return { path: [rest], value: o[rest] };
    const parts = rest.split('.');
    for (let n = parts.length - 1; n > 0; n--) {
      const head = parts.slice(0, n).join('.');
      if (!(head in o)) continue;
      const sub = walk(o[head], parts.slice(n).join('.'));
      if (sub) return { path: [head, ...sub.path], value: sub.value };
    }
    return undefined;
  };
  return walk(table, key);
}

function fixC20(r: Reading, fixes: Fix[], skips: Skip[]): void {
  const all = findingsOf(r, 'C-20', ['missing-locale', 'missing-key', 'extra-key', 'no-locale-folder', 'hardcoded-locale-array', 'hardcoded-locale-union', 'hardcoded-locale-enum', 'hardcoded-locale-zod']);
  const byFile = new Map<string, Finding[]>();
  for (const f of all) {
    const target = targetOf('C-20', f);
    if (f.messageId === 'missing-locale') {
      const folder = String(f.data?.folder ?? '');
      const file = String(f.data?.file ?? '');
      const refs = [`${folder}/en.json`, ...[...r.read].filter((x) => x.startsWith(`${folder}/`) && x.endsWith('.json') && !x.slice(folder.length + 1).includes('/')).sort()];
      const ref = refs.find((x) => x !== file && r.text(x) !== undefined);
      const table = ref ? parse(r.text(ref)!) : undefined;
      if (!folder || !file || !ref || !table || typeof table !== 'object' || r.repo.has(file)) {
        skips.push({ target, reason: 'not-mechanical' });
        continue;
      }
      fixes.push({ targets: [target], edits: [], create: [{ file, text: JSON.stringify(mark(table), null, 2) + '\n' }] });
      continue;
    }
    if (f.messageId !== 'missing-key') {
      skips.push({ target, reason: 'not-mechanical' });
      continue;
    }
    const file = String(f.data?.file ?? '');
    byFile.set(file, [...(byFile.get(file) ?? []), f]);
  }
  // One fix per locale file: every key it lacks, added in one pass.
  for (const [file, findings] of byFile) {
    const targets: Target[] = findings.map((f) => targetOf('C-20', f));
    const text = r.text(file);
    const refFile = String(findings[0]!.data?.reference ?? '');
    const refText = r.text(refFile);
    if (text === undefined || refText === undefined || !r.editable(file)) {
      for (const target of targets) skips.push({ target, reason: 'not-editable' });
      continue;
    }
    const ref = parse(refText);
    let after = text;
    const done: Target[] = [];
    for (const [i, f] of findings.entries()) {
      const at = valueAt(ref, String(f.data?.key ?? ''));
      if (!at) {
        skips.push({ target: targets[i]!, reason: 'not-mechanical' });
        continue;
      }
      after = applyJsonEdits(after, modify(after, at.path, mark(at.value), { formattingOptions: formatting(text) }));
      done.push(targets[i]!);
    }
    if (done.length) fixes.push({ targets: done, edits: wholeFile(file, text, after) });
  }
}

export function fixLocales(r: Reading, rule: 'C-1' | 'C-20'): FixerResult {
  const fixes: Fix[] = [];
  const skips: Skip[] = [];
  if (rule === 'C-1') fixC1(r, fixes, skips);
  else fixC20(r, fixes, skips);
  return { fixes, skips };
}
