import dynamic from './dynamic.js';
import python from './python.js';

/** tool poisoning. The dynamic part scans the served texts; see dynamic.ts and patterns.ts. */
export default [dynamic, python];
