import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declarationOf, rawDeclarationOf, valueOfDeclaration } from '../../facts/scope.js';
import { constString, propertyValue, serverModel, type ToolDef } from '../../facts/server-model.js';
import { positionOf, propertyName, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { codeOf } from '../support/source/code-paths.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import { keyState, toolsToJudge } from '../support/source/generated-tools.js';
import { judgePythonSchemas } from './python.js';

/**
 * C-4 — typed input and output schemas (static part). For every tool registered in the source
 * (facts/server-model: registerTool, v1 `tool`, FastMCP addTool, tools/list definitions), the input and
 * output schemas must be written, and no part of them may be a catch-all:
 *   - zod: `z.any()`, `z.unknown()` anywhere (so `z.record(z.string(), z.any())` too), an object with no
 *     declared property left open (`z.object({}).passthrough()`, `z.looseObject({})`);
 *   - JSON Schema literals: `{}`, an object type without properties whose additional properties are not
 *     closed (`{ type: 'object' }`, `additionalProperties: true`), a property with no type, an array with
 *     no `items`.
 * Extra properties left open beside declared ones are not flagged (as in the dynamic part). Schemas given
 * as identifiers are followed to their `const` (same file or a relative import). One finding per
 * construct, at its line; a missing schema is reported at the tool's name.
 *
 * Tools built at run time from one template (support/source/generated-tools) are judged on it when the source
 * writes no tool one by one: a schema key the template does not write (and no spread) is missing for every tool
 * built from it; a schema read from the mapped item (a document's, a catalog's) is could-not-judge
 * 'schema-from-data' when nothing is red.
 *
 * A tool that takes no arguments: in the SDKs' raw-shape APIs (`registerTool`, v1 `tool`) an input schema
 * written `{}` is an empty shape, "no arguments", never a catch-all. And an input schema whose root is an
 * object without properties (`{ type: 'object' }`, `z.object({}).passthrough()`) is no catch-all for a tool
 * that takes nothing: its handler has no arguments parameter or never uses it (a low-level dispatcher
 * branch that never reads the request's arguments). Properties a handler reads from an open empty
 * object are a catch-all, and so is `additionalProperties: true`.
 */

type Construct =
  | 'zod_any'
  | 'zod_unknown'
  | 'open_zod_object'
  | 'empty_json_schema'
  | 'open_json_object'
  | 'additional_properties_true'
  | 'untyped_property'
  | 'array_without_items';

const TYPING = ['type', 'enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'not'];
const JSON_KEYWORDS = new Set([...TYPING, 'properties', 'additionalProperties', 'items', 'required', 'description', 'title', '$schema', 'default', 'examples', 'patternProperties', 'prefixItems']);

interface Hit {
  node: Node;
  construct: Construct;
}

/** Is this object literal a JSON Schema node (rather than a zod raw shape)? */
function isJsonSchemaObject(o: Node): boolean {
  if (!Node.isObjectLiteralExpression(o)) return false;
  const props = o.getProperties();
  if (props.length === 0) return true;
  // zod values (calls) make a raw shape, even under a key named like a keyword (`{ type: z.enum([...]) }`).
  if (props.some((p) => Node.isPropertyAssignment(p) && Node.isCallExpression(unwrap(p.getInitializerOrThrow())))) return false;
  const keys = props.map((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) ? propertyName(p.getNameNode()) : undefined));
  return keys.every((k) => k !== undefined && JSON_KEYWORDS.has(k)) && keys.some((k) => TYPING.includes(k!) || k === 'properties');
}

const shapeIsEmpty = (arg: Node | undefined): boolean => {
  const a = arg ? unwrap(arg) : undefined;
  return !a || (Node.isObjectLiteralExpression(a) && a.getProperties().length === 0);
};

function walkJson(node: Node, hits: Hit[], walk: (n: Node) => void): void {
  if (!Node.isObjectLiteralExpression(node)) return walk(node);
  if (node.getProperties().length === 0) {
    hits.push({ node, construct: 'empty_json_schema' });
    return;
  }
  const get = (k: string) => propertyValue(node, k);
  const type = constString(get('type'))?.value;
  const typed = TYPING.some((k) => get(k) !== undefined);
  if (!typed && !get('properties')) hits.push({ node, construct: 'untyped_property' });
  const props = get('properties');
  const propsObj = props && unwrap(props);
  const hasProps = !!propsObj && Node.isObjectLiteralExpression(propsObj) && propsObj.getProperties().length > 0;
  const ap = get('additionalProperties');
  const apNode = ap && unwrap(ap);
  if (apNode && Node.isTrueLiteral(apNode)) hits.push({ node: ap!.getParent() ?? ap!, construct: 'additional_properties_true' });
  else if (type === 'object' && !hasProps && !get('patternProperties') && (!apNode || (Node.isObjectLiteralExpression(apNode) && apNode.getProperties().length === 0))) {
    hits.push({ node, construct: 'open_json_object' });
  }
  if (type === 'array' && !get('items') && !get('prefixItems')) hits.push({ node, construct: 'array_without_items' });
  if (hasProps && Node.isObjectLiteralExpression(propsObj)) {
    for (const p of propsObj.getProperties()) if (Node.isPropertyAssignment(p)) walkJson(unwrap(p.getInitializerOrThrow()), hits, walk);
  }
  if (apNode && Node.isObjectLiteralExpression(apNode) && apNode.getProperties().length > 0) walkJson(apNode, hits, walk);
  const items = get('items');
  if (items) {
    const i = unwrap(items);
    if (Node.isArrayLiteralExpression(i)) i.getElements().forEach((e) => walkJson(unwrap(e), hits, walk));
    else walkJson(i, hits, walk);
  }
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const list = get(k);
    const l = list && unwrap(list);
    if (l && Node.isArrayLiteralExpression(l)) l.getElements().forEach((e) => walkJson(unwrap(e), hits, walk));
  }
}

/** The schema node an expression stands for: identifiers followed to their const (as catchAlls does). */
function resolvedRoot(schema: Node, sources: ParsedSources): Node {
  let n = unwrap(schema);
  for (let i = 0; i < 5 && Node.isIdentifier(n); i++) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    if (!v || v === n || Node.isSourceFile(v)) break;
    n = unwrap(v);
  }
  return n;
}

/** Does a tool's handler take no arguments: no arguments parameter, one it never uses, or a dispatcher branch that never reads them? */
function takesNothing(t: ToolDef): boolean | undefined {
  if (t.branch) return !/\barguments\b/.test(t.branch.getText());
  const h = t.handler;
  if (!h || t.api === 'tools/list' || t.api === 'definition') return undefined;
  const first = h.getParameters()[0];
  if (!first) return true;
  const name = first.getNameNode();
  if (Node.isObjectBindingPattern(name)) return name.getElements().length === 0;
  if (!Node.isIdentifier(name)) return false;
  const id = name.getText();
  const body = h.getBody();
  if (!body) return false;
  // Read on compiler nodes: getDescendantsOfKind(Identifier) would build (and keep) the token children of the
  // whole body and a wrapper for every identifier in it, for every tool of the audit.
  const decl = name.compilerNode;
  let used = false;
  const visit = (cn: ts.Node): void => {
    if (used) return;
    if (ts.isIdentifier(cn) && cn.text === id && rawDeclarationOf(cn) === decl) used = true;
    else ts.forEachChild(cn, visit);
  };
  visit(body.compilerNode);
  return !used;
}

/** APIs whose input schema may be a raw zod shape, where `{}` means "no arguments". */
const RAW_SHAPE_APIS = new Set(['registerTool', 'tool']);

/** Catch-all constructs in a schema expression (zod or JSON Schema), identifiers followed. */
function catchAlls(schema: Node, sources: ParsedSources): Hit[] {
  const hits: Hit[] = [];
  const seen = new Set<Node>();
  const walk = (node: Node, depth = 0): void => {
    if (depth > 30) return;
    const n = unwrap(node);
    if (seen.has(n)) return;
    seen.add(n);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      const v = d ? valueOfDeclaration(d, sources) : undefined;
      if (v && v !== n && !Node.isSourceFile(v) && !Node.isFunctionDeclaration(v) && !Node.isClassDeclaration(v)) walk(v, depth + 1);
      return;
    }
    if (Node.isObjectLiteralExpression(n)) {
      if (isJsonSchemaObject(n)) walkJson(n, hits, (x) => walk(x, depth + 1));
      else for (const p of n.getProperties()) if (Node.isPropertyAssignment(p)) walk(p.getInitializerOrThrow(), depth + 1);
      return;
    }
    if (Node.isArrayLiteralExpression(n)) {
      n.getElements().forEach((e) => walk(e, depth + 1));
      return;
    }
    if (!Node.isCallExpression(n)) return;
    const callee = unwrap(n.getExpression());
    const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
    const args = n.getArguments();
    if (name === 'any' && args.length === 0) hits.push({ node: n, construct: 'zod_any' });
    else if (name === 'unknown' && args.length === 0) hits.push({ node: n, construct: 'zod_unknown' });
    else if (name === 'looseObject' && shapeIsEmpty(args[0])) hits.push({ node: n, construct: 'open_zod_object' });
    else if (name === 'passthrough' && Node.isPropertyAccessExpression(callee)) {
      const inner = unwrap(callee.getExpression());
      const ic = Node.isCallExpression(inner) ? unwrap(inner.getExpression()) : undefined;
      if (ic && Node.isPropertyAccessExpression(ic) && ic.getName() === 'object' && Node.isCallExpression(inner) && shapeIsEmpty(inner.getArguments()[0])) {
        hits.push({ node: n, construct: 'open_zod_object' });
      }
    }
    if (Node.isPropertyAccessExpression(callee)) walk(callee.getExpression(), depth + 1);
    // An object literal passed to a call is a zod shape (`z.object({ … })`), never a JSON Schema.
    for (const a of args) {
      const u = unwrap(a);
      if (Node.isObjectLiteralExpression(u)) {
        for (const p of u.getProperties()) if (Node.isPropertyAssignment(p)) walk(p.getInitializerOrThrow(), depth + 1);
      } else walk(a, depth + 1);
    }
  };
  walk(schema);
  return hits;
}

/**
 * The root constructs of a tool's input schema that mean "no arguments" (see the file header): an empty
 * raw shape in a raw-shape API, and an object root without properties for a tool that takes nothing.
 */
function inputRootExempt(t: ToolDef, sources: ParsedSources): ((h: Hit) => boolean) | undefined {
  if (!t.inputSchema) return undefined;
  const root = resolvedRoot(t.inputSchema, sources);
  const rawEmpty = RAW_SHAPE_APIS.has(t.api) && Node.isObjectLiteralExpression(root) && root.getProperties().length === 0;
  // Asked only of an open object root (the handler's body is walked for it).
  let nothing: boolean | undefined;
  const takes = (): boolean => (nothing ??= takesNothing(t) === true);
  return (h) => h.node === root && ((rawEmpty && h.construct === 'empty_json_schema') || ((h.construct === 'open_json_object' || h.construct === 'open_zod_object') && takes()));
}

export default defineDetector({
  ruleId: 'C-4',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'source-missing-schema': ['tool', 'schema'],
    'source-catch-all': ['tool', 'schema', 'construct'],
    'python-missing-schema': ['tool', 'schema'],
    'python-catch-all': ['tool', 'schema', 'construct'],
  },
  judge({ inputs: { repo, session } }) {
    const src = codeOf(repo, { pythonPart: true });
    if (!src.ok) return src.verdict.reason?.code === 'no-js-source' ? judgePythonSchemas(repo, session) : src.verdict;
    // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools).
    const tools = toolsToJudge(repo);
    if (tools.length === 0) return noToolsFound(repo, session);
    const findings: Finding[] = [];
    let unknown = 0;
    const reported = new Set<Node>();
    const check = (t: ToolDef, schema: 'input' | 'output', node: Node | undefined, exempt?: (h: Hit) => boolean) => {
      const state = keyState(t, `${schema}Schema`, node);
      // A schema a spread may bring, or read from the item a template maps (a document's, a catalog's): not judged here.
      if (state === 'unknown') {
        unknown++;
        return;
      }
      if (!node) {
        findings.push({ messageId: 'source-missing-schema', data: { tool: t.name, schema }, location: { file: t.file, line: t.nameLine } });
        return;
      }
      for (const h of catchAlls(node, src.code.sources)) {
        if (exempt?.(h)) continue;
        if (reported.has(h.node)) continue;
        reported.add(h.node);
        findings.push({
          messageId: 'source-catch-all',
          data: { tool: t.name, schema, construct: h.construct },
          location: { file: src.code.rel(h.node.getSourceFile()), line: positionOf(h.node).line },
          evidence: h.node.getText().replace(/\s+/g, ' ').slice(0, 120),
        });
      }
    };
    for (const t of tools) {
      check(t, 'input', t.inputSchema, inputRootExempt(t, src.code.sources));
      check(t, 'output', t.outputSchema);
    }
    if (findings.length) return { state: 'non-conforming', findings };
    return unknown ? couldNotJudge('schema-from-data', { count: unknown }) : present();
  },
});
