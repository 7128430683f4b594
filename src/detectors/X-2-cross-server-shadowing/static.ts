import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { excerpt } from '../support/live/dynamic-text.js';
import { visible } from '../support/python/python-support.js';
import { sourceTexts } from '../support/source/source-text.js';
import { textGap } from '../X-1-tool-poisoning/static.js';
import { judgeReferences, lookalikeOf, readsProse, REFERENCE_REGEXES, spelled } from './judge.js';
import { liveRegexes } from '../support/source/regex-prescreen.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { serverModel } from '../../facts/server-model.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import type { Verdict } from '../../engine/types.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { pyNoToolsFound } from '../support/python/python-tools.js';

/**
 * The same judgement on a Python server's texts (facts/python-model: FastMCP and low-level tool names,
 * descriptions, titles, argument texts, server instructions), each character with its source line.
 */
function judgePython(repo: RepoFacts, session?: SessionFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  if (model.tools.length === 0) return pyNoToolsFound(model, session);
  const tools = model.tools.filter((t) => t.kind === 'tool' && t.name !== '?');
  const own = new Set(tools.map((t) => t.name));
  const ownLower = new Set([...own].map((n) => n.toLowerCase()));
  const prose = [...model.tools.flatMap((t) => t.texts), ...model.serverTexts].filter((t) => t.field === 'prose');
  const live = liveRegexes(
    prose.map((t) => t.value),
    REFERENCE_REGEXES,
  );
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (f: Finding) => {
    const key = `${f.messageId}|${JSON.stringify(f.data)}|${f.location?.file}:${f.location?.line}`;
    if (!seen.has(key)) {
      seen.add(key);
      findings.push(f);
    }
  };
  for (const t of prose) {
    for (const h of judgeReferences(t.value, ownLower, live)) {
      const data: Record<string, string> = h.tool === undefined ? { where: visible(t.where) } : { where: visible(t.where), tool: visible(h.tool) };
      add({ messageId: `source-${h.kind}`, data, location: { file: t.file, line: t.lines[h.index] ?? t.lines[0] ?? 1 }, evidence: excerpt(t.value, h.index, h.end) });
    }
  }
  for (const t of tools) {
    const like = lookalikeOf(t.name, own);
    if (like) add({ messageId: 'source-lookalike-tool-name', data: { tool: visible(t.name), like }, location: { file: t.file, line: t.line }, evidence: spelled(t.name) });
  }
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model) ?? present();
}

/**
 * X-2 — cross-server shadowing, JavaScript/TypeScript part (static). The texts a server registers in its
 * source (source-text.ts) are judged with judge.ts, as the dynamic part judges served texts: sentences that
 * steer a tool the source does not register, rules for all tools or other servers, and tool names that
 * imitate a well-known one. Findings point at the line of the match or of the name.
 * When a tool's name is computed at run time the list of own tools is incomplete: references to other
 * tools are then not reported (could-not-judge 'tool-names-not-literal' when nothing else is red).
 * No JS/TS source or no registration: as X-1's static part (textGap).
 */

export default defineDetector({
  ruleId: 'X-2',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'source-foreign-tool-reference': ['where', 'tool'],
    'source-global-tool-rule': ['where'],
    'source-lookalike-tool-name': ['tool', 'like'],
  },
  judge({ inputs: { repo, session } }) {
    if (serverModel(repo).files.length === 0 && hasPythonSource(repo)) return judgePython(repo, session);
    const gap = textGap(repo, { pythonPart: false });
    if (gap) return gap;
    const st = sourceTexts(repo);
    const ownLower = new Set([...st.toolNames].map((n) => n.toLowerCase()));
    const findings: Finding[] = [];
    const seen = new Set<string>();
    const add = (f: Finding) => {
      const key = `${f.messageId}|${JSON.stringify(f.data)}|${f.location?.file}:${f.location?.line}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(f);
      }
    };
    let skipped = 0;
    const prose = st.texts.filter((t) => readsProse(t.field));
    const live = liveRegexes(
      prose.map((t) => t.text),
      REFERENCE_REGEXES,
    );
    for (const t of prose) {
      for (const h of judgeReferences(t.text, ownLower, live)) {
        if (h.kind === 'foreign-tool-reference' && st.computedToolNames > 0) {
          skipped++;
          continue;
        }
        const data: Record<string, string> = h.tool === undefined ? { where: visible(t.where) } : { where: visible(t.where), tool: visible(h.tool) };
        add({ messageId: `source-${h.kind}`, data, location: { file: t.file, line: t.lineAt(h.index) }, evidence: excerpt(t.text, h.index, h.end) });
      }
    }
    for (const n of st.toolNameLines) {
      const like = lookalikeOf(n.name, st.toolNames);
      if (like) add({ messageId: 'source-lookalike-tool-name', data: { tool: visible(n.name), like }, location: { file: n.file, line: n.line }, evidence: spelled(n.name) });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (skipped > 0) return couldNotJudge('tool-names-not-literal', { count: st.computedToolNames });
    // Tools built from a document the package should hold: its texts are the served ones, and it was not read.
    const doc = st.unreadDocuments[0];
    if (doc) return couldNotJudge('tool-document-not-read', { file: doc.file, why: doc.why });
    if (st.proseRead === 0 && st.unreadDescriptions > 0) return couldNotJudge('descriptions-not-literal', { count: st.unreadDescriptions });
    return present();
  },
});
