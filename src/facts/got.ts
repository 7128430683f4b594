import type { Reason } from '../engine/types.js';

/** A fact that was gathered, or the reason it could not be (the gate's inputs: facts/gate, facts/provenance). */
export type Got<T> = { ok: true; value: T } | { ok: false; reason: Reason };
