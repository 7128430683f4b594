import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog } from '../src/engine/catalog.js';
import { packageRoot } from '../src/engine/paths.js';
import { STATES } from '../src/engine/types.js';
import { runCli } from './support/run.js';

const fixture = (...p: string[]) => join(packageRoot(), 'src', 'detectors', ...p);
const red = fixture('C-1-bilingual', 'fixtures', 'absent', 'english-only');

describe('CLI contract', () => {
  it('rules --format json lists every rule with English and French titles', async () => {
    const r = await runCli(['rules', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { rules: { id: string; titles: Record<string, string>; detectors: string[] }[] };
    assert.equal(out.rules.length, loadCatalog().rules.length);
    assert.equal(out.rules.filter((x) => /^[CSAE]-/.test(x.id)).length, 62);
    for (const x of out.rules) {
      assert.ok(x.titles.en && x.titles.fr, x.id);
    }
    assert.deepEqual(out.rules.find((x) => x.id === 'C-1')!.detectors, ['static']);
  });
  it('explain answers in the asked language', async () => {
    const en = await runCli(['explain', 'C-1']);
    const fr = await runCli(['explain', 'c-1', '--locale', 'fr']);
    assert.equal(en.code, 0);
    assert.equal(fr.code, 0);
    assert.match(en.stdout, /## What it checks/);
    assert.match(fr.stdout, /## Ce que la règle vérifie/);
  });
  it('audit JSON report: the fixed contract, red findings located, exit 1', async () => {
    const r = await runCli(['audit', red, '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const rep = JSON.parse(r.stdout);
    assert.equal(rep.tool.name, 'mcp-doctor');
    assert.equal(typeof rep.tool.version, 'string');
    assert.equal(rep.locale, 'en');
    assert.ok(rep.target);
    const ids = rep.results.map((x: { ruleId: string }) => x.ruleId);
    assert.equal(new Set(ids).size, ids.length, 'each ruleId at most once');
    for (const x of rep.results) assert.ok((STATES as readonly string[]).includes(x.state), x.state);
    const c1 = rep.results.find((x: { ruleId: string }) => x.ruleId === 'C-1');
    assert.equal(c1.state, 'absent');
    assert.deepEqual(c1.findings.map((f: { location: unknown }) => f.location), [
      { file: 'README.md', line: 1 },
      { file: 'package.json', line: 4 },
    ]);
    for (const f of c1.findings) assert.ok(f.message && f.remediation && f.messageId);
  });
  it('the same report renders in French, and in Markdown grouped by state', async () => {
    const fr = await runCli(['audit', red, '--format', 'json', '--locale', 'fr', '--rules', 'C-1']);
    const rep = JSON.parse(fr.stdout);
    assert.equal(rep.locale, 'fr');
    assert.deepEqual(rep.results.map((x: { ruleId: string }) => x.ruleId), ['C-1']);
    const md = await runCli(['audit', red, '--rules', 'C-1,S-1']);
    assert.match(md.stdout, /## Publishing standard: red results \(1\)\n\n### C-1 — [^\n]*\(absent, warning\)/);
    assert.match(md.stdout, /`package\.json:4`/);
  });
  it('--fail-on none never fails on findings; a green rule exits 0', async () => {
    assert.equal((await runCli(['audit', red, '--fail-on', 'none'])).code, 0);
    assert.equal((await runCli(['audit', fixture('C-1-bilingual', 'fixtures', 'present', 'complete'), '--rules', 'C-1'])).code, 0);
  });
  it('usage errors exit 2; a probe that cannot run exits 3', async () => {
    assert.equal((await runCli(['audit'])).code, 2);
    assert.equal((await runCli(['audit', red, '--format', 'xml'])).code, 2);
    assert.equal((await runCli(['audit', red, '--rules', 'Z-9'])).code, 2);
    assert.equal((await runCli(['audit', '/definitely/not/here'])).code, 2);
    assert.equal((await runCli(['explain', 'C-999'])).code, 2);
    assert.equal((await runCli(['frobnicate'])).code, 2);
    assert.equal((await runCli(['probe', '--url', 'http://127.0.0.1:9/mcp'])).code, 3);
    assert.equal((await runCli(['probe'])).code, 2);
    assert.equal((await runCli(['probe', '--from-session', '/definitely/not/here.json'])).code, 2);
  });
});
