import { defineDetector } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import type { SessionFacts } from '../../facts/session.js';
import { isObj, type Obj } from '../support/live/dynamic-support.js';
import { servedTools, toolName } from '../support/live/dynamic-text.js';
import { addHits, classifyTool, emptyLegs, isTrifecta, legEvidence, schemaFacts, toolList, type LegMap, type ToolView } from './legs.js';

/**
 * lethal trifecta in one server (dynamic). Every tool the running server serves (era that answered) is
 * classified with the rules of legs.ts from its served name, title, description, input schema property names
 * and annotations. Red when the server's tools together cover the three legs (private data, untrusted
 * content, outbound channel); the finding names the tools on each leg and links to the source line of an
 * outbound tool when the package is read with the session. A green verdict carries the count of tools per leg.
 */

/** What legs.ts reads of a served tool definition. */
export function servedToolView(t: Obj, context?: string): ToolView {
  const schema = isObj(t.inputSchema) ? t.inputSchema : {};
  const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
  const ann = isObj(t.annotations) ? t.annotations : {};
  const title = typeof t.title === 'string' ? t.title : typeof ann.title === 'string' ? ann.title : undefined;
  return {
    name: toolName(t),
    ...(title !== undefined ? { title } : {}),
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    properties: props,
    annotations: ann,
    ...schemaFacts(schema),
    ...(context ? { context } : {}),
  };
}

/** The legs of every tool a session served, or the could-not-judge verdict of servedTools. */
export function servedLegs(session: SessionFacts): { ok: true; legs: LegMap; tools: number } | { ok: false; verdict: Verdict } {
  const served = servedTools(session);
  if (!served.ok) return { ok: false, verdict: served.verdict };
  const legs = emptyLegs();
  // The server's served name says which product it wraps (legs.ts productOf).
  const context = (['modern', 'legacy'] as const).map((e) => session.serverInfo(e)?.name).find((n) => typeof n === 'string');
  for (const t of served.tools) addHits(legs, toolName(t), classifyTool(servedToolView(t, context)));
  return { ok: true, legs, tools: served.tools.length };
}

export default defineDetector({
  ruleId: 'X-8',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'served-trifecta': ['private', 'untrusted', 'outbound', 'tool'],
  },
  judge({ inputs: { session } }) {
    const r = servedLegs(session);
    if (!r.ok) return r.verdict;
    const { legs } = r;
    if (isTrifecta(legs)) {
      return {
        state: 'non-conforming',
        findings: [
          {
            messageId: 'served-trifecta',
            data: { private: toolList(legs.private), untrusted: toolList(legs.untrusted), outbound: toolList(legs.outbound), tool: [...legs.outbound.map((x) => x.tool)].sort()[0]! },
            evidence: legEvidence(legs),
          },
        ],
      };
    }
    return { state: 'present', findings: [], reason: { code: 'trifecta-legs', data: { private: legs.private.length, untrusted: legs.untrusted.length, outbound: legs.outbound.length, tools: r.tools, confirmed: 0 } } };
  },
});
