/**
 * Which regexes of a battery can match any text of a batch, decided with one run of each over the batch
 * joined by blank lines — used by the static parts of, which try some thirty patterns on every
 * text a server registers.
 *
 * Why: V8 compiles a regex to bytecode on its first run and to machine code on its second. For the large
 * Unicode patterns of these batteries the second compilation costs more than all the scanning, and a
 * pattern that matches no text at all is paid for anyway. Run once over the joined batch, a pattern that
 * matches nothing is never run again.
 *
 * Soundness: a match inside one text is also a match of the joined string, at the same characters, as long
 * as the regex sees the blank line around each text as it sees a text's start and end. That holds for `\b`,
 * for positive lookarounds (they only fail at a start or end) and for a negative lookaround whose body is
 * one character class that does not match a line break. A regex with `^`, `$`, `\B`, the sticky flag, or any
 * other negative lookaround is not screened: it is always kept. The joined run may find matches that span two
 * texts; those only keep a regex that the per-text run then judges as before.
 */

const SEPARATOR = '\n\n';

/** A negative lookaround body made of one atom: a Unicode property, a character class, or a class escape. */
const SINGLE_ATOM = /^(\\[pP]\{[^}]+\}|\[(?:\\.|[^\]\\])*\]|\\[dwsDWS])\)/;

const screenMemo = new WeakMap<RegExp, boolean>();

/** Whether the joined run can stand for the per-text runs of this regex (see the file header). */
export function screenable(re: RegExp): boolean {
  const hit = screenMemo.get(re);
  if (hit !== undefined) return hit;
  const verdict = screenableUncached(re);
  screenMemo.set(re, verdict);
  return verdict;
}

function screenableUncached(re: RegExp): boolean {
  if (re.sticky) return false;
  const src = re.source;
  // Anchors and \B: escapes and the `[^` of negated classes removed first, any ^ or $ left is an anchor (or
  // a literal inside a class, which only makes the test stricter).
  const bare = src.replace(/\\./g, '').replace(/\[\^/g, '[');
  if (/[\^$]/.test(bare) || /(?:^|[^\\])(?:\\\\)*\\B/.test(src)) return false;
  const flags = re.flags.replace(/[gy]/g, '');
  for (let i = src.indexOf('(?'); i >= 0; i = src.indexOf('(?', i + 1)) {
    const open = src.startsWith('(?!', i) ? 3 : src.startsWith('(?<!', i) ? 4 : 0;
    if (!open) continue;
    const atom = SINGLE_ATOM.exec(src.slice(i + open));
    if (!atom) return false;
    let body: RegExp;
    try {
      body = new RegExp(atom[1]!, flags);
    } catch {
      return false;
    }
    if (body.test('\n')) return false;
  }
  return true;
}

/** The regexes that may match at least one of the texts: screened ones that match the joined batch, and every unscreened one. */
export function liveRegexes(texts: readonly string[], regexes: Iterable<RegExp>): Set<RegExp> {
  const joined = texts.join(SEPARATOR);
  const live = new Set<RegExp>();
  for (const re of regexes) {
    if (!screenable(re)) {
      live.add(re);
      continue;
    }
    re.lastIndex = 0;
    if (re.test(joined)) live.add(re);
    re.lastIndex = 0;
  }
  return live;
}
