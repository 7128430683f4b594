import { Node } from '../../facts/morph.js';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { declarationOf, valueOfDeclaration } from '../../facts/scope.js';
import { serverModel } from '../../facts/server-model.js';
import { parsedSources, unwrap } from '../../facts/ts-source.js';
import { declarationParts, declarationVerdict, field, UNKNOWN, type DeclarationJudge, type DeclaredTool } from '../support/declarations/declarations-support.js';

/**
 * C-12 — no duplicate tools. Each tool's key is (verb, data, search mechanism), read from its
 * `_meta["dev.mcp-doctor/declarations"]`: `verb` (C-9), `search` (C-10, none for tools that do not search)
 * and the data it touches, `targets` (compared as a set of lower-case names) or, for a tool without
 * targets, its output schema normalised (whitespace, descriptions and `.describe()` texts left out; a
 * schema constant shared by two tools is the same data). Two tools with the same key are red.
 *
 * Two tools with the same verb and mechanism whose data cannot be compared (no targets and no output
 * schema on one of them), or tools without a declared verb, leave the rule unjudged: the key is what
 * the rule compares.
 */

interface Keyed {
  t: DeclaredTool;
  verb: string;
  search: string;
  targets?: string[];
}

/** Text of an output schema with what does not change the data left out. */
const normalised = (text: string): string =>
  text
    .replace(/\.describe\(\s*(['"`])(?:\\.|(?!\1)[^\\])*\1\s*\)/g, '')
    .replace(/\bdescription\s*:\s*(['"`])(?:\\.|(?!\1)[^\\])*\1\s*,?/g, '')
    .replace(/\s+/g, '');

/** Output schema keys of the tools in the source, by registration spot. */
function outputKeys(repo: RepoFacts): Map<string, string> {
  const sources = parsedSources(repo);
  const out = new Map<string, string>();
  for (const t of serverModel(repo).tools) {
    if (!t.outputSchema) continue;
    let n = unwrap(t.outputSchema);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && v !== n) n = v;
    }
    out.set(`${t.file}:${t.line}:${t.column}`, normalised(n.getText()));
  }
  return out;
}

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export const judgeDuplicates: DeclarationJudge = (tools) => {
  const findings: Finding[] = [];
  const unread: DeclaredTool[] = [];
  const unkeyed: DeclaredTool[] = [];
  const keyed: Keyed[] = [];
  for (const t of tools) {
    const verb = field(t, 'verb');
    const search = field(t, 'search');
    const targets = field(t, 'targets');
    if (verb === UNKNOWN || search === UNKNOWN || targets === UNKNOWN || (Array.isArray(targets) && targets.includes(UNKNOWN))) {
      unread.push(t);
      continue;
    }
    if (typeof verb !== 'string') {
      unkeyed.push(t);
      continue;
    }
    const names = Array.isArray(targets) ? [...new Set(targets.filter((x): x is string => typeof x === 'string').map((x) => x.trim().toLowerCase()))].sort() : undefined;
    keyed.push({ t, verb, search: typeof search === 'string' ? search : 'none', targets: names?.length ? names : undefined });
  }
  const uncompared = new Set<DeclaredTool>();
  const reported = new Set<DeclaredTool>();
  for (let j = 1; j < keyed.length; j++) {
    const b = keyed[j]!;
    for (let i = 0; i < j; i++) {
      const a = keyed[i]!;
      if (a.verb !== b.verb || a.search !== b.search || reported.has(b.t)) continue;
      let same: 'targets' | 'schema' | undefined;
      if (a.targets && b.targets) same = sameSet(a.targets, b.targets) ? 'targets' : undefined;
      else if (a.t.outputKey !== undefined && b.t.outputKey !== undefined) same = a.t.outputKey === b.t.outputKey ? 'schema' : undefined;
      else {
        uncompared.add(a.t).add(b.t);
        continue;
      }
      if (!same) continue;
      reported.add(b.t);
      findings.push({
        messageId: 'duplicate-tool',
        data: { tool: b.t.name, other: a.t.name, verb: b.verb, search: b.search, basis: same, data: same === 'targets' ? b.targets!.join(', ') : '' },
        location: b.t.at(['verb']),
      });
    }
  }
  if (findings.length || unread.length || tools.length < 2) return declarationVerdict(findings, unread, [], present);
  if (unkeyed.length) return couldNotJudge('tool-key-not-declared', { tools: unkeyed.map((t) => t.name).join(', '), count: unkeyed.length });
  if (uncompared.size) return couldNotJudge('tool-data-not-declared', { tools: [...uncompared].map((t) => t.name).join(', '), count: uncompared.size });
  return present();
};

export default declarationParts('C-12', { 'duplicate-tool': ['tool', 'other', 'verb', 'search', 'basis', 'data'] }, judgeDuplicates, { outputKey: outputKeys, generated: false });
