import dynamic from './dynamic.js';

/** C-19 — served tool descriptions, measured (dynamic only); see dynamic.ts. */
export default [dynamic];
