import { countTokens } from '../../tokens/count.js';
import { defineDetector, notApplicable } from '../../engine/detector.js';
import type { Finding, Reason } from '../../engine/types.js';
import { servedTools, toolName } from '../support/live/dynamic-text.js';
import { hasTrigger } from './triggers.js';

/**
 * C-19 — served tool descriptions, measured (dynamic). For every tool the running server serves: a
 * description exists; its first sentence has at least MIN_WORDS words (what the tool does — the prose
 * itself stays a human judgement); it holds a "when to use" clause (triggers.ts); and it fits the
 * per-tool budget of policy.contextBudget, counted with the o200k tokenizer (gpt-tokenizer).
 * One session serves one locale, so "both languages" is not observed: every verdict says so in its
 * reason, and the detector is partial.
 */

export const MIN_WORDS = 3;

/** The first sentence: up to the first . ! ? followed by a space or the end, or the first line break. */
export function firstSentence(text: string): string {
  const t = text.trim();
  const m = /[.!?](?=\s|$)|\n/.exec(t);
  return (m ? t.slice(0, m.index) : t).trim();
}

export const wordCount = (s: string): number => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

const LOCALES_NOT_OBSERVED: Reason = { code: 'locales-not-observed' };

export default defineDetector({
  ruleId: 'C-19',
  genre: 'dynamic',
  needs: ['session'],
  partial: true,
  messages: {
    'missing-description': ['tool'],
    'short-first-sentence': ['tool', 'words', 'minimum'],
    'no-when-to-use': ['tool'],
    'description-over-budget': ['tool', 'tokens', 'budget'],
  },
  judge({ inputs: { session }, config }) {
    const served = servedTools(session);
    if (!served.ok) return served.verdict;
    if (served.tools.length === 0) return notApplicable('no-tools-served');
    const budget = config.policy.contextBudget.perToolTokens;
    const findings: Finding[] = [];
    for (const t of served.tools) {
      const tool = toolName(t);
      const d = typeof t.description === 'string' ? t.description.trim() : '';
      if (!d) {
        findings.push({ messageId: 'missing-description', data: { tool } });
        continue;
      }
      const first = firstSentence(d);
      const words = wordCount(first);
      if (words < MIN_WORDS) findings.push({ messageId: 'short-first-sentence', data: { tool, words, minimum: MIN_WORDS }, evidence: first.slice(0, 200) });
      if (!hasTrigger(d)) findings.push({ messageId: 'no-when-to-use', data: { tool }, evidence: d.slice(0, 200) });
      const tokens = countTokens(d);
      if (tokens > budget) findings.push({ messageId: 'description-over-budget', data: { tool, tokens, budget } });
    }
    if (findings.length === 0) return { state: 'present', findings: [], reason: LOCALES_NOT_OBSERVED };
    const state = findings.every((f) => f.messageId === 'missing-description') ? 'absent' : 'non-conforming';
    return { state, findings, reason: LOCALES_NOT_OBSERVED };
  },
});
