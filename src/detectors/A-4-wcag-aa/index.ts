import dynamic from './dynamic.js';
import staticPart from './static.js';

/** the dynamic part (dynamic.ts, which a probe that reads no package loads alone: detectors/live.ts), then the source part. */
export default [dynamic, staticPart];
