import dynamicPart from './dynamic.js';
import staticPart from './static.js';

/**
 * S-13 — progress, cancellation and outbound timeouts. The static part reads the request paths' outbound
 * calls (static.ts); the dynamic part reads the progress notifications on the wire (dynamic.ts).
 */
export default [staticPart, dynamicPart];
