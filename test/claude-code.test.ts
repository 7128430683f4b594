import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CLI } from './support/run.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const claude = join(require.resolve('@anthropic-ai/claude-code/package.json'), '..', 'bin', 'claude.exe');

describe('Claude Code as a real client', () => {
  it('claude mcp add + claude mcp list reports mcp-doctor connected', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-doctor-cc-home-'));
    const project = mkdtempSync(join(tmpdir(), 'mcp-doctor-cc-proj-'));
    const env = { PATH: process.env.PATH ?? '', HOME: home };
    try {
      await run(claude, ['mcp', 'add', 'mcp-doctor', '--', process.execPath, CLI, 'serve'], { cwd: project, env, timeout: 60_000 });
      const { stdout } = await run(claude, ['mcp', 'list'], { cwd: project, env, timeout: 120_000 });
      assert.match(stdout, /mcp-doctor: .* - ✔ Connected/);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  });
});
