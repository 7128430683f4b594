import { Node, SyntaxKind, ts, type CallExpression, type NewExpression, type ObjectLiteralExpression, type PropertyAccessExpression, type SourceFile } from '../morph.js';
import { declarationOf, functionOf, importOf, initializerOf, isFunctionLike, moduleMember, resolveRelativeModule, valueOfDeclaration } from '../scope.js';
import { transformOf } from './name-transforms.js';
import { wrapNode, propertyName, rawPropertyName, rawUnwrap, sourcesOf, stringValue, unwrap, type ParsedSources } from '../ts-source.js';

/**
 * The server model (facts/server-model.ts): values read statically — strings made of literals, object
 * literals and their properties, annotations, request schemas, and which arguments a zod or JSON schema
 * constrains (patterns judged for safety).
 */

/**
 * The parts of a composed string (a template's substitutions, a `+` concatenation's operands, nested) that are not
 * string constants: `[opts.prefix]` for `\`${opts.prefix}_search\``. undefined when the node is not composed.
 */
export function variableParts(node: Node): Node[] | undefined {
  const u = unwrap(node);
  const isPlus = (n: Node): boolean => Node.isBinaryExpression(n) && n.getOperatorToken().getKind() === SyntaxKind.PlusToken;
  if (!Node.isTemplateExpression(u) && !isPlus(u)) return undefined;
  const out: Node[] = [];
  const collect = (n: Node): void => {
    const p = unwrap(n);
    if (Node.isTemplateExpression(p)) for (const s of p.getTemplateSpans()) collect(s.getExpression());
    else if (Node.isBinaryExpression(p) && isPlus(p)) [p.getLeft(), p.getRight()].forEach(collect);
    else if (!constString(p)) out.push(p);
  };
  collect(u);
  return out;
}

/**
 * A string a factory composes from the values it is handed: a template (`\`${opts.prefix}_search\``) or a `+`
 * concatenation each of whose parts is a string constString reads, either as written or as `on` maps it (the value
 * a parameter or an item's key stands for at one call). Nothing else is computed: a part that is a call
 * (`snake(op.path)`), a number, or a value `on` does not map to a string leaves the whole undefined. `literal` is
 * the first part `on` mapped (the call's own value, so that the place is the call's), else the node itself.
 */
export function composedString(node: Node | undefined, on: (n: Node) => Node | undefined, depth = 0): { value: string; literal: Node } | undefined {
  if (!node || depth > 5) return undefined;
  const n = unwrap(node);
  const part = (p: Node): { value: string; literal?: Node } | undefined => {
    const u = unwrap(p);
    const mapped = on(u);
    if (mapped && mapped !== u && unwrap(mapped) !== u) {
      const s = constString(mapped);
      return s ? { value: s.value, literal: s.literal } : undefined;
    }
    if (Node.isTemplateExpression(u) || (Node.isBinaryExpression(u) && u.getOperatorToken().getKind() === SyntaxKind.PlusToken)) {
      const c = composedString(u, on, depth + 1);
      return c ? { value: c.value, ...(c.literal !== u ? { literal: c.literal } : {}) } : undefined;
    }
    if (Node.isCallExpression(u) && transformOf(u)) {
      const c = composedString(u, on, depth + 1);
      return c ? { value: c.value, ...(c.literal !== u ? { literal: c.literal } : {}) } : undefined;
    }
    const s = constString(u);
    return s ? { value: s.value } : undefined;
  };
  const parts: ({ value: string; literal?: Node } | undefined)[] = [];
  // `toolName(op.operationId)`: a local transform (server-model/name-transforms) of one part.
  const transform = Node.isCallExpression(n) ? transformOf(n) : undefined;
  if (transform) {
    const inner = part((n as CallExpression).getArguments()[0]!);
    const value = inner && transform(inner.value);
    return value === undefined ? undefined : { value, literal: inner!.literal ?? n };
  }
  if (Node.isTemplateExpression(n)) {
    parts.push({ value: n.getHead().getLiteralText() });
    for (const span of n.getTemplateSpans()) {
      parts.push(part(span.getExpression()));
      parts.push({ value: span.getLiteral().getLiteralText() });
    }
  } else if (Node.isBinaryExpression(n) && n.getOperatorToken().getKind() === SyntaxKind.PlusToken) {
    parts.push(part(n.getLeft()), part(n.getRight()));
  } else return undefined;
  if (parts.some((p) => !p)) return undefined;
  const read = parts as { value: string; literal?: Node }[];
  return { value: read.map((p) => p.value).join(''), literal: read.find((p) => p.literal)?.literal ?? n };
}

/** A string made of literals: a literal, a template without substitutions, `a + b`, or a same-file const holding one. */
export function constString(node: Node | undefined, depth = 0): { value: string; literal: Node } | undefined {
  if (!node || depth > 5) return undefined;
  const n = unwrap(node);
  const v = stringValue(n);
  if (v !== undefined) return { value: v, literal: n };
  // `camelToSnake('getUser')`: a local transform (server-model/name-transforms) of a constant.
  if (Node.isCallExpression(n)) {
    const transform = transformOf(n);
    const a = transform && constString(n.getArguments()[0], depth + 1);
    const value = a ? transform!(a.value) : undefined;
    return value === undefined ? undefined : { value, literal: n };
  }
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
    // `import { LIST_TOOL } from './constants.js'`: a string const exported by a relative module (a table of names
    // kept in a constants file). The literal stands where the name is used here, so that places stay in this file.
    const imp = importOf(d);
    const sources = imp && imp.spec.startsWith('.') && imp.imported !== '*' ? sourcesOf(n.getSourceFile()) : undefined;
    const v = sources ? valueOfDeclaration(d, sources) : undefined;
    const s = v && v !== n && v.getSourceFile() !== n.getSourceFile() ? constString(v, depth + 1) : undefined;
    return s ? { value: s.value, literal: n } : undefined;
  }
  // `listEventsDefinition.name`: a property of a same-file const object literal (a tool's definition kept beside its handler);
  // `TOOL_NAMES.BROWSER.NAVIGATE`: a path into nested const objects (a table of names kept in a shared module, inlined by a bundle);
  // `NavigateTool.shape.name.value`: the literal of a zod object schema's key (`z.object({ name: z.literal('browser_navigate') })`).
  if (Node.isPropertyAccessExpression(n)) {
    // `ToolName.ListEvents`: a string member of an enum (TypeScript source or its compiled form), here or imported.
    const member = enumMemberString(n);
    if (member !== undefined) return { value: member, literal: n };
    const path: string[] = [];
    let base: Node = n;
    while (Node.isPropertyAccessExpression(base) && path.length < 8) {
      path.unshift(base.getName());
      base = unwrap(base.getExpression());
    }
    const d = Node.isIdentifier(base) ? declarationOf(base) : undefined;
    let init: Node | undefined;
    if (d) {
      if (d.getSourceFile() !== n.getSourceFile() || !Node.isVariableDeclaration(d.getParent())) return undefined;
      init = initializerOf(d);
    } else {
      // `exports.TOOL_NAMES.PROJECTS` (`module.exports.…` too): tsc's CommonJS output of an exported const, read where it
      // is assigned at the top level of this file (`exports.TOOL_NAMES = { PROJECTS: 'motion_projects' }`).
      if (Node.isIdentifier(base) && base.getText() === 'module' && path[0] === 'exports') path.shift();
      else if (!Node.isIdentifier(base) || base.getText() !== 'exports') return undefined;
      const key = path.shift();
      init = key === undefined ? undefined : commonJsExports(n.getSourceFile()).get(key);
      if (!init) return undefined;
    }
    const zod = init && zodShapeLiteral(init, path);
    if (zod) return constString(zod, depth + 1);
    let cur: Node | undefined = init && unwrap(init);
    for (const k of path) cur = cur && Node.isObjectLiteralExpression(cur) ? unwrapped(propertyValue(cur, k)) : undefined;
    return cur ? constString(cur, depth + 1) : undefined;
  }
  return undefined;
}

const unwrapped = (n: Node | undefined): Node | undefined => (n ? unwrap(n) : undefined);

/** The values a CommonJS file assigns to `exports.X` / `module.exports.X` in its top-level statements (the last one kept), read once per file. */
const cjsExportsMemo = new WeakMap<SourceFile, Map<string, Node>>();
function commonJsExports(sf: SourceFile): Map<string, Node> {
  let hit = cjsExportsMemo.get(sf);
  if (hit) return hit;
  hit = new Map();
  for (const st of sf.getStatements()) {
    if (!Node.isExpressionStatement(st)) continue;
    const e = st.getExpression();
    if (!Node.isBinaryExpression(e) || e.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
    const left = e.getLeft();
    if (!Node.isPropertyAccessExpression(left)) continue;
    const target = left.getExpression().getText();
    if (target !== 'exports' && target !== 'module.exports') continue;
    const right = unwrap(e.getRight());
    // `exports.a = exports.b = void 0`: the declarations tsc writes first hold nothing.
    if (Node.isVoidExpression(right) || Node.isBinaryExpression(right)) continue;
    hit.set(left.getName(), right);
  }
  cjsExportsMemo.set(sf, hit);
  return hit;
}

/**
 * The literal a zod object schema holds at `shape.<key>.value`: `z.object({ name: z.literal('x') })` read through
 * `Schema.shape.name.value` (zod's ZodLiteral keeps its value there). Read by the call's form, whatever `z` is bound to
 * (an import, or the namespace a bundle inlines).
 */
function zodShapeLiteral(init: Node, path: readonly string[]): Node | undefined {
  if (path.length !== 3 || path[0] !== 'shape' || path[2] !== 'value') return undefined;
  // `z.object({ … })`, through `.strict()` / `.describe(…)` and `.extend({ … })` of a same-file schema (the key written last wins).
  let cur: Node | undefined = unwrap(init);
  for (let i = 0; i < 8 && cur && Node.isCallExpression(cur); i++) {
    const call: CallExpression = cur;
    const callee = unwrap(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    const method = callee.getName();
    if (method === 'object' || method === 'extend') {
      const shape = call.getArguments()[0] && unwrap(call.getArguments()[0]!);
      const own = shape && Node.isObjectLiteralExpression(shape) ? unwrapped(propertyValue(shape, path[1]!)) : undefined;
      if (own) {
        if (!Node.isCallExpression(own)) return undefined;
        const lc = unwrap(own.getExpression());
        return Node.isPropertyAccessExpression(lc) && lc.getName() === 'literal' ? own.getArguments()[0] : undefined;
      }
      if (method === 'object') return undefined;
    } else if (!ZOD_WRAPPERS.has(method)) return undefined;
    cur = unwrap(callee.getExpression());
    if (Node.isIdentifier(cur)) {
      const d = declarationOf(cur);
      cur = d && d.getSourceFile() === init.getSourceFile() && Node.isVariableDeclaration(d.getParent()) ? unwrapped(initializerOf(d)) : undefined;
    }
  }
  return undefined;
}

/* ------------------------------------------------------------- enums */

/** An enum's string members by name. */
type EnumMembers = ReadonlyMap<string, string>;
const enumMemo = new WeakMap<ts.Identifier, EnumMembers>();

const isStringLit = (n: ts.Node): n is ts.StringLiteralLike => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n);
const isFn = (n: ts.Node): n is ts.FunctionExpression | ts.ArrowFunction => ts.isFunctionExpression(n) || ts.isArrowFunction(n);

/**
 * The string members of the enum `declId` declares (memoised on the compiler node): `enum ToolName { ListEvents =
 * 'list-events' }`, or its compiled forms — tsc's `var ToolName; (function (ToolName) { ToolName["ListEvents"] =
 * "list-events"; })(ToolName || (ToolName = {}));` (the call found among the statements beside the `var`), and a
 * bundler's `var ToolName = ((T) => { T["ListEvents"] = "list-events"; return T; })(ToolName || {})`. Empty for
 * anything else. Numeric members are left out (their reverse mapping is not a name).
 */
function rawEnumMembers(declId: ts.Identifier): EnumMembers {
  const hit = enumMemo.get(declId);
  if (hit) return hit;
  const out = new Map<string, string>();
  enumMemo.set(declId, out);
  const p = declId.parent;
  if (p && ts.isEnumDeclaration(p)) {
    for (const m of p.members) {
      const k = rawPropertyName(m.name);
      const init = m.initializer ? rawUnwrap(m.initializer) : undefined;
      if (k !== undefined && init && isStringLit(init)) out.set(k, init.text);
    }
    return out;
  }
  if (!p || !ts.isVariableDeclaration(p) || p.name !== declId) return out;
  const bodies: (ts.FunctionExpression | ts.ArrowFunction)[] = [];
  const init = p.initializer ? rawUnwrap(p.initializer) : undefined;
  if (init && ts.isCallExpression(init)) {
    const fn = rawUnwrap(init.expression);
    if (isFn(fn)) bodies.push(fn);
  } else if (!init) {
    const container = p.parent?.parent?.parent;
    const statements = container && (ts.isSourceFile(container) || ts.isBlock(container) || ts.isModuleBlock(container)) ? container.statements : [];
    for (const st of statements) {
      if (!ts.isExpressionStatement(st)) continue;
      const call = rawUnwrap(st.expression);
      if (!ts.isCallExpression(call)) continue;
      const fn = rawUnwrap(call.expression);
      const arg = call.arguments[0] ? rawUnwrap(call.arguments[0]) : undefined;
      if (!isFn(fn) || !arg || !ts.isBinaryExpression(arg) || arg.operatorToken.kind !== SyntaxKind.BarBarToken) continue;
      const left = rawUnwrap(arg.left);
      if (ts.isIdentifier(left) && left.text === declId.text) bodies.push(fn);
    }
  }
  for (const fn of bodies) {
    const param = fn.parameters[0]?.name;
    if (!param || !ts.isIdentifier(param) || !ts.isBlock(fn.body)) continue;
    for (const st of fn.body.statements) {
      if (!ts.isExpressionStatement(st) || !ts.isBinaryExpression(st.expression) || st.expression.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      const { left, right } = st.expression;
      const value = rawUnwrap(right);
      if (!isStringLit(value)) continue;
      if (ts.isElementAccessExpression(left) && ts.isIdentifier(left.expression) && left.expression.text === param.text && isStringLit(left.argumentExpression)) out.set(left.argumentExpression.text, value.text);
      else if (ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.expression) && left.expression.text === param.text) out.set(left.name.text, value.text);
    }
  }
  return out;
}

/** The enum a file declares at its top level under `name`, or re-exports from a relative module (`export *`, `export { X }`, `__exportStar(require(…))`). */
function enumInFile(sf: SourceFile, name: string, depth = 0): EnumMembers | undefined {
  const statements = sf.compilerNode.statements;
  for (const st of statements) {
    if (ts.isEnumDeclaration(st) && st.name.text === name) return rawEnumMembers(st.name);
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === name) return rawEnumMembers(d.name);
  }
  const sources = sourcesOf(sf);
  if (!sources || depth > 3) return undefined;
  for (const st of statements) {
    let spec: string | undefined;
    let imported: string | undefined;
    if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      spec = st.moduleSpecifier.text;
      if (!st.exportClause) imported = name;
      else if (ts.isNamedExports(st.exportClause)) {
        const el = st.exportClause.elements.find((e) => e.name.text === name);
        if (el) imported = (el.propertyName ?? el.name).text;
      }
    } else if (ts.isExpressionStatement(st) && ts.isCallExpression(st.expression) && /(?:^|\.)__exportStar$/.test(st.expression.expression.getText(sf.compilerNode))) {
      const req = st.expression.arguments[0];
      if (req && ts.isCallExpression(req) && ts.isIdentifier(req.expression) && req.expression.text === 'require' && req.arguments[0] && ts.isStringLiteral(req.arguments[0])) {
        spec = req.arguments[0].text;
        imported = name;
      }
    }
    if (spec === undefined || imported === undefined || !spec.startsWith('.')) continue;
    const target = resolveRelativeModule(sources.rel(sf), spec, sources);
    const hit = target && target !== sf ? enumInFile(target, imported, depth + 1) : undefined;
    if (hit) return hit;
  }
  return undefined;
}

/** Zod object methods that keep the shape as it is. */
const ZOD_WRAPPERS = new Set(['strict', 'strip', 'passthrough', 'describe', 'readonly']);

/** The relative module an identifier binds whole (`import * as ns from './x'`, `const ns = require('./x')`). */
function moduleBoundBy(declId: ReturnType<typeof declarationOf>): string | undefined {
  if (!declId) return undefined;
  const imp = importOf(declId);
  if (imp) return imp.imported === '*' ? imp.spec : undefined;
  const init = initializerOf(declId);
  const call = init ? rawUnwrap(init.compilerNode) : undefined;
  if (call && ts.isCallExpression(call) && ts.isIdentifier(call.expression) && call.expression.text === 'require' && call.arguments[0] && ts.isStringLiteral(call.arguments[0])) return call.arguments[0].text;
  return undefined;
}

/** `ToolName.ListEvents` (`schemas_1.ToolName.ListEvents` in CommonJS output): the member's string when `ToolName` is an enum declared here or in a relative module. */
function enumMemberString(n: PropertyAccessExpression): string | undefined {
  const base = unwrap(n.getExpression());
  const sf = n.getSourceFile();
  const sources = sourcesOf(sf);
  const fromModule = (spec: string | undefined, name: string): EnumMembers | undefined => {
    if (!spec || !spec.startsWith('.') || !sources) return undefined;
    const target = resolveRelativeModule(sources.rel(sf), spec, sources);
    return target ? enumInFile(target, name) : undefined;
  };
  let members: EnumMembers | undefined;
  if (Node.isIdentifier(base)) {
    const d = declarationOf(base);
    if (!d) return undefined;
    const imp = importOf(d);
    members = imp ? (imp.imported !== '*' && imp.imported !== 'default' ? fromModule(imp.spec, imp.imported) : undefined) : rawEnumMembers(d.compilerNode);
  } else if (Node.isPropertyAccessExpression(base)) {
    const ns = unwrap(base.getExpression());
    if (Node.isIdentifier(ns)) members = fromModule(moduleBoundBy(declarationOf(ns)), base.getName());
  }
  return members?.get(n.getName());
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

/**
 * propertyValue through the spreads of an object literal (`{ ...SEARCH_OPTS, apiPath: '/x' }`): the last write of
 * `key` wins, a spread of an object literal the source shows (a const, followed by objectLiteralOf) is read in its
 * place. undefined when the key is not written, or when a spread the reading cannot follow comes after its last write.
 */
export function propertyThroughSpreads(obj: ObjectLiteralExpression | undefined, key: string, sources: ParsedSources): Node | undefined {
  const walk = (o: ObjectLiteralExpression, depth: number): Node | null | undefined => {
    const props = o.getProperties();
    for (let i = props.length - 1; i >= 0; i--) {
      const p = props[i]!;
      if (Node.isSpreadAssignment(p)) {
        const inner = depth < 3 ? objectLiteralOf(p.getExpression(), sources) : undefined;
        if (!inner || inner === o) return null;
        const v = walk(inner, depth + 1);
        if (v !== undefined) return v;
        continue;
      }
      if ((Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p)) && Node.isComputedPropertyName(p.getNameNode())) return null;
      if ((Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && propertyName(p.getNameNode()) === key) return propertyValue(o, key);
    }
    return undefined;
  };
  return (obj && walk(obj, 0)) ?? undefined;
}

/** A boolean written as a literal: `true`/`false`, or a minifier's `!0` (true) and `!1` (false). */
export function literalBoolean(n: Node): boolean | undefined {
  const v = unwrap(n);
  if (Node.isTrueLiteral(v) || Node.isFalseLiteral(v)) return Node.isTrueLiteral(v);
  if (Node.isPrefixUnaryExpression(v) && v.getOperatorToken() === SyntaxKind.ExclamationToken && Node.isNumericLiteral(v.getOperand()) && /^[01]$/.test(v.getOperand().getText())) return v.getOperand().getText() === '0';
  return undefined;
}

/** The keys of an object literal whose values are literal booleans (see literalBoolean). */
export function booleanAnnotations(obj: ObjectLiteralExpression | undefined): Record<string, boolean> | undefined {
  if (!obj) return undefined;
  const out: Record<string, boolean> = {};
  for (const p of obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    const b = literalBoolean(p.getInitializerOrThrow());
    if (k && b !== undefined) out[k] = b;
  }
  return out;
}

const ANNOTATION_KEYS = /^(?:title|\w+Hint)$/;
export function looksLikeAnnotations(obj: ObjectLiteralExpression | undefined): boolean {
  if (!obj) return false;
  const props = obj.getProperties();
  return (
    props.length > 0 &&
    props.every((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && ANNOTATION_KEYS.test(propertyName(p.getNameNode()) ?? '')) &&
    // The SDK takes an object whose values are all schemas for the input shape (`{ title: z.string() }`): annotation values are
    // literals, schema values are built by calls.
    !props.every((p) => Node.isPropertyAssignment(p) && Node.isCallExpression(p.getInitializer()))
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

export function methodOf(arg: Node | undefined): string | undefined {
  if (!arg) return undefined;
  const s = constString(arg);
  if (s) return s.value;
  const n = unwrap(arg);
  const id = Node.isPropertyAccessExpression(n) ? n.getName() : Node.isIdentifier(n) ? n.getText() : undefined;
  if (!id) return undefined;
  if (Object.hasOwn(REQUEST_SCHEMAS, id)) return REQUEST_SCHEMAS[id];
  // `import { CallToolRequestSchema as nc } from '@modelcontextprotocol/sdk/types.js'`: a minified bundle's alias.
  const d = Node.isIdentifier(n) ? declarationOf(n) : undefined;
  const imp = d ? importOf(d) : undefined;
  const schema = imp && imp.spec.startsWith('@modelcontextprotocol/') && Object.hasOwn(REQUEST_SCHEMAS, imp.imported) ? REQUEST_SCHEMAS[imp.imported] : undefined;
  return schema ?? id;
}

/* ----------------------------------------------------------- schema reading */

const SCHEMA_MODIFIERS = new Set(['strict', 'passthrough', 'strip', 'describe', 'optional', 'nullable', 'default', 'catchall', 'meta', 'readonly']);

/** The shape object of a zod object (`z.object({...})` and modifiers), a raw shape, or a JSON Schema's `properties`. */
function schemaShape(node: Node | undefined, sources: ParsedSources): { kind: 'zod' | 'json'; obj: ObjectLiteralExpression } | undefined {
  if (!node) return undefined;
  let n: Node = unwrap(node);
  // `Schema.shape`: the raw shape of a zod object, read as that object (its properties are the shape's).
  if (Node.isPropertyAccessExpression(n) && n.getName() === 'shape') n = unwrap(n.getExpression());
  // `schemas.Thing` of a module imported whole (`import * as schemas from './schemas.js'`).
  const member = moduleMember(n, sources);
  if (member) n = unwrap(member);
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
  const re = zodRegex(node);
  return re === undefined ? undefined : patternSafety(re);
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

/**
 * Top-level argument names the input schema holds to an anchored pattern (a zod `.regex(/^…$/)`, a JSON Schema
 * `pattern: '^…$'`), whatever characters it lets through, or to a format (`.url()`, `format: 'uri'`, a date, a
 * UUID, an IP): validated, for the rule on argument arrays.
 */
export function patternedArguments(schema: Node | undefined, sources: ParsedSources): string[] {
  const shape = schemaShape(schema, sources);
  if (!shape) return [];
  const anchored = (re: string | undefined): boolean => re !== undefined && re.startsWith('^') && re.endsWith('$') && !re.endsWith('\\$');
  const out: string[] = [];
  for (const p of shape.obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    if (!k) continue;
    const v = p.getInitializerOrThrow();
    if (shape.kind === 'zod' ? anchored(zodRegex(v)) || zodFormatted(v) : jsonValidated(objectLiteralOf(v, sources))) out.push(k);
  }
  return out;

  function jsonValidated(o: ObjectLiteralExpression | undefined): boolean {
    return anchored(constString(propertyValue(o, 'pattern'))?.value) || VALUE_FORMATS.has(constString(propertyValue(o, 'format'))?.value ?? '');
  }
}

/**
 * An outline of an input schema as its served JSON Schema would show it, for what a reader of served schemas looks at
 * beyond the property names: each top-level property with the string values of its `enum` (`z.enum([...])`, a JSON
 * Schema `enum`, of the property or of its array items) and its format when it is a URL (`.url()`, `format: 'uri'`).
 * An object-valued property (a `z.object`, a JSON Schema object, or an array of either) carries its fields, outlined
 * the same way, down to OUTLINE_DEPTH levels. Nothing else of the schema is read; a property whose values are not
 * literals has no enum.
 */
export interface OutlineProperty {
  enum?: string[];
  format?: string;
  /** The fields of an object-valued property, outlined the same way (a few levels down: see schemaOutline's depth). */
  properties?: Record<string, OutlineProperty>;
}

export function schemaOutline(schema: Node | undefined, sources: ParsedSources, depth = 0): { properties: Record<string, OutlineProperty> } | undefined {
  const shape = schemaShape(schema, sources);
  if (!shape) return undefined;
  const properties: Record<string, OutlineProperty> = {};
  const literals = (arr: Node | undefined): string[] | undefined => {
    const a = arr && unwrap(arr);
    if (!a || !Node.isArrayLiteralExpression(a)) return undefined;
    const vals = a.getElements().map((e) => constString(e)?.value);
    return vals.every((v): v is string => v !== undefined) ? vals : undefined;
  };
  for (const p of shape.obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    if (!k) continue;
    const v = p.getInitializerOrThrow();
    const out: OutlineProperty = {};
    // An object-valued property (or an array of objects): its fields, a few levels down.
    let inner: Node | undefined = v;
    if (shape.kind === 'zod') {
      const first = zodRoot(v);
      let root = first;
      if (root?.name === 'array' && root.args[0]) {
        inner = root.args[0];
        root = zodRoot(root.args[0]);
      }
      const e = root?.name === 'enum' ? literals(root.args[0]) : undefined;
      if (e) out.enum = e;
      if (root?.name === 'string' && zodUrl(v)) out.format = 'url';
    } else {
      const o = objectLiteralOf(v, sources);
      const items = objectLiteralOf(propertyValue(o, 'items'), sources);
      const e = literals(propertyValue(o, 'enum')) ?? literals(propertyValue(items, 'enum'));
      if (e) out.enum = e;
      const f = constString(propertyValue(o, 'format'))?.value;
      if (f === 'uri' || f === 'url' || f === 'iri') out.format = f;
      if (items) inner = items;
    }
    if (depth < OUTLINE_DEPTH && inner) {
      const nested = schemaOutline(inner, sources, depth + 1);
      if (nested && Object.keys(nested.properties).length > 0) out.properties = nested.properties;
    }
    properties[k] = out;
  }
  return { properties };
}

/** How many levels of object-valued properties schemaOutline reads below the top. */
const OUTLINE_DEPTH = 4;

/** A zod string chain checked as a URL (`z.string().url()`). */
function zodUrl(node: Node): boolean {
  let n = unwrap(node);
  for (let i = 0; i < 12 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return false;
    if (callee.getName() === 'url') return true;
    n = unwrap(callee.getExpression());
  }
  return false;
}

/** Formats whose values cannot start with `-` (a URL starts with its scheme, a date with a digit…). */
const VALUE_FORMATS = new Set(['uri', 'url', 'date-time', 'date', 'time', 'uuid', 'ipv4', 'ipv6']);
const ZOD_FORMATS = new Set(['url', 'uuid', 'cuid', 'cuid2', 'ulid', 'datetime', 'date', 'time', 'ip', 'ipv4', 'ipv6']);

/** A zod string chain with a format check (`z.string().url()`, `.uuid()`, `.datetime()`). */
function zodFormatted(node: Node): boolean {
  let n = unwrap(node);
  for (let i = 0; i < 12 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return false;
    if (ZOD_FORMATS.has(callee.getName())) return true;
    n = unwrap(callee.getExpression());
  }
  return false;
}

/** The source of the `.regex(/…/)` in a zod chain, if any. */
function zodRegex(node: Node): string | undefined {
  let n = unwrap(node);
  for (let i = 0; i < 12 && Node.isCallExpression(n); i++) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    if (callee.getName() === 'regex') return regexSource(n.getArguments()[0]);
    n = unwrap(callee.getExpression());
  }
  return undefined;
}

/**
 * The members of a namespace object a bundler wrote for `import * as tools` / `export * as tools` (what
 * `Object.values(tools)` lists): rolldown/tsdown's `var tools_exports = __export({ a: () => a, … })` and esbuild's
 * `var tools_exports = {}; __export(tools_exports, { a: () => a, … })` (the second call found among the top-level
 * statements of the variable's file). Each member is the getter's returned expression. undefined when the value is
 * not such an object (or a getter is not a plain `() => value`).
 */
/** bundlerNamespaceMembers of what an identifier holds (a const, an import of one), else undefined. */
export function namespaceMembersOf(node: Node, sources: ParsedSources): Node[] | undefined {
  const id = unwrap(node);
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  const v = d ? valueOfDeclaration(d, sources) : undefined;
  return v && !Node.isSourceFile(v) ? bundlerNamespaceMembers(v) : undefined;
}

export function bundlerNamespaceMembers(value: Node | undefined): Node[] | undefined {
  if (!value) return undefined;
  const v = Node.isVariableDeclaration(value) ? value.getInitializer() : value;
  const u = v && unwrap(v);
  if (!u) return undefined;
  let table: Node | undefined;
  if (Node.isCallExpression(u) && /^__export(?:All)?$/.test(calleeName(u)) && u.getArguments().length === 1) table = u.getArguments()[0];
  else if (Node.isObjectLiteralExpression(u) && u.getProperties().length === 0) {
    const decl = u.getParent();
    const name = Node.isVariableDeclaration(decl) ? decl.getName() : undefined;
    if (!name) return undefined;
    // esbuild: `__export(name, { … })` as a top-level statement of the same file (a read of its statements only).
    for (const st of u.getSourceFile().compilerNode.statements) {
      if (!ts.isExpressionStatement(st) || !ts.isCallExpression(st.expression)) continue;
      const c = st.expression;
      if (ts.isIdentifier(c.expression) && /^__export$/.test(c.expression.text) && c.arguments.length === 2 && ts.isIdentifier(c.arguments[0]!) && c.arguments[0].text === name) {
        table = wrapNode(u.getSourceFile(), c.arguments[1]!);
        break;
      }
    }
  }
  const obj = table && unwrap(table);
  if (!obj || !Node.isObjectLiteralExpression(obj)) return undefined;
  const out: Node[] = [];
  for (const p of obj.getProperties()) {
    const getter = Node.isPropertyAssignment(p) ? unwrap(p.getInitializer()!) : undefined;
    if (!getter || !Node.isArrowFunction(getter)) return undefined;
    const body = getter.getBody();
    if (Node.isBlock(body)) return undefined;
    out.push(body);
  }
  return out;
}

/**
 * The elements of a list written in the code: array literals, their spreads, consts and imports of them, an
 * export of a module required or imported whole (`browser_tools_1.allTools`), `Object.values(TABLE)` (bounded).
 */
/**
 * What the calls of a named function of the source pass for one of its parameters, or for a property of a
 * parameter destructured in place (`function make({ tools: list })` called as `make({ name, tools })`).
 */
export function passedToParameter(d: Node, sources: ParsedSources): Node[] {
  let x: Node | undefined = Node.isIdentifier(d) ? d.getParent() : d;
  let key: string | undefined;
  if (x && Node.isBindingElement(x)) {
    const pattern = x.getParent();
    if (!pattern || !Node.isObjectBindingPattern(pattern) || x.getDotDotDotToken()) return [];
    const prop = x.getPropertyNameNode();
    key = prop ? propertyName(prop) : x.getName();
    x = pattern.getParent();
    // `const { tools } = options` in the body, `options` a parameter: the key of what the calls pass for it.
    if (x && Node.isVariableDeclaration(x)) {
      const init = x.getInitializer();
      const u = init && unwrap(init);
      const pd = u && Node.isIdentifier(u) ? declarationOf(u) : undefined;
      x = pd && Node.isParameterDeclaration(pd.getParent()) ? pd.getParent() : undefined;
    }
  }
  if (!x || !Node.isParameterDeclaration(x)) return [];
  const fn = x.getParent();
  const holder = fn?.getParent();
  const name = fn && Node.isFunctionDeclaration(fn) ? fn.getName() : fn && holder && Node.isVariableDeclaration(holder) && (Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) ? holder.getName() : undefined;
  if (!fn || !name || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return [];
  const index = fn.getParameters().indexOf(x);
  const out: Node[] = [];
  for (const sf of sources.files.values()) {
    if (!sf.getFullText().includes(name)) continue;
    for (const cn of rawCalls(sf.compilerNode, name)) {
      const arg = wrapNode(sf, cn).asKind(SyntaxKind.CallExpression)?.getArguments()[index];
      const value = arg && key !== undefined ? propertyValue(objectLiteralOf(arg, sources), key) : arg;
      if (value && out.length < 20) out.push(value);
    }
  }
  return out;
}

/** The calls `name(…)` of a file, on compiler nodes. */
function rawCalls(root: ts.Node, name: string): ts.CallExpression[] {
  const out: ts.CallExpression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === name) out.push(n);
    ts.forEachChild(n, visit);
  };
  visit(root);
  return out;
}

/** The list whose elements a variable takes in turn: the first parameter of `LIST.forEach((x) => …)`, the variable of `for (const x of LIST)`. */
function iteratedList(d: Node): Node | undefined {
  const decl = d.getParent();
  if (decl && Node.isVariableDeclaration(decl) && decl.getNameNode() === d) {
    const stmt = decl.getParent()?.getParent();
    return stmt && Node.isForOfStatement(stmt) ? stmt.getExpression() : undefined;
  }
  if (!decl || !Node.isParameterDeclaration(decl) || decl.getNameNode() !== d) return undefined;
  const fn = decl.getParent();
  const call = fn?.getParent();
  if (!fn || !isFunctionLike(fn) || fn.getParameters()[0] !== decl || !call || !Node.isCallExpression(call) || call.getArguments()[0] !== fn) return undefined;
  const callee = unwrap(call.getExpression());
  return Node.isPropertyAccessExpression(callee) && callee.getName() === 'forEach' ? callee.getExpression() : undefined;
}

/**
 * The values a helper of the source returns under a destructured key: `const { readOnlyTools } = categorize(list)`
 * for `const categorize = (tools) => { const readOnlyTools = tools.filter(…); return { readOnlyTools, writeTools } }`
 * gives the helper's `readOnlyTools` (its own parameter is then read from the helper's calls). undefined when the
 * declaration is not such a binding or the callee is not a function of the source.
 */
function destructuredReturn(d: Node, sources: ParsedSources): Node[] | undefined {
  const be = d.getParent();
  if (!be || !Node.isBindingElement(be) || be.getNameNode() !== d) return undefined;
  const decl = be.getParent()?.getParent();
  if (!decl || !Node.isVariableDeclaration(decl) || !Node.isObjectBindingPattern(be.getParent()!)) return undefined;
  let init = decl.getInitializer() && unwrap(decl.getInitializer()!);
  while (init && Node.isAwaitExpression(init)) init = unwrap(init.getExpression());
  if (!init || !Node.isCallExpression(init)) return undefined;
  let fn;
  try {
    fn = functionOf(init.getExpression(), sources);
  } catch {
    fn = undefined;
  }
  const body = fn?.getBody();
  if (!fn || !body) return undefined;
  const key = be.getPropertyNameNode()?.getText() ?? d.getText();
  // The function's own return statements (not those of functions nested in it), or its expression body.
  const returned: ts.Expression[] = [];
  if (!Node.isBlock(body)) returned.push(body.compilerNode as ts.Expression);
  else {
    const visit = (cn: ts.Node): void => {
      if (ts.isArrowFunction(cn) || ts.isFunctionExpression(cn) || ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn) || ts.isClassDeclaration(cn)) return;
      if (ts.isReturnStatement(cn) && cn.expression) returned.push(cn.expression);
      ts.forEachChild(cn, visit);
    };
    ts.forEachChild(body.compilerNode, visit);
  }
  const out: Node[] = [];
  for (const r of returned) {
    const v = propertyValue(objectLiteralOf(wrapNode(body.getSourceFile(), r), sources), key);
    if (v) out.push(v);
  }
  return out;
}

export function listElements(expr: Node, sources: ParsedSources, depth = 0): Node[] {
  if (depth > 10) return [];
  let u = unwrap(expr);
  while (Node.isAwaitExpression(u) || Node.isTypeAssertion(u)) u = unwrap(u.getExpression());
  if (Node.isArrayLiteralExpression(u)) return u.getElements().flatMap((e) => (Node.isSpreadElement(e) ? listElements(e.getExpression(), sources, depth + 1) : [e]));
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const v = d && valueOfDeclaration(d, sources);
    if (v && v !== u && !Node.isSourceFile(v)) return listElements(v, sources, depth + 1);
    // One list of a list of lists: `LISTS.forEach((tools) => register(tools))`, `for (const tools of LISTS)`.
    const outer = d && iteratedList(d);
    if (outer) return listElements(outer, sources, depth + 1).flatMap((el) => listElements(el, sources, depth + 1));
    // A list a helper of the source returns under the destructured key (`const { writeTools } = categorize(tools)`).
    const returned = d && destructuredReturn(d, sources);
    if (returned) return returned.flatMap((v) => listElements(v, sources, depth + 1));
    // A list a helper is given: `createServer({ tools })` for `function createServer({ tools: list })`.
    return d ? passedToParameter(d, sources).flatMap((a) => listElements(a, sources, depth + 1)) : [];
  }
  // An endpoint table a client generator writes (openapi-zod-client / zodios): `makeApi([...])`, and the `endpoints`
  // (or `api`) of a `new Zodios(endpoints)` / `new Zodios(baseUrl, endpoints, options)` client holding it.
  if (Node.isCallExpression(u) && MAKE_API.test(calleeName(u))) return u.getArguments()[0] ? listElements(u.getArguments()[0]!, sources, depth + 1) : [];
  if (Node.isPropertyAccessExpression(u) && (u.getName() === 'endpoints' || u.getName() === 'api')) {
    const client = zodiosClient(u.getExpression(), sources);
    if (client) {
      for (const a of client.getArguments()) {
        const rows = constString(a) ? [] : listElements(a, sources, depth + 1);
        if (rows.length) return rows;
      }
      return [];
    }
  }
  const member = moduleMember(u, sources);
  if (member) return listElements(member, sources, depth + 1);
  // A part of a list (`tools.filter((t) => !t.omitFromLocal)`, `tools.slice()`): at most its elements.
  if (Node.isCallExpression(u)) {
    const callee = unwrap(u.getExpression());
    if (Node.isPropertyAccessExpression(callee) && /^(?:filter|slice|toSorted|toReversed)$/.test(callee.getName())) return listElements(callee.getExpression(), sources, depth + 1);
  }
  if (Node.isCallExpression(u) && unwrap(u.getExpression()).getText() === 'Object.values' && u.getArguments()[0]) {
    const ns = namespaceMembersOf(u.getArguments()[0]!, sources);
    if (ns) return ns;
    const obj = objectLiteralOf(u.getArguments()[0]!, sources);
    return obj ? obj.getProperties().flatMap((p) => (Node.isPropertyAssignment(p) ? [p.getInitializer()!] : Node.isShorthandPropertyAssignment(p) ? [p.getNameNode()] : [])) : [];
  }
  return [];
}

/** Generated clients' endpoint-table functions (zodios' `makeApi`, openapi-zod-client's output). */
export const MAKE_API = /^(?:makeApi|makeEndpoints)$/;

/** The called function's own name: `makeApi` of `makeApi(…)`, `core.makeApi(…)`, `(0, core_1.makeApi)(…)`. */
export function calleeName(call: Node): string {
  if (!Node.isCallExpression(call) && !Node.isNewExpression(call)) return '';
  let c: Node | undefined = unwrap(call.getExpression());
  // `(0, core_1.makeApi)`: the comma expression's last operand.
  while (c && Node.isBinaryExpression(c) && c.getOperatorToken().getKind() === SyntaxKind.CommaToken) c = unwrap(c.getRight());
  return !c ? '' : Node.isPropertyAccessExpression(c) ? c.getName() : Node.isIdentifier(c) ? c.getText() : '';
}

/** The `new Zodios(…)` an expression holds (a const, an import, a module member such as `client_1.api`), if any. */
function zodiosClient(expr: Node, sources: ParsedSources, depth = 0): NewExpression | undefined {
  if (depth > 4) return undefined;
  const u = unwrap(expr);
  if (Node.isNewExpression(u)) return /^Zodios\d*$/.test(calleeName(u)) ? u : undefined; // `Zodios2`: a bundler's renamed copy
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const v = d && valueOfDeclaration(d, sources);
    const init = v && Node.isVariableDeclaration(v) ? v.getInitializer() : v;
    return init && init !== u && !Node.isSourceFile(init) ? zodiosClient(init, sources, depth + 1) : undefined;
  }
  const member = moduleMember(u, sources);
  return member && member !== u ? zodiosClient(member, sources, depth + 1) : undefined;
}
