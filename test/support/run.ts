import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/engine/paths.js';

export const CLI = join(packageRoot(), 'dist', 'src', 'cli.js');

/** Run the real CLI as a user would, and capture everything. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? packageRoot(),
      env: { ...process.env, MCP_DOCTOR_LOCALE: '', LC_ALL: 'C', LC_MESSAGES: 'C', LANG: 'C', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}
