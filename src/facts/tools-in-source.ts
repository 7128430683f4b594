import type { RepoFacts } from './repo.js';
import { serverModel } from './server-model.js';
import { noteSourceRead } from './not-read.js';

/**
 * Tool names read statically from a repository's TypeScript/JavaScript source: a thin view of
 * facts/server-model (which documents the patterns recognised: SDK v1 and v2 `registerTool` / `tool`,
 * FastMCP `addTool`, the literal array of a `tools/list` handler, and any `{ name: '<literal>', inputSchema }`
 * object). Only names written as a literal (or a same-file `const` holding one) are listed. The location is
 * the line where the name's literal is written. Memoised per RepoFacts instance (through the model).
 */

export interface SourceTool {
  name: string;
  /** Path relative to the audited root, forward slashes. */
  file: string;
  /** 1-based line of the name's string literal. */
  line: number;
}

const memo = new WeakMap<RepoFacts, SourceTool[]>();

/** The repository's own source files that tool names are read from (those of the server model). */
export function sourceFiles(repo: RepoFacts): string[] {
  return serverModel(repo).files;
}

export function toolsInSource(repo: RepoFacts): SourceTool[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const out: SourceTool[] = [];
  const seen = new Set<string>();
  for (const t of serverModel(repo).tools) {
    if (!t.nameIsLiteral || t.name === '') continue;
    const tool = { name: t.name, file: t.file, line: t.nameLine };
    const key = `${tool.file}:${tool.line}:${tool.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tool);
  }
  out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  memo.set(repo, out);
  return out;
}
