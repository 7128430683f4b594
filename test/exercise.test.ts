import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plan, sample, validator, variedArguments } from '../src/probe/exercise.js';

describe('opt-in exercise of read-only tools', () => {
  it('generates schema-valid minimal arguments', () => {
    const schema = {
      type: 'object',
      properties: { q: { type: 'string', minLength: 12 }, n: { type: 'integer', minimum: -9007199254740991, maximum: 50 }, kind: { enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['q', 'n', 'kind', 'tags'],
    };
    const args = sample(schema);
    assert.deepEqual(args, { q: 'mcp-doctorxx', n: 1, kind: 'a', tags: ['mcp-doctor'] });
    const v = validator(schema);
    assert.equal(typeof v === 'function' && v(args).valid, true);
  });
  it('calls only read-only, non-destructive, closed-world tools whose arguments validate', () => {
    const ro = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    const { calls, skipped } = plan([
      { name: 'ok_tool', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, annotations: ro },
      { name: 'writer', inputSchema: { type: 'object' }, annotations: { ...ro, readOnlyHint: false } },
      { name: 'net', inputSchema: { type: 'object' }, annotations: { ...ro, openWorldHint: true } },
      { name: 'unannotated', inputSchema: { type: 'object' } },
      { name: 'patterned', inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]{8}$' } }, required: ['id'] }, annotations: ro },
    ]);
    assert.deepEqual(calls, [{ name: 'ok_tool', args: { a: 1 } }]);
    assert.deepEqual(skipped.map((s) => s.name), ['writer', 'net', 'unannotated', 'patterned']);
  });
  it('varies an App tool\'s arguments within its schema, or gives none when nothing can vary (A-1)', () => {
    const schema = {
      type: 'object',
      properties: { shape: { enum: ['cube', 'torus'] }, code: { type: 'string', pattern: '^[A-Z]{3}$' }, n: { type: 'integer', minimum: 1, maximum: 1 }, on: { type: 'boolean' } },
      required: ['shape'],
    };
    const first = sample(schema) as Record<string, unknown>;
    // The pattern rejects the varied string and the bounds leave n no other value: both stay out, the rest varies.
    assert.deepEqual(variedArguments({ inputSchema: schema }, first), { shape: 'torus', on: true });
    assert.equal(variedArguments({ inputSchema: { type: 'object', properties: {} } }, {}), undefined);
    assert.equal(variedArguments({ inputSchema: { type: 'object', properties: { k: { const: 'x' } }, required: ['k'] } }, { k: 'x' }), undefined);
  });
});
