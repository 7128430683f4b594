import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { compileUntrusted, type NotEvaluated } from '../../engine/untrusted-schema.js';
import { SessionFacts, type Exchange } from '../../facts/session.js';
import type { ConnectionLabel } from '../../probe/session.js';
import { SKIP_INVALID_ARGUMENTS, UNKNOWN_TOOL } from '../../probe/scenario.js';
import { evidenceOf, isObj, noEraServed, paramsOf, short, type Obj } from '../support/live/dynamic-support.js';

/**
 * S-11 — result contract, structured output and distinct errors (dynamic part). Reads the raw tools/call
 * exchanges the probe made in each era: the unknown tool must get a JSON-RPC error, not a result, and not one whose
 * code JSON-RPC defines for another failure of the request (-32601, -32600, -32700) when the server serves tools; the call
 * with schema-invalid arguments must get an isError result or an integer protocol error that does not name another
 * failure (wrongMeaning); every error code on the wire must be
 * an integer outside the range the specification reserves (-32099..-32020), unless the specification
 * defines it there. The invalid-arguments call is an opt-in (a server that does not validate would run the
 * handler): when the probe recorded that it left it out, the part stays could-not-judge and says how to send it. A structuredContent the probe saw (opt-in calls) is validated against the tool's
 * outputSchema (JSON Schema 2020-12) and needs a text block beside it; one on an error result (isError) needs the
 * declared outputSchema and the text block, and is not validated against the schema.
 */
const RESERVED = { low: -32099, high: -32020 };
/** Codes the specification defines inside the reserved range: HeaderMismatch, MissingRequiredClientCapability,
 * UnsupportedProtocolVersion, UrlElicitationRequired. */
const DEFINED_RESERVED: ReadonlySet<number> = new Set([-32020, -32021, -32022, -32042]);
const INVALID_PARAMS = -32602;
const ERAS: ConnectionLabel[] = ['modern', 'legacy', 'negotiation'];

/**
 * The standard asks for a protocol error with an integer code on schema-invalid arguments (-32602 is the
 * specification's example). A code that is not an integer, or a JSON-RPC code defined for another failure of the
 * request itself (parse error, invalid request, method not found), says something false about the call; an
 * internal error (-32603) or a server-defined code outside the reserved range is an integer protocol error.
 */
export const OTHER_MEANING: ReadonlySet<number> = new Set([-32700, -32600, -32601]);
const wrongMeaning = (code: unknown): boolean => code !== INVALID_PARAMS && (typeof code !== 'number' || !Number.isInteger(code) || OTHER_MEANING.has(code));
const inReserved = (code: number) => code >= RESERVED.low && code <= RESERVED.high;
/** An integer code in the reserved range that the specification does not define there (the source parts, JS and Python, judge literals with it). */
export const reservedUnknown = (c: number): boolean => Number.isInteger(c) && inReserved(c) && !DEFINED_RESERVED.has(c);

/**
 * Validate a value against a served JSON Schema; the dialect keyword is dropped so draft-07 schemas load too.
 * The target wrote both the schema and the value: its patterns run on a linear-time engine, and a pattern
 * that engine cannot run leaves the value not evaluated (never the backtracking engine).
 */
function validate(schema: Obj, value: unknown): { ok: true } | { ok: false; errors: string } | { ok: 'not-evaluated'; why: NotEvaluated } {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  const c = compileUntrusted(rest, { dialect: '2020-12', allErrors: true, validateSchema: false });
  if (!c.ok) return c.why.cause === 'schema-unreadable' ? { ok: false, errors: c.why.detail ?? '' } : { ok: 'not-evaluated', why: c.why };
  const v = c.validate(value);
  if (v.valid === true) return { ok: true };
  if (v.valid === false) return { ok: false, errors: v.errors };
  return { ok: 'not-evaluated', why: v.why };
}

/** The call the probe made with schema-invalid arguments, from its recorded action ("<tool> <json args>"). */
function isInvalidArgumentsCall(e: Exchange, details: Set<string>): boolean {
  const p = paramsOf(e);
  return typeof p.name === 'string' && p.name !== UNKNOWN_TOOL && details.has(`${p.name} ${JSON.stringify(p.arguments)}`);
}

export default defineDetector({
  ruleId: 'S-11',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'unknown-tool-result': ['era', 'tool'],
    'unknown-tool-wrong-code': ['era', 'tool', 'code'],
    'reserved-error-code': ['era', 'method', 'code'],
    'error-code-not-integer': ['era', 'method'],
    'invalid-arguments-accepted': ['era', 'tool'],
    'invalid-arguments-wrong-code': ['era', 'tool', 'code'],
    'structured-without-schema': ['era', 'tool'],
    'structured-content-invalid': ['era', 'tool'],
    'structured-without-text': ['era', 'tool'],
  },
  judge({ inputs: { session } }) {
    const unread = noEraServed(session);
    if (unread) return unread;
    const details = new Set(session.session.actions.filter((a) => a.kind === 'call-invalid-arguments').map((a) => a.detail));
    const findings: Finding[] = [];
    const keys = new Set<string>();
    const add = (f: Finding) => {
      const k = `${f.messageId}|${JSON.stringify(f.data)}`;
      if (!keys.has(k)) keys.add(k), findings.push(f);
    };
    let calls = 0;
    /** The first structured result whose schema could not be run (a pattern the linear engine refuses…). */
    let notEvaluated: { tool: string; cause: string; pattern?: string } | undefined;

    for (const era of ERAS) {
      const exchanges = session.exchanges(era);
      // Every error code on the wire.
      for (const e of exchanges) {
        const err = SessionFacts.error(e);
        if (!err) continue;
        const method = String(e.request.method);
        if (typeof err.code !== 'number' || !Number.isInteger(err.code)) {
          add({ messageId: 'error-code-not-integer', data: { era, method }, evidence: evidenceOf(err.code ?? null) });
        } else if (inReserved(err.code) && !DEFINED_RESERVED.has(err.code)) {
          add({ messageId: 'reserved-error-code', data: { era, method, code: String(err.code) } });
        }
      }
      const tools = new Map(session.listed(era, 'tools/list').map((t) => [t.name, t] as const));
      for (const e of exchanges.filter((x) => x.request.method === 'tools/call' && x.response)) {
        calls++;
        const name = paramsOf(e).name;
        const tool = short(name);
        const result = SessionFacts.result(e);
        const err = SessionFacts.error(e);
        if (name === UNKNOWN_TOOL) {
          if (result) add({ messageId: 'unknown-tool-result', data: { era, tool } });
          // -32601 (method not found), -32600, -32700 say the request itself failed; a server that serves tools has tools/call.
          else if (typeof err?.code === 'number' && OTHER_MEANING.has(err.code) && tools.size > 0) add({ messageId: 'unknown-tool-wrong-code', data: { era, tool, code: String(err.code) } });
          // A code the specification defines in the reserved range means something else than "unknown tool".
          else if (typeof err?.code === 'number' && inReserved(err.code)) add({ messageId: 'reserved-error-code', data: { era, method: 'tools/call', code: String(err.code) } });
          continue;
        }
        if (isInvalidArgumentsCall(e, details)) {
          if (result && result.isError !== true) add({ messageId: 'invalid-arguments-accepted', data: { era, tool } });
          if (err && wrongMeaning(err.code)) add({ messageId: 'invalid-arguments-wrong-code', data: { era, tool, code: short(err.code ?? null) } });
        }
        // Structured output, when a call returned some. An error result (isError) carrying structuredContent is
        // structured output too: it needs a declared outputSchema and a text block, but its shape is not held to
        // the schema (the schema describes the tool's output, not its failures).
        if (!result || !isObj(result.structuredContent)) continue;
        const schema = tools.get(name)?.outputSchema;
        if (!isObj(schema)) add({ messageId: 'structured-without-schema', data: { era, tool } });
        else if (result.isError !== true) {
          const v = validate(schema, result.structuredContent);
          if (v.ok === 'not-evaluated') notEvaluated ??= { tool, cause: v.why.cause.replace(/-/g, '_'), ...(v.why.pattern !== undefined ? { pattern: v.why.pattern } : {}) };
          else if (!v.ok) add({ messageId: 'structured-content-invalid', data: { era, tool }, evidence: evidenceOf(v.errors, 300) });
        }
        const content = Array.isArray(result.content) ? result.content : [];
        if (!content.some((c) => isObj(c) && c.type === 'text')) add({ messageId: 'structured-without-text', data: { era, tool } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (calls === 0) return couldNotJudge('no-tool-call-observed');
    if (notEvaluated) return couldNotJudge('schema-not-evaluated', { ...notEvaluated, pattern: notEvaluated.pattern ?? '' });
    const skipped = session.session.actions.find((a) => a.kind === SKIP_INVALID_ARGUMENTS);
    if (skipped && details.size === 0) return couldNotJudge('invalid-arguments-not-sent', { tool: short(skipped.detail) });
    return present();
  },
});
