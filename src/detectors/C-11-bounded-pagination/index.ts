import dynamicPart from './dynamic.js';
import staticPart from './static.js';

/** C-11 — bounded pagination enforced by the tool. The dynamic part probes a made-up cursor (dynamic.ts); the static part reads the list and search tools' page-size bounds and cursors in the source (static.ts). */
export default [dynamicPart, staticPart];
