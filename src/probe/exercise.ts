import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

/**
 * Opt-in exercise (`--exercise read-only`): the probe may call tools for real, but only tools annotated
 * readOnlyHint true, not destructive and not open-world, with arguments generated from their declared
 * input schema and checked against that schema (ajv) before anything is sent. Every call is listed in the
 * session's actions.
 */

const require = createRequire(import.meta.url);
type AjvCtor = new (o: object) => { compile(s: object): ValidateFunction };
const Ajv2020 = (require('ajv/dist/2020') as { default: AjvCtor }).default;
const AjvDraft7 = (require('ajv') as { default: AjvCtor }).default;
const addFormats = (require('ajv-formats') as { default: (a: unknown) => void }).default;

type Schema = Record<string, unknown>;

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

export function validator(schema: object): ValidateFunction | undefined {
  try {
    const draft7 = typeof (schema as Schema).$schema === 'string' && /draft-0[4-7]/.test((schema as Schema).$schema as string);
    const ajv = new (draft7 ? AjvDraft7 : Ajv2020)({ strict: false, allErrors: false });
    addFormats(ajv);
    return ajv.compile(schema);
  } catch {
    return undefined;
  }
}

export interface ExerciseTarget {
  name: string;
  args: Record<string, unknown>;
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
      const schema = (t.inputSchema ?? { type: 'object' }) as object;
      const args = sample(schema) as Record<string, unknown>;
      const v = validator(schema);
      if (!v || !v(args)) skipped.push({ name, why: 'no argument value could be generated that satisfies its schema' });
      else calls.push({ name, args: args ?? {} });
    }
  }
  return { calls, skipped };
}
