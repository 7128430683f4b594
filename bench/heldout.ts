import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { packageRoot } from '../src/engine/paths.js';
import { combine, type Report } from '../src/engine/runner.js';
import { audit } from '../src/run/audit.js';
import { isRed, type State } from '../src/engine/types.js';
import type { Exercise } from '../src/probe/exercises.js';
import { probeAndJudge, ProbeUnreachable } from '../src/run/probe.js';

/**
 * Held-out evaluation: real servers (official, community, deliberately vulnerable) that no detector fixture
 * was built from, compared with hand-verified labels (evals/heldout/labels.json).
 *
 * A server with a package is probed the way a user does it, `probe --cwd <package> -- <command>`
 * (probeAndJudge with the package folder), so its static and dynamic parts come from one report; a package
 * or repository without a command is audited statically. Prints, per rule family and overall: precision of
 * red verdicts, recall of red labels, and the share of decided cells (verdict other than could-not-judge);
 * exits 1 below the bars. Run: npm run eval:heldout [-- <case id>...]
 */

interface Labelled {
  labels: Record<string, State>;
  notes?: Record<string, string>;
}
interface Case {
  id: string;
  kind: 'official' | 'community' | 'vulnerable';
  /** Package folder, relative to evals/heldout: the probe runs there (--cwd) and its tree is read. */
  package?: string;
  /** A live server to probe; a leading ./ is relative to evals/heldout, other relative paths to the package. */
  command?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Opt-ins for the probe (`app` renders an App's Views and forwards its App tools' calls): App cases label A-* under them. */
  exercise?: Exercise[];
  /** Expected state of each rule's dynamic part, verified on the raw wire. */
  labels?: Record<string, State>;
  notes?: Record<string, string>;
  /** Why a server no longer counts as held out (its verdicts were shaped by what was learnt from it): printed apart. */
  movedOut?: string;
  /** Expected state of each rule's static part; path defaults to the package folder. */
  static?: Labelled & { path?: string };
}

const BARS = { precision: 0.97, recall: 0.9, decided: 0.9 };
const dir = join(packageRoot(), 'evals', 'heldout');
const only = process.argv.slice(2);
const all = (JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as { cases: Case[] }).cases;
const cases = only.length ? all.filter((c) => only.includes(c.id)) : all;
/** Servers moved out of the held-out set are judged and printed apart; the headline figures leave them out. */
const heldOut = (c: Case) => !c.movedOut;

interface Tally {
  cells: number;
  agree: number;
  decided: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}
const zero = (): Tally => ({ cells: 0, agree: 0, decided: 0, tp: 0, fp: 0, fn: 0, tn: 0 });
const byFamily = new Map<string, Tally>();
const byGenre = new Map<string, Tally>();
const overall = zero();
const rows: string[] = [];
const failures: string[] = [];

const movedOut = zero();
const tally = (id: string, rule: string, genre: string, want: State, got: State, why?: string, counted = true) => {
  const family = rule.split('-')[0]!;
  if (!byFamily.has(family)) byFamily.set(family, zero());
  if (!byGenre.has(genre)) byGenre.set(genre, zero());
  for (const t of counted ? [overall, byFamily.get(family)!, byGenre.get(genre)!] : [movedOut]) {
    t.cells++;
    if (got === want) t.agree++;
    if (got !== 'could-not-judge') t.decided++;
    const wr = isRed(want);
    const gr = isRed(got);
    if (gr && wr) t.tp++;
    else if (gr) t.fp++;
    else if (wr) t.fn++;
    else t.tn++;
  }
  if (got !== want) rows.push(`  DISAGREE${counted ? '' : ' (moved out)'} ${id} ${rule} (${genre}): label ${want}, verdict ${got}${why ? ` [${why}]` : ''}`);
};

/**
 * State of one genre of a rule in a report (a rule can have several parts of one genre: TypeScript and
 * Python), with the reason code or the first finding's message id, to say in one word why it disagrees.
 */
const stateOf = (report: Report | undefined, rule: string, genre: 'static' | 'dynamic'): [State, string | undefined] => {
  const parts = report?.results.find((r) => r.ruleId === rule)?.parts.filter((p) => p.genre === genre) ?? [];
  if (!parts.length) return ['could-not-judge', report ? 'no-part' : 'no-report'];
  const c = combine(parts);
  return [c.state, c.reason?.code ?? c.findings[0]?.messageId];
};

const resolveArg = (a: string, i: number) => {
  if (i === 0 && a === 'node') return process.execPath;
  return a.startsWith('./') ? join(dir, a) : a;
};

for (const c of cases) {
  const pkg = c.package ?? c.static?.path;
  const staticPath = c.static?.path ?? c.package;
  const rules = [...new Set([...Object.keys(c.labels ?? {}), ...Object.keys(c.static?.labels ?? {})])].sort();
  let report: Report | undefined;
  if (c.command) {
    // Each server gets an empty HOME of its own: what it writes there (configuration, caches) is thrown away.
    const home = mkdtempSync(join(tmpdir(), 'heldout-home-'));
    try {
      ({ report } = await probeAndJudge({
        command: c.command.map(resolveArg),
        cwd: pkg ? join(dir, pkg) : undefined,
        env: { HOME: home, ...c.env },
        timeoutMs: c.timeoutMs,
        ...(c.exercise ? { exercise: c.exercise } : {}),
        rules,
      }));
    } catch (e) {
      failures.push(`  PROBE FAILED ${c.id}: ${e instanceof ProbeUnreachable ? e.detail : (e as Error).message}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  } else if (staticPath) {
    report = await audit({ target: { path: isAbsolute(staticPath) ? staticPath : join(dir, staticPath) }, rules });
  }
  for (const [rule, want] of Object.entries(c.static?.labels ?? {})) tally(c.id, rule, 'static', want, ...stateOf(report, rule, 'static'), heldOut(c));
  for (const [rule, want] of Object.entries(c.labels ?? {})) tally(c.id, rule, 'dynamic', want, ...stateOf(report, rule, 'dynamic'), heldOut(c));
}

const ratio = (n: number, d: number) => (d ? n / d : undefined);
const fmt = (x: number | undefined) => (x === undefined ? '  —  ' : x.toFixed(3));
const line = (name: string, t: Tally) => {
  const p = ratio(t.tp, t.tp + t.fp);
  const r = ratio(t.tp, t.tp + t.fn);
  const d = ratio(t.decided, t.cells);
  return `  ${name.padEnd(8)} cells ${String(t.cells).padStart(4)}  precision ${fmt(p)}  recall ${fmt(r)}  decided ${fmt(d)}  agreement ${fmt(ratio(t.agree, t.cells))}  (TP ${t.tp}, FP ${t.fp}, FN ${t.fn}, TN ${t.tn})`;
};
const counted = cases.filter(heldOut);
const kinds = ['official', 'community', 'vulnerable'].map((k) => `${counted.filter((c) => c.kind === k).length} ${k}`).join(', ');
const moved = cases.filter((c) => !heldOut(c));
const p = ratio(overall.tp, overall.tp + overall.fp) ?? 1;
const r = ratio(overall.tp, overall.tp + overall.fn) ?? 1;
const d = ratio(overall.decided, overall.cells) ?? 1;
process.stdout.write(
  [
    `held-out evaluation, ${new Date().toISOString().slice(0, 10)}: ${counted.length} servers (${kinds}), ${overall.cells} labelled cells (${[...byGenre].map(([g, t]) => `${t.cells} ${g}`).join(', ')})`,
    `bars: precision >= ${BARS.precision}, recall >= ${BARS.recall}, decided >= ${BARS.decided}`,
    ...[...byFamily.keys()].sort().map((f) => line(f, byFamily.get(f)!)),
    line('overall', overall),
    ...(moved.length ? [`moved out of the held-out set (not in the figures above): ${moved.map((c) => c.id).join(', ')}`, line('moved', movedOut)] : []),
    ...failures,
    ...rows.sort(),
  ].join('\n') + '\n',
);
process.exitCode = p >= BARS.precision && r >= BARS.recall && d >= BARS.decided && !failures.length ? 0 : 1;
