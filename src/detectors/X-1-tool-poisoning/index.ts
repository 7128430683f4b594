import dynamic from './dynamic.js';
import python from './python.js';
import staticPart from './static.js';

/**
 * tool poisoning. The dynamic part scans the served texts (dynamic.ts, patterns.ts); two static parts
 * read the source, one per language: static.ts (JavaScript/TypeScript, with the dynamic part's judgeText)
 * and python.ts. In a repository with both languages both static parts judge, and any red one makes the
 * rule red.
 */
export default [dynamic, staticPart, python];
