import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, constString, lastName, paramsOf, qualName, unparen, type PyTool, type PythonModel } from '../../facts/python-model.js';
import { allNodes, descendants, kids, lineOf, stringLiteral, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { fileOf, pyNoToolsFound, pyTools, registrationKeyword } from '../support/python/python-tools.js';
import { bare, calledFunction, calledName, localValue, returnedValues, type PyReturned } from '../support/python/python-results.js';
import { reservedUnknown } from './dynamic.js';

/**
 * S-11, static part on a Python server (called by static.ts when the source is Python only). Same questions
 * and message ids as the JavaScript reading, on what the Python SDK does with a tool's return value:
 *   - FastMCP (`@mcp.tool`): the SDK builds the result itself from a plain return value (output schema from
 *     the return annotation, JSON text block beside the structured content), so such a tool is read as
 *     conforming. A function that returns `CallToolResult(...)` itself is read: `structuredContent=` while
 *     the return annotation declares no schema (none, or a bare `CallToolResult`; `Annotated[CallToolResult,
 *     Model]` declares one; `structured_output=False` declares none) -> 'structured-without-schema-in-source';
 *     `content=` with no text block -> 'structured-without-text-in-source'.
 *   - the low-level `Server` (`@server.call_tool()`, the branches on the tool name mapped to the
 *     `types.Tool(...)` definitions): a branch returning a dict (structured content; the SDK adds the
 *     text block) or a `(content, structured)` pair while the tool's `types.Tool` has no `outputSchema`
 *     -> 'structured-without-schema-in-source'; a pair or a `CallToolResult` whose content list holds no
 *     text block -> 'structured-without-text-in-source'.
 *   - 'unknown-tool-result-in-source': the call_tool handler returns a result (a content list, a dict, a
 *     `CallToolResult`) for a name no branch handles: the `else:` of its `if name == ...` chain, the first
 *     return after a chain whose branches all return, or the `case _:` of a `match name:`. A `raise` there
 *     is not judged here: SDK 1.x turns any exception into an `isError` result, SDK 2 into a JSON-RPC
 *     error; the dynamic part reads what the wire says.
 *   - 'reserved-error-code-in-source' / 'error-code-not-integer-in-source': literal codes given to an error
 *     constructor (`ErrorData(code=...)`, `McpError`, `MCPError(code, ...)`), as `code=` or a `"code"` dict
 *     key, or as members of a class named like an error-code enum.
 * Results are read from the `return` statements, following returned calls into the source's own functions.
 * No tool result read and nothing red: could-not-judge 'tool-results-not-read'.
 */

const ERROR_CTOR = /^(?:McpError|MCPError|ProtocolError|JSONRPCError|JsonRpcError|RpcError|ErrorData)$/;

/** The number a literal stands for (`-32050`, `1.5`), else undefined. */
function numberOf(n: Node): number | undefined {
  const x = unparen(n);
  if (x.type === 'integer' || x.type === 'float') {
    const v = Number(x.text.replace(/_/g, ''));
    return Number.isNaN(v) ? undefined : v;
  }
  if (x.type === 'unary_operator' && x.child(0)?.text === '-') {
    const a = x.childForFieldName('argument');
    const v = a ? numberOf(a) : undefined;
    return v === undefined ? undefined : -v;
  }
  return undefined;
}

const isNone = (n: Node | undefined): boolean => !!n && unparen(n).type === 'none';

/** False when a content list is known to hold no text block; undefined when it cannot be read. */
function hasTextBlock(content: Node | undefined, file: PythonFile): boolean | undefined {
  if (!content) return false;
  let x = bare(content);
  if (x.type === 'identifier') x = bare(localValue(x.text, x) ?? x);
  if (x.type !== 'list' && x.type !== 'tuple') return undefined;
  let unknown = false;
  for (const el of kids(x)) {
    if (el.type === 'comment') continue;
    let e = bare(el);
    if (e.type === 'identifier') e = bare(localValue(e.text, e) ?? e);
    if (e.type === 'call') {
      const name = calledName(e, file);
      if (name === 'TextContent') return true;
      if (name && /^(?:ImageContent|AudioContent|EmbeddedResource|ResourceLink)$/.test(name)) continue;
      unknown = true;
    } else if (e.type === 'dictionary') {
      const type = kids(e).find((p) => p.type === 'pair' && constString(p.childForFieldName('key'), file) === 'type');
      const v = type ? constString(type.childForFieldName('value'), file) : undefined;
      if (v === 'text') return true;
      if (v === undefined) unknown = true;
    } else unknown = true;
  }
  return unknown ? undefined : false;
}

/** A result written out: a content list, a dict, a pair, or a `CallToolResult(...)`. */
function isResultExpr(x: Node, file: PythonFile): boolean {
  if (['list', 'tuple', 'expression_list', 'dictionary', 'list_comprehension', 'dictionary_comprehension'].includes(x.type)) return true;
  return x.type === 'call' && /^(?:CallToolResult|TextContent)$/.test(calledName(x, file) ?? '');
}

/** Does the FastMCP registration or the function's return annotation declare an output schema? */
function fastSchema(t: PyTool): boolean {
  const so = registrationKeyword(t, 'structured_output');
  if (so && unparen(so).type === 'false') return false;
  const ann = t.returns?.text.replace(/\s+/g, '');
  if (!ann || ann === 'None') return false;
  return !/^(?:[\w.]+\.)?CallToolResult$/.test(ann);
}

/** FastMCP builds the result from the return value (the annotation is not a `CallToolResult`). */
const sdkBuilt = (t: PyTool): boolean => !!t.returns && !/CallToolResult/.test(t.returns.text);

interface Judged {
  read: boolean;
  findings: Finding[];
}

/** The structured content and content list of a `CallToolResult(...)` call. */
function callToolResultParts(x: Node): { structured?: Node; content?: Node; open: boolean } {
  const p = callParts(x)!;
  const structured = p.kw.get('structuredContent') ?? p.kw.get('structured_content');
  return { structured: structured && !isNone(structured) ? structured : undefined, content: p.kw.get('content'), open: p.splats.length > 0 };
}

function judgeReturned(t: PyTool, r: PyReturned, schema: boolean, lowLevel: boolean): Judged {
  const x = r.value;
  const tool = t.name;
  const out: Finding[] = [];
  const at = (n: Node) => ({ file: r.file.rel, line: lineOf(n) });
  let structured: Node | undefined;
  let content: Node | undefined;
  let textKnown = true;
  if (x.type === 'call' && calledName(x, r.file) === 'CallToolResult') {
    const parts = callToolResultParts(x);
    structured = parts.structured;
    content = parts.content;
    if (parts.open && !content) textKnown = false;
  } else if (!lowLevel) {
    // FastMCP builds the result from any other value itself (text block, structured content, schema).
    return { read: sdkBuilt(t) || isLiteralValue(x), findings: [] };
  } else if (x.type === 'dictionary' || x.type === 'dictionary_comprehension') {
    structured = x;
    textKnown = false; // the SDK adds the JSON text block itself
  } else if ((x.type === 'tuple' || x.type === 'expression_list') && kids(x).filter((k) => k.type !== 'comment').length === 2) {
    const [c, s] = kids(x).filter((k) => k.type !== 'comment');
    if (s && !isNone(s)) structured = s;
    content = c;
  } else if (x.type === 'list' || x.type === 'list_comprehension') {
    return { read: true, findings: [] };
  } else return { read: false, findings: [] };
  if (structured) {
    const where = structured.parent?.type === 'keyword_argument' ? structured.parent : structured;
    if (!schema) out.push({ messageId: 'structured-without-schema-in-source', data: { tool }, location: at(where) });
    if (textKnown && hasTextBlock(content, r.file) === false) out.push({ messageId: 'structured-without-text-in-source', data: { tool }, location: at(where) });
  }
  return { read: true, findings: out };
}

/** A value FastMCP turns into content without any doubt: a literal, an f-string, a collection display. */
function isLiteralValue(x: Node): boolean {
  return ['string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none', 'list', 'tuple', 'dictionary', 'set', 'list_comprehension', 'dictionary_comprehension', 'binary_operator'].includes(x.type);
}

/** Statements of a block that run when no dispatch branch matched; the first return or raise among them. */
const firstExit = (stmts: Node[]): Node | undefined => stmts.find((s) => s.type === 'return_statement' || s.type === 'raise_statement');
const endsInExit = (block: Node | null): boolean => {
  const last = block ? kids(block).filter((k) => k.type !== 'comment').pop() : undefined;
  return last?.type === 'return_statement' || last?.type === 'raise_statement';
};

/** A return statement that answers with a result (directly, or through a helper of the source). */
function returnsResult(model: PythonModel, ret: Node | undefined, file: PythonFile): boolean {
  if (ret?.type !== 'return_statement' || !ret.namedChild(0)) return false;
  const x = bare(ret.namedChild(0)!);
  if (isResultExpr(x, file)) return true;
  if (x.type !== 'call') return false;
  const p = callParts(x);
  const target = p ? calledFunction(model, p.fn, file) : undefined;
  return !!target && returnedValues(model, target.fn, target.file).some((v) => isResultExpr(v.value, v.file));
}

function unknownToolAnswers(model: PythonModel, file: PythonFile, fn: Node): Node[] {
  const nameParam = paramsOf(fn).find((p) => p.name !== 'self')?.name;
  if (!nameParam) return [];
  const tests = new RegExp(`(?:^|[^\\w.])${nameParam}\\s*(?:==|in\\b)|==\\s*${nameParam}(?![\\w.])`);
  const body = fn.childForFieldName('body');
  if (!body) return [];
  const out: Node[] = [];
  const nodes = descendants(body, (d) => d.type === 'function_definition' || d.type === 'lambda' || d.type === 'class_definition');
  const dispatchIfs = nodes.filter((d) => {
    if (d.type !== 'if_statement') return false;
    const conds = [d.childForFieldName('condition'), ...d.childrenForFieldName('alternative').map((a) => a?.childForFieldName('condition'))];
    return conds.some((c) => c && tests.test(c.text));
  });
  const byBlock = new Map<number, Node[]>();
  for (const d of dispatchIfs) {
    const alts = d.childrenForFieldName('alternative').filter((a): a is Node => !!a);
    const elseClause = alts.find((a) => a.type === 'else_clause');
    if (elseClause) {
      const ret = firstExit(kids(elseClause.childForFieldName('body') ?? elseClause));
      if (returnsResult(model, ret, file)) out.push(ret!);
      continue;
    }
    const parent = d.parent;
    if (parent) byBlock.set(parent.id, [...(byBlock.get(parent.id) ?? []), d]);
  }
  for (const ifs of byBlock.values()) {
    const allExit = ifs.every((d) => endsInExit(d.childForFieldName('consequence')) && d.childrenForFieldName('alternative').every((a) => endsInExit(a?.childForFieldName('consequence') ?? null)));
    if (!allExit) continue;
    const last = ifs[ifs.length - 1]!;
    const after = kids(last.parent!).filter((s) => s.startIndex >= last.endIndex);
    const ret = firstExit(after);
    if (returnsResult(model, ret, file)) out.push(ret!);
  }
  for (const m of nodes) {
    if (m.type !== 'match_statement' || m.childForFieldName('subject')?.text !== nameParam) continue;
    for (const cc of descendants(m)) {
      if (cc.type !== 'case_clause') continue;
      const pat = kids(cc).find((k) => k.type === 'case_pattern');
      if (!pat || !/^(?:_|[A-Za-z]\w*)$/.test(pat.text.trim())) continue;
      const ret = firstExit(kids(cc.childForFieldName('consequence') ?? cc));
      if (returnsResult(model, ret, file)) out.push(ret!);
    }
  }
  return out;
}

function errorCodeFindings(model: PythonModel): Finding[] {
  const out: Finding[] = [];
  for (const file of model.sources.files.values()) {
    if (!/-\s*320[2-9]\d|Error|code/.test(file.text)) continue;
    const seen = new Set<number>();
    const reserved = (n: Node) => {
      const c = numberOf(n);
      if (c === undefined || !reservedUnknown(c) || seen.has(n.id)) return;
      seen.add(n.id);
      out.push({ messageId: 'reserved-error-code-in-source', data: { code: c }, location: { file: file.rel, line: lineOf(n) } });
    };
    for (const n of allNodes(file)) {
      if (n.type === 'call') {
        const p = callParts(n);
        if (!p) continue;
        const name = lastName(qualName(p.fn, file)) ?? '';
        const code = p.kw.get('code') ?? (ERROR_CTOR.test(name) ? p.args[0] : undefined);
        if (!code) continue;
        if (ERROR_CTOR.test(name)) {
          const c = numberOf(code);
          const s = stringLiteral(unparen(code));
          if ((c !== undefined && !Number.isInteger(c)) || s) {
            seen.add(code.id);
            out.push({ messageId: 'error-code-not-integer-in-source', data: { call: p.fn.text.slice(0, 80) }, location: { file: file.rel, line: lineOf(code) }, evidence: code.text.slice(0, 80) });
            continue;
          }
        }
        reserved(code);
      } else if (n.type === 'pair') {
        if (constString(n.childForFieldName('key'), file) === 'code') {
          const v = n.childForFieldName('value');
          if (v) reserved(v);
        }
      } else if (n.type === 'class_definition' && /error|code/i.test(n.childForFieldName('name')?.text ?? '')) {
        for (const st of kids(n.childForFieldName('body') ?? n)) {
          const a = st.type === 'expression_statement' ? st.namedChild(0) : undefined;
          const r = a?.type === 'assignment' ? a.childForFieldName('right') : undefined;
          if (r) reserved(r);
        }
      }
    }
  }
  return out;
}

export function judgePythonResults(repo: RepoFacts, session?: SessionFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const tools = pyTools(model);
  const findings: Finding[] = [];
  let read = 0;
  for (const t of tools) {
    const file = fileOf(model, t);
    if (!t.handler) continue;
    const handlerFile = t.api === 'fastmcp' ? file : model.handlers.find((h) => h.fn.id === t.handler!.id)?.file;
    if (!handlerFile) continue;
    let returned: PyReturned[];
    let schema: boolean;
    if (t.api === 'fastmcp') {
      returned = returnedValues(model, t.handler, handlerFile);
      schema = fastSchema(t);
    } else {
      const served = model.tools.filter((o) => o.api === 'lowlevel' && o.handler?.id === t.handler!.id);
      if (t.branches.length) returned = t.branches.flatMap((b) => returnedValues(model, t.handler!, handlerFile, b));
      else if (served.length === 1) returned = returnedValues(model, t.handler, handlerFile);
      else continue;
      const os = registrationKeyword(t, 'outputSchema', 'output_schema');
      schema = !!os && !isNone(os);
    }
    let toolRead = false;
    for (const r of returned) {
      const j = judgeReturned(t, r, schema, t.api === 'lowlevel');
      toolRead ||= j.read;
      findings.push(...j.findings);
    }
    if (toolRead) read++;
  }
  for (const h of model.handlers) {
    if (h.tools.length > 0 && h.tools[0]!.api !== 'lowlevel') continue;
    for (const ret of unknownToolAnswers(model, h.file, h.fn)) findings.push({ messageId: 'unknown-tool-result-in-source', location: { file: h.file.rel, line: lineOf(ret) } });
  }
  findings.push(...errorCodeFindings(model));
  const unique = new Map<string, Finding>();
  for (const f of findings) unique.set(`${f.messageId}:${f.location?.file}:${f.location?.line}:${JSON.stringify(f.data ?? {})}`, f);
  const sorted = [...unique.values()].sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (sorted.length) return { state: 'non-conforming', findings: sorted };
  if (tools.length === 0) return pyNoToolsFound(model, session);
  const gap = unreadableVerdict(model);
  if (gap) return gap;
  if (read === 0) return couldNotJudge('tool-results-not-read');
  return present();
}
