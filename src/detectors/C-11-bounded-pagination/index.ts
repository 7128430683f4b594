import dynamicPart from './dynamic.js';

/** C-11 — bounded pagination enforced by the tool. The dynamic part probes a made-up cursor (dynamic.ts); the static half (declared cursor, default and maximum) has no detector yet. */
export default [dynamicPart];
