import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { buildGateCase, type GateScenario } from './support/gate-tester.js';
import { runCli } from './support/run.js';

/**
 * `mcp-doctor gate` end to end: a real package made a git repository with its tag, packed by npm, judged by the
 * CLI with a saved registry metadata file and no network (--offline). Exit codes are those of audit.
 */
const fixtures = join(packageRoot(), 'src', 'detectors');
const tmps: string[] = [];
after(() => tmps.forEach((t) => rmSync(t, { recursive: true, force: true })));

async function build(rule: string, state: string, name: string) {
  const dir = join(fixtures, rule, 'fixtures', state, name);
  const scenario = JSON.parse(readFileSync(join(dir, 'gate.json'), 'utf8')) as GateScenario;
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-gate-cli-'));
  tmps.push(tmp);
  return { dir, ...(await buildGateCase(dir, scenario, tmp)) };
}

const gatePart = (stdout: string, id: string) => {
  const r = (JSON.parse(stdout) as { results: { ruleId: string; parts: { genre: string; state: string; reason?: { code: string } }[] }[] }).results.find((x) => x.ruleId === id)!;
  return r.parts.find((p) => p.genre === 'gate')!;
};

describe('mcp-doctor gate (CLI)', () => {
  it('a tag that is not the version is red: exit 1, the finding in the JSON report', async () => {
    const c = await build('C-7-obtain-pin-verify', 'non-conforming', 'gate-tag-not-version');
    const r = await runCli(['gate', c.root, '--offline', '--registry-metadata', join(c.dir, 'registry.json'), '--rules', 'C-7', '--format', 'json', '-q']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(gatePart(r.stdout, 'C-7').state, 'non-conforming');
    const rule = (JSON.parse(r.stdout) as { results: { ruleId: string; findings: { messageId: string; location?: { file: string } }[] }[] }).results.find((x) => x.ruleId === 'C-7')!;
    assert.deepEqual(rule.findings.filter((f) => f.messageId === 'tag-version-mismatch').map((f) => f.location?.file), ['package.json']);
  });
  it('a clean tagged tarball is green at the gate; offline without metadata, the registry part is could-not-judge', async () => {
    const c = await build('C-7-obtain-pin-verify', 'present', 'gate-tagged-clean-release');
    const ok = await runCli(['gate', c.root, '--tarball', c.tarball!, '--offline', '--registry-metadata', join(c.dir, 'registry.json'), '--rules', 'C-7,C-17', '--format', 'json', '-q']);
    assert.equal(gatePart(ok.stdout, 'C-7').state, 'present', ok.stderr);
    const offline = await runCli(['gate', c.root, '--offline', '--rules', 'C-7', '--format', 'json', '-q']);
    assert.equal(gatePart(offline.stdout, 'C-7').state, 'could-not-judge');
    assert.equal(gatePart(offline.stdout, 'C-7').reason?.code, 'registry-offline');
  });
  it('a catalogue named as a command is not started without --allow-catalog-command', async () => {
    const c = await build('C-14-catalogue-registration', 'present', 'gate-stable-release-registered');
    const r = await runCli(['gate', c.root, '--offline', '--rules', 'C-14', '--format', 'json', '-q']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(gatePart(r.stdout, 'C-14').reason?.code, 'catalog-command-not-allowed');
  });
  it('usage errors exit 2', async () => {
    assert.equal((await runCli(['gate', 'a', 'b'])).code, 2);
    assert.equal((await runCli(['gate', '.', '--ci', 'gitlab'])).code, 2);
    assert.equal((await runCli(['gate', '.', '--tarball', '/definitely/not/here.tgz'])).code, 2);
    assert.equal((await runCli(['gate', '/definitely/not/here'])).code, 2);
  });
});
