/**
 * The fixes' common currency: a text edit at an offset of a file as it was read (before any fix), or a whole
 * new file. Every fix computes its edits from one reading of the original tree, so the edits of one rule can be
 * kept or dropped without re-running the others (a rolled-back rule is a filter, not a re-plan).
 */
import type { MessageData } from '../engine/types.js';

/** A finding a fix answers, named so that it can be found again after the re-audit (its line may move). */
export interface Target {
  ruleId: string;
  messageId: string;
  file?: string;
  line?: number;
  data?: MessageData;
}

export interface TextEdit {
  /** Path relative to the audited root, forward slashes. */
  file: string;
  /** Offsets in the original text; `start === end` inserts. */
  start: number;
  end: number;
  text: string;
}

/** A file the fix creates (it must not exist). */
export interface NewFile {
  file: string;
  text: string;
}

/** One fix: the edits that answer some findings (one, or every finding of one file). `questions` names what it could not decide (left as a TODO comment). */
export interface Fix {
  targets: Target[];
  edits: TextEdit[];
  create?: NewFile[];
  questions?: string[];
}

/** A finding a fix saw and did not answer, with the reason (a code of i18n `fix.skip.<code>`). */
export interface Skip {
  target: Target;
  reason: string;
}

export interface FixerResult {
  fixes: Fix[];
  skips: Skip[];
}

/**
 * Apply edits to one original text. Edits are taken in the order given; one that overlaps an edit already
 * taken is left out and returned (two rules editing the same characters: the first keeps them).
 */
export function applyEdits(text: string, edits: TextEdit[]): { text: string; left: TextEdit[] } {
  const taken: TextEdit[] = [];
  const left: TextEdit[] = [];
  for (const e of edits) {
    const clash = taken.some((t) => (e.start < t.end && t.start < e.end) || (e.start === e.end && t.start === t.end && e.start === t.start && e.text === t.text));
    if (clash) left.push(e);
    else taken.push(e);
  }
  // Insertions at one offset keep their order: sort by start, then by their order of arrival, and apply from the end.
  const order = taken.map((e, i) => ({ e, i })).sort((a, b) => b.e.start - a.e.start || b.e.end - a.e.end || b.i - a.i);
  let out = text;
  for (const { e } of order) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { text: out, left };
}

/** The indentation of the line holding `offset`. */
export function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** The offset of the start of the line holding `offset`. */
export const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;

/** A property added to an object literal given by its text span `{ … }`: after the last property, or alone. */
export function addProperty(text: string, objStart: number, objEnd: number, lastPropEnd: number | undefined, prop: string): TextEdit[] {
  const inner = text.slice(objStart + 1, objEnd - 1);
  if (lastPropEnd === undefined) return [{ file: '', start: objStart, end: objEnd, text: `{ ${prop} }` }];
  // A multi-line object: the new property on its own line, indented like the last one.
  if (inner.includes('\n')) {
    const indent = indentAt(text, lastPropEnd);
    const after = text.slice(lastPropEnd, objEnd - 1);
    const trailingComma = /^\s*,/.test(after);
    const at = trailingComma ? lastPropEnd + after.indexOf(',') + 1 : lastPropEnd;
    return [{ file: '', start: at, end: at, text: `${trailingComma ? '' : ','}\n${indent}${prop}${trailingComma ? ',' : ''}` }];
  }
  return [{ file: '', start: lastPropEnd, end: lastPropEnd, text: `, ${prop}` }];
}
