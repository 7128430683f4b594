import { join } from 'node:path';
import { Node, Project, type SourceFile, type StringLiteral, type NoSubstitutionTemplateLiteral } from 'ts-morph';
import type { RepoFacts } from './repo.js';

/**
 * Tool names read statically from a repository's TypeScript/JavaScript source with ts-morph (syntax only,
 * no type checking). Recognised forms:
 *   - `X.registerTool('<name>', …)` and `X.tool('<name>', …)` (the MCP TypeScript SDK, high- and low-level);
 *   - object literals `{ name: '<name>', inputSchema: … }` (tool definitions of a `tools/list` handler).
 * A name given as an identifier is followed to a `const` with a string initialiser in the same file.
 * The location is the line where the name is written. Memoised per RepoFacts instance.
 */

export interface SourceTool {
  name: string;
  /** Path relative to the audited root, forward slashes. */
  file: string;
  /** 1-based line of the name's string literal. */
  line: number;
}

const SOURCE_EXT = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
const SKIPPED_FILE = /(?:\.d\.[cm]?ts|\.min\.[cm]?js|\.(?:test|spec)\.[cm]?[jt]s)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', 'test', 'tests', '__tests__', 'fixtures', '__fixtures__', '__mocks__']);
/** Guard against huge trees: beyond this many files, the rest are not read. */
const MAX_FILES = 2000;

const memo = new WeakMap<RepoFacts, SourceTool[]>();

/** The repository's own source files that tool names are read from. */
export function sourceFiles(repo: RepoFacts): string[] {
  return repo.files
    .filter((f) => SOURCE_EXT.test(f) && !SKIPPED_FILE.test(f))
    .filter((f) => !f.split('/').slice(0, -1).some((seg) => SKIPPED_DIRS.has(seg)))
    .slice(0, MAX_FILES);
}

export function toolsInSource(repo: RepoFacts): SourceTool[] {
  const hit = memo.get(repo);
  if (hit) return hit;
  const project = new Project({ useInMemoryFileSystem: false, skipAddingFilesFromTsConfig: true, compilerOptions: { allowJs: true } });
  const out: SourceTool[] = [];
  const seen = new Set<string>();
  for (const rel of sourceFiles(repo)) {
    const t = repo.text(rel);
    if (!t.ok) continue;
    let sf: SourceFile;
    try {
      sf = project.createSourceFile(join(repo.root, rel), t.value, { overwrite: true });
    } catch {
      continue;
    }
    for (const lit of toolNameLiterals(sf)) {
      const tool = { name: lit.getLiteralValue(), file: rel, line: lit.getStartLineNumber() };
      const key = `${tool.file}:${tool.line}:${tool.name}`;
      if (tool.name === '' || seen.has(key)) continue;
      seen.add(key);
      out.push(tool);
    }
    project.removeSourceFile(sf);
  }
  out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  memo.set(repo, out);
  return out;
}

type NameLiteral = StringLiteral | NoSubstitutionTemplateLiteral;

function toolNameLiterals(sf: SourceFile): NameLiteral[] {
  const found: NameLiteral[] = [];
  sf.forEachDescendant((node) => {
    if (Node.isCallExpression(node)) {
      const callee = node.getExpression();
      if (!Node.isPropertyAccessExpression(callee)) return;
      const method = callee.getName();
      if (method !== 'registerTool' && method !== 'tool') return;
      const args = node.getArguments();
      if (args.length < 2) return;
      const lit = literalOf(args[0]!, sf);
      if (lit) found.push(lit);
    } else if (Node.isObjectLiteralExpression(node)) {
      if (!node.getProperty('inputSchema')) return;
      const nameProp = node.getProperty('name');
      if (!nameProp || !Node.isPropertyAssignment(nameProp)) return;
      const init = nameProp.getInitializer();
      const lit = init ? literalOf(init, sf) : undefined;
      if (lit) found.push(lit);
    }
  });
  return found;
}

/** A string literal, or an identifier bound by `const X = '<literal>'` in the same file. */
function literalOf(node: Node, sf: SourceFile): NameLiteral | undefined {
  if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) return node;
  if (Node.isIdentifier(node)) {
    const decl = sf.getVariableDeclaration(node.getText());
    const init = decl?.getInitializer();
    if (init && (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init))) return init;
  }
  return undefined;
}
