import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { runCli } from './support/run.js';

/**
 * The release gate on this repository itself, offline, as the release workflow runs it (without the network):
 * `mcp-doctor gate .` must not be red on its own C-7 / C-17 / C-22 gate parts, and whatever it cannot reach
 * offline is could-not-judge with a reason. Printed, so that a CI log shows what the gate said of us. A second
 * run gives the registry's answer for a package it has never seen (an empty packument): then C-17 reads the
 * release workflow, which must publish with provenance. The workflows under .github/workflows validate.
 */
const require = createRequire(import.meta.url);
const { validateWorkflow } = require('@action-validator/core') as typeof import('@action-validator/core');
const root = packageRoot();
const tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-self-gate-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Part { genre: string; state: string; reason?: { code: string; message?: string }; findings?: { messageId: string; data?: Record<string, unknown> }[] }
interface Result { ruleId: string; state: string; parts: Part[]; findings: { messageId: string; data?: Record<string, unknown> }[]; suppressed?: unknown }

const RULES = ['C-7', 'C-17', 'C-22', 'A-4', 'A-6'];

/** Files changed in the working tree since HEAD (a developer's uncommitted edits): C-7 rightly says they differ from the commit. */
const changedSinceHead = (): Set<string> => {
  try {
    const out = execFileSync('git', ['status', '--porcelain', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return new Set(out.split('\0').filter((r) => r.length > 3).map((r) => r.slice(3)));
  } catch {
    return new Set();
  }
};

function gateParts(stdout: string): Map<string, Part> {
  const results = (JSON.parse(stdout) as { results: Result[] }).results;
  const out = new Map<string, Part>();
  for (const id of RULES) {
    const result = results.find((r) => r.ruleId === id);
    assert.ok(result, `${id} is in the report`);
    // This repository hosts Apps (the harness) but serves none: the App rules do not apply to it, as a whole.
    if (id.startsWith('A-') && result.state === 'not-applicable' && result.parts.length === 0) {
      assert.equal((result as { reason?: { code?: string } }).reason?.code, 'kind-mismatch', `${id} not-applicable without the kind as its reason`);
      continue;
    }
    const part = result.parts.find((p) => p.genre === 'gate');
    assert.ok(part, `${id} has a gate part`);
    out.set(id, part);
  }
  return out;
}

describe('mcp-doctor gate on this repository', () => {
  it('offline: no red gate part of C-7, C-17, C-22, A-4, A-6; every could-not-judge carries a reason', async (t) => {
    const r = await runCli(['gate', '.', '--offline', '--rules', RULES.join(','), '--format', 'json', '-q'], { cwd: root, env: { GITHUB_ACTIONS: '', GITHUB_TOKEN: '', GH_TOKEN: '' } });
    assert.notEqual(r.code, 3, r.stderr);
    for (const [id, part] of gateParts(r.stdout)) {
      t.diagnostic(`self-gate ${id}: ${part.state}${part.reason ? ` (${part.reason.code}: ${part.reason.message ?? ''})` : ''}`);
      if (id === 'C-7' && part.state === 'non-conforming') {
        // Only an uncommitted edit may make the artefact differ from HEAD (never in CI, which runs on a clean clone).
        const changed = changedSinceHead();
        const gateIds = new Set(['tag-version-mismatch', 'artefact-differs', 'package-unpublished', 'version-unpublished', 'deprecated-without-replacement', 'published-tarball-differs']);
        for (const f of (part.findings ?? []).filter((x) => gateIds.has(x.messageId))) {
          assert.equal(f.messageId, 'artefact-differs', JSON.stringify(f));
          assert.ok(changed.has(String(f.data?.file)), `${String(f.data?.file)} differs from HEAD without an uncommitted edit`);
        }
        continue;
      }
      assert.ok(['present', 'could-not-judge', 'not-applicable'].includes(part.state), `${id} gate part is ${part.state}`);
      if (part.state !== 'present') assert.ok(part.reason?.code, `${id} ${part.state} without a reason`);
    }
  });
  it('before the first publication: the release workflow publishes with provenance, so C-17 is green', async () => {
    const meta = join(tmp, 'never-published.json');
    writeFileSync(meta, '{}');
    const r = await runCli(['gate', '.', '--offline', '--registry-metadata', meta, '--rules', RULES.join(','), '--format', 'json', '-q'], { cwd: root, env: { GITHUB_ACTIONS: '', GITHUB_TOKEN: '', GH_TOKEN: '' } });
    const part = gateParts(r.stdout).get('C-17');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
  it('the workflows under .github/workflows validate against the GitHub workflow schema and pin actions by commit', () => {
    const dir = join(root, '.github', 'workflows');
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
    assert.ok(files.includes('release-gate.yml'));
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      assert.deepEqual(validateWorkflow(text).errors, [], f);
      for (const m of text.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)/gm)) {
        if (m[1] === './') continue;
        assert.match(m[1]!, /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/, `${f}: ${m[1]} is pinned to a commit`);
      }
    }
    assert.ok(validateWorkflow('on: push\njobs: 3\n').errors.length > 0, 'the validator can fail');
  });
});
