import dynamic from './dynamic.js';
import staticPart from './static.js';

/** C-4 — typed input and output schemas. The dynamic part reads the served JSON Schemas; see dynamic.ts. */
export default [dynamic, staticPart];
