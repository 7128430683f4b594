/**
 * `mcp-doctor fix`: deterministic source edits for the findings whose remedy is mechanical, as `eslint --fix`.
 *
 *   1. Audit the folder for the fixable rules (the files the audit read are the only ones a fix may edit).
 *   2. Each rule's fix reads the same tree once and proposes text edits at offsets of the original files, or new
 *      files (src/fix/<rule>.ts). Edits of two fixes that overlap: the first keeps its place, the other is left
 *      out ('conflict').
 *   3. Dry run: the unified diff, nothing written. Otherwise the files are written, the folder is audited again,
 *      and a fix whose finding is still there, or that brought a new finding of its rule, is rolled back (the
 *      files are written again without it, and audited once more).
 * Refused on a git tree with changes (or not a git tree) unless `force`: the user reviews and undoes with git.
 * Nothing outside the folder is written: a path is checked on its real path, new files are created exclusively.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { audit } from '../run/api.js';
import { loadConfig } from '../engine/config.js';
import { log } from '../engine/log.js';
import { isRed, type Finding, type RuleResult } from '../engine/types.js';
import { RepoFacts } from '../facts/repo.js';
import { isInside } from '../facts/safe-read.js';
import { isGeneratedPath, parsedSources } from '../facts/ts-source.js';
import { serverModel } from '../facts/server-model.js';
import { applyEdits, type Fix, type FixerResult, type NewFile, type Target, type TextEdit } from './edits.js';
import { fixAnnotations } from './c15-annotations.js';
import { fixCatchAlls } from './c4-open-schema.js';
import { fixTimeouts } from './s13-fetch-timeout.js';
import { fixUnknownTool } from './s11-unknown-tool.js';
import { fixLocales } from './locales.js';
import { fixServedVersion } from './s7-version.js';
import type { Reading } from './reading.js';

/** The rules `fix` repairs, in the order their fixes are applied (S-7 only with the command that starts the server). */
export const FIXABLE = ['C-15', 'C-4', 'S-13', 'S-11', 'C-1', 'C-20', 'S-7'] as const;
export type FixableRule = (typeof FIXABLE)[number];

const FIXERS: Record<FixableRule, (r: Reading) => FixerResult> = {
  'C-15': fixAnnotations,
  'C-4': fixCatchAlls,
  'S-13': fixTimeouts,
  'S-11': fixUnknownTool,
  'C-1': (r) => fixLocales(r, 'C-1'),
  'C-20': (r) => fixLocales(r, 'C-20'),
  // Bound to the command in fixRepository.
  'S-7': (r) => fixServedVersion(r, false),
};

export interface FixOptions {
  dir: string;
  /** Only these rules (ids among FIXABLE); default all. */
  rules?: string[];
  dryRun?: boolean;
  /** Apply on a git tree with changes, or outside git. */
  force?: boolean;
  /** Locale of the comments written in the source. */
  locale: string;
  signal?: AbortSignal;
  /**
   * The command that starts the server (stdio), from the folder: S-7 is judged on the running server, so its fix is
   * attempted only with it, and kept only when the server it starts serves the package's version.
   */
  command?: string[];
  /** Tests only: fixes used instead of the built-in ones for some rules. */
  fixers?: Partial<Record<FixableRule, (r: Reading) => FixerResult>>;
}

/**
 * What became of one finding: `fixed` (the re-audit no longer finds it), `planned` (dry run), `rolled-back`
 * (still found after the fix, or the fix brought a new finding: not kept), `conflict` (another fix edits the same
 * text), `skipped` (not mechanical, Python, a file the fix may not edit…: `reason`).
 */
export type OutcomeState = 'fixed' | 'planned' | 'rolled-back' | 'conflict' | 'skipped';
export interface Outcome {
  target: Target;
  state: OutcomeState;
  reason?: string;
  /** Hints (or other questions) written at the specification's default under a TODO comment. */
  questions?: string[];
}

export interface FixResult {
  root: string;
  dryRun: boolean;
  /** Unified diff of what is (or, in a dry run, would be) changed. */
  diff: string;
  /** Files written or created (relative), empty in a dry run. */
  written: string[];
  outcomes: Outcome[];
}

/** Refusals before anything is read or written: `dirty-tree`, `not-git`, `unknown-rule`. */
export class FixRefused extends Error {
  constructor(
    readonly code: 'dirty-tree' | 'not-git' | 'unknown-rule',
    readonly data: Record<string, string | number> = {},
  ) {
    super(code);
  }
}

/** The git state of the folder: clean, with changes (their count), or not a git work tree. */
export async function gitState(root: string): Promise<{ state: 'clean' } | { state: 'dirty'; count: number } | { state: 'not-git' }> {
  const r = await execa('git', ['status', '--porcelain', '--untracked-files=normal', '--', '.'], { cwd: root, reject: false, timeout: 20_000, stdin: 'ignore', maxBuffer: 4_000_000 });
  if (r.exitCode !== 0) return { state: 'not-git' };
  const lines = String(r.stdout).split('\n').filter(Boolean);
  return lines.length ? { state: 'dirty', count: lines.length } : { state: 'clean' };
}

/** A finding named without its line (lines move when a fix inserts text above). */
const keyOf = (ruleId: string, f: { messageId: string; file?: string; data?: Record<string, string | number> }): string => {
  const data = Object.entries(f.data ?? {})
    .filter(([k]) => k !== 'line' && k !== 'column')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${ruleId}|${f.messageId}|${f.file ?? ''}|${JSON.stringify(data)}`;
};
const findingKey = (ruleId: string, f: Finding) => keyOf(ruleId, { messageId: f.messageId, file: f.location?.file, data: f.data });

function counts(results: RuleResult[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of results) for (const f of isRed(r.state) ? r.findings : []) m.set(findingKey(r.ruleId, f), (m.get(findingKey(r.ruleId, f)) ?? 0) + 1);
  return m;
}

interface Planned {
  rule: FixableRule;
  fix: Fix;
}

/** The new text of every file the kept fixes change, and the fixes left out because they overlap an earlier one. */
function plan(fixes: Planned[], original: (rel: string) => string): { files: Map<string, string>; created: NewFile[]; conflicts: Planned[] } {
  const byFile = new Map<string, TextEdit[]>();
  const created: NewFile[] = [];
  const conflicts: Planned[] = [];
  for (const p of fixes) {
    const clash =
      p.fix.edits.some((e) => (byFile.get(e.file) ?? []).some((x) => (e.start < x.end && x.start < e.end) || (e.start === x.start && e.end === x.end))) ||
      (p.fix.create ?? []).some((c) => created.some((x) => x.file === c.file) || byFile.has(c.file));
    if (clash) {
      conflicts.push(p);
      continue;
    }
    for (const e of p.fix.edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
    created.push(...(p.fix.create ?? []));
  }
  const files = new Map<string, string>();
  for (const [file, edits] of byFile) {
    const before = original(file);
    const after = applyEdits(before, edits).text;
    if (after !== before) files.set(file, after);
  }
  return { files, created, conflicts };
}

function unifiedDiff(files: Map<string, string>, created: NewFile[], original: (rel: string) => string): string {
  const parts: string[] = [];
  for (const [file, after] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) parts.push(createTwoFilesPatch(`a/${file}`, `b/${file}`, original(file), after, undefined, undefined, { context: 3 }).replace(/^=+\n/m, ''));
  for (const c of [...created].sort((a, b) => (a.file < b.file ? -1 : 1))) parts.push(createTwoFilesPatch('/dev/null', `b/${c.file}`, '', c.text, undefined, undefined, { context: 3 }).replace(/^=+\n/m, ''));
  return parts.map((p) => p.replace(/^Index: .*\n/m, '')).join('');
}

function readingOf(root: string, before: Awaited<ReturnType<typeof audit>>, locale: string): Reading {
  // The folder as the audit saw it: the paths its configuration leaves out (fixtures, examples…) are not read, so not edited.
  const repo = RepoFacts.gather(root, loadConfig(root).config.ignorePaths);
  const read = new Set(before.inputs?.files?.list ?? []);
  const red = new Map(before.results.filter((r) => isRed(r.state) && !r.suppressed).map((r) => [r.ruleId, r]));
  const texts = new Map<string, string | undefined>();
  // A source the reading parsed itself (S-7 reads the sources even when the audit judged no static part).
  const parsed = (rel: string): boolean => rel.endsWith('.json') ? false : parsedSources(repo).files.has(rel);
  const inside = (rel: string): boolean => {
    if (rel.startsWith('/') || rel.split('/').includes('..')) return false;
    try {
      return isInside(root, realpathSync(join(root, rel)));
    } catch {
      return false;
    }
  };
  return {
    root,
    repo,
    read,
    locale,
    red,
    sources: () => parsedSources(repo),
    model: () => serverModel(repo),
    editable: (rel) => (read.has(rel) || parsed(rel)) && !rel.split('/').includes('node_modules') && !isGeneratedPath(rel) && inside(rel),
    text: (rel) => {
      if (!read.has(rel) && !parsed(rel)) return undefined;
      if (!texts.has(rel)) {
        // A parsed source's own text: the offsets of its syntax tree, which the fixes' edits use, are in it.
        const sf = rel.endsWith('.json') ? undefined : parsedSources(repo).files.get(rel);
        const t = sf ? undefined : repo.text(rel);
        texts.set(rel, sf ? sf.getFullText() : t?.ok ? t.value : undefined);
      }
      return texts.get(rel);
    },
  };
}

/** A path where a fix may create a file: relative, inside the folder once its existing parents are resolved, and free. */
function creatable(root: string, rel: string): boolean {
  if (!rel || rel.startsWith('/') || rel.includes('\\') || rel.split('/').some((s) => s === '..' || s === '')) return false;
  let parent = dirname(join(root, rel));
  while (!existsSync(parent)) parent = dirname(parent);
  try {
    return isInside(root, realpathSync(parent)) && !existsSync(join(root, rel));
  } catch {
    return false;
  }
}

/**
 * Write the planned texts and create the new files: every path is checked before anything is written (none outside
 * the root, no file created over one that exists); a write that fails puts back what this call wrote.
 */
function write(root: string, files: Map<string, string>, created: NewFile[], original: (rel: string) => string): string[] {
  for (const file of files.keys()) {
    if (!isInside(root, realpathSync(join(root, file)))) throw new Error(`refused to write outside the folder: ${file}`);
  }
  for (const c of created) if (!creatable(root, c.file)) throw new Error(`refused to create: ${c.file}`);
  const out: string[] = [];
  try {
    for (const [file, text] of files) {
      writeFileSync(join(root, file), text);
      out.push(file);
    }
    for (const c of created) {
      const abs = join(root, c.file);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, c.text, { flag: 'wx' });
      out.push(c.file);
    }
  } catch (e) {
    restore(root, out, created, original);
    throw e;
  }
  log.info({ files: out }, 'fix wrote files');
  return out;
}

/** Put back the original text of every file written, and remove the files this run created (`written` from write()). */
function restore(root: string, written: string[], created: NewFile[], original: (rel: string) => string): void {
  const made = new Set(created.map((c) => c.file));
  for (const file of written) {
    // Checked again here, not only in write(): a restore never touches a path outside the folder.
    const abs = join(root, file);
    if (!isInside(root, realpathSync(abs))) continue;
    if (made.has(file)) rmSync(abs, { force: true });
    else writeFileSync(abs, original(file));
  }
}

export async function fixRepository(opts: FixOptions): Promise<FixResult> {
  const root = realpathSync(resolve(opts.dir));
  const asked = opts.rules?.map((r) => r.toUpperCase());
  const unknown = asked?.filter((r) => !(FIXABLE as readonly string[]).includes(r)) ?? [];
  if (unknown.length) throw new FixRefused('unknown-rule', { rules: unknown.join(', '), fixable: FIXABLE.join(', ') });
  const rules = FIXABLE.filter((r) => !asked || asked.includes(r));
  if (!opts.dryRun && !opts.force) {
    const g = await gitState(root);
    if (g.state === 'not-git') throw new FixRefused('not-git');
    if (g.state === 'dirty') throw new FixRefused('dirty-tree', { count: g.count });
  }
  const before = await audit({ target: { path: root }, rules: [...rules], verbose: true, signal: opts.signal });
  const r = readingOf(root, before, opts.locale);
  const outcomes: Outcome[] = [];
  const planned: Planned[] = [];
  for (const rule of rules) {
    // S-7 has no static part: its fix finds the version written in the source itself.
    if (!r.red.has(rule) && rule !== 'S-7') continue;
    const res = opts.fixers?.[rule]?.(r) ?? (rule === 'S-7' ? fixServedVersion(r, !!opts.command?.length) : FIXERS[rule](r));
    for (const s of res.skips) outcomes.push({ target: s.target, state: 'skipped', reason: s.reason });
    for (const fix of res.fixes) {
      // Whatever a fix proposes, it edits only files the audit read inside the folder and creates only new files there.
      if (fix.edits.some((e) => !r.editable(e.file) || r.text(e.file) === undefined) || (fix.create ?? []).some((c) => !creatable(root, c.file))) {
        for (const target of fix.targets) outcomes.push({ target, state: 'skipped', reason: 'not-editable' });
        continue;
      }
      planned.push({ rule, fix });
    }
  }
  // Every fix checked that its files have a text (locate, or the fix itself): a file without one is never written.
  const original = (rel: string): string => {
    const t = r.text(rel);
    if (t === undefined) throw new Error(`no text read for ${rel}`);
    return t;
  };
  let p = plan(planned, original);
  const withQuestions = (fix: Fix, state: OutcomeState): Outcome[] => fix.targets.map((target) => ({ target, state, ...(fix.questions?.length ? { questions: fix.questions } : {}) }));
  for (const c of p.conflicts) outcomes.push(...withQuestions(c.fix, 'conflict'));
  let kept = planned.filter((x) => !p.conflicts.includes(x));
  const diff = unifiedDiff(p.files, p.created, original);
  if (opts.dryRun) {
    for (const k of kept) outcomes.push(...withQuestions(k.fix, 'planned'));
    return { root, dryRun: true, diff, written: [], outcomes: sortOutcomes(outcomes) };
  }
  if (!kept.length) return { root, dryRun: false, diff: '', written: [], outcomes: sortOutcomes(outcomes) };

  // Apply, audit again, and roll back the fixes the audit does not confirm (twice at most: a rollback can only remove
  // fixes). Whatever fails on the way (an audit, the probe, a write, a cancellation) puts the tree back as it was.
  const beforeCounts = counts(before.results);
  let written: string[] = [];
  const rolledBack: Planned[] = [];
  const replan = () => {
    restore(root, written, p.created, original);
    written = [];
    p = plan(kept, original);
    if (kept.length) written = write(root, p.files, p.created, original);
  };
  try {
    written = write(root, p.files, p.created, original);
    for (let round = 0; round < 2 && kept.length; round++) {
      const after = await audit({ target: { path: root }, rules: [...rules], signal: opts.signal });
      const bad = unconfirmed(kept, beforeCounts, counts(after.results), after.results);
      if (!bad.length) break;
      rolledBack.push(...bad);
      // Still not confirmed after one rollback: keep nothing rather than leave an unverified edit.
      const drop = round === 1 ? kept : bad;
      if (round === 1) rolledBack.push(...kept.filter((k) => !bad.includes(k)));
      kept = kept.filter((k) => !drop.includes(k));
      replan();
    }
    // S-7: the server started with the command must now serve the package's version.
    const live = kept.filter((k) => k.rule === 'S-7');
    if (live.length && opts.command?.length && !(await servesPackageVersion(root, opts.command, opts.signal))) {
      rolledBack.push(...live);
      kept = kept.filter((k) => k.rule !== 'S-7');
      replan();
    }
  } catch (e) {
    restore(root, written, p.created, original);
    throw e;
  }
  for (const k of kept) outcomes.push(...withQuestions(k.fix, 'fixed'));
  for (const k of rolledBack) outcomes.push(...withQuestions(k.fix, 'rolled-back'));
  const finalDiff = unifiedDiff(p.files, kept.length ? p.created : [], original);
  return { root, dryRun: false, diff: kept.length ? finalDiff : '', written, outcomes: sortOutcomes(outcomes) };
}

/** Does the server started with `command` in `root` serve the version of root's package.json (S-7 present)? */
async function servesPackageVersion(root: string, command: string[], signal?: AbortSignal): Promise<boolean> {
  const { probeAndJudge } = await import('../run/probe.js');
  try {
    const { report } = await probeAndJudge({ command, cwd: root, source: root, rules: ['S-7'], apps: { browser: false }, signal });
    return report.results.find((x) => x.ruleId === 'S-7')?.state === 'present';
  } catch (e) {
    log.warn({ err: e }, 'fix: the server did not answer the S-7 check');
    return false;
  }
}

/**
 * The fixes the re-audit does not confirm: one whose finding is still found as often as before its fix, and
 * every fix of a rule that has a finding it did not have before (the fixes of that tool when the finding names a
 * tool, else all the rule's fixes).
 */
function unconfirmed(kept: Planned[], before: Map<string, number>, after: Map<string, number>, results: RuleResult[]): Planned[] {
  const bad = new Set<Planned>();
  const claimed = new Map<string, number>();
  for (const k of kept) for (const t of k.fix.targets) claimed.set(keyOf(k.rule, t), (claimed.get(keyOf(k.rule, t)) ?? 0) + 1);
  for (const k of kept) {
    for (const t of k.fix.targets) {
      const key = keyOf(k.rule, t);
      // A finding the audit does not make (S-7's, found by the fix itself) is confirmed elsewhere.
      if (!before.has(key)) continue;
      if ((after.get(key) ?? 0) > (before.get(key) ?? 0) - (claimed.get(key) ?? 0)) bad.add(k);
    }
  }
  for (const res of results) {
    if (!isRed(res.state)) continue;
    const mine = kept.filter((k) => k.rule === res.ruleId);
    if (!mine.length) continue;
    for (const f of res.findings) {
      const key = findingKey(res.ruleId, f);
      if ((after.get(key) ?? 0) <= (before.get(key) ?? 0)) continue;
      const tool = f.data?.tool;
      const culprits = tool === undefined ? mine : mine.filter((k) => k.fix.targets.some((t) => t.data?.tool === tool));
      for (const c of culprits.length ? culprits : mine) bad.add(c);
    }
  }
  return [...bad];
}

const ORDER: OutcomeState[] = ['fixed', 'planned', 'rolled-back', 'conflict', 'skipped'];
function sortOutcomes(o: Outcome[]): Outcome[] {
  const c = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return o.sort(
    (a, b) =>
      ORDER.indexOf(a.state) - ORDER.indexOf(b.state) ||
      c(a.target.ruleId, b.target.ruleId) ||
      c(a.target.file ?? '', b.target.file ?? '') ||
      (a.target.line ?? 0) - (b.target.line ?? 0) ||
      c(a.target.messageId, b.target.messageId),
  );
}
