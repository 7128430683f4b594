import { present, type MessageSpec } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { ALL_VERBS, declarationVerdict, field, shown, UNKNOWN, VAGUE_VERBS, type DeclarationJudge, type DeclaredTool } from '../support/declarations/declarations-judge.js';

/**
 * C-9 — declared operation verb. Every tool declares exactly one `verb` from the closed set of the trunk
 * (§3.2) in its `_meta["dev.mcp-doctor/declarations"]`; `rpc` and `composite` are refused by name. Static
 * part: the source (facts/declarations); dynamic part: the `_meta` of the served tools.
 */

export const judgeVerb: DeclarationJudge = (tools) => {
  const findings: Finding[] = [];
  const unread: DeclaredTool[] = [];
  for (const t of tools) {
    const verb = field(t, 'verb');
    if (verb === UNKNOWN) unread.push(t);
    else if (verb === undefined || verb === null) findings.push({ messageId: 'missing-verb', data: { tool: t.name }, location: t.at() });
    else if (typeof verb === 'string' && VAGUE_VERBS.includes(verb)) findings.push({ messageId: 'vague-verb', data: { tool: t.name, verb }, location: t.at(['verb']) });
    else if (typeof verb !== 'string' || !ALL_VERBS.includes(verb)) findings.push({ messageId: 'unknown-verb', data: { tool: t.name, verb: shown(verb) }, location: t.at(['verb']) });
  }
  return declarationVerdict(findings, unread, ['missing-verb'], present);
};

/** The messages of both parts. */
export const MESSAGES: MessageSpec = {
  'missing-verb': ['tool'],
  'vague-verb': ['tool', 'verb'],
  'unknown-verb': ['tool', 'verb'],
};
