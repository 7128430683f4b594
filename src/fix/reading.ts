/**
 * One reading of the audited tree shared by every fix: the facts the detectors use (RepoFacts, the parsed
 * sources, the server model) and the findings of the audit before the fix. A fix edits only a file this
 * reading parsed (`editable`): never one outside the folder, a dependency under node_modules, or built output.
 */
import type { RepoFacts } from '../facts/repo.js';
import type { ParsedSources } from '../facts/ts-source.js';
import type { ServerModel } from '../facts/server-model.js';
import type { Finding, RuleResult } from '../engine/types.js';
import type { SourceFile } from '../facts/morph.js';
import type { Skip, Target } from './edits.js';

export interface Reading {
  root: string;
  repo: RepoFacts;
  /** The files the audit read (its `inputs.files.list`): nothing else is edited. */
  read: ReadonlySet<string>;
  /** Locale of the comments a fix writes in the source (TODO questions). */
  locale: string;
  sources(): ParsedSources;
  model(): ServerModel;
  /** The red results of the audit before the fix, by rule. */
  red: ReadonlyMap<string, RuleResult>;
  /** Can this file (relative path) be edited: read by the audit, inside the folder, not a dependency nor built output. */
  editable(rel: string): boolean;
  /** The original text of a file the audit read, else undefined. */
  text(rel: string): string | undefined;
}

export const targetOf = (ruleId: string, f: Finding): Target => ({
  ruleId,
  messageId: f.messageId,
  ...(f.location?.file ? { file: f.location.file } : {}),
  ...(f.location?.line ? { line: f.location.line } : {}),
  ...(f.data ? { data: f.data } : {}),
});

/** The findings of a rule with one of these message ids. */
export function findingsOf(r: Reading, ruleId: string, messageIds: readonly string[]): Finding[] {
  return (r.red.get(ruleId)?.findings ?? []).filter((f) => messageIds.includes(f.messageId));
}

/** A finding located in Python source: the fixes edit TypeScript and JavaScript only. */
export const inPython = (f: Finding): boolean => /\.pyi?$/.test(f.location?.file ?? '') || f.messageId.startsWith('python-');

/** A finding located in a parsed source the fix may edit, with that file's text and syntax tree. */
export interface Located {
  finding: Finding;
  target: Target;
  file: string;
  line: number;
  sf: SourceFile;
  text: string;
}

/**
 * The findings of a rule with these message ids, each either located in an editable parsed source or left with
 * its reason: 'python' (Python source), 'not-mechanical' (when `mechanical` says so), 'not-editable' (no
 * location, or a file the audit did not parse or the fix may not edit).
 */
export function locate(r: Reading, ruleId: string, messageIds: readonly string[], mechanical: (f: Finding) => boolean = () => true): { located: Located[]; skips: Skip[] } {
  const located: Located[] = [];
  const skips: Skip[] = [];
  for (const finding of findingsOf(r, ruleId, messageIds)) {
    const target = targetOf(ruleId, finding);
    const file = finding.location?.file;
    const line = finding.location?.line;
    const sf = file ? r.sources().files.get(file) : undefined;
    const text = file ? r.text(file) : undefined;
    if (inPython(finding)) skips.push({ target, reason: 'python' });
    else if (!mechanical(finding)) skips.push({ target, reason: 'not-mechanical' });
    else if (!file || !line || !sf || text === undefined || !r.editable(file)) skips.push({ target, reason: 'not-editable' });
    else located.push({ finding, target, file, line, sf, text });
  }
  return { located, skips };
}
