import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { earnedOn, servedTools, unreadToolPages } from '../support/live/dynamic-text.js';

/**
 * C-2 — naming (dynamic). Reads the tool names the running server really serves (`tools/list` of the era
 * that answered, all pages): each must be snake_case. Same message as the static part, without a location.
 */

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** Words of an identifier: split on case changes and on anything that is not a letter or digit. */
const words = (s: string): string[] =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

const toSnake = (name: string): string => {
  const s = words(name).join('_') || 'tool';
  return /^[a-z]/.test(s) ? s : `tool_${s}`;
};

export default defineDetector({
  ruleId: 'C-2',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'tool-name-not-snake': ['name', 'suggestion'],
  },
  judge({ inputs: { session } }) {
    const served = servedTools(session);
    if (!served.ok) return served.verdict;
    const names = served.tools.map((t) => t.name).filter((n): n is string => typeof n === 'string');
    const gap = unreadToolPages(served);
    if (names.length === 0) return gap ?? notApplicable('no-tools-served');
    const findings: Finding[] = [...new Set(names)]
      .filter((n) => !SNAKE.test(n))
      .map((name) => ({ messageId: 'tool-name-not-snake', data: { name, suggestion: toSnake(name) } }));
    return earnedOn(findings.length ? { state: 'non-conforming', findings } : present(), gap);
  },
});
