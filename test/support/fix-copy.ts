import { execFileSync } from 'node:child_process';
import { cpSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/engine/paths.js';

/** git in a folder, with an identity of its own (no global configuration needed) and no signing. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=fix@test.invalid', '-c', 'user.name=fix-test', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' }).toString();

/**
 * A copy of a fix fixture (test/fixtures/fix/<name>) at `dir`, with the repository's node_modules linked (so the
 * fixture compiles and runs against the real SDK) and ignored; committed in a new git repository unless `git: false`.
 */
export function copyFixFixture(name: string, dir: string, opts: { git?: boolean } = {}): string {
  cpSync(join(packageRoot(), 'test', 'fixtures', 'fix', name), dir, { recursive: true });
  symlinkSync(join(packageRoot(), 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
  if (opts.git !== false) {
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'fixture');
  }
  return dir;
}
