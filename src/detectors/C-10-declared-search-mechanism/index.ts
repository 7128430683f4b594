import { declarationParts } from '../support/declarations/declarations-support.js';
import dynamic from './dynamic.js';
import { judgeSearch, MESSAGES } from './judge.js';

export * from './judge.js';

/** C-10: the source part, then the dynamic part (dynamic.ts, which a probe that reads no package loads alone). */
export default declarationParts('C-10', MESSAGES, judgeSearch, { dynamic });
