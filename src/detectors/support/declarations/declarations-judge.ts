import type { Config } from '../../../engine/config.js';
import { couldNotJudge, defineDetector, notApplicable, type Detector, type MessageSpec } from '../../../engine/detector.js';
import type { Finding, Location, Verdict } from '../../../engine/types.js';
import { DECLARATIONS_KEY } from '../../../facts/declarations-key.js';
import { declField, UNKNOWN, type DeclValue } from '../../../facts/declarations-value.js';
import { isObj, short } from '../live/dynamic-support.js';
import { earnedOn, servedTools, toolName, unreadToolPages } from '../live/dynamic-text.js';

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
  /** A tool built at run time whose name the source does not show (`op.operationId`): rules that pick tools by name cannot. */
  nameUnknown?: boolean;
}

/** The value at a path of a tool's declarations (UNKNOWN when it cannot be read statically). */
export const field = (t: DeclaredTool, ...path: string[]): DeclValue => (t.status === 'unknown' ? UNKNOWN : t.status === 'none' ? undefined : declField(t.value, path));

/** A declared value shown in a message: the string itself, else its JSON, shortened. */
export const shown = (v: DeclValue): string => (typeof v === 'string' ? short(v, 64) : short(v === undefined ? null : v, 64));

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
 * The dynamic part of a declaration rule: the same judge over the tools/list of a recorded session. Kept here,
 * apart from the source reader (declarations-support.ts), so that a probe that reads no package loads it alone.
 */
export function declarationLive(ruleId: string, messages: MessageSpec, judge: DeclarationJudge): Detector<'session'> {
  return defineDetector({
    ruleId,
    genre: 'dynamic',
    needs: ['session'],
    messages,
    judge({ inputs: { session }, config }) {
      const served = toolsFromSession(session);
      // Red stands on the pages read; a clean verdict needs every page of tools/list.
      return served.ok ? earnedOn(judge(served.tools, config), served.gap) : served.verdict;
    },
  });
}
