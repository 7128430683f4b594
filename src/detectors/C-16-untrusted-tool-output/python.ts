import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { HTTP_CLIENTS, HTTP_VERBS } from '../../facts/python-flow.js';
import { callParts, constString, fnName, lastName, moduleConst, qualName, type PyTool, type PythonModel } from '../../facts/python-model.js';
import { allNodes, descendants, kids, lineOf, nodesWithin, stringLiteral, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { fileOf, pyTools, registrationKeyword } from '../support/python/python-tools.js';
import { bare, calledFunction, localValue, moduleFile, returnedValues } from '../support/python/python-results.js';
import { instructionLike } from './instructions.js';

/**
 * C-16, static part on a Python server (called by index.ts when the source is Python only). The same
 * question and message ids as the JavaScript reading:
 *
 * Third-party content: what an outbound request returns (`requests.*` / `httpx.*` verbs, the verbs of a
 * `httpx.AsyncClient()` / `requests.Session()` / `aiohttp.ClientSession()` instance, `urllib.request.urlopen`)
 * or what a file read returns when the path is not the package's own file (a literal, or a path built from
 * `__file__`, is the server's own content): `open(path)`, `Path(p).read_text()`. It is followed backwards
 * from where it is used through local and module assignments, `with ... as`, `for` targets and
 * comprehensions, attribute and item reads, method calls on it (`resp.json()`, `page[:500]`), f-strings,
 * concatenations and `.format()`, and into functions of the source that return it (helpers, methods of
 * a class instance, functions of another module), a few levels deep.
 *
 * Instruction positions, red when such content reaches them with no trust-boundary marker:
 *   - 'external-in-description': the `description=` of `@mcp.tool(...)`, `add_tool(...)` or `types.Tool(...)`;
 *   - 'external-in-instructions': `FastMCP(..., instructions=...)`, `Server(..., instructions=...)`;
 *   - 'external-in-prompt': a message text of a prompt (`@mcp.prompt` return values, `UserMessage(...)`,
 *     `TextContent(text=...)` in a prompt or in a low-level `@server.get_prompt()` handler); an embedded
 *     resource (`TextResourceContents(uri=..., text=...)`) is data with its provenance and is not judged;
 *   - 'external-in-instruction-text': a tool result text (a FastMCP tool's returned string, a
 *     `TextContent(text=...)` of a tool) that interpolates it into sentences addressed to the model (the
 *     JavaScript part's reviewed phrase registry).
 * A marker is a delimiter around the interpolation (an XML-like tag just before it and its closing tag after,
 * or the word "untrusted" in the text) or a call named like sanitize/escape/untrusted/fence/quote around it.
 * Nothing the model reads is registered (no tool, prompt or resource): could-not-judge 'no-tools-in-source'.
 */

const MARKER_CALL = /sanitiz|escape|untrusted|fence|quote|delimit|wrap_?external|as_?data/i;
const HTTP_MODULES = /^(?:requests|httpx|aiohttp)$/;
const PASS_CALLS = new Set(['str', 'repr', 'list', 'dict', 'tuple', 'sorted', 'json.loads', 'json.dumps', 'orjson.loads', 'textwrap.dedent', 'html.unescape']);
const FILE_OPENERS = new Set(['open', 'io.open', 'codecs.open', 'aiofiles.open', 'builtins.open']);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
const NOT_TEXT = new Set(['status_code', 'status', 'ok', 'is_success', 'is_error', 'elapsed', 'encoding']);

interface Origin {
  call: string;
  kind: 'http' | 'fs';
}

/** A piece of a text: literal characters, or an expression put into it. */
type Piece = { lit: string } | { expr: Node };

class PyTracer {
  constructor(private readonly model: PythonModel) {}

  /** The value a name stands for at a node: a with/for/comprehension binding, a local or module assignment. */
  private nameValue(id: Node, file: PythonFile): { value: Node; file: PythonFile } | undefined {
    const name = id.text;
    for (let p: Node | null = id.parent; p; p = p.parent) {
      if (SCOPES.has(p.type) && p.type !== 'lambda') break;
      if (/comprehension$|^generator_expression$/.test(p.type)) {
        for (const c of kids(p)) {
          if (c.type !== 'for_in_clause') continue;
          const left = c.childForFieldName('left');
          const right = c.childForFieldName('right');
          if (left && right && binds(left, name)) return { value: right, file };
        }
      }
      if (p.type === 'for_statement' || p.type === 'with_statement') {
        if (p.type === 'for_statement') {
          const left = p.childForFieldName('left');
          const right = p.childForFieldName('right');
          if (left && right && binds(left, name)) return { value: right, file };
        } else {
          for (const item of descendants(p, (d) => d.type === 'block')) {
            if (item.type !== 'as_pattern') continue;
            const alias = item.childForFieldName('alias');
            const value = kids(item)[0];
            if (alias && value && binds(alias, name)) return { value, file };
          }
        }
      }
    }
    const local = localValue(name, id);
    if (local) return { value: local, file };
    const mod = moduleConst(file, name);
    if (mod && mod.id !== id.id) return { value: mod, file };
    const imported = file.imports.get(name);
    if (imported?.includes('.')) {
      const cut = imported.lastIndexOf('.');
      const target = moduleFile(this.model, imported.slice(0, cut), file);
      const v = target ? moduleConst(target, imported.slice(cut + 1)) : undefined;
      if (v && target) return { value: v, file: target };
    }
    return undefined;
  }

  /** `self.x` assigned in the class that holds the node (`self._http = httpx.AsyncClient()`). */
  private selfValue(attr: Node): Node | undefined {
    const obj = attr.childForFieldName('object');
    const name = attr.childForFieldName('attribute')?.text;
    if (obj?.text !== 'self' || !name) return undefined;
    let cls: Node | null = attr.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    if (!cls) return undefined;
    for (const d of descendants(cls)) {
      if (d.type !== 'assignment') continue;
      const l = d.childForFieldName('left');
      if (l?.type === 'attribute' && l.text.replace(/\s/g, '') === `self.${name}`) return d.childForFieldName('right') ?? undefined;
    }
    return undefined;
  }

  /** Is this value an HTTP client instance? */
  private isClient(n: Node | undefined, file: PythonFile, depth = 0): boolean {
    if (!n || depth > 4) return false;
    const x = bare(n);
    if (x.type === 'call') return HTTP_CLIENTS.has(qualName(x, file) ?? '');
    if (x.type === 'identifier') {
      const v = this.nameValue(x, file);
      return !!v && this.isClient(v.value, v.file, depth + 1);
    }
    if (x.type === 'attribute') return this.isClient(this.selfValue(x), file, depth + 1);
    return false;
  }

  /** A path fixed in the code: a literal, or one built from `__file__` (the package's own file). */
  private ownPath(n: Node | undefined, file: PythonFile, depth = 0): boolean {
    if (!n || depth > 4) return false;
    const x = bare(n);
    const s = stringLiteral(x);
    if (s) return !s.interpolated;
    if (/\b__file__\b|importlib\.resources|\bfiles\(__package__\)/.test(x.text)) return true;
    if (x.type === 'identifier') {
      const v = this.nameValue(x, file);
      return !!v && this.ownPath(v.value, v.file, depth + 1);
    }
    return false;
  }

  /** The third-party call a value comes from, if any. */
  origin(n: Node | undefined, file: PythonFile, depth = 0, seen = new Set<number>()): Origin | undefined {
    if (!n || depth > 12 || seen.has(n.id)) return undefined;
    seen.add(n.id);
    const x = bare(n);
    const next = (y: Node | null | undefined, f: PythonFile = file) => (y ? this.origin(y, f, depth + 1, seen) : undefined);
    const first = (ys: (Node | null | undefined)[], f: PythonFile = file) => {
      for (const y of ys) {
        const o = next(y, f);
        if (o) return o;
      }
      return undefined;
    };
    switch (x.type) {
      case 'call':
        return this.callOrigin(x, file, depth, seen);
      case 'attribute':
        // A response's status is not text a third party writes.
        if (NOT_TEXT.has(x.childForFieldName('attribute')?.text ?? '')) return undefined;
        return next(x.childForFieldName('object'));
      case 'subscript':
        return next(x.childForFieldName('value'));
      case 'identifier': {
        const v = this.nameValue(x, file);
        return v ? next(v.value, v.file) : undefined;
      }
      case 'string':
      case 'concatenated_string':
      case 'binary_operator':
        return first(pieces(x).map((p) => ('expr' in p ? p.expr : undefined)));
      case 'conditional_expression': {
        const [a, , b] = kids(x);
        return first([a, b]);
      }
      case 'boolean_operator':
      case 'list':
      case 'tuple':
      case 'expression_list':
      case 'parenthesized_expression':
        return first(kids(x));
      case 'list_comprehension':
      case 'generator_expression':
      case 'set_comprehension':
        return first([x.childForFieldName('body'), ...kids(x).filter((k) => k.type === 'for_in_clause').map((k) => k.childForFieldName('right'))]);
      default:
        return undefined;
    }
  }

  private callOrigin(x: Node, file: PythonFile, depth: number, seen: Set<number>): Origin | undefined {
    const p = callParts(x);
    if (!p) return undefined;
    const next = (y: Node | null | undefined, f: PythonFile = file) => (y ? this.origin(y, f, depth + 1, seen) : undefined);
    const q = qualName(p.fn, file) ?? '';
    const name = lastName(q) ?? lastName(p.fn.text) ?? '';
    if (MARKER_CALL.test(name)) return undefined;
    const callText = p.fn.text.replace(/\s+/g, '').slice(0, 80);
    const obj = p.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
    // Outbound requests.
    const m = /^(.*)\.(\w+)$/.exec(q);
    if (m && HTTP_VERBS.has(m[2]!) && (HTTP_MODULES.test(m[1]!) || HTTP_CLIENTS.has(m[1]!) || (obj && this.isClient(obj, file)))) return { call: callText, kind: 'http' };
    if (q === 'urllib.request.urlopen' || q === 'aiohttp.request') return { call: callText, kind: 'http' };
    // File reads.
    if (FILE_OPENERS.has(q)) {
      const mode = constString(p.args[1] ?? p.kw.get('mode'), file) ?? 'r';
      if (!/[wax]/.test(mode) && !this.ownPath(p.args[0] ?? p.kw.get('file'), file)) return { call: callText, kind: 'fs' };
      return undefined;
    }
    if ((name === 'read_text' || name === 'read_bytes') && obj) {
      const o = bare(obj);
      const path = o.type === 'call' && /(?:^|\.)Path$/.test(lastName(qualName(o, file)) ?? '') ? callParts(o)?.args[0] : o;
      return this.ownPath(path, file) ? undefined : { call: callText, kind: 'fs' };
    }
    // A method on a third-party value (resp.json(), text.strip(), "\n".join(lines) reads its argument).
    if (obj) {
      const o = next(obj);
      if (o) return o;
      if (name === 'join' || name === 'format') {
        for (const a of [...p.args, ...p.kw.values()]) {
          const oa = next(a);
          if (oa) return oa;
        }
      }
    }
    if (PASS_CALLS.has(q)) {
      for (const a of p.args) {
        const o = next(a);
        if (o) return o;
      }
    }
    // A function of the source that returns third-party content.
    if (depth < 8) {
      const target = calledFunction(this.model, p.fn, file);
      if (target) {
        for (const r of returnedValues(this.model, target.fn, target.file)) {
          const o = next(r.value, r.file);
          if (o) return o;
        }
      }
    }
    return undefined;
  }
}

/** Does an assignment target (name, tuple, pattern) bind this name? */
function binds(target: Node, name: string): boolean {
  if (target.type === 'identifier') return target.text === name;
  return descendants(target).some((d) => d.type === 'identifier' && d.text === name && d.parent?.type !== 'attribute');
}

/** A text as literal pieces and interpolated expressions: f-strings, implicit and `+` concatenations, `"...".format(...)`. */
function pieces(n: Node): Piece[] {
  const x = bare(n);
  if (x.type === 'string') {
    const out: Piece[] = [];
    for (const c of kids(x)) {
      if (c.type === 'string_content' || c.type === 'escape_sequence') out.push({ lit: c.text });
      else if (c.type === 'interpolation') {
        const e = c.childForFieldName('expression') ?? c.namedChild(0);
        if (e) out.push({ expr: e });
      }
    }
    return out;
  }
  if (x.type === 'concatenated_string') return kids(x).flatMap(pieces);
  if (x.type === 'binary_operator' && (x.childForFieldName('operator')?.text === '+' || x.childForFieldName('operator')?.text === '%')) {
    const l = x.childForFieldName('left');
    const r = x.childForFieldName('right');
    return [...(l ? pieces(l) : []), ...(r ? (stringLiteral(r) ? pieces(r) : [{ expr: r }]) : [])];
  }
  if (x.type === 'call') {
    const p = callParts(x);
    const obj = p?.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
    if (p && obj && stringLiteral(bare(obj)) && p.fn.childForFieldName('attribute')?.text === 'format') {
      const lits = (stringLiteral(bare(obj))?.value ?? '').split(/\{[^{}]*\}/);
      const args = [...p.args, ...p.kw.values()];
      const out: Piece[] = [];
      lits.forEach((l, i) => {
        out.push({ lit: l });
        if (i < lits.length - 1 && args[i]) out.push({ expr: args[i]! });
      });
      return out;
    }
  }
  const s = stringLiteral(x);
  return s ? [{ lit: s.value }] : [{ expr: x }];
}

/** The text of a value (a name is read through its local assignment). */
function textNode(n: Node): Node {
  const x = bare(n);
  if (x.type === 'identifier') {
    const v = localValue(x.text, x);
    if (v && ['string', 'concatenated_string', 'binary_operator', 'call'].includes(bare(v).type)) return bare(v);
  }
  return x;
}

const literalText = (n: Node): string => pieces(n).map((p) => ('lit' in p ? p.lit : ' ')).join('');

/** Every interpolation is delimited or passed through a marker call, or the text says "untrusted". */
function marked(n: Node, file: PythonFile): boolean {
  const x = bare(n);
  const isMarkerCall = (e: Node) => {
    const b = bare(e);
    return b.type === 'call' && MARKER_CALL.test(lastName(qualName(callParts(b)?.fn, file)) ?? lastName(callParts(b)?.fn.text) ?? '');
  };
  if (isMarkerCall(x)) return true;
  const ps = pieces(x);
  if (ps.some((p) => 'lit' in p && /untrusted/i.test(p.lit))) return true;
  const exprs = ps.map((p, i) => ({ p, i })).filter(({ p }) => 'expr' in p);
  if (!exprs.length) return false;
  return exprs.every(({ p, i }) => {
    if (isMarkerCall((p as { expr: Node }).expr)) return true;
    const before = ps.slice(0, i).reverse().find((q) => 'lit' in q) as { lit: string } | undefined;
    const after = ps.slice(i + 1).find((q) => 'lit' in q) as { lit: string } | undefined;
    return !!before && !!after && /<[A-Za-z][\w:-]*(?:\s[^<>]*)?>\s*$/.test(before.lit) && /^\s*<\//.test(after.lit);
  });
}

/** Calls inside a function's own body (nested functions left out). */
function ownCalls(file: PythonFile, fn: Node, part?: Node): Node[] {
  return nodesWithin(file, part ?? fn).filter((c) => {
    if (c.type !== 'call') return false;
    for (let p = c.parent; p && p.id !== fn.id; p = p.parent) if (SCOPES.has(p.type)) return false;
    return true;
  });
}

/** The `text=` of TextContent calls (never the text of an embedded resource's contents). */
function textSlots(file: PythonFile, fn: Node, part?: Node): Node[] {
  const out: Node[] = [];
  for (const c of ownCalls(file, fn, part)) {
    const p = callParts(c)!;
    const name = lastName(qualName(p.fn, file)) ?? '';
    if (name === 'TextContent') {
      const t = p.kw.get('text');
      if (t) out.push(t);
    }
  }
  for (const d of nodesWithin(file, part ?? fn)) {
    if (d.type !== 'dictionary') continue;
    const pairs = kids(d).filter((k) => k.type === 'pair');
    const key = (k: string) => pairs.find((pr) => constString(pr.childForFieldName('key'), file) === k);
    if (constString(key('type')?.childForFieldName('value'), file) === 'text' && !key('uri')) {
      const v = key('text')?.childForFieldName('value');
      if (v) out.push(v);
    }
  }
  return out;
}

const PROMPT_MESSAGES = /^(?:UserMessage|AssistantMessage|Message)$/;

/** The message texts of a prompt function: returned strings, `UserMessage(...)` contents, TextContent texts, message dicts. */
function promptSlots(model: PythonModel, file: PythonFile, fn: Node): Node[] {
  const out = textSlots(file, fn);
  for (const c of ownCalls(file, fn)) {
    const p = callParts(c)!;
    if (!PROMPT_MESSAGES.test(lastName(qualName(p.fn, file)) ?? '')) continue;
    const v = p.kw.get('content') ?? p.args[0];
    if (v && bare(v).type !== 'call') out.push(v);
  }
  for (const d of nodesWithin(file, fn)) {
    if (d.type !== 'pair' || constString(d.childForFieldName('key'), file) !== 'content') continue;
    const v = d.childForFieldName('value');
    if (v && bare(v).type !== 'dictionary' && bare(v).type !== 'call') out.push(v);
  }
  for (const r of returnedValues(model, fn, file)) {
    if (r.file !== file) continue;
    const x = r.value;
    if (['string', 'concatenated_string', 'binary_operator', 'identifier'].includes(x.type)) out.push(x);
    else if (x.type === 'list') out.push(...kids(x).filter((k) => ['string', 'concatenated_string', 'binary_operator'].includes(k.type)));
  }
  return out;
}

/** Low-level `@<server>.get_prompt()` handlers (the Python model lists FastMCP prompts only). */
function lowLevelPromptHandlers(model: PythonModel): { file: PythonFile; fn: Node }[] {
  const out: { file: PythonFile; fn: Node }[] = [];
  for (const file of model.sources.files.values()) {
    if (!/\.get_prompt\b/.test(file.text)) continue;
    for (const dd of allNodes(file)) {
      if (dd.type !== 'decorated_definition') continue;
      const def = dd.childForFieldName('definition');
      if (def?.type !== 'function_definition') continue;
      if (kids(dd).some((d) => d.type === 'decorator' && /^@\s*[\w.]+\.get_prompt\b/.test(d.text))) out.push({ file, fn: def });
    }
  }
  return out;
}

/** A tool's name for messages; a name that is not a literal (`name=entry["name"]`) is shown as written. */
function label(t: PyTool): string {
  if (t.name !== '?') return t.name;
  return registrationKeyword(t, 'name')?.text.replace(/\s+/g, ' ').slice(0, 60) ?? t.name;
}

export function judgePythonUntrusted(repo: RepoFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const lowPrompts = lowLevelPromptHandlers(model);
  const hasCallToolHandler = model.handlers.some((h) => h.tools.length === 0 || h.tools[0]!.api === 'lowlevel');
  if (model.tools.length === 0 && lowPrompts.length === 0 && !hasCallToolHandler) {
    return unreadableVerdict(model) ?? couldNotJudge('no-tools-in-source', { unread: model.sources.unread.length });
  }
  const tracer = new PyTracer(model);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const push = (messageId: string, file: PythonFile, at: Node, data: Record<string, string>) => {
    const key = `${messageId}|${file.rel}:${lineOf(at)}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ messageId, data, location: { file: file.rel, line: lineOf(at) } });
  };
  const check = (v: Node, file: PythonFile): Origin | undefined => {
    const s = stringLiteral(bare(v));
    if (s && !s.interpolated) return undefined;
    const o = tracer.origin(v, file);
    return o && !marked(textNode(v), file) ? o : undefined;
  };

  // Tool descriptions.
  for (const t of pyTools(model)) {
    const file = fileOf(model, t);
    const d = registrationKeyword(t, 'description');
    if (!file || !d) continue;
    const o = check(d, file);
    if (o) push('external-in-description', file, d, { name: label(t), call: o.call });
  }

  // Server instructions.
  for (const file of model.sources.files.values()) {
    if (!/instructions/.test(file.text)) continue;
    for (const n of allNodes(file)) {
      let v: Node | undefined;
      if (n.type === 'call') {
        const p = callParts(n)!;
        const q = qualName(p.fn, file) ?? '';
        const fast = /(?:^|\.)(?:FastMCP|MCPServer)$/.test(q);
        if (!fast && !/(?:^|\.)Server$/.test(q)) continue;
        v = p.kw.get('instructions') ?? (fast ? p.args[1] : undefined);
      } else if (n.type === 'assignment' && /\.instructions$/.test(n.childForFieldName('left')?.text ?? '')) v = n.childForFieldName('right') ?? undefined;
      if (!v) continue;
      const o = check(v, file);
      if (o) push('external-in-instructions', file, v, { call: o.call });
    }
  }

  // Prompts.
  const prompts = [
    ...model.tools.filter((t) => t.kind === 'prompt' && t.handler).map((t) => ({ file: fileOf(model, t), fn: t.handler!, name: t.name })),
    ...lowPrompts.map((p) => ({ file: p.file, fn: p.fn, name: fnName(p.fn) })),
  ];
  for (const p of prompts) {
    if (!p.file) continue;
    for (const v of promptSlots(model, p.file, p.fn)) {
      const o = check(v, p.file);
      if (o) push('external-in-prompt', p.file, v, { name: p.name, call: o.call });
    }
  }

  // Tool result texts addressed to the model.
  for (const t of pyTools(model)) {
    if (!t.handler) continue;
    const file = t.api === 'fastmcp' ? fileOf(model, t) : model.handlers.find((h) => h.fn.id === t.handler!.id)?.file;
    if (!file) continue;
    const parts = t.api === 'lowlevel' && t.branches.length ? t.branches : [undefined];
    const slots = parts.flatMap((b) => textSlots(file, t.handler!, b));
    if (t.api === 'fastmcp') {
      for (const r of returnedValues(model, t.handler, file)) if (r.file === file && ['string', 'concatenated_string', 'binary_operator', 'identifier', 'call'].includes(r.value.type)) slots.push(r.value);
    }
    const handler = t.api === 'lowlevel' ? model.handlers.find((h) => h.fn.id === t.handler!.id) : undefined;
    for (const v of slots) {
      if (!instructionLike(literalText(textNode(v)))) continue;
      const o = check(v, file);
      // A text of a low-level handler belongs to the tool whose dispatch branch holds it.
      const owner = handler?.toolAt(v) ?? t;
      if (o) push('external-in-instruction-text', file, v, { name: label(owner), call: o.call });
    }
  }

  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model) ?? present();
}
