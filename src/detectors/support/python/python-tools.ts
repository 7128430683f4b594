import type { Node } from 'web-tree-sitter';
import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import { OPEN, UNKNOWN, type DeclObject, type DeclValue } from '../../../facts/declarations.js';
import { callParts, constString, lastName, moduleConst, qualName, unparen, type PyTool, type PythonModel } from '../../../facts/python-model.js';
import { allNodes, kids, lineOf, stringLiteral, type PythonFile } from '../../../facts/python-source.js';
import type { SessionFacts } from '../../../facts/session.js';
import { servedTools } from '../live/dynamic-text.js';
import { unreadableVerdict } from './python-support.js';

/**
 * Language-neutral facts of the tools a Python server registers, read from the Python model
 * (facts/python-model), for the rules whose JavaScript static part judges the same facts (annotations,
 * `_meta` declarations, argument schemas). Values are read from literals only: a dict, a
 * `ToolAnnotations(...)` call, or a name bound to one at module level. Anything else is UNKNOWN, never
 * guessed.
 */

/** A Python literal as the rules see it, with the node each part is written at. */
export type PyLit =
  | { kind: 'object'; entries: Map<string, { value: PyLit; line: number }>; open: boolean; line: number }
  | { kind: 'scalar'; value: string | number | boolean | null; raw: string; line: number }
  | { kind: 'list'; items: PyLit[]; line: number }
  | { kind: 'unknown'; line: number };

/** Calls whose keywords are read as the keys of an object: the SDK's model classes and `dict(...)`. */
const OBJECT_CALLS = /^(?:dict|ToolAnnotations)$/;

export function pyLiteral(n: Node, file: PythonFile, depth = 0): PyLit {
  const x = unparen(n);
  const line = lineOf(x);
  if (depth > 12) return { kind: 'unknown', line };
  if (x.type === 'dictionary') {
    const entries = new Map<string, { value: PyLit; line: number }>();
    let open = false;
    for (const pair of kids(x)) {
      if (pair.type === 'comment') continue;
      if (pair.type !== 'pair') {
        open = true;
        continue;
      }
      const k = constString(pair.childForFieldName('key'), file);
      const v = pair.childForFieldName('value');
      if (k === undefined || !v) {
        open = true;
        continue;
      }
      entries.set(k, { value: pyLiteral(v, file, depth + 1), line: lineOf(pair) });
    }
    return { kind: 'object', entries, open, line };
  }
  if (x.type === 'call') {
    const p = callParts(x);
    const name = lastName(p ? qualName(p.fn, file) : undefined);
    if (!p || !name || !OBJECT_CALLS.test(name) || p.args.length > 0) return { kind: 'unknown', line };
    const entries = new Map<string, { value: PyLit; line: number }>();
    for (const [k, v] of p.kw) entries.set(k, { value: pyLiteral(v, file, depth + 1), line: lineOf(v) });
    return { kind: 'object', entries, open: p.splats.length > 0, line };
  }
  const s = stringLiteral(x);
  if (s) return s.interpolated ? { kind: 'unknown', line } : { kind: 'scalar', value: s.value, raw: x.text, line };
  if (x.type === 'true' || x.type === 'false') return { kind: 'scalar', value: x.type === 'true', raw: x.text, line };
  if (x.type === 'none') return { kind: 'scalar', value: null, raw: x.text, line };
  if (x.type === 'integer' || x.type === 'float') return { kind: 'scalar', value: Number(x.text.replace(/_/g, '')), raw: x.text, line };
  if (x.type === 'list' || x.type === 'tuple') return { kind: 'list', items: kids(x).filter((k) => k.type !== 'comment').map((k) => pyLiteral(k, file, depth + 1)), line };
  if (x.type === 'identifier') {
    const v = moduleConst(file, x.text);
    if (v && v.id !== x.id) return pyLiteral(v, file, depth + 1);
  }
  return { kind: 'unknown', line };
}

/** The literal as a declarations value (facts/declarations' shape). */
export function toDecl(l: PyLit): DeclValue {
  if (l.kind === 'unknown') return UNKNOWN;
  if (l.kind === 'scalar') return l.value;
  if (l.kind === 'list') return l.items.map(toDecl);
  const o: DeclObject = {};
  for (const [k, e] of l.entries) o[k] = toDecl(e.value);
  if (l.open) o[OPEN] = true;
  return o;
}

export const fileOf = (model: PythonModel, t: PyTool): PythonFile | undefined => model.sources.files.get(t.file);

/** A keyword argument of the tool's registration call (`@mcp.tool(annotations=...)`, `types.Tool(_meta=...)`). */
export function registrationKeyword(t: PyTool, ...names: string[]): Node | undefined {
  if (!t.call) return undefined;
  const p = callParts(t.call);
  for (const n of names) {
    const v = p?.kw.get(n);
    if (v) return v;
  }
  return undefined;
}

/** Does the registration call pass `**kwargs`, which may hold any keyword? */
export function registrationOpen(t: PyTool): boolean {
  return !!t.call && (callParts(t.call)?.splats.length ?? 0) > 0;
}

/** The tools (not prompts or resources) the Python model found. */
export const pyTools = (model: PythonModel): PyTool[] => model.tools.filter((t) => t.kind === 'tool');

/** Does the source build an MCP server itself (FastMCP, MCPServer, the low-level Server)? */
function buildsServer(model: PythonModel): boolean {
  for (const file of model.sources.files.values()) {
    for (const c of allNodes(file)) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      const q = p ? qualName(p.fn, file) : undefined;
      if (q && (/(?:^|\.)(?:FastMCP|MCPServer)$/.test(q) || /^mcp\.server(?:\.lowlevel(?:\.server)?)?\.Server$/.test(q))) return true;
    }
  }
  return false;
}

/**
 * What a static part says when the Python model holds no tool (the Python counterpart of tool-absence.ts):
 * served tools in a session -> could-not-judge 'served-tools-not-in-source'; an empty complete tools/list ->
 * not-applicable 'no-tools-served'; a file or registration not read -> could-not-judge; every file read and
 * the source builds its server -> not-applicable 'no-tools-registered'; else could-not-judge 'no-tools-in-source'.
 */
export function pyNoToolsFound(model: PythonModel, session?: SessionFacts): Verdict {
  if (session) {
    const served = servedTools(session);
    if (served.ok && served.tools.length > 0) return couldNotJudge('served-tools-not-in-source', { served: served.tools.length });
    if (served.ok && served.complete) return notApplicable('no-tools-served');
  }
  const gap = unreadableVerdict(model);
  if (gap) return gap;
  return buildsServer(model) ? notApplicable('no-tools-registered') : couldNotJudge('no-tools-in-source', { unread: 0 });
}
