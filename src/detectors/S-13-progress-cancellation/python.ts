import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { HTTP_VERBS } from '../../facts/python-flow.js';
import { callParts, moduleConst, qualName, unparen, type CallParts, type PythonModel } from '../../facts/python-model.js';
import { allNodes, descendants, kids, lineOf, nodesWithin, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { bare, calledFunction, localValue, moduleFile } from '../support/python/python-results.js';

/**
 * S-13, static part on a Python server (called by static.ts when the source is Python only). The same
 * question and message id as the JavaScript reading: every outbound HTTP request on a request path has a
 * ceiling ('outbound-without-timeout', with the library as `client`).
 *
 * Request paths: the functions the SDK calls for a client request (FastMCP tools, resources and prompts,
 * low-level handlers: the Python model's handlers) and the functions of the source they call (helpers,
 * `self.` methods, methods of module singletons, functions of other modules), a few levels deep.
 *
 * What each library does without a timeout, and what turns it off:
 *   - requests (`requests.get(...)`, a `requests.Session()`): no limit unless the call passes `timeout=`
 *     (a Session has no default; one with an adapter mounted, or whose `request` is replaced by a
 *     `partial(..., timeout=...)`, is given the benefit of the doubt); `timeout=None` is no limit;
 *   - httpx (`httpx.get(...)`, `httpx.Client()` / `httpx.AsyncClient()`): 5 s by default; `timeout=None`
 *     on the call, or on the client when the call sets none, is no limit;
 *   - aiohttp (`aiohttp.ClientSession()`, `aiohttp.request(...)`): 5 minutes by default; a
 *     `ClientTimeout()` that sets no limit (`total=None` and nothing else) is no limit;
 *   - `urllib.request.urlopen(url)` and `urllib3.PoolManager()`: no limit without `timeout=` (the socket
 *     default), unless `socket.setdefaulttimeout(...)` is called somewhere in the source.
 * A call inside `asyncio.wait_for(...)`, `async with asyncio.timeout(...)`, `anyio.fail_after(...)` or
 * `anyio.move_on_after(...)` is bounded. A timeout value that cannot be read (a name, a parameter, a
 * `**kwargs`) is given the benefit of the doubt, as in the JavaScript part.
 *
 * Cancellation ('signal-ignored' in JavaScript) has no counterpart here: the Python SDK cancels the task of
 * a cancelled request itself (a CancelledError in the handler), so there is no signal for a handler to read.
 * No handler in the source: could-not-judge 'no-handlers-in-source'.
 */

type Lib = 'requests' | 'httpx' | 'aiohttp' | 'urllib' | 'urllib3';
type Limit = 'set' | 'off' | 'none' | 'unknown';

const CLIENT_CTORS: Record<string, Lib> = {
  'requests.Session()': 'requests',
  'requests.session()': 'requests',
  'requests.sessions.Session()': 'requests',
  'httpx.Client()': 'httpx',
  'httpx.AsyncClient()': 'httpx',
  'aiohttp.ClientSession()': 'aiohttp',
  'urllib3.PoolManager()': 'urllib3',
};
const MODULE_VERBS: Record<string, Lib> = { requests: 'requests', httpx: 'httpx' };
const SESSION_METHODS = new Set([...HTTP_VERBS, 'urlopen', 'send']);
const DEADLINE_CALLS = /^(?:asyncio\.wait_for|asyncio\.timeout|asyncio\.timeout_at|anyio\.fail_after|anyio\.move_on_after|async_timeout\.timeout|trio\.fail_after|trio\.move_on_after)$/;
const MAX_FUNCTIONS = 400;
const MAX_DEPTH = 6;

/** What a `timeout=` value says: a literal None is no limit, anything else a limit or unreadable. */
function timeoutValue(v: Node, file: PythonFile, lib: Lib, depth = 0): Limit {
  const x = bare(v);
  if (x.type === 'none') return 'off';
  if (x.type === 'integer' || x.type === 'float') return Number(x.text.replace(/_/g, '')) > 0 ? 'set' : lib === 'requests' || lib === 'urllib' || lib === 'urllib3' ? 'set' : 'off';
  if (x.type === 'identifier' && depth < 3) {
    const at = localValue(x.text, x) ?? moduleConst(file, x.text);
    return at && at.id !== x.id ? timeoutValue(at, file, lib, depth + 1) : 'unknown';
  }
  if (x.type === 'call') {
    const p = callParts(x);
    const q = p ? qualName(p.fn, file) ?? '' : '';
    if (p && /(?:^|\.)(?:ClientTimeout|Timeout)$/.test(q)) {
      if (p.splats.length) return 'unknown';
      const given = [...p.args, ...p.kw.values()];
      if (given.length === 0) return lib === 'httpx' ? 'unknown' : 'off';
      return given.every((g) => bare(g).type === 'none') ? 'off' : 'set';
    }
  }
  return 'unknown';
}

/** The limit a call or constructor sets through `timeout=` (or a `**kwargs` that may hold one). */
function limitOf(p: CallParts, file: PythonFile, lib: Lib, positional?: number): Limit {
  const t = p.kw.get('timeout') ?? (positional !== undefined ? p.args[positional] : undefined);
  if (t) return timeoutValue(t, file, lib);
  return p.splats.some((s) => s.type === 'dictionary_splat') ? 'unknown' : 'none';
}

interface Resolved {
  lib: Lib;
  /** The constructor call of the client instance. */
  ctor: Node;
  file: PythonFile;
}

class Reader {
  private readonly findings: Finding[] = [];
  private readonly seenCalls = new Set<string>();
  readonly socketDefault: boolean;
  /** A Session given a default elsewhere: an adapter mounted on it (`session.mount(..., TimeoutAdapter(...))`) or `session.request = partial(..., timeout=...)`. */
  readonly sessionDefault: boolean;

  constructor(private readonly model: PythonModel) {
    const texts = [...model.sources.files.values()].map((f) => f.text ?? '');
    this.socketDefault = texts.some((t) => /\bsetdefaulttimeout\s*\(/.test(t));
    this.sessionDefault = texts.some((t) => /\.mount\s*\(/.test(t) || /\.request\s*=\s*(?:functools\.)?partial\s*\(/.test(t));
  }

  /** The client instance a receiver names: a call, a local, a `with ... as`, a module value (here or imported), `self.x`. */
  private client(n: Node, file: PythonFile, depth = 0): Resolved | undefined {
    if (depth > 4) return undefined;
    const x = bare(n);
    if (x.type === 'call') {
      const lib = CLIENT_CTORS[qualName(x, file) ?? ''];
      return lib ? { lib, ctor: x, file } : undefined;
    }
    if (x.type === 'identifier') {
      const bound = withBinding(x) ?? localValue(x.text, x);
      if (bound) return this.client(bound, file, depth + 1);
      const mod = moduleConst(file, x.text);
      if (mod && mod.id !== x.id) return this.client(mod, file, depth + 1);
      const imported = file.imports.get(x.text);
      if (imported?.includes('.')) {
        const cut = imported.lastIndexOf('.');
        const target = moduleFile(this.model, imported.slice(0, cut), file);
        const v = target ? moduleConst(target, imported.slice(cut + 1)) : undefined;
        if (v && target) return this.client(v, target, depth + 1);
      }
      return undefined;
    }
    if (x.type === 'attribute' && x.childForFieldName('object')?.text === 'self') {
      const v = selfValue(x);
      return v ? this.client(v, file, depth + 1) : undefined;
    }
    if (x.type === 'attribute') {
      // `http.tracker` on a module of the source (`from . import http`, `import pkg.http as http`).
      const obj = x.childForFieldName('object');
      const attr = x.childForFieldName('attribute')?.text;
      const q = obj?.type === 'identifier' ? file.imports.get(obj.text) : undefined;
      const target = q && attr ? moduleFile(this.model, asModule(q), file) : undefined;
      const v = target && attr ? moduleConst(target, attr) : undefined;
      return v && target ? this.client(v, target, depth + 1) : undefined;
    }
    return undefined;
  }

  /** An outbound request call: its library and whether it has a ceiling. */
  private outbound(call: Node, file: PythonFile): { lib: Lib; bounded: boolean } | undefined {
    const p = callParts(call);
    if (!p) return undefined;
    const q = qualName(p.fn, file) ?? '';
    const m = /^(\w+)\.(\w+)$/.exec(q);
    if (m && MODULE_VERBS[m[1]!] && HTTP_VERBS.has(m[2]!)) {
      const lib = MODULE_VERBS[m[1]!]!;
      const l = limitOf(p, file, lib);
      return { lib, bounded: lib === 'httpx' ? l !== 'off' : l === 'set' || l === 'unknown' };
    }
    if (q === 'urllib.request.urlopen') {
      const l = limitOf(p, file, 'urllib', 2);
      return { lib: 'urllib', bounded: l === 'set' || l === 'unknown' || this.socketDefault };
    }
    if (q === 'aiohttp.request') return { lib: 'aiohttp', bounded: limitOf(p, file, 'aiohttp') !== 'off' };
    if (p.fn.type !== 'attribute') return undefined;
    const method = p.fn.childForFieldName('attribute')?.text ?? '';
    const recv = p.fn.childForFieldName('object');
    if (!recv || !SESSION_METHODS.has(method)) return undefined;
    const c = this.client(recv, file);
    if (!c) return undefined;
    const own = limitOf(p, file, c.lib);
    const ctorParts = callParts(c.ctor);
    const inst = ctorParts ? limitOf(ctorParts, c.file, c.lib) : 'unknown';
    let bounded: boolean;
    if (own === 'unknown' || own === 'set') bounded = true;
    else if (own === 'off') bounded = false;
    else if (c.lib === 'requests') bounded = this.sessionDefault; // a Session has no default timeout of its own
    else if (c.lib === 'urllib3') bounded = inst === 'set' || inst === 'unknown' || this.socketDefault;
    else bounded = inst !== 'off'; // httpx 5 s, aiohttp 5 min by default
    return { lib: c.lib, bounded };
  }

  /** Every call of a function of the request paths, read once; functions of the source it calls are followed. */
  read(entries: { fn: Node; file: PythonFile }[]): Finding[] {
    const seen = new Set<string>();
    let frontier = entries.filter((e) => {
      const k = `${e.file.rel}:${e.fn.startIndex}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    for (let depth = 0; depth <= MAX_DEPTH && frontier.length && seen.size <= MAX_FUNCTIONS; depth++) {
      const next: { fn: Node; file: PythonFile }[] = [];
      for (const { fn, file } of frontier) {
        for (const n of nodesWithin(file, fn)) {
          if (n.type !== 'call') continue;
          const key = `${file.rel}:${n.startIndex}`;
          const r = this.seenCalls.has(key) ? undefined : this.outbound(n, file);
          if (r) {
            this.seenCalls.add(key);
            if (!r.bounded && !underDeadline(n, file, fn)) {
              this.findings.push({
                messageId: 'outbound-without-timeout',
                data: { client: r.lib },
                location: { file: file.rel, line: lineOf(n) },
                evidence: n.text.replace(/\s+/g, ' ').slice(0, 120),
              });
            }
            continue;
          }
          const f = n.childForFieldName('function');
          const target = f && seen.size <= MAX_FUNCTIONS ? calledFunction(this.model, f, file) : undefined;
          if (!target) continue;
          const k = `${target.file.rel}:${target.fn.startIndex}`;
          if (seen.has(k)) continue;
          seen.add(k);
          next.push(target);
        }
      }
      frontier = next;
    }
    return this.findings;
  }
}

/** The module a bound name stands for: `from . import http` binds `..http`, the module `.http`. */
function asModule(q: string): string {
  const cut = q.lastIndexOf('.');
  if (cut <= 0) return q;
  const base = q.slice(0, cut);
  return /^\.+$/.test(base) ? `${base}${q.slice(cut + 1)}` : q;
}

/** `with X() as name` / `async with X() as name` around a node: the value bound to `name`. */
function withBinding(id: Node): Node | undefined {
  for (let p: Node | null = id.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'class_definition') return undefined;
    if (p.type !== 'with_statement') continue;
    for (const item of descendants(p, (d) => d.type === 'block')) {
      if (item.type !== 'as_pattern') continue;
      const alias = item.childForFieldName('alias');
      const value = kids(item)[0];
      if (alias && value && alias.text.trim() === id.text) return value;
    }
  }
  return undefined;
}

/** `self.x` as assigned in the class that holds the node (`self._http = httpx.AsyncClient(...)`); each class read once. */
const selfMemo = new WeakMap<object, Map<number, Map<string, Node>>>();
function selfValue(attr: Node): Node | undefined {
  const name = attr.childForFieldName('attribute')?.text;
  let cls: Node | null = attr.parent;
  while (cls && cls.type !== 'class_definition') cls = cls.parent;
  if (!cls || !name) return undefined;
  let perTree = selfMemo.get(cls.tree);
  if (!perTree) selfMemo.set(cls.tree, (perTree = new Map()));
  let fields = perTree.get(cls.id);
  if (!fields) {
    fields = new Map();
    for (const d of descendants(cls)) {
      if (d.type !== 'assignment') continue;
      const l = d.childForFieldName('left');
      const r = d.childForFieldName('right');
      const m = l?.type === 'attribute' && r ? /^self\.(\w+)$/.exec(l.text.replace(/\s/g, '')) : null;
      if (m && !fields.has(m[1]!)) fields.set(m[1]!, r!);
    }
    perTree.set(cls.id, fields);
  }
  return fields.get(name);
}

/** Inside `asyncio.wait_for(...)`, or a `with` block of `asyncio.timeout(...)` / `anyio.fail_after(...)`, within its function. */
function underDeadline(call: Node, file: PythonFile, fn: Node): boolean {
  for (let p: Node | null = call.parent; p && p.id !== fn.id; p = p.parent) {
    if (p.type === 'call') {
      const f = p.childForFieldName('function');
      if (DEADLINE_CALLS.test(qualName(f, file) ?? '')) return true;
    }
    if (p.type === 'with_statement') {
      for (const item of descendants(p, (d) => d.type === 'block')) {
        if (item.type === 'call' && DEADLINE_CALLS.test(qualName(item.childForFieldName('function'), file) ?? '')) return true;
      }
    }
  }
  return false;
}

/** Low-level request handlers the model does not list as tools: `@server.read_resource()`, `@server.get_prompt()`, list handlers. */
const LOW_LEVEL = new Set(['read_resource', 'get_prompt', 'list_resources', 'list_resource_templates', 'list_prompts', 'list_tools', 'complete', 'subscribe_resource', 'unsubscribe_resource', 'set_logging_level']);
function lowLevelHandlers(model: PythonModel): { fn: Node; file: PythonFile }[] {
  const out: { fn: Node; file: PythonFile }[] = [];
  for (const file of model.sources.files.values()) {
    for (const dd of allNodes(file)) {
      if (dd.type !== 'decorated_definition') continue;
      const def = dd.childForFieldName('definition');
      if (def?.type !== 'function_definition') continue;
      const hit = kids(dd).some((dec) => {
        const e = dec.type === 'decorator' ? dec.namedChild(0) : null;
        const t = e?.type === 'call' ? e.childForFieldName('function') : null;
        return t?.type === 'attribute' && LOW_LEVEL.has(t.childForFieldName('attribute')?.text ?? '');
      });
      if (hit) out.push({ fn: def, file });
    }
  }
  return out;
}

export function judgePythonTimeouts(repo: RepoFacts): Verdict {
  const m = pythonModelOrVerdict(repo);
  if (isVerdict(m)) return m;
  const model = m;
  const entries = [...model.handlers.map((h) => ({ fn: h.fn, file: h.file })), ...lowLevelHandlers(model)];
  if (entries.length === 0) return unreadableVerdict(model) ?? couldNotJudge('no-handlers-in-source');
  const findings = new Reader(model).read(entries);
  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (findings.length) return { state: 'non-conforming', findings };
  return unreadableVerdict(model) ?? present();
}
