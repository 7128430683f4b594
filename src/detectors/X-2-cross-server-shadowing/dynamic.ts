import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { noEraServed } from '../dynamic-support.js';
import { excerpt, ownToolNames, servedTexts } from '../dynamic-text.js';
import { CONFUSABLES, GLOBAL_RULES, NOT_A_TOOL, TOOL_REFERENCES, WELL_KNOWN_TOOLS } from './references.js';

/**
 * X-2 — cross-server shadowing (dynamic). Reads every text the running server served (descriptions,
 * titles, schema strings, instructions) for sentences that steer the use of a tool it does not serve, or
 * lay down rules for all tools or other servers (references.ts); and compares each served tool name
 * with well-known tool names: a confusable glyph, a case or separator change, or one edited character
 * away, while not equal. The server's own tools may be mentioned freely.
 */

const INVISIBLE = /[\u{E0000}-\u{E007F}\u200B-\u200F\u2060-\u2064\u202A-\u202E\u2066-\u2069\uFEFF]/gu;

/** What a name looks like: NFKC, invisible characters removed, lowercase, confusables mapped, separators dropped. */
export const skeleton = (name: string): string =>
  [...name.normalize('NFKC').replace(INVISIBLE, '').toLowerCase()].map((c) => CONFUSABLES[c] ?? c).join('').replace(/[_\-. ]/g, '');

/** Levenshtein distance, stopping early above 1 (only "one edit" matters). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Non-ASCII characters of a name, shown as code points, so the evidence shows what the eye does not. */
const spelled = (name: string): string => {
  const odd = [...new Set([...name].filter((c) => c.codePointAt(0)! > 0x7e || c.codePointAt(0)! < 0x20))];
  return odd.length ? `${name} (${odd.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ')})` : name;
};

export default defineDetector({
  ruleId: 'X-2',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'foreign-tool-reference': ['where', 'tool'],
    'global-tool-rule': ['where'],
    'lookalike-tool-name': ['tool', 'like'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
    const own = ownToolNames(session);
    const ownLower = new Set([...own].map((n) => n.toLowerCase()));
    const findings: Finding[] = [];
    const seen = new Set<string>();
    const add = (f: Finding) => {
      const key = `${f.messageId}|${JSON.stringify(f.data)}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(f);
      }
    };

    for (const t of servedTexts(session)) {
      if (['name', 'key', 'uri', 'argument'].includes(t.field)) continue;
      for (const p of TOOL_REFERENCES) {
        const g = new RegExp(p.re.source, p.re.flags.includes('g') ? p.re.flags : `${p.re.flags}g`);
        for (const m of t.text.matchAll(g)) {
          const { q, id, w, o } = m.groups ?? {};
          const tool = (q ?? id ?? w ?? o ?? '').replace(/[.,;:]+$/, '');
          if (!tool || ownLower.has(tool.toLowerCase())) continue;
          if (w !== undefined && NOT_A_TOOL.has(w.toLowerCase())) continue;
          if (o !== undefined && NOT_A_TOOL.has(o.toLowerCase())) continue;
          add({ messageId: 'foreign-tool-reference', data: { where: t.where, tool }, evidence: excerpt(t.text, m.index ?? 0, (m.index ?? 0) + m[0].length) });
        }
      }
      for (const p of GLOBAL_RULES) {
        const m = p.re.exec(t.text);
        if (m) add({ messageId: 'global-tool-rule', data: { where: t.where }, evidence: excerpt(t.text, m.index, m.index + m[0].length) });
      }
    }

    const known = WELL_KNOWN_TOOLS.filter((w) => !own.has(w));
    for (const name of own) {
      const sk = skeleton(name);
      const lower = name.toLowerCase();
      const like = known.find((w) => name !== w && (sk === skeleton(w) || (w.length >= 5 && withinOneEdit(lower, w))));
      if (like) add({ messageId: 'lookalike-tool-name', data: { tool: name, like }, evidence: spelled(name) });
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
