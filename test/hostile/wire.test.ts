import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { SessionFacts } from '../../src/facts/session.js';
import type { RecordedSession } from '../../src/probe/session.js';
import { CLEAN_TOOL, POISONED_TOOL, runCli, scratch, writeServer } from './support/servers.js';

/**
 * What a target puts on the wire (issue 10): two responses for one id — the client acts on the first, so the
 * first is judged and the duplicate is reported as data; a 100k-deep message — capped on intake and replaced by
 * a bounded note, so the rest of the session is still judged and saving the session works.
 */

const s = scratch();
after(() => s.cleanup());

type Json = Record<string, any>;
const DEPTH = 100_000;
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const rule = (rep: Json, id: string) => rep.results.find((r: Json) => r.ruleId === id);

/** A server that answers every tools/list twice, `first` then `second`. */
const duplicating = (name: string, first: unknown, second: unknown) =>
  writeServer(s, name, {
    onRequest: `  if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [${JSON.stringify(first)}] } });
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [${JSON.stringify(second)}] } });
    return;
  }`,
  });

describe('hostile: duplicate responses', () => {
  it('a poisoned first tools/list answer followed by a clean duplicate: X-1 judges the first (red), the duplicate is reported', async () => {
    const saved = s.file('dup.session.json');
    const r = await runCli(['probe', '--format', 'json', '--rules', 'X-1', '--save-session', saved, '--', process.execPath, duplicating('dup.mjs', POISONED_TOOL, CLEAN_TOOL), s.tag]);
    assert.equal(r.code, 1, r.stderr);
    const rep = JSON.parse(r.stdout) as Json;
    assert.equal(rule(rep, 'X-1').state, 'non-conforming');
    const notes = (rep.inputs?.notes ?? []) as Json[];
    assert.ok(notes.some((n) => n.kind === 'duplicate-response' && n.method === 'tools/list'), JSON.stringify(rep.inputs));
    const session = JSON.parse(readFileSync(saved, 'utf8')) as RecordedSession;
    assert.ok(session.connections.some((c) => c.notes?.some((n) => n.kind === 'duplicate-response')));
    // The Markdown report says it too, in both languages, from the saved session.
    const en = await runCli(['probe', '--from-session', saved, '--rules', 'X-1']);
    assert.match(en.stdout, /## Probe\n\n[^]*`?legacy`?: a second response came for request `\d+` \(`?tools\/list`?\)/);
    const fr = await runCli(['probe', '--from-session', saved, '--rules', 'X-1', '--locale', 'fr']);
    assert.match(fr.stdout, /## Sonde\n\n[^]*une seconde réponse est arrivée pour la requête/);
  });

  it('a clean first answer followed by a poisoned duplicate: the client never reads the duplicate, the live part of X-1 is present, the duplicate still reported', async () => {
    const r = await runCli(['probe', '--format', 'json', '--rules', 'X-1', '--', process.execPath, duplicating('dup-late.mjs', CLEAN_TOOL, POISONED_TOOL), s.tag]);
    assert.equal(r.code, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as Json;
    // The rule as a whole also has a static part that needs the package folder: the dynamic part is the one here.
    assert.equal(rule(rep, 'X-1').parts.find((p: Json) => p.genre === 'dynamic').state, 'present');
    assert.ok((rep.inputs?.notes ?? []).some((n: Json) => n.kind === 'duplicate-response'));
  });

  it('SessionFacts pairs each request with the first response carrying its id', () => {
    const session = {
      format: 'mcp-doctor-session/1',
      tool: { name: 'mcp-doctor', version: '0' },
      target: { transport: 'stdio', command: ['x'] },
      startedAt: new Date(0).toISOString(),
      durationMs: 0,
      actions: [],
      connections: [
        {
          label: 'legacy',
          outcome: 'answered',
          noise: [],
          stderr: '',
          truncated: false,
          durationMs: 0,
          messages: [
            { dir: 'out', at: 0, message: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
            { dir: 'in', at: 1, message: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'first' }] } } },
            { dir: 'in', at: 2, message: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'second' }] } } },
          ],
        },
      ],
    } as unknown as RecordedSession;
    const e = new SessionFacts(session).calls('legacy', 'tools/list')[0];
    assert.deepEqual(SessionFacts.result(e), { tools: [{ name: 'first' }] });
  });
});

describe('hostile: a 100k-deep message', () => {
  it('is capped on intake: the rest of the session is judged and --save-session works', { timeout: 120_000 }, async () => {
    const saved = s.file('deep.session.json');
    const file = writeServer(s, 'deep.mjs', {
      tools: [POISONED_TOOL],
      onRequest: `  if (msg.method === 'initialize') process.nextTick(() => process.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep(DEPTH)}}}\\n'));
  if (msg.method === 'tools/call') return process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(msg.id) + ',"result":{"content":${deep(DEPTH)}}}\\n');`,
    });
    const r = await runCli(['probe', '--format', 'json', '--save-session', saved, '--', process.execPath, file, s.tag]);
    assert.doesNotMatch(r.stderr, /call stack/i);
    assert.equal(r.code, 1, r.stderr);
    const rep = JSON.parse(r.stdout) as Json;
    assert.equal(rule(rep, 'X-1').state, 'non-conforming', 'the poisoned tool served next to the deep message is judged');
    assert.ok((rep.inputs?.notes ?? []).some((n: Json) => n.kind === 'message-too-deep'));
    const text = readFileSync(saved, 'utf8');
    assert.ok(text.length < 1024 * 1024, 'the saved session stays small');
    const session = JSON.parse(text) as RecordedSession;
    assert.ok(session.connections.some((c) => c.notes?.some((n) => n.kind === 'message-too-deep')));
  });

  it('a saved session carrying a 100k-deep message is judged again without blowing the stack', { timeout: 120_000 }, async () => {
    const file = writeServer(s, 'poisoned.mjs', { tools: [POISONED_TOOL] });
    const saved = s.file('plain.session.json');
    const first = await runCli(['probe', '--format', 'json', '--save-session', saved, '--', process.execPath, file, s.tag]);
    assert.equal(first.code, 1, first.stderr);
    // Splice a deep inbound message into the first connection, as text (JSON.stringify itself cannot write it).
    const crafted = s.file('crafted.session.json');
    const text = readFileSync(saved, 'utf8').replace('"messages": [', `"messages": [{"dir":"in","at":0,"message":{"jsonrpc":"2.0","method":"notifications/message","params":${deep(DEPTH)}}},`);
    writeFileSync(crafted, text);
    const again = await runCli(['probe', '--format', 'json', '--from-session', crafted, '--save-session', s.file('resaved.json')]);
    assert.doesNotMatch(again.stderr, /call stack/i);
    assert.equal(again.code, 1, again.stderr);
    assert.equal(rule(JSON.parse(again.stdout) as Json, 'X-1').state, 'non-conforming');
  });
});
