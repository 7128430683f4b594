import { posix } from 'node:path';
import { Node, SyntaxKind, type ObjectLiteralExpression, type ParameterDeclaration } from './morph.js';
import type { RepoFacts } from './repo.js';
import { classValueOf, declarationOf, functionOf, importOf, initializerOf, valueOfDeclaration, type ClassNode, type FunctionLikeNode } from './scope.js';
import { constString, objectLiteralOf, propertyValue, returnedExpressions, serverModel, type RequestHandlerDef } from './server-model.js';
import { parsedSources, positionOf, propertyName, unwrap, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';
import { constantPath } from './data-documents.js';

/**
 * Tool templates: the object literal a server builds for EACH tool when its tool list is made at run time
 * rather than written one literal per tool. Read from the low-level list handlers of the server model
 * (`setRequestHandler(ListToolsRequestSchema | 'tools/list', …)`), in what they return under `tools`:
 *
 *   - `ITEMS.map((op) => ({ name: op.operationId, description: op.summary, inputSchema: … }))` (also
 *     flatMap, a callback given by name, a chain of filter/slice/concat before it, a const holding the list,
 *     a local function returning it, nested flatMap/map);
 *   - a local array filled in a loop: `const tools = []; for (const op of ops) tools.push({ … })`.
 *
 * For each template: the keys it writes (`name`, `title`, `description`, `inputSchema`, `outputSchema`,
 * `annotations`, `_meta`…, each with its value node), and whether a spread may bring other keys (`open`).
 * A key the template does not write, with no spread, is absent from every tool built from it.
 *
 * Where the items come from (`items`), read from the list the template maps over (through `Object.entries`,
 * `Object.values`, `.paths`-like property reads, filter/map chains, local variables and functions):
 *   - 'document': a JSON or YAML document the package loads — `import spec from './openapi.json'`,
 *     `require('./spec.json')`, `JSON.parse(readFileSync(new URL('./spec.json', import.meta.url)))`,
 *     `readFileSync(join(__dirname, '..', 'spec.json'))`; `document` names the file (relative to the root)
 *     when its path is made of constants, else `documentPath` is undefined and `documentWhy` says why;
 *   - 'remote': an awaited call (fetch and the like) or a file path known only at run time (an argument,
 *     an environment variable): a catalog read when the server runs;
 *   - 'classes': an array of class instances (`[new SearchTool(), new FetchTool()]`), each class listed in
 *     `classes` (the template's `t.name` is then the class's `name` field);
 *   - 'objects': an array of object literals (the server model already reads those, see mappedDefinitions);
 *   - 'unknown': anything else.
 * Memoised per RepoFacts; nothing judged here.
 */

export type TemplateItems = 'document' | 'remote' | 'classes' | 'objects' | 'unknown';

export interface ToolTemplate {
  /** Where the template literal is written (relative path, 1-based line). */
  file: string;
  line: number;
  node: ObjectLiteralExpression;
  /** The tools/list handler whose result holds it. */
  handler: RequestHandlerDef;
  /** The callback's parameter name (`op` in `ops.map((op) => …)`), when there is one. */
  param?: string;
  /** The callback's first parameter or the loop's variable as written (`op`, `[method, op]`), when there is one. */
  paramNode?: Node;
  /** The list the template's own callback or loop walks (`Object.entries(item)` in a nested flatMap), when known. */
  list?: Node;
  /** The keys written, with their value nodes. */
  keys: Map<string, Node>;
  /** A spread (`...op`, `...extra`) may bring keys the reading cannot see. */
  open: boolean;
  items: TemplateItems;
  /** For 'document': the document's path relative to the root, when made of constants. */
  documentPath?: string;
  /** For 'document' without a path: why it could not be named ('path-not-constant', 'format-not-read'…). */
  documentWhy?: string;
  /** For 'classes': the classes whose instances are listed, in order. */
  classes: ClassNode[];
}

const MAP_METHODS = new Set(['map', 'flatMap']);
const PASS_METHODS = new Set(['filter', 'slice', 'concat', 'sort', 'toSorted', 'reverse', 'flat', 'values', 'keys', 'entries']);
const PASS_STATICS = new Set(['Object.values', 'Object.keys', 'Object.entries', 'Array.from', 'structuredClone']);
const PARSERS = /^(?:JSON\.parse|(?:yaml|YAML|jsYaml|jsyaml)\.(?:parse|load|safeLoad)|parseYaml|loadYaml)$/;
const FILE_READS = /^(?:readFileSync|readFile|fs\.readFileSync|fs\.readFile|fs\.promises\.readFile|fsp\.readFile|promises\.readFile)$/;
const DOCUMENT_EXT = /\.(?:json|ya?ml)$/i;

interface ItemsRead {
  items: TemplateItems;
  documentPath?: string;
  documentWhy?: string;
  classes: ClassNode[];
}
const UNKNOWN: ItemsRead = { items: 'unknown', classes: [] };

class Reader {
  constructor(
    private readonly repo: RepoFacts,
    private readonly sources: ParsedSources,
  ) {}

  private dirOf(n: Node): string {
    return posix.dirname(this.sources.rel(n.getSourceFile()));
  }

  /** The document a path names, relative to the root (the file's folder first, then the root). */
  private document(at: Node, path: string | undefined): ItemsRead {
    if (path === undefined) return { items: 'document', documentWhy: 'path-not-constant', classes: [] };
    const fromFile = posix.normalize(posix.join(this.dirOf(at), path));
    const fromRoot = posix.normalize(path);
    const hit = [fromFile, fromRoot].find((p) => !p.startsWith('..') && this.repo.has(p));
    return { items: 'document', documentPath: hit ?? fromFile, classes: [] };
  }

  /** A parameter of a named function: what the calls of that function in its file pass at its position. */
  private argumentOf(p: ParameterDeclaration, depth: number): ItemsRead {
    const fn = p.getParent();
    const index = Node.isFunctionDeclaration(fn) ? fn.getParameters().indexOf(p) : -1;
    const name = Node.isFunctionDeclaration(fn) ? fn.getName() : undefined;
    if (index < 0 || !name || depth > 12) return UNKNOWN;
    for (const call of fn!.getSourceFile().getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = unwrap(call.getExpression());
      if (!Node.isIdentifier(callee) || callee.getText() !== name) continue;
      const r = this.items(call.getArguments()[index], depth + 2);
      if (r.items !== 'unknown') return r;
    }
    return UNKNOWN;
  }

  /** Where the items of a list come from. */
  items(expr: Node | undefined, depth = 0): ItemsRead {
    if (!expr || depth > 16) return UNKNOWN;
    let n = unwrap(expr);
    let awaited = false;
    while (Node.isAwaitExpression(n)) {
      awaited = true;
      n = unwrap(n.getExpression());
    }
    if (Node.isArrayLiteralExpression(n)) {
      const els = n.getElements().map((e) => unwrap(e));
      if (els.length && els.every((e) => Node.isNewExpression(e))) {
        const classes = els.map((e) => (Node.isNewExpression(e) ? classValueOf(e.getExpression(), this.sources) : undefined));
        return classes.every((c) => !!c) ? { items: 'classes', classes: classes as ClassNode[] } : UNKNOWN;
      }
      if (els.length && els.every((e) => !!objectLiteralOf(e, this.sources))) return { items: 'objects', classes: [] };
      return UNKNOWN;
    }
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      if (!d) return UNKNOWN;
      const imp = importOf(d);
      if (imp && DOCUMENT_EXT.test(imp.spec) && imp.spec.startsWith('.')) return this.document(n, imp.spec);
      const p = d.getParent();
      // for (const [path, item] of Object.entries(doc.paths)): what the loop walks.
      const loop = d.getFirstAncestor((a) => Node.isForOfStatement(a) || Node.isForInStatement(a) || Node.isBlock(a));
      if ((Node.isForOfStatement(loop) || Node.isForInStatement(loop)) && d.getFirstAncestor((a) => a === loop.getInitializer())) return this.items(loop.getExpression(), depth + 1);
      if (Node.isParameterDeclaration(p)) return this.argumentOf(p, depth);
      const init = initializerOf(d);
      const u = init && unwrap(init);
      // const ops = []; for (…) ops.push(…): what the loops that fill it walk.
      if (u && Node.isArrayLiteralExpression(u) && u.getElements().length === 0) {
        const scope = d.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a)) ?? d.getSourceFile();
        const reads: ItemsRead[] = [];
        for (const call of scope.getDescendantsOfKind(SyntaxKind.CallExpression)) {
          const callee = unwrap(call.getExpression());
          if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'push') continue;
          const target = unwrap(callee.getExpression());
          if (!Node.isIdentifier(target) || declarationOf(target) !== d) continue;
          const l = call.getFirstAncestor((a) => Node.isForOfStatement(a) || Node.isForInStatement(a));
          if (Node.isForOfStatement(l) || Node.isForInStatement(l)) reads.push(this.items(l.getExpression(), depth + 1));
        }
        return reads.find((r) => r.items !== 'unknown') ?? UNKNOWN;
      }
      if (init) return this.items(init, depth + 1);
      const v = valueOfDeclaration(d, this.sources);
      return v && v !== n && !Node.isSourceFile(v) ? this.items(v, depth + 1) : UNKNOWN;
    }
    if (Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) {
      // spec.paths, spec['paths'], catalog.tools: what the root holds.
      let root: Node = n;
      while (Node.isPropertyAccessExpression(root) || Node.isElementAccessExpression(root)) root = unwrap(root.getExpression());
      if (Node.isThisExpression(root)) return UNKNOWN;
      return this.items(root, depth + 1);
    }
    if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      const text = callee.getText().replace(/\s+/g, '');
      const args = n.getArguments();
      if (text === 'require' && args[0]) {
        const spec = constString(args[0])?.value;
        if (spec && DOCUMENT_EXT.test(spec)) return this.document(n, spec);
        return UNKNOWN;
      }
      if (PASS_STATICS.has(text) || PARSERS.test(text)) return this.items(args[0], depth + 1);
      if (FILE_READS.test(text) || /(?:^|\.)readFile(?:Sync)?$/.test(text)) {
        const path = constantPath(args[0]);
        if (path !== undefined && DOCUMENT_EXT.test(path)) return this.document(n, path);
        // A path from an argument, the environment or configuration: known only when the server runs.
        return path === undefined ? { items: 'remote', classes: [] } : UNKNOWN;
      }
      if (Node.isPropertyAccessExpression(callee)) {
        const m = callee.getName();
        if (MAP_METHODS.has(m) || PASS_METHODS.has(m)) return this.items(callee.getExpression(), depth + 1);
        // (await fetch(url)).json(), res.json(), response.text()
        if ((m === 'json' || m === 'text') && awaited) return { items: 'remote', classes: [] };
      }
      const local = functionOf(callee, this.sources);
      if (local) {
        const reads = returnedExpressions(local).map((r) => this.items(r, depth + 1));
        const known = reads.find((r) => r.items !== 'unknown');
        if (known) return known;
      }
      if (/(?:^|\.)fetch$/.test(text) || awaited) return { items: 'remote', classes: [] };
      return UNKNOWN;
    }
    return UNKNOWN;
  }
}

/** The function of a callback argument (an arrow, a function expression, or a function given by name). */
function callbackOf(arg: Node | undefined, sources: ParsedSources): FunctionLikeNode | undefined {
  if (!arg) return undefined;
  const u = unwrap(arg);
  if (Node.isArrowFunction(u) || Node.isFunctionExpression(u)) return u;
  return functionOf(u, sources);
}

interface Found {
  node: ObjectLiteralExpression;
  param?: string;
  paramNode?: Node;
  /** The list mapped over (or looped over). */
  list?: Node;
}

/** The templates of a list expression (see the file header). */
function templatesOf(expr: Node | undefined, fn: FunctionLikeNode, sources: ParsedSources, out: Found[], depth = 0): void {
  if (!expr || depth > 8) return;
  let n = unwrap(expr);
  while (Node.isAwaitExpression(n)) n = unwrap(n.getExpression());
  if (Node.isArrayLiteralExpression(n)) {
    for (const el of n.getElements()) if (Node.isSpreadElement(el)) templatesOf(el.getExpression(), fn, sources, out, depth + 1);
    return;
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return;
    const init = initializerOf(d);
    const u = init && unwrap(init);
    // const tools = []; … tools.push({ … }) in a loop.
    if (u && Node.isArrayLiteralExpression(u) && u.getElements().length === 0) {
      const scope = d.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a)) ?? d.getSourceFile();
      for (const call of scope.getDescendantsOfKind(SyntaxKind.CallExpression)) {
        const callee = unwrap(call.getExpression());
        if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'push') continue;
        const target = unwrap(callee.getExpression());
        if (!Node.isIdentifier(target) || declarationOf(target) !== d) continue;
        for (const a of call.getArguments()) {
          if (Node.isSpreadElement(a)) {
            templatesOf(a.getExpression(), fn, sources, out, depth + 1);
            continue;
          }
          const obj = unwrap(a);
          if (!Node.isObjectLiteralExpression(obj)) continue;
          const loop = call.getFirstAncestor((x) => Node.isForOfStatement(x) || Node.isForInStatement(x));
          const list = Node.isForOfStatement(loop) || Node.isForInStatement(loop) ? loop.getExpression() : undefined;
          const init = Node.isForOfStatement(loop) || Node.isForInStatement(loop) ? loop.getInitializer() : undefined;
          const paramNode = init && Node.isVariableDeclarationList(init) ? init.getDeclarations()[0]?.getNameNode() : undefined;
          out.push({ node: obj, param: paramNode?.getText(), paramNode, list });
        }
      }
      return;
    }
    if (u) {
      templatesOf(u, fn, sources, out, depth + 1);
      return;
    }
    const v = valueOfDeclaration(d, sources);
    if (v && v !== n && !Node.isSourceFile(v)) templatesOf(v, fn, sources, out, depth + 1);
    return;
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee)) {
      const m = callee.getName();
      if (MAP_METHODS.has(m)) {
        const cb = callbackOf(n.getArguments()[0], sources);
        if (!cb) return;
        const p = cb.getParameters()[0]?.getNameNode();
        for (const r of returnedExpressions(cb)) {
          const obj = objectLiteralOf(unwrap(r), sources);
          if (obj) out.push({ node: obj, param: p && Node.isIdentifier(p) ? p.getText() : undefined, paramNode: p, list: callee.getExpression() });
          else templatesOf(r, cb, sources, out, depth + 1); // ops.flatMap((path) => Object.entries(path).map(…))
        }
        return;
      }
      if (PASS_METHODS.has(m)) {
        templatesOf(callee.getExpression(), fn, sources, out, depth + 1);
        if (m === 'concat') for (const a of n.getArguments()) templatesOf(a, fn, sources, out, depth + 1);
        return;
      }
    }
    const local = functionOf(callee, sources);
    if (local && local !== fn) for (const r of returnedExpressions(local)) templatesOf(r, local, sources, out, depth + 1);
  }
}

/** The root name of a list expression: `Object.entries(p.ops).filter(…)` → `p`. */
function rootOf(list: Node): Node {
  let root: Node = unwrap(list);
  for (let i = 0; i < 16; i++) {
    if (Node.isCallExpression(root)) {
      const callee = unwrap(root.getExpression());
      if (Node.isPropertyAccessExpression(callee) && !PASS_STATICS.has(callee.getText().replace(/\s+/g, ''))) root = unwrap(callee.getExpression());
      else if (root.getArguments()[0]) root = unwrap(root.getArguments()[0]!);
      else break;
    } else if (Node.isPropertyAccessExpression(root) || Node.isElementAccessExpression(root)) root = unwrap(root.getExpression());
    else break;
  }
  return root;
}

/** The outermost list a template's items come from: for nested maps, the list of the outermost callback. */
function outerList(found: Found): Node | undefined {
  let list = found.list;
  // ops.flatMap((p) => Object.entries(p.ops).map(…)): the inner list reads the outer callback's parameter.
  for (let i = 0; i < 4 && list; i++) {
    const root = rootOf(list);
    if (!Node.isIdentifier(root)) return list;
    const p = declarationOf(root)?.getParent();
    if (!Node.isParameterDeclaration(p)) return list;
    const call = p.getParent()?.getParent();
    if (!call || !Node.isCallExpression(call)) return list;
    const callee = unwrap(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || !MAP_METHODS.has(callee.getName())) return list;
    list = callee.getExpression();
  }
  return list;
}

const memo = new WeakMap<RepoFacts, ToolTemplate[]>();

/** The tool templates of a JavaScript/TypeScript server (see the file header). */
export function toolTemplates(repo: RepoFacts): ToolTemplate[] {
  noteSourceRead('js');
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const reader = new Reader(repo, sources);
  const out: ToolTemplate[] = [];
  const seen = new Set<Node>();
  for (const rh of model.requestHandlers) {
    if (rh.method !== 'tools/list' || !rh.handler) continue;
    const found: Found[] = [];
    for (const r of returnedExpressions(rh.handler)) {
      let e = unwrap(r);
      if (Node.isAwaitExpression(e)) e = unwrap(e.getExpression());
      const obj = objectLiteralOf(e, sources);
      if (obj) templatesOf(propertyValue(obj, 'tools'), rh.handler, sources, found);
      else if (Node.isCallExpression(e)) {
        const local = functionOf(e.getExpression(), sources);
        for (const rr of local ? returnedExpressions(local) : []) {
          const o2 = objectLiteralOf(unwrap(rr), sources);
          if (o2) templatesOf(propertyValue(o2, 'tools'), local!, sources, found);
        }
      }
    }
    for (const f of found) {
      if (seen.has(f.node)) continue;
      seen.add(f.node);
      const keys = new Map<string, Node>();
      let open = false;
      for (const p of f.node.getProperties()) {
        if (Node.isSpreadAssignment(p)) open = true;
        else if (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p)) {
          const k = propertyName(p.getNameNode());
          const v = propertyValue(f.node, k ?? '');
          if (k && v) keys.set(k, v);
        }
      }
      const items = reader.items(outerList(f));
      out.push({
        file: sources.rel(f.node.getSourceFile()),
        line: positionOf(f.node).line,
        node: f.node,
        handler: rh,
        param: f.param,
        paramNode: f.paramNode,
        list: f.list,
        keys,
        open,
        ...items,
      });
    }
  }
  memo.set(repo, out);
  return out;
}

/**
 * Where the items behind a computed tool name come from, when the name reads a loop variable or a callback
 * parameter: `for (const e of endpoints) server.tool(e.toolName, …)`, `endpoints.forEach((e) => server.tool(`api-${e.id}`, …))`.
 * The same reading as the templates' items; undefined when no identifier of the name leads to a known list.
 */
export function itemsOfName(repo: RepoFacts, sources: ParsedSources, name: Node): { items: TemplateItems; documentPath?: string } | undefined {
  const reader = new Reader(repo, sources);
  const ids = Node.isIdentifier(name) ? [name] : name.getDescendantsOfKind(SyntaxKind.Identifier);
  for (const id of ids.slice(0, 16)) {
    const parent = id.getParent();
    if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) continue;
    const d = declarationOf(id);
    if (!d) continue;
    let read: ItemsRead = UNKNOWN;
    // A parameter of a callback given to map / forEach / flatMap: the list it is called on.
    const param = d.getFirstAncestor((a) => Node.isParameterDeclaration(a));
    const fn = param?.getParent();
    const call = fn && (Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) ? fn.getParent() : undefined;
    if (call && Node.isCallExpression(call)) {
      const callee = unwrap(call.getExpression());
      if (Node.isPropertyAccessExpression(callee) && (MAP_METHODS.has(callee.getName()) || callee.getName() === 'forEach')) read = reader.items(callee.getExpression());
    } else read = reader.items(id);
    if (read.items !== 'unknown') return { items: read.items, ...(read.documentPath !== undefined ? { documentPath: read.documentPath } : {}) };
  }
  return undefined;
}
