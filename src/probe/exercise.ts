import { compileUntrusted, type NotEvaluated, type UntrustedValidator } from '../engine/untrusted-schema.js';

/**
 * Opt-in exercise (`--exercise read-only`): the probe may call tools for real, but only tools annotated
 * readOnlyHint true, not destructive and not open-world, with arguments generated from their declared
 * input schema and checked against that schema (ajv, with the target's patterns run by a linear-time engine:
 * see engine/untrusted-schema.ts) before anything is sent. Every call is listed in the session's actions.
 */

type Schema = Record<string, unknown>;

/** Bounds on generated values: a served minLength or minItems of a billion must not allocate a billion. */
export const MAX_SAMPLE_LENGTH = 4096;
export const MAX_SAMPLE_ITEMS = 64;

/** A minimal value for a JSON Schema: required properties only, lower bounds, first enum value. */
export function sample(schema: unknown, depth = 0): unknown {
  if (depth > 6 || typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Schema;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return sample((s[k] as unknown[])[0], depth + 1);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type) {
    case 'string': {
      const min = typeof s.minLength === 'number' ? s.minLength : 1;
      if (!(min <= MAX_SAMPLE_LENGTH)) return undefined;
      const base = s.format === 'uri' || s.format === 'url' ? 'https://example.invalid/mcp-doctor' : s.format === 'email' ? 'probe@example.invalid' : 'mcp-doctor';
      return base.length >= min ? base : base.padEnd(min, 'x');
    }
    case 'integer':
    case 'number': {
      const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -Infinity;
      const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : Infinity;
      const v = Math.min(Math.max(1, lo), hi);
      return type === 'integer' ? Math.ceil(v) : v;
    }
    case 'boolean':
      return false;
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      if (!(n <= MAX_SAMPLE_ITEMS)) return undefined;
      return Array.from({ length: n }, () => sample(s.items, depth + 1));
    }
    case 'null':
      return null;
    case 'object':
    default: {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const req = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(req.map((k) => [k, sample(props[k], depth + 1)]));
    }
  }
}

/** A validator for a served schema, or why it cannot be evaluated (a pattern the linear engine cannot run…). */
export function validator(schema: object): UntrustedValidator | NotEvaluated {
  const c = compileUntrusted(schema);
  return c.ok ? c.validate : c.why;
}

/** Why a tool is skipped when its schema or its generated arguments could not be evaluated (recorded as data). */
export function notEvaluatedWhy(n: NotEvaluated): string {
  const what = { unsupported: 'a pattern the linear-time engine cannot run (backreference or lookaround)', 'too-large': 'a pattern too large to run', 'input-too-long': 'a pattern too costly to run on the generated value', 'too-costly': 'a check too costly to run', 'schema-unreadable': 'a schema ajv cannot compile' }[n.cause];
  return `its schema was not evaluated: ${what}${n.pattern !== undefined ? ` ${JSON.stringify(n.pattern)}` : ''}`;
}

export interface ExerciseTarget {
  name: string;
  args: Record<string, unknown>;
}

/** Schema-valid arguments generated for a served tool, or why none could be (recorded as data). */
function argumentsFor(t: Record<string, unknown>): { args: Record<string, unknown> } | { why: string } {
  const schema = (t.inputSchema ?? { type: 'object' }) as object;
  const args = sample(schema) as Record<string, unknown>;
  const v = validator(schema);
  const r = typeof v === 'function' ? v(args) : ({ valid: 'not-evaluated', why: v } as const);
  if (r.valid === 'not-evaluated') return { why: notEvaluatedWhy(r.why) };
  if (!r.valid) return { why: 'no argument value could be generated that satisfies its schema' };
  return { args: args ?? {} };
}

/** Tools safe to call under the read-only opt-in, with schema-valid arguments; the others are skipped (and why). */
export function plan(tools: Record<string, unknown>[]): { calls: ExerciseTarget[]; skipped: { name: string; why: string }[] } {
  const calls: ExerciseTarget[] = [];
  const skipped: { name: string; why: string }[] = [];
  for (const t of tools) {
    const name = typeof t.name === 'string' ? t.name : undefined;
    if (!name) continue;
    const a = (t.annotations ?? {}) as { readOnlyHint?: unknown; destructiveHint?: unknown; openWorldHint?: unknown };
    if (a.readOnlyHint !== true) skipped.push({ name, why: 'not annotated readOnlyHint: true' });
    else if (a.destructiveHint === true) skipped.push({ name, why: 'annotated destructive' });
    else if (a.openWorldHint !== false) skipped.push({ name, why: 'may reach the outside world (openWorldHint not false)' });
    else {
      const g = argumentsFor(t);
      if ('why' in g) skipped.push({ name, why: g.why });
      else calls.push({ name, args: g.args });
    }
  }
  return { calls, skipped };
}

/**
 * Under the `app` opt-in: each App tool (a tool that links a View) called (then once more with variedArguments) the way a host that renders no UI
 * calls it, to read the text fallback it returns (A-1). The user who opts in lets the App's own tools run (the
 * harness forwards the View's calls too); a tool annotated destructive is still never called, and one whose
 * arguments cannot be generated from its schema is skipped (and why).
 */
export function planApp(tools: Record<string, unknown>[], isAppTool: (t: Record<string, unknown>) => boolean): { calls: ExerciseTarget[]; skipped: { name: string; why: string }[] } {
  const calls: ExerciseTarget[] = [];
  const skipped: { name: string; why: string }[] = [];
  for (const t of tools) {
    const name = typeof t.name === 'string' ? t.name : undefined;
    if (!name || !isAppTool(t) || calls.some((c) => c.name === name)) continue;
    const a = (t.annotations ?? {}) as { destructiveHint?: unknown };
    if (a.destructiveHint === true) {
      skipped.push({ name, why: 'annotated destructive' });
      continue;
    }
    const g = argumentsFor(t);
    if ('why' in g) skipped.push({ name, why: g.why });
    else calls.push({ name, args: g.args });
  }
  return { calls, skipped };
}

/** How many top-level properties a varied call may set: a schema of a thousand properties is not filled whole. */
const MAX_VARIED_PROPERTIES = 32;

/**
 * Another value for a schema than sample's: the last enum member, true, a number other than sample's, a string of
 * other words, one array item. Undefined when the schema gives no other choice (a const).
 */
export function variedSample(schema: unknown, depth = 0): unknown {
  if (depth > 6 || typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Schema;
  if ('const' in s) return undefined;
  if (Array.isArray(s.enum)) return s.enum.length > 1 ? s.enum[s.enum.length - 1] : undefined;
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return variedSample((s[k] as unknown[])[0], depth + 1);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type) {
    case 'string': {
      const min = typeof s.minLength === 'number' ? s.minLength : 1;
      const max = typeof s.maxLength === 'number' ? s.maxLength : MAX_SAMPLE_LENGTH;
      if (!(min <= MAX_SAMPLE_LENGTH) || max < min) return undefined;
      const base = s.format === 'uri' || s.format === 'url' ? 'https://example.invalid/other-probe-value' : s.format === 'email' ? 'other@example.invalid' : 'other probe value';
      return (base.length >= min ? base : base.padEnd(min, 'y')).slice(0, Math.max(min, Math.min(max, base.length)));
    }
    case 'integer':
    case 'number': {
      const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -Infinity;
      const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : Infinity;
      const first = sample(s, depth);
      const pick = [7, hi, lo, 2].map((v) => (type === 'integer' ? Math.ceil(v) : v)).find((v) => Number.isFinite(v) && v >= lo && v <= hi && v !== first);
      return pick;
    }
    case 'boolean':
      return true;
    case 'array': {
      const n = Math.max(typeof s.minItems === 'number' ? s.minItems : 0, 1);
      if (!(n <= MAX_SAMPLE_ITEMS) || (typeof s.maxItems === 'number' && s.maxItems < n)) return undefined;
      const item = variedSample(s.items, depth + 1) ?? sample(s.items, depth + 1);
      return item === undefined ? undefined : Array.from({ length: n }, () => item);
    }
    case 'null':
      return undefined;
    case 'object':
    default: {
      const props = Object.entries((s.properties ?? {}) as Record<string, unknown>).slice(0, MAX_VARIED_PROPERTIES);
      const out: Record<string, unknown> = {};
      for (const [k, p] of props) {
        const v = variedSample(p, depth + 1);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
  }
}

/**
 * Schema-valid arguments unlike `first` (A-1: is an App tool's text the same whatever its input?): `first` with each
 * top-level property set in turn to its varied value, kept when the arguments still pass the schema. Undefined when
 * no property could be varied, or the schema cannot be evaluated.
 */
export function variedArguments(t: Record<string, unknown>, first: Record<string, unknown>): Record<string, unknown> | undefined {
  const schema = (t.inputSchema ?? { type: 'object' }) as object;
  const v = validator(schema);
  if (typeof v !== 'function') return undefined;
  const wanted = variedSample(schema);
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) return undefined;
  let args: Record<string, unknown> = { ...first };
  for (const [k, value] of Object.entries(wanted)) {
    if (JSON.stringify(first[k]) === JSON.stringify(value)) continue;
    const next = { ...args, [k]: value };
    if (v(next).valid === true) args = next;
  }
  return JSON.stringify(args) === JSON.stringify(first) ? undefined : args;
}
