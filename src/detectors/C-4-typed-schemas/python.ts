import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { PyTool } from '../../facts/python-model.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { fileOf, pyLiteral, pyNoToolsFound, pyTools, registrationKeyword, type PyLit } from '../support/python/python-tools.js';

/**
 * C-4, static part on a Python server (called by static.ts when the source is Python), over the Python model:
 *   - FastMCP: the SDK builds the input schema from the function's signature and the output schema from
 *     its return annotation. A parameter with no annotation, or typed `Any` / `object`, is a node with no
 *     type ('untyped_property'); `dict` / `Mapping` / `dict[str, Any]` is an object with no declared
 *     property left open ('open_json_object'); a bare `list` / `tuple` / `set` is an array with no items.
 *     No return annotation: no output schema ('python-missing-schema', output); `-> Any` / `-> dict` are
 *     catch-alls as above. `Annotated[...]`, `Optional[...]` and `... | None` are looked through.
 *   - low-level `types.Tool(inputSchema=..., outputSchema=...)` dict literals, with the JSON Schema checks
 *     of the JavaScript part: `{}`, an object without properties left open (except at the root of the input
 *     schema, the form for "no arguments", unless additionalProperties is true), additionalProperties true,
 *     a property with no type, an array with no items. A schema that is not a literal is not judged
 *     ('schemas-not-literal').
 */

type Construct = 'untyped_property' | 'open_json_object' | 'additional_properties_true' | 'array_without_items' | 'empty_json_schema';

/** The annotation without `Annotated[...]` metadata, `Optional[...]` and `| None`. */
function core(annotation: string): string {
  let a = annotation.replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 5; i++) {
    const before = a;
    let m = /^(?:typing\.)?Annotated\[\s*(.*)\]$/s.exec(a);
    if (m) a = splitTop(m[1]!)[0]!.trim();
    m = /^(?:typing\.)?Optional\[\s*(.*)\]$/s.exec(a);
    if (m) a = m[1]!.trim();
    const parts = splitTop(a, '|').map((s) => s.trim()).filter((s) => s !== 'None');
    if (parts.length === 1) a = parts[0]!;
    if (a === before) break;
  }
  return a;
}

/** Split on a separator outside brackets. */
function splitTop(s: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    if (ch === sep && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

const ANY = /^(?:typing\.)?Any$|^object$/;
const OPEN_MAP = /^(?:typing\.)?(?:dict|Dict|Mapping|MutableMapping)(?:\[\s*str\s*,\s*(?:typing\.)?Any\s*\])?$/;
const BARE_ARRAY = /^(?:typing\.)?(?:list|List|tuple|Tuple|set|Set|Sequence|Iterable)$/;
const ANY_ITEMS = /^(?:typing\.)?(?:list|List|Sequence|set|Set)\[\s*(?:typing\.)?Any\s*\]$/;

/** The catch-all an annotation stands for, if any (undefined annotation: no type at all). */
export function annotationCatchAll(annotation: string | undefined, depth = 0): Construct | undefined {
  if (annotation === undefined) return 'untyped_property';
  const a = core(annotation);
  if (ANY.test(a) || ANY_ITEMS.test(a)) return 'untyped_property';
  if (OPEN_MAP.test(a)) return 'open_json_object';
  if (BARE_ARRAY.test(a)) return 'array_without_items';
  // The arguments of a container or a union: `list[dict]` holds an open mapping.
  const g = /^(?:typing\.)?(list|List|Sequence|Iterable|set|Set|frozenset|tuple|Tuple|dict|Dict|Mapping|Union)\[(.*)\]$/s.exec(a);
  if (g && depth < 8) {
    const args = splitTop(g[2]!).map((x) => x.trim()).filter((x) => x !== '...' && x !== '');
    for (const x of /^(?:dict|Dict|Mapping)$/.test(g[1]!) ? args.slice(1) : args) {
      const c = annotationCatchAll(x, depth + 1);
      if (c) return c;
    }
  }
  return undefined;
}

const TYPED_BY = ['type', 'enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'not'];

/** Catch-alls in a JSON Schema dict literal; undefined when part of it is not a literal. */
function jsonCatchAlls(lit: PyLit, root: boolean): { construct: Construct; line: number }[] | undefined {
  if (lit.kind === 'unknown') return undefined;
  if (lit.kind !== 'object') return [];
  if (lit.open) return undefined;
  const out: { construct: Construct; line: number }[] = [];
  const e = lit.entries;
  if (e.size === 0) return [{ construct: 'empty_json_schema', line: lit.line }];
  const scalar = (k: string) => {
    const v = e.get(k)?.value;
    return v?.kind === 'scalar' ? v.value : undefined;
  };
  const type = scalar('type');
  const props = e.get('properties')?.value;
  const hasProps = props?.kind === 'object' && props.entries.size > 0;
  const addl = e.get('additionalProperties');
  if (addl?.value.kind === 'scalar' && addl.value.value === true) out.push({ construct: 'additional_properties_true', line: addl.line });
  else if (type === 'object' && !hasProps && !addl && !root) out.push({ construct: 'open_json_object', line: lit.line });
  if (!TYPED_BY.some((k) => e.has(k))) out.push({ construct: 'untyped_property', line: lit.line });
  if (type === 'array' && !e.has('items') && !e.has('prefixItems')) out.push({ construct: 'array_without_items', line: lit.line });
  const children: PyLit[] = [];
  if (props?.kind === 'object') children.push(...[...props.entries.values()].map((x) => x.value));
  for (const k of ['items', 'additionalProperties', 'not']) {
    const v = e.get(k)?.value;
    if (v?.kind === 'object') children.push(v);
  }
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const v = e.get(k)?.value;
    if (v?.kind === 'list') children.push(...v.items);
  }
  for (const c of children) {
    const sub = jsonCatchAlls(c, false);
    if (!sub) return undefined;
    out.push(...sub);
  }
  return out;
}

export function judgePythonSchemas(repo: RepoFacts, session?: SessionFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const tools = pyTools(model);
  if (tools.length === 0) return pyNoToolsFound(model, session);
  const findings: Finding[] = [];
  let unread = 0;
  const catchAll = (t: PyTool, schema: 'input' | 'output', construct: Construct, line: number, evidence: string) =>
    findings.push({ messageId: 'python-catch-all', data: { tool: t.name, schema, construct }, location: { file: t.file, line }, evidence: evidence.replace(/\s+/g, ' ').slice(0, 120) });
  const missing = (t: PyTool, schema: 'input' | 'output', line: number) => findings.push({ messageId: 'python-missing-schema', data: { tool: t.name, schema }, location: { file: t.file, line } });
  for (const t of tools) {
    if (t.api === 'fastmcp') {
      for (const p of t.params) {
        const c = annotationCatchAll(p.annotation);
        if (c) catchAll(t, 'input', c, p.line, p.annotation ? `${p.name}: ${p.annotation}` : p.name);
      }
      // structured_output=False: the SDK serves no output schema whatever the return annotation says.
      const structured = registrationKeyword(t, 'structured_output');
      if (structured?.type === 'false') missing(t, 'output', structured.startPosition.row + 1);
      else if (!t.returns) missing(t, 'output', t.line);
      else {
        const c = annotationCatchAll(t.returns.text);
        if (c) catchAll(t, 'output', c, t.returns.startPosition.row + 1, `-> ${t.returns.text}`);
      }
      continue;
    }
    const file = fileOf(model, t);
    for (const [schema, names] of [
      ['input', ['inputSchema', 'input_schema']],
      ['output', ['outputSchema', 'output_schema']],
    ] as const) {
      const node: Node | undefined = registrationKeyword(t, ...names);
      if (!node || node.type === 'none') {
        missing(t, schema, t.line);
        continue;
      }
      const hits = file ? jsonCatchAlls(pyLiteral(node, file), schema === 'input') : undefined;
      if (!hits) {
        unread++;
        continue;
      }
      for (const h of hits) catchAll(t, schema, h.construct, h.line, node.text);
    }
  }
  if (findings.length) return { state: 'non-conforming', findings };
  const gap = unreadableVerdict(model);
  if (gap) return gap;
  if (unread) return couldNotJudge('schemas-not-literal', { count: unread });
  return present();
}
