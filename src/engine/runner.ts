import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadCatalog } from './catalog.js';
import { loadConfig, type Config } from './config.js';
import type { Detector, InputName, Inputs } from './detector.js';
import { ownPackage } from './paths.js';
import {
  byRuleId,
  isRed,
  type Combination,
  type Finding,
  type PartResult,
  type Reason,
  type RuleMeta,
  type RuleResult,
  type State,
  type TargetKind,
  type Verdict,
} from './types.js';
import { RepoFacts } from '../facts/repo.js';
import { SessionFacts } from '../facts/session.js';
import { hasPythonSource, loadPythonParser } from '../facts/python-source.js';
import { serverModel } from '../facts/server-model.js';
import type { RecordedSession } from '../probe/session.js';
import { registry } from '../detectors/index.js';

export interface Target {
  /** Folder audited statically. */
  path?: string;
  /** Command or URL probed dynamically (filled by the probe stage). */
  command?: string[];
  url?: string;
}

export interface AuditOptions {
  target: Target;
  /** A recorded live session (dynamic genre). */
  session?: RecordedSession;
  /** Only these rule ids. */
  rules?: string[];
  config?: Config;
  configPath?: string;
  detectors?: readonly Detector[];
  onProgress?: (p: { done: number; total: number; ruleId: string }) => void;
  signal?: AbortSignal;
}

export interface Report {
  tool: { name: string; version: string };
  target: Target & { kind: TargetKind };
  results: RuleResult[];
}

export class UnknownRuleError extends Error {
  constructor(readonly ids: string[]) {
    super(`unknown rule id(s): ${ids.join(', ')}`);
  }
}

export class AuditCancelled extends Error {
  constructor() {
    super('audit cancelled');
  }
}

type Gathered = { [K in InputName]?: { ok: true; value: Inputs[K] } | { ok: false; reason: Reason } };

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
    const v = d.judge({ inputs, config, kind });
    for (const f of v.findings) {
      if (!(f.messageId in d.messages)) throw new Error(`detector ${d.ruleId}/${d.genre} emitted undeclared message id ${f.messageId}`);
    }
    if (v.state === 'could-not-judge' && !v.reason) throw new Error(`detector ${d.ruleId}/${d.genre} said could-not-judge without a reason`);
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

function applySuppressions(results: RuleResult[], config: Config, configFile: string | undefined): void {
  let baseline: Set<string> | undefined;
  if (config.baseline) {
    const file = resolve(configFile ? dirname(configFile) : '.', config.baseline);
    if (existsSync(file)) {
      const prior = JSON.parse(readFileSync(file, 'utf8')) as { results?: RuleResult[] };
      baseline = new Set((prior.results ?? []).filter((r) => isRed(r.state)).flatMap((r) => r.findings.map((f) => fingerprint(r.ruleId, f))));
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

/**
 * When a probe ran with the package folder, a finding about a served tool (data.tool or data.name) that has
 * no location of its own is linked to the line where that tool is registered in the source.
 */
function linkServedToSource(results: RuleResult[], repo: RepoFacts): void {
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

/** Run an audit: gather inputs once, judge every rule of the catalog (or the selected ones). */
export async function audit(opts: AuditOptions): Promise<Report> {
  const catalog = loadCatalog();
  const detectors = opts.detectors ?? registry;
  const wanted = opts.rules?.length ? opts.rules : undefined;
  if (wanted) {
    const unknown = wanted.filter((id) => !catalog.byId.has(id));
    if (unknown.length) throw new UnknownRuleError(unknown);
  }
  const rules = catalog.rules.filter((r) => !wanted || wanted.includes(r.id));

  let config = opts.config;
  let configFile: string | undefined;
  if (!config) {
    const loaded = opts.target.path ? loadConfig(opts.target.path, opts.configPath) : { config: loadConfig('.', opts.configPath).config };
    config = loaded.config;
    configFile = 'file' in loaded ? loaded.file : undefined;
  }

  const gathered: Gathered = {};
  if (opts.target.path) {
    try {
      gathered.repo = { ok: true, value: RepoFacts.gather(opts.target.path, config.ignorePaths) };
    } catch (e) {
      gathered.repo = { ok: false, reason: { code: 'repo-unreadable', data: { error: (e as Error).message } } };
    }
  } else {
    gathered.repo = { ok: false, reason: { code: 'needs-repo' } };
  }
  // The Python grammar is WebAssembly, loaded once per process (idempotent) and only for a tree that has
  // Python source; detectors stay synchronous.
  if (gathered.repo.ok && hasPythonSource(gathered.repo.value)) await loadPythonParser();
  gathered.session = opts.session !== undefined ? { ok: true, value: new SessionFacts(opts.session) } : { ok: false, reason: { code: 'needs-session' } };
  gathered.gate = { ok: false, reason: { code: 'needs-gate' } };

  const kind: TargetKind = config.targetKind ?? (gathered.repo.ok ? gathered.repo.value.kind() : 'server');

  const results: RuleResult[] = [];
  let done = 0;
  for (const rule of rules) {
    if (opts.signal?.aborted) throw new AuditCancelled();
    results.push(judgeRule(rule, detectors, gathered, config, kind));
    done++;
    opts.onProgress?.({ done, total: rules.length, ruleId: rule.id });
    // Let cancellation and progress notifications through on long audits.
    if (done % 8 === 0) await new Promise((r) => setImmediate(r));
  }
  results.sort((a, b) => byRuleId(a.ruleId, b.ruleId));
  if (gathered.repo.ok && gathered.session?.ok) linkServedToSource(results, gathered.repo.value);
  applySuppressions(results, config, configFile);
  const pkg = ownPackage();
  return { tool: { name: pkg.name, version: pkg.version }, target: { ...opts.target, kind }, results };
}
