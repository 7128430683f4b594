import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/engine/paths.js';
import { audit, combine } from '../src/engine/runner.js';
import { isRed, type State } from '../src/engine/types.js';
import { scrubbedEnv } from '../src/probe/env.js';
import { probeStdio } from '../src/probe/probe.js';

/**
 * Held-out evaluation: real servers (official, community, deliberately vulnerable) that no detector fixture
 * was built from, probed live, compared with hand-verified labels (evals/heldout/labels.json) on the
 * dynamic part of each labelled rule. Prints precision and recall of red verdicts; exits 1 below the bars.
 * Run: npm run eval:heldout
 */

interface Case {
  id: string;
  kind: 'official' | 'community' | 'vulnerable';
  /** A live server to probe (dynamic cells). */
  command?: string[];
  /** A package or repository folder to audit (static cells), relative to evals/heldout. */
  static?: { path: string; labels: Record<string, State>; notes?: Record<string, string> };
  env?: Record<string, string>;
  /** Expected state of the rule's dynamic part, verified by reading the recorded session by hand. */
  labels?: Record<string, State>;
  notes?: Record<string, string>;
}

const dir = join(packageRoot(), 'evals', 'heldout');
const cases = (JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as { cases: Case[] }).cases;
const PRECISION = 0.95;
const RECALL = 0.85;

let tp = 0;
let fp = 0;
let fn = 0;
let tn = 0;
let agree = 0;
let cells = 0;
const rows: string[] = [];
const tally = (id: string, rule: string, genre: string, want: State, got: State) => {
  cells++;
  if (got === want) agree++;
  const wr = isRed(want);
  const gr = isRed(got);
  if (gr && wr) tp++;
  else if (gr && !wr) fp++;
  else if (!gr && wr) fn++;
  else tn++;
  if (got !== want) rows.push(`  DISAGREE ${id} ${rule} (${genre}): label ${want}, verdict ${got}`);
};
for (const c of cases) {
  if (c.static) {
    const report = await audit({ target: { path: join(dir, c.static.path) }, rules: Object.keys(c.static.labels) });
    for (const [rule, want] of Object.entries(c.static.labels)) {
      const parts = report.results.find((r) => r.ruleId === rule)?.parts.filter((p) => p.genre === 'static') ?? [];
      // A rule can have several static parts (TypeScript and Python): together they make the static verdict.
      tally(c.id, rule, 'static', want, parts.length ? combine(parts).state : 'could-not-judge');
    }
  }
  if (!c.command) continue;
  const [cmd, ...args] = c.command;
  const command = cmd === 'node' ? process.execPath : cmd!.startsWith('.') ? join(dir, cmd!) : cmd!;
  const session = await probeStdio({ target: { command, args, cwd: dir, env: scrubbedEnv(c.env ?? {}) }, limits: { requestTimeoutMs: 8000 } });
  const report = await audit({ target: { command: c.command }, session, rules: Object.keys(c.labels ?? {}) });
  for (const [rule, want] of Object.entries(c.labels ?? {})) {
    tally(c.id, rule, 'dynamic', want, report.results.find((r) => r.ruleId === rule)?.parts.find((p) => p.genre === 'dynamic')?.state ?? 'could-not-judge');
  }
}
const precision = tp + fp ? tp / (tp + fp) : 1;
const recall = tp + fn ? tp / (tp + fn) : 1;
process.stdout.write(
  [
    `held-out servers: ${cases.length} (${['official', 'community', 'vulnerable'].map((k) => `${cases.filter((c) => c.kind === k).length} ${k}`).join(', ')}), labelled cells: ${cells}`,
    `agreement: ${agree}/${cells}; red verdicts: TP ${tp}, FP ${fp}, FN ${fn}, TN ${tn}`,
    `precision ${precision.toFixed(3)} (bar ${PRECISION}), recall ${recall.toFixed(3)} (bar ${RECALL})`,
    ...rows,
  ].join('\n') + '\n',
);
process.exitCode = precision >= PRECISION && recall >= RECALL ? 0 : 1;
