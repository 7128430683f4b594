import dynamic from './dynamic.js';

/** C-21 — progressive disclosure, measured (dynamic only); see dynamic.ts. */
export default [dynamic];
