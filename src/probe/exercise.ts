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
 * Under the `app` opt-in: each App tool (a tool that links a View) called once the way a host that renders no UI
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
