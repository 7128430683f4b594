import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { SessionFacts } from '../../facts/session.js';
import type { ConnectionLabel, JsonRpc } from '../../probe/session.js';
import { isObj, short, type Obj } from '../support/live/dynamic-support.js';
import { sensitiveName, sensitiveText } from './sensitive.js';

/**
 * S-27, dynamic part: what the server asks the user for during the probe, read from the raw messages.
 *
 * The probe declares form elicitation (legacy `initialize` on stdio, and the modern envelope) and declines
 * every `elicitation/create`; it never answers an `input_required` result. Elicitations seen:
 *   - server-to-client `elicitation/create` requests on a connection (2025 era), attributed to the
 *     `tools/call` that was open when they arrived;
 *   - modern `tools/call` results with `resultType: "input_required"` whose `inputRequests` hold an
 *     `elicitation/create`.
 * Red:
 *   - 'sensitive-field-requested': a form field of a requested schema asks for a secret, a credential,
 *     payment or health data (by its name, title or description; the same vocabulary as the static part).
 *     URL-mode elicitation is the specification's channel for such input and is not judged;
 *   - 'no-elicitation-fallback': a tool asks for input through `input_required` in 2026-07-28, the server
 *     also serves 2025-06-18, the probe (declaring form elicitation there) made the same call with the same
 *     arguments (scenario.ts repeats it), and no `elicitation/create` came, while the
 *     server's instructions say nothing about elicitation (the floor offers no way to ask).
 * could-not-judge: no elicitation was seen ('no-elicitation-seen': the calls made may not reach one), or the
 * fallback could not be observed because the tool was not called in the legacy era ('fallback-not-exercised').
 */

interface Ask {
  era: ConnectionLabel;
  tool: string;
  params: Obj;
  /** The arguments of the call that asked (modern input_required only). */
  args?: string;
}

const toolOf = (req: JsonRpc | undefined): string => {
  const p = req && isObj(req.params) ? req.params : {};
  return typeof p.name === 'string' ? p.name : '?';
};

const argsOf = (req: JsonRpc | undefined): string => JSON.stringify(req && isObj(req.params) ? (req.params.arguments ?? {}) : {});

/** Did the probe's 2025 initialize declare form elicitation (read from the raw request)? */
function legacyDeclaresElicitation(session: SessionFacts): boolean {
  const init = session.calls('legacy', 'initialize')[0]?.request;
  const caps = init && isObj(init.params) && isObj(init.params.capabilities) ? init.params.capabilities : {};
  return isObj(caps.elicitation);
}

/** Server-to-client elicitation requests, with the tools/call open when each arrived. */
function wireAsks(session: SessionFacts): Ask[] {
  const out: Ask[] = [];
  for (const c of session.session.connections) {
    const open = new Map<unknown, JsonRpc>();
    for (const m of c.messages) {
      const msg = m.message;
      if (m.dir === 'out' && msg.method === 'tools/call' && msg.id != null) open.set(msg.id, msg);
      else if (m.dir === 'in' && msg.method === undefined && msg.id != null) open.delete(msg.id);
      else if (m.dir === 'in' && msg.method === 'elicitation/create' && isObj(msg.params)) {
        const last = [...open.values()].pop();
        out.push({ era: c.label, tool: toolOf(last), params: msg.params });
      }
    }
    for (const ex of c.http ?? []) {
      for (const msg of ex.response?.messages ?? []) {
        if (msg.method === 'elicitation/create' && isObj(msg.params)) out.push({ era: c.label, tool: '?', params: msg.params });
      }
    }
  }
  return out;
}

/** Modern input_required results that hold elicitations. */
function mrtrAsks(session: SessionFacts): Ask[] {
  const out: Ask[] = [];
  for (const e of session.calls('modern', 'tools/call')) {
    const r = e.response && isObj(e.response.result) ? e.response.result : undefined;
    if (!r || r.resultType !== 'input_required' || !isObj(r.inputRequests)) continue;
    for (const key of Object.keys(r.inputRequests).sort()) {
      const req = r.inputRequests[key];
      if (isObj(req) && req.method === 'elicitation/create' && isObj(req.params)) out.push({ era: 'modern', tool: toolOf(e.request), params: req.params, args: argsOf(e.request) });
    }
  }
  return out;
}

function sensitiveFields(ask: Ask): Finding[] {
  if (ask.params.mode === 'url') return [];
  const schema = isObj(ask.params.requestedSchema) ? ask.params.requestedSchema : undefined;
  const props = schema && isObj(schema.properties) ? schema.properties : {};
  const out: Finding[] = [];
  for (const name of Object.keys(props).sort()) {
    const def = isObj(props[name]) ? (props[name] as Obj) : {};
    const texts = [def.title, def.description].filter((t): t is string => typeof t === 'string');
    const what = sensitiveName(name) ?? texts.map(sensitiveText).find((x) => x !== undefined);
    if (what) out.push({ messageId: 'sensitive-field-requested', data: { tool: ask.tool, field: short(name, 64), what, era: ask.era }, evidence: short(name, 200) });
  }
  return out;
}

/** Does the server say, where a 2025 client reads it, that mid-call questions need 2026-07-28? */
function declaresLimit(session: SessionFacts): boolean {
  const o = session.opening('legacy');
  const text = typeof o?.instructions === 'string' ? o.instructions : '';
  return /elicitation|input_required|2026-07-28/i.test(text);
}

export default defineDetector({
  ruleId: 'S-27',
  genre: 'dynamic',
  needs: ['session'],
  messages: { 'sensitive-field-requested': ['tool', 'field', 'what', 'era'], 'no-elicitation-fallback': ['tool'] },
  judge({ inputs: { session } }): Verdict {
    const wire = wireAsks(session);
    const mrtr = mrtrAsks(session);
    const asks = [...mrtr, ...wire];
    if (asks.length === 0) return couldNotJudge('no-elicitation-seen');
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const a of asks) {
      for (const f of sensitiveFields(a)) {
        const key = `${f.data!.tool}:${f.data!.field}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push(f);
      }
    }
    // The floor: each tool that asks through input_required, seen again in the 2025 era.
    const unexercised: string[] = [];
    if (session.answered('legacy')) {
      const legacyCalls = new Set(session.calls('legacy', 'tools/call').map((e) => `${toolOf(e.request)} ${argsOf(e.request)}`));
      const legacyAsked = new Set(wire.filter((a) => a.era === 'legacy').map((a) => a.tool));
      const canAsk = legacyDeclaresElicitation(session);
      const byTool = new Map<string, Ask>();
      for (const a of mrtr) if (!byTool.has(a.tool)) byTool.set(a.tool, a);
      for (const [tool, a] of [...byTool].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
        if (!canAsk || !legacyCalls.has(`${tool} ${a.args}`)) unexercised.push(tool);
        else if (!legacyAsked.has(tool) && !declaresLimit(session)) findings.push({ messageId: 'no-elicitation-fallback', data: { tool } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (unexercised.length) return couldNotJudge('fallback-not-exercised', { tools: unexercised.join(', '), count: unexercised.length });
    return present();
  },
});
