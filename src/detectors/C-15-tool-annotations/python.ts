import type { Finding, Verdict } from '../../engine/types.js';
import { present } from '../../engine/detector.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { fileOf, pyLiteral, pyNoToolsFound, pyTools, registrationKeyword, registrationOpen } from '../support/python/python-tools.js';
import { couldNotJudge } from '../../engine/detector.js';
import { HINTS } from './dynamic.js';

/**
 * C-15, static part on a Python server (called by static.ts when the source is Python): the annotations of
 * every tool registered with FastMCP (`@mcp.tool(annotations=ToolAnnotations(...))` or a dict) or the
 * low-level `types.Tool(annotations=...)`, read from the Python model. Same findings as the JavaScript
 * reading: no annotations, hints left out (one finding per tool), hints that are not booleans. Annotations
 * that are not a literal, or a registration passing `**kwargs`, are not judged ('annotations-not-literal');
 * a file or registration that could not be read leaves a clean verdict unjudged. What the handler does
 * (read-only tools that write) is not read on Python yet.
 */
export function judgePythonAnnotations(repo: RepoFacts, session?: SessionFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const tools = pyTools(model);
  if (tools.length === 0) return pyNoToolsFound(model, session);
  const findings: Finding[] = [];
  let unread = 0;
  for (const t of tools) {
    const tool = t.name;
    const node = registrationKeyword(t, 'annotations');
    const file = fileOf(model, t);
    if (!node || !file) {
      if (registrationOpen(t)) unread++;
      else findings.push({ messageId: 'missing-annotations-in-source', data: { tool }, location: { file: t.file, line: t.line } });
      continue;
    }
    const lit = pyLiteral(node, file);
    if (lit.kind === 'scalar' && lit.value === null) {
      findings.push({ messageId: 'missing-annotations-in-source', data: { tool }, location: { file: t.file, line: lit.line } });
      continue;
    }
    if (lit.kind !== 'object') {
      unread++;
      continue;
    }
    if (lit.open) unread++;
    else {
      const missing = HINTS.filter((h) => !lit.entries.has(h));
      if (missing.length) findings.push({ messageId: 'missing-hint-in-source', data: { tool, hints: missing.join(', '), count: missing.length }, location: { file: t.file, line: lit.line } });
    }
    const mistyped = HINTS.flatMap((h) => {
      const e = lit.entries.get(h);
      return e && e.value.kind === 'scalar' && typeof e.value.value !== 'boolean' ? [{ hint: h, line: e.line, raw: e.value.raw }] : [];
    });
    if (mistyped.length) {
      findings.push({
        messageId: 'hint-not-boolean-in-source',
        data: { tool, hints: mistyped.map((m) => m.hint).join(', '), count: mistyped.length },
        location: { file: t.file, line: mistyped[0]!.line },
        evidence: mistyped.map((m) => `${m.hint}=${m.raw}`).join(', ').slice(0, 200),
      });
    }
  }
  if (findings.length) return { state: findings.every((f) => f.messageId === 'missing-annotations-in-source') ? 'absent' : 'non-conforming', findings };
  const gap = unreadableVerdict(model);
  if (gap) return gap;
  if (unread) return couldNotJudge('annotations-not-literal', { count: unread });
  return present();
}
