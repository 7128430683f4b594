import dynamic from './dynamic.js';
import staticPart from './static.js';

/**
 * cross-server shadowing. The dynamic part reads the served texts and tool names (dynamic.ts); the
 * static part reads the same texts from JavaScript/TypeScript source (static.ts). Both judge with judge.ts
 * over the registry of references.ts.
 */
export default [dynamic, staticPart];
