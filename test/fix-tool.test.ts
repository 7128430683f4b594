import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { copyFixFixture, git } from './support/fix-copy.js';
import { MODERN, RawStdio } from './support/raw-stdio.js';

/**
 * fix_repository over stdio, read from the raw messages: without apply it returns the diff and writes nothing;
 * with apply, a client that cannot elicit gets the fixes on the explicit argument; a client that can is asked
 * first (an input_required result naming the files), and only an accepted answer bound to that very request
 * writes; a declined one writes nothing.
 */

type Msg = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), 'mcp-doctor-fix-tool-'));
after(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
const project = (): string => copyFixFixture('sdk-v2-weather', join(work, `p${n++}`));

const envelope = (caps: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  },
  ...extra,
});

async function call(c: RawStdio, caps: Record<string, unknown>, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Msg> {
  const m = (await c.request('tools/call', envelope(caps, { name: 'fix_repository', arguments: args, ...extra }), 120_000)) as Msg;
  assert.equal(m.error, undefined, JSON.stringify(m.error));
  return m.result;
}

describe('fix_repository', () => {
  it('returns the diff and writes nothing without apply; applies on the argument when the client cannot ask', async () => {
    const dir = project();
    const c = new RawStdio({}, { cwd: dir });
    try {
      const dry = await call(c, {}, { path: '.', rules: ['S-13'] });
      assert.equal(dry.isError, undefined);
      assert.equal(dry.structuredContent.applied, false);
      assert.match(dry.structuredContent.diff, /^\+.*AbortSignal\.timeout\(10000\)/m);
      assert.deepEqual([...new Set(dry.structuredContent.outcomes.map((o: Msg) => o.state))], ['planned']);
      assert.equal(git(dir, 'status', '--porcelain'), '');

      const applied = await call(c, {}, { path: '.', rules: ['S-13'], apply: true });
      assert.equal(applied.structuredContent.applied, true);
      assert.deepEqual(applied.structuredContent.written, ['src/weather.ts']);
      assert.equal(git(dir, 'status', '--porcelain').trim(), 'M src/weather.ts');

      // Now the tree has changes: refused without force, nothing asked, nothing written.
      const refused = await call(c, {}, { path: '.', rules: ['C-1'], apply: true });
      assert.equal(refused.isError, true);
      assert.equal(git(dir, 'status', '--porcelain').trim(), 'M src/weather.ts');
    } finally {
      await c.close();
    }
  });

  it('asks a client that can elicit, and writes only on an accepted answer to that request', async () => {
    const dir = project();
    const c = new RawStdio({}, { cwd: dir });
    const caps = { elicitation: { form: {} } };
    try {
      const asked = await call(c, caps, { path: '.', rules: ['S-13'], apply: true });
      assert.equal(asked.resultType, 'input_required');
      const req = asked.inputRequests.confirm_probe;
      assert.equal(req.method, 'elicitation/create');
      assert.match(req.params.message, /src\/weather\.ts/);
      assert.equal(git(dir, 'status', '--porcelain'), '', 'nothing written before the answer');

      const declined = await call(c, caps, { path: '.', rules: ['S-13'], apply: true }, { inputResponses: { confirm_probe: { action: 'decline' } }, requestState: asked.requestState });
      assert.equal(declined.isError, true);
      assert.equal(git(dir, 'status', '--porcelain'), '', 'nothing written on a declined answer');

      const again = await call(c, caps, { path: '.', rules: ['S-13'], apply: true });
      const accepted = await call(c, caps, { path: '.', rules: ['S-13'], apply: true }, { inputResponses: { confirm_probe: { action: 'accept', content: { run: true } } }, requestState: again.requestState });
      assert.equal(accepted.structuredContent.applied, true, JSON.stringify(accepted).slice(0, 400));
      assert.equal(git(dir, 'status', '--porcelain').trim(), 'M src/weather.ts');
    } finally {
      await c.close();
    }
  });
});
