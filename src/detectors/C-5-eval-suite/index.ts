import { ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Location } from '../../engine/types.js';
import { toolsInSource } from '../../facts/tools-in-source.js';
import { unreadable } from '../support/verdicts.js';

/**
 * C-5 — evaluation suite (static: presence and shape). Reads evals/evals.json, shaped
 *   { "server_name": "...", "evals": [{ "id", "tool", "prompt", "expected_output", "expectations": [...],
 *     "degraded"?: true }] }
 * and requires, for every tool (the tools named in the evals plus the tools found in the source), at least
 * three cases, one of them degraded.
 *
 * The degraded case: mcp-doctor reads the optional boolean field `"degraded": true` on a case. It marks the
 * case that exercises the degraded situation proper to the published object — invalid input for a server,
 * the extension absent for an extension, a client without a visual layer for an App. The field is
 * mcp-doctor's convention on top of the standard's §5.5 format (a case without it is a normal case).
 * Whether the suite passes is judged at the gate (C-22), not here.
 */

const FILE = 'evals/evals.json';
const MIN_CASES = 3;

const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';
const CASE_FIELDS: [string, (v: unknown) => boolean, boolean][] = [
  ['id', (v) => nonEmpty(v) || (typeof v === 'number' && Number.isFinite(v)), true],
  ['tool', nonEmpty, true],
  ['prompt', nonEmpty, true],
  ['expected_output', nonEmpty, true],
  ['expectations', (v) => Array.isArray(v) && v.length > 0 && v.every(nonEmpty), true],
  ['degraded', (v) => typeof v === 'boolean', false],
];

/** Line numbers inside the evals file, read from a syntax tree of the JSON text (JSON.parse keeps none). */
class JsonLines {
  private readonly sf: ts.JsonSourceFile;
  private readonly root: ts.ObjectLiteralExpression | undefined;
  constructor(text: string) {
    this.sf = ts.parseJsonText(FILE, text);
    const e = this.sf.statements[0]?.expression;
    this.root = e && ts.isObjectLiteralExpression(e) ? e : undefined;
  }
  private lineAt(node: ts.Node): number {
    return this.sf.getLineAndCharacterOfPosition(node.getStart(this.sf)).line + 1;
  }
  private prop(obj: ts.ObjectLiteralExpression, key: string): ts.PropertyAssignment | undefined {
    return obj.properties.find(
      (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isStringLiteral(p.name) && p.name.text === key,
    );
  }
  /** Line of a top-level key. */
  key(key: string): number | undefined {
    const p = this.root && this.prop(this.root, key);
    return p ? this.lineAt(p) : undefined;
  }
  /** Line of evals[index], or of one of its fields when present. */
  caseLine(index: number, field?: string): number | undefined {
    const list = this.root && this.prop(this.root, 'evals')?.initializer;
    if (!list || !ts.isArrayLiteralExpression(list)) return undefined;
    const el = list.elements[index];
    if (!el) return undefined;
    const f = field && ts.isObjectLiteralExpression(el) ? this.prop(el, field) : undefined;
    return this.lineAt(f ?? el);
  }
}

export default [
  defineDetector({
    ruleId: 'C-5',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'evals-missing': ['file'],
      'evals-not-object': ['file'],
      'server-name-missing': ['file'],
      'evals-list-missing': ['file'],
      'case-not-object': ['file', 'index'],
      'case-field-invalid': ['file', 'index', 'field'],
      'too-few-cases': ['tool', 'count', 'min', 'file'],
      'degraded-case-missing': ['tool', 'file'],
    },
    judge({ inputs: { repo } }) {
      if (!repo.has(FILE)) {
        return { state: 'absent', findings: [{ messageId: 'evals-missing', data: { file: FILE } }] };
      }
      const r = repo.json(FILE);
      if (!r.ok) return unreadable(r);
      const text = repo.text(FILE);
      const lines = new JsonLines(text.ok ? text.value : '');
      const at = (line: number | undefined): Location => ({ file: FILE, line: line ?? 1 });
      const red = (findings: Finding[]) => ({ state: 'non-conforming' as const, findings });

      const doc = r.value;
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
        return red([{ messageId: 'evals-not-object', data: { file: FILE }, location: at(1) }]);
      }
      const o = doc as Record<string, unknown>;
      const findings: Finding[] = [];
      if (!nonEmpty(o.server_name)) {
        findings.push({ messageId: 'server-name-missing', data: { file: FILE }, location: at(lines.key('server_name')) });
      }
      if (!Array.isArray(o.evals)) {
        findings.push({ messageId: 'evals-list-missing', data: { file: FILE }, location: at(lines.key('evals')) });
        return red(findings);
      }

      // Cases per tool, with the first case's line and whether one is degraded.
      const perTool = new Map<string, { count: number; degraded: boolean; line: number }>();
      o.evals.forEach((c: unknown, index) => {
        if (typeof c !== 'object' || c === null || Array.isArray(c)) {
          findings.push({ messageId: 'case-not-object', data: { file: FILE, index }, location: at(lines.caseLine(index)) });
          return;
        }
        const kase = c as Record<string, unknown>;
        for (const [field, ok, required] of CASE_FIELDS) {
          if (kase[field] === undefined ? required : !ok(kase[field])) {
            findings.push({ messageId: 'case-field-invalid', data: { file: FILE, index, field }, location: at(lines.caseLine(index, field)) });
          }
        }
        if (!nonEmpty(kase.tool)) return;
        const tool = kase.tool as string;
        const entry = perTool.get(tool) ?? { count: 0, degraded: false, line: lines.caseLine(index) ?? 1 };
        entry.count++;
        if (kase.degraded === true) entry.degraded = true;
        perTool.set(tool, entry);
      });

      // Tools written in the source but absent from the evals have no case at all: point at their definition.
      const where = new Map<string, Location>();
      for (const [tool, e] of perTool) where.set(tool, at(e.line));
      for (const t of toolsInSource(repo)) if (!where.has(t.name)) where.set(t.name, { file: t.file, line: t.line });

      for (const [tool, location] of where) {
        const e = perTool.get(tool) ?? { count: 0, degraded: false };
        if (e.count < MIN_CASES) {
          findings.push({ messageId: 'too-few-cases', data: { tool, count: e.count, min: MIN_CASES, file: FILE }, location });
        }
        if (!e.degraded) findings.push({ messageId: 'degraded-case-missing', data: { tool, file: FILE }, location });
      }
      if (findings.length) return red(findings);
      if (where.size === 0) return couldNotJudge('no-tools-known');
      return present();
    },
  }),
];
