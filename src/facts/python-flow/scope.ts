import type { Node } from 'web-tree-sitter';
import { descendants, kids, lineOf, nodesWithin, stringLiteral, type PythonFile } from '../python-source.js';
import { callParts, constString, moduleConst, paramsOf, qualName, unparen } from '../python-model.js';
import { ALWAYS_SANITIZERS, type Assign, EMPTY, type FlowProblem, type GuardInfo, inside, noGuard, type Origins, SANITIZERS, type SinkKind, type Span, union } from './tables.js';

/**
 * Python taint flow (facts/python-flow.ts): one function and one sink kind (Scope) — assignments, origins of a
 * value, the guards met on the way — and the module-level helpers it follows.
 */

/* ---------------- one function, one sink kind ---------------- */

export class Scope {
  readonly assigns: Assign[] = [];
  readonly types = new Map<string, string>();
  readonly typeNodes = new Map<string, Node>();
  private readonly memo = new Map<string, Map<string, Origins>>();
  readonly nodes: Node[];

  constructor(
    readonly file: PythonFile,
    readonly fn: Node,
    readonly sources: readonly string[],
    readonly dictSources: readonly string[],
    readonly kind: SinkKind,
    readonly helpers: Helpers | undefined,
  ) {
    this.nodes = nodesWithin(file, fn);
    // Module-level objects (clients created once) first, then local ones.
    for (const a of topAssignments(file)) this.recordType(a.left, a.right);
    for (const d of this.nodes) this.collect(d);
  }

  private recordType(left: Node | null, right: Node | null) {
    if (left?.type !== 'identifier' || !right) return;
    let v = unparen(right);
    if (v.type === 'await') v = v.namedChild(0) ?? v;
    if (v.type !== 'call') return;
    const q = qualName(v, this.file, this.types);
    if (q) {
      this.types.set(left.text, q);
      this.typeNodes.set(left.text, v);
    }
  }

  private collect(d: Node) {
    const add = (target: Node | null, value: Node | null, at: Node) => {
      if (!target || !value) return;
      // Pairwise `a, b = x, y`.
      const lt = unparen(target);
      const rv = unparen(value);
      if (['pattern_list', 'tuple_pattern', 'tuple', 'expression_list'].includes(lt.type) && ['expression_list', 'tuple'].includes(rv.type)) {
        const ls = kids(lt);
        const rs = kids(rv);
        if (ls.length === rs.length) {
          ls.forEach((l, i) => add(l, rs[i]!, at));
          return;
        }
      }
      const targets = targetNames(lt);
      if (targets.length) this.assigns.push({ targets, value, at });
    };
    switch (d.type) {
      case 'assignment': {
        if (d.parent?.type === 'assignment') return; // handled with the outermost one
        const lefts: Node[] = [];
        let cur: Node | null = d;
        while (cur?.type === 'assignment') {
          const l = cur.childForFieldName('left');
          if (l) lefts.push(l);
          cur = cur.childForFieldName('right');
        }
        if (!cur) return;
        for (const l of lefts) {
          add(l, cur, d);
          this.recordType(l, cur);
        }
        return;
      }
      case 'augmented_assignment':
        add(d.childForFieldName('left'), d.childForFieldName('right'), d);
        return;
      case 'for_statement':
      case 'for_in_clause':
        add(d.childForFieldName('left'), d.childForFieldName('right'), d);
        return;
      case 'named_expression':
        add(d.childForFieldName('name'), d.childForFieldName('value'), d);
        return;
      case 'with_item': {
        const v = d.childForFieldName('value');
        if (v?.type === 'as_pattern') {
          const value = v.namedChild(0);
          const alias = v.childForFieldName('alias');
          const target = alias ? (alias.type === 'as_pattern_target' ? alias.namedChild(0) : alias) : null;
          add(target, value, d);
          this.recordType(target, value);
        }
        return;
      }
    }
  }

  /** Variable -> argument origins, with the `kill`ed variables held clean. */
  taint(kill: ReadonlySet<string>): Map<string, Origins> {
    const key = [...kill].sort().join('\u0000');
    const hit = this.memo.get(key);
    if (hit) return hit;
    const env = new Map<string, Origins>();
    for (const s of [...this.sources, ...this.dictSources]) if (!kill.has(s)) env.set(s, new Set([s]));
    for (let round = 0; round < 12; round++) {
      let changed = false;
      for (const a of this.assigns) {
        const o = this.expr(a.value, env);
        if (o.size === 0) continue;
        for (const t of a.targets) {
          if (kill.has(t)) continue;
          const prev = env.get(t) ?? EMPTY;
          const next = union(prev, o);
          if (next.size !== prev.size) {
            env.set(t, next);
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    this.memo.set(key, env);
    return env;
  }

  /** Argument origins of an expression. */
  expr(n: Node | null | undefined, env: ReadonlyMap<string, Origins>): Origins {
    if (!n) return EMPTY;
    const e = unparen(n);
    switch (e.type) {
      case 'identifier':
        return env.get(e.text) ?? EMPTY;
      case 'integer':
      case 'float':
      case 'true':
      case 'false':
      case 'none':
      case 'ellipsis':
      case 'comparison_operator':
      case 'not_operator':
      case 'lambda':
      case 'comment':
        return EMPTY;
      case 'string':
        return union(...kids(e).filter((k) => k.type === 'interpolation').map((k) => this.expr(k.childForFieldName('expression') ?? k.namedChild(0), env)));
      case 'attribute': {
        if (qualName(e, this.file, this.types) === 'os.environ') return EMPTY;
        return this.expr(e.childForFieldName('object'), env);
      }
      case 'subscript': {
        const v = e.childForFieldName('value');
        const idx = e.childForFieldName('subscript');
        if (v?.type === 'identifier' && this.dictSources.includes(v.text) && env.has(v.text)) {
          const k = constString(idx, this.file);
          if (k !== undefined) return new Set([k]);
        }
        const vt = this.expr(v, env);
        // An untainted table indexed by an argument yields one of the table's own values.
        return vt;
      }
      case 'conditional_expression': {
        const ks = kids(e);
        return union(this.expr(ks[0], env), this.expr(ks[2], env));
      }
      case 'call':
        return this.callExpr(e, env);
      default:
        return union(...kids(e).map((k) => this.expr(k, env)));
    }
  }

  private callExpr(e: Node, env: ReadonlyMap<string, Origins>): Origins {
    const p = callParts(e);
    if (!p) return EMPTY;
    const q = qualName(p.fn, this.file, this.types);
    if (q && (ALWAYS_SANITIZERS.has(q) || SANITIZERS[this.kind].has(q) || (q === 'secure_filename' && this.kind === 'file'))) return EMPTY;
    if (this.helpers?.sanitizes(p.fn)) return EMPTY;
    if (p.fn.type === 'attribute' && p.fn.childForFieldName('attribute')?.text === 'get') {
      const obj = p.fn.childForFieldName('object');
      if (obj?.type === 'identifier' && this.dictSources.includes(obj.text) && env.has(obj.text)) {
        const k = constString(p.args[0], this.file);
        if (k !== undefined) return new Set([k]);
      }
      // TABLE.get(arg): a lookup in an untainted table.
      if (obj && this.expr(obj, env).size === 0 && !(obj.type === 'identifier' && this.file.imports.has(obj.text))) return EMPTY;
    }
    const parts: Origins[] = [...p.args, ...p.splats, ...p.kw.values()].map((a) => this.expr(a, env));
    if (p.fn.type === 'attribute') parts.push(this.expr(p.fn.childForFieldName('object'), env));
    return union(...parts);
  }

  /** Values assigned to a name in this function (in source order). */
  assignedValues(name: string): Assign[] {
    return this.assigns.filter((a) => a.targets.length === 1 && a.targets[0] === name);
  }

  /** The single value of a local name (or of a module constant), for reading literals through a variable. */
  valueOf(name: string): Node | undefined {
    const as = this.assignedValues(name);
    if (as.length === 1) return as[0]!.value;
    if (as.length === 0) return moduleConst(this.file, name);
    return undefined;
  }

  /* ---------------- guards ---------------- */

  /** Guards that dominate a position. */
  guardsAt(sink: Span): GuardInfo {
    const g = noGuard();
    // Strictly inside a branch (an empty span at the very end of a function is after its last branch, not in it).
    const inBranch = (b: Span) => sink.startIndex >= b.startIndex && sink.startIndex < b.endIndex;
    const merge = (x: GuardInfo) => {
      for (const s of x.sound) g.sound.add(s);
      for (const [k, v] of x.weak) if (!g.weak.has(k)) g.weak.set(k, v);
    };
    // The line of the statement each weak check first came from (the check a finding names).
    const weakLines = new Map<string, number>();
    g.weakLines = weakLines;
    let prev: Node | undefined;
    const noteLines = () => {
      if (prev) for (const k of g.weak.keys()) if (!weakLines.has(k)) weakLines.set(k, lineOf(prev));
    };
    for (const d of this.nodes) {
      noteLines();
      prev = d;
      if (d.type === 'if_statement') {
        const cond = d.childForFieldName('condition');
        const cons = d.childForFieldName('consequence');
        if (!cond || !cons) continue;
        const alts = d.childrenForFieldName('alternative').filter((a): a is Node => a !== null);
        if (inBranch(cons)) merge(this.recognize(cond, 'pass', sink));
        else if (terminates(cons) && (this.dominates(d, sink) || alts.some((a) => inBranch(a)))) merge(this.recognize(cond, 'fail', sink));
        else if (d.endIndex <= sink.startIndex) merge(weakOnly(this.recognize(cond, 'pass', sink)));
      } else if (d.type === 'elif_clause') {
        const cond = d.childForFieldName('condition');
        const cons = d.childForFieldName('consequence');
        if (!cond || !cons) continue;
        if (inBranch(cons)) merge(this.recognize(cond, 'pass', sink));
        else if (terminates(cons) && d.parent && this.dominates(d.parent, sink)) merge(this.recognize(cond, 'fail', sink));
      } else if (d.type === 'assert_statement') {
        const c = d.namedChild(0);
        if (c && this.dominates(d, sink)) merge(this.recognize(c, 'pass', sink));
      } else if (d.type === 'expression_statement' && this.dominates(d, sink)) {
        let c = d.namedChild(0);
        if (c?.type === 'await') c = c.namedChild(0);
        if (c?.type !== 'call') continue;
        const p = callParts(c)!;
        // p.relative_to(root) raises ValueError outside root.
        if (this.kind === 'file' && p.fn.type === 'attribute' && p.fn.childForFieldName('attribute')?.text === 'relative_to') {
          const pv = this.pathVar(p.fn.childForFieldName('object'));
          if (pv) {
            const st = pv.state ?? this.pathState(pv.name, d);
            if (st === 'resolved') g.sound.add(pv.name);
            else if (!g.weak.has(pv.name)) g.weak.set(pv.name, st === 'normalized' ? 'path-check-before-realpath' : 'path-raw-check');
          }
        }
        // validate(x): a same-file helper that raises unless x passes a guard.
        for (const i of this.helpers?.validates(p.fn) ?? []) {
          const a = p.args[i];
          if (a?.type === 'identifier') g.sound.add(a.text);
        }
      }
    }
    noteLines();
    return g;
  }

  /** A statement dominates a sink when the sink follows it in an enclosing block (through a try whose handlers all leave). */
  dominates(d: Node, sink: Span): boolean {
    let s: Node = d;
    for (let i = 0; i < 8; i++) {
      const parent = s.parent;
      if (!parent) return false;
      if (inside(sink, parent) && sink.startIndex >= s.endIndex) return true;
      const tryStmt = parent.type === 'block' ? parent.parent : null;
      if (tryStmt?.type === 'try_statement' && tryStmt.childForFieldName('body')?.id === parent.id) {
        const handlers = kids(tryStmt).filter((k) => k.type === 'except_clause' || k.type === 'except_group_clause');
        if (handlers.length && handlers.every((h) => terminates(kids(h).find((k) => k.type === 'block') ?? h))) {
          s = tryStmt;
          continue;
        }
      }
      return false;
    }
    return false;
  }

  /** What a condition guarantees when it is true ('pass') or when it is false ('fail'). */
  recognize(cond: Node | null, pol: 'pass' | 'fail', at: Span): GuardInfo {
    if (!cond) return noGuard();
    const c = unparen(cond);
    if (c.type === 'boolean_operator') {
      const op = c.childForFieldName('operator')?.text;
      const a = this.recognize(c.childForFieldName('left'), pol, at);
      const b = this.recognize(c.childForFieldName('right'), pol, at);
      const both = (pol === 'pass' && op === 'and') || (pol === 'fail' && op === 'or');
      const sound = both ? new Set([...a.sound, ...b.sound]) : new Set([...a.sound].filter((x) => b.sound.has(x)));
      return { sound, weak: new Map([...b.weak, ...a.weak]) };
    }
    if (c.type === 'not_operator') {
      const arg = c.childForFieldName('argument');
      return arg ? this.recognize(arg, pol === 'pass' ? 'fail' : 'pass', at) : noGuard();
    }
    if (c.type === 'comparison_operator') return this.compareGuard(c, pol, at);
    let call = c;
    if (call.type === 'await') call = call.namedChild(0) ?? call;
    if (call.type === 'call') return this.callGuard(call, pol === 'pass', at);
    return noGuard();
  }

  private compareGuard(c: Node, pol: 'pass' | 'fail', at: Span): GuardInfo {
    const g = noGuard();
    const ks = kids(c);
    if (ks.length !== 2) return g;
    const [l, r] = ks as [Node, Node];
    const op = c.children.find((x) => x !== null && !x.isNamed)?.text;
    const weakRaw: FlowProblem | undefined = this.kind === 'file' ? 'path-raw-check' : this.kind === 'http' ? 'url-raw-check' : undefined;
    if (op === 'in' || op === 'not in') {
      const effective = (pol === 'pass') === (op === 'in');
      const lu = unparen(l);
      // "..": a look at the raw string.
      if (weakRaw && stringLiteral(lu) && unparen(r).type === 'identifier') g.weak.set(unparen(r).text, weakRaw);
      // root in p.parents
      const ru = unparen(r);
      if (this.kind === 'file' && ru.type === 'attribute' && ru.childForFieldName('attribute')?.text === 'parents') {
        const pv = this.pathVar(ru.childForFieldName('object'));
        if (pv) {
          const st = pv.state ?? this.pathState(pv.name, at);
          if (effective && st === 'resolved') g.sound.add(pv.name);
          else g.weak.set(pv.name, st === 'normalized' ? 'path-check-before-realpath' : 'path-raw-check');
        }
        return g;
      }
      if (!effective) return g;
      if (lu.type === 'identifier') g.sound.add(lu.text);
      if (this.kind === 'http') {
        const h = this.hostSubject(lu, at);
        if (h) g.sound.add(h);
      }
      return g;
    }
    if (op === '==' || op === '!=') {
      const effective = (pol === 'pass') === (op === '==');
      for (const [a, b] of [
        [l, r],
        [r, l],
      ] as [Node, Node][]) {
        const au = unparen(a);
        if (effective && au.type === 'identifier' && this.constLike(b)) g.sound.add(au.text);
        if (this.kind === 'http' && effective && this.constLike(b)) {
          const h = this.hostSubject(au, at);
          if (h) g.sound.add(h);
        }
        if (this.kind === 'file' && au.type === 'call' && /(?:^|\.)commonpath$/.test(qualName(callParts(au)!.fn, this.file) ?? '')) {
          const lst = callParts(au)!.args[0];
          for (const el of lst ? kids(unparen(lst)) : []) {
            const pv = this.pathVar(el);
            if (!pv) continue;
            const st = pv.state ?? this.pathState(pv.name, at);
            if (effective && st === 'resolved') g.sound.add(pv.name);
            else if (!g.weak.has(pv.name)) g.weak.set(pv.name, st === 'normalized' ? 'path-check-before-realpath' : 'path-raw-check');
          }
        }
      }
    }
    return g;
  }

  private callGuard(call: Node, effective: boolean, at: Span): GuardInfo {
    const g = noGuard();
    const p = callParts(call);
    if (!p) return g;
    const q = qualName(p.fn, this.file, this.types) ?? '';
    const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
    const recv = p.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
    if ((attr === 'startswith' || attr === 'endswith' || attr === 'is_relative_to') && recv) {
      if (this.kind === 'file') {
        const pv = this.pathVar(recv);
        if (!pv) return g;
        const st = pv.state ?? this.pathState(pv.name, at);
        const bounded = attr === 'is_relative_to' || (attr === 'startswith' && this.sepAware(p.args[0]));
        if (attr === 'endswith') g.weak.set(pv.name, 'path-raw-check');
        else if (effective && st === 'resolved' && bounded) g.sound.add(pv.name);
        else if (st === 'resolved' || (st === 'normalized' && !bounded)) g.weak.set(pv.name, bounded ? 'path-raw-check' : 'path-prefix-without-separator');
        else if (st === 'normalized') g.weak.set(pv.name, 'path-check-before-realpath');
        else g.weak.set(pv.name, 'path-raw-check');
      } else if (this.kind === 'http') {
        const host = this.hostSubject(recv, at);
        const suffix = constString(p.args[0], this.file);
        if (host && attr === 'endswith' && effective && suffix?.startsWith('.')) g.sound.add(host);
        else {
          const v = host ?? (unparen(recv).type === 'identifier' ? unparen(recv).text : undefined);
          if (v) g.weak.set(v, 'url-raw-check');
        }
      }
      return g;
    }
    const isRe = /^re\.(?:fullmatch|match|search)$/.test(q) || ((attr === 'fullmatch' || attr === 'match' || attr === 'search') && recv !== null);
    if (isRe) {
      const fromModule = q.startsWith('re.');
      const target = unparen((fromModule ? p.args[1] : p.args[0]) ?? call);
      let patNode: Node | undefined = fromModule ? p.args[0] : undefined;
      if (!fromModule && recv?.type === 'identifier') {
        const v = this.valueOf(recv.text);
        if (v?.type === 'call') patNode = callParts(v)?.args[0];
      }
      const pattern = constString(patNode, this.file);
      const how = fromModule ? q.slice(3) : attr!;
      if (target.type !== 'identifier') return g;
      if (this.kind === 'command' && effective && pattern !== undefined && safeCommandPattern(pattern, how === 'fullmatch')) g.sound.add(target.text);
      else if (this.kind === 'file') g.weak.set(target.text, 'path-raw-check');
      else if (this.kind === 'http') g.weak.set(target.text, 'url-raw-check');
      return g;
    }
    if (this.kind === 'file' && q === 'os.path.isabs' && p.args[0]?.type === 'identifier') g.weak.set(p.args[0].text, 'path-raw-check');
    return g;
  }

  /** A constant: a literal, a module-level name, or an attribute (settings.X). */
  private constLike(n: Node): boolean {
    const u = unparen(n);
    if (stringLiteral(u) && !stringLiteral(u)!.interpolated) return true;
    if (['integer', 'float', 'true', 'false', 'none'].includes(u.type)) return true;
    if (u.type === 'identifier') return !this.sources.includes(u.text) && !this.dictSources.includes(u.text) && this.assignedValues(u.text).length === 0 && moduleConst(this.file, u.text) !== undefined;
    if (u.type === 'attribute') return this.expr(u, this.taint(EMPTY)).size === 0;
    return false;
  }

  /** The URL variable whose host an expression reads: `urlparse(url).hostname`, `parsed.netloc` with parsed = urlsplit(url). */
  private hostSubject(n: Node | null, at: Span): string | undefined {
    if (!n) return undefined;
    let u = unparen(n);
    if (u.type === 'boolean_operator') {
      const l = u.childForFieldName('left');
      if (!l) return undefined;
      u = unparen(l);
    }
    if (u.type === 'call' && u.childForFieldName('function')?.type === 'attribute') {
      const f = u.childForFieldName('function')!;
      if (['lower', 'casefold', 'strip', 'rstrip'].includes(f.childForFieldName('attribute')?.text ?? '')) return this.hostSubject(f.childForFieldName('object'), at);
    }
    if (u.type !== 'attribute' || !['hostname', 'netloc', 'host'].includes(u.childForFieldName('attribute')?.text ?? '')) return undefined;
    const o = u.childForFieldName('object');
    if (!o) return undefined;
    let obj = unparen(o);
    if (obj.type === 'identifier') {
      const v = this.valueOf(obj.text);
      if (!v) return undefined;
      obj = unparen(v);
    }
    if (obj.type !== 'call') return undefined;
    const p = callParts(obj)!;
    const q = qualName(p.fn, this.file, this.types) ?? '';
    if (!/(?:^|\.)(?:urlparse|urlsplit|URL)$/.test(q)) return undefined;
    const a = p.args[0] ? unparen(p.args[0]) : undefined;
    return a?.type === 'identifier' ? a.text : undefined;
  }

  /** The variable a path expression is about, and whether the expression itself resolves it. */
  pathVar(n: Node | null | undefined): { name: string; state?: 'resolved' | 'normalized' } | undefined {
    if (!n) return undefined;
    const u = unparen(n);
    if (u.type === 'identifier') return { name: u.text };
    if (u.type !== 'call') return undefined;
    const p = callParts(u)!;
    const q = qualName(p.fn, this.file, this.types) ?? '';
    const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
    if (['str', 'os.fspath', 'pathlib.Path', 'pathlib.PurePath', 'Path'].includes(q)) return this.pathVar(p.args[0]);
    if (q === 'os.path.realpath') {
      const inner = this.pathVar(p.args[0]);
      return inner ? { name: inner.name, state: 'resolved' } : undefined;
    }
    if (q === 'os.path.abspath' || q === 'os.path.normpath') {
      const inner = this.pathVar(p.args[0]);
      return inner ? { name: inner.name, state: inner.state ?? 'normalized' } : undefined;
    }
    if ((attr === 'resolve' || attr === 'absolute') && p.fn.type === 'attribute') {
      const inner = this.pathVar(p.fn.childForFieldName('object'));
      return inner ? { name: inner.name, state: attr === 'resolve' ? 'resolved' : inner.state ?? 'normalized' } : undefined;
    }
    return undefined;
  }

  /** How the last value of a path variable before a position was made. */
  pathState(name: string, at: Span, depth = 0): 'resolved' | 'normalized' | 'raw' {
    if (depth > 4) return 'raw';
    const before = this.assignedValues(name).filter((a) => a.at.startIndex < at.startIndex);
    const last = before[before.length - 1];
    if (!last) return 'raw';
    return this.valueState(last.value, last.at, depth);
  }

  private valueState(v: Node, at: Span, depth: number): 'resolved' | 'normalized' | 'raw' {
    let u = unparen(v);
    if (u.type === 'await') u = u.namedChild(0) ?? u;
    if (u.type === 'identifier') return this.pathState(u.text, at, depth + 1);
    if (u.type !== 'call') return 'raw';
    const p = callParts(u)!;
    const q = qualName(p.fn, this.file, this.types) ?? '';
    const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
    if (q === 'os.path.realpath' || attr === 'resolve') return 'resolved';
    if (q === 'os.path.abspath' || q === 'os.path.normpath' || attr === 'absolute') return 'normalized';
    if (['str', 'os.fspath', 'pathlib.Path', 'Path'].includes(q) && p.args[0]) return this.valueState(p.args[0], at, depth + 1);
    if (this.helpers?.sanitizes(p.fn)) return 'resolved';
    return 'raw';
  }

  /** `root + os.sep`, `f"{root}{os.sep}"`, `os.path.join(root, "")`, a literal ending in "/" (or a name bound to one). */
  sepAware(n: Node | undefined, depth = 0): boolean {
    if (!n || depth > 4) return false;
    const u = unparen(n);
    const isSep = (x: Node) => {
      const q = qualName(x, this.file);
      if (q === 'os.sep' || q === 'os.path.sep') return true;
      const s = stringLiteral(x);
      return !!s && !s.interpolated && /[/\\]$/.test(s.value);
    };
    if (u.type === 'binary_operator' && u.childForFieldName('operator')?.text === '+') return isSep(u.childForFieldName('right')!);
    const s = stringLiteral(u);
    if (s) {
      if (!s.interpolated) return /[/\\]$/.test(s.value);
      if (/[/\\]$/.test(s.value)) return true;
      const interps = u.type === 'string' ? kids(u).filter((k) => k.type === 'interpolation') : [];
      const last = interps[interps.length - 1];
      const inner = last?.childForFieldName('expression') ?? last?.namedChild(0);
      return !!inner && s.value.endsWith('{}') && isSep(inner);
    }
    if (u.type === 'call') {
      const p = callParts(u)!;
      const q = qualName(p.fn, this.file) ?? '';
      if (q === 'os.path.join') {
        const lastArg = p.args[p.args.length - 1];
        return !!lastArg && constString(lastArg, this.file) === '';
      }
      if (q === 'str' && p.args[0]) return this.sepAware(p.args[0], depth + 1);
      return false;
    }
    if (u.type === 'tuple') return kids(u).length > 0 && kids(u).every((k) => this.sepAware(k, depth + 1));
    if (u.type === 'identifier') {
      const v = this.valueOf(u.text);
      return !!v && this.sepAware(v, depth + 1);
    }
    return false;
  }

  /** Names an expression reads, and the names those were assigned from (a few levels). */
  related(n: Node): Set<string> {
    const out = new Set<string>();
    const visit = (x: Node, depth: number) => {
      for (const id of [x, ...descendants(x)].filter((d) => d.type === 'identifier')) {
        if (out.has(id.text)) continue;
        out.add(id.text);
        if (depth < 5) for (const a of this.assignedValues(id.text)) visit(a.value, depth + 1);
      }
    };
    visit(n, 0);
    return out;
  }

  /* ---------------- literal URL prefixes ---------------- */

  prefixOf(n: Node | undefined, depth = 0): { text: string; complete: boolean } | undefined {
    if (!n || depth > 5) return undefined;
    const u = unparen(n);
    const s = stringLiteral(u);
    if (s) {
      if (!s.interpolated) return { text: s.value, complete: true };
      // f-string: literal parts, and interpolations of constants (f"{API_BASE}/users/{x}").
      const parts = s.value.split('{}');
      const interps = u.type === 'string' ? kids(u).filter((k) => k.type === 'interpolation') : [];
      let text = parts[0]!;
      for (let i = 0; i < interps.length && i + 1 < parts.length; i++) {
        const e = interps[i]!.childForFieldName('expression') ?? interps[i]!.namedChild(0);
        const c = e?.type === 'identifier' ? this.prefixOf(e, depth + 1) : undefined;
        if (!c?.complete) return { text: c ? text + c.text : text, complete: false };
        text += c.text + parts[i + 1]!;
      }
      return { text, complete: false };
    }
    if (u.type === 'binary_operator') {
      const op = u.childForFieldName('operator')?.text;
      const l = this.prefixOf(u.childForFieldName('left')!, depth + 1);
      if (!l) return undefined;
      if (op === '+') {
        if (!l.complete) return l;
        const r = this.prefixOf(u.childForFieldName('right')!, depth + 1);
        return r ? { text: l.text + r.text, complete: r.complete } : { text: l.text, complete: false };
      }
      if (op === '%') {
        const i = l.text.indexOf('%');
        return { text: i < 0 ? l.text : l.text.slice(0, i), complete: false };
      }
      return undefined;
    }
    if (u.type === 'call') {
      const f = u.childForFieldName('function');
      if (f?.type === 'attribute' && f.childForFieldName('attribute')?.text === 'format') {
        const o = this.prefixOf(f.childForFieldName('object')!, depth + 1);
        if (!o) return undefined;
        const i = o.text.indexOf('{');
        return { text: i < 0 ? o.text : o.text.slice(0, i), complete: false };
      }
      return undefined;
    }
    if (u.type === 'identifier') {
      const v = this.valueOf(u.text);
      return v ? this.prefixOf(v, depth + 1) : undefined;
    }
    return undefined;
  }

  /** True when the URL's scheme and host are fixed by a literal prefix (or by the client's literal base_url). */
  hostFixed(url: Node, client?: Node): boolean {
    const pre = this.prefixOf(url);
    if (pre && /^[a-z][a-z0-9+.-]*:\/\/[^/?#{}@\s\\]+[/?#]/i.test(pre.text)) return true;
    if (client && pre && pre.text.startsWith('/') && !pre.text.startsWith('//')) {
      const base = callParts(client)?.kw.get('base_url');
      const b = base ? this.prefixOf(base) : undefined;
      if (b?.complete && /^[a-z][a-z0-9+.-]*:\/\/[^/?#{}@\s\\]+/i.test(b.text)) return true;
    }
    return false;
  }
}

const weakOnly = (g: GuardInfo): GuardInfo => ({ sound: new Set(), weak: g.weak });

const topMemo = new WeakMap<PythonFile, { left: Node; right: Node; at: Node }[]>();
/** `name = value` statements at the top level of a module (memoised per file). */
export function topAssignments(file: PythonFile): { left: Node; right: Node; at: Node }[] {
  let hit = topMemo.get(file);
  if (!hit) {
    hit = [];
    for (const st of kids(file.root)) {
      const a = st.type === 'expression_statement' ? st.namedChild(0) : null;
      const l = a?.type === 'assignment' ? a.childForFieldName('left') : null;
      const r = a?.type === 'assignment' ? a.childForFieldName('right') : null;
      if (a && l?.type === 'identifier' && r) hit.push({ left: l, right: r, at: a });
    }
    topMemo.set(file, hit);
  }
  return hit;
}

/** A block leaves the function or the loop iteration (raise, return, continue, break) at its top level. */
function terminates(block: Node): boolean {
  return kids(block).some((k) => ['raise_statement', 'return_statement', 'continue_statement', 'break_statement'].includes(k.type));
}

function targetNames(n: Node): string[] {
  const u = unparen(n);
  switch (u.type) {
    case 'identifier':
      return [u.text];
    case 'pattern_list':
    case 'tuple_pattern':
    case 'list_pattern':
    case 'tuple':
    case 'list':
    case 'expression_list':
    case 'as_pattern_target':
    case 'list_splat_pattern':
    case 'list_splat':
      return kids(u).flatMap(targetNames);
    case 'attribute': {
      const o = u.childForFieldName('object');
      return o ? targetNames(o) : [];
    }
    case 'subscript': {
      const v = u.childForFieldName('value');
      return v ? targetNames(v) : [];
    }
    default:
      return [];
  }
}

/**
 * A regular expression that cannot match shell metacharacters or whitespace: anchored (fullmatch, or ^…$),
 * no `.` outside a class, no negated class, no \s \S \W \D, and class members limited to word characters
 * and `-./:@+=,`.
 */
export function safeCommandPattern(pattern: string, full: boolean): boolean {
  const anchored = full || (/^\^/.test(pattern) && /(?:\$|\\Z|\\z)$/.test(pattern));
  if (!anchored) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1] ?? '';
      i++;
      if ('sSWDbB'.includes(e)) return false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '^' && pattern[i - 1] === '[') return false;
      else if (!/[A-Za-z0-9_\-./:@+=,]/.test(c)) return false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '.') return false;
    if (!/[A-Za-z0-9_\-/:@=,^$+*?{}()|]/.test(c)) return false;
  }
  return !inClass;
}

/* ---------------- same-file helpers, one level deep ---------------- */

export class Helpers {
  private readonly defs = new Map<string, Node>();
  private readonly safeReturn = new Map<string, boolean>();
  private readonly validated = new Map<string, number[]>();
  constructor(
    readonly file: PythonFile,
    readonly kind: SinkKind,
  ) {
    for (const d of descendants(file.root, (x) => x.type === 'function_definition')) {
      if (d.type === 'function_definition') this.defs.set(d.childForFieldName('name')?.text ?? '', d);
    }
  }
  private def(fn: Node): Node | undefined {
    const u = unparen(fn);
    return u.type === 'identifier' ? this.defs.get(u.text) : undefined;
  }
  private scope(def: Node): Scope {
    const ps = paramsOf(def)
      .map((p) => p.name)
      .filter((n) => n !== 'self' && n !== 'cls');
    return new Scope(this.file, def, ps, [], this.kind, undefined);
  }
  /** Every return of the helper is guarded: its result is safe. */
  sanitizes(fn: Node): boolean {
    const def = this.def(fn);
    if (!def) return false;
    const key = def.childForFieldName('name')!.text;
    const hit = this.safeReturn.get(key);
    if (hit !== undefined) return hit;
    this.safeReturn.set(key, false);
    const s = this.scope(def);
    const rets = s.nodes.filter((n) => n.type === 'return_statement' && n.namedChildCount > 0);
    let ok = rets.length > 0;
    for (const r of rets) {
      const g = s.guardsAt(r);
      if (s.expr(r.namedChild(0), s.taint(g.sound)).size > 0) ok = false;
    }
    this.safeReturn.set(key, ok);
    return ok;
  }
  /** Parameter positions the helper checks (and raises otherwise) before it ends. */
  validates(fn: Node): number[] {
    const def = this.def(fn);
    if (!def) return [];
    const key = def.childForFieldName('name')!.text;
    const hit = this.validated.get(key);
    if (hit) return hit;
    this.validated.set(key, []);
    const s = this.scope(def);
    const body = def.childForFieldName('body');
    if (!body) return [];
    const end: Span = { startIndex: body.endIndex, endIndex: body.endIndex };
    const g = s.guardsAt(end);
    const ps = paramsOf(def).filter((p) => p.name !== 'self' && p.name !== 'cls');
    const out = ps.map((p, i) => (g.sound.has(p.name) ? i : -1)).filter((i) => i >= 0);
    this.validated.set(key, out);
    return out;
  }
}
