import type { Finding, Verdict } from '../../engine/types.js';
import { declarationParts, declarationVerdict, field, shown, UNKNOWN, type DeclarationJudge, type DeclaredTool } from '../support/declarations/declarations-support.js';

/**
 * C-13 — context ceiling at connection (the declared half; C-21 measures the served one). Every tool
 * declares `contextTokens`, a positive integer, in its `_meta["dev.mcp-doctor/declarations"]`; each stays
 * at or under `policy.contextBudget.perToolTokens`, and their sum at or under `totalTokens`. The sum
 * finding points at the tool whose cost takes the running total over the ceiling. A green verdict carries
 * the declared total in its reason.
 */

export const judgeContext: DeclarationJudge = (tools, config) => {
  const { perToolTokens, totalTokens } = config.policy.contextBudget;
  const findings: Finding[] = [];
  const unread: DeclaredTool[] = [];
  let total = 0;
  let count = 0;
  let crossing: DeclaredTool | undefined;
  for (const t of tools) {
    const v = field(t, 'contextTokens');
    if (v === UNKNOWN) {
      unread.push(t);
      continue;
    }
    if (v === undefined || v === null) {
      findings.push({ messageId: 'missing-context-tokens', data: { tool: t.name }, location: t.at() });
      continue;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) {
      findings.push({ messageId: 'invalid-context-tokens', data: { tool: t.name, value: shown(v) }, location: t.at(['contextTokens']) });
      continue;
    }
    if (v > perToolTokens) findings.push({ messageId: 'tool-over-ceiling', data: { tool: t.name, tokens: v, ceiling: perToolTokens }, location: t.at(['contextTokens']) });
    total += v;
    count++;
    if (total > totalTokens && !crossing) crossing = t;
  }
  if (crossing) findings.push({ messageId: 'total-over-ceiling', data: { total, ceiling: totalTokens, count }, location: crossing.at(['contextTokens']) });
  return declarationVerdict(findings, unread, ['missing-context-tokens'], (): Verdict => ({
    state: 'present',
    findings: [],
    reason: { code: 'context-declared', data: { total, budget: totalTokens, count } },
  }));
};

export default declarationParts(
  'C-13',
  {
    'missing-context-tokens': ['tool'],
    'invalid-context-tokens': ['tool', 'value'],
    'tool-over-ceiling': ['tool', 'tokens', 'ceiling'],
    'total-over-ceiling': ['total', 'ceiling', 'count'],
  },
  judgeContext,
);
