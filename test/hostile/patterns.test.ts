import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/engine/paths.js';
import { compileUntrusted, MAX_UNIQUE_ITEMS } from '../../src/engine/untrusted-schema.js';
import { plan } from '../../src/probe/exercise.js';
import { runCli } from '../support/run.js';

/**
 * Patterns written by the target. A served schema's `pattern` with catastrophic backtracking would hold the
 * probe (and the MCP server) at 100% CPU in one synchronous call: every such pattern runs on a linear-time
 * engine, and a pattern that engine cannot run is skipped with a reason, never run by the backtracking one.
 * A regression here shows as a test that never ends: each test has a generous deadline so the suite
 * reports it instead of hanging.
 */

const DEADLINE = { timeout: 240_000 };
const EVIL = ['(a+)+$', '^(a+)+$', '(x+x+)+y', '(a|aa)+$', '(.*a){25}$', '^(([a-z])+.)+[A-Z]([a-z])+$'];
const LONG = 'a'.repeat(100_000) + '!';

describe('served patterns run in linear time', () => {
  it('catastrophic patterns against long inputs finish, with the right answer', DEADLINE, () => {
    for (const pattern of EVIL) {
      const c = compileUntrusted({ type: 'string', pattern });
      assert.ok(c.ok, pattern);
      // None of these inputs matches (each ends where the pattern cannot): the worst case of backtracking.
      for (const input of [LONG, 'x'.repeat(100_000), 'a'.repeat(40) + '!']) assert.equal(c.validate(input).valid, false, `${pattern} on ${input.length} characters`);
    }
    // The same patterns still accept what they should (the engine is not a stub).
    assert.equal((compileUntrusted({ type: 'string', pattern: '^(a+)+$' }) as { validate: (d: unknown) => { valid: unknown } }).validate('a'.repeat(50_000)).valid, true);
    assert.equal((compileUntrusted({ type: 'string', pattern: '(x+x+)+y' }) as { validate: (d: unknown) => { valid: unknown } }).validate('x'.repeat(50_000) + 'y').valid, true);
  });
  it('patternProperties keys and propertyNames patterns too (ajv never tests them with new RegExp)', DEADLINE, () => {
    const key = 'a'.repeat(64) + '!';
    const schema = { type: 'object', properties: { [key]: { type: 'string' } }, patternProperties: { '^(a+)+$': { type: 'number' } }, propertyNames: { pattern: '^(a|aa)+$' } };
    const c = compileUntrusted(schema);
    assert.ok(c.ok);
    const v = c.validate({ [key]: 'x' });
    assert.equal(v.valid, false, 'the key does not match propertyNames');
  });
  it('a pattern the linear engine cannot run is not evaluated, with the pattern named (no fallback)', () => {
    for (const pattern of ['^(?!x)(a+)+$', '(a)\\1', '(?<=a)b', '\\d+(?=%)']) {
      const c = compileUntrusted({ type: 'object', properties: { v: { type: 'string', pattern } } });
      assert.equal(c.ok, false, pattern);
      assert.deepEqual(!c.ok && { cause: c.why.cause, pattern: c.why.pattern }, { cause: 'unsupported', pattern });
    }
  });
  it('work per match is bounded: a large program on a long value is not evaluated', () => {
    const c = compileUntrusted({ type: 'string', pattern: '[\\s\\S]{900}z' });
    assert.ok(c.ok);
    assert.deepEqual(c.validate('y'.repeat(1_000_000)), { valid: 'not-evaluated', why: { cause: 'input-too-long', pattern: '[\\s\\S]{900}z' } });
    assert.equal(c.validate('y'.repeat(1000)).valid, false);
  });
  it('uniqueItems over a long array of objects (quadratic in ajv) is not evaluated', () => {
    const c = compileUntrusted({ type: 'array', uniqueItems: true });
    assert.ok(c.ok);
    const many = Array.from({ length: MAX_UNIQUE_ITEMS + 1 }, (_, i) => ({ i }));
    assert.equal(c.validate(many).valid, 'not-evaluated');
    assert.equal(c.validate(many.slice(0, 10)).valid, true);
  });
  it('argument generation skips what it cannot evaluate, and says why', DEADLINE, () => {
    const ro = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    const { calls, skipped } = plan([
      { name: 'redos_input', inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 60, pattern: '(x+x+)+y' } }, required: ['q'] }, annotations: ro },
      { name: 'lookahead_input', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?=m)mcp' } }, required: ['q'] }, annotations: ro },
      { name: 'huge_min_length', inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 1e9 } }, required: ['q'] }, annotations: ro },
      { name: 'huge_min_items', inputSchema: { type: 'object', properties: { q: { type: 'array', minItems: 1e9 } }, required: ['q'] }, annotations: ro },
      { name: 'fine', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^mcp-(a+)+doctor$|^mcp-doctor$' } }, required: ['q'] }, annotations: ro },
    ]);
    assert.deepEqual(calls, [{ name: 'fine', args: { q: 'mcp-doctor' } }]);
    const why = Object.fromEntries(skipped.map((s) => [s.name, s.why]));
    assert.match(why.redos_input!, /no argument value/);
    assert.match(why.lookahead_input!, /not evaluated.*linear-time engine.*"\^\(\?=m\)mcp"/);
    assert.match(why.huge_min_length!, /no argument value/);
    assert.match(why.huge_min_items!, /no argument value/);
  });
});

describe('a real stdio server serving ReDoS patterns, through the real probe with --exercise', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-redos-'));
    const raw = pathToFileURL(join(packageRoot(), 'test', 'fixtures', 'servers', 'raw-stdio.mjs')).href;
    const ro = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    const config = {
      name: 'redos-server',
      tools: [
        // The probe's generated value for q is "mcp-doctor" padded with x: (x+x+)+y backtracks exponentially on it.
        { name: 'find_code', description: 'Finds a code.', inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 48, pattern: '(x+x+)+y' } }, required: ['q'] }, annotations: ro },
        { name: 'peek_code', description: 'Peeks at a code.', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?!x)(a+)+$' } } }, annotations: ro },
        {
          name: 'get_code',
          description: 'Returns the current code.',
          inputSchema: { type: 'object', properties: {} },
          outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] },
          annotations: ro,
        },
      ],
      results: { get_code: { content: [{ type: 'text', text: 'code ready' }], structuredContent: { code: 'a'.repeat(20_000) + '!' } } },
    };
    writeFileSync(join(dir, 'server.mjs'), `import { serve } from ${JSON.stringify(raw)};\nserve(${JSON.stringify(config)});\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  type Rep = { results: { ruleId: string; parts: { genre: string; state: string }[]; findings: { messageId: string }[] }[] };
  const s11 = (r: Rep) => r.results.find((x) => x.ruleId === 'S-11')!;

  it('the probe finishes, skips what it cannot evaluate, and S-11 judges the served output', DEADLINE, async () => {
    const saved = join(dir, 'session.json');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--exercise', 'read-only', '--save-session', saved, '--', process.execPath, join(dir, 'server.mjs')]);
    assert.equal(r.code, 1, r.stderr);
    const rep = JSON.parse(r.stdout) as Rep;
    assert.equal(s11(rep).parts.find((p) => p.genre === 'dynamic')!.state, 'non-conforming');
    assert.ok(s11(rep).findings.some((f) => f.messageId === 'structured-content-invalid'));
    const session = JSON.parse(readFileSync(saved, 'utf8')) as { actions: { kind: string; detail: string }[] };
    const detail = (kind: string, name: string) => session.actions.find((a) => a.kind === kind && a.detail.startsWith(name))?.detail;
    assert.match(detail('skip-tool', 'find_code') ?? '', /no argument value/);
    assert.match(detail('skip-tool', 'peek_code') ?? '', /not evaluated/);
    assert.ok(detail('call-read-only-tool', 'get_code'), 'the tool with a plain input was called');

    // The recorded session, judged again offline (audit of a recorded session), finishes the same way.
    const again = await runCli(['probe', '--format', 'json', '--rules', 'S-11', '--from-session', saved]);
    assert.equal(again.code, 1, again.stderr);
    assert.deepEqual(s11(JSON.parse(again.stdout) as Rep).findings.map((f) => f.messageId), s11(rep).findings.map((f) => f.messageId));
  });
});
