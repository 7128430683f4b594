import dynamic from './dynamic.js';

/** tool poisoning. The dynamic part scans the served texts; see dynamic.ts and patterns.ts. */
export default [dynamic];
