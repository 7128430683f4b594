import dynamic from './dynamic.js';
import staticPart from './static.js';

/** C-6 — no secrets, personal data or internals in logs. The dynamic part reads the errors a server returns; see dynamic.ts. */
export default [dynamic, staticPart];
