import { resolve } from 'node:path';
import { servesApps } from '../apps/probe-hook.js';
import { loadCatalog } from '../engine/catalog.js';
import { loadConfig, type Config } from '../engine/config.js';
import type { Detector } from '../engine/detector.js';
import { AuditCancelled, UnknownRuleError } from '../engine/errors.js';
import { kindInputs } from '../engine/kind.js';
import { ownPackage } from '../engine/paths.js';
import { applySuppressions, inputsOf, judgeRule, linkServedToSource, type Gathered, type Report, type ReportInputs, type Target } from '../engine/runner.js';
import { byRuleId, PROFILE_CATEGORIES, type Profile, type Reason, type RuleResult, type TargetKind } from '../engine/types.js';
import type { GateFacts } from '../facts/gate.js';
import { RepoFacts, RootUnreadable } from '../facts/repo.js';
import { SessionFacts } from '../facts/session.js';
import { readManifest, type PackageFrom } from '../probe/package-of.js';
import type { RecordedSession } from '../probe/session.js';

/**
 * The audit flow, shared by every command (audit, probe, gate, batch) and both faces: gather the inputs once
 * (the package folder, a recorded session, the gate's delivery context), load the detectors, judge every rule
 * of the catalog with the engine (src/engine/runner.ts), then suppressions and the report's inputs.
 */

export interface AuditOptions {
  target: Target;
  /** How the folder in target.path was chosen, and its name and version when known otherwise than from its
   * manifest (default: 'path', name and version read from its package.json or pyproject.toml). */
  package?: { from: PackageFrom; name?: string; version?: string };
  /** Why no folder is read, when target.path is absent for a reason worth saying (instead of needs-repo). */
  repoReason?: Reason;
  /** A recorded live session (dynamic genre). */
  session?: RecordedSession;
  /** The delivery context gathered by `mcp-doctor gate` (gate genre). */
  gate?: GateFacts;
  /** Only these rule ids. */
  rules?: string[];
  /** Only the rules of the profile's categories (default `standard`: every rule); combines with `rules`. */
  profile?: Profile;
  config?: Config;
  configPath?: string;
  detectors?: readonly Detector[];
  onProgress?: (p: { done: number; total: number; ruleId: string }) => void;
  signal?: AbortSignal;
  /** List every file read in `inputs.files.list` (the CLI's --verbose). */
  verbose?: boolean;
}


/** The package, command and URL parts of the report's inputs. */
function packageInputs(opts: AuditOptions): ReportInputs {
  const out: ReportInputs = {};
  if (opts.target.path) {
    const folder = resolve(opts.target.path);
    const m = readManifest(folder);
    const name = opts.package?.name ?? m?.name;
    const version = opts.package?.version ?? m?.version;
    out.package = { folder, ...(name ? { name } : {}), ...(version ? { version } : {}), from: opts.package?.from ?? 'path' };
  }
  if (opts.target.command) out.command = [...opts.target.command];
  if (opts.target.url) out.url = opts.target.url;
  return out;
}


/** Run an audit: gather inputs once, judge every rule of the catalog (or the selected ones). */
export async function audit(opts: AuditOptions): Promise<Report> {
  const catalog = loadCatalog();
  const wanted = opts.rules?.length ? opts.rules : undefined;
  if (wanted) {
    const unknown = wanted.filter((id) => !catalog.byId.has(id));
    if (unknown.length) throw new UnknownRuleError(unknown);
  }
  const categories = PROFILE_CATEGORIES[opts.profile ?? 'standard'];
  const rules = catalog.rules.filter((r) => (!wanted || wanted.includes(r.id)) && categories.includes(r.category));

  // A root that exists but cannot be listed stops the audit (exit 3 / a tool error), before its config is looked for.
  if (opts.target.path) RepoFacts.checkRoot(opts.target.path);
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
      if (e instanceof RootUnreadable) throw e;
      gathered.repo = { ok: false, reason: { code: 'repo-unreadable', data: { error: (e as Error).message } } };
    }
  } else {
    gathered.repo = { ok: false, reason: opts.repoReason ?? { code: 'needs-repo' } };
  }
  // The Python grammar is WebAssembly, loaded once per process (idempotent) and only for a tree that has
  // Python source; detectors stay synchronous.
  if (gathered.repo.ok) {
    const { hasPythonSource, loadPythonParser } = await import('../facts/python-source.js');
    if (hasPythonSource(gathered.repo.value)) await loadPythonParser();
  }
  gathered.session = opts.session !== undefined ? { ok: true, value: new SessionFacts(opts.session) } : { ok: false, reason: { code: 'needs-session' } };
  gathered.gate = opts.gate ? { ok: true, value: opts.gate } : { ok: false, reason: { code: 'needs-gate' } };
  // Without a package and without a gate, only the dynamic parts can judge: the registry of those alone is
  // loaded, and the other parts say why they were not judged exactly as they would (detectors/live.ts).
  const detectors =
    opts.detectors ?? (!gathered.repo.ok && !gathered.gate.ok ? (await import('../detectors/live.js')).liveRegistry() : (await import('../detectors/index.js')).registry);

  let kind: TargetKind = config.targetKind ?? (gathered.repo.ok ? gathered.repo.value.kind() : 'server');
  // A server whose tools link ui:// resources is an MCP App (it is a server too: S-* still apply to it).
  if (!config.targetKind && kind === 'server' && opts.session && servesApps(opts.session)) kind = 'app';

  const results: RuleResult[] = [];
  let done = 0;
  for (const rule of rules) {
    if (opts.signal?.aborted) throw new AuditCancelled();
    results.push(judgeRule(rule, detectors, gathered, config, kind));
    done++;
    opts.onProgress?.({ done, total: rules.length, ruleId: rule.id });
    // Let cancellation, pings and progress notifications through between rules (a turn of the event loop costs
    // microseconds; a rule can cost a second on a large tree).
    await new Promise((r) => setImmediate(r));
  }
  results.sort((a, b) => byRuleId(a.ruleId, b.ruleId));
  if (gathered.repo.ok && gathered.session?.ok) linkServedToSource(results, gathered.repo.value, (await import('../facts/server-model.js')).serverModel);
  applySuppressions(results, config, configFile, opts.target.path ?? '.');
  const pkg = ownPackage();
  const report: Report = { tool: { name: pkg.name, version: pkg.version }, target: { ...opts.target, kind }, ...(opts.profile === 'vet' ? { profile: opts.profile } : {}), results };
  const why = kindInputs(kind, { configured: !!config.targetKind, ...(gathered.repo.ok ? { repo: gathered.repo.value } : {}), ...(opts.session ? { session: opts.session } : {}) });
  const inputs: ReportInputs = { ...packageInputs(opts), ...(gathered.repo.ok ? inputsOf(gathered.repo.value, opts.verbose ?? false) : {}), ...(why ? { kind: why } : {}) };
  if (Object.keys(inputs).length) report.inputs = inputs;
  return report;
}
