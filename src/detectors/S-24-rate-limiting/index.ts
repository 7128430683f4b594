import staticPart from './static.js';

/** S-24 — every tool invocation is rate limited. Static: the rate guards on each tool's path; see static.ts. */
export default [staticPart];
