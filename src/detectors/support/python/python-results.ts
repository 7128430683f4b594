import type { Node } from 'web-tree-sitter';
import { callParts, fnName, lastName, moduleConst, qualName, unparen, type PythonModel } from '../../../facts/python-model.js';
import { descendants, kids, within, type PythonFile } from '../../../facts/python-source.js';

/**
 * What a Python function returns, read from its `return` statements, for the rules that judge tool results
 * (S-11). A returned call to a function of the audited source (`return make_result(data)`,
 * `return await self._render(rows)`, `return fmt.error(msg)` on an imported module) is followed into that
 * function's own returns, up to three levels. Nested functions, lambdas and classes are not the function's
 * own returns. Nothing is executed: an expression the reading cannot follow is returned as it is.
 */

export interface PyReturned {
  /** The returned expression (parentheses and `await` taken off; `return a, b` is the expression list). */
  value: Node;
  file: PythonFile;
}

const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);

/** The return statements of a function (or of a part of it), its nested scopes left out. */
export function returnStatements(fn: Node, part?: Node): Node[] {
  const body = part ?? fn.childForFieldName('body');
  if (!body) return [];
  return descendants(body, (d) => SCOPES.has(d.type)).filter((d) => d.type === 'return_statement' && !insideNestedScope(d, fn));
}

function insideNestedScope(n: Node, fn: Node): boolean {
  for (let p = n.parent; p && p.id !== fn.id; p = p.parent) if (SCOPES.has(p.type)) return true;
  return false;
}

/** The expression a value stands for once parentheses and `await` are taken off. */
export function bare(n: Node): Node {
  let x = n;
  for (;;) {
    if (x.type === 'await' && x.namedChild(0)) x = x.namedChild(0)!;
    else if (x.type === 'parenthesized_expression') {
      // A comment inside the parentheses is a named child too.
      const inner = kids(x).filter((k) => k.type !== 'comment');
      if (inner.length !== 1) return x;
      x = inner[0]!;
    } else return x;
  }
}

/** The file holding a dotted module name (`pkg.results`, `.results` relative to `from`), if it is in the source. */
export function moduleFile(model: PythonModel, dotted: string, from: PythonFile): PythonFile | undefined {
  let mod = dotted;
  if (mod.startsWith('.')) {
    const ups = /^\.+/.exec(mod)![0].length;
    const dir = from.rel.split('/').slice(0, -1);
    mod = [...dir.slice(0, dir.length - (ups - 1)), ...mod.slice(ups).split('.').filter(Boolean)].join('/');
  } else mod = mod.replace(/\./g, '/');
  for (const f of model.sources.files.values()) {
    if (f.rel === `${mod}.py` || f.rel.endsWith(`/${mod}.py`) || f.rel === `${mod}/__init__.py` || f.rel.endsWith(`/${mod}/__init__.py`)) return f;
  }
  return undefined;
}

/** A top-level function (or a method of a top-level class) of a file, by name. */
function definedIn(file: PythonFile, name: string, cls?: Node): Node | undefined {
  const scope = cls ? cls.childForFieldName('body') : file.root;
  if (!scope) return undefined;
  for (const st of kids(scope)) {
    const def = st.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
    if (def?.type === 'function_definition' && fnName(def) === name) return def;
  }
  return undefined;
}

/** The function a callee names, when it is defined in the audited source. */
export function calledFunction(model: PythonModel, callee: Node, file: PythonFile): { fn: Node; file: PythonFile } | undefined {
  const c = unparen(callee);
  if (c.type === 'identifier') {
    const here = definedIn(file, c.text);
    if (here) return { fn: here, file };
    const imported = file.imports.get(c.text);
    if (!imported || !imported.includes('.')) return undefined;
    const cut = imported.lastIndexOf('.');
    const target = moduleFile(model, imported.slice(0, cut) || '.', file);
    const fn = target ? definedIn(target, imported.slice(cut + 1)) : undefined;
    return fn && target ? { fn, file: target } : undefined;
  }
  if (c.type !== 'attribute') return undefined;
  const obj = c.childForFieldName('object');
  const attr = c.childForFieldName('attribute')?.text;
  if (!obj || !attr) return undefined;
  if (obj.type === 'identifier' && (obj.text === 'self' || obj.text === 'cls')) {
    let cls: Node | null = c.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    const fn = cls ? definedIn(file, attr, cls) : undefined;
    return fn ? { fn, file } : undefined;
  }
  if (obj.type === 'identifier') {
    const single = singletonMethod(model, obj.text, attr, file);
    if (single) return single;
  }
  const q = qualName(obj, file);
  if (!q || q.includes('()')) return undefined;
  const target = moduleFile(model, q, file);
  const fn = target ? definedIn(target, attr) : undefined;
  return fn && target ? { fn, file: target } : undefined;
}

/** A top-level class of a file, by name. */
function classIn(file: PythonFile, name: string): Node | undefined {
  for (const st of kids(file.root)) {
    const def = st.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
    if (def?.type === 'class_definition' && def.childForFieldName('name')?.text === name) return def;
  }
  return undefined;
}

/**
 * `store.usage(...)` on a module-level instance (`store = UsageStore()`), in this file or imported from
 * another module of the source: the method of the instance's class, where that class is defined.
 */
function singletonMethod(model: PythonModel, name: string, method: string, file: PythonFile, depth = 0): { fn: Node; file: PythonFile } | undefined {
  if (depth > 2) return undefined;
  let home = file;
  let local = name;
  const imported = file.imports.get(name);
  if (imported && imported.includes('.')) {
    const cut = imported.lastIndexOf('.');
    const target = moduleFile(model, imported.slice(0, cut), file);
    if (!target) return undefined;
    home = target;
    local = imported.slice(cut + 1);
  }
  const value = moduleConst(home, local);
  if (value?.type !== 'call') return undefined;
  const ctor = value.childForFieldName('function');
  if (ctor?.type !== 'identifier') return undefined;
  let cls = classIn(home, ctor.text);
  let clsFile = home;
  if (!cls) {
    const from = home.imports.get(ctor.text);
    if (!from || !from.includes('.')) return undefined;
    const cut = from.lastIndexOf('.');
    const target = moduleFile(model, from.slice(0, cut), home);
    cls = target ? classIn(target, from.slice(cut + 1)) : undefined;
    if (!target) return undefined;
    clsFile = target;
  }
  const fn = cls ? definedIn(clsFile, method, cls) : undefined;
  return fn ? { fn, file: clsFile } : undefined;
}

/** Per syntax tree, per function: the plain `name = value` assignments of its body, in source order. */
const assignMemo = new WeakMap<object, Map<number, Map<string, Node[]>>>();

function assignmentsOf(fn: Node, body: Node): Map<string, Node[]> {
  let perTree = assignMemo.get(fn.tree);
  if (!perTree) {
    perTree = new Map();
    assignMemo.set(fn.tree, perTree);
  }
  const hit = perTree.get(fn.id);
  if (hit) return hit;
  const m = new Map<string, Node[]>();
  for (const d of descendants(body, (x) => SCOPES.has(x.type))) {
    if (d.type !== 'assignment') continue;
    const l = d.childForFieldName('left');
    if (l?.type === 'identifier' && d.childForFieldName('right')) m.set(l.text, [...(m.get(l.text) ?? []), d]);
  }
  perTree.set(fn.id, m);
  return m;
}

/**
 * The value last assigned to a local name by an assignment that ends before `at`, in the function that
 * holds `at` (`x = x + 1` read at its own right side gives the earlier value, so a chain always goes back).
 */
export function localValue(name: string, at: Node): Node | undefined {
  let fn: Node | null = at.parent;
  while (fn && fn.type !== 'function_definition') fn = fn.parent;
  const body = fn?.childForFieldName('body');
  if (!fn || !body) return undefined;
  let found: Node | undefined;
  for (const a of assignmentsOf(fn, body).get(name) ?? []) {
    if (a.endIndex > at.startIndex) break;
    found = a.childForFieldName('right') ?? undefined;
  }
  return found;
}

/**
 * The expressions a function returns (within `part` when given: a dispatch branch), following returned
 * calls into functions of the audited source and both arms of a conditional expression.
 */
export function returnedValues(model: PythonModel, fn: Node, file: PythonFile, part?: Node, depth = 0, seen = new Set<number>()): PyReturned[] {
  if (seen.has(fn.id)) return [];
  seen.add(fn.id);
  const out: PyReturned[] = [];
  const visited = new Set<number>();
  const read = (e: Node, f: PythonFile): void => {
    const x = bare(e);
    if (visited.has(x.id)) return;
    visited.add(x.id);
    if (x.type === 'identifier') {
      const v = localValue(x.text, x);
      if (v) {
        read(v, f);
        return;
      }
    }
    if (x.type === 'conditional_expression') {
      const [a, , b] = kids(x);
      if (a) read(a, f);
      if (b) read(b, f);
      return;
    }
    if (x.type === 'call' && depth < 3) {
      const p = callParts(x);
      const target = p ? calledFunction(model, p.fn, f) : undefined;
      if (target && target.fn.id !== fn.id) {
        const inner = returnedValues(model, target.fn, target.file, undefined, depth + 1, seen);
        if (inner.length) {
          out.push(...inner);
          return;
        }
      }
    }
    out.push({ value: x, file: f });
  };
  for (const r of returnStatements(fn, part)) {
    const v = r.namedChild(0);
    if (v && (!part || within(r, part))) read(v, file);
  }
  return out;
}

/** The last segment of the called name (`types.CallToolResult(...)` -> `CallToolResult`). */
export function calledName(n: Node, file: PythonFile): string | undefined {
  const p = n.type === 'call' ? callParts(n) : undefined;
  return p ? lastName(qualName(p.fn, file)) ?? lastName(p.fn.text) : undefined;
}
