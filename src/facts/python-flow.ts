import type { Node } from 'web-tree-sitter';
import { descendants, kids, lineOf, nodesWithin, stringLiteral, type PythonFile } from './python-source.js';
import {
  callParts,
  constString,
  lastName,
  moduleConst,
  paramsOf,
  qualName,
  unparen,
  type HandlerKind,
  type PyHandler,
  type PythonModel,
} from './python-model.js';

/**
 * A small intra-procedural taint analysis over the Python model: inside each handler (a FastMCP tool,
 * prompt or resource function, or a low-level call_tool handler), values that come from the client's
 * arguments are followed through assignments (plain, augmented, tuple, for targets, with-as, walrus),
 * f-strings, concatenation, `%` and `.format`, containers and calls, to three families of sinks:
 *
 *   command: subprocess.run/call/check_call/check_output/Popen (shell=True or not), os.system, os.popen,
 *            subprocess.getoutput, asyncio.create_subprocess_shell/exec, os.exec*, eval, exec;
 *   file:    open, io.open, os.open, aiofiles.open, os.remove/unlink/rmdir/mkdir/makedirs/rename/replace/
 *            listdir/scandir/walk, shutil.*, glob.glob, and Path methods (read_text, write_text, open…) on a
 *            tainted path;
 *   http:    requests.*, httpx.* and their Client/AsyncClient/Session objects, aiohttp ClientSession,
 *            urllib.request.urlopen, urllib3.
 *
 * The analysis is flow-insensitive for assignments (a variable tainted anywhere in the function is
 * tainted everywhere) and position-aware for guards: a guard counts when it dominates the sink (an `if`
 * that raises/returns placed before the sink in an enclosing block, an `assert`, or an `if` whose body
 * holds the sink). Guards recognised:
 *
 *   command: membership in a collection (`if cmd not in ALLOWED: raise`), equality with a constant, a
 *            strict anchored regular expression (re.fullmatch) or schema pattern without shell
 *            metacharacters; a list-form call without a shell whose program is a literal is safe by itself
 *            (unless the program is a shell or an interpreter given `-c`);
 *   file:    `os.path.realpath(...)` / `Path(...).resolve()` followed by `.startswith(root + os.sep)`,
 *            `.is_relative_to(root)`, `root in p.parents`, `os.path.commonpath(...) == root` or
 *            `p.relative_to(root)` (which raises); an exact allowlist of paths;
 *   http:    the host of `urlparse(url)` / `urlsplit(url)` compared with an allowlist (membership or
 *            equality), the URL or host itself in an allowlist, or a URL whose scheme and host are a
 *            literal prefix (`f"https://api.example.com/{x}"`, a client with a literal base_url).
 *
 * A same-file helper is followed one level deep: a function whose every return is guarded sanitises its
 * result (`safe = confine(p)`), and a function that raises unless its argument passes a guard validates
 * it (`check_allowed(cmd)`). Anything more (other modules, classes, callbacks) is not followed, so the
 * analysis can miss flows; it never executes anything.
 */

export type SinkKind = 'command' | 'file' | 'http';
export type FlowProblem =
  | 'command-shell'
  | 'command-program'
  | 'code-eval'
  | 'path-unconfined'
  | 'path-raw-check'
  | 'path-prefix-without-separator'
  | 'path-check-before-realpath'
  | 'url-unchecked'
  | 'url-raw-check';

export interface PyFlow {
  kind: SinkKind;
  handlerKind: HandlerKind;
  /** The tool (prompt, resource) the sink belongs to, or the handler function's name. */
  handler: string;
  file: string;
  line: number;
  /** The sink as written, qualified (`subprocess.run`, `open`, `Path.read_text`, `httpx.AsyncClient().get`). */
  sink: string;
  /** The argument that reaches the sink. */
  parameter: string;
  /** Undefined when a sound guard was found. */
  problem?: FlowProblem;
  /** The line of the unsound check the problem names (a raw-string or prefix check), when there is one. */
  guardLine?: number;
  /** The source line of the sink, trimmed. */
  evidence: string;
}

type Origins = ReadonlySet<string>;
const EMPTY: Origins = new Set();
const union = (...xs: Origins[]): Origins => {
  const nonEmpty = xs.filter((x) => x.size > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const s = new Set<string>();
  for (const x of nonEmpty) for (const v of x) s.add(v);
  return s;
};

interface Span {
  startIndex: number;
  endIndex: number;
}
const inside = (inner: Span, outer: Span): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

interface Assign {
  targets: string[];
  value: Node;
  at: Node;
}

interface GuardInfo {
  sound: Set<string>;
  weak: Map<string, FlowProblem>;
  /** The line of the statement that holds each weak check (guardsAt fills it). */
  weakLines?: Map<string, number>;
}
const noGuard = (): GuardInfo => ({ sound: new Set(), weak: new Map() });

/* ---------------- sink tables ---------------- */

const SHELL_FNS = new Set(['os.system', 'os.popen', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'asyncio.create_subprocess_shell', 'commands.getoutput']);
const PROC_FNS = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen']);
const EXEC_FNS = new Set(['asyncio.create_subprocess_exec', 'os.execv', 'os.execvp', 'os.execvpe', 'os.execl', 'os.execlp', 'os.execle', 'os.execlpe', 'os.posix_spawn', 'os.posix_spawnp']);
const EVAL_FNS = new Set(['eval', 'exec', 'builtins.eval', 'builtins.exec']);
const SHELLS = /^(?:.*\/)?(?:sh|bash|zsh|dash|ksh|fish|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh|python[\d.]*|node|perl|ruby|php)$/i;
const INLINE_FLAGS = new Set(['-c', '/c', '-e', '--eval', '-Command', '-command', '-lc', '-ic']);

const FILE_FNS_ONE = new Set([
  'open',
  'io.open',
  'os.open',
  'codecs.open',
  'aiofiles.open',
  'os.remove',
  'os.unlink',
  'os.rmdir',
  'os.removedirs',
  'os.mkdir',
  'os.makedirs',
  'os.listdir',
  'os.scandir',
  'os.walk',
  'os.chmod',
  'os.chown',
  'os.truncate',
  'glob.glob',
  'glob.iglob',
  'tarfile.open',
  'zipfile.ZipFile',
]);
const FILE_FNS_TWO = new Set(['os.rename', 'os.renames', 'os.replace', 'os.symlink', 'os.link']);
const FILE_METHODS = new Set(['read_text', 'read_bytes', 'write_text', 'write_bytes', 'open', 'unlink', 'rmdir', 'mkdir', 'touch', 'iterdir', 'glob', 'rglob', 'symlink_to', 'hardlink_to', 'chmod']);
/** Methods that also exist on str: only a sink on something known to be a Path. */
const PATH_ONLY_METHODS = new Set(['rename', 'replace']);

export const HTTP_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request', 'stream']);
const HTTP_MODULES = new Set(['requests', 'httpx']);
export const HTTP_CLIENTS = new Set(['requests.Session()', 'requests.session()', 'httpx.Client()', 'httpx.AsyncClient()', 'aiohttp.ClientSession()', 'urllib3.PoolManager()']);

const SANITIZERS: Record<SinkKind, Set<string>> = {
  command: new Set(['shlex.quote', 'pipes.quote', 'shlex.join']),
  file: new Set(['werkzeug.utils.secure_filename']),
  http: new Set(),
};
const ALWAYS_SANITIZERS = new Set(['int', 'float', 'bool', 'len', 'abs', 'round', 'hash', 'ord', 'id', 'isinstance', 'callable', 'uuid.UUID']);

/* ---------------- one function, one sink kind ---------------- */

class Scope {
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
function topAssignments(file: PythonFile): { left: Node; right: Node; at: Node }[] {
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

class Helpers {
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

/* ---------------- sinks ---------------- */

interface Check {
  expr: Node;
  problem: FlowProblem;
  sink: string;
  client?: Node;
}

function sinkChecks(call: Node, s: Scope): Check[] {
  const p = callParts(call);
  if (!p) return [];
  const q = qualName(p.fn, s.file, s.types) ?? '';
  const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
  const out: Check[] = [];
  if (s.kind === 'command') {
    const first = p.args[0] ?? p.kw.get('args') ?? p.kw.get('cmd') ?? p.kw.get('command') ?? p.kw.get('source');
    if (SHELL_FNS.has(q) && first) out.push({ expr: first, problem: 'command-shell', sink: q });
    else if (EVAL_FNS.has(q) && first) out.push({ expr: first, problem: 'code-eval', sink: q });
    else if (PROC_FNS.has(q) && first) {
      const sh = p.kw.get('shell');
      const shell = !!sh && !/^(?:False|None|0)$/.test(sh.text);
      if (shell) out.push({ expr: first, problem: 'command-shell', sink: q });
      else out.push(...argvChecks(listElements(first, s), first, q));
    } else if (EXEC_FNS.has(q) && !p.args.length && p.splats.length) {
      out.push({ expr: p.splats[0]!, problem: 'command-program', sink: q });
    } else if (EXEC_FNS.has(q) && p.args.length) {
      const argv = q.startsWith('os.execv') || q.startsWith('os.posix_spawn') ? [p.args[0]!, ...(listElements(p.args[1], s) ?? []).slice(1)] : p.args;
      out.push(...argvChecks(argv, p.args[0]!, q));
    }
  } else if (s.kind === 'file') {
    if (FILE_FNS_ONE.has(q) || FILE_FNS_TWO.has(q) || q.startsWith('shutil.')) {
      const n = FILE_FNS_ONE.has(q) ? 1 : 2;
      for (const a of [...p.args.slice(0, n), ...['file', 'path', 'src', 'dst', 'name'].map((k) => p.kw.get(k)).filter((x): x is Node => !!x)]) {
        out.push({ expr: a, problem: 'path-unconfined', sink: q });
      }
    } else if (attr && p.fn.type === 'attribute') {
      const recv = p.fn.childForFieldName('object');
      const isModule = !recv || (recv.type === 'identifier' && s.file.imports.has(recv.text));
      if (recv && !isModule && (FILE_METHODS.has(attr) || (PATH_ONLY_METHODS.has(attr) && pathLike(recv, s)))) {
        out.push({ expr: recv, problem: 'path-unconfined', sink: `Path.${attr}` });
      }
    }
  } else {
    const m = /^(.*)\.(\w+)$/.exec(q);
    let url: Node | undefined;
    let client: Node | undefined;
    if (m && HTTP_VERBS.has(m[2]!) && (HTTP_MODULES.has(m[1]!) || HTTP_CLIENTS.has(m[1]!))) {
      url = (m[2] === 'request' ? p.args[1] : p.args[0]) ?? p.kw.get('url');
      if (HTTP_CLIENTS.has(m[1]!)) {
        const o = p.fn.type === 'attribute' ? p.fn.childForFieldName('object') : null;
        const recv = o ? unparen(o) : undefined;
        client = recv?.type === 'identifier' ? s.typeNodes.get(recv.text) : recv?.type === 'call' ? recv : undefined;
      }
    } else if (q === 'urllib.request.urlopen' || q === 'urllib.request.Request') url = p.args[0] ?? p.kw.get('url');
    else if (q === 'aiohttp.request' || q === 'urllib3.request') url = p.args[1] ?? p.kw.get('url');
    if (url) out.push({ expr: url, problem: 'url-unchecked', sink: q, client });
  }
  return out;
}

function pathLike(n: Node, s: Scope): boolean {
  const u = unparen(n);
  if (u.type === 'binary_operator' && u.childForFieldName('operator')?.text === '/') return true;
  const q = qualName(u, s.file, s.types) ?? '';
  return /(?:^|\.)(?:Path|PurePath|PosixPath|WindowsPath)\(\)$/.test(q) || /\.(?:resolve|absolute|joinpath|with_name|with_suffix)\(\)$/.test(q);
}

/** The elements of a list/tuple literal (directly, through a local variable, or the left of `+`). */
function listElements(n: Node | undefined, s: Scope, depth = 0): Node[] | undefined {
  if (!n || depth > 3) return undefined;
  const u = unparen(n);
  if (u.type === 'list' || u.type === 'tuple') return kids(u);
  if (u.type === 'binary_operator' && u.childForFieldName('operator')?.text === '+') return listElements(u.childForFieldName('left')!, s, depth + 1);
  if (u.type === 'identifier') {
    const v = s.valueOf(u.text);
    return v ? listElements(v, s, depth + 1) : undefined;
  }
  return undefined;
}

/** Checks for an argv: the program must not come from an argument; an interpreter given -c runs code. */
function argvChecks(argv: Node[] | undefined, whole: Node, sink: string): Check[] {
  if (!argv || argv.length === 0) return [{ expr: whole, problem: 'command-program', sink }];
  const prog = argv[0]!;
  const out: Check[] = [{ expr: prog, problem: 'command-program', sink }];
  const progName = stringLiteral(prog)?.value ?? (prog.text === 'sys.executable' ? 'python' : undefined);
  const flag = stringLiteral(argv[1])?.value;
  if (progName && SHELLS.test(progName) && flag && INLINE_FLAGS.has(flag)) {
    for (const a of argv.slice(2)) out.push({ expr: a, problem: 'command-shell', sink });
  }
  return out;
}

/* ---------------- entry point ---------------- */

const flowMemo = new WeakMap<PythonModel, Map<SinkKind, PyFlow[]>>();

/** Every sink of a kind reached by a client argument, guarded (no problem) or not. */
export function pythonFlows(model: PythonModel, kind: SinkKind): PyFlow[] {
  let perKind = flowMemo.get(model);
  if (!perKind) {
    perKind = new Map();
    flowMemo.set(model, perKind);
  }
  const hit = perKind.get(kind);
  if (hit) return hit;
  const flows: PyFlow[] = [];
  const helpers = new Map<PythonFile, Helpers>();
  for (const h of model.handlers) {
    if (h.sources.length === 0 && h.dictSources.length === 0) continue;
    let hp = helpers.get(h.file);
    if (!hp) {
      hp = new Helpers(h.file, kind);
      helpers.set(h.file, hp);
    }
    const s = new Scope(h.file, h.fn, h.sources, h.dictSources, kind, hp);
    // Arguments the schema already constrains (low-level enum/integer; a strict pattern for commands).
    const cleared = new Set<string>();
    for (const t of h.tools) {
      for (const p of t.params) {
        if (p.constrained) cleared.add(p.name);
        if (kind === 'command' && p.pattern !== undefined && safeCommandPattern(p.pattern, false)) cleared.add(p.name);
      }
    }
    const all = s.taint(EMPTY);
    for (const call of s.nodes) {
      if (call.type !== 'call') continue;
      const checks = sinkChecks(call, s);
      if (!checks.length) continue;
      let flagged: PyFlow | undefined;
      let guarded: PyFlow | undefined;
      let guards: GuardInfo | undefined;
      for (const ch of checks) {
        const base = [...s.expr(ch.expr, all)].filter((o) => !cleared.has(o));
        if (base.length === 0) continue;
        const g = (guards ??= s.guardsAt(call));
        const rem = [...s.expr(ch.expr, s.taint(g.sound))].filter((o) => !cleared.has(o));
        const fixed = kind === 'http' && s.hostFixed(ch.expr, ch.client);
        const flow: PyFlow = {
          kind,
          handlerKind: h.kind,
          handler: h.toolAt(call)?.name ?? h.name,
          file: h.file.rel,
          line: lineOf(call),
          sink: ch.sink,
          parameter: (rem.length ? rem : base).sort()[0]!,
          evidence: evidenceLine(h.file, call),
        };
        if (rem.length && !fixed) {
          const vars = s.related(ch.expr);
          flow.problem = refine(ch.problem, g, vars);
          const guardLine = [...vars].sort().filter((v) => g.weak.get(v) === flow.problem).map((v) => g.weakLines?.get(v)).find((l) => l !== undefined);
          if (guardLine !== undefined) flow.guardLine = guardLine;
          flagged ??= flow;
        } else guarded ??= flow;
      }
      if (flagged) flows.push(flagged);
      else if (guarded) flows.push(guarded);
    }
  }
  perKind.set(kind, flows);
  return flows;
}

function refine(p: FlowProblem, g: GuardInfo, vars: Set<string>): FlowProblem {
  const weak = [...vars].map((v) => g.weak.get(v)).filter((x): x is FlowProblem => !!x);
  if (p === 'path-unconfined') {
    for (const w of ['path-prefix-without-separator', 'path-check-before-realpath', 'path-raw-check'] as FlowProblem[]) if (weak.includes(w)) return w;
  }
  if (p === 'url-unchecked' && weak.includes('url-raw-check')) return 'url-raw-check';
  return p;
}

export function evidenceLine(file: PythonFile, n: Node): string {
  const line = file.text.split('\n')[n.startPosition.row] ?? '';
  const t = line.replace(/\s+#.*$/, '').trim();
  return t.length > 160 ? t.slice(0, 157) + '…' : t;
}

/* ---------------- environment and secrets returned to the client (X-6) ---------------- */

export interface PyEnvLeak {
  handlerKind: HandlerKind;
  handler: string;
  file: string;
  line: number;
  what: 'environment' | 'secret';
  variable?: string;
  evidence: string;
}

/** Names of environment variables that hold secrets. PWD (the working directory) is not one. */
export const SECRET_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|APIKEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|AUTH)(?:_|$)|_KEY$|^KEY$/i;
const ENV_READERS = new Set(['os.environ.get', 'os.getenv', 'os.environ.pop', 'os.environ.setdefault', 'os.environ.__getitem__']);
const PASS_CALLS = new Set(['dict', 'str', 'repr', 'list', 'tuple', 'set', 'sorted', 'format', 'json.dumps', 'orjson.dumps', 'yaml.dump', 'yaml.safe_dump', 'pprint.pformat']);
const PASS_METHODS = new Set(['copy', 'items', 'keys', 'values', 'format', 'join', 'replace', 'strip', 'upper', 'lower', 'encode', 'decode', 'dumps', 'model_dump', 'to_dict']);
const RESULT_CTORS = /(?:^|\.)(?:TextContent|CallToolResult|TextResourceContents|EmbeddedResource|ToolResult)$/;

type EnvTaint = { environment: boolean; secrets: ReadonlySet<string> };
const NO_ENV: EnvTaint = { environment: false, secrets: new Set() };
const envUnion = (...xs: EnvTaint[]): EnvTaint => ({ environment: xs.some((x) => x.environment), secrets: new Set(xs.flatMap((x) => [...x.secrets])) });
const envEmpty = (x: EnvTaint): boolean => !x.environment && x.secrets.size === 0;

/** Handlers that return the whole environment, or a secret variable from it. */
export function pythonEnvLeaks(model: PythonModel): PyEnvLeak[] {
  const out: PyEnvLeak[] = [];
  for (const h of model.handlers) {
    const s = new Scope(h.file, h.fn, [], [], 'http', undefined);
    const file = h.file;
    const env = new Map<string, EnvTaint>();
    /** One variable read by key: a literal name is a secret or not; a name chosen at run time can be any of them. */
    const byKey = (k: Node | null | undefined): EnvTaint => {
      const name = constString(k, file);
      if (name !== undefined) return SECRET_NAME.test(name) ? { environment: false, secrets: new Set([name]) } : NO_ENV;
      // for name in ("LOGNAME", "USER"): os.environ.get(name) -- a fixed list of names.
      const u = k ? unparen(k) : undefined;
      const vals = u?.type === 'identifier' ? s.assignedValues(u.text).map((a) => unparen(a.value)) : [];
      if (vals.length && vals.every((v) => ['tuple', 'list', 'set'].includes(v.type))) {
        const names = vals.flatMap((v) => kids(v).map((x) => constString(x, file)));
        if (names.every((x): x is string => x !== undefined)) {
          const secret = names.filter((x) => SECRET_NAME.test(x));
          return secret.length ? { environment: false, secrets: new Set(secret) } : NO_ENV;
        }
      }
      return k ? { environment: true, secrets: new Set() } : NO_ENV;
    };
    const ex = (n: Node | null | undefined): EnvTaint => {
      if (!n) return NO_ENV;
      const e = unparen(n);
      switch (e.type) {
        case 'identifier':
          if (qualName(e, file) === 'os.environ') return { environment: true, secrets: new Set() };
          return env.get(e.text) ?? NO_ENV;
        case 'attribute':
          if (qualName(e, file) === 'os.environ') return { environment: true, secrets: new Set() };
          return ex(e.childForFieldName('object'));
        case 'subscript': {
          const v = e.childForFieldName('value');
          if (qualName(v, file) === 'os.environ' || ex(v).environment) return byKey(e.childForFieldName('subscript'));
          return ex(v);
        }
        case 'call': {
          const p = callParts(e)!;
          const q = qualName(p.fn, file) ?? '';
          if (ENV_READERS.has(q)) return byKey(p.args[0] ?? p.kw.get('key'));
          const attr = p.fn.type === 'attribute' ? p.fn.childForFieldName('attribute')?.text : undefined;
          // environ.get(k) on an alias of os.environ (environ = os.environ).
          if (attr && ['get', 'pop', 'setdefault', '__getitem__'].includes(attr) && ex(p.fn.childForFieldName('object')).environment) return byKey(p.args[0]);
          const parts = [...p.args, ...p.splats, ...p.kw.values()].map(ex);
          if (PASS_CALLS.has(q) || RESULT_CTORS.test(q)) return envUnion(...parts);
          if (attr && PASS_METHODS.has(attr)) return envUnion(ex(p.fn.childForFieldName('object')), ...parts);
          return NO_ENV;
        }
        case 'comparison_operator':
        case 'not_operator':
        case 'lambda':
          return NO_ENV;
        case 'string':
          return envUnion(...kids(e).filter((k) => k.type === 'interpolation').map((k) => ex(k.childForFieldName('expression') ?? k.namedChild(0))));
        default:
          return envUnion(...kids(e).map(ex));
      }
    };
    // Module-level names (API_KEY = os.environ["API_KEY"]) count too.
    const moduleAssigns: Assign[] = topAssignments(file).map((a) => ({ targets: [a.left.text], value: a.right, at: a.at }));
    for (let round = 0; round < 8; round++) {
      let changed = false;
      for (const a of [...moduleAssigns, ...s.assigns]) {
        const v = ex(a.value);
        if (envEmpty(v)) continue;
        for (const t of a.targets) {
          const prev = env.get(t) ?? NO_ENV;
          const next = envUnion(prev, v);
          if (next.environment !== prev.environment || next.secrets.size !== prev.secrets.size) {
            env.set(t, next);
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    for (const r of s.nodes) {
      if (r.type !== 'return_statement' && r.type !== 'yield') continue;
      const v = ex(r.namedChild(0));
      if (envEmpty(v)) continue;
      const base = { handlerKind: h.kind, handler: h.toolAt(r)?.name ?? h.name, file: file.rel, line: lineOf(r), evidence: evidenceLine(file, r) };
      if (v.environment) out.push({ ...base, what: 'environment' });
      else out.push({ ...base, what: 'secret', variable: [...v.secrets].sort()[0] });
    }
  }
  return out;
}
