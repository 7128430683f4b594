import { notApplicable, present, type MessageSpec } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declarationVerdict, field, SEARCH_MECHANISMS, shown, UNKNOWN, type DeclarationJudge, type DeclaredTool } from '../support/declarations/declarations-judge.js';

/**
 * C-10 — declared search mechanism. Applies to list and search tools: a declared verb `list` or `search`,
 * or a name starting with `list_` or `search_`. Each must declare `search` from the closed set (§3.3) in its
 * `_meta["dev.mcp-doctor/declarations"]`, and not `unindexed-scan`. Static part: the source; dynamic part:
 * the `_meta` of the served tools. A tool whose verb cannot be read statically may be a list tool: it keeps
 * the static part unjudged unless another tool is red.
 */

const LIST_VERBS = ['list', 'search'];
const LIST_NAME = /^(?:list|search)_/;

export const judgeSearch: DeclarationJudge = (tools) => {
  const findings: Finding[] = [];
  const unread: DeclaredTool[] = [];
  let listTools = 0;
  for (const t of tools) {
    const verb = field(t, 'verb');
    const byName = LIST_NAME.test(t.name);
    // A tool built at run time with neither a readable name nor a verb may be a list or search tool.
    if (!byName && (verb === UNKNOWN || (verb === undefined && t.nameUnknown))) {
      unread.push(t);
      continue;
    }
    if (!byName && !(typeof verb === 'string' && LIST_VERBS.includes(verb))) continue;
    listTools++;
    const search = field(t, 'search');
    if (search === UNKNOWN) unread.push(t);
    else if (search === undefined || search === null) findings.push({ messageId: 'missing-search', data: { tool: t.name }, location: t.at() });
    else if (search === 'unindexed-scan') findings.push({ messageId: 'unindexed-scan', data: { tool: t.name }, location: t.at(['search']) });
    else if (typeof search !== 'string' || !SEARCH_MECHANISMS.includes(search)) {
      findings.push({ messageId: 'unknown-search', data: { tool: t.name, search: shown(search) }, location: t.at(['search']) });
    }
  }
  if (listTools === 0 && unread.length === 0) return notApplicable('no-list-or-search-tool');
  return declarationVerdict(findings, unread, ['missing-search'], present);
};

/** The messages of both parts. */
export const MESSAGES: MessageSpec = {
  'missing-search': ['tool'],
  'unknown-search': ['tool', 'search'],
  'unindexed-scan': ['tool'],
};
