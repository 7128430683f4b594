import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of mcp-doctor's own package.json (works from src/ via dist/ and from an installed package). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if (JSON.parse(readFileSync(pj, 'utf8')).name === 'mcp-doctor') return dir;
      } catch {
        /* keep looking */
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('mcp-doctor: cannot find its own package root');
    dir = up;
  }
}

let cachedPkg: { name: string; version: string } | undefined;
export function ownPackage(): { name: string; version: string } {
  cachedPkg ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  return cachedPkg!;
}

/**
 * Map a compiled module URL (dist/...) back to its source folder, so tests can read fixtures that sit
 * beside the TypeScript sources.
 */
export function sourceDirOf(moduleUrl: string): string {
  const dir = dirname(fileURLToPath(moduleUrl));
  const root = packageRoot();
  const distRoot = join(root, 'dist');
  if (dir.startsWith(distRoot)) return resolve(root, dir.slice(distRoot.length + 1));
  return dir;
}
