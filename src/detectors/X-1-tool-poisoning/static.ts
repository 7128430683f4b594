import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { serverModel } from '../../facts/server-model.js';
import { excerpt } from '../support/live/dynamic-text.js';
import { visible } from '../support/python/python-support.js';
import { sourceTexts } from '../support/source/source-text.js';
import { judgeText, TEXT_REGEXES } from './patterns.js';
import { liveRegexes } from '../support/source/regex-prescreen.js';
import { relayOf } from '../support/source/relay.js';

/**
 * tool poisoning, JavaScript/TypeScript part (static). The texts a server registers in its source
 * (source-text.ts: names, titles, descriptions, schema descriptions, resource URIs, server instructions)
 * are judged with judgeText of patterns.ts, the function the dynamic part applies to served texts; each
 * finding points at the line of the match. Beside the Python part (python.ts), which reads Python source:
 * in a repository with both languages each part judges its own.
 *   - no JS/TS source: not-applicable 'no-js-source' when there is Python source, else could-not-judge 'no-source';
 *   - JS/TS source that registers nothing: not-applicable 'no-js-tools-python-source' when there is Python
 *     source (the Python part judges it), a relay of another server's messages not-applicable
 *     'relays-upstream-tools', else could-not-judge 'no-texts-in-source';
 *   - tools built at run time from a template (support/source/generated-tools): the texts of a table of classes,
 *     and of the JSON document the package loads (names, summaries, descriptions, titles, enum values; see
 *     source-text.ts) are read as the served texts; a document missing or unreadable: could-not-judge
 *     'tool-document-not-read' naming it, when nothing is red;
 *   - registrations whose descriptions are all computed (none could be read): could-not-judge 'descriptions-not-literal'.
 */

/** A relay's texts are its upstream server's: not-applicable with the place it forwards (support/source/relay). */
function relayVerdict(repo: RepoFacts): Verdict | undefined {
  const relay = relayOf(repo);
  return relay ? notApplicable('relays-upstream-tools', { file: relay.file, line: relay.line }) : undefined;
}

/** The verdict when the source gives this part nothing to read, if so (shared with X-2). */
export function textGap(repo: RepoFacts, opts: { pythonPart: boolean } = { pythonPart: true }): Verdict | undefined {
  const model = serverModel(repo);
  // A Python tree is judged by the rule's Python part when it has one; without one, it is unread here.
  const python = hasPythonSource(repo);
  if (model.files.length === 0) return python ? (opts.pythonPart ? notApplicable('no-js-source') : couldNotJudge('source-language-not-read')) : couldNotJudge('no-source');
  const st = sourceTexts(repo);
  if (!st.registered) return python ? (opts.pythonPart ? notApplicable('no-js-tools-python-source') : couldNotJudge('source-language-not-read')) : relayVerdict(repo) ?? couldNotJudge('no-texts-in-source');
  return undefined;
}

export default defineDetector({
  ruleId: 'X-1',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'source-model-directive': ['where'],
    'source-hidden-markup': ['where'],
    'source-credential-reference': ['where'],
    'source-exfiltration-parameter': ['where', 'parameter'],
    'source-invisible-characters': ['where', 'codepoints'],
  },
  judge({ inputs: { repo } }) {
    const gap = textGap(repo);
    if (gap) return gap;
    const st = sourceTexts(repo);
    const findings: Finding[] = [];
    const seen = new Set<string>();
    const live = liveRegexes(
      st.texts.map((t) => t.text),
      TEXT_REGEXES,
    );
    for (const t of st.texts) {
      for (const h of judgeText(t, live)) {
        const f: Finding = {
          messageId: `source-${h.kind}`,
          data: { where: visible(t.where), ...h.data },
          location: { file: t.file, line: t.lineAt(h.index) },
          evidence: excerpt(t.text, h.index, h.end),
        };
        const key = `${f.messageId}|${JSON.stringify(f.data)}|${t.file}:${f.location!.line}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push(f);
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // Tools built from a document the package should hold: its texts are the served ones, and it was not read.
    const doc = st.unreadDocuments[0];
    if (doc) return couldNotJudge('tool-document-not-read', { file: doc.file, why: doc.why });
    if (st.proseRead === 0 && st.unreadDescriptions > 0) return couldNotJudge('descriptions-not-literal', { count: st.unreadDescriptions });
    return present();
  },
});
