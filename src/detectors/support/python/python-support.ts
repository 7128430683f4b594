import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Finding, Verdict } from '../../../engine/types.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { hasPythonSource } from '../../../facts/python-source.js';
import { pythonModel, type PythonModel } from '../../../facts/python-model.js';
import type { FlowProblem, PyFlow } from '../../../facts/python-flow.js';
import { fileNotReadData } from '../../../facts/not-read.js';

/**
 * Shared steps of the Python detectors. Each judges only Python source:
 *   - no .py file of its own (tests, fixtures and virtualenvs left out) -> not-applicable 'no-python-source';
 *   - the tree-sitter parser was not loaded (`loadPythonParser()` not awaited) -> could-not-judge
 *     'python-parser-unavailable';
 *   - a red finding wins; otherwise a file that could not be read or a tool definition with a syntax error
 *     -> could-not-judge ('file-not-read', 'python-tool-unreadable');
 *   - nothing to judge (no tool defined in Python) -> not-applicable 'no-python-tools'.
 */

export function pythonModelOrVerdict(repo: RepoFacts): PythonModel | Verdict {
  if (!hasPythonSource(repo)) return notApplicable('no-python-source');
  const model = pythonModel(repo);
  if (!model) return couldNotJudge('python-parser-unavailable');
  return model;
}

export const isVerdict = (x: PythonModel | Verdict): x is Verdict => 'state' in x;

/** could-not-judge when part of the Python source could not be read. */
export function unreadableVerdict(model: PythonModel, { files = true, tools = true } = {}): Verdict | undefined {
  const f = model.sources.unread[0];
  if (files && f) return couldNotJudge('file-not-read', fileNotReadData(f));
  const t = model.unreadable[0];
  if (tools && t) return couldNotJudge('python-tool-unreadable', { file: t.file, line: t.line });
  return undefined;
}

/** Placeholders of every flow message. */
export const FLOW_PLACEHOLDERS = ['kind', 'handler', 'parameter', 'sink'] as const;

/** One finding per unguarded flow, with the message id `python-<problem>`. */
export function flowFindings(flows: PyFlow[]): Finding[] {
  return flows
    .filter((f): f is PyFlow & { problem: FlowProblem } => f.problem !== undefined)
    .map((f) => ({
      messageId: `python-${f.problem}`,
      data: { kind: f.handlerKind, handler: visible(f.handler), parameter: visible(f.parameter), sink: f.sink },
      location: { file: f.file, line: f.line },
      evidence: f.evidence,
    }));
}

/** Invisible and bidirectional characters shown as [U+XXXX], so a label in a message reads as what it is. */
export function visible(s: string): string {
  return s.replace(/[\u{E0000}-\u{E007F}\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/gu, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** A short excerpt around a match, on one line. */
export function excerptOf(text: string, start: number, end: number): string {
  const from = Math.max(0, start - 40);
  const to = Math.min(text.length, end + 40);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ')}${to < text.length ? '…' : ''}`;
}
