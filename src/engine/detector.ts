import type { Config } from './config.js';
import type { Genre, TargetKind, Verdict } from './types.js';
import type { RepoFacts } from '../facts/repo.js';
import type { SessionFacts } from '../facts/session.js';
import type { GateFacts } from '../facts/gate.js';

/**
 * The detector contract. A detector judges one part (one genre) of one rule, as a pure function over
 * inputs gathered once by the runner. It declares the inputs it needs; when one could not be gathered the
 * runner reports could-not-judge with the input's reason, without calling the detector.
 */

/** Inputs a detector can ask for. `session` (a recorded live session) and `gate` (the delivery context:
 * packed artefact, git at HEAD, CI, registry metadata, `mcp-doctor gate`) are filled by later stages; in a
 * static audit they are unavailable and the runner says so. */
export interface Inputs {
  repo: RepoFacts;
  session: SessionFacts;
  gate: GateFacts;
}
export type InputName = keyof Inputs;

export interface JudgeContext<N extends InputName = InputName> {
  /** The inputs in `needs`, always present; inputs in `wants` are present only when they could be gathered. */
  inputs: Pick<Inputs, N> & Partial<Inputs>;
  config: Config;
  kind: TargetKind;
}

/** messageId -> the placeholder names its text uses (same in every locale; checked by a test). */
export type MessageSpec = Record<string, readonly string[]>;

export interface Detector<N extends InputName = InputName> {
  ruleId: string;
  genre: Genre;
  needs: readonly N[];
  /** Optional inputs: used when available (e.g. package.json to compare a served version), never required. */
  wants?: readonly InputName[];
  /** Every message id this detector may emit, with its placeholders. */
  messages: MessageSpec;
  /** Optional: what this detector covers when it judges only part of its genre's half (shown in `rules`). */
  partial?: boolean;
  judge(ctx: JudgeContext<N>): Verdict;
}

/** Helper to keep detector definitions typed. */
export const defineDetector = <N extends InputName>(d: Detector<N>): Detector<N> => d;

/* Small verdict builders, so detectors read as judgements. */
export const present = (): Verdict => ({ state: 'present', findings: [] });
export const notApplicable = (code: string, data?: Record<string, string | number>): Verdict => ({
  state: 'not-applicable',
  findings: [],
  reason: { code, data },
});
export const couldNotJudge = (code: string, data?: Record<string, string | number>): Verdict => ({
  state: 'could-not-judge',
  findings: [],
  reason: { code, data },
});
