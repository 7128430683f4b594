import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';

/**
 * The reusable batch workflow (.github/workflows/batch.yml), checked with @action-validator/core (the
 * SchemaStore schema of GitHub workflows) and for what it promises: called with inputs, a matrix of shards
 * from the `shards` input, each shard running `batch --shard i/n` and uploading its output, a merge job that
 * downloads every shard and runs `merge`; actions pinned by commit; no expression expanded inside a script.
 */
const require = createRequire(import.meta.url);
const { validateWorkflow } = require('@action-validator/core') as typeof import('@action-validator/core');
const text = readFileSync(join(packageRoot(), '.github', 'workflows', 'batch.yml'), 'utf8');

describe('.github/workflows/batch.yml', () => {
  it('validates against the GitHub workflow schema, and the validator can fail on it', () => {
    assert.deepEqual(validateWorkflow(text).errors, []);
    assert.ok(validateWorkflow(text.replace('runs-on: ubuntu-latest', 'runs-on: [ubuntu-latest')).errors.length > 0);
    assert.ok(validateWorkflow(text.replace('workflow_call:', 'workflow_calls:')).errors.length > 0);
  });
  it('is reusable (workflow_call with a list and a number of shards) and runs the shards as a matrix', () => {
    assert.match(text, /^on:\n  workflow_call:\n    inputs:\n      list:\n/m);
    assert.match(text, /^      shards:\n(?:        .*\n)*?        type: number/m);
    assert.match(text, /shard: \$\{\{ fromJSON\(needs\.plan\.outputs\.shards\) \}\}/);
    assert.match(text, /batch "\$LIST" --output batch-out --shard "\$SHARD\/\$SHARDS"/);
    assert.match(text, /name: mcp-doctor-shard-\$\{\{ matrix\.shard \}\}/);
    assert.match(text, /pattern: mcp-doctor-shard-\*/);
    assert.match(text, /merge shards\/\* --output scoreboard/);
    assert.match(text, /needs: batch/);
  });
  it('pins every action by commit and never expands an expression inside a script', () => {
    const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)/gm)].map((m) => m[1]!);
    assert.ok(uses.some((u) => u.startsWith('actions/upload-artifact@')) && uses.some((u) => u.startsWith('actions/download-artifact@')));
    for (const u of uses) assert.match(u, /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/, `${u} is pinned to a commit`);
    const scripts = [...text.matchAll(/^(\s*)run: \|\n((?:\1  .*\n|\s*\n)+)/gm)].map((m) => m[2]!);
    assert.equal(scripts.length, 3);
    for (const s of scripts) assert.doesNotMatch(s, /\$\{\{/, 'inputs reach scripts through env');
  });
});
