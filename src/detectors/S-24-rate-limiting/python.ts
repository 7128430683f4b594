import type { Node } from 'web-tree-sitter';
import { couldNotJudge, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { callParts, fnName, qualName, type PythonModel } from '../../facts/python-model.js';
import { allNodes, descendants, kids, lineOf, type PythonFile } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import type { SessionFacts } from '../../facts/session.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';
import { pyNoToolsFound, pyTools } from '../support/python/python-tools.js';

/**
 * S-24, static part on a Python server (called by static.ts when the source is Python). A rate guard is:
 *   - a limiter package imported: slowapi, limits, aiolimiter, ratelimit, ratelimiter, pyrate_limiter,
 *     asyncio_throttle, throttler, fastapi_limiter, token_bucket;
 *   - a class or function of the source named like a limiter (RateLimiter, TokenBucket, rate_limit,
 *     throttle…), and module-level values built from either. Error types (a class named *Error /
 *     *Exception, or deriving from one) and readers of an upstream service's limits (is_rate_limited,
 *     handle_rate_limit, rate_limit_reset…) are not limiters, nor a name only raised.
 * A tool is guarded when its function (or, low-level, the call_tool handler), its decorators, or a
 * function of the source it calls (two levels, by name) refers to a limiter. A limiter mounted as HTTP
 * middleware (`add_middleware(...)`, `Middleware(...)` with a limiter) guards every tool.
 * No limiter anywhere in the source (every file read): absent, one finding 'python-no-rate-guard' at the
 * first tool; some tools guarded and others not: non-conforming per unguarded tool; a limiter on no
 * tool's path: could-not-judge 'limiter-not-on-tool-path'.
 */

const LIMITER_MODULES = /^(?:slowapi|limits|aiolimiter|ratelimit|ratelimiter|pyrate_limiter|asyncio_throttle|throttler|fastapi_limiter|token_bucket)(?:\.|$)/;
const LIMITER_NAME_RE = /rate_?limit|token_?bucket|throttl|ratelimit/i;
const NOT_A_LIMITER = /(?:Error|Exception|Err)$|^_?(?:is|has|handle|parse|detect|on|check_if)_?rate_?limit|rate_?limit(?:ed|s?_?(?:headers?|reset|remaining|info|status|response|exceeded|hit))$/i;
const limiterName = (n: string): boolean => LIMITER_NAME_RE.test(n) && !NOT_A_LIMITER.test(n);

interface Limiters {
  first?: { file: string; line: number };
  /** Per file: local names bound to a limiter (imports, definitions, module values). */
  names: Map<string, Set<string>>;
}

function limitersOf(model: PythonModel): Limiters {
  const lim: Limiters = { names: new Map() };
  const note = (file: PythonFile, n: Node) => {
    lim.first ??= { file: file.rel, line: lineOf(n) };
  };
  for (const file of model.sources.files.values()) {
    const names = new Set<string>();
    for (const [local, dotted] of file.imports) {
      if (LIMITER_MODULES.test(dotted) || (limiterName(local) && limiterName(dotted.split('.').pop() ?? ''))) names.add(local);
    }
    for (const n of allNodes(file)) {
      if (n.type === 'import_statement' || n.type === 'import_from_statement') {
        if (LIMITER_MODULES.test(n.childForFieldName('module_name')?.text ?? n.namedChild(0)?.text ?? '')) note(file, n);
      } else if (n.type === 'class_definition') {
        const name = n.childForFieldName('name')?.text ?? '';
        const bases = n.childForFieldName('superclasses')?.text ?? '';
        if (limiterName(name) && !/(?:Error|Exception)\b/.test(bases)) {
          names.add(name);
          note(file, n);
        }
      } else if (n.type === 'function_definition' && limiterName(fnName(n))) {
        names.add(fnName(n));
        note(file, n);
      }
    }
    // Module values built from a limiter: `limiter = Limiter(key_func=...)`, `bucket = AsyncLimiter(10, 1)`.
    for (const st of kids(file.root)) {
      const a = st.type === 'expression_statement' ? st.namedChild(0) : null;
      if (a?.type !== 'assignment') continue;
      const l = a.childForFieldName('left');
      const r = a.childForFieldName('right');
      const callee = r?.type === 'call' ? r.childForFieldName('function') : r;
      const root = callee?.text.split('.')[0] ?? '';
      if (l?.type === 'identifier' && callee && (names.has(root) || limiterName(callee.text.split('.').pop() ?? ''))) {
        names.add(l.text);
        note(file, a);
      }
    }
    lim.names.set(file.rel, names);
  }
  return lim;
}

/** Does this code refer to a limiter (not in a raise statement)? */
function refersToLimiter(n: Node, file: PythonFile, lim: Limiters): boolean {
  const names = lim.names.get(file.rel) ?? new Set<string>();
  for (const d of [n, ...descendants(n, (x) => x.type === 'raise_statement')]) {
    if (d.type === 'raise_statement') continue;
    if (d.type === 'identifier' && (names.has(d.text) || limiterName(d.text))) return true;
    if (d.type === 'attribute') {
      const a = d.childForFieldName('attribute')?.text ?? '';
      if (limiterName(a) || (names.has(d.text.split('.')[0]!) && d.parent?.type === 'call')) return true;
    }
  }
  return false;
}

export function judgePythonRateLimits(repo: RepoFacts, session?: SessionFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  const tools = pyTools(model);
  if (tools.length === 0) return pyNoToolsFound(model, session);
  const lim = limitersOf(model);
  if (!lim.first) {
    const gap = unreadableVerdict(model, { tools: false });
    if (gap) return gap;
    const t = tools[0]!;
    return { state: 'absent', findings: [{ messageId: 'python-no-rate-guard', data: { tools: tools.length }, location: { file: t.file, line: t.line } }] };
  }
  // A limiter mounted as HTTP middleware guards every tools/call.
  for (const file of model.sources.files.values()) {
    for (const c of allNodes(file)) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      const q = p ? qualName(p.fn, file) ?? '' : '';
      if (p && /(?:^|\.)(?:add_middleware|Middleware)$/.test(q) && [...p.args, ...p.kw.values()].some((a) => refersToLimiter(a, file, lim))) return present();
    }
  }
  // Functions of the source by name, for the calls a handler makes.
  const defs = new Map<string, { file: PythonFile; fn: Node }[]>();
  for (const file of model.sources.files.values()) {
    for (const n of allNodes(file)) if (n.type === 'function_definition') defs.set(fnName(n), [...(defs.get(fnName(n)) ?? []), { file, fn: n }]);
  }
  const guardedFn = new Map<number, boolean>();
  const guards = (file: PythonFile, fn: Node, depth: number): boolean => {
    const hit = guardedFn.get(fn.id);
    if (hit !== undefined) return hit;
    guardedFn.set(fn.id, false);
    const deco = fn.parent?.type === 'decorated_definition' ? fn.parent : undefined;
    let r = refersToLimiter(fn, file, lim) || (!!deco && kids(deco).some((k) => k.type === 'decorator' && refersToLimiter(k, file, lim)));
    if (!r && depth < 2) {
      for (const c of descendants(fn)) {
        if (c.type !== 'call') continue;
        const f = c.childForFieldName('function');
        const name = f?.type === 'identifier' ? f.text : f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
        if (name && (defs.get(name) ?? []).some((d) => d.fn.id !== fn.id && guards(d.file, d.fn, depth + 1))) {
          r = true;
          break;
        }
      }
    }
    guardedFn.set(fn.id, r);
    return r;
  };
  const unguarded: typeof tools = [];
  let guarded = 0;
  for (const t of tools) {
    const h = model.handlers.find((x) => x.tools.includes(t));
    if (!h) continue;
    const branches = t.branches.length ? t.branches : [h.fn];
    const g = branches.some((b) => refersToLimiter(b, h.file, lim)) || guards(h.file, h.fn, 0);
    if (g) guarded++;
    else unguarded.push(t);
  }
  if (guarded === 0) return couldNotJudge('limiter-not-on-tool-path', { file: lim.first.file, line: lim.first.line });
  if (unguarded.length === 0) return present();
  const findings: Finding[] = unguarded.map((t) => ({ messageId: 'tool-not-rate-limited', data: { tool: t.name }, location: { file: t.file, line: t.line } }));
  return { state: 'non-conforming', findings };
}
