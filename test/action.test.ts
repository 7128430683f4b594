import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';

/**
 * The GitHub Action (action.yml at the repository root), checked with @action-validator/core (the SchemaStore
 * schema of GitHub actions, compiled to WebAssembly) and for the house rules: every action it uses is pinned to
 * a commit, no input is expanded inside a shell script (inputs reach scripts as environment variables), the
 * SARIF of each run is uploaded with its own category, and the job fails on the exit code.
 */
const require = createRequire(import.meta.url);
const { validateAction } = require('@action-validator/core') as typeof import('@action-validator/core');
const text = readFileSync(join(packageRoot(), 'action.yml'), 'utf8');

describe('action.yml', () => {
  it('validates against the GitHub action schema', () => {
    const state = validateAction(text);
    assert.equal(state.actionType, 'action');
    assert.deepEqual(state.errors, []);
  });
  it('the validator does fail on a broken action (the check can fail)', () => {
    const broken = text.replace("using: 'composite'", "using: 'not-a-runtime'");
    assert.ok(validateAction(broken).errors.length > 0);
    assert.ok(validateAction('name: x\nruns:\n  steps: 3\n').errors.length > 0);
  });
  it('pins every action it uses to a full commit SHA', () => {
    const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)/gm)].map((m) => m[1]!);
    assert.ok(uses.length >= 2);
    for (const u of uses) assert.match(u, /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/, `${u} is pinned to a commit`);
    assert.ok(uses.some((u) => u.startsWith('github/codeql-action/upload-sarif@')));
  });
  it('never expands an input inside a shell script', () => {
    const scripts = [...text.matchAll(/^(\s*)run: \|\n((?:\1  .*\n|\s*\n)+)/gm)].map((m) => m[2]!);
    assert.ok(scripts.length >= 4);
    for (const s of scripts) assert.doesNotMatch(s, /\$\{\{/, 'expressions reach scripts through env, not inline');
  });
  it('writes SARIF for audit, probe and gate, uploads each with its category, and fails on the exit code', () => {
    for (const run of ['audit', 'probe', 'gate']) {
      assert.match(text, new RegExp(`--output "\\$OUT/${run}\\.sarif"`));
      assert.match(text, new RegExp(`category: mcp-doctor-${run}`));
    }
    assert.match(text, /--fail-on "\$FAIL_ON"/);
    assert.match(text, /exit "\$code"/);
  });
});
