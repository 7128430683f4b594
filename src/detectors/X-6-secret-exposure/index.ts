import staticPart from './static.js';
import python from './python.js';

/** secret exposure. The static part reads the source and committed .env files; see static.ts and patterns.ts. */
export default [staticPart, python];
