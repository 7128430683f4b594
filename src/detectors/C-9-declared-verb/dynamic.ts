import { declarationLive } from '../support/declarations/declarations-judge.js';
import { judgeVerb, MESSAGES } from './judge.js';

/** C-9, dynamic part: the same judge (judge.ts) over the declarations in the `_meta` of the tools served by tools/list. */
export default declarationLive('C-9', MESSAGES, judgeVerb);
