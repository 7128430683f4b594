import { declarationParts } from '../support/declarations/declarations-support.js';
import dynamic from './dynamic.js';
import { judgeVerb, MESSAGES } from './judge.js';

export * from './judge.js';

/** C-9: the source part, then the dynamic part (dynamic.ts, which a probe that reads no package loads alone). */
export default declarationParts('C-9', MESSAGES, judgeVerb, { dynamic });
