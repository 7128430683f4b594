import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { HTTP_CLIENTS, HTTP_VERBS } from '../../facts/python-flow.js';
import { callParts, lastName, moduleConst, paramsOf, qualName, type PythonModel } from '../../facts/python-model.js';
import { allNodes, descendants, kids, lineOf, stringLiteral, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { bare, calledFunction, localValue, moduleFile, returnedValues } from '../support/python/python-results.js';

/**
 * S-12, static part on a Python server (called by static.ts when the source is Python only). The same
 * question and message id as the JavaScript reading ('list-handler-ignores-cursor'):
 *   - list sources: the low-level `@server.list_tools()`, `list_prompts()`, `list_resources()` and
 *     `list_resource_templates()` handlers, and SDK 2's `Server(on_list_tools=..., ...)` functions. FastMCP
 *     registrations (`@mcp.tool`, `@mcp.resource`…) are a catalog written in code: no paging needed (its
 *     resource templates have no list callback);
 *   - what a handler returns (a list, or a `List…Result(...)`) is followed through local names,
 *     comprehensions, `list()` / `sorted()` / `.values()`, and functions of the source (helpers, methods of
 *     a module-level instance), and classified: 'fixed' (literals, module constants and instance fields that
 *     no code run per request changes), 'data' (a module store or an instance field that a handler, or a
 *     function it calls, changes; a folder listed with os.listdir / glob / Path.iterdir that is not the
 *     package's own; an HTTP response; an awaited call the source does not define, or a database read
 *     such as `fetchall()`), 'unknown' otherwise;
 *   - red: a 'data' list whose handler never reads the request's cursor (`request.params.cursor`,
 *     `params.cursor`, a `cursor` parameter; a database `conn.cursor()` is not one). SDK 1.x's
 *     `list_resource_templates()` handler receives no request, so a data-driven template list there is red.
 * A list whose origin cannot be followed, nothing red: could-not-judge 'list-source-unknown'. Nothing
 * registered and no list handler: could-not-judge 'no-lists-in-source'.
 */

type ListMethod = 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';
type Items = 'fixed' | 'data' | 'unknown';

const DECORATORS: Record<string, ListMethod> = {
  list_tools: 'tools/list',
  list_prompts: 'prompts/list',
  list_resources: 'resources/list',
  list_resource_templates: 'resources/templates/list',
};
const RESULT_KEYS = ['tools', 'prompts', 'resources', 'resourceTemplates', 'resource_templates'];
const PASS_CALLS = new Set(['list', 'sorted', 'tuple', 'set', 'reversed', 'filter', 'map', 'enumerate']);
const PASS_METHODS = new Set(['values', 'keys', 'items', 'copy']);
const MUTATORS = new Set(['append', 'extend', 'insert', 'add', 'update', 'pop', 'popitem', 'remove', 'discard', 'clear', 'setdefault', '__setitem__', '__delitem__']);
const DB_READS = /^(?:fetchall|fetchmany|fetch|fetchrow|execute|query|find|scan|select|all)$/;
/** Decorators of the functions a request runs (FastMCP and low-level registrations). */
const HANDLER_DECORATOR = /^@\s*[\w.]+\.(?:tool|call_tool|resource|read_resource|prompt|get_prompt|list_\w+|completion|subscribe_resource|unsubscribe_resource)\b/;
const FOLDER_LISTS = new Set(['os.listdir', 'os.scandir', 'os.walk', 'glob.glob', 'glob.iglob']);
const PATH_LISTS = new Set(['iterdir', 'glob', 'rglob']);

interface PyListSource {
  method: ListMethod;
  file: PythonFile;
  fn: Node;
}

const worst = (xs: Items[]): Items => (xs.includes('data') ? 'data' : xs.includes('unknown') || xs.length === 0 ? 'unknown' : 'fixed');

/** The list handlers of the source. */
function listSources(model: PythonModel): PyListSource[] {
  const out: PyListSource[] = [];
  for (const file of model.sources.files.values()) {
    if (!/list_(?:tools|prompts|resources|resource_templates)\b/.test(file.text)) continue;
    for (const n of allNodes(file)) {
      if (n.type === 'decorated_definition') {
        const def = n.childForFieldName('definition');
        if (def?.type !== 'function_definition') continue;
        for (const d of kids(n)) {
          if (d.type !== 'decorator') continue;
          const m = /^@\s*[\w.]+\.(list_tools|list_prompts|list_resources|list_resource_templates)\s*\(/.exec(d.text);
          if (m) out.push({ method: DECORATORS[m[1]!]!, file, fn: def });
        }
      } else if (n.type === 'call') {
        // SDK 2: Server("name", on_list_tools=handler, ...)
        const p = callParts(n);
        if (!p || !/(?:^|\.)Server$/.test(qualName(p.fn, file) ?? '')) continue;
        for (const [k, v] of p.kw) {
          const m = /^on_(list_tools|list_prompts|list_resources|list_resource_templates)$/.exec(k);
          if (!m) continue;
          const target = calledFunction(model, v, file);
          if (target) out.push({ method: DECORATORS[m[1]!]!, file: target.file, fn: target.fn });
        }
      }
    }
  }
  return out;
}

/** Reads the request's cursor: a `cursor` parameter, or `.cursor` read as a value (not `conn.cursor()`). */
function readsCursor(fn: Node): boolean {
  if (paramsOf(fn).some((p) => /cursor/i.test(p.name))) return true;
  return descendants(fn).some((d) => d.type === 'attribute' && d.childForFieldName('attribute')?.text === 'cursor' && d.parent?.type !== 'call');
}

class Classifier {
  /** Module stores changed by code run per request: `file:name`. */
  private readonly changed = new Set<string>();

  constructor(private readonly model: PythonModel) {
    const perRequest = this.perRequestFunctions();
    for (const { fn, file } of perRequest) {
      for (const d of descendants(fn)) {
        let target: Node | null | undefined;
        if (d.type === 'assignment' || d.type === 'augmented_assignment') {
          const l = d.childForFieldName('left');
          target = l?.type === 'subscript' ? l.childForFieldName('value') : d.type === 'augmented_assignment' ? l : undefined;
        } else if (d.type === 'delete_statement') target = kids(d)[0]?.type === 'subscript' ? kids(d)[0]!.childForFieldName('value') : undefined;
        else if (d.type === 'call') {
          const f = d.childForFieldName('function');
          if (f?.type === 'attribute' && MUTATORS.has(f.childForFieldName('attribute')?.text ?? '')) target = f.childForFieldName('object');
        }
        if (!target) continue;
        if (target.type === 'identifier') this.changed.add(this.home(target.text, file));
        else if (target.type === 'attribute' && target.childForFieldName('object')?.text === 'self' && fnNameOf(fn) !== '__init__') {
          const cls = classOf(fn);
          if (cls) this.changed.add(`${file.rel}:${cls.childForFieldName('name')?.text}.${target.childForFieldName('attribute')?.text}`);
        }
      }
    }
  }

  /** Decorated functions (handlers) and the source's functions they call, two levels deep. */
  private perRequestFunctions(): { fn: Node; file: PythonFile }[] {
    const out = new Map<number, { fn: Node; file: PythonFile }>();
    let frontier: { fn: Node; file: PythonFile }[] = [];
    for (const file of this.model.sources.files.values()) {
      for (const n of allNodes(file)) {
        if (n.type !== 'decorated_definition') continue;
        const def = n.childForFieldName('definition');
        if (def?.type === 'function_definition' && kids(n).some((d) => d.type === 'decorator' && HANDLER_DECORATOR.test(d.text))) frontier.push({ fn: def, file });
      }
    }
    for (let depth = 0; depth < 3 && frontier.length; depth++) {
      const next: { fn: Node; file: PythonFile }[] = [];
      for (const f of frontier) {
        if (out.has(f.fn.id)) continue;
        out.set(f.fn.id, f);
        if (depth === 2) continue;
        for (const c of descendants(f.fn)) {
          if (c.type !== 'call') continue;
          const callee = c.childForFieldName('function');
          const t = callee ? calledFunction(this.model, callee, f.file) : undefined;
          if (t && !out.has(t.fn.id)) next.push(t);
        }
      }
      frontier = next;
    }
    return [...out.values()];
  }

  /** The module a name is defined in (through imports), as `file:name`. */
  private home(name: string, file: PythonFile): string {
    const imported = file.imports.get(name);
    if (imported?.includes('.')) {
      const cut = imported.lastIndexOf('.');
      const target = moduleFile(this.model, imported.slice(0, cut), file);
      if (target) return `${target.rel}:${imported.slice(cut + 1)}`;
    }
    return `${file.rel}:${name}`;
  }

  private ownPath(n: Node | undefined): boolean {
    if (!n) return false;
    const s = stringLiteral(bare(n));
    return /\b__file__\b|importlib\.resources/.test(n.text) || (!!s && !s.interpolated && !s.value.startsWith('/') && !s.value.startsWith('~'));
  }

  /** Items already classified (by file and node), so shared or repeated names are read once. */
  private readonly memo = new Map<string, Items>();

  items(n: Node | undefined, file: PythonFile, depth = 0): Items {
    if (!n || depth > 20) return 'unknown';
    const key = `${file.rel}:${n.id}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    this.memo.set(key, 'unknown'); // a cycle reads as unknown
    const out = this.classify(n, file, depth);
    this.memo.set(key, out);
    return out;
  }

  private classify(n: Node, file: PythonFile, depth: number): Items {
    const awaited = /^[(\s]*await\b/.test(n.text);
    const x = bare(n);
    switch (x.type) {
      case 'list':
      case 'tuple':
      case 'set':
      case 'dictionary':
        return worst(kids(x).filter((k) => k.type === 'list_splat' || k.type === 'dictionary_splat').map((k) => this.items(k.namedChild(0) ?? undefined, file, depth + 1)).concat(['fixed']));
      case 'list_comprehension':
      case 'generator_expression':
      case 'set_comprehension':
      case 'dictionary_comprehension':
        return worst(kids(x).filter((k) => k.type === 'for_in_clause').map((k) => this.items(k.childForFieldName('right') ?? undefined, file, depth + 1)));
      case 'binary_operator': {
        const l = x.childForFieldName('left');
        const r = x.childForFieldName('right');
        return worst([this.items(l ?? undefined, file, depth + 1), this.items(r ?? undefined, file, depth + 1)]);
      }
      case 'subscript':
        // A slice or an item of a list (`notes[:50]`, `catalog["tools"]`) holds what the list holds.
        return this.items(x.childForFieldName('value') ?? undefined, file, depth + 1);
      case 'identifier':
        return this.nameItems(x, file, depth);
      case 'attribute':
        return this.fieldItems(x, file, depth);
      case 'call':
        return this.callItems(x, file, depth, awaited);
      default:
        return 'unknown';
    }
  }

  private nameItems(id: Node, file: PythonFile, depth: number): Items {
    const local = localValue(id.text, id);
    if (local) return this.items(local, file, depth + 1);
    const key = this.home(id.text, file);
    const [rel, name] = [key.slice(0, key.lastIndexOf(':')), key.slice(key.lastIndexOf(':') + 1)];
    const home = this.model.sources.files.get(rel);
    const v = home ? moduleConst(home, name) : undefined;
    if (!v || !home) return 'unknown';
    if (this.changed.has(key)) return 'data';
    return this.items(v, home, depth + 1);
  }

  /** `self.x` in a class: data when a method other than `__init__` changes it, else what `__init__` puts there. */
  private fieldItems(attr: Node, file: PythonFile, depth: number): Items {
    if (attr.childForFieldName('object')?.text !== 'self') return 'unknown';
    const field = attr.childForFieldName('attribute')?.text;
    const cls = classOf(attr);
    if (!cls || !field) return 'unknown';
    if (this.changed.has(`${file.rel}:${cls.childForFieldName('name')?.text}.${field}`)) return 'data';
    for (const d of descendants(cls)) {
      if (d.type !== 'assignment') continue;
      const l = d.childForFieldName('left');
      if (l?.type === 'attribute' && l.text.replace(/\s/g, '') === `self.${field}`) return this.items(d.childForFieldName('right') ?? undefined, file, depth + 1);
    }
    return 'unknown';
  }

  private callItems(x: Node, file: PythonFile, depth: number, awaited: boolean): Items {
    const p = callParts(x);
    if (!p) return 'unknown';
    const q = qualName(p.fn, file) ?? '';
    const name = lastName(q) ?? '';
    const obj = p.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
    if (RESULT_KEYS.some((k) => p.kw.has(k)) && /Result$/.test(name)) {
      const k = RESULT_KEYS.find((key) => p.kw.has(key))!;
      return this.items(p.kw.get(k), file, depth + 1);
    }
    if (PASS_CALLS.has(q)) return worst(p.args.map((a) => this.items(a, file, depth + 1)));
    if (obj && PASS_METHODS.has(name)) return this.items(obj, file, depth + 1);
    if (FOLDER_LISTS.has(q)) return this.ownPath(p.args[0]) ? 'fixed' : 'data';
    if (obj && PATH_LISTS.has(name)) {
      const o = bare(obj);
      const path = o.type === 'call' && /(?:^|\.)Path$/.test(lastName(qualName(o, file)) ?? '') ? callParts(o)?.args[0] : o;
      return this.ownPath(path) ? 'fixed' : 'data';
    }
    const m = /^(.*)\.(\w+)$/.exec(q);
    if (m && HTTP_VERBS.has(m[2]!) && (/^(?:requests|httpx)$/.test(m[1]!) || HTTP_CLIENTS.has(m[1]!))) return 'data';
    if (obj && name === 'json') return this.items(obj, file, depth + 1);
    const target = calledFunction(this.model, p.fn, file);
    if (target) {
      if (depth > 14) return 'unknown';
      return worst(returnedValues(this.model, target.fn, target.file).map((r) => this.items(r.value, r.file, depth + 1)));
    }
    if (obj && DB_READS.test(name)) return 'data';
    if (awaited && obj) return 'data';
    return 'unknown';
  }
}

const fnNameOf = (fn: Node): string => fn.childForFieldName('name')?.text ?? '';
function classOf(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'class_definition') return p;
  return undefined;
}

export function judgePythonPagination(repo: RepoFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const sources = listSources(model);
  const classifier = new Classifier(model);
  const findings: Finding[] = [];
  let unknown = 0;
  for (const s of sources) {
    const returned = descendants(s.fn.childForFieldName('body') ?? s.fn, (d) => d.type === 'function_definition' || d.type === 'lambda' || d.type === 'class_definition').filter((d) => d.type === 'return_statement');
    const items = worst(returned.map((r) => classifier.items(r.namedChild(0) ?? undefined, s.file)));
    if (items === 'unknown') unknown++;
    if (items === 'data' && !readsCursor(s.fn)) findings.push({ messageId: 'list-handler-ignores-cursor', data: { method: s.method }, location: { file: s.file.rel, line: lineOf(s.fn) } });
  }
  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (findings.length) return { state: 'non-conforming', findings };
  const gap = unreadableVerdict(model);
  if (gap) return gap;
  if (unknown) return couldNotJudge('list-source-unknown', { count: unknown });
  if (sources.length === 0 && model.tools.length === 0) return couldNotJudge('no-lists-in-source');
  return present();
}
