import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import { parse } from 'parse5';
import { Node, Project, SyntaxKind, ts, type CallExpression, type ElementAccessExpression, type ObjectLiteralExpression, type SourceFile } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { noteSourceRead, type FileNotRead } from '../../../facts/not-read.js';
import { functionOf, resolveRelativeModule, type FunctionLikeNode } from '../../../facts/scope.js';
import { calleeReturns, constString, objectLiteralOf, propertyValue, serverModel } from '../../../facts/server-model.js';
import { booleanAnnotations } from '../../../facts/server-model/values.js';
import { moduleSpecs, ofKinds, parsedSources, positionOf, propertyName, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import { MAX_BUNDLE_BYTES } from './apps-support.js';
import { builtViewFiles, componentFiles } from './view-files.js';
import { heldValues } from './held-values.js';

/**
 * The static reading of an MCP App repository shared by the static parts of: the App tools its
 * server code registers (registerAppTool, registerTool with `_meta.ui.resourceUri`, or a low-level Server's listed
 * tool definition with that key), the annotations of every
 * tool it registers, the View's own code (UI source files: the files that use the DOM or a UI framework, not the
 * server's) and the inline scripts of its built single-file bundles (parsed apart, with their line in the HTML).
 */

export { MAX_BUNDLE_BYTES } from './apps-support.js';

/** An App tool registered in the source. */
export interface AppToolInSource {
  name: string;
  file: string;
  line: number;
  api: 'registerAppTool' | 'registerTool' | 'low-level';
  handler?: FunctionLikeNode;
  /** A low-level server's tool (listed by a tools/list handler, or a definition object): the dispatcher's branch for it. */
  branch?: Node;
}

/** What the source says of a tool's annotations: the literal booleans, 'none' when it gives none, 'unknown' when it gives a value the reading cannot follow. */
export type SourceAnnotations = Record<string, boolean> | 'none' | 'unknown';

/** A piece of View code: a UI source file or one inline script of a built bundle. */
export interface ViewCode {
  /** Path of the file (the HTML bundle for an inline script). */
  file: string;
  /** Line of the HTML where the script's text starts (0 for a source file). */
  lineOffset: number;
  sf: SourceFile;
  bundle: boolean;
}

const SERVER_MODULES = /^@modelcontextprotocol\/(?:server|sdk|node|express|hono)(?:\/|$)|^@modelcontextprotocol\/ext-apps\/server$/;
const NODE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));
const UI_MODULES = /^(?:react|react-dom|preact|vue|svelte|solid-js|lit)(?:\/|$)|^@modelcontextprotocol\/ext-apps(?:\/(?:react|app-with-deps|react-with-deps))?$/;

/** Literal booleans of an object (a minifier's !0/!1 included). */
const booleans = (obj: ObjectLiteralExpression): Record<string, boolean> => booleanAnnotations(obj) ?? {};

function annotationsOf(config: ObjectLiteralExpression | undefined, sources: ParsedSources): SourceAnnotations {
  if (!config) return 'unknown';
  const node = propertyValue(config, 'annotations');
  if (!node) return 'none';
  const obj = objectLiteralOf(node, sources);
  return obj ? booleans(obj) : 'unknown';
}

/**
 * The object literal a node of a tool's config stands for: a literal, a const holding one, the one object a
 * function of the repository returns (`_meta: uiMeta(BOARD_URI)` with `const uiMeta = (uri) => ({ ui: { resourceUri: uri } })`,
 * a config built by `withUi({ … })`), or a property of an entry of a table of Views (`getWidgetConfig(WIDGET_URIS.SEARCH)?.meta`
 * with `getWidgetConfig = (uri) => WIDGET_REGISTRY[uri]`: tableEntry, the entry under the key the call gives).
 */
function configObject(node: Node | undefined, sources: ParsedSources, depth = 0): ObjectLiteralExpression | undefined {
  const o = objectLiteralOf(node, sources);
  if (o || !node || depth > 3) return o;
  const n = unwrap(node);
  // `getWidgetConfig(WIDGET_URIS.SEARCH)?.meta`, `WIDGETS[uri].meta`: a property of an entry of a table of the Views.
  if (Node.isPropertyAccessExpression(n)) return configObject(configProperty(configObject(n.getExpression(), sources, depth + 1), n.getName(), sources), sources, depth + 1);
  if (Node.isElementAccessExpression(n)) return tableEntry(n, sources, depth);
  if (!Node.isCallExpression(n)) return undefined;
  const returned = calleeReturns(n, sources);
  if (returned.length !== 1) return undefined;
  // `getWidgetConfig(WIDGET_URIS.SEARCH)` returning `WIDGET_REGISTRY[uri]`: the entry under the key given at this call.
  const ret = unwrap(returned[0]!);
  if (Node.isElementAccessExpression(ret)) return tableEntry(ret, sources, depth, callKey(n, ret));
  return configObject(returned[0], sources, depth + 1);
}

/**
 * The key a call gives to a table lookup its callee returns (`getWidgetConfig(WIDGET_URIS.SEARCH)` with
 * `getWidgetConfig = (uri) => WIDGET_REGISTRY[uri]`): the constant argument passed for the parameter the lookup is
 * keyed by; undefined when the key is no parameter of the callee or the argument is no constant.
 */
function callKey(call: CallExpression, lookup: ElementAccessExpression): string | undefined {
  const key = unwrap(lookup.getArgumentExpression() ?? lookup);
  if (!Node.isIdentifier(key)) return undefined;
  const fn = lookup.getFirstAncestor((a) => Node.isArrowFunction(a) || Node.isFunctionExpression(a) || Node.isFunctionDeclaration(a) || Node.isMethodDeclaration(a)) as FunctionLikeNode | undefined;
  const index = fn?.getParameters().findIndex((p) => p.getName() === key.getText()) ?? -1;
  if (index < 0) return undefined;
  const arg = call.getArguments()[index];
  return arg ? constString(arg)?.value : undefined;
}

/**
 * The entry of a table of the server's own code an element access stands for (`WIDGET_REGISTRY[uri]`, the table an
 * object literal keyed by the Views' URIs): the entry under its key when the key is a constant (written there, or
 * given by the call of the helper that looks it up: callKey), else the first entry when every entry is an object of the
 * same shape, down to the objects its members hold (a table of widgets, each entry linking its View alike: which
 * entry stands for all then tells nothing of a View link that some entries have and others lack); otherwise none.
 */
function tableEntry(n: ElementAccessExpression, sources: ParsedSources, depth: number, givenKey?: string): ObjectLiteralExpression | undefined {
  const table = objectLiteralOf(n.getExpression(), sources);
  if (!table) return undefined;
  const key = givenKey ?? constString(n.getArgumentExpression())?.value;
  const entries: { name: string | undefined; obj: ObjectLiteralExpression | undefined }[] = [];
  for (const p of table.getProperties()) {
    if (!Node.isPropertyAssignment(p)) return undefined;
    const nameNode = p.getNameNode();
    const name = Node.isComputedPropertyName(nameNode) ? constString(nameNode.getExpression())?.value : (constString(nameNode)?.value ?? nameNode.getText());
    entries.push({ name, obj: configObject(p.getInitializer(), sources, depth + 1) });
    if (entries.length > 64) return undefined;
  }
  if (key !== undefined) return entries.find((e) => e.name === key)?.obj;
  const first = entries[0]?.obj;
  if (!first) return undefined;
  const shape = shapeOf(first, sources, depth + 1);
  return entries.every((e) => e.obj && shapeOf(e.obj, sources, depth + 1) === shape) ? first : undefined;
}

/**
 * The shape of a config object: its keys, sorted, each with the shape of the object it holds (a literal, or one a
 * const or a helper of the repository gives: configObject), two levels down — `{ meta: { ui: { resourceUri } } }`
 * and `{ meta: {} }` differ. A spread stands as such.
 */
function shapeOf(obj: ObjectLiteralExpression, sources: ParsedSources, depth: number, level = 0): string {
  return obj
    .getProperties()
    .map((p) => {
      if (!(Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p))) return '…';
      const inner = level < 2 && Node.isPropertyAssignment(p) ? configObject(p.getInitializer(), sources, depth + 1) : undefined;
      return inner ? `${p.getName()}:{${shapeOf(inner, sources, depth + 1, level + 1)}}` : p.getName();
    })
    .sort()
    .join(',');
}

/** A property of a config object, written in it or in an object it spreads (`{ ...APP_META, … }`, `{ ...uiMeta(URI) }`). */
function configProperty(obj: ObjectLiteralExpression | undefined, key: string, sources: ParsedSources, depth = 0): Node | undefined {
  if (!obj) return undefined;
  const own = propertyValue(obj, key);
  if (own || depth > 3) return own;
  for (const p of obj.getProperties()) {
    if (!Node.isSpreadAssignment(p)) continue;
    const v = configProperty(configObject(p.getExpression(), sources), key, sources, depth + 1);
    if (v) return v;
  }
  return undefined;
}

/**
 * Does a tool config link a View (`_meta.ui.resourceUri`, or the flat `_meta["ui/resourceUri"]`)? The config, its
 * `_meta` and its `ui` may each be built by a helper of the repository or spread from a shared object (configObject).
 */
function linksView(config: Node | undefined, sources: ParsedSources): boolean {
  const meta = configObject(configProperty(configObject(config, sources), '_meta', sources), sources);
  if (!meta) return false;
  if (configProperty(meta, 'ui/resourceUri', sources)) return true;
  const ui = configObject(configProperty(meta, 'ui', sources), sources);
  return !!configProperty(ui, 'resourceUri', sources);
}

/**
 * Is a config shaped as registerAppTool's: `_meta.ui` linking a View, or saying who may call the tool
 * (`_meta.ui.visibility`, a tool for the View alone, which links none)?
 */
function appToolConfig(config: ObjectLiteralExpression | undefined, sources: ParsedSources): boolean {
  if (linksView(config, sources)) return true;
  const ui = objectLiteralOf(propertyValue(objectLiteralOf(propertyValue(config, '_meta'), sources), 'ui'), sources);
  return !!propertyValue(ui, 'visibility');
}

export interface AppSource {
  sources: ParsedSources;
  appTools: AppToolInSource[];
  /** Every tool registered in the source (App tools included), by name: its annotations. */
  annotations: Map<string, SourceAnnotations>;
}

/** Methods the server model reads itself (registerTool(name, config, handler) has three arguments, but a wrapper may add one). */
const REGISTRATION_METHOD_NAMES = new Set(['registerTool', 'tool', 'addTool']);

const memo = new WeakMap<RepoFacts, AppSource>();

/** The App tools and the tools' annotations the repository's source registers (memoised). */
export function appSource(repo: RepoFacts): AppSource {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const appTools: AppToolInSource[] = [];
  const annotations = new Map<string, SourceAnnotations>();
  const calls = [...ownCalls(sources)];
  const wrappers = new Set<Node>();
  for (const t of model.tools) {
    // registerAppTool(server, …): read below with its own calls (the model reads it as registerTool; once here would be twice).
    if (t.argOffset) continue;
    // registerTool(tool.name, { …, _meta: tool._meta }, tool.handler) in a wrapper: read from the definitions it is given
    // (once per wrapper: the tools the model read at its calls share its registration node).
    const inWrapper = !t.nameIsLiteral || t.wrapped === true;
    if (inWrapper && t.api === 'registerTool' && Node.isCallExpression(t.node) && !wrappers.has(t.node)) {
      wrappers.add(t.node);
      const file = sources.rel(t.node.getSourceFile());
      if (!file.startsWith('node_modules/')) appTools.push(...wrappedRegisteredTools(t.node, objectLiteralOf(t.node.getArguments()[1], sources), file, sources, calls, annotations));
    }
    if (inWrapper) continue;
    const ann: SourceAnnotations = t.annotationsNode ? (t.annotations && objectLiteralOf(t.annotationsNode, sources) ? t.annotations : 'unknown') : t.config || t.api === 'tool' ? 'none' : 'unknown';
    if (!annotations.has(t.name)) annotations.set(t.name, ann);
    // registerTool(name, withUi({ … }), handler): a config the model does not read as a literal is followed here.
    const config = t.config ?? (t.api === 'registerTool' && Node.isCallExpression(t.node) ? t.node.getArguments()[1] : undefined);
    if (t.api === 'registerTool' && linksView(config, sources)) appTools.push({ name: t.name, file: t.file, line: t.line, api: 'registerTool', handler: t.handler });
    // A low-level Server (setRequestHandler(ListToolsRequestSchema, …) listing `{ name, _meta: { ui: { resourceUri } } }`,
    // and a tools/call dispatcher with a branch per name): an App tool whose result is returned by its branch.
    // A definition handed to the server's own tool framework (`registerTools(defs)`, a table its dispatcher looks the
    // name up in) with no branch per name: the handler the definition carries (`handler: async (args) => …`, `call: run`).
    else if ((t.api === 'tools/list' || t.api === 'definition') && linksView(t.config, sources)) appTools.push({ name: t.name, file: t.file, line: t.line, api: 'low-level', branch: t.branch, ...(t.branch ? {} : { handler: carriedHandler(t.node, sources) }) });
  }
  // registerAppTool(server, name, config, handler) of @modelcontextprotocol/ext-apps/server: a function, not a method.
  for (const { file, call, name } of calls) {
    const args = call.getArguments();
    // registerAppTool by name, or its shape in a bundle that renamed it: (server, 'name', { _meta: { ui: { resourceUri } } }, handler),
    // or `_meta: { ui: { visibility: ['app'] } }` for a tool the View alone calls.
    if (name !== 'registerAppTool' && !(name && args.length === 4 && !REGISTRATION_METHOD_NAMES.has(name) && appToolConfig(objectLiteralOf(args[2], sources), sources))) continue;
    const tool = constString(args[1])?.value;
    const config = objectLiteralOf(args[2], sources);
    if (tool === undefined) {
      appTools.push(...wrappedAppTools(call, config, file, sources, calls, annotations));
      continue;
    }
    let handler: FunctionLikeNode | undefined;
    try {
      handler = args[3] ? functionOf(args[3], sources) : undefined;
    } catch {
      handler = undefined;
    }
    appTools.push({ name: tool, file, line: positionOf(call).line, api: 'registerAppTool', handler });
    if (!annotations.has(tool)) annotations.set(tool, annotationsOf(config, sources));
  }
  // A tool module of a file-convention framework: `export const tool = { resource: 'map', _meta: { ui: … } }` beside
  // `export default async function (args) { … }`, the framework registering every module of its tools folder.
  const named = new Set(appTools.map((t) => t.name));
  for (const t of conventionAppTools(sources, repo)) {
    if (named.has(t.name)) continue;
    named.add(t.name);
    appTools.push(t);
    if (!annotations.has(t.name)) annotations.set(t.name, annotationsOf(t.config, sources));
  }
  // A definition object a wrapper registers is also read as a listed definition (no dispatcher branch): the wrapper's
  // registration, which knows the handler, stands for it.
  const registered = new Set(appTools.filter((t) => t.api !== 'low-level' && t.handler).map((t) => t.name));
  for (let i = appTools.length - 1; i >= 0; i--) if (appTools[i]!.api === 'low-level' && !appTools[i]!.branch && registered.has(appTools[i]!.name)) appTools.splice(i, 1);
  appTools.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const out = { sources, appTools, annotations };
  memo.set(repo, out);
  return out;
}

/**
 * App tools of a file-convention framework, one per module of the server's own code that exports a tool config
 * (`export const tool = { … }`) linking a View — `_meta.ui.resourceUri`, or a `resource` naming the View by its
 * folder — and a default-exported handler. The tool is named by the config's `name`, else by the module's file name
 * (`tools/show-map.ts` is `show-map`). Top-level statements only: no walk of the module.
 */
function conventionAppTools(sources: ParsedSources, repo: RepoFacts): (AppToolInSource & { config: ObjectLiteralExpression })[] {
  const out: (AppToolInSource & { config: ObjectLiteralExpression })[] = [];
  let views: Set<string> | undefined;
  for (const [file, sf] of sources.files) {
    if (file.startsWith('node_modules/') || /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(file)) continue;
    let config: ObjectLiteralExpression | undefined;
    let handlerNode: Node | undefined;
    for (const st of sf.getStatements()) {
      if (Node.isVariableStatement(st) && st.isExported()) {
        for (const d of st.getDeclarations()) {
          const init = d.getInitializer();
          if (d.getName() === 'tool' && init && Node.isObjectLiteralExpression(unwrap(init))) config = unwrap(init) as ObjectLiteralExpression;
        }
      } else if (Node.isFunctionDeclaration(st) && st.isDefaultExport()) handlerNode = st;
      else if (Node.isExportAssignment(st) && !st.isExportEquals()) handlerNode = st.getExpression();
    }
    if (!config || !handlerNode) continue;
    const resource = constString(propertyValue(config, 'resource'))?.value;
    // A `resource` names a View only when the package holds one by that name (a View folder or file): a permissions
    // descriptor's `resource: 'users'` links nothing.
    if (!linksView(config, sources) && !(resource && (views ??= viewNames(repo, sources)).has(resource))) continue;
    let handler: FunctionLikeNode | undefined;
    try {
      handler = Node.isFunctionDeclaration(handlerNode) ? handlerNode : functionOf(handlerNode, sources);
    } catch {
      handler = undefined;
    }
    const name = constString(propertyValue(config, 'name'))?.value ?? posix.basename(file).replace(/\.[cm]?[jt]sx?$/, '');
    if (!name) continue;
    out.push({ name, file, line: positionOf(config).line, api: 'registerAppTool', handler, config });
  }
  return out;
}

/** View-shaped files by extension (an HTML page, a component of a UI framework). */
const VIEW_FILE = /\.(?:html?|[jt]sx|vue|svelte)$/;

/**
 * The names a View goes by in the package: the name (without extension) of each View file — an HTML page, a
 * component file, a source file of the View (isViewFile) — and of each folder holding one, below the root.
 */
function viewNames(repo: RepoFacts, sources: ParsedSources): Set<string> {
  const out = new Set<string>();
  const add = (file: string): void => {
    const parts = file.split('/');
    out.add(parts.pop()!.replace(/\.[^.]+$/, ''));
    for (const d of parts) out.add(d);
  };
  for (const file of repo.files) if (!file.startsWith('node_modules/') && VIEW_FILE.test(file)) add(file);
  for (const [file, sf] of sources.files) if (!VIEW_FILE.test(file) && isViewFile(file, sf)) add(file);
  return out;
}

/** Keys under which a tool definition of a framework carries its handler. */
const CARRIED_HANDLER_KEYS = new Set(['handler', 'handle', 'execute', 'call', 'run', 'callback', 'cb', 'invoke', 'resolve', 'fn']);

/**
 * The handler a tool definition carries for the server's own framework: a function (or a name of one) under a handler
 * key of the definition object, or of the object holding it (`{ type: 'internal', tool: { name, _meta, … }, call }`).
 * Undefined when there is none or it cannot be followed.
 */
function carriedHandler(def: Node, sources: ParsedSources): FunctionLikeNode | undefined {
  const holders: Node[] = [def];
  const pa = def.getParent();
  if (pa && Node.isPropertyAssignment(pa) && Node.isObjectLiteralExpression(pa.getParent())) holders.push(pa.getParent()!);
  for (const h of holders) {
    if (!Node.isObjectLiteralExpression(h)) continue;
    for (const m of h.getProperties()) {
      if (Node.isMethodDeclaration(m) && CARRIED_HANDLER_KEYS.has(m.getName())) return m;
      if (!Node.isPropertyAssignment(m) || !CARRIED_HANDLER_KEYS.has(m.getName())) continue;
      const init = m.getInitializer();
      try {
        const fn = init ? functionOf(init, sources) : undefined;
        if (fn) return fn;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The handler of the i-th of n tools a wrapper registers: the i-th of the handlers read, or the one handler they share. */
function pairedHandler(handlers: Node[] | undefined, n: number, i: number, sources: ParsedSources): FunctionLikeNode | undefined {
  const h = handlers && (handlers.length === n ? handlers[i] : handlers.length === 1 ? handlers[0] : undefined);
  try {
    return h ? functionOf(h, sources) : undefined;
  } catch {
    return undefined;
  }
}

/** The annotations of the i-th of n tools a wrapper registers (`annotations: tool.annotations` read per definition). */
function heldAnnotations(config: ObjectLiteralExpression | undefined, n: number, i: number, sources: ParsedSources, calls: { name: string; call: CallExpression }[]): SourceAnnotations {
  const node = propertyValue(config, 'annotations');
  const held = node && !objectLiteralOf(node, sources) ? heldValues(node, sources, calls) : undefined;
  const ann = held?.length === n ? objectLiteralOf(held[i]!, sources) : undefined;
  return ann ? booleans(ann) : annotationsOf(config, sources);
}

/**
 * App tools registered through a wrapper (registerAppTool(server, tool.name, { …, annotations: tool.annotations },
 * tool.handler) inside a helper, a loop or a class fed with literal definitions: support/apps/held-values.ts): one
 * per name the wrapper is given, its handler and annotations read from the same definitions (paired by index).
 */
function wrappedAppTools(call: CallExpression, config: ObjectLiteralExpression | undefined, file: string, sources: ParsedSources, calls: { name: string; call: CallExpression }[], annotations: Map<string, SourceAnnotations>): AppToolInSource[] {
  const args = call.getArguments();
  const names = heldValues(args[1]!, sources, calls)?.map((n) => constString(n)?.value);
  if (!names?.length || names.some((n) => n === undefined)) return [];
  const handlers = args[3] ? heldValues(args[3], sources, calls) : undefined;
  return names.map((tool, i) => {
    const handler = pairedHandler(handlers, names.length, i, sources);
    if (!annotations.has(tool!)) annotations.set(tool!, heldAnnotations(config, names.length, i, sources, calls));
    return { name: tool!, file, line: positionOf(call).line, api: 'registerAppTool' as const, handler };
  });
}

/**
 * Tools a wrapper registers with registerTool(tool.name, config, tool.handler): the App tools among them, whose config
 * links a View (a literal `_meta.ui.resourceUri`, or `_meta: tool._meta` read per definition).
 */
function wrappedRegisteredTools(call: CallExpression, config: ObjectLiteralExpression | undefined, file: string, sources: ParsedSources, calls: { name: string; call: CallExpression }[], annotations: Map<string, SourceAnnotations>): AppToolInSource[] {
  const args = call.getArguments();
  if (args.length < 3) return [];
  const names = heldValues(args[0]!, sources, calls)?.map((n) => constString(n)?.value);
  if (!names?.length || names.some((n) => n === undefined)) return [];
  const metaNode = propertyValue(config, '_meta');
  const metas = metaNode && !objectLiteralOf(metaNode, sources) ? heldValues(metaNode, sources, calls) : undefined;
  const links = (i: number): boolean => {
    if (linksView(config, sources)) return true;
    const meta = metas?.length === names.length ? objectLiteralOf(metas[i]!, sources) : undefined;
    const ui = meta && objectLiteralOf(propertyValue(meta, 'ui'), sources);
    return !!meta && (!!propertyValue(meta, 'ui/resourceUri') || !!propertyValue(ui, 'resourceUri'));
  };
  const handlers = heldValues(args[args.length - 1]!, sources, calls);
  const out: AppToolInSource[] = [];
  names.forEach((tool, i) => {
    if (!annotations.has(tool!)) annotations.set(tool!, heldAnnotations(config, names.length, i, sources, calls));
    if (!links(i)) return;
    const handler = pairedHandler(handlers, names.length, i, sources);
    out.push({ name: tool!, file, line: positionOf(call).line, api: 'registerTool', handler });
  });
  return out;
}

/** Every call in the audited source's own files (not node_modules), with its callee's name (a function's or a method's). */
export function* ownCalls(sources: ParsedSources): Generator<{ file: string; call: CallExpression; name: string }> {
  for (const [file, sf] of sources.files) {
    if (file.startsWith('node_modules/')) continue;
    for (const call of ofKinds(sf, [SyntaxKind.CallExpression])) {
      if (!Node.isCallExpression(call)) continue;
      const callee = unwrap(call.getExpression());
      yield { file, call, name: Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '' };
    }
  }
}

/** Does a file of the source belong to the View (uses the DOM or a UI framework), rather than to the server? */
function isViewFile(file: string, sf: SourceFile): boolean {
  if (file.startsWith('node_modules/')) return false;
  const specs = [...moduleSpecs(sf)];
  // Server code: the SDK's server side, or Node's own modules (a bundled server imports no SDK but node:http, fs…).
  if (specs.some((s) => SERVER_MODULES.test(s) || s.startsWith('node:') || NODE_BUILTINS.has(s.split('/')[0]!))) return false;
  if (specs.some((s) => UI_MODULES.test(s))) return true;
  if (/\.[jt]sx$/.test(file)) return true;
  // The DOM's globals, read as identifiers (not property names).
  let dom = false;
  const visit = (cn: ts.Node): void => {
    if (dom) return;
    if (ts.isIdentifier(cn) && (cn.text === 'document' || cn.text === 'window') && !(ts.isPropertyAccessExpression(cn.parent) && cn.parent.name === cn)) dom = true;
    else ts.forEachChild(cn, visit);
  };
  ts.forEachChild(sf.compilerNode, visit);
  return dom;
}

interface HtmlNode {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
  content?: HtmlNode;
  value?: string;
  sourceCodeLocation?: { startLine: number; endLine: number } | null;
}

/** The inline scripts of an HTML document (text and the line its text starts on), comments left out by the parser. */
export function inlineScripts(html: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const walk = (n: HtmlNode) => {
    if (n.nodeName === 'script' && !n.attrs?.some((a) => a.name === 'src')) {
      const type = n.attrs?.find((a) => a.name === 'type')?.value.toLowerCase().trim();
      const text = (n.childNodes ?? []).map((c) => c.value ?? '').join('');
      if ((!type || type === 'module' || /javascript|ecmascript/.test(type)) && text.trim()) out.push({ text, line: n.sourceCodeLocation?.startLine ?? 1 });
    }
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(html, { sourceCodeLocationInfo: true }) as unknown as HtmlNode);
  return out;
}

/** The `<script>` blocks of a Svelte or Vue component (JavaScript or TypeScript), with the line their text starts on. */
export function componentScripts(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  for (const m of text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const lang = /\blang\s*=\s*["']?([\w-]+)/i.exec(m[1]!)?.[1]?.toLowerCase();
    if (lang && !['ts', 'typescript', 'js', 'javascript'].includes(lang)) continue;
    if (!m[2]!.trim()) continue;
    const start = m.index! + m[0].indexOf('>') + 1;
    out.push({ text: m[2]!, line: text.slice(0, start).split('\n').length });
  }
  return out;
}

export interface ViewCodeSet {
  code: ViewCode[];
  /** View files that could not be read or parsed. */
  unread: FileNotRead[];
  /** The built bundles found (read or not). */
  bundles: string[];
}

const viewMemo = new WeakMap<RepoFacts, ViewCodeSet>();

/** Folders that hold a View's code by convention. */
const UI_PLACE = /(^|\/)(ui|view|views|web|client|app)\//;

/**
 * The files of the package's library surface: the entry points package.json publishes for importers (`main`,
 * `module`, `browser`, `exports`, every string found in them) and the files they import by relative path,
 * transitively. A package whose library is a browser library (charts, maps) ships DOM code there that no View
 * loads; the MCP server it also ships is started through `bin`, which is not part of this surface.
 */
function librarySurface(repo: RepoFacts, sources: ParsedSources): Set<string> {
  const out = new Set<string>();
  const pj = repo.object('package.json');
  if (!pj.ok) return out;
  const entries: string[] = [];
  const collect = (v: unknown, depth = 0): void => {
    if (depth > 6) return;
    if (typeof v === 'string') entries.push(v);
    else if (Array.isArray(v)) for (const x of v) collect(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x, depth + 1);
  };
  for (const k of ['main', 'module', 'browser', 'exports']) collect(pj.value[k]);
  // Files by path: an entry (or a file it imports) that was not parsed — a multi-MB minified bundle past the parse
  // budget — is still read as text for its relative imports, so the chunks it loads stay part of the surface.
  const queue: string[] = entries.filter((e) => !e.endsWith('.d.ts')).map((e) => posix.normalize(e.replace(/^\.\//, '')));
  while (queue.length && out.size < 5000) {
    const rel = queue.pop()!;
    if (out.has(rel)) continue;
    out.add(rel);
    const sf = sources.files.get(rel);
    const specs = sf ? [...moduleSpecs(sf)] : rawRelativeImports(repo, rel);
    for (const spec of specs) {
      if (!spec.startsWith('.')) continue;
      const next = resolveRelativeModule(rel, spec, sources);
      const target = next ? sources.rel(next) : posix.normalize(posix.join(posix.dirname(rel), spec));
      if (!out.has(target)) queue.push(target);
    }
  }
  return out;
}

/** The relative module specifiers a file's text imports (static, dynamic, re-export, require), read without parsing. */
function rawRelativeImports(repo: RepoFacts, rel: string): string[] {
  if (!/\.[cm]?js$/.test(rel)) return [];
  const r = repo.source(rel, 64 * 1024 * 1024);
  if (!r.ok) return [];
  const out = new Set<string>();
  for (const m of r.text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.\.?\/[^"'\n]{1,300})["']/g)) out.add(m[1]!);
  return [...out];
}

/**
 * The View's code: UI source files (parsed with the rest of the source), the `<script>` blocks of its Svelte and Vue
 * components, and the inline scripts of the built bundles.
 */
export function viewCode(repo: RepoFacts): ViewCodeSet {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = viewMemo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const code: ViewCode[] = [];
  const unread: FileNotRead[] = [];
  const library = librarySurface(repo, sources);
  for (const [file, sf] of sources.files) {
    if (!isViewFile(file, sf)) continue;
    // The package's own library (a chart library that also ships an MCP server) is not the View's code,
    // unless the file is View-shaped by its place or its extension.
    if (library.has(file) && !UI_PLACE.test(file) && !/\.[jt]sx$/.test(file)) continue;
    code.push({ file, lineOffset: 0, sf, bundle: false });
  }
  for (const u of sources.unread) if (!u.file.startsWith('node_modules/') && (/\.[jt]sx$/.test(u.file) || UI_PLACE.test(u.file))) unread.push(u);
  const bundles = builtViewFiles(repo);
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
  // The `<script>` blocks of the View's Svelte and Vue components (View source, parsed apart, with their line in the file).
  for (const file of componentFiles(repo)) {
    const r = repo.source(file, MAX_BUNDLE_BYTES);
    if (!r.ok) {
      unread.push({ file, cause: r.cause, size: r.size, limit: r.limit });
      continue;
    }
    componentScripts(r.text).forEach((s, i) => {
      try {
        const sf = project.createSourceFile(`/${file}.${i}.ts`, s.text, { overwrite: true });
        code.push({ file, lineOffset: s.line - 1, sf, bundle: false });
      } catch (e) {
        unread.push({ file, cause: e instanceof RangeError ? 'too-deep' : 'parse-failed' });
      }
    });
  }
  for (const file of bundles) {
    const r = repo.source(file, MAX_BUNDLE_BYTES);
    if (!r.ok) {
      unread.push({ file, cause: r.cause, size: r.size, limit: r.limit });
      continue;
    }
    inlineScripts(r.text).forEach((s, i) => {
      try {
        const sf = project.createSourceFile(`/${file}.${i}.js`, s.text, { overwrite: true });
        code.push({ file, lineOffset: s.line - 1, sf, bundle: true });
      } catch (e) {
        unread.push({ file, cause: e instanceof RangeError ? 'too-deep' : 'parse-failed' });
      }
    });
  }
  const out = { code, unread, bundles };
  viewMemo.set(repo, out);
  return out;
}

/** The line of a node in the file a piece of View code comes from. */
export const lineIn = (c: ViewCode, n: Node): number => positionOf(n).line + c.lineOffset;
