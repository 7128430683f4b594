import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type Identifier, type NewExpression, type TaggedTemplateExpression } from '../morph.js';
import { bindingNames, declarationOf, initializerOf, isFunctionLike, originOf, rawDeclarationOf } from '../scope.js';
import { constString, patternSafety } from '../server-model.js';
import { unwrap } from '../ts-source.js';
import { pathArgumentPositions, type ArgvItem } from '../file-arguments.js';
import { type Analyzable, classId, rawEnclosingClass } from './modules.js';
import { type Guard, type GuardDetail, type SinkKind, type SinkMatch, type UrlShape } from './sinks.js';

/**
 * Taint flow (facts/flow.ts), the taint and its propagation: what a tainted value carries (keys, pieces of a
 * template, guards met), how taints merge, the bodies and returns of a function, separators in paths.
 */

/* ----------------------------------------------------------------- taint */

export interface Taint {
  /** Only this sub-path of the value is client-controlled (e.g. ['params', 'arguments'] of a request). */
  prefix?: readonly string[];
  /** Top-level properties that are not client-controlled text (schema-constrained arguments). */
  safe?: ReadonlySet<string>;
  /** The value is an arguments object (or a request), not one argument. */
  root?: boolean;
  /** Variables (declaration keys, with property paths) the value went through. */
  keys: ReadonlySet<string>;
  /** Nodes on the way, for the reported path. */
  steps: readonly Node[];
  resolved?: boolean;
  relative?: boolean;
  basename?: boolean;
  escaped?: boolean;
  /** A piece of a value (a property of a URL, an element, a split or a slice), not the value itself. */
  part?: boolean;
  /** Passed through `replace`/`replaceAll`: characters were stripped by a blocklist. */
  replaced?: boolean;
  /** An object literal: the taint of each property (`rest` for spreads of opaque tainted objects). */
  props?: ReadonlyMap<string, Taint>;
  rest?: Taint;
  /**
   * A URL whose scheme and host are fixed (written in the code or configured) and which the client reaches only
   * in its path, query or fragment: `${BASE}/items/${id}`, `new URL(\`/items/${id}\`, BASE)`.
   */
  urlFixed?: boolean;
  /** A URL whose scheme is fixed but whose host the client reaches (`https://${host}/x`). */
  schemeFixed?: boolean;
  /** A relative reference with a fixed start (`/items/${id}`, `items/${id}`): it cannot name another host. */
  relPath?: boolean;
  /**
   * A relative reference whose fixed start is `/` (not `//`), `?` or `#` (`/items/${id}`): glued to a base
   * (`${BASE}${endpoint}`) it only adds a path or query, whatever the base ends with.
   */
  rootPath?: boolean;
  /** Names no host of its own: a fixed-origin URL (urlFixed) or a root-relative reference (rootPath), whichever branch it came from. */
  hostless?: boolean;
  /**
   * Text written in the code comes before the value (`\`PRAGMA table_info(${name})\``, returned by a helper): as a SQL
   * statement it is not one the caller writes (X-5 'caller-sql-reaches-files' needs the whole text).
   */
  textFirst?: boolean;
  /**
   * An argument array for a program (see flow/argv.ts): where the client's values sit in it — 'safe' when each
   * one is after `--`, glued to a fixed prefix or the value of a fixed option; 'option' when one may be read as an
   * option (a value starting with `-`); 'code' when one follows a code flag (`-c`, `-e`, `--eval`). Undefined: not
   * an array read here (treated as 'option' for an argument sink).
   */
  argv?: ArgvPosition;
  /**
   * The array literal the value was made as, read as a program's arguments (its literal elements, and which
   * elements hold client values), for a launch elsewhere that is handed the whole array (`runGit(['-C', repo,
   * 'log'])` into `execFile('git', args)`): which of them name a file or folder depends on the program named there.
   */
  argvItems?: { items: ArgvItem[]; tainted: number[] };
  /**
   * The command line the value was made as, a template whose first word, the program, is written in the code
   * (`rg -n ${pattern} ${dir}`): its later words and which of them hold client values, for a shell elsewhere that is
   * handed the whole line (`runCommand(line)` into `exec(line)`): which of them name a file or folder depends on the program.
   */
  commandLine?: { program: string; items: ArgvItem[]; tainted: number[] };
  /** The argument array names a language runtime before the code flag (`['python3', '-c', code]`). */
  argvRuntime?: boolean;
  /** The argument's schema holds it to an anchored pattern (an argument-array value that was validated). */
  validated?: boolean;
  /** The name of a file the client's text was written to (`writeFile(tmp, code)`), not a value the client chose. */
  codeFile?: boolean;
  /** A folder a file holding the client's text was written into (`writeFile(join(dir, 'main.py'), code)`). */
  codeDir?: boolean;
  /** A shell command line that runs such a file with a language runtime (`${executor} "${file}"`): code wherever it is run. */
  scriptLine?: boolean;
  /** Top-level properties of an arguments object that the schema holds to an anchored pattern (they become `validated`). */
  patterned?: ReadonlySet<string>;
  /**
   * The value was returned by a function of the source only past a path check of that function (`return
   * inside ? real : undefined`, `if (!isInside(root, p)) throw …; return p`): those checks, which judge it
   * wherever it goes afterwards (a field, another tool's call), whatever the call chain.
   */
  confinedBy?: readonly Check[];
}

export type ArgvPosition = 'safe' | 'option' | 'code';
const argvRank = (p: ArgvPosition | undefined): number => (p === 'safe' ? 0 : p === 'code' ? 2 : 1);
/** The worst position of several argument arrays (an unknown one counts as 'option'). */
export function worstArgv(list: (ArgvPosition | undefined)[]): ArgvPosition | undefined {
  let worst: ArgvPosition | undefined = 'safe';
  for (const p of list) if (argvRank(p) > argvRank(worst) || (argvRank(p) === argvRank(worst) && p === undefined)) worst = p;
  return worst;
}

export type Family = 'fs' | 'process' | 'argv';
export interface Verdict {
  guard: Exclude<Guard, 'none'>;
  detail: GuardDetail;
}

export interface Check {
  node: Node;
  fn: Analyzable;
  /** Position that must come before the flow's position in `fn`. */
  at: Node;
  keys: ReadonlySet<string>;
  /** The key of the checked expression itself, when it has one. */
  subjectKey?: string;
  /** The checked value is a piece of a value (see Taint.part): it counts only for that exact expression. */
  part?: boolean;
  /** The check looks the value up in a collection (includes, has, in, hasOwn). */
  lookup?: boolean;
  verdict: Partial<Record<Family, Verdict>>;
  /** Valid only for flows whose position in `fn` lies inside this node (a switch case). */
  scope?: Node;
  /** The values a confinement check compares with (the allowed roots or names), for 'roots-writable'. */
  roots?: Node[];
}

/** A client value written into a module-level variable or a field (`config[key] = value`, `allowed.push(dir)`). */
export interface StoreWrite {
  /** Storage keys (see storageKeys): `m:<decl>.<prop>…`, `this@<class>.<field>…`; a trailing `.*` is any property. */
  key: string;
  node: Node;
  /** The call (or the write itself) in the function that reported it, for naming a dispatcher's branch. */
  at: Node;
  /** The tool (prompt, resource) whose handler makes it, set once every entry is read. */
  tool: string;
}

export interface Link {
  fn: Analyzable;
  at: Node;
}

export interface RawFlow {
  sink: Node;
  match: SinkMatch;
  kind: SinkKind;
  taint: Taint;
  chain: Link[];
  steps: Node[];
  /** The key of the dispatch-table entry the flow went through (`handlers[name]` → 'run'). */
  tableKey?: string;
  urlShape?: UrlShape;
}

export interface FnResult {
  flows: RawFlow[];
  checks: Check[];
  ret?: Taint;
  /** Client values the function (or a function it calls) writes into module-level variables and fields. */
  writes: StoreWrite[];
  /**
   * Calls given a client value that lead nowhere the analysis knows: neither a sink nor a function of the audited
   * source (a method on a receiver not resolved, a function of a dependency, the depth limit). What happens to the
   * value there is not read (facts/flow toolStops; a diagnostic, and X-5's flow-not-followed).
   */
  stops?: Stop[];
}

export interface Stop {
  at: CallExpression | NewExpression;
  /** The callee's shape: 'unresolved-function', 'method-of-unknown-receiver', 'dependency', 'depth-limit'. */
  why: 'unresolved-function' | 'method-of-unknown-receiver' | 'dependency' | 'depth-limit';
  /** The module of a dependency's function (`why` 'dependency'). */
  module?: string;
  keys: Set<string>;
}

const declKeys = new WeakMap<object, string>();
let nextKey = 0;
export function declKey(id: Identifier): string {
  let k = declKeys.get(id.compilerNode);
  if (!k) {
    k = `d${++nextKey}`;
    declKeys.set(id.compilerNode, k);
  }
  return k;
}

/** A stable key for `x`, `x.a.b`, `x['a']` (declaration-based), or undefined. */
export function exprKey(e: Node): string | undefined {
  const n = unwrap(e);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    return d ? declKey(d) : undefined;
  }
  if (Node.isThisExpression(n)) {
    const cls = rawEnclosingClass(n.compilerNode);
    return cls ? `this@${classId(cls)}` : undefined;
  }
  if (Node.isPropertyAccessExpression(n)) {
    const k = exprKey(n.getExpression());
    return k ? `${k}.${n.getName()}` : undefined;
  }
  if (Node.isElementAccessExpression(n)) {
    const key = constString(n.getArgumentExpression())?.value;
    const k = key !== undefined ? exprKey(n.getExpression()) : undefined;
    return k ? `${k}.${key}` : undefined;
  }
  return undefined;
}

export const withKeys = (keys: ReadonlySet<string>, ...more: (string | undefined)[]): Set<string> => {
  const s = new Set(keys);
  for (const k of more) if (k) s.add(k);
  return s;
};

export const unionKeys = (a: ReadonlySet<string>, b: Iterable<string>): Set<string> => {
  const s = new Set(a);
  for (const k of b) s.add(k);
  return s;
};

export function merge(ts: (Taint | undefined)[]): Taint | undefined {
  const list = ts.filter((t): t is Taint => !!t);
  if (list.length === 0) return undefined;
  const full = list.find((t) => !t.prefix) ?? list[0]!;
  const keys = new Set<string>();
  for (const t of list) for (const k of t.keys) keys.add(k);
  return {
    prefix: full.prefix,
    keys,
    steps: full.steps,
    root: false,
    basename: list.every((t) => t.basename),
    escaped: list.every((t) => t.escaped),
    replaced: list.every((t) => t.replaced),
    urlFixed: list.every((t) => t.urlFixed),
    schemeFixed: list.every((t) => t.urlFixed || t.schemeFixed),
    relPath: list.every((t) => t.relPath),
    rootPath: list.every((t) => t.rootPath),
    hostless: list.every((t) => t.hostless || t.urlFixed),
    textFirst: list.every((t) => t.textFirst),
    argv: worstArgv(list.map((t) => t.argv)),
    ...(list.find((t) => t.argvItems) ? { argvItems: list.find((t) => t.argvItems)!.argvItems } : {}),
    ...(list.find((t) => t.commandLine) ? { commandLine: list.find((t) => t.commandLine)!.commandLine } : {}),
    argvRuntime: list.some((t) => t.argvRuntime),
    validated: list.every((t) => t.validated),
    codeFile: list.every((t) => t.codeFile),
    codeDir: list.every((t) => t.codeDir),
    scriptLine: list.some((t) => t.scriptLine),
    ...(list.every((t) => t.confinedBy?.length) ? { confinedBy: [...new Set(list.flatMap((t) => t.confinedBy!))] } : {}),
  };
}

export { piecesOf, type Piece } from './pieces.js';

/** Scheme and host written in the code (`https://api.example.com/`), or a base (a value the client does not reach) followed by a path delimiter. */
export const CLOSED_ORIGIN = /^(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+[/?#]/i;
export const CLOSED_BASE = /^\0+[\w.~%-]*(?:\/(?!\/)|[?#])/;
export const OPEN_HOST = /^(?:[a-z][a-z0-9+.-]*|\0+):\/\//i;
export const RELATIVE = /^(?:\/(?!\/)|[?#]|[\w.~%-]+\/)/;
export const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
export const ROOT_PATH = /^(?:\/(?!\/)|[?#])/;
/** A base with nothing after its host (`https://api.example.com`, a configured value): a root-relative reference glued to it stays on that host. */
export const BARE_ORIGIN = /^(?:(?:[a-z][a-z0-9+.-]*|\0+):\/\/[^/?#@]+|\0+)$/i;

/** An argument list or a command line as it was made, for these programs: a client value sits where one names a file or folder. */
export function madeWithPath(programs: string[], made: { items: ArgvItem[]; tainted: number[] }): boolean {
  return pathArgumentPositions(programs, made.items).some((i) => made.tainted.includes(i));
}

export const signature = (t: Taint | undefined, depth = 0): string => {
  if (!t) return '-';
  const flags = [t.prefix?.join('.') ?? '*', [...(t.safe ?? [])].sort().join(','), t.root, t.resolved, t.relative, t.basename, t.escaped, t.replaced, t.part, t.urlFixed, t.schemeFixed, t.relPath, t.rootPath, t.hostless, t.textFirst, t.argv, t.argvRuntime, t.validated, t.codeFile, t.codeDir, t.scriptLine, [...(t.patterned ?? [])].sort().join(','), t.confinedBy?.length, t.commandLine && (madeWithPath([t.commandLine.program], t.commandLine) ? 'path-line' : 'line')].map((x) => (x === true ? 1 : x || 0)).join('|');
  if (!t.props || depth > 2) return flags;
  const props = [...t.props].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}:${signature(v, depth + 1)}`);
  return `${flags}{${props.join(',')}${t.rest ? `,...${signature(t.rest, depth + 1)}` : ''}}`;
};

/** Methods whose result carries no client text (booleans, numbers) even on a tainted receiver. */
export const NON_TEXT_METHODS = new Set([
  'includes', 'startsWith', 'endsWith', 'test', 'has', 'indexOf', 'lastIndexOf', 'findIndex', 'some', 'every',
  'localeCompare', 'charCodeAt', 'codePointAt', 'search', 'isArray', 'hasOwnProperty', 'get', 'size',
]);
export const ITERATING = new Map<string, number>([
  ['forEach', 0], ['map', 0], ['flatMap', 0], ['filter', 0], ['find', 0], ['findLast', 0], ['some', 0], ['every', 0], ['reduce', 1], ['reduceRight', 1],
]);
/** Methods that return a piece of their receiver. */
export const PART_METHODS = new Set(['split', 'slice', 'substring', 'substr', 'charAt', 'at', 'match', 'matchAll', 'exec', 'trimEnd', 'padEnd']);
export const PARSE_METHODS = new Set(['parse', 'parseAsync', 'safeParse', 'safeParseAsync', 'validate', 'validateSync', 'cast']);
export const PATH_MODULES = new Set(['path', 'path/posix', 'path/win32', 'upath', 'pathe']);
export const PASS_GLOBALS = new Set(['String', 'decodeURIComponent', 'decodeURI', 'encodeURI', 'encodeURIComponent', 'unescape', 'Array', 'Object', 'JSON', 'Buffer']);
export const ESCAPE_MODULES = new Set(['shell-quote', 'shell-escape', 'shescape', 'any-shell-escape', 'shell-escape-tag']);
export const ESCAPE_NAME = /^(?:shell)?(?:escape|quote)(?:shell)?(?:args?)?$/i;
export const DENY_NAME = /(?:deny|denied|block|black|forbid|banned|disallow|reject|unsafe|danger)/i;

const BODY_KINDS = afterLoad(() => new Set([
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.ForOfStatement,
  ts.SyntaxKind.ForInStatement,
  ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.NewExpression,
  ts.SyntaxKind.TaggedTemplateExpression,
  ts.SyntaxKind.SwitchStatement,
]));
const bodyCache = new WeakMap<object, ts.Node[]>();

/** The return statements of a function itself (not of the functions nested in it), as compiler nodes. */
const returnsCache = new WeakMap<object, ts.ReturnStatement[]>();
export function ownReturns(fn: Analyzable): ts.ReturnStatement[] {
  const hit = returnsCache.get(fn.compilerNode);
  if (hit) return hit;
  const body = fn.getBody();
  if (!body) return [];
  const own: ts.ReturnStatement[] = [];
  returnsCache.set(fn.compilerNode, own);
  const visit = (cn: ts.Node): void => {
    if (ts.isReturnStatement(cn)) own.push(cn);
    if (ts.isFunctionLike(cn) || ts.isClassLike(cn)) return;
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body.compilerNode, visit);
  return own;
}

const resolvedCache = new WeakMap<object, ts.Expression[]>();
/**
 * The values a returned `new Promise((resolve, reject) => { … resolve(value) … })` settles with: the first argument
 * of every call of its executor's first parameter, at any depth of the executor (the callbacks of `exec(cmd, (err,
 * out) => resolve(path.join(out, file)))`). Awaiting the function gives one of them. Nothing for another expression.
 */
export function promiseResolutions(e: ts.Expression): ts.Expression[] {
  const hit = resolvedCache.get(e);
  if (hit) return hit;
  const out: ts.Expression[] = [];
  resolvedCache.set(e, out);
  let u: ts.Node = e;
  while (ts.isParenthesizedExpression(u) || ts.isAwaitExpression(u) || ts.isAsExpression(u)) u = u.expression;
  if (!ts.isNewExpression(u) || !ts.isIdentifier(u.expression) || u.expression.text !== 'Promise') return out;
  const exec = u.arguments?.[0];
  if (!exec || !(ts.isArrowFunction(exec) || ts.isFunctionExpression(exec))) return out;
  const p = exec.parameters[0]?.name;
  if (!p || !ts.isIdentifier(p)) return out;
  const name = p.text;
  const visit = (cn: ts.Node): void => {
    if (out.length >= 20) return;
    if (ts.isCallExpression(cn) && ts.isIdentifier(cn.expression) && cn.expression.text === name && cn.arguments[0] && rawDeclarationOf(cn.expression) === p) out.push(cn.arguments[0]);
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(exec.body, visit);
  return out;
}

/**
 * The nodes of a function body the analysis looks at, nested functions included (closures run with the
 * same variables), as compiler nodes in source order: the analysis wraps only those that can carry taint.
 */
export function bodyNodes(fn: Analyzable): ts.Node[] {
  const hit = bodyCache.get(fn.compilerNode);
  if (hit) return hit;
  const body = fn.getBody();
  const out: ts.Node[] = [];
  const visit = (cn: ts.Node): void => {
    if (BODY_KINDS().has(cn.kind)) out.push(cn);
    ts.forEachChild(cn, visit);
  };
  if (body) visit(body.compilerNode);
  bodyCache.set(fn.compilerNode, out);
  return out;
}

export function isSep(n: Node): boolean {
  const u = unwrap(n);
  const s = constString(u)?.value;
  if (s !== undefined) return s.endsWith('/') || s.endsWith('\\');
  const o = originOf(u);
  if (!Node.isIdentifier(u) && !Node.isPropertyAccessExpression(u)) return false;
  return (!!o && PATH_MODULES.has(o.module) && o.path[o.path.length - 1] === 'sep') || /(?:^|\.)sep$/.test(u.getText());
}

/** Is this prefix written with a trailing separator (`root + path.sep`, `${root}/`, a const holding one)? */
export function hasSeparator(n: Node | undefined, depth = 0): boolean {
  if (!n || depth > 4) return false;
  const u = unwrap(n);
  const s = constString(u)?.value;
  if (s !== undefined) return s.endsWith('/') || s.endsWith('\\');
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return isSep(u.getRight()) || hasSeparator(u.getRight(), depth + 1);
  if (Node.isTemplateExpression(u)) {
    const spans = u.getTemplateSpans();
    const lastSpan = spans[spans.length - 1]!;
    const tail = lastSpan.getLiteral().getLiteralText();
    if (tail !== '') return tail.endsWith('/') || tail.endsWith('\\');
    return isSep(lastSpan.getExpression());
  }
  if (Node.isConditionalExpression(u)) return hasSeparator(u.getWhenTrue(), depth + 1) || hasSeparator(u.getWhenFalse(), depth + 1);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d ? initializerOf(d) : undefined;
    return !!init && hasSeparator(init, depth + 1);
  }
  return false;
}

export const v = (guard: Verdict['guard'], detail: GuardDetail): Verdict => ({ guard, detail });
export const ALLOW: Partial<Record<Family, Verdict>> = { fs: v('sound', 'allowlist'), process: v('sound', 'allowlist'), argv: v('sound', 'allowlist') };
export const DENY: Partial<Record<Family, Verdict>> = { fs: v('unsound', 'raw-path-check'), process: v('unsound', 'blocklist') };

/** A regex test: an allowlist pattern (see server-model `patternSafety`) is sound for commands; for paths a check on the raw string stays unsound. */
export const patternVerdict = (re: string): Partial<Record<Family, Verdict>> =>
  patternSafety(re).shell
    ? { fs: v('unsound', 'raw-path-check'), process: v('sound', 'pattern'), argv: v('sound', 'pattern') }
    : /^\^\\?-/.test(re)
      ? { ...DENY, argv: v('sound', 'option-check') } // /^-/.test(x): a value read as an option is looked for
      : /^\^.*\$$/.test(re) && !re.endsWith('\\$')
        ? { ...DENY, argv: v('sound', 'pattern') } // an anchored pattern validates an argument-array value
        : DENY;

/* ------------------------------------------------------------- analysis */

/**
 * Keys seen inside a called function, seen from the caller: the caller's keys of argument i are added when
 * the value went through parameter i (an object literal argument already carries the caller's keys in its
 * properties).
 */
export function liftKeys(f: Analyzable, args: (Taint | undefined)[], keys: ReadonlySet<string>): Set<string> {
  const out = new Set(keys);
  const params = f.getParameters();
  args.forEach((t, i) => {
    if (!t || t.props) return;
    const p = params[Math.min(i, params.length - 1)];
    if (!p || (i >= params.length && !p.getDotDotDotToken())) return;
    if (bindingNames(p.getNameNode()).some((id) => keys.has(declKey(id)))) for (const k of t.keys) out.add(k);
  });
  return out;
}
