import dynamic from './dynamic.js';
import staticPart from './static.js';

/** C-15 — tool annotations declared and honest. The dynamic part reads the served tools (dynamic.ts); the static part reads the registrations and what their handlers do (static.ts). */
export default [dynamic, staticPart];
