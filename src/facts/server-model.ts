import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type ObjectLiteralExpression, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { declarationOf, functionOf, initializerOf, rawOriginOf, type ClassNode, type FunctionLikeNode } from './scope.js';
import { inTreeOrder, moduleSpecs, namedFilter, parsedSources, rawOfKinds, wrapNode, positionOf, unwrap, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';
import { argumentAt, dispatchBranches, listedElements, mappedDefinitions, returnedExpressions } from './server-model/returns.js';
import { annotationsOn, delegateOn, delegateOnItem, loopItems, loopVariable, loopVariableItems, onClass, onItem, registeringClasses, shapeFromItem, unreadDocumentLoop, type LoopItem } from './server-model/class-tools.js';
import { bindDocuments } from './data-documents.js';
import { callSpot, forwardedName, forwardedParameter, wrapperCalls } from './server-model/wrappers.js';
import { loopWrapperTools } from './server-model/loop-wrappers.js';
import { booleanAnnotations, composedString, constrainedArguments, patternedArguments, constString, looksLikeAnnotations, methodOf, objectLiteralOf, propertyThroughSpreads, propertyValue } from './server-model/values.js';


/**
 * The server as written in its JavaScript/TypeScript source: the tools, prompts and resources it
 * registers, with their handlers, read syntactically from parsedSources (no type checker, nothing run).
 * Memoised per RepoFacts. Shared by the static detectors that read code (C-2, C-4, C-5, C-15, X-4, X-5…).
 *
 * Patterns recognised (the receiver's name is not checked; `server.server.setRequestHandler` works too):
 *
 *   MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk`)
 *     server.tool(name, [description], [schemaShape], [annotations], handler)   handler(args, extra)
 *       — a single object before the handler is read as annotations when every key is `title` or `*Hint` (and not every value is a call such as `z.string()`),
 *         otherwise as the input shape; without a shape the handler receives no arguments.
 *     server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, handler)
 *     server.prompt(name, [description], [argsSchema], handler)                   handler(args, extra)
 *     server.resource(name, uri | new ResourceTemplate(…), [metadata], handler)   handler(uri, variables, extra)
 *     (a request schema imported from the SDK under a minified bundle's alias, `CallToolRequestSchema as nc`, is read as its name)
 *     server.setRequestHandler(CallToolRequestSchema, handler)   — dispatch on `request.params.name`
 *       (a `switch` with literal cases or `if (name === 'x')`), arguments in `request.params.arguments`;
 *     server.setRequestHandler(ListToolsRequestSchema, handler)  — returns `{ tools: [...] }`, a literal
 *       array (or a const holding one, in the same file or imported by relative path) of
 *       `{ name, description, inputSchema, outputSchema, annotations }` objects (consts followed);
 *     likewise GetPromptRequestSchema / ReadResourceRequestSchema dispatchers.
 *   MCP TypeScript SDK v2 (`@modelcontextprotocol/server`)
 *     registerTool / registerPrompt(name, { argsSchema, … }, handler) / registerResource(name, uriOrTemplate, config, handler),
 *     setRequestHandler('tools/list' | 'tools/call' | 'prompts/get' | 'resources/read', handler) with string method names.
 *   FastMCP for TypeScript (`fastmcp`)
 *     server.addTool({ name, description, parameters, annotations, execute })       execute(args, context)
 *     server.addPrompt({ name, description, arguments, load }), addResource({ uri, name, load }),
 *     addResourceTemplate({ uriTemplate, name, arguments, load })                    load(args)
 *   Tools declared as classes, or registered in a loop (server-model/class-tools)
 *     a registration in a base class's method named `this.name` stands for each class extending it that the
 *     package names and that is not abstract (its fields read on that class, its `execute` taking the arguments);
 *     one named `tool.name` in `for (const tool of LIST)` / `LIST.forEach((tool) => …)` stands for each item of a
 *     list the source writes (object literals, `defineTool({ … })`, spreads, `Object.values(import * as m)`), or the rows
 *     of an endpoint table a client generator writes (`makeApi([{ method, path, alias, description, parameters }])`, the
 *     `endpoints` of `new Zodios(endpoints)`; an input shape the loop builds from `item.parameters` stands for that list;
 *     the rows share the loop's one handler, read once).
 *   Any file
 *     an object literal `{ name: '<literal>', inputSchema: … }` not already read above is a tool definition
 *     (the older tools-in-source finder's rule), attached to a tools/call dispatcher when one exists.
 *
 *   Extension bridges bundled whole (tsup/esbuild inlining the project's workspace packages)
 *     a tools/list handler mapping a list (`tools.map((t) => t.schema)`) whose elements are tool objects, the calls of
 *     a tool factory returning one (`navigate(true)` for `(snapshot) => ({ schema, handle })`), or the list a server
 *     factory is handed (`createServerWithTools({ tools })`, destructured in the parameter or in the body); a listed
 *     definition held with its own handler takes the arguments there.
 *
 * Names, descriptions and titles are read when they are a string literal, a template without
 * substitutions, a concatenation of those, or a `const` holding one in the same file (a path into nested const
 * objects, `TOOL_NAMES.BROWSER.NAVIGATE`, and a zod object schema's literal, `NavigateTool.shape.name.value`, included), a string
 * const exported by a relative module (`import { LIST_TOOL } from './constants.js'`; the place stays where the name is used),
 * or tsc's CommonJS form of an exported const read in its own file (`exports.TOOL_NAMES.PROJECTS`). A name a factory
 * composes (a template or `+` of string constants and one parameter's values: `\`${opts.prefix}_search\`` in a wrapper
 * called with `{ prefix: 'acme_users' }` — a spread const included —, `\`report_${ep.name}\`` over a written list,
 * `\`list_${resource}\`` in a factory whose calls a tools/list array holds) is read at each call (composedString), and
 * the tool is placed at the value the call passes. Otherwise the name
 * is the expression's text and `nameIsLiteral` is false. Config objects and handlers given as identifiers
 * are followed to a local `const`/function or a relative import. Which files are read is decided by
 * facts/published: generated output (dist, build, out) is left out only when the source it is compiled from is
 * present; a wrapper's dependency that registers the tools is read under `node_modules/<name>/`.
 */
export { calleeReturns, returnedExpressions, dispatchBranches, factoryObject } from './server-model/returns.js';
export { constString, listElements, objectLiteralOf, passedToParameter, propertyValue, schemaPropertyNames, schemaOutline, regexSource, patternSafety, constrainedArguments } from './server-model/values.js';

export type EntryKind = 'tool' | 'prompt' | 'resource';
export type Flavour = 'sdk-v1' | 'sdk-v2' | 'fastmcp' | 'unknown';
export type RegistrationApi =
  | 'registerTool'
  | 'tool'
  | 'addTool'
  | 'tools/list'
  | 'definition'
  | 'registerPrompt'
  | 'prompt'
  | 'addPrompt'
  | 'prompts/list'
  | 'registerResource'
  | 'resource'
  | 'addResource'
  | 'addResourceTemplate'
  | 'resources/list';

export interface SourceSpot {
  /** Path relative to the audited root, forward slashes. */
  file: string;
  /** 1-based line and column of the registration (the call, or the definition object). */
  line: number;
  column: number;
}

/** What every registered tool, prompt and resource has. */
export interface Registered extends SourceSpot {
  name: string;
  /** False when the name is not a literal or a same-file constant; `name` is then the expression's text. */
  nameIsLiteral: boolean;
  /** 1-based line where the name's literal is written (the constant's initializer when the name is a constant). */
  nameLine: number;
  api: RegistrationApi;
  flavour: Flavour;
  title?: string;
  description?: string;
  descriptionNode?: Node;
  /** The registration call, or the definition object literal. */
  node: Node;
  /** The function that runs it: the handler / execute / load callback, or the low-level dispatcher. */
  handler?: FunctionLikeNode;
  /** Low-level API: the `case` clause or `if` statement of the dispatcher that handles this name. */
  branch?: Node;
}

export interface ToolDef extends Registered {
  inputSchema?: Node;
  outputSchema?: Node;
  /** Literal boolean annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint…). */
  annotations?: Record<string, boolean>;
  annotationsNode?: Node;
  /**
   * The object literal the definition was read from: registerTool's config, addTool's object, a listed or
   * free-standing definition. Absent for the v1 positional `tool(...)` form (which has no such object) and
   * when the config is a value the static reading cannot follow. Detectors read `_meta` from it.
   */
  config?: ObjectLiteralExpression;
  /**
   * A tool declared as a class (server-model/class-tools): the class whose fields the registration's `this.…`
   * values are read on, and the class's method its handler delegates to (where the arguments go), if found.
   */
  self?: ClassNode;
  implementation?: FunctionLikeNode;
  /** A tool registered in a loop over a written list: the loop's variable and the item it holds for this tool. */
  item?: LoopItem;
  /** Read at a call of a local wrapper (server-model/wrappers): `node` is the wrapper's own registration, shared by its tools. */
  wrapped?: boolean;
  /** A definition held with its own handler (`{ schema: { name, inputSchema }, handle(tab, params) }`): the handler's parameter that takes the arguments. */
  argsParam?: number;
  /**
   * ext-apps' `registerAppTool(server, name, config, handler)`, read as registerTool: the registration's arguments
   * start after the server (1). Read them through registrationArgs().
   */
  argOffset?: number;
}

/** The registration call's arguments as registerTool/tool take them (name first): registerAppTool's server left out. */
export function registrationArgs(t: { node: Node; argOffset?: number }): Node[] {
  return Node.isCallExpression(t.node) ? t.node.getArguments().slice(t.argOffset ?? 0) : [];
}

export interface PromptDef extends Registered {
  argsSchema?: Node;
}

export interface ResourceDef extends Registered {
  /** The URI (static resource) or URI template, when literal. */
  uri?: string;
  template: boolean;
}

export interface RequestHandlerDef extends SourceSpot {
  /** 'tools/call', 'tools/list'…, or the schema identifier's text when it is not a known one. */
  method: string;
  flavour: Flavour;
  node: CallExpression;
  handler?: FunctionLikeNode;
}

/** Where client-controlled values enter a handler: parameter `param`, at property path `path` ([] = the whole parameter). */
export interface EntryInput {
  param: number;
  path: string[];
}

/** One function that receives client-controlled values: what facts/flow starts from. */
export interface HandlerEntry extends SourceSpot {
  kind: EntryKind;
  /** The tool/prompt/resource name, or the method ('tools/call') for a dispatcher. */
  name: string;
  fn: FunctionLikeNode;
  inputs: EntryInput[];
  /** Top-level argument names the input schema restricts to non-text values (enum, literal, number, boolean), for SDK-validated handlers. */
  constrained: string[];
  /** Top-level argument names the input schema holds to an anchored pattern (for argument arrays, facts/flow/argv.ts). */
  patterned?: string[];
  /** A low-level dispatcher: each branch handles the named tool/prompt. */
  branches?: { name: string; node: Node }[];
  /** The tool's name is computed (`server.tool(tool.name, …)` in a loop over a list): the flows name the tool by the list entry they go through. */
  nameComputed?: boolean;
}

/** A registration call whose tool the reading could not follow (`server.addTool(tool)` over a list built at run time). */
export interface UnreadRegistration extends SourceSpot {
  /** The call's text, shortened. */
  expression: string;
}

export interface ServerModel {
  /** Source files read (relative), after generated folders are left out. */
  files: string[];
  /** SDK flavours imported anywhere in those files. */
  flavours: Flavour[];
  tools: ToolDef[];
  /** Registrations (or wrapper calls) whose tools could not be read: tools the server serves that `tools` does not hold. */
  unread: UnreadRegistration[];
  prompts: PromptDef[];
  resources: ResourceDef[];
  requestHandlers: RequestHandlerDef[];
  entries: HandlerEntry[];
}

/* ------------------------------------------------------------------ helpers */

/**
 * The files the model reads: the parsed sources minus generated output whose source is present, with the
 * dependencies a wrapper package registers its tools in (facts/published decides, when the sources are parsed).
 */
const modelFilesMemo = new WeakMap<ParsedSources, [string, SourceFile][]>();
export function modelFiles(parsed: ParsedSources): [string, SourceFile][] {
  const hit = modelFilesMemo.get(parsed);
  if (hit) return hit;
  const out = parsed.model.map((f) => [f, parsed.files.get(f)!] as [string, SourceFile]).filter(([, sf]) => sf);
  modelFilesMemo.set(parsed, out);
  return out;
}

const flavourMemo = new WeakMap<SourceFile, Flavour>();
function flavourOf(sf: SourceFile): Flavour {
  let f = flavourMemo.get(sf);
  if (!f) flavourMemo.set(sf, (f = flavourUncached(sf)));
  return f;
}
function flavourUncached(sf: SourceFile): Flavour {
  const specs = [...moduleSpecs(sf)];
  if (specs.some((s) => s === 'fastmcp' || s.startsWith('fastmcp/'))) return 'fastmcp';
  if (specs.some((s) => s.startsWith('@modelcontextprotocol/sdk'))) return 'sdk-v1';
  if (specs.some((s) => /^@modelcontextprotocol\/(?:server|core|node|express|hono)(?:\/|$)/.test(s))) return 'sdk-v2';
  return 'unknown';
}

/** Python files of the repository's own (tests, fixtures, virtualenvs and caches left out), without parsing. */
const PY_SKIPPED = /(?:^|\/)(?:test|tests|__tests__|testing|fixtures|__fixtures__|\.?venv[\w.-]*|site-packages|dist-packages|__pycache__|\.tox|\.nox)\//;
const hasOwnPython = (repo: RepoFacts): boolean =>
  repo.files.some((f) => f.endsWith('.py') && !PY_SKIPPED.test(f) && !/(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/.test(f));

/**
 * Why a rule that reads JavaScript/TypeScript handlers cannot judge a repository, if it cannot:
 *   'no-js-source'       no JS/TS source, but Python source: the Python part of the rule judges it (a JS/TS
 *                        detector then answers not-applicable);
 *   'no-source'          no source at all (could-not-judge);
 *   'no-tools-in-source' JS/TS source, but no handler (tool, prompt, resource template, dispatcher) in it
 *                        (could-not-judge).
 */
export function sourceGap(repo: RepoFacts): 'no-source' | 'no-js-source' | 'no-tools-in-source' | undefined {
  const model = serverModel(repo);
  if (model.files.length === 0) return hasOwnPython(repo) ? 'no-js-source' : 'no-source';
  if (model.entries.length === 0) return 'no-tools-in-source';
  return undefined;
}

/* ------------------------------------------------------------ the builder */

const memo = new WeakMap<RepoFacts, ServerModel>();

export function serverModel(repo: RepoFacts): ServerModel {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  bindDocuments(sources, repo); // lists read from the package's JSON documents (facts/data-documents)
  const model = build(sources);
  memo.set(repo, model);
  return model;
}

interface NameInfo {
  name: string;
  nameIsLiteral: boolean;
  nameLine: number;
}

function nameInfo(node: Node | undefined, fallbackLine: number): NameInfo | undefined {
  if (!node) return undefined;
  const s = constString(node);
  if (s) return { name: s.value, nameIsLiteral: true, nameLine: positionOf(s.literal).line };
  return { name: unwrap(node).getText(), nameIsLiteral: false, nameLine: fallbackLine };
}

const REGISTRATION_METHODS = new Set([
  'registerTool', 'tool', 'addTool', 'registerPrompt', 'prompt', 'addPrompt',
  'registerResource', 'resource', 'addResource', 'addResourceTemplate', 'setRequestHandler',
]);

/** Raw pre-filters of build(): registration calls, and members named inputSchema of an object literal. */
const REGISTRATION_CALL = namedFilter(
  [...REGISTRATION_METHODS, 'registerAppTool'],
  (cn) => ts.isCallExpression(cn) && ((ts.isPropertyAccessExpression(cn.expression) && REGISTRATION_METHODS.has(cn.expression.name.text)) || (ts.isIdentifier(cn.expression) && cn.expression.text === 'registerAppTool')),
);
/** `registerAppTool` imported from @modelcontextprotocol/ext-apps (its /server entry, or a re-export of the package). */
function isAppToolCall(node: CallExpression): boolean {
  const o = rawOriginOf(node.getExpression().compilerNode);
  return !!o && o.module.startsWith('@modelcontextprotocol/ext-apps') && o.path[0] === 'registerAppTool';
}
const INPUT_SCHEMA_MEMBER_KINDS = afterLoad(() => [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment, SyntaxKind.MethodDeclaration, SyntaxKind.GetAccessor, SyntaxKind.SetAccessor]);
const INPUT_SCHEMA_MEMBER = namedFilter(
  ['inputSchema'],
  (cn) => {
    const name = (cn as ts.ObjectLiteralElementLike).name;
    return ts.isObjectLiteralExpression(cn.parent) && name !== undefined && ts.isIdentifier(name) && name.text === 'inputSchema';
  },
);

function build(sources: ParsedSources): ServerModel {
  const files = modelFiles(sources);
  const flavours = new Set<Flavour>();
  const tools: ToolDef[] = [];
  const prompts: PromptDef[] = [];
  const resources: ResourceDef[] = [];
  const requestHandlers: RequestHandlerDef[] = [];
  const usedObjects = new Set<Node>();

  const unread: UnreadRegistration[] = [];
  const forwardedAdds: { node: CallExpression; arg: Node; file: string; flavour: Flavour }[] = [];
  const spotOf = (file: string, node: Node): SourceSpot => ({ file, ...positionOf(node) });
  const fnOf = (n: Node | undefined): FunctionLikeNode | undefined => (n ? functionOf(n, sources) : undefined);

  for (const [file, sf] of files) {
    const flavour = flavourOf(sf);
    if (flavour !== 'unknown') flavours.add(flavour);
    const calls = inTreeOrder(rawOfKinds(sf, [SyntaxKind.CallExpression], REGISTRATION_CALL)).map((cn) => wrapNode(sf, cn));
    for (const node of calls) {
      if (!Node.isCallExpression(node)) continue;
      const callee = unwrap(node.getExpression());
      // registerAppTool(server, name, config, handler) of ext-apps: registerTool with the server in front.
      const appTool = Node.isIdentifier(callee) && isAppToolCall(node);
      if (!Node.isPropertyAccessExpression(callee) && !appTool) continue;
      const method = appTool ? 'registerTool' : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
      const args = appTool ? node.getArguments().slice(1) : node.getArguments();
      const at = spotOf(file, node);
      const base = { ...at, flavour, node, ...(appTool ? { argOffset: 1 } : {}) };
      switch (method) {
        case 'registerTool': {
          if (args.length < 2) continue;
          const ni = nameInfo(args[0], at.line)!;
          const cfg = objectLiteralOf(args[1], sources);
          if (cfg) usedObjects.add(cfg);
          // registerTool(def.name, …): the definition object is this tool, not another one.
          const named = unwrap(args[0]!);
          const def = ni.nameIsLiteral && Node.isPropertyAccessExpression(named) ? objectLiteralOf(named.getExpression(), sources) : undefined;
          if (def) usedObjects.add(def);
          const desc = constString(propertyValue(cfg, 'description'));
          const ann = objectLiteralOf(propertyValue(cfg, 'annotations'), sources);
          tools.push({
            ...base,
            ...ni,
            api: 'registerTool',
            title: constString(propertyValue(cfg, 'title'))?.value,
            description: desc?.value,
            descriptionNode: propertyValue(cfg, 'description'),
            inputSchema: propertyValue(cfg, 'inputSchema'),
            outputSchema: propertyValue(cfg, 'outputSchema'),
            annotations: booleanAnnotations(ann),
            annotationsNode: propertyValue(cfg, 'annotations'),
            handler: fnOf(args[2] ?? args[args.length - 1]),
            config: cfg,
          });
          continue;
        }
        case 'tool': {
          if (args.length < 2) continue;
          const handler = fnOf(args[args.length - 1]);
          const named = constString(args[0]);
          // A registration in a loop over a written list may pass the item's handler (`tool.handler`).
          const looped = !handler && !named && args.length > 2 && !!loopItems(args[0]!, sources);
          if (!handler && !named && !looped) {
            // `server.tool(e.toolName, …, handlerFor(e))` over a data document whose rows could not be read: the tools it serves are not read.
            const doc = args.length > 2 ? unreadDocumentLoop(args[0]!, sources) : undefined;
            if (doc) unread.push({ ...(doc.file ? { file: doc.file, line: 1, column: 1 } : at), expression: shortText(args[0]!) });
            // `server.tool(name, description, schema, handler)` in a helper whose name and handler are values built at
            // run time (its parameters, fed from a list fetched from an API): a registration the reading cannot follow.
            else if (args.length > 2) unread.push({ ...at, expression: callSpot(file, node).expression });
            continue;
          }
          const ni = nameInfo(args[0], at.line)!;
          const middle = args.slice(1, handler || looped ? -1 : args.length);
          let description: Node | undefined;
          // A description with a fallback (`e.description ?? ''`) too: not the input shape.
          if (middle[0] && (constString(middle[0]) || (Node.isBinaryExpression(unwrap(middle[0])) && textLike(middle[0])))) description = middle.shift();
          let inputSchema: Node | undefined;
          let annotationsNode: Node | undefined;
          if (middle.length === 1 && looksLikeAnnotations(objectLiteralOf(middle[0], sources))) annotationsNode = middle[0];
          else {
            inputSchema = middle[0];
            annotationsNode = middle[1];
          }
          tools.push({
            ...base,
            ...ni,
            api: 'tool',
            description: constString(description)?.value,
            descriptionNode: description,
            inputSchema,
            annotations: booleanAnnotations(objectLiteralOf(annotationsNode, sources)),
            annotationsNode,
            handler,
          });
          continue;
        }
        case 'addTool': {
          const obj = objectLiteralOf(args[0], sources);
          if (!obj || !propertyValue(obj, 'name')) {
            // `server.addTool(tool)`: a wrapper's parameter or a loop's variable, read at the wrapper's calls or
            // on the loop's list below; anything else is a registration the reading could not follow.
            if (args[0] && !Node.isObjectLiteralExpression(unwrap(args[0]))) forwardedAdds.push({ node, arg: args[0], file, flavour });
            continue;
          }
          usedObjects.add(obj);
          tools.push(addToolDef(obj, { ...base }, sources));
          continue;
        }
        case 'registerPrompt': {
          if (args.length < 2) continue;
          const cfg = objectLiteralOf(args[1], sources);
          prompts.push({
            ...base,
            ...nameInfo(args[0], at.line)!,
            api: 'registerPrompt',
            title: constString(propertyValue(cfg, 'title'))?.value,
            description: constString(propertyValue(cfg, 'description'))?.value,
            descriptionNode: propertyValue(cfg, 'description'),
            argsSchema: propertyValue(cfg, 'argsSchema'),
            handler: fnOf(args[2] ?? args[args.length - 1]),
          });
          continue;
        }
        case 'prompt': {
          if (args.length < 2) continue;
          const handler = fnOf(args[args.length - 1]);
          if (!handler || !constString(args[0])) continue;
          const middle = args.slice(1, -1);
          let description: Node | undefined;
          if (middle[0] && constString(middle[0])) description = middle.shift();
          prompts.push({
            ...base,
            ...nameInfo(args[0], at.line)!,
            api: 'prompt',
            description: constString(description)?.value,
            descriptionNode: description,
            argsSchema: middle[0],
            handler,
          });
          continue;
        }
        case 'addPrompt': {
          const obj = objectLiteralOf(args[0], sources);
          if (!obj || !propertyValue(obj, 'name')) continue;
          prompts.push({
            ...base,
            ...nameInfo(propertyValue(obj, 'name'), at.line)!,
            api: 'addPrompt',
            flavour: flavour === 'unknown' ? 'fastmcp' : flavour,
            description: constString(propertyValue(obj, 'description'))?.value,
            descriptionNode: propertyValue(obj, 'description'),
            argsSchema: propertyValue(obj, 'arguments'),
            handler: fnOf(propertyValue(obj, 'load')),
          });
          continue;
        }
        case 'registerResource':
        case 'resource': {
          if (args.length < 3) continue;
          const handler = fnOf(args[args.length - 1]);
          if (!handler) continue;
          const target = unwrap(args[1]!);
          const uri = constString(target)?.value;
          const template = uri === undefined && isTemplate(target);
          const cfg = args.length >= 4 ? objectLiteralOf(args[2], sources) : undefined;
          resources.push({
            ...base,
            ...nameInfo(args[0], at.line)!,
            api: method,
            uri: uri ?? templateUri(target),
            template,
            title: constString(propertyValue(cfg, 'title'))?.value,
            description: constString(propertyValue(cfg, 'description'))?.value,
            descriptionNode: propertyValue(cfg, 'description'),
            handler,
          });
          continue;
        }
        case 'addResource':
        case 'addResourceTemplate': {
          const obj = objectLiteralOf(args[0], sources);
          if (!obj) continue;
          const template = method === 'addResourceTemplate';
          const uriNode = propertyValue(obj, template ? 'uriTemplate' : 'uri');
          resources.push({
            ...base,
            ...(nameInfo(propertyValue(obj, 'name') ?? uriNode, at.line) ?? { name: '', nameIsLiteral: false, nameLine: at.line }),
            api: method,
            flavour: flavour === 'unknown' ? 'fastmcp' : flavour,
            uri: constString(uriNode)?.value,
            template,
            description: constString(propertyValue(obj, 'description'))?.value,
            descriptionNode: propertyValue(obj, 'description'),
            handler: fnOf(propertyValue(obj, 'load')),
          });
          continue;
        }
        case 'setRequestHandler': {
          if (args.length < 2) continue;
          const m = methodOf(args[0]);
          if (!m) continue;
          requestHandlers.push({ ...at, method: m, flavour, node, handler: fnOf(args[args.length - 1]) });
          continue;
        }
      }
    }
  }

  // Tools declared as classes: a base class's `registerTool(this.name, …)` stands for each class extending it;
  // tools registered in a loop: `registerTool(tool.name, …)` stands for each item of the list.
  for (let i = tools.length - 1; i >= 0; i--) {
    const t = tools[i]!;
    if (t.nameIsLiteral || (t.api !== 'registerTool' && t.api !== 'tool') || !Node.isCallExpression(t.node)) continue;
    const nameArg = registrationArgs(t)[0];
    if (!nameArg) continue;
    const classes = registeringClasses(t.node, nameArg, files, sources);
    if (classes) {
      tools.splice(i, 1, ...classes.map((cls) => expandedTool(t, nameArg, (n) => onClass(n, cls, sources), sources, cls)));
      continue;
    }
    // Tools registered in a loop over a list the source writes: `for (const tool of TOOLS) server.registerTool(tool.name, …)`.
    // Two registrations in one loop (`if (tool.annotations) … else …`) are alternatives per item: left as written.
    const variable = loopVariable(nameArg);
    const sameLoop = variable ? tools.filter((o) => o.node !== t.node && registrationArgs(o)[0] && loopVariable(registrationArgs(o)[0]!) === variable).length : 0;
    const items = sameLoop ? undefined : loopItems(nameArg, sources);
    if (items) {
      for (const it of items) usedObjects.add(it.obj);
      const expanded = items.map((it) => expandedTool(t, nameArg, (n) => onItem(n, it), sources, undefined, it));
      // Rows of a data document whose name field is not a string (missing, computed): the tools they make are not read.
      const kept = expanded.filter((x) => x.nameIsLiteral || (!x.item?.document && !x.item?.table));
      for (const x of expanded) if (!kept.includes(x)) unread.push({ file: x.file, line: x.line, column: x.column, expression: shortText(nameArg) });
      tools.splice(i, 1, ...kept);
      continue;
    }
    // A data document that cannot be read (not shipped, a path known at run time): the registration stays one tool
    // with a computed name, its handler judged as written (rules that need the names say so).
  }

  // Tools registered through a local wrapper (server-model/wrappers), and `server.addTool(tool)` over a loop's list.
  readWrapped(tools, forwardedAdds, unread, files, sources, usedObjects);
  readLoopWrappers(tools, unread, files, sources, usedObjects);

  // Low-level lists: the literal arrays returned by tools/list, prompts/list, resources/list handlers.
  for (const rh of requestHandlers) {
    if (!rh.handler) continue;
    const listKey = rh.method === 'tools/list' ? 'tools' : rh.method === 'prompts/list' ? 'prompts' : rh.method === 'resources/list' ? 'resources' : undefined;
    if (!listKey) continue;
    for (const el of listedElements(rh.handler, listKey, sources)) {
      const obj = el.obj;
      // A factory's object whose name is the factory's parameter makes one tool per call, read at the call.
      const rawName = propertyValue(obj, 'name') ?? propertyValue(obj, 'uri');
      const named = argumentAt(el, rawName);
      // A name the factory composes from its parameters (`\`list_${resource}\``): read at each call too.
      const atCall = (n: Node): Node | undefined => argumentAt(el, n).node;
      const composedName = !named.fromCall && el.call && rawName && !constString(rawName) ? composedString(rawName, atCall) : undefined;
      const key: Node = named.fromCall || composedName ? el.call! : obj;
      if (usedObjects.has(key)) continue;
      usedObjects.add(key);
      usedObjects.add(obj);
      const at = spotOf(sources.rel(key.getSourceFile()), key);
      const ni = composedName ? { name: composedName.value, nameIsLiteral: true, nameLine: positionOf(composedName.literal).line } : nameInfo(named.node, at.line);
      if (!ni) continue;
      const value = (k: string): Node | undefined => argumentAt(el, propertyValue(obj, k)).node;
      const text = (k: string): string | undefined => constString(value(k))?.value ?? (el.call ? composedString(value(k), atCall)?.value : undefined);
      const base = { ...at, ...ni, flavour: rh.flavour, node: obj as Node, title: text('title') };
      const description = text('description');
      const descriptionNode = value('description');
      if (listKey === 'tools') {
        // A definition listed with its own handler (`{ schema: { name, inputSchema }, handle(context, params) }`, a tool
        // factory's object): the handler takes the arguments, as for a definition found anywhere.
        const own = definitionHandler(obj, sources);
        tools.push({
          ...base,
          ...(own ? { handler: own.fn, argsParam: own.param } : {}),
          api: 'tools/list',
          description,
          descriptionNode,
          inputSchema: value('inputSchema'),
          outputSchema: value('outputSchema'),
          annotations: booleanAnnotations(objectLiteralOf(value('annotations'), sources)),
          annotationsNode: value('annotations'),
          config: obj,
        });
      } else if (listKey === 'prompts') {
        prompts.push({ ...base, api: 'prompts/list', description, descriptionNode, argsSchema: value('arguments') });
      } else {
        resources.push({ ...base, api: 'resources/list', description, descriptionNode, uri: constString(value('uri'))?.value, template: false });
      }
    }
  }

  // Low-level lists built from a table: `tools: TOOLS.map((t) => ({ name: t.name, inputSchema: zodToJsonSchema(t.schema) }))`.
  for (const rh of requestHandlers) {
    if (!rh.handler || rh.method !== 'tools/list') continue;
    for (const m of mappedDefinitions(rh.handler, sources)) {
      if (usedObjects.has(m.element)) continue;
      const read = (key: string) => m.read(key);
      const nameNode = read('name');
      const s = nameNode && constString(nameNode);
      if (!s || s.value === '') continue;
      usedObjects.add(m.element);
      const file = sources.rel(m.element.getSourceFile());
      const at = spotOf(file, m.element);
      tools.push({
        ...at,
        name: s.value,
        nameIsLiteral: true,
        nameLine: positionOf(s.literal).line,
        api: 'tools/list',
        flavour: rh.flavour,
        node: m.element,
        ...definitionKeys(read, sources),
        config: m.element,
      });
    }
  }

  // Tool definitions anywhere: `{ name: '<literal>', inputSchema: … }`.
  for (const [file, sf] of files) {
    const flavour = flavourOf(sf);
    // Object literals with an `inputSchema` member, found through the members (indexed by name).
    const holders = new Set(rawOfKinds(sf, INPUT_SCHEMA_MEMBER_KINDS(), INPUT_SCHEMA_MEMBER).map((m) => m.parent));
    const objects = inTreeOrder([...holders]).map((cn) => wrapNode(sf, cn));
    for (const node of objects) {
      if (!Node.isObjectLiteralExpression(node) || usedObjects.has(node)) continue;
      if (!propertyValue(node, 'inputSchema')) continue;
      const nameNode = propertyValue(node, 'name');
      const s = nameNode && constString(nameNode);
      if (!s || s.value === '') continue;
      usedObjects.add(node);
      const at = spotOf(file, node);
      const own = definitionHandler(node, sources);
      tools.push({
        ...at,
        ...(own ? { handler: own.fn, argsParam: own.param } : {}),
        name: s.value,
        nameIsLiteral: true,
        nameLine: positionOf(s.literal).line,
        api: 'definition',
        flavour,
        node,
        title: constString(propertyValue(node, 'title'))?.value,
        description: constString(propertyValue(node, 'description'))?.value,
        descriptionNode: propertyValue(node, 'description'),
        inputSchema: propertyValue(node, 'inputSchema'),
        outputSchema: propertyValue(node, 'outputSchema'),
        annotations: booleanAnnotations(objectLiteralOf(propertyValue(node, 'annotations'), sources)),
        annotationsNode: propertyValue(node, 'annotations'),
        config: node,
      });
    }
  }

  // Dispatchers: attach their branches to the listed tools and prompts.
  const entries: HandlerEntry[] = [];
  const dispatchers = requestHandlers.filter((r) => r.handler && ['tools/call', 'prompts/get', 'resources/read'].includes(r.method));
  for (const d of dispatchers) {
    const kind: EntryKind = d.method === 'tools/call' ? 'tool' : d.method === 'prompts/get' ? 'prompt' : 'resource';
    const branches = kind === 'resource' ? [] : dispatchBranches(d.handler!);
    const defs: Registered[] = kind === 'tool' ? tools : kind === 'prompt' ? prompts : resources;
    for (const def of defs) {
      if (def.handler || !['tools/list', 'definition', 'prompts/list', 'resources/list'].includes(def.api)) continue;
      def.handler = d.handler;
      def.branch = branches.find((b) => b.name === def.name)?.node;
    }
    entries.push({
      file: d.file,
      line: d.line,
      column: d.column,
      kind,
      name: d.method,
      fn: d.handler!,
      inputs: [{ param: 0, path: ['params', kind === 'resource' ? 'uri' : 'arguments'] }],
      constrained: [],
      branches,
    });
  }

  // High-level handlers. The rows of a data document that share one handler make one entry (the handler is
  // read once, not once per row), at the registration, named by the name expression (`endpoint.toolName`).
  const sharedHandlers = new Set<Node>();
  for (const t of tools) {
    if (!t.handler || !['registerTool', 'tool', 'addTool'].includes(t.api)) continue;
    const hasArgs = t.api === 'addTool' || t.inputSchema !== undefined;
    const entry = entryOf(t, 'tool', hasArgs ? [{ param: 0, path: [] }] : [], constrainedArguments(t.inputSchema, sources));
    const fn = t.implementation ?? entry.fn;
    if ((t.item?.document || t.item?.table) && Node.isCallExpression(t.node)) {
      if (sharedHandlers.has(fn)) continue;
      sharedHandlers.add(fn);
      const nameArg = registrationArgs(t)[0]!;
      entries.push({ ...entry, ...spotOf(sources.rel(t.node.getSourceFile()), t.node), name: unwrap(nameArg).getText(), nameComputed: true, fn, patterned: patternedArguments(t.inputSchema, sources) });
      continue;
    }
    entries.push({ ...entry, fn, patterned: patternedArguments(t.inputSchema, sources) });
  }
  // Definitions held with their own handler (`defineTool({ schema: { name, inputSchema }, handle: async (ctx, params) => … })`).
  for (const t of tools) {
    if ((t.api !== 'definition' && t.api !== 'tools/list') || !t.handler || t.argsParam === undefined) continue;
    const entry = entryOf(t, 'tool', [{ param: t.argsParam, path: [] }], constrainedArguments(t.inputSchema, sources));
    entries.push({ ...entry, patterned: patternedArguments(t.inputSchema, sources) });
  }
  for (const p of prompts) {
    if (!p.handler || !['registerPrompt', 'prompt', 'addPrompt'].includes(p.api)) continue;
    const hasArgs = p.api === 'addPrompt' || p.argsSchema !== undefined;
    entries.push(entryOf(p, 'prompt', hasArgs ? [{ param: 0, path: [] }] : [], p.api === 'addPrompt' ? [] : constrainedArguments(p.argsSchema, sources)));
  }
  for (const r of resources) {
    if (!r.handler || !r.template || !['registerResource', 'resource', 'addResourceTemplate'].includes(r.api)) continue;
    const inputs = r.api === 'addResourceTemplate' ? [{ param: 0, path: [] }] : [{ param: 0, path: [] }, { param: 1, path: [] }];
    entries.push(entryOf(r, 'resource', inputs, []));
  }

  // A file without an SDK import (tools split across modules) takes the repository's flavour when there is one.
  if (flavours.size === 1) {
    const only = [...flavours][0]!;
    for (const d of [...tools, ...prompts, ...resources, ...requestHandlers]) if (d.flavour === 'unknown') d.flavour = only;
  }

  const byPos = <T extends SourceSpot>(a: T, b: T): number => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column);
  tools.sort(byPos);
  prompts.sort(byPos);
  resources.sort(byPos);
  requestHandlers.sort(byPos);
  entries.sort(byPos);
  unread.sort(byPos);
  return {
    files: files.map(([f]) => f),
    flavours: [...flavours].sort(),
    tools,
    unread,
    prompts,
    resources,
    requestHandlers,
    entries,
  };
}

/**
 * One tool a registration written once stands for (server-model/class-tools): a class's, reading `this.<field>`
 * on that class, or a listed item's, reading `item.<key>` on that item. `on` says what a value stands for there.
 */
function expandedTool(t: ToolDef, nameArg: Node, on: (n: Node | undefined) => Node | undefined, sources: ParsedSources, cls?: ClassNode, item?: LoopItem): ToolDef {
  // A tool kept under a key of an object map (`for (const [name, tool] of Object.entries(MAP))`): named by its key, at the property.
  const keyed = item?.key && Node.isIdentifier(unwrap(nameArg)) && unwrap(nameArg).getText() === item.key.param ? item.key : undefined;
  const nameNode = keyed ? keyed.node : (on(nameArg) ?? nameArg);
  // A name composed from the item's or the call's values (`\`${opts.prefix}_search\``): placed at the value it takes there.
  const composed = keyed ? undefined : constString(nameNode) ? undefined : composedString(nameNode, on);
  const name = keyed ? { value: keyed.name, literal: keyed.node } : (composed ?? constString(nameNode));
  const placed = composed && composed.literal !== unwrap(nameNode) ? composed.literal : nameNode;
  const at = { file: sources.rel(placed.getSourceFile()), ...positionOf(placed) };
  // The positional v1 form is read again on the item or class: which middle argument is which depends on their values.
  let { descriptionNode, inputSchema, annotationsNode } = t;
  let outputSchema = t.outputSchema;
  let config = t.config;
  // registerTool(name, config, handler) whose whole config is the item's (`for (const { name, config, handler } of
  // tools)`): its keys are read on the item's config object.
  if (t.api === 'registerTool' && !t.config && Node.isCallExpression(t.node)) {
    const cfg = objectLiteralOf(on(registrationArgs(t)[1]), sources);
    if (cfg) {
      config = cfg;
      [descriptionNode, inputSchema, annotationsNode, outputSchema] = [propertyValue(cfg, 'description'), propertyValue(cfg, 'inputSchema'), propertyValue(cfg, 'annotations'), propertyValue(cfg, 'outputSchema')];
    }
  }
  if (t.api === 'tool' && Node.isCallExpression(t.node)) {
    const written = t.node.getArguments().slice(1, -1);
    const middle = written.map((a) => on(a) ?? a);
    // The description is a string: a literal, or a text the item holds (`tool.description`, a template) — never an object.
    const first = middle[0] && unwrap(middle[0]);
    const isText = !!first && (textLike(first) || textLike(written[0]!));
    descriptionNode = isText ? middle.shift() : undefined;
    if (middle.length === 1 && looksLikeAnnotations(objectLiteralOf(middle[0], sources))) [inputSchema, annotationsNode] = [undefined, middle[0]];
    else [inputSchema, annotationsNode] = [middle[0], middle[1]];
  }
  const ann = cls ? annotationsOn(annotationsNode, cls, sources) : { obj: objectLiteralOf(on(annotationsNode), sources), node: on(annotationsNode), hints: undefined };
  const description = on(descriptionNode);
  const titleNode = config ? on(propertyValue(config, 'title')) : undefined;
  const handlerNode = item && Node.isCallExpression(t.node) ? on(t.node.getArguments()[t.node.getArguments().length - 1]) : undefined;
  const itemHandler = handlerNode && (functionOf(handlerNode, sources) ?? madeFunction(handlerNode, sources));
  return {
    ...t,
    ...at,
    name: name?.value ?? unwrap(nameNode).getText(),
    nameIsLiteral: !!name,
    nameLine: name ? positionOf(name.literal).line : at.line,
    title: t.title ?? (constString(titleNode) ?? composedString(titleNode, on))?.value,
    description: (constString(description) ?? composedString(description, on))?.value,
    descriptionNode: description,
    // An input shape the loop builds from the row's parameter list (a generated endpoint table's `parameters`): that list.
    inputSchema: (item && shapeFromItem(on(inputSchema), item)) ?? on(inputSchema),
    outputSchema: on(outputSchema),
    ...(config ? { config } : {}),
    annotations: ann.hints ?? booleanAnnotations(ann.obj) ?? t.annotations,
    annotationsNode: ann.obj ?? ann.node,
    ...(cls ? { self: cls, implementation: delegateOn(t.handler, cls, sources) } : {}),
    ...(item ? { item, handler: itemHandler ?? t.handler, implementation: delegateOnItem(t.handler, item, sources) } : {}),
  };
}

/**
 * A positional description of v1 `tool(name, description, …)`: a string literal, a template, a concatenation, an item's
 * `.description`, or one of those with a fallback (`item.description ?? `${item.method} ${item.path}``, `d || ''`) —
 * never an object (the input shape or the annotations that follow it).
 */
function textLike(x: Node): boolean {
  const u = unwrap(x);
  if (constString(u) || Node.isTemplateExpression(u) || /\.description$/.test(u.getText())) return true;
  if (!Node.isBinaryExpression(u)) return false;
  const op = u.getOperatorToken().getKind();
  return op === SyntaxKind.PlusToken || ((op === SyntaxKind.QuestionQuestionToken || op === SyntaxKind.BarBarToken) && (textLike(u.getLeft()) || textLike(u.getRight())));
}

/** The function a factory call makes: `handlerFor(endpoint)` / `this.makeHandler(e)` whose body returns a function. */
function madeFunction(n: Node, sources: ParsedSources): FunctionLikeNode | undefined {
  const u = unwrap(n);
  if (!Node.isCallExpression(u)) return undefined;
  const factory = functionOf(u.getExpression(), sources);
  if (!factory) return undefined;
  for (const r of returnedExpressions(factory)) {
    const f = functionOf(r, sources);
    if (f) return f;
  }
  return undefined;
}

/** A node's text on one line, shortened (what an unread registration shows). */
function shortText(n: Node): string {
  const t = unwrap(n).getText().replace(/\s+/g, ' ');
  return t.length > 80 ? t.slice(0, 77) + '...' : t;
}

/** Members of a tool object that hold its handler beside its definition. */
const HANDLER_KEYS = new Set(['handle', 'handler', 'execute', 'run', 'callback', 'invoke']);
/** Names the handler's parameter for the tool's arguments goes by. */
const ARGS_PARAM = /^(?:params|args|arguments|input|inputs|toolArgs|toolInput|parameters)$/;

/**
 * The handler a definition is held with: the definition is the `schema` (or `definition`) of an object literal whose
 * `handle` / `handler` / `execute` / `run` member is a function (`defineTabTool({ schema: { name, inputSchema }, handle:
 * async (tab, params, response) => … })`, the shape of Playwright's MCP tools); the arguments are the parameter named
 * for them (`params`, `args`, `input`…).
 */
function definitionHandler(def: ObjectLiteralExpression, sources: ParsedSources): { fn: FunctionLikeNode; param: number } | undefined {
  const pa = def.getParent();
  if (!pa || !Node.isPropertyAssignment(pa) || !['schema', 'definition'].includes(pa.getName())) return undefined;
  const outer = pa.getParent();
  if (!outer || !Node.isObjectLiteralExpression(outer)) return undefined;
  for (const m of outer.getProperties()) {
    let fn: FunctionLikeNode | undefined;
    if (Node.isMethodDeclaration(m) && HANDLER_KEYS.has(m.getName())) fn = m;
    else if (Node.isPropertyAssignment(m) && HANDLER_KEYS.has(m.getName())) {
      const init = m.getInitializer();
      fn = init ? functionOf(init, sources) : undefined;
    }
    if (!fn) continue;
    // Only a parameter named for them: a lone `context` (`handle: async (context) => …`, a tool without arguments) is not the arguments.
    const param = fn.getParameters().findIndex((p) => ARGS_PARAM.test(p.getName()));
    return param >= 0 ? { fn, param } : undefined;
  }
  return undefined;
}

/** The keys of a tool definition read through `read(key)` (a mapped table's element, a template's value on one item). */
export function definitionKeys(read: (key: string) => Node | undefined, sources: ParsedSources): Pick<ToolDef, 'title' | 'description' | 'descriptionNode' | 'inputSchema' | 'outputSchema' | 'annotations' | 'annotationsNode'> {
  return {
    title: constString(read('title'))?.value,
    description: constString(read('description'))?.value,
    descriptionNode: read('description'),
    inputSchema: read('inputSchema'),
    outputSchema: read('outputSchema'),
    annotations: booleanAnnotations(objectLiteralOf(read('annotations'), sources)),
    annotationsNode: read('annotations'),
  };
}

function entryOf(def: Registered, kind: EntryKind, inputs: EntryInput[], constrained: string[]): HandlerEntry {
  return { file: def.file, line: def.line, column: def.column, kind, name: def.name, fn: def.handler!, inputs, constrained, ...('nameIsLiteral' in def && def.nameIsLiteral === false ? { nameComputed: true } : {}) };
}

function isTemplate(n: Node): boolean {
  if (Node.isNewExpression(n)) return /ResourceTemplate$/.test(n.getExpression().getText());
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const init = d ? initializerOf(d) : undefined;
    return !!init && Node.isNewExpression(init) && /ResourceTemplate$/.test(init.getExpression().getText());
  }
  return false;
}

function templateUri(n: Node): string | undefined {
  let u = n;
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    u = (d ? initializerOf(d) : undefined) ?? u;
  }
  return Node.isNewExpression(u) ? constString(u.getArguments()[0])?.value : undefined;
}

/** A FastMCP `addTool({ name, description, parameters, annotations, execute })` definition. */
function addToolDef(obj: ObjectLiteralExpression, base: SourceSpot & { flavour: Flavour; node: Node }, sources: ParsedSources): ToolDef {
  return {
    ...base,
    ...nameInfo(propertyValue(obj, 'name'), base.line)!,
    api: 'addTool',
    flavour: base.flavour === 'unknown' ? 'fastmcp' : base.flavour,
    description: constString(propertyValue(obj, 'description'))?.value,
    descriptionNode: propertyValue(obj, 'description'),
    inputSchema: propertyValue(obj, 'parameters') ?? propertyValue(obj, 'inputSchema'),
    outputSchema: propertyValue(obj, 'outputSchema'),
    annotations: booleanAnnotations(objectLiteralOf(propertyValue(obj, 'annotations'), sources)),
    annotationsNode: propertyValue(obj, 'annotations'),
    handler: ((ex) => (ex ? functionOf(ex, sources) : undefined))(propertyValue(obj, 'execute')),
    config: obj,
  };
}

/**
 * Registrations whose tool is a parameter of a local wrapper or a loop's variable (server-model/wrappers): each is
 * replaced by the tools read at the wrapper's calls (or on the loop's list). A call (or a loop) whose objects cannot
 * be read is kept in `unread`, with its place. One wrapper is read once, however many registrations it holds.
 */
function readWrapped(
  tools: ToolDef[],
  forwardedAdds: { node: CallExpression; arg: Node; file: string; flavour: Flavour }[],
  unread: UnreadRegistration[],
  files: readonly [string, SourceFile][],
  sources: ParsedSources,
  usedObjects: Set<Node>,
): void {
  const done = new Set<Node>();
  const spot = (file: string, n: Node): SourceSpot => ({ file, ...positionOf(n) });
  const unreadAt = (file: string, n: Node): void => {
    const c = callSpot(file, n);
    unread.push({ ...spot(file, n), expression: c.expression });
  };
  // FastMCP `server.addTool(tool)`.
  for (const a of forwardedAdds) {
    const looped = loopVariableItems(unwrap(a.arg), sources);
    if (looped) {
      for (const it of looped) {
        if (usedObjects.has(it.obj)) continue;
        usedObjects.add(it.obj);
        tools.push(addToolDef(it.obj, { ...spot(sources.rel(it.obj.getSourceFile()), it.obj), flavour: a.flavour, node: it.obj }, sources));
      }
      continue;
    }
    const w = forwardedParameter(a.arg);
    if (!w || w.bindings) {
      unreadAt(a.file, a.node);
      continue;
    }
    if (done.has(w.fn)) continue;
    done.add(w.fn);
    const calls = wrapperCalls(w, files, sources);
    if (!calls.length) unreadAt(a.file, a.node);
    for (const c of calls) {
      if (!c.items) {
        unreadAt(c.file, c.call);
        continue;
      }
      for (const it of c.items) {
        if (usedObjects.has(it.obj)) continue;
        usedObjects.add(it.obj);
        const file = sources.rel(it.obj.getSourceFile());
        tools.push({ ...addToolDef(it.obj, { ...spot(file, it.obj), flavour: a.flavour, node: it.obj }, sources), wrapped: true });
      }
    }
  }
  // `server.registerTool(name, config, handler)` / `server.tool(…)` inside a wrapper, named by its parameter.
  for (let i = tools.length - 1; i >= 0; i--) {
    const t = tools[i]!;
    if (t.nameIsLiteral || t.self || t.item || (t.api !== 'registerTool' && t.api !== 'tool') || !Node.isCallExpression(t.node)) continue;
    const args = registrationArgs(t);
    const nameArg = args[0];
    const w = nameArg ? forwardedName(nameArg) : undefined;
    if (!w) continue;
    if (done.has(w.fn)) {
      tools.splice(i, 1);
      continue;
    }
    const calls = wrapperCalls(w, files, sources);
    // A wrapper no call of which was found stays as written (a tool named by an expression).
    if (!calls.length) continue;
    done.add(w.fn);
    const params = w.fn.getParameters();
    const expanded: ToolDef[] = [];
    let someUnread = false;
    for (const c of calls) {
      const callArgs = c.call.getArguments();
      // What a value of the registration stands for at this call: a parameter → the argument passed; `p.key` and a
      // destructured name → the key of the object passed.
      const on = (item: LoopItem | undefined) => (n: Node | undefined): Node | undefined => {
        const u = n && unwrap(n);
        if (!u) return n;
        if (item) {
          const v = onItem(u, item);
          if (v !== u) return v;
          // `opts.prefix` of `{ ...SEARCH_OPTS, apiPath }`: the key a spread object brings.
          const spread = Node.isPropertyAccessExpression(u) && unwrap(u.getExpression()).getText() === item.param ? propertyThroughSpreads(item.obj, u.getName(), sources) : undefined;
          if (spread) return spread;
        }
        if (Node.isIdentifier(u)) {
          const d = declarationOf(u);
          const p = d?.getParent();
          const j = p && Node.isParameterDeclaration(p) ? params.indexOf(p) : -1;
          if (j >= 0 && p!.getParent() === w.fn) return callArgs[j] ?? n;
        }
        return n;
      };
      const items: (LoopItem | undefined)[] = w.byItem ? (c.items ?? []) : [undefined];
      if (w.byItem && !c.items) {
        unreadAt(c.file, c.call);
        someUnread = true;
        continue;
      }
      for (const it of items) {
        const f = on(it);
        const e = expandedTool(t, nameArg!, f, sources, undefined, it);
        const cfg = t.api === 'registerTool' ? objectLiteralOf(f(args[1]), sources) : undefined;
        const fromCfg = cfg && cfg !== t.config
          ? {
              config: cfg,
              title: constString(propertyValue(cfg, 'title'))?.value,
              ...definitionKeys((k) => propertyValue(cfg, k), sources),
            }
          : {};
        if (cfg) usedObjects.add(cfg);
        if (it) usedObjects.add(it.obj);
        const handlerNode = f(args[args.length - 1]);
        const handler = (handlerNode && functionOf(handlerNode, sources)) ?? e.handler;
        // `...(annotations ? { annotations } : {})` in the wrapper's config: the key the call passes.
        const spreadKeys: Partial<ToolDef> = {};
        const annotationsNode = e.annotationsNode ?? f(spreadValue(t.config, 'annotations'));
        if (!e.annotationsNode && annotationsNode) {
          const obj = objectLiteralOf(annotationsNode, sources);
          if (obj) Object.assign(spreadKeys, { annotationsNode: obj, annotations: booleanAnnotations(obj) });
        }
        if (!e.outputSchema) {
          const out = f(spreadValue(t.config, 'outputSchema'));
          if (out) spreadKeys.outputSchema = out;
        }
        expanded.push({ ...e, ...fromCfg, ...spreadKeys, handler, wrapped: true });
      }
    }
    // A call whose tools could not be read keeps the registration as written (a tool named by an expression,
    // whose other keys the rules may still read on the wrapper), beside the tools read at the other calls.
    tools.splice(i, 1, ...(someUnread ? [t] : []), ...expanded);
  }
}

/**
 * Tools a helper registers in a loop over its list parameter, named from the item and another of its parameters
 * (`${opts.prefix}_${tab.name}`, server-model/loop-wrappers): one tool per call and item. A call whose list or values
 * cannot be read keeps the registration as written beside the tools read, and is listed unread.
 */
function readLoopWrappers(tools: ToolDef[], unread: UnreadRegistration[], files: readonly [string, SourceFile][], sources: ParsedSources, usedObjects: Set<Node>): void {
  for (let i = tools.length - 1; i >= 0; i--) {
    const t = tools[i]!;
    if (t.nameIsLiteral || t.self || t.item || t.wrapped || (t.api !== 'registerTool' && t.api !== 'tool') || !Node.isCallExpression(t.node)) continue;
    const nameArg = registrationArgs(t)[0];
    const read = nameArg ? loopWrapperTools(t.node, nameArg, files, sources) : undefined;
    if (!read) continue;
    // Each tool is placed at the item's value its name reads (the row that names it), not at the shared prefix.
    const expanded = read.tools
      .map(({ item, on, at }) => ({ ...expandedTool(t, nameArg!, on, sources, undefined, item), file: sources.rel(at.getSourceFile()), ...positionOf(at), nameLine: positionOf(at).line }))
      .filter((x) => x.nameIsLiteral);
    for (const x of read.tools) usedObjects.add(x.item.obj);
    for (const c of read.unreadCalls) {
      const spot = callSpot(c.file, c.call);
      unread.push({ file: c.file, ...positionOf(c.call), expression: spot.expression });
    }
    const partial = read.unreadCalls.length > 0 || expanded.length < read.tools.length;
    tools.splice(i, 1, ...(partial ? [t] : []), ...expanded.map((x) => ({ ...x, wrapped: true })));
  }
}

/** The value of `key` in a conditional spread of a config literal: `...(x ? { key } : {})`, `...(x && { key: v })`. */
function spreadValue(cfg: ObjectLiteralExpression | undefined, key: string): Node | undefined {
  if (!cfg) return undefined;
  for (const p of cfg.getProperties()) {
    if (!Node.isSpreadAssignment(p)) continue;
    const e = unwrap(p.getExpression());
    const branches = Node.isConditionalExpression(e) ? [e.getWhenTrue(), e.getWhenFalse()] : Node.isBinaryExpression(e) && e.getOperatorToken().getKind() === SyntaxKind.AmpersandAmpersandToken ? [e.getRight()] : [];
    for (const b of branches) {
      const o = unwrap(b);
      const v = Node.isObjectLiteralExpression(o) ? propertyValue(o, key) : undefined;
      if (v) return v;
    }
  }
  return undefined;
}
