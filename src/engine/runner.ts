import type { KindInputs } from './kind.js';
import type { AppsInputs } from '../probe/apps-record.js';
import { dirname, resolve } from 'node:path';
import { ConfigError, MAX_BASELINE_BYTES, readJsonFile, type Config } from './config.js';
import type { Detector, InputName, Inputs } from './detector.js';
import {
  isRed,
  type Combination,
  type Profile,
  type Finding,
  type PartResult,
  type Reason,
  type RuleMeta,
  type RuleResult,
  type State,
  type TargetKind,
  type Verdict,
} from './types.js';
import { RootUnreadable, type RepoFacts } from '../facts/repo.js';
import { fileNotReadData, sourceReaders, watchSourceReads, type FileNotRead, type SourceKind } from '../facts/not-read.js';
import type { SessionNote } from '../probe/session.js';
import type { PackageFrom } from '../probe/package-of.js';
import { AuditCancelled, UnknownRuleError } from './errors.js';

export interface Target {
  /** Folder audited statically. */
  path?: string;
  /** Command or URL probed dynamically (filled by the probe stage). */
  command?: string[];
  url?: string;
}

/** What the audit read and ran (the JSON report's `inputs`; shared contract, each stream fills its fields). */
export interface ReportInputs {
  /** The package folder read, its name and version, and how it was chosen. */
  package?: { folder: string; name?: string; version?: string; from: PackageFrom };
  /** The command launched (stdio probe). */
  command?: string[];
  /** The URL probed (HTTP probe). */
  url?: string;
  /** Files read on behalf of the target (sources parsed, manifests and texts read); the list only with --verbose. */
  files?: { read: number; list?: string[] };
  /** Files (and folders, with a trailing '/') of the target that were not read, each with its cause. */
  skipped?: { file: string; cause: string; size?: number; limit?: number; bundler?: string }[];
  /** How a probed stdio target was contained; `reason` says why there was no PID namespace. */
  containment?: { method: 'pid-namespace' | 'process-group'; reason?: string };
  /** What the probe noticed on the wire beyond the messages (duplicate responses, over-deep messages), as data. */
  notes?: ({ connection: string } & SessionNote)[];
  /** The MCP Apps host run: per View its outcome, screenshot and A-5 figures (probe/apps-record.ts, filled by apps/report-inputs.ts). */
  apps?: AppsInputs;
  /** Why the target is an App or an extension (src/engine/kind.ts): configuration, files, served App tools. */
  kind?: KindInputs;
}

export interface Report {
  tool: { name: string; version: string };
  target: Target & { kind: TargetKind };
  /** Set when the audit judged only some categories of rules (`vet`). */
  profile?: Profile;
  inputs?: ReportInputs;
  results: RuleResult[];
  /** The configured servers and client files of `mcp-doctor scan` (src/scan/report.ts). */
  scan?: import('../facts/client-configs.js').ScanSection;
}

export { RootUnreadable };
// Kept light for the faces, which test for them before the analyser loads.
export { UnknownRuleError, AuditCancelled };


/** The inputs gathered once for an audit (src/run/audit.ts), each a value or the reason it could not be read. */
export type Gathered = { [K in InputName]?: { ok: true; value: Inputs[K] } | { ok: false; reason: Reason } };

const STATE_WEIGHT: Record<State, number> = {
  'non-conforming': 4,
  absent: 3,
  'could-not-judge': 2,
  present: 1,
  'not-applicable': 0,
};

/**
 * What a finding says, whatever part found it: its message id without the part's marks (`source-x`,
 * `python-x`, `x-in-source` all say `x`). Two parts that report the same defect use the same words for it.
 */
const defectOf = (messageId: string): string => messageId.replace(/^(?:source|python)-/, '').replace(/-in-source$/, '');

/**
 * Two findings of different parts describe one defect when they say the same thing (defectOf) about the
 * same subject: every data field they both carry is equal, and they share at least one (the tool, the
 * place of a text…); and they are not located at two different places.
 */
function sameDefect(a: Finding, b: Finding): boolean {
  if (defectOf(a.messageId) !== defectOf(b.messageId)) return false;
  // Two located findings at different places are two defects (the same text written in two files).
  if (a.location && b.location && (a.location.file !== b.location.file || a.location.line !== b.location.line)) return false;
  const da = a.data ?? {};
  const db = b.data ?? {};
  const common = Object.keys(da).filter((k) => k in db);
  return common.length > 0 && common.every((k) => String(da[k]) === String(db[k]));
}

/**
 * The findings of the red parts, one per defect: a defect reported by two parts (the source and the live
 * server) is kept once, preferring the finding that carries a location; findings of one part are never
 * merged (two lines of one part are two defects).
 */
function dedupeAcrossParts(red: PartResult[]): Finding[] {
  const all = red.flatMap((p, part) => p.findings.map((f) => ({ f, part })));
  // Located findings first, so that they are the ones kept; the order is restored by sortFindings later.
  const ordered = [...all.filter((x) => x.f.location), ...all.filter((x) => !x.f.location)];
  const kept: { f: Finding; part: number }[] = [];
  for (const x of ordered) {
    const twin = kept.find((k) => k.part !== x.part && sameDefect(k.f, x.f));
    if (twin) {
      if (!twin.f.evidence && x.f.evidence) twin.f = { ...twin.f, evidence: x.f.evidence };
      continue;
    }
    kept.push(x);
  }
  return kept.map((k) => k.f);
}

/**
 * Combine the parts of one rule (see Combination in types.ts):
 *   - any red part makes the rule red (non-conforming before absent), with the red parts' findings, one
 *     per defect (dedupeAcrossParts);
 *   - otherwise, with `live-decides`, when some part could not judge and every live (dynamic) part judged
 *     (present, or not-applicable on what was served), the live parts decide: present when one is;
 *   - otherwise any unjudged part keeps the rule unjudged; parts that are all not-applicable make it
 *     not-applicable; else present.
 */
export function combine(parts: PartResult[], mode: Combination = 'any-unjudged'): { state: State; reason?: Reason; findings: Finding[] } {
  const judged = parts.filter((p) => p.state !== 'not-applicable');
  if (judged.length === 0) return { state: 'not-applicable', reason: parts[0]?.reason, findings: [] };
  const worst = judged.reduce((a, b) => (STATE_WEIGHT[b.state] > STATE_WEIGHT[a.state] ? b : a));
  if (isRed(worst.state)) return { state: worst.state, findings: dedupeAcrossParts(judged.filter((p) => isRed(p.state))) };
  if (worst.state === 'could-not-judge') {
    const live = parts.filter((p) => p.genre === 'dynamic');
    if (mode === 'live-decides' && live.length > 0 && live.every((p) => p.state === 'present' || p.state === 'not-applicable')) {
      const decided = live.find((p) => p.state === 'present');
      return decided ? { state: 'present', findings: [] } : { state: 'not-applicable', reason: live[0]!.reason, findings: [] };
    }
    return { state: 'could-not-judge', reason: worst.reason, findings: [] };
  }
  return { state: 'present', findings: [] };
}

/** Code-point comparison: the same order on every machine, whatever its locale. */
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Findings in a stable order: file, line, column, message id, then data (serialised once per finding, not at
 * every comparison).
 */
function sortFindings(findings: Finding[]): Finding[] {
  const keyed = findings.map((f) => ({ f, data: JSON.stringify(f.data ?? {}) }));
  keyed.sort(
    (x, y) =>
      cmp(x.f.location?.file ?? '', y.f.location?.file ?? '') ||
      (x.f.location?.line ?? 0) - (y.f.location?.line ?? 0) ||
      (x.f.location?.column ?? 0) - (y.f.location?.column ?? 0) ||
      cmp(x.f.messageId, y.f.messageId) ||
      cmp(x.data, y.data),
  );
  return keyed.map((k) => k.f);
}

/**
 * Reason codes that say "no code found/read": with a source file of the kind the part read left unread, the
 * part says `file-not-read` instead (the file may hold what the part looks for).
 */
const NO_SOURCE_REASONS = new Set([
  'no-source',
  'no-source-code',
  'js-source-unreadable',
  'no-js-source',
  'python-source-only',
  'python-file-unread',
  'no-tools-in-source',
  'no-tools-registered',
  'relays-upstream-tools',
  'no-texts-in-source',
  'no-handlers-in-source',
  'tool-handlers-not-found',
  'no-js-tools-python-source',
  'no-python-tools',
  'no-python-source',
]);

/** The first file of the kinds a part read that was not read (folders that could not be listed count for every kind). */
function firstUnread(repo: RepoFacts, kinds: ReadonlySet<SourceKind>): FileNotRead | undefined {
  const all: FileNotRead[] = [...repo.unlisted];
  // A kind in `kinds` was read by the part, so its reader has loaded and registered (facts/not-read.ts).
  if (kinds.has('js')) all.push(...(sourceReaders.js?.unread(repo) ?? []));
  if (kinds.has('python')) all.push(...(sourceReaders.python?.unread(repo) ?? []));
  return all.sort((a, b) => cmp(a.file, b.file))[0];
}

function runDetector(d: Detector, gathered: Gathered, config: Config, kind: TargetKind): Verdict {
  for (const n of d.needs) {
    const g = gathered[n];
    if (!g) return { state: 'could-not-judge', findings: [], reason: { code: `needs-${n}` } };
    if (!g.ok) return { state: 'could-not-judge', findings: [], reason: g.reason };
  }
  const inputs = Object.fromEntries(d.needs.map((n) => [n, (gathered[n] as { value: unknown }).value])) as unknown as Inputs;
  for (const w of d.wants ?? []) {
    const g = gathered[w];
    if (g?.ok) (inputs as unknown as Record<string, unknown>)[w] = g.value;
  }
  try {
    const { value: v, kinds } = watchSourceReads(() => d.judge({ inputs, config, kind }));
    for (const f of v.findings) {
      if (!(f.messageId in d.messages)) throw new Error(`detector ${d.ruleId}/${d.genre} emitted undeclared message id ${f.messageId}`);
    }
    if (v.state === 'could-not-judge' && !v.reason) throw new Error(`detector ${d.ruleId}/${d.genre} said could-not-judge without a reason`);
    // A part that read code never comes out clean over a source file it could not read: red read from other
    // files stands; present, not-applicable and "no source" say which file was not read.
    const repo = gathered.repo?.ok ? gathered.repo.value : undefined;
    if (repo && kinds.size && !isRed(v.state) && (v.state !== 'could-not-judge' || NO_SOURCE_REASONS.has(v.reason?.code ?? ''))) {
      const unread = firstUnread(repo, kinds);
      if (unread) return { state: 'could-not-judge', findings: [], reason: { code: 'file-not-read', data: fileNotReadData(unread) } };
    }
    return { ...v, findings: sortFindings(v.findings) };
  } catch (e) {
    return { state: 'could-not-judge', findings: [], reason: { code: 'detector-error', data: { error: (e as Error).message } } };
  }
}

export function judgeRule(
  rule: RuleMeta,
  detectors: readonly Detector[],
  gathered: Gathered,
  config: Config,
  kind: TargetKind,
): RuleResult {
  if (!rule.appliesTo.includes(kind)) {
    const reason: Reason = { code: 'kind-mismatch', data: { kind, appliesTo: rule.appliesTo.join(', ') } };
    return { ruleId: rule.id, state: 'not-applicable', severity: rule.severity, findings: [], reason, parts: [] };
  }
  const mine = detectors.filter((d) => d.ruleId === rule.id);
  const parts: PartResult[] = [];
  for (const genre of rule.genres) {
    const ds = mine.filter((d) => d.genre === genre);
    if (ds.length === 0) {
      parts.push({ genre, state: 'could-not-judge', reason: { code: 'no-detector', data: { genre } }, findings: [] });
      continue;
    }
    for (const d of ds) {
      const v = runDetector(d, gathered, config, kind);
      parts.push({ genre, state: v.state, reason: v.reason, findings: v.findings });
    }
  }
  const c = combine(parts, rule.combine);
  return { ruleId: rule.id, state: c.state, severity: rule.severity, findings: sortFindings(c.findings), reason: c.reason, parts };
}

/** Fingerprint of a red finding, for baselines. */
export const fingerprint = (ruleId: string, f: Finding): string => `${ruleId}|${f.messageId}|${f.location?.file ?? ''}`;

/**
 * Config suppressions, then the baseline the config names: a previous JSON report, read with the safe reader
 * only when it is a regular file inside the audited root (`root`), within MAX_BASELINE_BYTES. A baseline that
 * does not exist yet is no baseline; one that cannot be used is a ConfigError naming the cause, never quoting it.
 */
export function applySuppressions(results: RuleResult[], config: Config, configFile: string | undefined, root: string): void {
  let baseline: Set<string> | undefined;
  if (config.baseline) {
    const file = resolve(configFile ? dirname(configFile) : root, config.baseline);
    const prior = readJsonFile(root, file, MAX_BASELINE_BYTES, true) as { results?: unknown } | undefined;
    if (prior !== undefined) {
      const list = typeof prior === 'object' && prior !== null && Array.isArray(prior.results) ? (prior.results as RuleResult[]) : undefined;
      if (!list) throw new ConfigError(config.baseline, ['not a JSON report (no results)'], 'invalid-json');
      baseline = new Set(
        list
          .filter((r) => r && typeof r === 'object' && isRed(r.state) && Array.isArray(r.findings))
          .flatMap((r) => r.findings.filter((f) => f && typeof f === 'object').map((f) => fingerprint(String(r.ruleId), f))),
      );
    }
  }
  for (const r of results) {
    if (!isRed(r.state)) continue;
    const s = config.suppressions.find(
      (s) => s.rule === r.ruleId && (!s.path || r.findings.every((f) => (f.location?.file ?? '').startsWith(s.path!))),
    );
    if (s) {
      r.suppressed = { reason: s.reason, source: 'config' };
      continue;
    }
    if (baseline && r.findings.length > 0 && r.findings.every((f) => baseline!.has(fingerprint(r.ruleId, f)))) {
      r.suppressed = { reason: config.baseline!, source: 'baseline' };
    }
  }
}

/** What was read and what was skipped, from the facts the audit gathered (nothing is read here that was not). */
export function inputsOf(repo: RepoFacts, verbose: boolean): Pick<ReportInputs, 'files' | 'skipped'> {
  const read = new Set(repo.readFiles());
  const skipped: FileNotRead[] = [...repo.unlisted, ...repo.skippedTexts()];
  // A reader that never loaded parsed nothing.
  const js = sourceReaders.js?.peek(repo);
  if (js) {
    for (const f of js.files.keys()) read.add(f);
    skipped.push(...js.unread, ...js.screened, ...(js.bundled ?? []));
  }
  const py = sourceReaders.python?.peek(repo);
  if (py) {
    for (const f of py.files.keys()) read.add(f);
    skipped.push(...py.unread, ...py.screened);
  }
  const seen = new Set<string>();
  const unique = skipped
    .sort((a, b) => cmp(a.file, b.file) || cmp(a.cause, b.cause))
    .filter((f) => (seen.has(f.file) ? false : (seen.add(f.file), true)))
    .map((f) => ({ file: f.file, cause: f.cause, ...(f.size !== undefined ? { size: f.size } : {}), ...(f.limit !== undefined ? { limit: f.limit } : {}), ...(f.bundler !== undefined ? { bundler: f.bundler } : {}) }));
  // A bundle read as its own modules is read; its entry names the library modules left out.
  for (const f of unique) if (f.cause !== 'bundled-libraries') read.delete(f.file);
  const list = [...read].sort(cmp);
  return { files: { read: list.length, ...(verbose ? { list } : {}) }, skipped: unique };
}

/**
 * When a probe ran with the package folder, a finding about a served tool (data.tool or data.name) that has
 * no location of its own is linked to the line where that tool is registered in the source.
 */
export function linkServedToSource(results: RuleResult[], repo: RepoFacts, serverModel: typeof import('../facts/server-model.js').serverModel): void {
  let where: Map<string, { file: string; line: number }>;
  try {
    where = new Map(serverModel(repo).tools.filter((t) => t.nameIsLiteral).map((t) => [t.name, { file: t.file, line: t.nameLine ?? t.line }]));
  } catch {
    return;
  }
  if (!where.size) return;
  for (const r of results) {
    for (const p of r.parts) {
      if (p.genre !== 'dynamic') continue;
      for (const f of p.findings) {
        if (f.location) continue;
        const name = f.data?.tool ?? f.data?.name;
        const at = typeof name === 'string' ? where.get(name) : undefined;
        if (at) f.location = { file: at.file, line: at.line };
      }
    }
    r.findings = sortFindings(r.findings);
  }
}
