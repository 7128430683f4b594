import { Node, SyntaxKind, ts, type Identifier, type SourceFile } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { sinkSites } from '../../../facts/flow.js';
import { classValueOf, declarationOf, findNodes, functionOf, initializerOf, isFunctionLike, mayResolveFunction, moduleMember, valueOfDeclaration, type FunctionLikeNode } from '../../../facts/scope.js';
import { factoryObject, modelFiles, objectLiteralOf, passedToParameter, propertyValue, returnedExpressions, serverModel } from '../../../facts/server-model.js';
import { ofKinds, parsedSources, positionOf, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import { named } from './source-support.js';
import { noteSourceRead } from '../../../facts/not-read.js';

/**
 * Where the protocol lists of a JavaScript/TypeScript server come from, read from its source (shared by
 * S-12 and S-26). A list source is a hand-written list handler (`setRequestHandler` for tools/list,
 * prompts/list, resources/list, resources/templates/list) or the `list` callback of a `ResourceTemplate`
 * registered with McpServer (whose resources/list returns every callback's resources in one piece).
 *
 * What the list returns is followed from the function's `return` statements (through local variables,
 * `.map`/`.filter`/`.slice`/`.concat`, `Object.values`/`Array.from`, `.values()`/`.keys()`, spreads,
 * `await`, and local functions two levels deep) and classified:
 *   - 'fixed': array literals and constants that nothing in the source changes;
 *   - 'data': a module-level Map, Set, array or object that code run per request changes (a store: a
 *     handler, or a function it calls, two levels deep), a folder read with readdir (not one of the
 *     package's own, next to its code), or an awaited call the source does not define (a database, an
 *     API): its size depends on data. A variable changed only by start-up code (loading, caching) is settled;
 *   - 'unknown': anything else (a parameter, a class field, a value the reading cannot follow).
 * Writes to a store are its mutations anywhere in the source (`set`, `add`, `push`, `delete`, `splice`,
 * assignment to it or to one of its elements, `delete x[k]`); writes to a folder are file writes and
 * deletions whose path mentions the variable naming that folder. Memoised per RepoFacts.
 */

export type ListMethod = 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';
export type Items = 'fixed' | 'data' | 'unknown';

export interface ListSource {
  method: ListMethod;
  via: 'handler' | 'template-list';
  /** The template's name, for a template list callback. */
  template?: string;
  fn: FunctionLikeNode;
  file: string;
  line: number;
  /** The function mentions a cursor (`params.cursor`, a `cursor` variable). */
  readsCursor: boolean;
  items: Items;
  /** Declaring identifiers of the module-level stores the list reflects (changed somewhere in the source). */
  stores: Identifier[];
  /** Declaring identifiers of the folders it lists with readdir. */
  folders: Identifier[];
}

export interface Write {
  node: Node;
  file: string;
  line: number;
  /** The store or folder written (its declaring identifier). */
  target: Identifier;
}

const LIST_KEY: Record<ListMethod, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/** Calls that change which items a collection holds (sorting does not). */
const MUTATORS = new Set(['set', 'add', 'push', 'delete', 'splice', 'unshift', 'clear', 'pop', 'shift']);
const PASS_METHODS = new Set(['map', 'filter', 'slice', 'concat', 'flatMap', 'flat', 'toSorted', 'toReversed', 'values', 'keys', 'entries', 'sort', 'reverse']);
const PASS_STATICS = new Set(['Object.values', 'Object.keys', 'Object.entries', 'Array.from', 'structuredClone']);
const FS_LIST = /^(?:readdir|readdirSync|opendir|opendirSync|glob|globSync)$/;
const PACKAGE_PATH = /import\.meta\.(?:url|dirname)|__dirname|__filename|packageRoot|packageDir/;

interface Class {
  items: Items;
  stores: Identifier[];
  folders: Identifier[];
}
const FIXED: Class = { items: 'fixed', stores: [], folders: [] };
const UNKNOWN: Class = { items: 'unknown', stores: [], folders: [] };
const DATA: Class = { items: 'data', stores: [], folders: [] };

function merge(cs: Class[]): Class {
  if (!cs.length) return UNKNOWN;
  const items: Items = cs.some((c) => c.items === 'data') ? 'data' : cs.some((c) => c.items === 'unknown') ? 'unknown' : 'fixed';
  return { items, stores: [...new Set(cs.flatMap((c) => c.stores))], folders: [...new Set(cs.flatMap((c) => c.folders))] };
}

/** The root identifier of `a.b[c].d` (or the identifier itself). */
function rootIdentifier(n: Node): Identifier | undefined {
  let u = unwrap(n);
  for (let i = 0; i < 12; i++) {
    if (Node.isIdentifier(u)) return u;
    if (Node.isPropertyAccessExpression(u) || Node.isElementAccessExpression(u)) u = unwrap(u.getExpression());
    else return undefined;
  }
  return undefined;
}

/** rootIdentifier on a compiler node: the name at the root of `a.b[c].d`, through parentheses, `as` and `!`. */
function rawRootName(n: ts.Node): string | undefined {
  let u: ts.Node = n;
  for (let i = 0; i < 24; i++) {
    if (ts.isIdentifier(u)) return u.text;
    if (ts.isParenthesizedExpression(u) || ts.isAsExpression(u) || ts.isSatisfiesExpression(u) || ts.isNonNullExpression(u) || ts.isPropertyAccessExpression(u) || ts.isElementAccessExpression(u)) u = u.expression;
    else return undefined;
  }
  return undefined;
}

const rawFunctionOrClass = (a: ts.Node): boolean =>
  ts.isArrowFunction(a) || ts.isFunctionExpression(a) || ts.isFunctionDeclaration(a) || ts.isMethodDeclaration(a) || ts.isClassDeclaration(a);

/** Names a file declares outside any function or class (a superset of what isModuleLevel accepts). */
const levelMemo = new WeakMap<SourceFile, Set<string>>();
function moduleLevelNames(sf: SourceFile): Set<string> {
  const hit = levelMemo.get(sf);
  if (hit) return hit;
  const out = new Set<string>();
  const addBinding = (b: ts.BindingName): void => {
    if (ts.isIdentifier(b)) out.add(b.text);
    else for (const el of b.elements) if (ts.isBindingElement(el)) addBinding(el.name);
  };
  ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => {
    let a = cn.parent;
    while (a && !ts.isSourceFile(a) && !rawFunctionOrClass(a)) a = a.parent;
    if (!a || ts.isSourceFile(a)) addBinding((cn as ts.VariableDeclaration).name);
    return false;
  });
  for (const st of sf.compilerNode.statements) {
    if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) out.add(st.name.text);
    if (ts.isImportDeclaration(st)) {
      const c = st.importClause;
      if (c?.name) out.add(c.name.text);
      const nb = c?.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) out.add(nb.name.text);
      else if (nb) for (const e of nb.elements) out.add(e.name.text);
    }
  }
  levelMemo.set(sf, out);
  return out;
}

const isModuleLevel = (decl: Identifier): boolean => !decl.getFirstAncestor((a) => isFunctionLike(a) || Node.isClassDeclaration(a));

class Reader {
  private siteIndex?: Map<Node, ReturnType<typeof sinkSites>[number]>;
  constructor(
    private readonly repo: RepoFacts,
    private readonly sources: ParsedSources,
  ) {}

  /**
   * Writes are indexed per file, on first use: declarationOf resolves within a file, so the writes keyed
   * to a declaration are all in the declaration's own file, and only the files asked about are read.
   */
  private fileWrites = new Map<SourceFile, Map<Identifier, Write[]>>();
  private ownFiles?: Map<SourceFile, string>;

  private spans?: { file: object; start: number; end: number }[];

  /** The code that runs per request: every handler of the server model and the source functions it calls, two levels deep. */
  private requestSpans(): { file: object; start: number; end: number }[] {
    if (this.spans) return this.spans;
    const spans: { file: object; start: number; end: number }[] = [];
    const seen = new Set<Node>();
    let frontier: Node[] = serverModel(this.repo).entries.map((e) => e.fn);
    for (let d = 0; d <= 2 && frontier.length; d++) {
      const next: Node[] = [];
      for (const fn of frontier) {
        if (seen.has(fn)) continue;
        seen.add(fn);
        spans.push({ file: fn.getSourceFile(), start: fn.getStart(), end: fn.getEnd() });
        if (d === 2) continue;
        for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayResolveFunction(cn.expression))) {
          if (!Node.isCallExpression(call)) continue;
          const f = functionOf(call.getExpression(), this.sources);
          if (f && !seen.has(f) && this.sources.files.has(this.sources.rel(f.getSourceFile()))) next.push(f);
        }
      }
      frontier = next;
    }
    return (this.spans = spans);
  }

  /** Whether a node runs per request (in a handler or a function it calls). */
  atRequestTime(n: Node): boolean {
    const sf = n.getSourceFile();
    const pos = n.getStart();
    return this.requestSpans().some((s) => s.file === sf && s.start <= pos && pos < s.end);
  }

  /** Mutations of module-level variables of one file (one of the model's files), by declaring identifier. */
  private indexWrites(file: string, sf: SourceFile): Map<Identifier, Write[]> {
    const out = new Map<Identifier, Write[]>();
    const add = (target: Identifier | undefined, node: Node, file: string) => {
      if (!target) return;
      const d = declarationOf(target);
      if (!d || !isModuleLevel(d)) return;
      // A declaration's own initializer is not a write.
      if (node.getFirstAncestor((a) => a === d.getParent())) return;
      const list = out.get(d) ?? [];
      list.push({ node, file, line: positionOf(node).line, target: d });
      out.set(d, list);
    };
    {
      // Raw pre-filter: a write can only reach a module-level variable through a name declared at module level.
      const names = moduleLevelNames(sf);
      if (names.size === 0) return out;
      const rooted = (e: ts.Node): boolean => names.has(rawRootName(e) ?? '');
      for (const n of ofKinds(
        sf,
        [SyntaxKind.CallExpression],
        named(MUTATORS, (cn) => {
          const e = (cn as ts.CallExpression).expression;
          return ts.isPropertyAccessExpression(e) && MUTATORS.has(e.name.text) && rooted(e.expression);
        }),
      )) {
        if (!Node.isCallExpression(n)) continue;
        const callee = unwrap(n.getExpression());
        if (Node.isPropertyAccessExpression(callee)) add(rootIdentifier(callee.getExpression()), n, file);
      }
      for (const n of ofKinds(sf, [SyntaxKind.BinaryExpression], (cn) => {
        const k = (cn as ts.BinaryExpression).operatorToken.kind;
        return k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment && rooted((cn as ts.BinaryExpression).left);
      })) {
        if (Node.isBinaryExpression(n)) add(rootIdentifier(n.getLeft()), n, file);
      }
      for (const n of ofKinds(sf, [SyntaxKind.DeleteExpression], (cn) => rooted((cn as ts.DeleteExpression).expression))) {
        if (Node.isDeleteExpression(n)) add(rootIdentifier(n.getExpression()), n, file);
      }
    }
    return out;
  }

  writesOf(decl: Identifier): Write[] {
    const sf = decl.getSourceFile();
    let idx = this.fileWrites.get(sf);
    if (!idx) {
      this.ownFiles ??= new Map(modelFiles(this.sources).map(([file, f]) => [f, file]));
      const file = this.ownFiles.get(sf);
      idx = file === undefined ? new Map() : this.indexWrites(file, sf);
      this.fileWrites.set(sf, idx);
    }
    return idx.get(decl) ?? [];
  }

  /** File writes and deletions whose path mentions the variable naming a folder. */
  folderWrites(folder: Identifier): Write[] {
    const out: Write[] = [];
    for (const s of sinkSites(this.repo)) {
      if (s.family !== 'fs' || (s.access !== 'write' && s.access !== 'delete') || !Node.isCallExpression(s.node)) continue;
      const path = s.node.getArguments()[0];
      if (!path) continue;
      const ids = [path, ...path.getDescendantsOfKind(SyntaxKind.Identifier)].filter(Node.isIdentifier);
      if (ids.some((id) => id.getText() === folder.getText() && declarationOf(id) === folder)) out.push({ node: s.node, file: s.file, line: s.line, target: folder });
    }
    return out;
  }

  /** The text of a path expression, with the variables it uses replaced by their initializers (two levels). */
  private pathText(path: Node, depth = 0): string {
    let text = path.getText();
    if (depth > 2) return text;
    for (const id of [path, ...path.getDescendantsOfKind(SyntaxKind.Identifier)].filter(Node.isIdentifier)) {
      const d = declarationOf(id);
      const init = d ? initializerOf(d) : undefined;
      if (init) text += ' ' + this.pathText(init, depth + 1);
    }
    return text;
  }

  classify(expr: Node | undefined, fn: FunctionLikeNode, depth = 0): Class {
    if (!expr || depth > 8) return UNKNOWN;
    let n = unwrap(expr);
    const awaited = Node.isAwaitExpression(n);
    if (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
    if (Node.isArrayLiteralExpression(n)) {
      return merge(
        n.getElements().map((el) => {
          if (Node.isSpreadElement(el)) return this.classify(el.getExpression(), fn, depth + 1);
          const u = unwrap(el);
          // An instance of a class of the source (a tool class listed in a table) is one item.
          if (Node.isNewExpression(u) && classValueOf(u.getExpression(), this.sources)) return FIXED;
          // A tool factory's call (`navigate(true)` for a function returning one object literal) is one item.
          if (Node.isCallExpression(u) && factoryObject(u, this.sources)) return FIXED;
          return Node.isObjectLiteralExpression(u) || Node.isStringLiteral(u) ? FIXED : this.classify(u, fn, depth + 1);
        }).concat([FIXED]),
      );
    }
    if (Node.isConditionalExpression(n)) return merge([this.classify(n.getWhenTrue(), fn, depth + 1), this.classify(n.getWhenFalse(), fn, depth + 1)]);
    if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) {
      return merge([this.classify(n.getLeft(), fn, depth + 1), this.classify(n.getRight(), fn, depth + 1)]);
    }
    if (Node.isIdentifier(n)) return this.identifier(n, fn, depth);
    if (Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) {
      // browser_tools_1.allTools: an export of a module required or imported whole (a dependency's included).
      const member = moduleMember(n, this.sources);
      if (member) return this.classify(member, fn, depth + 1);
      const root = rootIdentifier(n);
      return root && !Node.isThisExpression(root) ? this.identifier(root, fn, depth) : UNKNOWN;
    }
    if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      const text = callee.getText().replace(/\s+/g, '');
      if (PASS_STATICS.has(text)) return this.classify(n.getArguments()[0], fn, depth + 1);
      if (Node.isPropertyAccessExpression(callee) && PASS_METHODS.has(callee.getName())) {
        return merge([this.classify(callee.getExpression(), fn, depth + 1), ...(callee.getName() === 'concat' ? n.getArguments().map((a) => this.classify(a, fn, depth + 1)) : [])]);
      }
      const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
      this.siteIndex ??= new Map(sinkSites(this.repo).map((s) => [s.node, s]));
      const site = this.siteIndex.get(n);
      if (site?.family === 'fs' && FS_LIST.test(name)) {
        const path = n.getArguments()[0];
        // A folder of the package itself (next to the code) holds what was shipped, not data.
        if (path && PACKAGE_PATH.test(this.pathText(path))) return FIXED;
        const folders = path ? [path, ...path.getDescendantsOfKind(SyntaxKind.Identifier)].filter(Node.isIdentifier).map((id) => declarationOf(id)).filter((d): d is Identifier => !!d && isModuleLevel(d)) : [];
        return { items: 'data', stores: [], folders };
      }
      const local = functionOf(callee, this.sources);
      if (local && local !== fn && depth < 4) return merge(returnedExpressions(local).map((r) => this.classify(r, local, depth + 2)));
      // An awaited call the source does not define: a database, an API. Other library calls: not followed.
      return awaited ? DATA : UNKNOWN;
    }
    if (Node.isNewExpression(n)) return /^(?:Map|Set|Array)$/.test(n.getExpression().getText()) ? this.classify(n.getArguments()[0], fn, depth + 1) : UNKNOWN;
    if (Node.isObjectLiteralExpression(n)) return FIXED;
    return UNKNOWN;
  }

  private identifier(id: Identifier, fn: FunctionLikeNode, depth: number): Class {
    const decl = declarationOf(id);
    if (!decl) return UNKNOWN;
    if (!isModuleLevel(decl)) {
      // A local variable: its initializer (for `const { rows } = …`, what is destructured), or the
      // collections a loop pushes into it.
      const binding = decl.getParent();
      // A parameter of a named function (a server factory handed its tools: `createServer({ tools })`): what its calls pass.
      // (`function make({ tools })`, or `const { tools } = options` of a parameter `options`.)
      const passed = Node.isParameterDeclaration(binding) || Node.isBindingElement(binding) ? passedToParameter(decl, this.sources) : [];
      if (passed.length) return merge(passed.map((a) => this.classify(a, fn, depth + 1)));
      if (Node.isParameterDeclaration(binding)) return UNKNOWN;
      if (Node.isBindingElement(binding)) {
        const holder = binding.getFirstAncestor((a) => Node.isVariableDeclaration(a) || Node.isParameterDeclaration(a));
        return Node.isVariableDeclaration(holder) ? this.classify(holder.getInitializer(), fn, depth + 1) : UNKNOWN;
      }
      const init = initializerOf(decl);
      if (!init) return UNKNOWN;
      if (Node.isArrayLiteralExpression(init) && init.getElements().length === 0) {
        const loops = fn.getDescendantsOfKind(SyntaxKind.ForOfStatement).filter((l) => l.getStatement().getText().includes(`${id.getText()}.push(`));
        return loops.length ? merge(loops.map((l) => this.classify(l.getExpression(), fn, depth + 1))) : FIXED;
      }
      return this.classify(init, fn, depth + 1);
    }
    const writes = this.writesOf(decl);
    // Changed while requests are served: a store. Changed only by start-up code (loading, caching): settled.
    if (writes.some((w) => this.atRequestTime(w.node))) return { items: 'data', stores: [decl], folders: [] };
    if (writes.length) return FIXED;
    const v = valueOfDeclaration(decl, this.sources);
    if (!v || v === id || Node.isSourceFile(v)) return UNKNOWN;
    if (isFunctionLike(v) || Node.isClassDeclaration(v)) return UNKNOWN;
    return this.classify(v, fn, depth + 1);
  }

  /** What a list function returns under `key` (`tools`, `resources`…). */
  listed(fn: FunctionLikeNode, key: string, depth = 0): Class {
    const cs: Class[] = [];
    for (const r of returnedExpressions(fn)) {
      let u = unwrap(r);
      if (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
      const obj = objectLiteralOf(u, this.sources);
      if (obj) {
        const v = propertyValue(obj, key);
        cs.push(v ? this.classify(v, fn) : UNKNOWN);
        continue;
      }
      if (Node.isCallExpression(u) && depth < 2) {
        const local = functionOf(u.getExpression(), this.sources);
        if (local && local !== fn) {
          cs.push(this.listed(local, key, depth + 1));
          continue;
        }
      }
      cs.push(UNKNOWN);
    }
    return merge(cs);
  }
}

/** A registration (McpServer's `tool`/`registerTool`, `prompt`, `resource`…) made once per item of a loop. */
export interface LoopedRegistration {
  method: ListMethod;
  name: string;
  file: string;
  line: number;
  /** Where the loop's items come from (Reader.classify of the iterated expression). */
  items: Items;
}

const LOOP_METHODS = new Set(['forEach', 'map', 'flatMap']);

/** The expression a registration's enclosing loop iterates (`for (const x of ITEMS)`, `ITEMS.forEach((x) => …)`), and the function holding that loop. */
function loopOf(node: Node): { iterable: Node; holder: Node } | undefined {
  let child: Node = node;
  for (let p = node.getParent(); p; child = p, p = p.getParent()) {
    if ((Node.isForOfStatement(p) || Node.isForInStatement(p)) && child === p.getStatement()) {
      const holder = p.getFirstAncestor((a) => isFunctionLike(a)) ?? p.getSourceFile();
      return { iterable: p.getExpression(), holder };
    }
    if (isFunctionLike(p)) {
      const call = p.getParent();
      if (Node.isCallExpression(call) && call.getArguments()[0] === p) {
        const callee = unwrap(call.getExpression());
        if (Node.isPropertyAccessExpression(callee) && LOOP_METHODS.has(callee.getName())) {
          const holder = call.getFirstAncestor((a) => isFunctionLike(a)) ?? call.getSourceFile();
          return { iterable: callee.getExpression(), holder };
        }
      }
      return undefined;
    }
  }
  return undefined;
}

const loopMemo = new WeakMap<RepoFacts, LoopedRegistration[]>();

/**
 * Registrations made in a loop (McpServer's lists are built from them and returned whole): where the loop's items
 * come from — 'data' when they are read at run time (an awaited API or database call, a store), 'fixed' for a
 * list written in code or shipped, 'unknown' when the reading cannot follow them. Memoised per RepoFacts.
 */
export function loopedRegistrations(repo: RepoFacts): LoopedRegistration[] {
  noteSourceRead('js');
  const hit = loopMemo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const reader = new Reader(repo, sources);
  const out: LoopedRegistration[] = [];
  const seen = new Set<Node>();
  const defs: [ListMethod, { node: Node; name: string; template?: unknown }[]][] = [
    ['tools/list', model.tools],
    ['prompts/list', model.prompts],
    ['resources/list', model.resources.filter((r) => !r.template)],
  ];
  for (const [method, list] of defs) {
    for (const d of list) {
      if (!Node.isCallExpression(d.node) || seen.has(d.node)) continue;
      seen.add(d.node);
      const loop = loopOf(d.node);
      if (!loop) continue;
      const c = reader.classify(loop.iterable, loop.holder as FunctionLikeNode);
      out.push({ method, name: d.name, file: sources.rel(d.node.getSourceFile()), line: positionOf(d.node).line, items: c.items });
    }
  }
  loopMemo.set(repo, out);
  return out;
}

export interface ListFacts {
  sources: ListSource[];
  writesOf(decl: Identifier): Write[];
  folderWrites(folder: Identifier): Write[];
  /** Whether a node runs per request (in a handler of the server model, or a source function it calls, two levels deep). */
  atRequestTime(n: Node): boolean;
}

const memo = new WeakMap<RepoFacts, ListFacts>();

export function listFacts(repo: RepoFacts): ListFacts {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const reader = new Reader(repo, sources);
  const out: ListSource[] = [];
  const mentionsCursor = (fn: FunctionLikeNode) => /\bcursor\b/i.test(fn.getText());
  for (const rh of model.requestHandlers) {
    if (!rh.handler || !(rh.method in LIST_KEY)) continue;
    const method = rh.method as ListMethod;
    const c = reader.listed(rh.handler, LIST_KEY[method]);
    out.push({ method, via: 'handler', fn: rh.handler, file: rh.file, line: rh.line, readsCursor: mentionsCursor(rh.handler), ...c });
  }
  for (const r of model.resources) {
    if (!r.template || !Node.isCallExpression(r.node)) continue;
    let target: Node | undefined = r.node.getArguments()[1];
    target = target && unwrap(target);
    if (target && Node.isIdentifier(target)) {
      const d = declarationOf(target);
      target = d ? initializerOf(d) : undefined;
    }
    if (!target || !Node.isNewExpression(target)) continue;
    const opts = objectLiteralOf(target.getArguments()[1], sources);
    const list = propertyValue(opts, 'list');
    const fn = list ? functionOf(list, sources) : undefined;
    if (!fn) continue;
    const c = reader.listed(fn, 'resources');
    out.push({ method: 'resources/list', via: 'template-list', template: r.name, fn, file: sources.rel(fn.getSourceFile()), line: positionOf(fn).line, readsCursor: mentionsCursor(fn), ...c });
  }
  const facts: ListFacts = { sources: out, writesOf: (d) => reader.writesOf(d), folderWrites: (f) => reader.folderWrites(f), atRequestTime: (n) => reader.atRequestTime(n) };
  memo.set(repo, facts);
  return facts;
}
