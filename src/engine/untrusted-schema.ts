import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { RE2JS } from 're2js';

/**
 * JSON Schemas served by a target are untrusted input: the patterns they carry (`pattern`, the keys of
 * `patternProperties`, `propertyNames.pattern`) are regular expressions written by the target, and a
 * backtracking engine can spend hours on one of them (`(a+)+$` on a long string) inside a synchronous call
 * that no timeout interrupts. Every schema that comes from a target is compiled here, with ajv's pattern
 * engine replaced by RE2 (re2js, pure JavaScript): matching takes time linear in the input for every
 * pattern it accepts. A pattern RE2 cannot run (backreferences, lookarounds) is never handed to the
 * backtracking engine: validation says so and names the pattern.
 *
 * RE2 follows ECMAScript closely for the patterns schemas use; known differences: `\s` is ASCII white space
 * only, and `.` also matches `\r`, U+2028 and U+2029.
 *
 * Bounds: a pattern whose compiled program is larger than MAX_PROGRAM is not run, and one match costs at
 * most MAX_STEPS (program size × input length), else the value is not evaluated. `uniqueItems` over
 * objects is quadratic in ajv: a schema that uses it is not run on arrays longer than MAX_UNIQUE_ITEMS.
 */

const require = createRequire(import.meta.url);
type AjvInstance = { compile(s: object): ValidateFunction; errorsText(e?: unknown): string };
type AjvCtor = new (o: object) => AjvInstance;
/** ajv and re2js are loaded on first use: most runs (a static audit, a probe without --exercise) never need them. */
let libs: { Ajv2020: AjvCtor; AjvDraft7: AjvCtor; addFormats: (a: unknown) => void; RE2JS: typeof RE2JS } | undefined;
function load() {
  libs ??= {
    Ajv2020: (require('ajv/dist/2020') as { default: AjvCtor }).default,
    AjvDraft7: (require('ajv') as { default: AjvCtor }).default,
    addFormats: (require('ajv-formats') as { default: (a: unknown) => void }).default,
    RE2JS: (require('re2js') as { RE2JS: typeof RE2JS }).RE2JS,
  };
  return libs;
}

export const MAX_PROGRAM = 4000;
export const MAX_STEPS = 50_000_000;
export const MAX_UNIQUE_ITEMS = 2000;
/** The longest pattern quoted back in a reason. */
const QUOTED = 200;

export type NotEvaluatedCause = 'unsupported' | 'too-large' | 'input-too-long' | 'too-costly' | 'schema-unreadable';

/** Why a served schema (or one value against it) was not evaluated. Data only; the faces render it. */
export interface NotEvaluated {
  cause: NotEvaluatedCause;
  /** The pattern concerned, cut to a bounded length (text from the target: render it inertly). */
  pattern?: string;
  detail?: string;
}

export class PatternNotEvaluated extends Error {
  constructor(readonly why: NotEvaluated) {
    super(`pattern not evaluated (${why.cause})`);
  }
}

const cut = (s: string) => ([...s].length > QUOTED ? [...s].slice(0, QUOTED).join('') + '…' : s);

/** A pattern compiled by RE2: what ajv calls for `pattern` and `patternProperties` (it only uses test()). */
class LinearPattern {
  private readonly re: RE2JS;
  private readonly size: number;

  constructor(private readonly source: string) {
    try {
      const { RE2JS: R } = load();
      this.re = R.compile(R.translateRegExp(source));
    } catch (e) {
      throw new PatternNotEvaluated({ cause: 'unsupported', pattern: cut(source), detail: (e as Error).message.slice(0, QUOTED) });
    }
    this.size = this.re.programSize();
    if (this.size > MAX_PROGRAM) throw new PatternNotEvaluated({ cause: 'too-large', pattern: cut(source) });
  }

  test(s: string): boolean {
    if (s.length * this.size > MAX_STEPS) throw new PatternNotEvaluated({ cause: 'input-too-long', pattern: cut(this.source) });
    return this.re.test(s);
  }

  toString(): string {
    return `re2:${this.source}`;
  }
}

/** ajv's `code.regExp` option: (source, flags) => { test }. The flags (`u`) are RE2's default behaviour. */
const linearRegExp = Object.assign((source: string) => new LinearPattern(source), { code: 'mcp-doctor linear RegExp (re2js)' });

export type Dialect = 'draft-07' | '2020-12';

/** The dialect a served schema asks for: draft-04..07 by its `$schema`, otherwise 2020-12 (MCP's default). */
export const dialectOf = (schema: object): Dialect => {
  const s = (schema as { $schema?: unknown }).$schema;
  return typeof s === 'string' && /draft-0[4-7]/.test(s) ? 'draft-07' : '2020-12';
};

function makeAjv(dialect: Dialect, o: { allErrors?: boolean; validateSchema?: boolean }): AjvInstance {
  const { Ajv2020, AjvDraft7, addFormats } = load();
  const ajv = new (dialect === 'draft-07' ? AjvDraft7 : Ajv2020)({
    strict: false,
    strictSchema: false,
    // ajv runs patternProperties keys with `new RegExp` against property names at compile time in strict mode.
    allowMatchingProperties: true,
    $data: false,
    allErrors: !!o.allErrors,
    ...(o.validateSchema === false ? { validateSchema: false } : {}),
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return ajv;
}

export type Validation = { valid: true } | { valid: false; errors: string } | { valid: 'not-evaluated'; why: NotEvaluated };

export type UntrustedValidator = (data: unknown) => Validation;

export type CompiledSchema = { ok: true; validate: UntrustedValidator } | { ok: false; why: NotEvaluated };

/** Whether `uniqueItems` appears anywhere in the schema (walked iteratively, bounded). */
function usesUniqueItems(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  for (let seen = 0; stack.length && seen < 100_000; seen++) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v) && (v as Record<string, unknown>).uniqueItems === true) return true;
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) stack.push(x);
  }
  return false;
}

/** The longest array in a value (walked iteratively, bounded). */
function longestArray(data: unknown): number {
  let max = 0;
  const stack: unknown[] = [data];
  for (let seen = 0; stack.length && seen < 1_000_000; seen++) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) max = Math.max(max, v.length);
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) stack.push(x);
  }
  return max;
}

/**
 * Compile a schema that a target served. Never runs a target's pattern with the backtracking engine: a
 * pattern RE2 cannot compile makes the whole schema not evaluated, with the pattern named.
 */
export function compileUntrusted(schema: object, o: { dialect?: Dialect; allErrors?: boolean; validateSchema?: boolean } = {}): CompiledSchema {
  const ajv = makeAjv(o.dialect ?? dialectOf(schema), o);
  let fn: ValidateFunction;
  try {
    fn = ajv.compile(schema);
  } catch (e) {
    if (e instanceof PatternNotEvaluated) return { ok: false, why: e.why };
    return { ok: false, why: { cause: 'schema-unreadable', detail: String((e as Error)?.message ?? e).slice(0, QUOTED) } };
  }
  const unique = usesUniqueItems(schema);
  return {
    ok: true,
    validate: (data) => {
      if (unique && longestArray(data) > MAX_UNIQUE_ITEMS) return { valid: 'not-evaluated', why: { cause: 'too-costly', detail: 'uniqueItems' } };
      try {
        return fn(data) ? { valid: true } : { valid: false, errors: ajv.errorsText(fn.errors) };
      } catch (e) {
        if (e instanceof PatternNotEvaluated) return { valid: 'not-evaluated', why: e.why };
        return { valid: 'not-evaluated', why: { cause: 'schema-unreadable', detail: String((e as Error)?.message ?? e).slice(0, QUOTED) } };
      }
    },
  };
}
