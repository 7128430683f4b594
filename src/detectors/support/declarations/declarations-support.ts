import { defineDetector, type Detector, type MessageSpec } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { DECLARATIONS_KEY, sourceDeclarations } from '../../../facts/declarations.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { readSources } from '../source/source-support.js';
import type { SessionFacts } from '../../../facts/session.js';
import { catalogGap, noToolsFound } from '../source/tool-absence.js';
import { generatedDeclarations, generatedTools } from '../source/generated-tools.js';
import { parsedSources } from '../../../facts/ts-source.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../python/python-support.js';
import { fileOf, pyLiteral, pyNoToolsFound, pyTools, registrationKeyword, registrationOpen, toDecl, type PyLit } from '../python/python-tools.js';

/**
 * The declaration rules' source side: the tools registered in the source with their declarations, and the parts
 * of a rule (declarationParts). The shape, the vocabularies and the dynamic part live in declarations-judge.ts.
 */
export { ALL_VERBS, declarationVerdict, SEARCH_MECHANISMS, shown, toolsFromSession, VAGUE_VERBS, VERBS, field, DECLARATIONS_KEY, UNKNOWN, type DeclarationJudge, type DeclaredTool } from './declarations-judge.js';
import type { DeclarationJudge, DeclaredTool } from './declarations-judge.js';

/** The tools registered in the source, with their declarations, or the verdict when there are none to read. */
export function toolsFromSource(
  repo: RepoFacts,
  outputKey?: (repo: RepoFacts) => Map<string, string>,
  session?: SessionFacts,
  generated = true,
): { ok: true; tools: DeclaredTool[]; gap?: Verdict } | { ok: false; verdict: Verdict } {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? pythonDeclaredTools(repo, session) : { ok: false, verdict: src.verdict };
  const decls = sourceDeclarations(repo);
  // Finding no registration is evidence of no tool only as tool-absence.ts says.
  if (decls.length === 0) {
    // Tools built at run time from a template (support/source/generated-tools): what its `_meta` shows.
    const built = generated ? generatedTools(repo) : [];
    if (built.length === 0) return { ok: false, verdict: noToolsFound(repo, session) };
    const sources = parsedSources(repo);
    return {
      ok: true,
      tools: built.map((t) => ({
        name: t.name,
        status: generatedDeclarations(t, DECLARATIONS_KEY, sources),
        value: undefined,
        at: () => ({ file: t.file, line: t.line }),
        nameUnknown: !t.nameIsLiteral,
      })),
    };
  }
  const keys = outputKey?.(repo);
  return {
    ok: true,
    tools: decls.map((d) => ({
      name: d.tool.name,
      status: d.status,
      value: d.value,
      at: (path = []) => ({ file: d.file, line: d.status === 'declared' ? d.lineOf(path) : d.line }),
      outputKey: keys?.get(`${d.tool.file}:${d.tool.line}:${d.tool.column}`),
      nameUnknown: !d.tool.nameIsLiteral,
    })),
  };
}

/**
 * The tools a Python server registers, with the declarations written in their `meta=` (FastMCP) or
 * `_meta=` (`types.Tool`) literal. A tool whose registration passes no such keyword declares nothing; a
 * value that is not a literal is UNKNOWN. Files or registrations that could not be read leave a clean
 * verdict unjudged (`gap`).
 */
function pythonDeclaredTools(repo: RepoFacts, session?: SessionFacts): { ok: true; tools: DeclaredTool[]; gap?: Verdict } | { ok: false; verdict: Verdict } {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return { ok: false, verdict: model };
  const tools = pyTools(model);
  if (tools.length === 0) return { ok: false, verdict: pyNoToolsFound(model, session) };
  return {
    ok: true,
    gap: unreadableVerdict(model),
    tools: tools.map((t): DeclaredTool => {
      const file = fileOf(model, t);
      const meta = registrationKeyword(t, 'meta', '_meta');
      const lit = meta && file ? pyLiteral(meta, file) : undefined;
      const here = (line: number) => ({ file: t.file, line });
      const base = { name: t.name, at: () => here(t.line) };
      if (!lit) return { ...base, status: registrationOpen(t) ? 'unknown' : 'none', value: undefined };
      if (lit.kind !== 'object') return { ...base, status: lit.kind === 'unknown' ? 'unknown' : 'none', value: undefined };
      const entry = lit.entries.get(DECLARATIONS_KEY);
      if (!entry) return { ...base, status: lit.open ? 'unknown' : 'none', value: undefined };
      const lineOf = (path: readonly string[]): number => {
        let cur: PyLit = entry.value;
        let line = entry.line;
        for (const k of path) {
          if (cur.kind !== 'object') break;
          const e = cur.entries.get(k);
          if (!e) break;
          line = e.line;
          cur = e.value;
        }
        return line;
      };
      return { ...base, status: 'declared', value: toDecl(entry.value), at: (path = []) => here(lineOf(path)) };
    }),
  };
}

/**
 * The parts of a declaration rule: always the static one (the source); with `dynamic`, also one on the
 * tools/list of a recorded session. Both judge with the same function.
 */
export function declarationParts(
  ruleId: string,
  messages: MessageSpec,
  judge: DeclarationJudge,
  opts: { dynamic?: Detector; outputKey?: (repo: RepoFacts) => Map<string, string>; generated?: boolean } = {},
): Detector[] {
  const parts: Detector[] = [
    defineDetector({
      ruleId,
      genre: 'static',
      needs: ['repo'],
      wants: ['session'],
      messages,
      judge({ inputs: { repo, session }, config }) {
        const src = toolsFromSource(repo, opts.outputKey, session, opts.generated ?? true);
        if (!src.ok) return src.verdict;
        // Python: red stands on the tools read; a clean verdict needs every file and registration read.
        const v = judge(src.tools, config);
        if ('gap' in src && src.gap && v.state !== 'absent' && v.state !== 'non-conforming') return src.gap;
        // not-applicable stands on the tools read being the whole catalog (support/source/tool-absence.ts catalogGap).
        if (v.state === 'not-applicable') {
          const read = src.tools.map((t) => ({ name: t.name, nameIsLiteral: !t.nameUnknown, ...t.at() }));
          return catalogGap(repo, read, session) ?? v;
        }
        return v;
      },
    }),
  ];
  // The dynamic part is built by declarationLive (declarations-judge.ts) in the rule's dynamic.ts.
  if (opts.dynamic) parts.push(opts.dynamic);
  return parts;
}
