import dynamic from './dynamic.js';

/** C-15 — tool annotations declared. The dynamic part reads the served tools; see dynamic.ts. */
export default [dynamic];
