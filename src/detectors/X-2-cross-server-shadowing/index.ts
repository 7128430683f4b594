import dynamic from './dynamic.js';

/** cross-server shadowing. The dynamic part reads the served texts and tool names; see dynamic.ts and references.ts. */
export default [dynamic];
