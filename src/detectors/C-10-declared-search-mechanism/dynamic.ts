import { declarationLive } from '../support/declarations/declarations-judge.js';
import { judgeSearch, MESSAGES } from './judge.js';

/** C-10, dynamic part: the same judge (judge.ts) over the declarations in the `_meta` of the tools served by tools/list. */
export default declarationLive('C-10', MESSAGES, judgeSearch);
