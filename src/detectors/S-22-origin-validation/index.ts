import dynamic from './dynamic.js';
import staticDetector from './static.js';
import python from './python.js';

/** S-22: the dynamic part (dynamic.ts, which a probe that reads no package loads alone: detectors/live.ts), then the source parts. */
export default [dynamic, staticDetector, python];
