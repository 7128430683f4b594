import { CONFUSABLES, GLOBAL_RULES, NOT_A_TOOL, TOOL_REFERENCES, WELL_KNOWN_TOOLS } from './references.js';

/**
 * X-2 — judging one text and one tool name against the registry of references.ts. Shared by the dynamic
 * part (served texts and names) and the JavaScript/TypeScript static part (the same texts read from the
 * source).
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
export const spelled = (name: string): string => {
  const odd = [...new Set([...name].filter((c) => c.codePointAt(0)! > 0x7e || c.codePointAt(0)! < 0x20))];
  return odd.length ? `${name} (${odd.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ')})` : name;
};

/** Fields that hold prose (names, keys, URIs and argument names are compared as names, not read as sentences). */
export const readsProse = (field: string): boolean => !['name', 'key', 'uri', 'argument'].includes(field);

export interface ReferenceHit {
  kind: 'foreign-tool-reference' | 'global-tool-rule';
  index: number;
  end: number;
  /** The tool named, for a foreign reference. */
  tool?: string;
}

/** File names, web addresses and abbreviations: dotted words that name no tool. */
const FILE_OR_ADDRESS = /\.(?:json[c5]?|ya?ml|toml|ini|env|md|mdx|txt|csv|tsv|log|lock|[cm]?[jt]sx?|py|rb|go|rs|java|kt|php|html?|css|xml|sh|ps1|sql|db|sqlite|png|jpe?g|gif|svg|webp|pdf|zip|gz|tar|com|org|net|io|dev|ai|app|co|edu|gov)$/i;
const ABBREVIATIONS = /^(?:e\.g|i\.e|etc|vs|viz|cf|a\.k\.a|n\.b)$/i;
/** English compounds written with a hyphen that a description uses as words, not as tool names. */
const HYPHENATED_WORDS = /^(?:(?:non|pre|post|re|self|multi|cross|sub|co|semi|anti|auto|over|under|high|low|well|ill|long|short|full|half|real|third|first|open|read|write|built|so|up|out|in|on|off|opt|one|two|case)-[a-z]+(?:-[a-z]+)*)$/;

/**
 * Is a captured reference shaped like a tool name? Tool names are letters, digits, `_`, `-`, `.` and `/`
 * (a trailing `()` allowed); words in a description that have another shape name no tool: query or
 * template operators (`$text`, `$regex`, `{{id}}`), flags (`--force`), file names (`package.json`, `.env`),
 * web addresses, abbreviations (`e.g`), versions (`v1.2`), all-capitals keywords (`SELECT`, `GET`), and
 * hyphenated English words written without backticks (`read-only`, `built-in`, `real-time`).
 */
export function looksLikeToolName(ref: string, quoted: boolean): boolean {
  const name = ref.replace(/\(\)$/, '');
  if (!/^[A-Za-z][A-Za-z0-9_.\-/]{1,63}$/.test(name)) return false;
  if (FILE_OR_ADDRESS.test(name) || ABBREVIATIONS.test(name) || /^v\d/.test(name)) return false;
  if (/^[A-Z]+$/.test(name)) return false;
  if (!quoted && HYPHENATED_WORDS.test(name)) return false;
  return true;
}

const WELL_KNOWN: ReadonlySet<string> = new Set(WELL_KNOWN_TOOLS);

/** Sentences of `text` that steer a tool not in `ownLower` (lowercased own tool names), and rules laid down for all tools or other servers. */
/** The reference patterns, compiled once with the g flag (matchAll needs it). */
const GLOBAL_REFERENCES = TOOL_REFERENCES.map((p) => new RegExp(p.re.source, p.re.flags.includes('g') ? p.re.flags : `${p.re.flags}g`));

/** Every regex judgeReferences runs on a text (for liveRegexes). */
export const REFERENCE_REGEXES: readonly RegExp[] = [...GLOBAL_REFERENCES, ...GLOBAL_RULES.map((p) => p.re)];

/** `live`, when given, holds the regexes worth running (liveRegexes over the batch the text belongs to). */
export function judgeReferences(text: string, ownLower: ReadonlySet<string>, live?: ReadonlySet<RegExp>): ReferenceHit[] {
  const hits: ReferenceHit[] = [];
  for (const g of GLOBAL_REFERENCES) {
    if (live && !live.has(g)) continue;
    for (const m of text.matchAll(g)) {
      const { q, id, w, o } = m.groups ?? {};
      const tool = (q ?? id ?? w ?? o ?? '').replace(/[.,;:]+$/, '');
      if (!tool || ownLower.has(tool.toLowerCase())) continue;
      // Words that are not shaped like a tool name (an operator, a file name, a flag) name no tool.
      if (!looksLikeToolName(tool, q !== undefined)) continue;
      // A backticked plain word (`name`, `value`) is how descriptions quote fields, attributes and options: it
      // names a tool only when it is a well-known tool name or the text calls it a tool.
      if (q !== undefined && /^[A-Za-z]+(?:\(\))?$/.test(tool) && !WELL_KNOWN.has(tool.replace(/\(\)$/, '').toLowerCase()) && !/^\s+(?:tool|function)\b/i.test(text.slice((m.index ?? 0) + m[0].length))) continue;
      if (w !== undefined && NOT_A_TOOL.has(w.toLowerCase())) continue;
      if (o !== undefined && NOT_A_TOOL.has(o.toLowerCase())) continue;
      hits.push({ kind: 'foreign-tool-reference', index: m.index ?? 0, end: (m.index ?? 0) + m[0].length, tool });
    }
  }
  for (const p of GLOBAL_RULES) {
    if (live && !live.has(p.re)) continue;
    const m = p.re.exec(text);
    if (m) hits.push({ kind: 'global-tool-rule', index: m.index, end: m.index + m[0].length });
  }
  return hits;
}

/** Skeletons this long or longer may also differ by one character once separators are set aside (`send-mail` for send_email). */
const SKELETON_EDIT_MIN = 7;

/**
 * The well-known tool name `name` imitates, if any: the same skeleton (a confusable glyph, case or separator
 * change), one edit away for names of five characters or more, or — for skeletons of seven letters or more —
 * a separator change together with one edited character. The server's own names are never "imitated".
 */
let knownSkeletons: Map<string, string> | undefined;
export function lookalikeOf(name: string, own: ReadonlySet<string>): string | undefined {
  knownSkeletons ??= new Map(WELL_KNOWN_TOOLS.map((w) => [w, skeleton(w)]));
  const sk = skeleton(name);
  const lower = name.toLowerCase();
  return WELL_KNOWN_TOOLS.find((w) => {
    if (own.has(w) || name === w) return false;
    const wk = knownSkeletons!.get(w)!;
    return sk === wk || (w.length >= 5 && withinOneEdit(lower, w)) || (wk.length >= SKELETON_EDIT_MIN && sk.length >= SKELETON_EDIT_MIN && withinOneEdit(sk, wk));
  });
}
