/**
 * Which listed files are JavaScript/TypeScript sources, and which belong to tests or fixtures (not the
 * published object). Kept apart from ts-source.ts so that RepoFacts can use it without loading ts-morph.
 */

export const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const TEST_SEGMENTS = new Set(['test', 'tests', '__tests__', 'fixtures', '__fixtures__', '__mocks__']);

/** True for a file under a test or fixture folder, or named like a test (*.test.ts, *.spec.js). */
export function isTestPath(rel: string): boolean {
  const parts = rel.split('/');
  if (parts.slice(0, -1).some((p) => TEST_SEGMENTS.has(p))) return true;
  return /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(parts[parts.length - 1]!);
}

/** Source files (relative paths) that belong to the audited object: no declaration file, no test or fixture. */
export const isOwnSource = (rel: string): boolean => SOURCE_FILE.test(rel) && !/\.d\.[cm]?ts$/.test(rel) && !isTestPath(rel);
