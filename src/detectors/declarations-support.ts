import type { Config } from '../engine/config.js';
import { couldNotJudge, defineDetector, notApplicable, type Detector, type MessageSpec } from '../engine/detector.js';
import type { Finding, Location, Verdict } from '../engine/types.js';
import { DECLARATIONS_KEY, declField, sourceDeclarations, UNKNOWN, type DeclValue } from '../facts/declarations.js';
import type { RepoFacts } from '../facts/repo.js';
import { isObj, short } from './dynamic-support.js';
import { earnedOn, servedTools, toolName, unreadToolPages } from './dynamic-text.js';
import { readSources } from './source-support.js';
import type { SessionFacts } from '../facts/session.js';
import { noToolsFound } from './tool-absence.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from './python-support.js';
import { fileOf, pyLiteral, pyNoToolsFound, pyTools, registrationKeyword, registrationOpen, toDecl, type PyLit } from './python-tools.js';

/**
 * The tools' declarations (`_meta["dev.mcp-doctor/declarations"]`) in one shape, whether read from the
 * source (facts/declarations) or from the tools/list of a recorded session, and the trunk's closed
 * vocabularies (§3). The declaration rules (C-8, C-9, C-10, C-12, C-13) judge that shape with one pure
 * function per rule, so the static and dynamic parts of a rule cannot disagree.
 */

export { DECLARATIONS_KEY, UNKNOWN };

/** §3.2 operation verbs, by effect. */
export const VERBS = {
  read: ['list', 'get', 'search', 'aggregate'],
  write: ['create', 'update', 'delete', 'upsert', 'transition', 'bulk-write'],
  neither: ['pure', 'introspect'],
  outside: ['external-effect'],
} as const;
export const ALL_VERBS: readonly string[] = Object.values(VERBS).flat();
/** Names that say nothing about the effect: refused by name. */
export const VAGUE_VERBS: readonly string[] = ['rpc', 'composite'];
/** §3.3 search mechanisms. `unindexed-scan` is a valid name that may not be published. */
export const SEARCH_MECHANISMS: readonly string[] = ['indexed-range', 'indexed-bm25', 'indexed-vector', 'indexed-hybrid-rrf', 'unindexed-scan'];

export interface DeclaredTool {
  name: string;
  /** 'declared': a declarations object is there; 'none': there is none; 'unknown': built at run time (source only). */
  status: 'declared' | 'none' | 'unknown';
  value: DeclValue;
  /** Where the value at `path` is written, for a finding (source only; served findings are linked by tool name). */
  at(path?: readonly string[]): Location | undefined;
  /** C-12: what stands for the tool's data when it declares no targets (its normalised output schema), if any. */
  outputKey?: string;
}

/** The value at a path of a tool's declarations (UNKNOWN when it cannot be read statically). */
export const field = (t: DeclaredTool, ...path: string[]): DeclValue => (t.status === 'unknown' ? UNKNOWN : t.status === 'none' ? undefined : declField(t.value, path));

/** A declared value shown in a message: the string itself, else its JSON, shortened. */
export const shown = (v: DeclValue): string => (typeof v === 'string' ? short(v, 64) : short(v === undefined ? null : v, 64));

/** The tools registered in the source, with their declarations, or the verdict when there are none to read. */
export function toolsFromSource(
  repo: RepoFacts,
  outputKey?: (repo: RepoFacts) => Map<string, string>,
  session?: SessionFacts,
): { ok: true; tools: DeclaredTool[]; gap?: Verdict } | { ok: false; verdict: Verdict } {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? pythonDeclaredTools(repo, session) : { ok: false, verdict: src.verdict };
  const decls = sourceDeclarations(repo);
  // Finding no registration is evidence of no tool only as tool-absence.ts says.
  if (decls.length === 0) return { ok: false, verdict: noToolsFound(repo, session) };
  const keys = outputKey?.(repo);
  return {
    ok: true,
    tools: decls.map((d) => ({
      name: d.tool.name,
      status: d.status,
      value: d.value,
      at: (path = []) => ({ file: d.file, line: d.status === 'declared' ? d.lineOf(path) : d.line }),
      outputKey: keys?.get(`${d.tool.file}:${d.tool.line}:${d.tool.column}`),
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

/** The tools served in a recorded session, with the declarations in their `_meta`. */
export function toolsFromSession(
  session: Parameters<typeof servedTools>[0],
): { ok: true; tools: DeclaredTool[]; gap?: Verdict } | { ok: false; verdict: Verdict } {
  const served = servedTools(session);
  if (!served.ok) return served;
  const gap = unreadToolPages(served);
  if (served.tools.length === 0) return { ok: false, verdict: gap ?? notApplicable('no-tools-served') };
  return {
    ok: true,
    gap,
    tools: served.tools.map((t) => {
      const value = isObj(t._meta) ? (t._meta[DECLARATIONS_KEY] as DeclValue) : undefined;
      return { name: toolName(t), status: value === undefined ? 'none' : 'declared', value, at: () => undefined };
    }),
  };
}

/**
 * The verdict of a declaration rule: red when there are findings (absent when every finding is one of the
 * `missing` message ids, non-conforming otherwise); could-not-judge when some tools' declarations could not
 * be read; else `ok`.
 */
export function declarationVerdict(findings: Finding[], unread: DeclaredTool[], missing: readonly string[], ok: () => Verdict): Verdict {
  if (findings.length) return { state: findings.every((f) => missing.includes(f.messageId)) ? 'absent' : 'non-conforming', findings };
  if (unread.length) return couldNotJudge('declarations-not-static', { tools: unread.map((t) => t.name).join(', '), count: unread.length });
  return ok();
}

export type DeclarationJudge = (tools: DeclaredTool[], config: Config) => Verdict;

/**
 * The parts of a declaration rule: always the static one (the source); with `dynamic`, also one on the
 * tools/list of a recorded session. Both judge with the same function.
 */
export function declarationParts(
  ruleId: string,
  messages: MessageSpec,
  judge: DeclarationJudge,
  opts: { dynamic?: boolean; outputKey?: (repo: RepoFacts) => Map<string, string> } = {},
): Detector[] {
  const parts: Detector[] = [
    defineDetector({
      ruleId,
      genre: 'static',
      needs: ['repo'],
      wants: ['session'],
      messages,
      judge({ inputs: { repo, session }, config }) {
        const src = toolsFromSource(repo, opts.outputKey, session);
        if (!src.ok) return src.verdict;
        // Python: red stands on the tools read; a clean verdict needs every file and registration read.
        const v = judge(src.tools, config);
        return 'gap' in src && src.gap && v.state !== 'absent' && v.state !== 'non-conforming' ? src.gap : v;
      },
    }),
  ];
  if (opts.dynamic) {
    parts.push(
      defineDetector({
        ruleId,
        genre: 'dynamic',
        needs: ['session'],
        messages,
        judge({ inputs: { session }, config }) {
          const served = toolsFromSession(session);
          // Red stands on the pages read; a clean verdict needs every page of tools/list.
          return served.ok ? earnedOn(judge(served.tools, config), served.gap) : served.verdict;
        },
      }),
    );
  }
  return parts;
}
