import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { GateFacts } from '../../facts/gate.js';

/**
 * A-6 — the GA UI key, the gate half: what the packed artefact (npm pack of the folder, or the tarball given)
 * ships. No JavaScript of the package's own (files under a bundled `node_modules/` are dependencies) writes the
 * flat key ui/resourceUri (as a quoted key, or as the computed key RESOURCE_URI_META_KEY) or the old community id
 * `io.modelcontextprotocol/ui` as a `_meta` key. The back-compatible copy that `registerAppTool` of
 * @modelcontextprotocol/ext-apps 2.0.x writes next to the nested key, when the bundler inlined it (the write
 * inside the body of `function registerAppTool`), is not red: the part stays green and names the file where
 * the copy comes from. The artefact links its View with `registerAppTool(` or a nested `resourceUri:`; no link
 * anywhere in what is packed cannot be judged (the link may live in a dependency). Matches on comment lines are
 * documentation and are not judged.
 */

const FLAT = /(['"`])ui\/resourceUri\1\s*\]?\s*:|\[\s*RESOURCE_URI_META_KEY\s*\]\s*:/g;
const COMMUNITY = /(['"`])io\.modelcontextprotocol\/ui\1\s*\]?\s*:/g;
const NESTED = /\bregisterAppTool\s*\(|\bresourceUri\s*:/;
const REGISTER_FN = /function\s+registerAppTool\s*\(/g;
/** How far after `function registerAppTool(` the ext-apps copy is looked for (its body is a few lines). */
const COPY_WINDOW = 800;

const lineOf = (text: string, index: number): number => {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** Whether the match sits on a comment line (`//`, `/*`, ` * `): documentation, not a write. */
const inComment = (text: string, index: number): boolean => {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  return /^\s*(?:\/\/|\/\*|\*)/.test(text.slice(start, index));
};

const evidenceAt = (text: string, index: number): string => text.slice(Math.max(0, index - 60), index + 80).replace(/\s+/g, ' ').trim();

export function judgeArtefactUiKey(gate: GateFacts): Verdict {
  if (!gate.artefact.ok) return { state: 'could-not-judge', findings: [], reason: gate.artefact.reason };
  const findings: Finding[] = [];
  let linked = false;
  let copy: string | undefined;
  let unread: { file: string; cause: string; size: number } | undefined;
  for (const f of gate.artefact.value.files) {
    if (/(^|\/)node_modules\//.test(f.path)) continue;
    if (f.unread && /\.[cm]?js$/i.test(f.path)) {
      unread ??= { file: f.path, cause: f.unread, size: f.size };
      continue;
    }
    const text = f.text;
    if (text === undefined) continue;
    if (NESTED.test(text)) linked = true;
    const copyStarts = [...text.matchAll(REGISTER_FN)].map((m) => m.index);
    for (const m of text.matchAll(FLAT)) {
      if (inComment(text, m.index)) continue;
      if (copyStarts.some((s) => m.index > s && m.index - s < COPY_WINDOW)) {
        copy ??= f.path;
        continue;
      }
      findings.push({ messageId: 'flat-key-packed', data: { file: f.path, key: 'ui/resourceUri' }, location: { file: f.path, line: lineOf(text, m.index) }, evidence: evidenceAt(text, m.index) });
    }
    for (const m of text.matchAll(COMMUNITY)) {
      if (inComment(text, m.index) || !/_meta\b/.test(text.slice(Math.max(0, m.index - 300), m.index))) continue;
      findings.push({ messageId: 'flat-key-packed', data: { file: f.path, key: 'io.modelcontextprotocol/ui' }, location: { file: f.path, line: lineOf(text, m.index) }, evidence: evidenceAt(text, m.index) });
    }
  }
  if (findings.length) return { state: 'non-conforming', findings };
  if (unread) return couldNotJudge('file-not-read', unread);
  if (!linked) return couldNotJudge('no-ui-link-in-artefact');
  if (copy) return { state: 'present', findings: [], reason: { code: 'ext-apps-flat-copy', data: { file: copy } } };
  return present();
}

export default [
  defineDetector({
    ruleId: 'A-6',
    genre: 'gate',
    needs: ['gate'],
    messages: { 'flat-key-packed': ['file', 'key'] },
    judge: ({ inputs }) => judgeArtefactUiKey(inputs.gate),
  }),
];
