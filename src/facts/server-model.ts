import { afterLoad, Node, SyntaxKind, ts, type CallExpression, type ObjectLiteralExpression, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { declarationOf, findNodes, functionOf, initializerOf, valueOfDeclaration, type FunctionLikeNode } from './scope.js';
import { inTreeOrder, moduleSpecs, namedFilter, ofKinds, parsedSources, rawOfKinds, wrapNode, positionOf, propertyName, rawPropertyName, stringValue, unwrap, type ParsedSources } from './ts-source.js';
import { noteSourceRead } from './not-read.js';

/**
 * The server as written in its JavaScript/TypeScript source: the tools, prompts and resources it
 * registers, with their handlers, read syntactically from parsedSources (no type checker, nothing run).
 * Memoised per RepoFacts. Shared by the static detectors that read code (C-2, C-4, C-5, C-15, X-4, X-5…).
 *
 * Patterns recognised (the receiver's name is not checked; `server.server.setRequestHandler` works too):
 *
 *   MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk`)
 *     server.tool(name, [description], [schemaShape], [annotations], handler)   handler(args, extra)
 *       — a single object before the handler is read as annotations when every key is `title` or `*Hint`,
 *         otherwise as the input shape; without a shape the handler receives no arguments.
 *     server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, handler)
 *     server.prompt(name, [description], [argsSchema], handler)                   handler(args, extra)
 *     server.resource(name, uri | new ResourceTemplate(…), [metadata], handler)   handler(uri, variables, extra)
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
 *   Any file
 *     an object literal `{ name: '<literal>', inputSchema: … }` not already read above is a tool definition
 *     (the older tools-in-source finder's rule), attached to a tools/call dispatcher when one exists.
 *
 * Names, descriptions and titles are read when they are a string literal, a template without
 * substitutions, a concatenation of those, or a `const` holding one in the same file; otherwise the name
 * is the expression's text and `nameIsLiteral` is false. Config objects and handlers given as identifiers
 * are followed to a local `const`/function or a relative import. Which files are read is decided by
 * facts/published: generated output (dist, build, out) is left out only when the source it is compiled from is
 * present; a wrapper's dependency that registers the tools is read under `node_modules/<name>/`.
 */

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
  /** A low-level dispatcher: each branch handles the named tool/prompt. */
  branches?: { name: string; node: Node }[];
}

export interface ServerModel {
  /** Source files read (relative), after generated folders are left out. */
  files: string[];
  /** SDK flavours imported anywhere in those files. */
  flavours: Flavour[];
  tools: ToolDef[];
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

/** A string made of literals: a literal, a template without substitutions, `a + b`, or a same-file const holding one. */
export function constString(node: Node | undefined, depth = 0): { value: string; literal: Node } | undefined {
  if (!node || depth > 5) return undefined;
  const n = unwrap(node);
  const v = stringValue(n);
  if (v !== undefined) return { value: v, literal: n };
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') {
    const l = constString(n.getLeft(), depth + 1);
    const r = constString(n.getRight(), depth + 1);
    return l && r ? { value: l.value + r.value, literal: l.literal } : undefined;
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d || d.getSourceFile() !== n.getSourceFile()) return undefined;
    const decl = d.getParent();
    if (Node.isVariableDeclaration(decl)) {
      const init = initializerOf(d);
      return init ? constString(init, depth + 1) : undefined;
    }
  }
  return undefined;
}

/** An object literal, following identifiers to a const / relative import. */
export function objectLiteralOf(node: Node | undefined, sources: ParsedSources, depth = 0): ObjectLiteralExpression | undefined {
  if (!node || depth > 4) return undefined;
  const n = unwrap(node);
  if (Node.isObjectLiteralExpression(n)) return n;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    return v && v !== n ? objectLiteralOf(v, sources, depth + 1) : undefined;
  }
  return undefined;
}

/** The value node of property `key` of an object literal (the name node for a shorthand, the method itself for a method). */
export function propertyValue(obj: ObjectLiteralExpression | undefined, key: string): Node | undefined {
  if (!obj) return undefined;
  // Keys compared on compiler nodes: only the value found is wrapped.
  for (const p of obj.compilerNode.properties) {
    if (ts.isPropertyAssignment(p) && rawPropertyName(p.name) === key) return wrapNode(obj.getSourceFile(), p.initializer);
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === key) return wrapNode(obj.getSourceFile(), p.name);
    if (ts.isMethodDeclaration(p) && rawPropertyName(p.name) === key) return wrapNode(obj.getSourceFile(), p);
  }
  return undefined;
}

function booleanAnnotations(obj: ObjectLiteralExpression | undefined): Record<string, boolean> | undefined {
  if (!obj) return undefined;
  const out: Record<string, boolean> = {};
  for (const p of obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    const v = unwrap(p.getInitializerOrThrow());
    if (k && (Node.isTrueLiteral(v) || Node.isFalseLiteral(v))) out[k] = Node.isTrueLiteral(v);
  }
  return out;
}

const ANNOTATION_KEYS = /^(?:title|\w+Hint)$/;
function looksLikeAnnotations(obj: ObjectLiteralExpression | undefined): boolean {
  if (!obj) return false;
  const props = obj.getProperties();
  return (
    props.length > 0 &&
    props.every((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && ANNOTATION_KEYS.test(propertyName(p.getNameNode()) ?? ''))
  );
}

const REQUEST_SCHEMAS: Record<string, string> = {
  CallToolRequestSchema: 'tools/call',
  ListToolsRequestSchema: 'tools/list',
  GetPromptRequestSchema: 'prompts/get',
  ListPromptsRequestSchema: 'prompts/list',
  ReadResourceRequestSchema: 'resources/read',
  ListResourcesRequestSchema: 'resources/list',
  ListResourceTemplatesRequestSchema: 'resources/templates/list',
  CompleteRequestSchema: 'completion/complete',
  SetLevelRequestSchema: 'logging/setLevel',
  SubscribeRequestSchema: 'resources/subscribe',
  UnsubscribeRequestSchema: 'resources/unsubscribe',
  InitializeRequestSchema: 'initialize',
  PingRequestSchema: 'ping',
};

function methodOf(arg: Node | undefined): string | undefined {
  if (!arg) return undefined;
  const s = constString(arg);
  if (s) return s.value;
  const n = unwrap(arg);
  const id = Node.isPropertyAccessExpression(n) ? n.getName() : Node.isIdentifier(n) ? n.getText() : undefined;
  return id ? (REQUEST_SCHEMAS[id] ?? id) : undefined;
}

/* ----------------------------------------------------------- schema reading */

const SCHEMA_MODIFIERS = new Set(['strict', 'passthrough', 'strip', 'describe', 'optional', 'nullable', 'default', 'catchall', 'meta', 'readonly']);

/** The shape object of a zod object (`z.object({...})` and modifiers), a raw shape, or a JSON Schema's `properties`. */
function schemaShape(node: Node | undefined, sources: ParsedSources): { kind: 'zod' | 'json'; obj: ObjectLiteralExpression } | undefined {
  if (!node) return undefined;
  let n: Node = unwrap(node);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    if (!v || v === n) return undefined;
    n = v;
  }
  for (let i = 0; i < 8 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    const name = callee.getName();
    if (name === 'object' || name === 'strictObject' || name === 'looseObject') {
      const o = objectLiteralOf(n.getArguments()[0], sources);
      return o ? { kind: 'zod', obj: o } : undefined;
    }
    if (!SCHEMA_MODIFIERS.has(name)) return undefined;
    n = unwrap(callee.getExpression());
  }
  if (!Node.isObjectLiteralExpression(n)) return undefined;
  const props = propertyValue(n, 'properties');
  if (props && propertyValue(n, 'type')) {
    const o = objectLiteralOf(props, sources);
    return o ? { kind: 'json', obj: o } : undefined;
  }
  return { kind: 'zod', obj: n };
}

/** The top-level property names of an input schema (zod object, raw shape or JSON Schema `properties`), as written. */
export function schemaPropertyNames(schema: Node | undefined, sources: ParsedSources): string[] {
  const shape = schemaShape(schema, sources);
  if (!shape) return [];
  return shape.obj.getProperties().flatMap((p) => {
    const k = Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) ? propertyName(p.getNameNode()) : undefined;
    return k ? [k] : [];
  });
}

const CONSTRAINED_ZOD = new Set(['enum', 'nativeEnum', 'literal', 'number', 'int', 'boolean', 'bigint', 'nan', 'date', 'uuid', 'ipv4', 'ipv6']);

/** The safety of a `.regex(/…/)` in a zod chain, if any. */
function zodPattern(node: Node): { shell: boolean; path: boolean } | undefined {
  let n = unwrap(node);
  for (let i = 0; i < 12 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    if (callee.getName() === 'regex') {
      const re = regexSource(n.getArguments()[0]);
      return re === undefined ? undefined : patternSafety(re);
    }
    n = unwrap(callee.getExpression());
  }
  return undefined;
}

/** The root factory name of a zod chain: `z.enum([...]).optional().describe('…')` → 'enum' (and its arguments). */
function zodRoot(node: Node): { name: string; args: Node[] } | undefined {
  let n = unwrap(node);
  for (let i = 0; i < 12; i++) {
    if (!Node.isCallExpression(n)) return undefined;
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee)) {
      const obj = unwrap(callee.getExpression());
      if (Node.isCallExpression(obj)) {
        n = obj;
        continue;
      }
      return { name: callee.getName(), args: n.getArguments() };
    }
    if (Node.isIdentifier(callee)) return { name: callee.getText(), args: n.getArguments() };
    return undefined;
  }
  return undefined;
}

/** The source of a regular expression: a literal, `new RegExp('…')`, or a const holding one. */
export function regexSource(n: Node | undefined): string | undefined {
  if (!n) return undefined;
  let u = unwrap(n);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    u = (d ? initializerOf(d) : undefined) ?? u;
  }
  if (Node.isRegularExpressionLiteral(u)) {
    const t = u.getLiteralText();
    return t.slice(1, t.lastIndexOf('/'));
  }
  if (Node.isNewExpression(u) && u.getExpression().getText() === 'RegExp') return constString(u.getArguments()[0])?.value;
  return undefined;
}

/**
 * What an allowlist pattern keeps out. `shell`: anchored (^…$) and made only of letters, digits, `_`, `-`,
 * `.`, `/`, `:`, `@`, `+`, `=`, `,` (literal or in classes), `\w`, `\d`, groups and quantifiers — no shell
 * metacharacter, space or quote can match. `path`: `shell`, and neither `.` nor `/` nor `\` can match, so
 * the value cannot climb out of a folder.
 */
export function patternSafety(re: string): { shell: boolean; path: boolean } {
  const no = { shell: false, path: false };
  if (!re.startsWith('^') || !re.endsWith('$') || re.endsWith('\\$')) return no;
  const body = re.slice(1, -1);
  if (body.includes('|') && !/^\(.*\)$/.test(body)) return no;
  const SAFE = /[A-Za-z0-9_\-.\/:@+=,]/;
  let path = true;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const e = body[i + 1] ?? '';
      i++;
      if (e === 'w' || e === 'd' || e === '-' || e === '_') continue;
      if (e === '.' || e === '/') {
        path = false;
        continue;
      }
      return no;
    }
    if (c === '[') {
      if (body[i + 1] === '^') return no;
      let j = i + 1;
      for (; j < body.length && body[j] !== ']'; j++) {
        const k = body[j]!;
        if (k === '\\') {
          const e = body[j + 1] ?? '';
          j++;
          if (e === 'w' || e === 'd' || e === '-' || e === '_') continue;
          if (e === '.' || e === '/') {
            path = false;
            continue;
          }
          return no;
        }
        if (k === '.' || k === '/') path = false;
        if (!SAFE.test(k)) return no;
      }
      if (j >= body.length) return no;
      i = j;
      continue;
    }
    if ('+*?{}()|0123456789,'.includes(c) || /[A-Za-z_\-]/.test(c)) continue;
    if (c === '.') return no; // any character
    if (c === '/' || c === ':' || c === '@' || c === '=') {
      if (c === '/') path = false;
      continue;
    }
    return no;
  }
  return { shell: true, path };
}

function zodConstrained(node: Node | undefined, depth = 0): boolean {
  if (!node || depth > 4) return false;
  const root = zodRoot(node);
  if (!root) return false;
  if (CONSTRAINED_ZOD.has(root.name)) return true;
  if (root.name === 'string' && zodPattern(node)?.path) return true;
  if (root.name === 'array' || root.name === 'set') return zodConstrained(root.args[0], depth + 1);
  if (root.name === 'union') {
    const arr = root.args[0] && unwrap(root.args[0]);
    return !!arr && Node.isArrayLiteralExpression(arr) && arr.getElements().length > 0 && arr.getElements().every((e) => zodConstrained(e, depth + 1));
  }
  return false;
}

function jsonConstrained(node: Node | undefined, sources: ParsedSources): boolean {
  const o = objectLiteralOf(node, sources);
  if (!o) return false;
  if (propertyValue(o, 'enum') || propertyValue(o, 'const')) return true;
  const pattern = constString(propertyValue(o, 'pattern'))?.value;
  if (pattern !== undefined && patternSafety(pattern).path) return true;
  const t = constString(propertyValue(o, 'type'))?.value;
  return t === 'number' || t === 'integer' || t === 'boolean';
}

/** Top-level argument names a schema restricts to non-text values, or to a pattern that keeps out shell metacharacters, dots and slashes. */
export function constrainedArguments(schema: Node | undefined, sources: ParsedSources): string[] {
  const shape = schemaShape(schema, sources);
  if (!shape) return [];
  const out: string[] = [];
  for (const p of shape.obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    if (!k) continue;
    const v = p.getInitializerOrThrow();
    if (shape.kind === 'zod' ? zodConstrained(v) : jsonConstrained(v, sources)) out.push(k);
  }
  return out;
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
  const model = build(parsedSources(repo));
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
  REGISTRATION_METHODS,
  (cn) => ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression) && REGISTRATION_METHODS.has(cn.expression.name.text),
);
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

  const spotOf = (file: string, node: Node): SourceSpot => ({ file, ...positionOf(node) });
  const fnOf = (n: Node | undefined): FunctionLikeNode | undefined => (n ? functionOf(n, sources) : undefined);

  for (const [file, sf] of files) {
    const flavour = flavourOf(sf);
    if (flavour !== 'unknown') flavours.add(flavour);
    const calls = inTreeOrder(rawOfKinds(sf, [SyntaxKind.CallExpression], REGISTRATION_CALL)).map((cn) => wrapNode(sf, cn));
    for (const node of calls) {
      if (!Node.isCallExpression(node)) continue;
      const callee = unwrap(node.getExpression());
      if (!Node.isPropertyAccessExpression(callee)) continue;
      const method = callee.getName();
      const args = node.getArguments();
      const at = spotOf(file, node);
      const base = { ...at, flavour, node };
      switch (method) {
        case 'registerTool': {
          if (args.length < 2) continue;
          const ni = nameInfo(args[0], at.line)!;
          const cfg = objectLiteralOf(args[1], sources);
          if (cfg) usedObjects.add(cfg);
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
          if (!handler && !named) continue;
          const ni = nameInfo(args[0], at.line)!;
          const middle = args.slice(1, handler ? -1 : args.length);
          let description: Node | undefined;
          if (middle[0] && constString(middle[0])) description = middle.shift();
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
          if (!obj || !propertyValue(obj, 'name')) continue;
          usedObjects.add(obj);
          const ni = nameInfo(propertyValue(obj, 'name'), at.line)!;
          tools.push({
            ...base,
            ...ni,
            api: 'addTool',
            flavour: flavour === 'unknown' ? 'fastmcp' : flavour,
            description: constString(propertyValue(obj, 'description'))?.value,
            descriptionNode: propertyValue(obj, 'description'),
            inputSchema: propertyValue(obj, 'parameters') ?? propertyValue(obj, 'inputSchema'),
            outputSchema: propertyValue(obj, 'outputSchema'),
            annotations: booleanAnnotations(objectLiteralOf(propertyValue(obj, 'annotations'), sources)),
            annotationsNode: propertyValue(obj, 'annotations'),
            handler: fnOf(propertyValue(obj, 'execute')),
            config: obj,
          });
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

  // Low-level lists: the literal arrays returned by tools/list, prompts/list, resources/list handlers.
  for (const rh of requestHandlers) {
    if (!rh.handler) continue;
    const listKey = rh.method === 'tools/list' ? 'tools' : rh.method === 'prompts/list' ? 'prompts' : rh.method === 'resources/list' ? 'resources' : undefined;
    if (!listKey) continue;
    for (const obj of listedObjects(rh.handler, listKey, sources)) {
      if (usedObjects.has(obj)) continue;
      usedObjects.add(obj);
      const file = sources.rel(obj.getSourceFile());
      const at = spotOf(file, obj);
      const ni = nameInfo(propertyValue(obj, 'name') ?? propertyValue(obj, 'uri'), at.line);
      if (!ni) continue;
      const base = { ...at, ...ni, flavour: rh.flavour, node: obj as Node, title: constString(propertyValue(obj, 'title'))?.value };
      const description = constString(propertyValue(obj, 'description'))?.value;
      const descriptionNode = propertyValue(obj, 'description');
      if (listKey === 'tools') {
        tools.push({
          ...base,
          api: 'tools/list',
          description,
          descriptionNode,
          inputSchema: propertyValue(obj, 'inputSchema'),
          outputSchema: propertyValue(obj, 'outputSchema'),
          annotations: booleanAnnotations(objectLiteralOf(propertyValue(obj, 'annotations'), sources)),
          annotationsNode: propertyValue(obj, 'annotations'),
          config: obj,
        });
      } else if (listKey === 'prompts') {
        prompts.push({ ...base, api: 'prompts/list', description, descriptionNode, argsSchema: propertyValue(obj, 'arguments') });
      } else {
        resources.push({ ...base, api: 'resources/list', description, descriptionNode, uri: constString(propertyValue(obj, 'uri'))?.value, template: false });
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
        title: constString(read('title'))?.value,
        description: constString(read('description'))?.value,
        descriptionNode: read('description'),
        inputSchema: read('inputSchema'),
        outputSchema: read('outputSchema'),
        annotations: booleanAnnotations(objectLiteralOf(read('annotations'), sources)),
        annotationsNode: read('annotations'),
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
      tools.push({
        ...at,
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

  // High-level handlers.
  for (const t of tools) {
    if (!t.handler || !['registerTool', 'tool', 'addTool'].includes(t.api)) continue;
    const hasArgs = t.api === 'addTool' || t.inputSchema !== undefined;
    entries.push(entryOf(t, 'tool', hasArgs ? [{ param: 0, path: [] }] : [], constrainedArguments(t.inputSchema, sources)));
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
  return {
    files: files.map(([f]) => f),
    flavours: [...flavours].sort(),
    tools,
    prompts,
    resources,
    requestHandlers,
    entries,
  };
}

function entryOf(def: Registered, kind: EntryKind, inputs: EntryInput[], constrained: string[]): HandlerEntry {
  return { file: def.file, line: def.line, column: def.column, kind, name: def.name, fn: def.handler!, inputs, constrained };
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

/** Expressions a function returns: `return x` statements of its own body, or its expression body. */
const returnedMemo = new WeakMap<ts.Node, Node[]>();

/** The expressions a function returns (memoised per function: dispatchers are asked once per branch). Do not mutate. */
export function returnedExpressions(fn: FunctionLikeNode): Node[] {
  let hit = returnedMemo.get(fn.compilerNode);
  if (!hit) returnedMemo.set(fn.compilerNode, (hit = returnedUncached(fn)));
  return hit;
}

function returnedUncached(fn: FunctionLikeNode): Node[] {
  const body = fn.getBody();
  if (!body) return [];
  if (!Node.isBlock(body)) return [body];
  // Raw walk, not entering nested functions or classes: only the return statements are wrapped.
  const nested = (cn: ts.Node): boolean =>
    ts.isArrowFunction(cn) || ts.isFunctionExpression(cn) || ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isClassDeclaration(cn);
  const returns: ts.ReturnStatement[] = [];
  const visit = (cn: ts.Node): void => {
    if (nested(cn)) return;
    if (ts.isReturnStatement(cn) && cn.expression) returns.push(cn);
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(body.compilerNode, visit);
  const sf = body.getSourceFile();
  return returns.map((r) => wrapNode(sf, r.expression!));
}

/** Object literals listed under `key` in what a list handler returns (arrays and consts followed, spreads of arrays included). */
function listedObjects(fn: FunctionLikeNode, key: string, sources: ParsedSources): ObjectLiteralExpression[] {
  const out: ObjectLiteralExpression[] = [];
  const addArray = (node: Node | undefined, depth: number): void => {
    if (!node || depth > 4) return;
    let n = unwrap(node);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (!v || v === n) return;
      n = v;
    }
    if (!Node.isArrayLiteralExpression(n)) return;
    for (const el of n.getElements()) {
      if (Node.isSpreadElement(el)) addArray(el.getExpression(), depth + 1);
      else {
        const o = objectLiteralOf(el, sources);
        if (o) out.push(o);
      }
    }
  };
  for (const r of returnedExpressions(fn)) {
    let e = unwrap(r);
    if (Node.isAwaitExpression(e)) e = unwrap(e.getExpression());
    const obj = objectLiteralOf(e, sources);
    if (obj) addArray(propertyValue(obj, key), 0);
  }
  return out;
}

/** Calls that turn a schema into the JSON Schema served: the value under them is the schema to read. */
const SCHEMA_CONVERTERS = /(?:^|\.)(?:zodToJsonSchema|toJsonSchema|toJSONSchema|zodToJson)$/;

/**
 * The tool definitions a tools/list handler builds by mapping a table of literal objects:
 * `return { tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: zodToJsonSchema(t.schema) })) }`
 * (the table an array literal, a const, or an import). For each element of the table, `read(key)` gives
 * the node the mapped object's `key` stands for on that element: `t.x` (or `conv(t.x)` for a schema
 * converter such as zodToJsonSchema, `t.x.shape` included) is the element's `x`, a literal is itself, and a
 * spread `...t` gives the element's own property.
 */
function mappedDefinitions(fn: FunctionLikeNode, sources: ParsedSources): { element: ObjectLiteralExpression; read(key: string): Node | undefined }[] {
  const out: { element: ObjectLiteralExpression; read(key: string): Node | undefined }[] = [];
  for (const r of returnedExpressions(fn)) {
    let e = unwrap(r);
    if (Node.isAwaitExpression(e)) e = unwrap(e.getExpression());
    const obj = objectLiteralOf(e, sources);
    const list = obj && propertyValue(obj, 'tools');
    const call = list && unwrap(list);
    if (!call || !Node.isCallExpression(call)) continue;
    const callee = unwrap(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'map') continue;
    const cb = call.getArguments()[0] && unwrap(call.getArguments()[0]!);
    if (!cb || !(Node.isArrowFunction(cb) || Node.isFunctionExpression(cb))) continue;
    const param = cb.getParameters()[0]?.getNameNode();
    if (!param || !Node.isIdentifier(param)) continue;
    const template = returnedExpressions(cb).map((x) => objectLiteralOf(unwrap(x), sources)).find((x) => !!x);
    if (!template) continue;
    let table: Node | undefined = unwrap(callee.getExpression());
    for (let i = 0; i < 4 && table && Node.isIdentifier(table); i++) {
      const d = declarationOf(table);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      table = v && v !== table && !Node.isSourceFile(v) ? unwrap(v) : undefined;
    }
    if (!table || !Node.isArrayLiteralExpression(table)) continue;
    const pname = param.getText();
    const spreads = template.getProperties().some((p) => Node.isSpreadAssignment(p) && unwrap(p.getExpression()).getText() === pname);
    for (const el of table.getElements()) {
      const element = objectLiteralOf(el, sources);
      if (!element) continue;
      const fromElement = (v: Node | undefined, depth = 0): Node | undefined => {
        if (!v || depth > 3) return undefined;
        const u = unwrap(v);
        if (Node.isCallExpression(u) && SCHEMA_CONVERTERS.test(unwrap(u.getExpression()).getText().replace(/\s+/g, ''))) return fromElement(u.getArguments()[0], depth + 1);
        // t.a.b (a trailing `.shape` of a zod object stands for the object itself)
        const path: string[] = [];
        let cur: Node = u;
        while (Node.isPropertyAccessExpression(cur)) {
          path.unshift(cur.getName());
          cur = unwrap(cur.getExpression());
        }
        if (!Node.isIdentifier(cur) || cur.getText() !== pname) return path.length ? undefined : u;
        if (path[path.length - 1] === 'shape') path.pop();
        let at: Node | undefined = element;
        for (const k of path) {
          const o: ObjectLiteralExpression | undefined = at && objectLiteralOf(at, sources);
          at = o ? propertyValue(o, k) : undefined;
        }
        return at;
      };
      out.push({
        element,
        read: (key) => {
          const own = propertyValue(template, key);
          if (own) return fromElement(own);
          return spreads ? propertyValue(element, key) : undefined;
        },
      });
    }
  }
  return out;
}

/** Is this expression the requested tool/prompt name (`request.params.name`, or a variable holding it)? */
function isNameExpression(expr: Node): boolean {
  const n = unwrap(expr);
  if (Node.isPropertyAccessExpression(n)) return n.getName() === 'name' && /(?:^|\.)params$/.test(unwrap(n.getExpression()).getText());
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const p = d?.getParent();
    if (Node.isBindingElement(p)) {
      const prop = p.getPropertyNameNode();
      return (prop ? propertyName(prop) : p.getName()) === 'name';
    }
    if (Node.isVariableDeclaration(p)) {
      const init = p.getInitializer();
      return !!init && isNameExpression(init);
    }
  }
  return false;
}

/** Branches of a dispatcher: `switch (name) { case 'x': … }` clauses and `if (name === 'x')` statements. */
export function dispatchBranches(fn: FunctionLikeNode): { name: string; node: Node }[] {
  const out: { name: string; node: Node }[] = [];
  // Raw walk: only switch and if statements are wrapped.
  for (const n of findNodes(fn, (cn) => cn !== fn.compilerNode && (ts.isSwitchStatement(cn) || ts.isIfStatement(cn)))) {
    if (Node.isSwitchStatement(n) && isNameExpression(n.getExpression())) {
      for (const c of n.getCaseBlock().getClauses()) {
        if (!Node.isCaseClause(c)) continue;
        const s = constString(c.getExpression());
        if (s) out.push({ name: s.value, node: c });
      }
    } else if (Node.isIfStatement(n)) {
      const cond = unwrap(n.getExpression());
      if (!Node.isBinaryExpression(cond) || !['===', '=='].includes(cond.getOperatorToken().getText())) continue;
      const [l, r] = [cond.getLeft(), cond.getRight()];
      const s = isNameExpression(l) ? constString(r) : isNameExpression(r) ? constString(l) : undefined;
      if (s) out.push({ name: s.value, node: n.getThenStatement() });
    }
  }
  return out;
}
