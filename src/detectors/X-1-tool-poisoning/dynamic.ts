import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { noEraServed } from '../dynamic-support.js';
import { excerpt, servedTexts, type ServedText } from '../dynamic-text.js';
import { EXFIL_ASK, EXFIL_PARAMETER, INVISIBLE, PATTERNS, type Category } from './patterns.js';

/**
 * tool poisoning (dynamic). Offline and deterministic: every text the running server served in any
 * era (names, titles and descriptions of tools, prompts, resources and templates; every string of the
 * input and output schemas; the server instructions) is scanned with the pattern registry of
 * patterns.ts. One finding per category and place, quoting the first match.
 */

/** Which served fields each category reads: names and URIs hold no prose, so only credential paths and invisible characters are looked for there. */
const READS: Record<Category, (t: ServedText) => boolean> = {
  'model-directive': (t) => !['name', 'key', 'uri', 'argument'].includes(t.field),
  'hidden-markup': (t) => !['key', 'argument'].includes(t.field),
  'credential-reference': () => true,
};

const codepoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export default defineDetector({
  ruleId: 'X-1',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'model-directive': ['where'],
    'hidden-markup': ['where'],
    'credential-reference': ['where'],
    'exfiltration-parameter': ['where', 'parameter'],
    'invisible-characters': ['where', 'codepoints'],
  },
  judge({ inputs: { session } }) {
    const none = noEraServed(session);
    if (none) return none;
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
      // Per category, the earliest match in the text is quoted.
      const first = new Map<Category, RegExpExecArray>();
      for (const p of PATTERNS) {
        if (!READS[p.category](t)) continue;
        const m = p.re.exec(t.text);
        const prev = first.get(p.category);
        if (m && (!prev || m.index < prev.index)) first.set(p.category, m);
      }
      for (const [category, m] of first) add({ messageId: category, data: { where: t.where }, evidence: excerpt(t.text, m.index, m.index + m[0].length) });
      if (t.property && t.keyword === 'description' && EXFIL_PARAMETER.test(t.property)) {
        for (const re of EXFIL_ASK) {
          const m = re.exec(t.text);
          if (m) {
            add({ messageId: 'exfiltration-parameter', data: { where: t.where, parameter: t.property }, evidence: excerpt(t.text, m.index, m.index + m[0].length) });
            break;
          }
        }
      }
      const hidden = [...t.text.matchAll(INVISIBLE)];
      if (hidden.length) {
        const cps = [...new Set(hidden.map((h) => codepoint(h[0])))];
        const codepoints = cps.length > 8 ? `${cps.slice(0, 8).join(', ')}, …` : cps.join(', ');
        const at = hidden[0]!.index ?? 0;
        add({ messageId: 'invisible-characters', data: { where: t.where, codepoints }, evidence: excerpt(t.text, at, at + hidden[0]![0].length) });
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
