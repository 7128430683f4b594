import type { Node } from 'web-tree-sitter';
import { couldNotJudge, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, constString, lastName, moduleConst, paramsOf, qualName, type PyTool, type PythonModel } from '../../facts/python-model.js';
import { kids, lineOf, nodesWithin, stringLiteral, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { fileOf, pyNoToolsFound, pyTools } from '../support/python/python-tools.js';
import { bare, calledFunction } from '../support/python/python-results.js';
import { BOUND_PROP, CURSOR_ARG, LIST_NAME, NEXT_CURSOR, SIZE_ARG } from './names.js';

/**
 * C-11, static part on a Python server (called by static.ts when the source is Python only). The same
 * questions and message ids as the JavaScript reading, for the list and search tools (a name starting with
 * `list`/`search` followed by `_`, `-` or a capital):
 *   - a page-size argument (`limit`, `page_size`, `per_page`, `max_results`, `top_k`…, typed int/float or
 *     with a numeric default; in a low-level `types.Tool` inputSchema, `"type": "integer"|"number"`) is
 *     bounded by `Field(le=...)`/`Field(lt=...)` (in the default or in `Annotated[...]`), `conint(le=...)`,
 *     a JSON Schema `maximum`, or `min(...)` over it in the tool's code; else 'page-size-unbounded';
 *   - a tool with no page-size argument shows a fixed bound in its code (`min(...)`, `rows[:N]`,
 *     `rows[a:a + N]`, `.limit(N)`, a `limit=N` / `page_size=N` keyword or dict key, `LIMIT n` in a query,
 *     N a number or an UPPER_CASE constant); else 'no-page-bound';
 *   - a cursor argument (`cursor`, `page_token`, `after`…) or a next cursor in what the code builds
 *     (`"next_cursor"` / `"nextCursor"` keys, `next_cursor=` keywords); else 'no-cursor'.
 * The tool's code is the FastMCP function (or the low-level dispatch branches of its name) and the functions
 * of the source it calls, a few levels deep. A low-level tool whose inputSchema is not a literal, or whose
 * branch was not found: could-not-judge 'list-tool-not-read' unless another tool is red.
 */

const LE_KEYWORD = /\b(?:le|lt)\s*=/;
const SQL_LIMIT = /\bLIMIT\s+(?:\d+|\$\d+|\?|:\w+|%s|%\(\w+\)s|\{\w*\})/i;
const MAX_FUNCTIONS = 200;
const MAX_DEPTH = 4;

type Judged = { tool: string; findings: Finding[]; unknown?: boolean };
interface SizeArg {
  name: string;
  line: number;
  bounded: boolean;
}

/** A number, an UPPER_CASE constant, `min(...)`, or `start + N`. */
function numberish(n: Node | null | undefined): boolean {
  if (!n) return false;
  const x = bare(n);
  if (x.type === 'integer') return true;
  if (x.type === 'identifier') return /^[A-Z][A-Z0-9_]*$/.test(x.text);
  if (x.type === 'attribute') return /^[A-Z][A-Z0-9_]*$/.test(x.childForFieldName('attribute')?.text ?? '');
  if (x.type === 'call') return x.childForFieldName('function')?.text === 'min';
  if (x.type === 'binary_operator' && x.childForFieldName('operator')?.text === '+') return numberish(x.childForFieldName('right'));
  return false;
}

/** FastMCP: the page-size and cursor parameters of the function. */
function fastArgs(fn: Node): { size: SizeArg[]; cursor: boolean } {
  const size: SizeArg[] = [];
  let cursor = false;
  for (const p of paramsOf(fn)) {
    if (CURSOR_ARG.test(p.name)) cursor = true;
    if (!SIZE_ARG.test(p.name)) continue;
    const type = p.type?.text ?? '';
    const value = p.value ? bare(p.value) : undefined;
    const numeric = /\b(?:int|float|conint|PositiveInt|NonNegativeInt)\b/.test(type) || value?.type === 'integer' || /\bField\s*\(\s*(?:default\s*=\s*)?\d/.test(value?.text ?? '');
    if (!numeric) continue;
    const bounded = (/\bField\s*\(|\bconint\s*\(/.test(type) && LE_KEYWORD.test(type)) || (!!value && /\bField\s*\(/.test(value.text) && LE_KEYWORD.test(value.text));
    size.push({ name: p.name, line: p.line, bounded });
  }
  return { size, cursor };
}

/** Low-level: the page-size and cursor properties of a `types.Tool(inputSchema={...})` literal; undefined when not a literal. */
function lowArgs(t: PyTool, file: PythonFile): { size: SizeArg[]; cursor: boolean } | undefined {
  const p = t.call ? callParts(t.call) : undefined;
  let schema = p?.kw.get('inputSchema') ?? p?.kw.get('input_schema');
  if (schema && bare(schema).type === 'identifier') schema = moduleConst(file, bare(schema).text) ?? schema;
  if (!schema || bare(schema).type !== 'dictionary') return undefined;
  const size: SizeArg[] = [];
  let cursor = false;
  const dictOf = (d: Node, key: string) => kids(d).find((pair) => pair.type === 'pair' && constString(pair.childForFieldName('key'), file) === key)?.childForFieldName('value');
  const props = dictOf(bare(schema), 'properties');
  if (!props || bare(props).type !== 'dictionary') return undefined;
  for (const pair of kids(bare(props))) {
    if (pair.type !== 'pair') continue;
    const name = constString(pair.childForFieldName('key'), file);
    const v = pair.childForFieldName('value');
    if (!name || !v) continue;
    if (CURSOR_ARG.test(name)) cursor = true;
    if (!SIZE_ARG.test(name) || bare(v).type !== 'dictionary') continue;
    const type = constString(dictOf(bare(v), 'type'), file);
    if (type !== 'integer' && type !== 'number') continue;
    size.push({ name, line: lineOf(pair), bounded: !!dictOf(bare(v), 'maximum') || !!dictOf(bare(v), 'exclusiveMaximum') });
  }
  return { size, cursor };
}

/** The code a tool runs: its function (or dispatch branches) and the source's functions they call. */
function codeRoots(model: PythonModel, t: PyTool, file: PythonFile): { node: Node; file: PythonFile }[] | undefined {
  if (!t.handler) return undefined;
  const start = t.api === 'lowlevel' ? t.branches : [t.handler];
  if (start.length === 0) return undefined;
  const out = start.map((node) => ({ node, file }));
  const seen = new Set<string>(out.map((r) => `${r.file.rel}:${r.node.startIndex}`));
  let frontier = out;
  for (let depth = 0; depth < MAX_DEPTH && frontier.length && seen.size < MAX_FUNCTIONS; depth++) {
    const next: { node: Node; file: PythonFile }[] = [];
    for (const r of frontier) {
      for (const target of calleesOf(model, r.node, r.file)) {
        if (seen.size >= MAX_FUNCTIONS) break;
        const k = `${target.file.rel}:${target.fn.startIndex}`;
        if (seen.has(k)) continue;
        seen.add(k);
        next.push({ node: target.fn, file: target.file });
      }
    }
    out.push(...next);
    frontier = next;
  }
  return out;
}

/** Per syntax tree, per node: a memo (each function is read once however many tools reach it). */
function memoOf<T>(memo: WeakMap<object, Map<string, T>>, node: Node, make: () => T): T {
  let perTree = memo.get(node.tree);
  if (!perTree) memo.set(node.tree, (perTree = new Map()));
  const key = `${node.startIndex}:${node.endIndex}`;
  let v = perTree.get(key);
  if (v === undefined) perTree.set(key, (v = make()));
  return v;
}

const calleeMemo = new WeakMap<object, Map<string, { fn: Node; file: PythonFile }[]>>();
function calleesOf(model: PythonModel, node: Node, file: PythonFile): { fn: Node; file: PythonFile }[] {
  return memoOf(calleeMemo, node, () => {
    const out: { fn: Node; file: PythonFile }[] = [];
    for (const c of nodesWithin(file, node)) {
      if (c.type !== 'call') continue;
      const f = c.childForFieldName('function');
      const target = f ? calledFunction(model, f, file) : undefined;
      if (target) out.push(target);
    }
    return out;
  });
}

interface Facts {
  /** The argument texts of each `min(...)`. */
  mins: string[];
  fixedBound: boolean;
  nextCursor: boolean;
}
const factsMemo = new WeakMap<object, Map<string, Facts>>();

/** What the code shows: a `min(...)` over each argument name, a fixed bound, a next cursor built. */
function codeFacts(roots: { node: Node; file: PythonFile }[], sizeNames: string[]): { clamped: Set<string>; fixedBound: boolean; nextCursor: boolean } {
  const clamped = new Set<string>();
  let fixedBound = false;
  let nextCursor = false;
  for (const { node, file } of roots) {
    const f = memoOf(factsMemo, node, () => rootFacts(node, file));
    fixedBound ||= f.fixedBound;
    nextCursor ||= f.nextCursor;
    for (const text of f.mins) for (const s of sizeNames) if (new RegExp(`\\b${s}\\b`).test(text)) clamped.add(s);
  }
  return { clamped, fixedBound, nextCursor };
}

function rootFacts(node: Node, file: PythonFile): Facts {
  const mins: string[] = [];
  let fixedBound = false;
  let nextCursor = false;
  {
    for (const n of nodesWithin(file, node)) {
      if (n.type === 'call') {
        const p = callParts(n);
        if (!p) continue;
        const callee = p.fn.text;
        if (callee === 'min' || qualName(p.fn, file) === 'builtins.min') {
          fixedBound = true;
          // `min(limit, MAX)`, `min(arguments.get("page_size", 25), MAX)`: the argument named in min's arguments.
          mins.push(p.args.map((a) => a.text).join(',').slice(0, 2000));
        } else if (/\.(?:limit|take|top|fetchmany|head)$/.test(callee) && numberish(p.args[0])) fixedBound = true;
        for (const [k, v] of p.kw) {
          if (NEXT_CURSOR.test(k)) nextCursor = true;
          if (BOUND_PROP.test(k) && numberish(v)) fixedBound = true;
        }
      } else if (n.type === 'subscript') {
        const s = n.childForFieldName('subscript');
        if (s?.type === 'slice') {
          const parts = kids(s);
          const colon = s.text.indexOf(':');
          const upper = parts.find((q) => q.startIndex - s.startIndex > colon);
          if (upper && numberish(upper)) fixedBound = true;
        }
      } else if (n.type === 'pair') {
        const k = constString(n.childForFieldName('key'), file);
        if (k && NEXT_CURSOR.test(k)) nextCursor = true;
        if (k && BOUND_PROP.test(k) && numberish(n.childForFieldName('value'))) fixedBound = true;
      } else if (n.type === 'string') {
        const v = stringLiteral(n)?.value ?? n.text;
        if (SQL_LIMIT.test(v)) fixedBound = true;
      }
    }
  }
  return { mins, fixedBound, nextCursor };
}

function judgeTool(model: PythonModel, t: PyTool): Judged {
  const file = fileOf(model, t);
  if (!file) return { tool: t.name, findings: [], unknown: true };
  const args = t.api === 'fastmcp' ? (t.handler ? fastArgs(t.handler) : undefined) : lowArgs(t, file);
  const roots = codeRoots(model, t, file);
  if (!args || !roots) return { tool: t.name, findings: [], unknown: true };
  const facts = codeFacts(roots, args.size.map((s) => s.name));
  const findings: Finding[] = [];
  for (const s of args.size) {
    if (s.bounded || facts.clamped.has(s.name)) continue;
    findings.push({ messageId: 'page-size-unbounded', data: { tool: t.name, argument: s.name }, location: { file: t.file, line: s.line } });
  }
  const at = { file: t.file, line: t.line };
  if (args.size.length === 0 && !facts.fixedBound) findings.push({ messageId: 'no-page-bound', data: { tool: t.name }, location: at });
  if (!args.cursor && !facts.nextCursor) findings.push({ messageId: 'no-cursor', data: { tool: t.name }, location: at });
  return { tool: t.name, findings };
}

export function judgePythonPagination(repo: RepoFacts, session?: SessionFacts): Verdict {
  const m = pythonModelOrVerdict(repo);
  if (isVerdict(m)) return m;
  const model = m;
  const tools = pyTools(model);
  if (tools.length === 0) return pyNoToolsFound(model, session);
  const judged = tools.filter((t) => LIST_NAME.test(t.name)).map((t) => judgeTool(model, t));
  const findings = judged.flatMap((j) => j.findings);
  if (findings.length) return { state: 'non-conforming', findings };
  const unread = judged.filter((j) => j.unknown);
  if (unread.length) return couldNotJudge('list-tool-not-read', { tools: unread.map((j) => j.tool).join(', '), count: unread.length });
  const cut = unreadableVerdict(model);
  if (cut) return cut;
  return judged.length ? present() : notApplicable('no-list-or-search-tool');
}
