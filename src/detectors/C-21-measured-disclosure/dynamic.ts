import { defineDetector } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { Obj } from '../support/live/dynamic-support.js';
import { servedTools, toolName } from '../support/live/dynamic-text.js';
import { countTokens } from '../../tokens/count.js';

/**
 * C-21 — progressive disclosure, measured (dynamic). Counts, with the o200k tokenizer (gpt-tokenizer),
 * what lands in the model's context at connection on the era that answered: the server instructions of
 * the opening result, plus the compact JSON of every served tool definition (name, title, description,
 * inputSchema, outputSchema, annotations). Red when the total exceeds policy.contextBudget.totalTokens or
 * one tool exceeds perToolTokens. A green verdict carries the measurement in its reason.
 */

/** The parts of a tool definition a host puts in front of the model. */
export const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

export const tokens = (text: string): number => countTokens(text);

export function toolTokens(t: Obj): number {
  const picked = Object.fromEntries(TOOL_FIELDS.filter((k) => t[k] !== undefined).map((k) => [k, t[k]]));
  return tokens(JSON.stringify(picked));
}

export default defineDetector({
  ruleId: 'C-21',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'total-over-budget': ['total', 'budget', 'instructions', 'tools', 'count'],
    'tool-over-budget': ['tool', 'tokens', 'budget'],
  },
  judge({ inputs: { session }, config }) {
    const served = servedTools(session);
    if (!served.ok) return served.verdict;
    const { perToolTokens, totalTokens } = config.policy.contextBudget;
    const opening = session.opening(served.era) ?? {};
    const instructions = typeof opening.instructions === 'string' ? tokens(opening.instructions) : 0;
    const findings: Finding[] = [];
    let tools = 0;
    for (const t of served.tools) {
      const n = toolTokens(t);
      tools += n;
      if (n > perToolTokens) findings.push({ messageId: 'tool-over-budget', data: { tool: toolName(t), tokens: n, budget: perToolTokens } });
    }
    const total = instructions + tools;
    const count = served.tools.length;
    if (total > totalTokens) findings.push({ messageId: 'total-over-budget', data: { total, budget: totalTokens, instructions, tools, count } });
    if (findings.length) return { state: 'non-conforming', findings };
    return { state: 'present', findings: [], reason: { code: 'context-measured', data: { total, budget: totalTokens, instructions, tools, count } } };
  },
});
