import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../engine/paths.js';
import { runCli } from '../../test/support/run.js';

/**
 * The set probed for real: small MCP servers built with the SDK (fixtures/servers/catalog-server.mjs, each
 * serving the tools of one catalog file), configured in a scratch project's .mcp.json, started by
 * `mcp-doctor scan --probe` as a user would.
 */
const SERVERS = join(packageRoot(), 'src', 'scan', 'fixtures', 'servers');
const entry = (catalog: string, env?: Record<string, string>) => ({ command: process.execPath, args: [join(SERVERS, 'catalog-server.mjs'), join(SERVERS, `${catalog}.json`)], ...(env ? { env } : {}) });

interface JsonResult {
  ruleId: string;
  state: string;
  parts: { genre: string; state: string; reason?: { code: string } }[];
  findings: { messageId: string; data?: Record<string, string>; location?: { file: string; line: number } }[];
}

describe('scan --probe: the configured set judged across servers', () => {
  const roots: string[] = [];
  after(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
  const project = (servers: Record<string, unknown>): { dir: string; home: string } => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-doctor-set-'));
    roots.push(root);
    const dir = join(root, 'project');
    const home = join(root, 'home');
    mkdirSync(dir);
    mkdirSync(home);
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    return { dir, home };
  };
  const scan = async (p: { dir: string; home: string }, extra: string[] = []) => {
    const r = await runCli(['scan', '--project', p.dir, '--home', p.home, '--probe', '--format', 'json', '--quiet', ...extra]);
    const report = JSON.parse(r.stdout) as { results: JsonResult[]; scan: { servers: { name: string; probe?: string }[] } };
    return { code: r.code, report, rule: (id: string) => report.results.find((x) => x.ruleId === id)! };
  };

  it('red: notes + web together form a trifecta; a third server shadows the notes tool by name and by description', async () => {
    const p = project({ notes: entry('notes'), web: entry('web'), 'better-notes': entry('shadow') });
    const { code, report, rule } = await scan(p);
    assert.equal(code, 1);
    assert.deepEqual(report.scan.servers.map((s) => `${s.name}:${s.probe}`), ['notes:answered', 'web:answered', 'better-notes:answered']);
    const x8 = rule('X-8');
    assert.equal(x8.state, 'non-conforming');
    const set = x8.findings.find((f) => f.messageId === 'set-trifecta')!;
    assert.equal(set.data!.servers, 'better-notes, notes, web');
    assert.match(set.data!.private, /notes\/read_notes/);
    assert.equal(set.data!.outbound, 'web/fetch_url');
    assert.deepEqual(set.location, { file: '.mcp.json', line: 10 }); // the declaration of web, the outbound server
    const x2 = rule('X-2');
    assert.equal(x2.state, 'non-conforming');
    const ids = x2.findings.map((f) => `${f.messageId} ${f.data!.server}/${f.data!.tool} -> ${f.data!.otherServer}/${f.data!.otherTool}`).sort();
    assert.deepEqual(ids, ['set-lookalike better-notes/Read-Notes -> notes/read_notes', 'set-reference better-notes/Read-Notes -> notes/read_notes']);
  });

  it('green: notes + weather form no trifecta and shadow nothing; one server alone with the three legs is named as such', async () => {
    const p = project({ notes: entry('notes'), weather: entry('weather') });
    const { code, rule } = await scan(p);
    assert.equal(code, 0);
    assert.equal(rule('X-8').state, 'present');
    assert.equal(rule('X-2').state, 'present');
    assert.equal(rule('X-3').parts.find((x) => x.genre === 'dynamic')?.reason?.code, 'no-set-lock');

    const q = project({ mail: entry('mail'), weather: entry('weather') });
    const r = await scan(q);
    assert.deepEqual(r.rule('X-8').findings.map((f) => `${f.messageId} ${f.data!.tool}`), ['served-trifecta mail/fetch_url']);
  });

  it('could not judge: a configured server that cannot start leaves the set unjudged, with its name', async () => {
    const p = project({ notes: entry('notes'), gone: { command: join(SERVERS, 'no-such-program') } });
    const { report, rule } = await scan(p);
    assert.equal(report.scan.servers.find((s) => s.name === 'gone')?.probe, 'not-found');
    assert.equal(rule('X-8').state, 'could-not-judge');
    assert.equal(rule('X-8').parts[0]?.reason?.code, 'scan-servers-unprobed');
  });

  it('pin --scan locks the set; a server that serves something else later is reported per tool', async () => {
    const p = project({ notes: entry('notes'), weather: entry('weather') });
    const lockFile = join(p.dir, 'mcp-doctor.scan-lock.json');
    const pin = await runCli(['pin', '--scan', '--project', p.dir, '--home', p.home, '--quiet']);
    assert.equal(pin.code, 0, pin.stderr);
    const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { format: string; servers: { key: string; items: { key: string }[] }[] };
    assert.equal(lock.format, 'mcp-doctor-set-lock/1');
    assert.deepEqual(lock.servers.map((s) => `${s.key}:${s.items.map((i) => i.key).join(',')}`), ['claude-code:project:notes:read_notes', 'claude-code:project:weather:get_forecast']);

    const same = await scan(p);
    assert.equal(same.rule('X-3').state, 'present');
    // The same configured server now serves other descriptions (its configuration gives it another variant).
    writeFileSync(join(p.dir, '.mcp.json'), JSON.stringify({ mcpServers: { notes: entry('notes'), weather: entry('weather', { CATALOG_VARIANT: 'now also uploads your notes' }) } }, null, 2));
    const drift = await scan(p);
    assert.equal(drift.rule('X-3').state, 'non-conforming');
    assert.deepEqual(drift.rule('X-3').findings.map((f) => `${f.data!.server} ${f.data!.kind} ${f.data!.key} ${f.data!.change}`), ['weather tool get_forecast changed']);
  });
});
