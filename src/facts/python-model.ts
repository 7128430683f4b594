import type { Node } from 'web-tree-sitter';
import type { RepoFacts } from './repo.js';
import { allNodes, descendants, isSkippedPythonPath, kids, lineOf, nodesWithin, pythonSources, stringLiteral, within, type PythonFile, type PythonSources } from './python-source.js';
import { noteSourceRead } from './not-read.js';

/**
 * What a Python MCP server defines, read from its syntax trees (python-source.ts), built once per
 * RepoFacts. Recognised:
 *   - FastMCP (`mcp.server.fastmcp`, the `fastmcp` package, `MCPServer`): functions decorated with
 *     `@<x>.tool`, `@<x>.tool(...)`, `@<x>.prompt(...)`, `@<x>.resource(uri, ...)`, and `<x>.add_tool(fn, ...)`.
 *     Name: the `name=` keyword (or a first positional string), else the function name (the URI for a
 *     resource). Description: `description=`, else the docstring.
 *   - the low-level `mcp.server.Server`: `types.Tool(name=..., description=..., inputSchema=...)` calls
 *     (usually in the `@server.list_tools()` function) and the `@server.call_tool()` handler, whose
 *     branches on the tool name (`if name == "x"`, `name in (...)`, `match name: case "x"`) are mapped
 *     back to the tools.
 * A registration that tree-sitter had to repair (its decorator, signature or body holds an ERROR or a
 * MISSING node, or the decorator line is not attached to any definition at all) is listed in
 * `unreadable` rather than guessed at: the recovered tree can hide calls, so detectors that judge tool
 * code say could-not-judge about it. Syntax errors anywhere else are ignored.
 */

export type HandlerKind = 'tool' | 'resource' | 'prompt';

export interface PyParam {
  name: string;
  line: number;
  /** The annotation as written, if any. */
  annotation?: string;
  /** The value cannot carry free text: `Literal[...]`, `int`, `float`, `bool` (validated by the SDK from the schema). */
  constrained: boolean;
  /** A `Field(pattern=...)` regular expression from the schema, if any. */
  pattern?: string;
}

/** A text put in front of the model, with the source line of every character. */
export interface PyText {
  /** Short language-neutral label: `tool read_file description`, `server instructions`… */
  where: string;
  /** Names hold no prose: only credential references and invisible characters are looked for there. */
  field: 'name' | 'prose';
  value: string;
  lines: number[];
  file: string;
}

export interface PyTool {
  kind: HandlerKind;
  api: 'fastmcp' | 'lowlevel';
  name: string;
  description?: string;
  file: string;
  line: number;
  params: PyParam[];
  texts: PyText[];
  /** The function that runs when the tool is called (the decorated function, or the low-level call_tool handler). */
  handler?: Node;
  /** Low-level: the branches of the call_tool handler that dispatch on this tool's name. */
  branches: Node[];
  /** The registration call: `@<x>.tool(...)`, `<x>.add_tool(fn, ...)` or `types.Tool(...)`; absent for a bare `@<x>.tool`. */
  call?: Node;
  /** FastMCP: the function's return annotation, as written (the SDK derives the output schema from it). */
  returns?: Node;
}

/** A function whose parameters a client fills: one FastMCP function, or one low-level call_tool handler. */
export interface PyHandler {
  file: PythonFile;
  fn: Node;
  kind: HandlerKind;
  /** Function name, for messages when a node belongs to no known tool. */
  name: string;
  /** Parameter names whose values the client chooses (constrained ones left out). */
  sources: string[];
  /** Parameters holding the whole argument dict (low-level): `arguments["path"]` is reported as `path`. */
  dictSources: string[];
  /** Parameters with a schema pattern. */
  patterns: ReadonlyMap<string, string>;
  tools: PyTool[];
  /** The tool a node of this handler belongs to (by dispatch branch), if it can be told. */
  toolAt(n: Node): PyTool | undefined;
}

export interface PythonModel {
  sources: PythonSources;
  tools: PyTool[];
  handlers: PyHandler[];
  /** Server-level texts: FastMCP(instructions=...), Server(..., instructions=...). */
  serverTexts: PyText[];
  /** Registrations whose code could not be read (syntax errors in the definition). */
  unreadable: { file: string; line: number }[];
}

const memo = new WeakMap<RepoFacts, PythonModel>();

/** The Python model of a repository; undefined when the parser was not loaded. */
export function pythonModel(repo: RepoFacts): PythonModel | undefined {
  noteSourceRead('python'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const src = pythonSources(repo);
  if (!src) return undefined;
  const model = discover(src);
  memo.set(repo, model);
  return model;
}

/* ---------------- generic helpers ---------------- */

/** The node without wrapping parentheses. */
export function unparen(n: Node): Node {
  let x = n;
  while (x.type === 'parenthesized_expression' && x.namedChildCount === 1) x = x.namedChild(0)!;
  return x;
}

export interface CallParts {
  fn: Node;
  args: Node[];
  kw: Map<string, Node>;
  /** `*x` / `**x` arguments. */
  splats: Node[];
}

export function callParts(call: Node): CallParts | undefined {
  if (call.type !== 'call') return undefined;
  const fn = call.childForFieldName('function');
  const al = call.childForFieldName('arguments');
  if (!fn) return undefined;
  const args: Node[] = [];
  const kw = new Map<string, Node>();
  const splats: Node[] = [];
  if (al) {
    for (const a of kids(al)) {
      if (a.type === 'comment') continue;
      if (a.type === 'keyword_argument') {
        const k = a.childForFieldName('name');
        const v = a.childForFieldName('value');
        if (k && v) kw.set(k.text, v);
      } else if (a.type === 'list_splat' || a.type === 'dictionary_splat') splats.push(a);
      else args.push(a);
    }
  }
  return { fn, args, kw, splats };
}

/**
 * The dotted name a callee or value stands for, with imports resolved (`sp.run` -> `subprocess.run`) and
 * calls marked `()` (`httpx.AsyncClient().get`). `types` maps local variables to the qualified call that
 * created them (`client` -> `httpx.AsyncClient()`).
 */
export function qualName(n: Node | null | undefined, file: PythonFile, types?: ReadonlyMap<string, string>): string | undefined {
  if (!n) return undefined;
  const x = unparen(n);
  if (x.type === 'identifier') return types?.get(x.text) ?? file.imports.get(x.text) ?? x.text;
  if (x.type === 'attribute') {
    const o = x.childForFieldName('object');
    const a = x.childForFieldName('attribute');
    if (!o || !a) return undefined;
    const b = qualName(o, file, types);
    return b === undefined ? undefined : `${b}.${a.text}`;
  }
  if (x.type === 'call') {
    const f = x.childForFieldName('function');
    const b = qualName(f, file, types);
    return b === undefined ? undefined : `${b}()`;
  }
  if (x.type === 'await') return qualName(x.namedChild(0), file, types);
  return undefined;
}

/** The last segment of a dotted name. */
export const lastName = (q: string | undefined): string | undefined => q?.replace(/\(\)/g, '').split('.').pop();

/** The docstring of a function (its first statement, when that is a string). */
export function docstring(fn: Node): { value: string; lines: number[] } | undefined {
  const body = fn.childForFieldName('body');
  const first = body ? kids(body).find((k) => k.type !== 'comment') : undefined;
  if (first?.type !== 'expression_statement' || first.namedChildCount !== 1) return undefined;
  return stringLiteral(first.namedChild(0));
}

/** The function's own name. */
export const fnName = (fn: Node): string => fn.childForFieldName('name')?.text ?? '?';

/** Top-level assignments of a module: name -> value node (the last one wins). */
export function moduleAssignments(file: PythonFile): Map<string, Node> {
  const m = new Map<string, Node>();
  for (const st of kids(file.root)) {
    if (st.type !== 'expression_statement') continue;
    const a = st.namedChild(0);
    if (a?.type !== 'assignment') continue;
    const l = a.childForFieldName('left');
    const r = a.childForFieldName('right');
    if (l?.type === 'identifier' && r) m.set(l.text, r);
  }
  return m;
}

const moduleAssignMemo = new WeakMap<PythonFile, Map<string, Node>>();
export function moduleConst(file: PythonFile, name: string): Node | undefined {
  let m = moduleAssignMemo.get(file);
  if (!m) {
    m = moduleAssignments(file);
    moduleAssignMemo.set(file, m);
  }
  return m.get(name);
}

/** The string value of a literal, or of an identifier bound to a module-level literal. */
export function constString(n: Node | null | undefined, file: PythonFile): string | undefined {
  if (!n) return undefined;
  const x = unparen(n);
  const s = stringLiteral(x);
  if (s && !s.interpolated) return s.value;
  if (x.type === 'identifier') {
    const v = moduleConst(file, x.text);
    if (v && v.id !== x.id) {
      const s2 = stringLiteral(v);
      if (s2 && !s2.interpolated) return s2.value;
    }
  }
  return undefined;
}

/* ---------------- discovery ---------------- */

const DECORATOR_KINDS: Record<string, HandlerKind | 'call_tool' | 'list_tools'> = {
  tool: 'tool',
  prompt: 'prompt',
  resource: 'resource',
  call_tool: 'call_tool',
  list_tools: 'list_tools',
};
const REGISTRATION_LINE = /^\s*@[\w.]+\.(?:tool|prompt|resource|call_tool|list_tools)\b/;

const isServerCtor = (q: string | undefined): boolean =>
  !!q && (/(?:^|\.)(?:FastMCP|MCPServer)$/.test(q) || /^mcp\.server(?:\.lowlevel(?:\.server)?)?\.Server$/.test(q));
const isToolCtor = (q: string | undefined): boolean => !!q && (q === 'types.Tool' || (q.startsWith('mcp.') && q.endsWith('.Tool')));

function discover(sources: PythonSources): PythonModel {
  const tools: PyTool[] = [];
  const handlers: PyHandler[] = [];
  const serverTexts: PyText[] = [];
  const unreadable: { file: string; line: number }[] = [];
  const lowTools: PyTool[] = [];
  const callHandlers: { file: PythonFile; fn: Node }[] = [];

  for (const file of sources.files.values()) {
    const attached = new Set<number>();
    const all = allNodes(file);
    for (const dd of all) {
      if (dd.type !== 'decorated_definition') continue;
      const def = dd.childForFieldName('definition');
      for (const dec of kids(dd)) {
        if (dec.type !== 'decorator') continue;
        const expr = dec.namedChild(0);
        const target = expr?.type === 'call' ? expr.childForFieldName('function') : expr;
        if (target?.type !== 'attribute') continue;
        const kind = DECORATOR_KINDS[target.childForFieldName('attribute')?.text ?? ''];
        if (!kind) continue;
        attached.add(lineOf(dec));
        if (!def || def.type !== 'function_definition' || dd.hasError) {
          unreadable.push({ file: file.rel, line: lineOf(dec) });
          continue;
        }
        if (kind === 'call_tool') callHandlers.push({ file, fn: def });
        else if (kind === 'list_tools') continue;
        else {
          const t = fastTool(file, def, kind, expr?.type === 'call' ? expr : undefined);
          tools.push(t);
          handlers.push(fastHandler(file, t));
        }
      }
    }
    for (const c of all) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      if (!p) continue;
      const q = qualName(p.fn, file);
      // <x>.add_tool(fn, name=..., description=...)
      if (p.fn.type === 'attribute' && lastName(q) === 'add_tool' && p.args[0]?.type === 'identifier') {
        const def = all.find((d) => d.type === 'function_definition' && fnName(d) === p.args[0]!.text);
        if (def) {
          if (def.hasError) unreadable.push({ file: file.rel, line: lineOf(c) });
          else {
            const t = fastTool(file, def, 'tool', c, 1);
            tools.push(t);
            handlers.push(fastHandler(file, t));
          }
        }
      } else if (isToolCtor(q)) {
        if (c.hasError) unreadable.push({ file: file.rel, line: lineOf(c) });
        else lowTools.push(lowTool(file, c, p));
      } else if (isServerCtor(q)) {
        const instr = p.kw.get('instructions') ?? (/FastMCP$|MCPServer$/.test(q!) ? p.args[1] : undefined);
        const s = stringLiteral(instr);
        if (s) serverTexts.push({ where: 'server instructions', field: 'prose', value: s.value, lines: s.lines, file: file.rel });
        const nm = stringLiteral(p.kw.get('name') ?? p.args[0]);
        if (nm) serverTexts.push({ where: 'server name', field: 'name', value: nm.value, lines: nm.lines, file: file.rel });
      }
    }
    // Registration lines the tree did not attach to any definition: they sit in an ERROR node (a line
    // that only looks like one, inside a string such as a docstring example, does not count).
    if (file.root.hasError) {
      file.text.split('\n').forEach((l, i) => {
        if (!REGISTRATION_LINE.test(l) || attached.has(i + 1)) return;
        let n: Node | null = file.root.descendantForPosition({ row: i, column: l.indexOf('@') });
        let inError = false;
        for (; n; n = n.parent) {
          if (n.type === 'string' || n.type === 'comment') return;
          if (n.isError || n.type === 'ERROR') inError = true;
        }
        if (inError) unreadable.push({ file: file.rel, line: i + 1 });
      });
    }
  }

  tools.push(...lowTools);
  for (const { file, fn } of callHandlers) {
    const mine = lowTools.filter((t) => t.file === file.rel);
    const served = mine.length ? mine : lowTools;
    const ps = paramsOf(fn);
    const nameParam = ps[0]?.name;
    const argParam = ps[1]?.name;
    const byName = nameParam ? dispatchBranches(fn, nameParam) : new Map<string, Node[]>();
    for (const t of served) {
      t.handler ??= fn;
      t.branches.push(...(byName.get(t.name) ?? []));
    }
    const handlerTools = served;
    handlers.push({
      file,
      fn,
      kind: 'tool',
      name: fnName(fn),
      sources: [],
      dictSources: argParam ? [argParam] : [],
      patterns: new Map(),
      tools: handlerTools,
      toolAt(n: Node) {
        const hit = handlerTools.find((t) => t.branches.some((b) => within(n, b)));
        if (hit) return hit;
        return handlerTools.length === 1 ? handlerTools[0] : undefined;
      },
    });
  }
  return { sources, tools, handlers, serverTexts, unreadable: dedupe(unreadable) };
}

function dedupe(xs: { file: string; line: number }[]): { file: string; line: number }[] {
  const seen = new Set<string>();
  return xs
    .filter((x) => {
      const k = `${x.file}:${x.line}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}

/** Parameters of a function definition (self/cls kept; callers filter). */
export function paramsOf(fn: Node): { name: string; line: number; type?: Node; value?: Node }[] {
  const ps = fn.childForFieldName('parameters');
  if (!ps) return [];
  const out: { name: string; line: number; type?: Node; value?: Node }[] = [];
  for (const p of kids(ps)) {
    let name: Node | null | undefined;
    if (p.type === 'identifier') name = p;
    else if (p.type === 'typed_parameter') name = kids(p).find((k) => k.type === 'identifier' || k.type.endsWith('splat_pattern'));
    else if (p.type === 'default_parameter' || p.type === 'typed_default_parameter') name = p.childForFieldName('name');
    else if (p.type === 'list_splat_pattern' || p.type === 'dictionary_splat_pattern') name = p;
    if (!name) continue;
    if (name.type.endsWith('splat_pattern')) name = kids(name).find((k) => k.type === 'identifier');
    if (!name) continue;
    out.push({ name: name.text, line: lineOf(p), type: p.childForFieldName('type') ?? undefined, value: p.childForFieldName('value') ?? undefined });
  }
  return out;
}

const CONSTRAINED = /^(?:(?:typing\.)?Literal\[|(?:int|float|bool)$|(?:typing\.)?Annotated\[\s*(?:(?:typing\.)?Literal\[|(?:int|float|bool)\s*,))/;

/** `Field(...)` calls in a parameter's annotation (Annotated metadata) or default value. */
function fieldCalls(p: { type?: Node; value?: Node }): CallParts[] {
  const out: CallParts[] = [];
  for (const n of [p.type, p.value]) {
    if (!n) continue;
    for (const c of [n, ...descendants(n)]) {
      if (c.type !== 'call') continue;
      const cp = callParts(c);
      if (cp && /(?:^|\.)Field$/.test(cp.fn.text)) out.push(cp);
    }
  }
  return out;
}

function fastTool(file: PythonFile, fn: Node, kind: HandlerKind, call?: Node, firstKeywordlessArg = 0): PyTool {
  const p = call ? callParts(call) : undefined;
  const kw = p?.kw ?? new Map<string, Node>();
  const positional = p?.args.slice(firstKeywordlessArg) ?? [];
  const uri = kind === 'resource' ? stringLiteral(kw.get('uri') ?? positional[0]) : undefined;
  const nameLit = stringLiteral(kw.get('name') ?? (kind !== 'resource' ? positional[0] : undefined));
  const name = nameLit?.value ?? uri?.value ?? fnName(fn);
  const at = (what: string) => `${kind} ${name} ${what}`;
  const texts: PyText[] = [];
  const text = (where: string, field: 'name' | 'prose', s: { value: string; lines: number[] } | undefined) => {
    if (s && s.value.trim() !== '') texts.push({ where, field, value: s.value, lines: s.lines, file: file.rel });
  };
  text(at('name'), 'name', nameLit ?? { value: fnName(fn), lines: Array(fnName(fn).length).fill(lineOf(fn)) });
  if (uri) text(at('uri'), 'name', uri);
  text(at('title'), 'prose', stringLiteral(kw.get('title')));
  const descLit = stringLiteral(kw.get('description'));
  const doc = docstring(fn);
  text(at('description'), 'prose', descLit ?? doc);
  const params: PyParam[] = [];
  for (const q of paramsOf(fn)) {
    const annotation = q.type?.text;
    if (q.name === 'self' || q.name === 'cls' || (annotation && /\bContext\b/.test(annotation))) continue;
    const fields = fieldCalls(q);
    let pattern: string | undefined;
    for (const f of fields) {
      text(at(`argument ${q.name} description`), 'prose', stringLiteral(f.kw.get('description')));
      text(at(`argument ${q.name} title`), 'prose', stringLiteral(f.kw.get('title')));
      pattern ??= stringLiteral(f.kw.get('pattern'))?.value;
    }
    text(at(`argument ${q.name}`), 'name', { value: q.name, lines: Array(q.name.length).fill(q.line) });
    params.push({ name: q.name, line: q.line, annotation, constrained: !!annotation && CONSTRAINED.test(annotation.trim()), pattern });
  }
  return {
    kind,
    api: 'fastmcp',
    name,
    description: (descLit ?? doc)?.value,
    file: file.rel,
    line: lineOf(fn),
    params,
    texts,
    handler: fn,
    branches: [],
    call,
    returns: fn.childForFieldName('return_type') ?? undefined,
  };
}

function fastHandler(file: PythonFile, t: PyTool): PyHandler {
  return {
    file,
    fn: t.handler!,
    kind: t.kind,
    name: fnName(t.handler!),
    sources: t.params.filter((p) => !p.constrained).map((p) => p.name),
    dictSources: [],
    patterns: new Map(t.params.filter((p) => p.pattern !== undefined).map((p) => [p.name, p.pattern!])),
    tools: [t],
    toolAt: () => t,
  };
}

function lowTool(file: PythonFile, call: Node, p: CallParts): PyTool {
  const nameLit = stringLiteral(p.kw.get('name'));
  const name = nameLit?.value ?? '?';
  const at = (what: string) => `tool ${name} ${what}`;
  const texts: PyText[] = [];
  const text = (where: string, field: 'name' | 'prose', s: { value: string; lines: number[] } | undefined) => {
    if (s && s.value.trim() !== '') texts.push({ where, field, value: s.value, lines: s.lines, file: file.rel });
  };
  text(at('name'), 'name', nameLit);
  text(at('title'), 'prose', stringLiteral(p.kw.get('title')));
  const desc = stringLiteral(p.kw.get('description'));
  text(at('description'), 'prose', desc);
  let schema = p.kw.get('inputSchema') ?? p.kw.get('input_schema');
  if (schema?.type === 'identifier') schema = moduleConst(file, schema.text);
  const params: PyParam[] = [];
  if (schema?.type === 'dictionary') {
    const walk = (d: Node, path: string[]) => {
      for (const pair of kids(d)) {
        if (pair.type !== 'pair') continue;
        const k = constString(pair.childForFieldName('key'), file);
        const v = pair.childForFieldName('value');
        if (k === undefined || !v) continue;
        if (path.length === 1 && path[0] === 'properties') {
          params.push({ name: k, line: lineOf(pair), constrained: false });
          text(`${at('inputSchema.properties')} ${k}`, 'name', stringLiteral(pair.childForFieldName('key')));
        }
        const here = [...path, k];
        if (v.type === 'dictionary') walk(v, here);
        else if (v.type === 'list') {
          for (const e of kids(v)) text(`${at('inputSchema.' + here.join('.'))}`, 'prose', stringLiteral(e));
        } else text(at('inputSchema.' + here.join('.')), 'prose', stringLiteral(v));
      }
    };
    walk(schema, []);
    // enum / pattern constraints of top-level properties
    for (const pr of params) {
      const props = dictGet(schema, 'properties', file);
      const ps = props ? dictGet(props, pr.name, file) : undefined;
      if (ps && (dictGet(ps, 'enum', file) || dictGet(ps, 'const', file))) pr.constrained = true;
      const ty = ps ? constString(dictGet(ps, 'type', file), file) : undefined;
      if (ty && ['integer', 'number', 'boolean'].includes(ty)) pr.constrained = true;
      const pat = ps ? constString(dictGet(ps, 'pattern', file), file) : undefined;
      if (pat !== undefined) pr.pattern = pat;
    }
  }
  return { kind: 'tool', api: 'lowlevel', name, description: desc?.value, file: file.rel, line: lineOf(call), params, texts, branches: [], call };
}

/** The value of a key in a dict literal. */
export function dictGet(d: Node, key: string, file: PythonFile): Node | undefined {
  if (d.type !== 'dictionary') return undefined;
  for (const pair of kids(d)) {
    if (pair.type === 'pair' && constString(pair.childForFieldName('key'), file) === key) return pair.childForFieldName('value') ?? undefined;
  }
  return undefined;
}

/** Tool names a condition tests the name parameter against. */
function namesTested(cond: Node, nameParam: string): string[] {
  const c = unparen(cond);
  if (c.type === 'boolean_operator') {
    const op = c.childForFieldName('operator')?.text;
    if (op === 'or') return kids(c).flatMap((k) => namesTested(k, nameParam));
    return [];
  }
  if (c.type !== 'comparison_operator') return [];
  const [l, r] = kids(c);
  const op = c.children.find((x) => x && !x.isNamed)?.text;
  if (!l || !r) return [];
  const lit = (n: Node) => stringLiteral(n)?.value;
  if (op === '==') {
    if (l.type === 'identifier' && l.text === nameParam && lit(r) !== undefined) return [lit(r)!];
    if (r.type === 'identifier' && r.text === nameParam && lit(l) !== undefined) return [lit(l)!];
  }
  if (op === 'in' && l.type === 'identifier' && l.text === nameParam && ['tuple', 'list', 'set'].includes(r.type)) {
    return kids(r).map(lit).filter((x): x is string => x !== undefined);
  }
  return [];
}

/** Branches of a call_tool handler, keyed by the tool name they handle. */
function dispatchBranches(fn: Node, nameParam: string): Map<string, Node[]> {
  const m = new Map<string, Node[]>();
  const add = (name: string, b: Node | null) => {
    if (!b) return;
    m.set(name, [...(m.get(name) ?? []), b]);
  };
  for (const d of descendants(fn)) {
    if (d.type === 'if_statement' || d.type === 'elif_clause') {
      const cond = d.childForFieldName('condition');
      if (cond) for (const n of namesTested(cond, nameParam)) add(n, d.childForFieldName('consequence'));
    } else if (d.type === 'match_statement' && d.childForFieldName('subject')?.text === nameParam) {
      for (const cc of descendants(d)) {
        if (cc.type !== 'case_clause') continue;
        const pats = kids(cc).filter((k) => k.type === 'case_pattern');
        for (const pt of pats) {
          for (const s of [pt, ...descendants(pt)]) {
            const v = stringLiteral(s);
            if (v && !v.interpolated) add(v.value, cc.childForFieldName('consequence'));
          }
        }
      }
    }
  }
  return m;
}

/* ---------------- HTTP transport setup (S-22) ---------------- */

export interface PyHttpSetup {
  /** Places that expose an MCP server over HTTP. */
  transports: { file: string; line: number; server?: string; how: string }[];
  /** `run(transport=<not a literal>)`: the transport could not be read. */
  unresolved: { file: string; line: number }[];
  /** Listen addresses written as literals (or as literal defaults of an environment lookup). */
  binds: { file: string; line: number; host: string }[];
  /** Explicit Origin / Host validation set up in code. */
  checks: { file: string; line: number; how: string }[];
  /** `TransportSecuritySettings(enable_dns_rebinding_protection=False)`. */
  disabled: { file: string; line: number }[];
  /** FastMCP servers that serve HTTP, with what their request guard depends on. */
  servers: PyServerInstance[];
  /** Low-level HTTP transports built without security settings. */
  bareTransports: { file: string; line: number; how: string }[];
}

export interface PyServerInstance {
  name: string;
  file: string;
  line: number;
  /** Which package provides the class: the official `mcp` SDK or the standalone `fastmcp`. */
  pkg: 'mcp' | 'fastmcp';
  /** The `host=` the server was given (the SDK default is 127.0.0.1), undefined when not a literal. */
  host?: string;
  hostKnown: boolean;
  /** The server was given transport security settings (or fastmcp origin options) explicitly. */
  explicitGuard: boolean;
  servesHttp: boolean;
}

const HTTP_TRANSPORTS = new Set(['sse', 'streamable-http', 'streamable_http', 'http']);
const HTTP_APP_METHODS = new Set(['streamable_http_app', 'sse_app', 'http_app', 'run_streamable_http_async', 'run_sse_async', 'run_http_async']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
export const isLoopback = (h: string): boolean => LOOPBACK.has(h) || /^127\./.test(h);

/** A host expression: a literal, a module constant, or the literal default of os.environ.get / os.getenv. */
function hostValue(n: Node | undefined, file: PythonFile): string | undefined {
  if (!n) return undefined;
  const s = constString(n, file);
  if (s !== undefined) return s;
  const x = unparen(n);
  if (x.type === 'call') {
    const p = callParts(x)!;
    const q = qualName(p.fn, file);
    if (q === 'os.environ.get' || q === 'os.getenv') return constString(p.args[1] ?? p.kw.get('default'), file);
  }
  return undefined;
}

const setupMemo = new WeakMap<PythonModel, PyHttpSetup>();
const ORIGIN_READ = /headers(?:\.get\(\s*|\[\s*)['"]origin['"]/i;

export function pythonHttpSetup(model: PythonModel): PyHttpSetup {
  const hit = setupMemo.get(model);
  if (hit) return hit;
  const s: PyHttpSetup = { transports: [], unresolved: [], binds: [], checks: [], disabled: [], servers: [], bareTransports: [] };
  const instances = new Map<string, PyServerInstance>();
  const files = [...model.sources.files.values()];
  // 1. Server instances (FastMCP / MCPServer) across files, by variable name.
  for (const file of files) {
    for (const st of allNodes(file)) {
      if (st.type !== 'assignment') continue;
      const l = st.childForFieldName('left');
      const r = st.childForFieldName('right');
      if (l?.type !== 'identifier' || r?.type !== 'call') continue;
      const p = callParts(r)!;
      const q = qualName(p.fn, file);
      if (!q || !/(?:^|\.)(?:FastMCP|MCPServer)$/.test(q)) continue;
      const hostNode = p.kw.get('host');
      const host = hostNode ? hostValue(hostNode, file) : '127.0.0.1';
      const ts = p.kw.get('transport_security');
      const explicit = !!ts && !(ts.type === 'none');
      if (hostNode && host !== undefined) s.binds.push({ file: file.rel, line: lineOf(hostNode), host });
      instances.set(l.text, {
        name: l.text,
        file: file.rel,
        line: lineOf(r),
        pkg: q.startsWith('fastmcp') ? 'fastmcp' : 'mcp',
        host,
        hostKnown: host !== undefined,
        explicitGuard: explicit,
        servesHttp: false,
      });
    }
  }
  // 2. Transports, binds and checks.
  for (const file of files) {
    for (const c of allNodes(file)) {
      if (c.type === 'assignment') {
        // <x>.settings.host = "..." / <x>.settings.transport_security = ...
        const l = c.childForFieldName('left');
        const r = c.childForFieldName('right');
        const m = l ? /^(\w+)\.settings\.(host|transport_security)$/.exec(l.text) : null;
        if (m && r) {
          const inst = instances.get(m[1]!);
          if (m[2] === 'host') {
            const h = hostValue(r, file);
            if (h !== undefined) s.binds.push({ file: file.rel, line: lineOf(r), host: h });
            if (inst) {
              inst.host = h;
              inst.hostKnown = h !== undefined;
            }
          } else if (inst && r.type !== 'none') inst.explicitGuard = true;
        }
        continue;
      }
      if (c.type !== 'call') continue;
      const p = callParts(c);
      if (!p) continue;
      const q = qualName(p.fn, file) ?? '';
      const last = lastName(q) ?? '';
      const recv = p.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
      const inst = recv?.type === 'identifier' ? instances.get(recv.text) : undefined;
      if (last === 'run' && p.fn.type === 'attribute' && (inst || p.kw.has('transport'))) {
        const tNode = p.kw.get('transport') ?? (inst ? p.args[0] : undefined);
        if (!tNode) continue; // default: stdio
        const t = constString(tNode, file);
        if (t === undefined) s.unresolved.push({ file: file.rel, line: lineOf(c) });
        else if (HTTP_TRANSPORTS.has(t)) {
          s.transports.push({ file: file.rel, line: lineOf(c), server: inst?.name, how: `run(transport="${t}")` });
          if (inst) inst.servesHttp = true;
          const h = p.kw.get('host');
          const hv = h ? hostValue(h, file) : undefined;
          if (h && hv !== undefined) s.binds.push({ file: file.rel, line: lineOf(h), host: hv });
          if (p.kw.has('allowed_origins') || /^True$/.test(p.kw.get('host_origin_protection')?.text ?? '')) {
            s.checks.push({ file: file.rel, line: lineOf(c), how: 'allowed_origins' });
          }
        }
      } else if (HTTP_APP_METHODS.has(last) && p.fn.type === 'attribute') {
        s.transports.push({ file: file.rel, line: lineOf(c), server: inst?.name, how: `${last}()` });
        if (inst) inst.servesHttp = true;
        if (p.kw.has('allowed_origins') || /^True$/.test(p.kw.get('host_origin_protection')?.text ?? '')) {
          s.checks.push({ file: file.rel, line: lineOf(c), how: 'allowed_origins' });
        }
      } else if (/(?:^|\.)(?:StreamableHTTPSessionManager|SseServerTransport)$/.test(q)) {
        s.transports.push({ file: file.rel, line: lineOf(c), how: `${last}()` });
        const sec = p.kw.get('security_settings');
        if (!sec || sec.type === 'none') s.bareTransports.push({ file: file.rel, line: lineOf(c), how: `${last}()` });
      } else if (q === 'uvicorn.run' || q === 'uvicorn.Config' || q === 'hypercorn.asyncio.serve') {
        s.transports.push({ file: file.rel, line: lineOf(c), how: q });
        const h = p.kw.get('host');
        const hv = h ? hostValue(h, file) : undefined;
        if (h && hv !== undefined) s.binds.push({ file: file.rel, line: lineOf(h), host: hv });
      } else if (last === 'TransportSecuritySettings') {
        const en = p.kw.get('enable_dns_rebinding_protection');
        if (en && /^(?:False|0|None)$/.test(en.text)) s.disabled.push({ file: file.rel, line: lineOf(c) });
        else s.checks.push({ file: file.rel, line: lineOf(c), how: 'TransportSecuritySettings' });
      } else if (last === 'TrustedHostMiddleware' || (last === 'Middleware' && p.args[0] && lastName(qualName(p.args[0], file)) === 'TrustedHostMiddleware')) {
        s.checks.push({ file: file.rel, line: lineOf(c), how: 'TrustedHostMiddleware' });
      }
    }
    // A hand-written Origin check: a function that reads the Origin header and answers 403.
    if (!ORIGIN_READ.test(file.text)) continue;
    for (const fn of allNodes(file)) {
      if (fn.type !== 'function_definition') continue;
      const body = fn.text;
      if (ORIGIN_READ.test(body) && /\b403\b|HTTP_403_FORBIDDEN|HTTPStatus\.FORBIDDEN/.test(body)) {
        s.checks.push({ file: file.rel, line: lineOf(fn), how: 'origin middleware' });
      }
    }
  }
  s.servers = [...instances.values()].filter((i) => i.servesHttp);
  setupMemo.set(model, s);
  return s;
}

/* ---------------- declared mcp SDK version ---------------- */

export interface DeclaredVersion {
  version: string;
  file: string;
  /** 'locked' (a lock file), 'pinned' (==), 'minimum' (>=, ~=, ^). */
  how: 'locked' | 'pinned' | 'minimum';
}

/** The version of a Python package the repository locks or pins (lock files first, then requirements and pyproject). */
export function declaredPythonVersion(repo: RepoFacts, pkg: string): DeclaredVersion | undefined {
  const esc = pkg.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  const files = repo.files.filter((f) => !isSkippedPythonPath(f));
  const read = (f: string) => {
    const t = repo.text(f);
    return t.ok ? t.value : undefined;
  };
  for (const f of files.filter((x) => /(?:^|\/)(?:uv|poetry|pdm)\.lock$/.test(x))) {
    const t = read(f);
    const m = t && new RegExp(`\\[\\[package\\]\\]\\s*\\nname\\s*=\\s*"${esc}"\\s*\\nversion\\s*=\\s*"([^"]+)"`).exec(t);
    if (m) return { version: m[1]!, file: f, how: 'locked' };
  }
  const spec = new RegExp(`(?:^|["'\\s,\\[])${esc}(?:\\[[^\\]]*\\])?\\s*(===?|>=|~=)\\s*v?([0-9][0-9a-zA-Z.]*)`, 'm');
  for (const f of files.filter((x) => /(?:^|\/)requirements[\w.-]*\.(?:txt|in)$/.test(x) || /(?:^|\/)(?:pyproject\.toml|setup\.cfg|setup\.py)$/.test(x))) {
    const t = read(f);
    if (!t) continue;
    const m = spec.exec(t);
    if (m) return { version: m[2]!, file: f, how: m[1]!.startsWith('==') ? 'pinned' : 'minimum' };
    const poetry = new RegExp(`^\\s*${esc}\\s*=\\s*(?:\\{[^}\\n]*version\\s*=\\s*)?"\\s*([\\^~>=]*)\\s*([0-9][0-9a-zA-Z.]*)`, 'm').exec(t);
    if (poetry && f.endsWith('pyproject.toml')) return { version: poetry[2]!, file: f, how: poetry[1] ? 'minimum' : 'pinned' };
  }
  return undefined;
}

/** Compare dotted numeric versions (`1.23.0` vs `1.9`): negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10));
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length, 3); i++) {
    const x = Number.isFinite(pa[i]) ? pa[i]! : 0;
    const y = Number.isFinite(pb[i]) ? pb[i]! : 0;
    if (x !== y) return x - y;
  }
  return 0;
}
