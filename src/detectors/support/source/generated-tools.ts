import { Node, SyntaxKind } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { constString, definitionKeys, objectLiteralOf, serverModel, type ToolDef } from '../../../facts/server-model.js';
import type { ClassNode } from '../../../facts/scope.js';
import { parsedSources, propertyName, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import { toolTemplates, type ToolTemplate } from '../../../facts/tool-templates.js';
import { classField } from '../../../facts/server-model/class-tools.js';

/**
 * The tools a server builds at run time, read through their template (facts/tool-templates), for the static
 * rules that judge a key every tool must (or must not) have. Used when the server model finds no tool
 * written one literal per tool: one tool per template (named by the template's name expression, e.g.
 * `op.operationId`), or, for a table of class instances, one tool per class (its `name` field, and each
 * template key read from the class's field of that name when the template writes `t.key`).
 *
 * A generated tool's location is the template's line: the absence of a key there holds for every tool built
 * from it. keyState() says what a rule may conclude about a key:
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
function toolOf(tpl: ToolTemplate, sources: ParsedSources, dispatcher: ToolDef['handler'], cls?: ClassNode): GeneratedTool {
  const read = (k: string) => onClass(tpl.keys.get(k), tpl.param, cls);
  const nameNode = read('name');
  const s = constString(nameNode);
  return {
    file: tpl.file,
    line: tpl.line,
    column: 1,
    name: s?.value ?? (nameNode ? unwrap(nameNode).getText() : `<${tpl.file}:${tpl.line}>`),
    nameIsLiteral: !!s,
    nameLine: tpl.line,
    api: 'tools/list',
    flavour: tpl.handler.flavour,
    node: tpl.node,
    ...definitionKeys(read, sources),
    handler: dispatcher,
    config: tpl.node,
    template: tpl,
    cls,
    read,
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
      if (tpl.items === 'classes') for (const cls of tpl.classes) out.push(toolOf(tpl, sources, dispatcher, cls));
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
