import { Node, SyntaxKind } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { constString, definitionKeys, objectLiteralOf, propertyValue, serverModel, type ToolDef } from '../../../facts/server-model.js';
import type { ClassNode } from '../../../facts/scope.js';
import { parsedSources, positionOf, propertyName, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import type { Identifier, ObjectLiteralExpression, PropertyAssignment } from '../../../facts/morph.js';
import { toolTemplates, type ToolTemplate } from '../../../facts/tool-templates.js';
import { classField, MAX_DOCUMENT_ROWS, onItem, type LoopItem } from '../../../facts/server-model/class-tools.js';
import { NOT_ROW_EXACT, documentOf, documentValue } from '../../../facts/data-documents.js';
import { declarationOf } from '../../../facts/scope.js';

/**
 * The tools a server builds at run time, read through their template (facts/tool-templates), for the static
 * rules that judge a key every tool must (or must not) have. Used when the server model finds no tool
 * written one literal per tool: one tool per template (named by the template's name expression, e.g.
 * `op.operationId`), or, for a table of class instances, one tool per class (its `name` field, and each
 * template key read from the class's field of that name when the template writes `t.key`).
 *
 * A generated tool's location is the template's line: the absence of a key there holds for every tool built
 * from it. When the template walks the rows of a data document the package ships (facts/data-documents) —
 * `doc.tools.map((t) => ({ name: t.name, … }))`, an OpenAPI document's `paths` → method → operation walked by
 * nested Object.entries loops or flatMaps — and nothing between the rows and the template can drop one (no `if`,
 * `continue`, `break`, `?:` or `filter` in the walk), there is one tool per row: `item.key` read on the row (its name,
 * description, annotations when the document writes them), located at the row in the document. keyState() says
 * what a rule may conclude about a key:
 *   - 'absent': the template does not write it, no spread can bring it, and no code of the files involved assigns
 *     a property of that name (every generated tool lacks it);
 *   - 'written': the template (or the class field it reads) writes it as a value the source shows;
 *   - 'unknown': a spread may bring it, or it is read from data (the document, an operation object).
 */

export interface GeneratedTool extends ToolDef {
  template: ToolTemplate;
  cls?: ClassNode;
  /** The node a template key stands for on this tool (a class's field for `t.key`), if written. */
  read(key: string): Node | undefined;
  /** The document row this tool is built from (see the file header), when the template's rows are read. */
  row?: LoopItem;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
const ENTRY_STATICS = /^Object\.(?:entries|values)$/;

/** The values a list walks: `Object.entries(X)` / `Object.values(X)` walk X's values (keyed), anything else itself. */
function walked(list: Node): { target: Node; keyed: boolean } {
  const u = unwrap(list);
  if (Node.isCallExpression(u) && ENTRY_STATICS.test(unwrap(u.getExpression()).getText().replace(/\s+/g, '')) && u.getArguments()[0]) return { target: u.getArguments()[0]!, keyed: true };
  return { target: u, keyed: false };
}

/** The name a loop's variable or callback's parameter gives each walked value: `op`, or `op` of `[method, op]` over Object.entries. */
function valueName(bound: Node | undefined, keyed: boolean, list: Node): string | undefined {
  if (!bound) return undefined;
  if (Node.isIdentifier(bound)) return walkedByEntries(list) ? undefined : bound.getText();
  if (Node.isArrayBindingPattern(bound) && keyed && walkedByEntries(list)) {
    const v = bound.getElements()[1];
    return v && Node.isBindingElement(v) && Node.isIdentifier(v.getNameNode()) && !v.getDotDotDotToken() ? v.getNameNode().getText() : undefined;
  }
  return undefined;
}
const walkedByEntries = (list: Node): boolean => {
  const u = unwrap(list);
  return Node.isCallExpression(u) && unwrap(u.getExpression()).getText().replace(/\s+/g, '') === 'Object.entries';
};

/** The loop or callback that binds an identifier to each value of a list, and that list. */
function binderOf(id: Identifier): { list: Node; bound: Node; scope: Node } | undefined {
  const d = declarationOf(id);
  if (!d) return undefined;
  const decl = d.getFirstAncestor((a) => Node.isVariableDeclaration(a) || Node.isParameterDeclaration(a));
  if (!decl) return undefined;
  const bound = (decl as Node & { getNameNode(): Node }).getNameNode();
  if (Node.isVariableDeclaration(decl)) {
    const loop = decl.getParent()?.getParent();
    if (loop && Node.isForOfStatement(loop)) return { list: loop.getExpression(), bound, scope: loop };
    return undefined;
  }
  const fn = decl.getParent();
  const call = fn?.getParent();
  if (!fn || !(Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) || fn.getParameters()[0] !== decl || !call || !Node.isCallExpression(call)) return undefined;
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee) || !['map', 'flatMap', 'forEach'].includes(callee.getName())) return undefined;
  return { list: callee.getExpression(), bound, scope: fn };
}

/**
 * The object rows a list walks when they are read from a data document, with the walks (loops, callbacks) that reach
 * them: the document's array or object values, or, for a list of an outer walk's value (`Object.entries(item)` with
 * `item` walking `Object.entries(doc.paths)`), the HTTP operations of each outer row. undefined when not read.
 */
function documentRowsOf(list: Node, sources: ParsedSources, scopes: Node[], depth = 0): { file?: string; rows: ObjectLiteralExpression[] } | undefined {
  if (depth > 3) return undefined;
  const { target, keyed } = walked(list);
  const objects = (vals: Node[]): ObjectLiteralExpression[] | undefined => {
    const out = vals.map((v) => unwrap(v)).filter((v): v is ObjectLiteralExpression => Node.isObjectLiteralExpression(v));
    return out.length === vals.length ? out : undefined;
  };
  const via = new Set<string>();
  const read = documentValue(target, sources, 0, via);
  // Rows that reach the walk through a method that may drop some or add others (`const visible = doc.rows.filter(…)`)
  // are not the document's rows one for one: the template stays one (see templateRows).
  if (read && [...via].some((m) => NOT_ROW_EXACT.has(m))) return undefined;
  if (read) {
    const v = read.value;
    if (!v) return undefined;
    if (Node.isArrayLiteralExpression(v) && !keyed) {
      const rows = objects(v.getElements());
      return rows ? { file: read.file, rows } : undefined;
    }
    if (Node.isObjectLiteralExpression(v) && keyed) {
      const props = v.getProperties();
      if (!props.every((p) => Node.isPropertyAssignment(p))) return undefined;
      const rows = objects(props.map((p) => (p as PropertyAssignment).getInitializerOrThrow()));
      return rows ? { file: read.file, rows } : undefined;
    }
    return undefined;
  }
  // The operations of an outer walk's value: `Object.entries(item)` where `item` walks `Object.entries(doc.paths)`.
  const t = unwrap(target);
  if (!keyed || !Node.isIdentifier(t)) return undefined;
  const outer = binderOf(t);
  if (!outer || valueName(outer.bound, walked(outer.list).keyed, outer.list) !== t.getText()) return undefined;
  const up = documentRowsOf(outer.list, sources, scopes, depth + 1);
  if (!up) return undefined;
  scopes.push(outer.scope);
  const rows: ObjectLiteralExpression[] = [];
  for (const item of up.rows) {
    for (const p of item.getProperties()) {
      if (!Node.isPropertyAssignment(p)) return undefined;
      const k = propertyName(p.getNameNode());
      const v = unwrap(p.getInitializerOrThrow());
      if (k && HTTP_METHODS.has(k.toLowerCase()) && Node.isObjectLiteralExpression(v)) rows.push(v);
    }
  }
  return { file: up.file, rows };
}

/**
 * Does the list a template walks reach the document through a method that may drop rows or add others
 * (`const visible = doc.endpoints.filter(…)`, `.slice(…)`, `.concat(…)`)? Then the document's rows are not the tools
 * one for one, and neither the rows nor the whole document may stand for them.
 */
export function listMayDrop(tpl: ToolTemplate, sources: ParsedSources): boolean {
  if (!tpl.list) return false;
  const via = new Set<string>();
  documentValue(walked(tpl.list).target, sources, 0, via);
  return [...via].some((m) => NOT_ROW_EXACT.has(m));
}

/** Can anything between the rows and the template drop a row (a condition, a jump, a filter)? */
function mayDrop(tpl: ToolTemplate, scopes: Node[]): boolean {
  if (/\.filter\s*\(/.test(tpl.handler.handler?.getText() ?? '')) return true;
  for (const scope of scopes) {
    for (const d of scope.getDescendants()) {
      if (d === tpl.node || d.getFirstAncestor((a) => a === tpl.node)) continue;
      if (Node.isIfStatement(d) || Node.isContinueStatement(d) || Node.isBreakStatement(d) || Node.isConditionalExpression(d) || Node.isSwitchStatement(d)) return true;
      if (Node.isCallExpression(d) && /\.filter$/.test(unwrap(d.getExpression()).getText())) return true;
    }
  }
  return false;
}

/**
 * A template's value on one document row: `item.key` is the row's value, and nothing when the row (an object without
 * spreads, read from the document) does not have that key; anything else as onItem reads it.
 */
function onRow(v: Node | undefined, row: LoopItem): Node | undefined {
  const u = v && unwrap(v);
  if (u && Node.isPropertyAccessExpression(u) && unwrap(u.getExpression()).getText() === row.param && !row.obj.getProperties().some((p) => Node.isSpreadAssignment(p))) return propertyValue(row.obj, u.getName());
  return onItem(v, row);
}

/** The document rows a template is built from, one tool each (see the file header); undefined when not read. */
function templateRows(tpl: ToolTemplate, sources: ParsedSources): LoopItem[] | undefined {
  if (!tpl.list || !tpl.paramNode || tpl.items === 'classes') return undefined;
  const param = valueName(tpl.paramNode, walked(tpl.list).keyed, tpl.list);
  if (!param) return undefined;
  const own = tpl.paramNode.getFirstAncestor((a) => Node.isForOfStatement(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a));
  if (!own) return undefined;
  const scopes: Node[] = [own];
  const read = documentRowsOf(tpl.list, sources, scopes);
  if (!read || read.rows.length === 0 || read.rows.length > MAX_DOCUMENT_ROWS || mayDrop(tpl, scopes)) return undefined;
  return read.rows.map((obj) => ({ param, obj, ...(read.file ? { document: read.file } : {}) }));
}

/** What a template's value stands for on one class instance: `t.key` is the class's field `key`; anything else is itself. */
function onClass(v: Node | undefined, param: string | undefined, cls: ClassNode | undefined): Node | undefined {
  if (!v || !cls || !param) return v;
  const u = unwrap(v);
  if (Node.isPropertyAccessExpression(u) && Node.isIdentifier(unwrap(u.getExpression())) && unwrap(u.getExpression()).getText() === param) return classField(cls, u.getName());
  return v;
}

/** Does a value read data the source does not show (the mapped item, outside a class table)? */
function fromItem(v: Node, t: GeneratedTool): boolean {
  const p = t.template.param;
  if (!p) return false;
  return v.getDescendantsOfKind(SyntaxKind.Identifier).concat(Node.isIdentifier(v) ? [v] : []).some((id) => id.getText() === p);
}
function toolOf(tpl: ToolTemplate, sources: ParsedSources, dispatcher: ToolDef['handler'], cls?: ClassNode, row?: LoopItem): GeneratedTool {
  const read = row ? (k: string) => onRow(tpl.keys.get(k), row) : (k: string) => onClass(tpl.keys.get(k), tpl.param, cls);
  const nameNode = read('name');
  const s = constString(nameNode);
  // A tool read from a document row is located at the row (the document's path and line).
  const at = row ? { file: documentOf(row.obj) ?? row.document ?? tpl.file, line: positionOf(row.obj).line } : { file: tpl.file, line: tpl.line };
  return {
    file: at.file,
    line: at.line,
    column: 1,
    name: s?.value ?? (nameNode ? unwrap(nameNode).getText() : `<${tpl.file}:${tpl.line}>`),
    nameIsLiteral: !!s,
    nameLine: s && row ? positionOf(s.literal).line : at.line,
    api: 'tools/list',
    flavour: tpl.handler.flavour,
    node: tpl.node,
    ...definitionKeys(read, sources),
    handler: dispatcher,
    config: tpl.node,
    template: tpl,
    cls,
    read,
    ...(row ? { row } : {}),
  };
}

const memo = new WeakMap<RepoFacts, GeneratedTool[]>();

/** The tools built from templates (see the file header); [] when the server model reads tools written one by one. */
export function generatedTools(repo: RepoFacts): GeneratedTool[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const model = serverModel(repo);
  const out: GeneratedTool[] = [];
  if (model.tools.length === 0) {
    const sources = parsedSources(repo);
    const dispatcher = model.entries.find((e) => e.kind === 'tool' && e.name === 'tools/call')?.fn;
    for (const tpl of toolTemplates(repo)) {
      const rows = tpl.items === 'classes' ? undefined : templateRows(tpl, sources);
      if (tpl.items === 'classes') for (const cls of tpl.classes) out.push(toolOf(tpl, sources, dispatcher, cls));
      else if (rows) for (const row of rows) out.push(toolOf(tpl, sources, dispatcher, undefined, row));
      else out.push(toolOf(tpl, sources, dispatcher));
    }
  }
  memo.set(repo, out);
  return out;
}

/** The tools a static rule judges: those written in the source, else those built from templates. */
export function toolsToJudge(repo: RepoFacts): ToolDef[] {
  const model = serverModel(repo);
  return model.tools.length ? model.tools : generatedTools(repo);
}

export const isGenerated = (t: ToolDef): t is GeneratedTool => 'template' in t;

/**
 * Whether code may add `key` to the template's objects after building them: an assignment to a property of that
 * name (`tool.annotations = …`, `t['annotations'] = …`) or an Object.assign in the template's file, the list
 * handler's file or the class's file. The reading does not follow the object after it is built, so any such
 * assignment leaves the key unknown rather than absent.
 */
const mutationMemo = new WeakMap<object, Map<string, boolean>>();
function mayBeAssigned(t: GeneratedTool, key: string): boolean {
  const files = new Set([t.template.node.getSourceFile(), t.template.handler.node.getSourceFile(), ...(t.cls ? [t.cls.getSourceFile()] : [])]);
  const esc = key.replace(/[$]/g, '\\$');
  const re = new RegExp(`\\.\\s*${esc}\\s*=(?!=)|\\[\\s*['"\`]${esc}['"\`]\\s*\\]\\s*=(?!=)|\\bObject\\.assign\\s*\\(|\\bReflect\\.set\\s*\\(|\\bdefineProperty\\s*\\(`);
  for (const sf of files) {
    let perFile = mutationMemo.get(sf);
    if (!perFile) mutationMemo.set(sf, (perFile = new Map()));
    let hit = perFile.get(key);
    if (hit === undefined) perFile.set(key, (hit = re.test(sf.getFullText())));
    if (hit) return true;
  }
  return false;
}

/** What a rule may conclude about a key of a tool (see the file header); a tool written in the source: 'written' or 'absent' as read. */
export function keyState(t: ToolDef, key: string, node: Node | undefined): 'absent' | 'written' | 'unknown' {
  if (!isGenerated(t)) return node ? 'written' : 'absent';
  if (!node) return t.template.open || mayBeAssigned(t, key) ? 'unknown' : 'absent';
  // Read on a document row: the row's own value is written; the template's expression over the item is not read.
  if (t.row) return node.getSourceFile() !== t.template.node.getSourceFile() || !fromItem(node, t) ? 'written' : 'unknown';
  if (!t.cls && fromItem(node, t)) return 'unknown';
  return 'written';
}

/**
 * What a generated tool's `_meta` says of its declarations (`_meta["dev.mcp-doctor/declarations"]`): 'none' when
 * the template writes no `_meta`, or a literal `_meta` without that key and without a spread; 'unknown' otherwise
 * (a spread, a value read from the item, a computed key). Declarations written as a literal in a template are
 * left to the source reading of written tools (facts/declarations), so they are 'unknown' here too.
 */
export function generatedDeclarations(t: GeneratedTool, key: string, sources: ParsedSources): 'none' | 'unknown' {
  const node = t.read('_meta');
  const state = keyState(t, '_meta', node);
  if (state === 'absent') return 'none';
  if (state === 'unknown' || !node) return 'unknown';
  const obj = objectLiteralOf(node, sources);
  if (!obj) return 'unknown';
  for (const p of obj.getProperties()) {
    if (Node.isSpreadAssignment(p)) return 'unknown';
    const name = Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p) ? p.getNameNode() : undefined;
    if (!name || Node.isComputedPropertyName(name) || propertyName(name) === key) return 'unknown';
  }
  return 'none';
}
