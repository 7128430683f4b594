import staticPart from './static.js';
import python from './python.js';
import dynamicPart from './dynamic.js';

/** secret exposure. The static part reads the source and committed .env files; see static.ts and patterns.ts. The dynamic part reads
 * what the server sends (dynamic.ts). */
export default [staticPart, python, dynamicPart];
