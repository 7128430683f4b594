/** Text of a fix's outcomes, for the CLI and the MCP tool (the finding's own message, in the asked locale). */
import { raw, t } from '../engine/i18n.js';
import { findingMessage, formatUntrusted, terminalInert } from '../report/text.js';
import type { FixResult, Outcome } from './index.js';

/** One line per finding: state, rule, place, what the finding says, and why it was left when it was. */
export function outcomeLine(o: Outcome, locale: string, escape: (s: string) => string = terminalInert): string {
  const at = o.target.file ? `${o.target.file}${o.target.line ? `:${o.target.line}` : ''}` : '';
  // A finding the fix found itself (S-7's version in the source) has its text under fix.found.
  const own = `fix.found.${o.target.ruleId}.${o.target.messageId}`;
  const what = raw(locale, own) !== undefined ? formatUntrusted(locale, own, o.target.data, escape) : findingMessage(o.target.ruleId, { messageId: o.target.messageId, data: o.target.data }, locale, escape);
  const why =
    o.state === 'skipped' && o.reason
      ? t(locale, `fix.skip.${o.reason}`)
      : o.state === 'rolled-back'
        ? t(locale, 'fix.rolledBack')
        : o.state === 'conflict'
          ? t(locale, 'fix.conflict')
          : o.questions?.length
            ? t(locale, 'fix.questions', { hints: o.questions.join(', ') })
            : '';
  return `${t(locale, `fix.state.${o.state}`).padEnd(12)} ${o.target.ruleId.padEnd(5)} ${escape(at)}  ${what}${why ? `\n${' '.repeat(19)}→ ${why}` : ''}`;
}

export function summaryOf(res: FixResult, locale: string): string {
  const n = (s: Outcome['state']) => res.outcomes.filter((o) => o.state === s).length;
  return t(locale, 'fix.summary', { fixed: n('fixed'), planned: n('planned'), rolledBack: n('rolled-back'), conflict: n('conflict'), skipped: n('skipped') });
}
