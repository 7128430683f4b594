/**
 * S-7 fix: the server's own version written as a literal that differs from package.json (`new McpServer({ name,
 * version: '0.9.0' })`, SDK v1 `Server`, FastMCP) is read from package.json instead, at run time:
 *   - an ES module: `createRequire(import.meta.url)('<path>/package.json').version` (createRequire imported from
 *     node:module when the file does not import it);
 *   - CommonJS: `require('<path>/package.json').version`.
 * The path is the one from where the file runs: a TypeScript file compiled by the root tsconfig.json into its
 * `outDir` runs from there (relative to its `rootDir`, else `src/` when the file lies under it).
 * S-7 is judged on the running server: the fix is kept only when the server started with the command given
 * after `--` serves the package's version (the probe, rules S-7); without a command it is not attempted.
 */
import { posix } from 'node:path';
import { parse } from 'jsonc-parser';
import { Node, SyntaxKind, type SourceFile } from '../facts/morph.js';
import { constString, objectLiteralOf, propertyValue } from '../facts/server-model.js';
import { positionOf } from '../facts/ts-source.js';
import type { Fix, FixerResult, Skip, TextEdit } from './edits.js';
import type { Reading } from './reading.js';

const SERVER_CLASSES = new Set(['McpServer', 'Server', 'FastMCP']);

/** Where a source file runs from (relative to the root): its compiled place for TypeScript built by the root tsconfig. */
function runtimeDir(r: Reading, file: string): string {
  const dir = posix.dirname(file);
  if (!/\.[cm]?ts$/.test(file) || !r.repo.has('tsconfig.json')) return dir;
  const t = r.repo.text('tsconfig.json');
  const opts = (t.ok ? (parse(t.value) as { compilerOptions?: { outDir?: string; rootDir?: string; noEmit?: boolean } } | undefined) : undefined)?.compilerOptions;
  if (!opts?.outDir || opts.noEmit) return dir;
  const rootDir = posix.normalize(opts.rootDir ?? (file.startsWith('src/') ? 'src' : '.'));
  const inRoot = posix.relative(rootDir, dir);
  if (inRoot.startsWith('..')) return dir;
  return posix.normalize(posix.join(opts.outDir, inRoot));
}

const isEsm = (sf: SourceFile, file: string): boolean => /\.m[jt]s$/.test(file) || (!/\.c[jt]s$/.test(file) && sf.getImportDeclarations().length > 0);

function createRequireImport(sf: SourceFile, file: string): TextEdit[] {
  const has = sf.getImportDeclarations().some((d) => ['module', 'node:module'].includes(d.getModuleSpecifierValue()) && d.getNamedImports().some((n) => n.getName() === 'createRequire'));
  if (has) return [];
  const last = sf.getImportDeclarations().at(-1);
  if (!last) return [{ file, start: 0, end: 0, text: "import { createRequire } from 'node:module';\n" }];
  return [{ file, start: last.getEnd(), end: last.getEnd(), text: "\nimport { createRequire } from 'node:module';" }];
}

export function fixServedVersion(r: Reading, hasCommand: boolean): FixerResult {
  const fixes: Fix[] = [];
  const skips: Skip[] = [];
  const pj = r.repo.object('package.json');
  const expected = pj.ok && typeof pj.value.version === 'string' ? pj.value.version : undefined;
  if (!expected) return { fixes, skips };
  for (const [file, sf] of r.sources().files) {
    if (!/\.[cm]?[jt]s$/.test(file) || !sf.getFullText().includes('version')) continue;
    for (const ne of sf.getDescendantsOfKind(SyntaxKind.NewExpression)) {
      const cls = ne.getExpression().getText().split('.').pop() ?? '';
      if (!SERVER_CLASSES.has(cls)) continue;
      const info = objectLiteralOf(ne.getArguments()[0], r.sources());
      const v = propertyValue(info, 'version');
      const lit = constString(v);
      if (!v || !lit || lit.value === expected || !Node.isStringLiteral(v)) continue;
      const target = { ruleId: 'S-7', messageId: 'version-in-source', file, line: positionOf(v).line, data: { served: lit.value, expected, file: 'package.json' } };
      if (!hasCommand) {
        skips.push({ target, reason: 'needs-command' });
        continue;
      }
      if (!r.editable(file)) {
        skips.push({ target, reason: 'not-editable' });
        continue;
      }
      let rel = posix.relative(runtimeDir(r, file), 'package.json');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      const ts = /\.[cm]?ts$/.test(file);
      const esm = isEsm(sf, file);
      const read = esm ? `createRequire(import.meta.url)('${rel}').version` : `require('${rel}').version`;
      const edits: TextEdit[] = [...(esm ? createRequireImport(sf, file) : []), { file, start: v.getStart(), end: v.getEnd(), text: ts ? `(${read} as string)` : read }];
      fixes.push({ targets: [target], edits });
    }
  }
  return { fixes, skips };
}
