import type { Node } from 'web-tree-sitter';
import { couldNotJudge, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, qualName } from '../../facts/python-model.js';
import { allNodes, kids, lineOf, stringLiteral, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { sensitiveName, sensitiveText } from './sensitive.js';

/**
 * S-27, static part on a Python server (called by index.ts when the source is Python). Elicitation sites:
 * `ctx.elicit(message, schema=...)` (FastMCP), `session.elicit(...)` / `elicit_form(...)`, and a request
 * built with the method "elicitation/create". URL-mode elicitation (`elicit_url`) is not judged. The
 * requested schema is a Pydantic model class of the source: its annotated fields are read by name and by
 * their `Field(title=..., description=...)` texts, and a field that asks for a secret, a credential,
 * payment or health data is red ('sensitive-field'). No elicitation anywhere in the source, every file
 * read: not-applicable 'no-elicitation'. Schemas that cannot be read: could-not-judge
 * 'elicitation-schema-unreadable'. The 2026 floor (multi round-trip only) has no Python form yet.
 */

const ELICIT = /(?:^|\.)(?:elicit|elicit_form|elicit_with_validation)$/;

function classes(files: Iterable<PythonFile>): Map<string, { file: PythonFile; node: Node }> {
  const m = new Map<string, { file: PythonFile; node: Node }>();
  for (const file of files) for (const n of allNodes(file)) if (n.type === 'class_definition') m.set(n.childForFieldName('name')?.text ?? '', { file, node: n });
  return m;
}

/** Fields of a model class: `name: type` and `name: type = Field(...)`, with their texts. */
function fieldsOf(cls: Node): { name: string; line: number; texts: string[] }[] {
  const body = cls.childForFieldName('body');
  const out: { name: string; line: number; texts: string[] }[] = [];
  for (const st of body ? kids(body) : []) {
    const a = st.type === 'expression_statement' ? st.namedChild(0) : null;
    if (a?.type !== 'assignment' || !a.childForFieldName('type')) continue;
    const l = a.childForFieldName('left');
    if (l?.type !== 'identifier') continue;
    const texts: string[] = [];
    const r = a.childForFieldName('right');
    const p = r?.type === 'call' ? callParts(r) : undefined;
    for (const k of ['title', 'description']) {
      const s = stringLiteral(p?.kw.get(k));
      if (s) texts.push(s.value);
    }
    out.push({ name: l.text, line: lineOf(a), texts });
  }
  return out;
}

export function judgePythonElicitation(repo: RepoFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const files = [...model.sources.files.values()];
  const sites: { file: PythonFile; schema?: Node }[] = [];
  for (const file of files) {
    for (const c of allNodes(file)) {
      if (c.type === 'string' && stringLiteral(c)?.value === 'elicitation/create') sites.push({ file });
      if (c.type !== 'call') continue;
      const p = callParts(c);
      if (!p || p.fn.type !== 'attribute') continue;
      const q = qualName(p.fn, file) ?? p.fn.text;
      if (!ELICIT.test(q)) continue;
      sites.push({ file, schema: p.kw.get('schema') ?? p.kw.get('requested_schema') ?? p.kw.get('response_type') ?? p.args[1] });
    }
  }
  if (sites.length === 0) return unreadableVerdict(model, { tools: false }) ?? notApplicable('no-elicitation');
  const byName = classes(files);
  const findings: Finding[] = [];
  let readable = 0;
  const seen = new Set<string>();
  for (const s of sites) {
    const cls = s.schema?.type === 'identifier' ? byName.get(s.schema.text) : undefined;
    if (!cls) continue;
    readable++;
    for (const f of fieldsOf(cls.node)) {
      const what = sensitiveName(f.name) ?? f.texts.map(sensitiveText).find((x) => x !== undefined);
      const key = `${cls.file.rel}:${f.line}`;
      if (!what || seen.has(key)) continue;
      seen.add(key);
      findings.push({ messageId: 'sensitive-field', data: { field: f.name, data: what }, location: { file: cls.file.rel, line: f.line } });
    }
  }
  if (findings.length) return { state: 'non-conforming', findings };
  if (readable === 0) return couldNotJudge('elicitation-schema-unreadable');
  return unreadableVerdict(model, { tools: false }) ?? present();
}
