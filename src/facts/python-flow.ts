import type { Node } from 'web-tree-sitter';
import { kids, lineOf, stringLiteral, type PythonFile } from './python-source.js';
import { callParts, paramsOf, qualName, unparen, type PythonModel } from './python-model.js';
import { Helpers, safeCommandPattern, Scope } from './python-flow/scope.js';
import { EMPTY, EVAL_FNS, evidenceLine, EXEC_FNS, FILE_FNS_ONE, FILE_FNS_TWO, FILE_METHODS, type FlowProblem, type GuardInfo, HTTP_CLIENTS, HTTP_MODULES, HTTP_VERBS, IN_MEMORY, INLINE_FLAGS, LIBRARY_FILE_FNS, LIBRARY_PATH_KEYWORDS, LIBRARY_PATH_METHODS, PATH_ONLY_METHODS, PROC_FNS, type PyFlow, SHELL_FNS, SHELLS, type SinkKind, SQL_METHODS } from './python-flow/tables.js';
import { pathArgumentPositions, sqlFileBefore, sqlFilePlaceholders, type ArgvItem } from './file-arguments.js';


/**
 * A small intra-procedural taint analysis over the Python model: inside each handler (a FastMCP tool,
 * prompt or resource function, or a low-level call_tool handler), values that come from the client's
 * arguments are followed through assignments (plain, augmented, tuple, for targets, with-as, walrus),
 * f-strings, concatenation, `%` and `.format`, containers and calls, to three families of sinks:
 *
 *   command: subprocess.run/call/check_call/check_output/Popen (shell=True or not), os.system, os.popen,
 *            subprocess.getoutput, asyncio.create_subprocess_shell/exec, os.exec*, eval, exec; paramiko's
 *            `exec_command` (a command run by a remote host's shell, over SSH) in a file that imports paramiko;
 *   file:    open, io.open, os.open, aiofiles.open, os.remove/unlink/rmdir/mkdir/makedirs/rename/replace/
 *            listdir/scandir/walk, shutil.*, glob.glob, and Path methods (read_text, write_text, open…) on a
 *            tainted path; libraries that open a path (openpyxl, pandas, sqlite3…: LIBRARY_FILE_FNS, and
 *            LIBRARY_PATH_METHODS such as wb.save(p), frame.to_csv(p)); a subprocess's cwd and the path options of
 *            a list-form launch (facts/file-arguments); SQL sent through execute() that reads or writes a file;
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
 * it (`check_allowed(cmd)`). File flows are also followed into the package's own functions and methods (same
 * or another module, up to MAX_FOLLOW calls deep; see pythonFlows). Anything more (callbacks, fields, other sink
 * kinds through functions) is not followed, so the analysis can miss flows; it never executes anything.
 */
export { type PyEnvLeak, SECRET_NAME, pythonEnvLeaks } from './python-flow/env-leaks.js';
export { safeCommandPattern } from './python-flow/scope.js';
export { type SinkKind, type FlowProblem, type PyFlow, HTTP_VERBS, HTTP_CLIENTS, evidenceLine } from './python-flow/tables.js';

/* ---------------- sinks ---------------- */

/** The sink name of a command sent over SSH by paramiko (`client.exec_command(cmd)`), run by the remote host's shell. */
export const PARAMIKO_EXEC = 'paramiko.SSHClient.exec_command';
/** Whether a file imports paramiko (`import paramiko`, `from paramiko import SSHClient`). */
const importsParamiko = (file: PythonFile): boolean => [...file.imports.values()].some((m) => m === 'paramiko' || m.startsWith('paramiko.'));

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
    } else if (attr === 'exec_command' && p.fn.type === 'attribute' && importsParamiko(s.file)) {
      // paramiko's SSHClient.exec_command(command): the SSH server hands the string to the remote user's login shell.
      const command = p.args[0] ?? p.kw.get('command');
      if (command) out.push({ expr: command, problem: 'command-shell', sink: PARAMIKO_EXEC });
    }
  } else if (s.kind === 'file') {
    if (FILE_FNS_ONE.has(q) || FILE_FNS_TWO.has(q) || q.startsWith('shutil.')) {
      const n = FILE_FNS_ONE.has(q) ? 1 : 2;
      for (const a of [...p.args.slice(0, n), ...['file', 'path', 'src', 'dst', 'name'].map((k) => p.kw.get(k)).filter((x): x is Node => !!x)]) {
        out.push({ expr: a, problem: 'path-unconfined', sink: q });
      }
    } else if (LIBRARY_FILE_FNS.has(q) || LIBRARY_PATH_METHODS.some((r) => r.test(q))) {
      const path = p.args[0] ?? LIBRARY_PATH_KEYWORDS.map((k) => p.kw.get(k)).find((x) => !!x);
      if (path && !inMemory(path, s)) out.push({ expr: path, problem: 'path-unconfined', sink: q });
    } else if (PROC_FNS.has(q) || EXEC_FNS.has(q) || SHELL_FNS.has(q)) {
      // The working folder a program is started in, and a program given a file or folder (`git -C dir`,
      // `pg_dump -f out`, `--output=file`: facts/file-arguments).
      const cwd = p.kw.get('cwd');
      if (cwd) out.push({ expr: cwd, problem: 'path-unconfined', sink: q });
      const sh = p.kw.get('shell');
      const shell = SHELL_FNS.has(q) || (!!sh && !/^(?:False|None|0)$/.test(sh.text));
      const argv = shell ? undefined : PROC_FNS.has(q) ? listElements(p.args[0] ?? p.kw.get('args'), s) : q.startsWith('os.exec') || q.startsWith('os.posix_spawn') ? listElements(p.args[1], s) : p.args;
      const prog = argv?.[0] && stringLiteral(argv[0])?.value;
      if (argv && prog) {
        const rest = argv.slice(1);
        for (const i of pathArgumentPositions([prog], rest.map(argvItem))) out.push({ expr: rest[i]!, problem: 'path-unconfined', sink: q });
      }
    } else if (attr && SQL_METHODS.has(attr) && p.args[0]) {
      for (const path of sqlFilePaths(p.args[0], p.args[1])) out.push({ expr: path, problem: 'path-unconfined', sink: q || attr });
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

/** `io.StringIO(text)`, `io.BytesIO(data)`: data in memory, not a path. */
function inMemory(n: Node, s: Scope): boolean {
  const u = unparen(n);
  return u.type === 'call' && IN_MEMORY.has(qualName(u.childForFieldName('function'), s.file, s.types) ?? '');
}

/** An element of an argument list as facts/file-arguments reads it: a literal's text, or an f-string's text before its first value. */
function argvItem(n: Node): ArgvItem {
  const lit = stringLiteral(n);
  if (lit && !lit.interpolated) return { value: lit.value };
  const u = unparen(n);
  if (u.type !== 'string') return {};
  let head = '';
  for (const c of kids(u)) {
    if (c.type === 'interpolation') return { head };
    if (c.type === 'string_content') head += c.text;
  }
  return {};
}

/**
 * The values of a SQL text that are the path of a file the database reads or writes (facts/file-arguments):
 * in an f-string or a `+` chain, each value written right after `COPY … TO '`, `pg_read_file(`, `ATTACH '`…; in a
 * literal with a placeholder there, the parameters given beside it.
 */
function sqlFilePaths(sql: Node, params: Node | undefined): Node[] {
  const lit = stringLiteral(sql);
  if (lit && !lit.interpolated) {
    const phs = sqlFilePlaceholders(lit.value);
    if (!phs.length || !params) return [];
    const elements = ['tuple', 'list'].includes(unparen(params).type) ? kids(unparen(params)) : undefined;
    return phs.map((ph) => (ph.position !== undefined && elements?.[ph.position]) || params);
  }
  const out: Node[] = [];
  let before = '';
  const walk = (n: Node): void => {
    const u = unparen(n);
    if (u.type === 'binary_operator' && u.childForFieldName('operator')?.text === '+') {
      walk(u.childForFieldName('left')!);
      walk(u.childForFieldName('right')!);
    } else if (u.type === 'string' || u.type === 'concatenated_string') {
      for (const c of u.type === 'string' ? [u] : kids(u)) {
        for (const k of kids(c)) {
          if (k.type === 'string_content') before += k.text;
          else if (k.type === 'interpolation') {
            const e = k.namedChildren.find((x) => x && x.type !== 'type_conversion' && x.type !== 'format_specifier');
            if (e && sqlFileBefore(before)) out.push(e);
            before += '\u0000';
          }
        }
      }
    } else {
      if (sqlFileBefore(before)) out.push(u);
      before += '\u0000';
    }
  };
  walk(sql);
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

/** How many calls deep a file flow is followed into the package's own functions. */
const MAX_FOLLOW = 3;

/**
 * Every sink of a kind reached by a client argument, guarded (no problem) or not. File flows are also followed
 * into the package's own module-level functions (in the same file or a module it imports, up to MAX_FOLLOW calls
 * deep): a sink there is reported at its line, for the tool whose argument reaches it, unless the argument was
 * soundly checked before the call or is checked inside the function before the sink.
 */
export function pythonFlows(model: PythonModel, kind: SinkKind): PyFlow[] {
  let perKind = flowMemo.get(model);
  if (!perKind) {
    perKind = new Map();
    flowMemo.set(model, perKind);
  }
  const hit = perKind.get(kind);
  if (hit) return hit;
  const flows: PyFlow[] = [];
  const followed = new Map<string, PyFlow>();
  const helpers = new Map<PythonFile, Helpers>();
  const helpersOf = (f: PythonFile): Helpers => {
    let hp = helpers.get(f);
    if (!hp) {
      hp = new Helpers(f, kind);
      helpers.set(f, hp);
    }
    return hp;
  };
  for (const h of model.handlers) {
    if (h.sources.length === 0 && h.dictSources.length === 0) continue;
    const s = new Scope(h.file, h.fn, h.sources, h.dictSources, kind, helpersOf(h.file));
    // Arguments the schema already constrains (low-level enum/integer; a strict pattern for commands).
    const cleared = new Set<string>();
    for (const t of h.tools) {
      for (const p of t.params) {
        if (p.constrained) cleared.add(p.name);
        if (kind === 'command' && p.pattern !== undefined && safeCommandPattern(p.pattern, false)) cleared.add(p.name);
      }
    }
    const visit = (sc: Scope, depth: number, seen: Set<Node>, toolOf: (call: Node) => string, nameOf: (o: string) => string, outer: boolean): void => {
      const all = sc.taint(EMPTY);
      const kept = (origins: Iterable<string>): string[] => [...origins].filter((o) => !cleared.has(nameOf(o)));
      for (const call of sc.nodes) {
        if (call.type !== 'call') continue;
        const checks = sinkChecks(call, sc);
        if (!checks.length) {
          if (kind === 'file' && depth < MAX_FOLLOW) followCall(call);
          continue;
        }
        let flagged: PyFlow | undefined;
        let guarded: PyFlow | undefined;
        let guards: GuardInfo | undefined;
        for (const ch of checks) {
          const base = kept(sc.expr(ch.expr, all));
          if (base.length === 0) continue;
          const g = (guards ??= sc.guardsAt(call));
          const rem = kept(sc.expr(ch.expr, sc.taint(g.sound)));
          const fixed = kind === 'http' && sc.hostFixed(ch.expr, ch.client);
          const flow: PyFlow = {
            kind,
            handlerKind: h.kind,
            handler: toolOf(call),
            file: sc.file.rel,
            line: lineOf(call),
            sink: ch.sink,
            parameter: (rem.length ? rem : base).map(nameOf).sort()[0]!,
            evidence: evidenceLine(sc.file, call),
          };
          if (rem.length && !fixed) {
            const vars = sc.related(ch.expr);
            flow.problem = refine(ch.problem, g, vars);
            const guardLine = [...vars].sort().filter((v) => g.weak.get(v) === flow.problem).map((v) => g.weakLines?.get(v)).find((l) => l !== undefined);
            if (guardLine !== undefined) flow.guardLine = guardLine;
            flagged ??= flow;
          } else guarded ??= flow;
        }
        const flow = flagged ?? guarded;
        if (!flow) continue;
        if (outer) flows.push(flow);
        else {
          // A function reached from several tools (or several calls): one flow per sink, naming the tools together.
          const key = `${flow.file}:${flow.line}:${flow.sink}`;
          const prev = followed.get(key);
          if (!prev || (flow.problem && !prev.problem)) followed.set(key, prev && prev.handler !== flow.handler ? { ...flow, handler: [...new Set([...prev.handler.split(', '), flow.handler])].sort().join(', ') } : flow);
          else if (prev.handler !== flow.handler && !!flow.problem === !!prev.problem) prev.handler = [...new Set([...prev.handler.split(', '), flow.handler])].sort().join(', ');
        }
      }

      /** A call of one of the package's functions with a client value (not soundly checked before it): follow it. */
      function followCall(call: Node): void {
        const target = functionOf(call, sc, model);
        if (!target || seen.has(target.def)) return;
        const p = callParts(call);
        if (!p) return;
        const params = paramsOf(target.def);
        const g = sc.guardsAt(call);
        const safe = sc.taint(g.sound);
        const tainted = new Map<string, string>();
        const take = (param: string | undefined, arg: Node | undefined): void => {
          if (!param || !arg) return;
          const rem = kept(sc.expr(arg, safe));
          if (rem.length) tainted.set(param, rem.map(nameOf).sort()[0]!);
        };
        const positional = params.filter((x) => x.name !== 'self' && x.name !== 'cls');
        p.args.forEach((a, i) => take(positional[i]?.name, a));
        for (const [k, v] of p.kw) if (params.some((x) => x.name === k)) take(k, v);
        if (!tainted.size) return;
        const inner = new Scope(target.file, target.def, [...tainted.keys()], [], kind, helpersOf(target.file));
        const tool = toolOf(call);
        visit(inner, depth + 1, new Set([...seen, target.def]), () => tool, (o) => tainted.get(o) ?? o, false);
      }
    };
    visit(s, 0, new Set([h.fn]), (call) => h.toolAt(call)?.name ?? h.name, (o) => o, true);
  }
  // A function that is also a handler (a tool calling another tool's function) already has its own flows there.
  const own = new Map(flows.map((f) => [`${f.file}:${f.line}:${f.sink}`, f]));
  for (const [key, f] of followed) if (!own.has(key) || (f.problem && !own.get(key)!.problem)) flows.push(f);
  perKind.set(kind, flows);
  return flows;
}

/* ---------------- the package's own functions ---------------- */

const defsMemo = new WeakMap<PythonFile, Map<string, Node>>();

/** The module-level functions of a file, by name (decorated ones too). */
function moduleFunctions(file: PythonFile): Map<string, Node> {
  let m = defsMemo.get(file);
  if (!m) {
    m = new Map();
    for (const st of kids(file.root)) {
      const d = st.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
      if (d?.type === 'function_definition') m.set(d.childForFieldName('name')?.text ?? '', d);
    }
    defsMemo.set(file, m);
  }
  return m;
}

/** The file of the package a dotted module name (absolute, or relative with leading dots to `from`) names. */
function moduleFile(mod: string, from: PythonFile, model: PythonModel): PythonFile | undefined {
  const files = model.sources.files;
  const dots = /^\.*/.exec(mod)![0].length;
  const rest = mod.slice(dots).split('.').filter(Boolean).join('/');
  if (dots) {
    // `from . import data` is bound as `..data` (facts/python-source): one dot fewer names the same module.
    for (const up of dots > 1 ? [dots, dots - 1] : [dots]) {
      const dir = from.rel.split('/').slice(0, -up);
      const base = [...dir, ...(rest ? [rest] : [])].join('/');
      const f = files.get(`${base}.py`) ?? files.get(`${base ? base + '/' : ''}__init__.py`);
      if (f) return f;
    }
    return undefined;
  }
  if (!rest) return undefined;
  for (const cand of [`${rest}.py`, `${rest}/__init__.py`]) {
    const exact = files.get(cand);
    if (exact) return exact;
    for (const [rel, f] of files) if (rel.endsWith(`/${cand}`)) return f;
  }
  return undefined;
}

/** The module-level function of the package a call runs: `helper(x)` in the same file, or one imported from another of its modules. */
function functionOf(call: Node, s: Scope, model: PythonModel): { file: PythonFile; def: Node } | undefined {
  const p = callParts(call);
  const fn = p && unparen(p.fn);
  if (!fn) return undefined;
  if (fn.type === 'identifier') {
    const local = !s.file.imports.has(fn.text) ? moduleFunctions(s.file).get(fn.text) : undefined;
    if (local) return { file: s.file, def: local };
  }
  if (fn.type !== 'identifier' && fn.type !== 'attribute') return undefined;
  const q = qualName(fn, s.file, s.types);
  if (!q) return undefined;
  // A method of an instance of one of the package's classes (`service = SheetService()` … `service.read(p)`).
  const method = /^([\w.]+)\(\)\.(\w+)$/.exec(q);
  if (method) {
    const cls = classOf(method[1]!, s.file, model);
    const def = cls && methodOf(cls.def, method[2]!);
    return cls && def ? { file: cls.file, def } : undefined;
  }
  if (q.includes('()')) return undefined;
  const cut = q.lastIndexOf('.');
  if (cut <= 0) return undefined;
  const file = moduleFile(q.slice(0, cut), s.file, model);
  const def = file && moduleFunctions(file).get(q.slice(cut + 1));
  return file && def ? { file, def } : undefined;
}

/** A class of the package by its qualified name (`SheetService` in this file, `pkg.sheets.SheetService` imported). */
function classOf(q: string, from: PythonFile, model: PythonModel): { file: PythonFile; def: Node } | undefined {
  const cut = q.lastIndexOf('.');
  const file = cut < 0 ? from : moduleFile(q.slice(0, cut), from, model);
  const name = q.slice(cut + 1);
  for (const st of file ? kids(file.root) : []) {
    const d = st.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
    if (d?.type === 'class_definition' && d.childForFieldName('name')?.text === name) return { file: file!, def: d };
  }
  return undefined;
}

/** A method defined in a class body. */
function methodOf(cls: Node, name: string): Node | undefined {
  for (const st of kids(cls.childForFieldName('body') ?? cls)) {
    const d = st.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
    if (d?.type === 'function_definition' && d.childForFieldName('name')?.text === name) return d;
  }
  return undefined;
}

function refine(p: FlowProblem, g: GuardInfo, vars: Set<string>): FlowProblem {
  const weak = [...vars].map((v) => g.weak.get(v)).filter((x): x is FlowProblem => !!x);
  if (p === 'path-unconfined') {
    for (const w of ['path-prefix-without-separator', 'path-check-before-realpath', 'path-raw-check'] as FlowProblem[]) if (weak.includes(w)) return w;
  }
  if (p === 'url-unchecked' && weak.includes('url-raw-check')) return 'url-raw-check';
  return p;
}
