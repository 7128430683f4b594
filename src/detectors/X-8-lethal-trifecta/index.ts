import dynamic from './dynamic.js';
import staticPart from './static.js';

/**
 * lethal trifecta in one server. Both parts sort tools into the three legs with the rules of legs.ts:
 * the static part from the source (static.ts), the dynamic part from the served definitions (dynamic.ts).
 * Across a set of configured servers, set.ts judges the same legs for `mcp-doctor scan --probe` (src/scan).
 */
export default [staticPart, dynamic];
