import { Node, SyntaxKind, ts } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, valueOfDeclaration } from '../../../facts/scope.js';
import { modelFiles, objectLiteralOf, propertyValue, serverModel, type Registered } from '../../../facts/server-model.js';
import { ofKinds, parsedSources, positionOf, propertyName, rawPropertyName, rawUnwrap, unwrap, wrapNode, type ParsedSources } from '../../../facts/ts-source.js';
import { noteSourceRead } from '../../../facts/not-read.js';

/**
 * What a JavaScript/TypeScript server puts in front of the model, read from its source (facts/server-model):
 * names, titles and descriptions of the tools, prompts and resources it registers, resource URIs, the
 * descriptions and titles written in input and output schemas (zod `.describe('…')`, JSON Schema
 * `description`/`title`) and prompt argument schemas, and the server instructions (`new McpServer(info,
 * { instructions })`, `new Server(…)`, `new FastMCP({ instructions })`). The static twin of dynamic-text.ts:
 * each text carries the same `where`/`field`/`property`/`keyword` as a served one, plus the file and the
 * line of any character in it, so the judging functions of the dynamic parts run on it unchanged.
 *
 * A text is read when it is a string literal, a template (substitutions read as nothing), a `+`
 * concatenation, `[…].join(sep)` of those, a tagged template (`dedent`), or an identifier holding one
 * (a `const` in the same file or imported by relative path). Memoised per RepoFacts.
 */

export interface SourceText {
  /** Where the text is, e.g. `tool get_weather description`, `tool get_weather inputSchema.city.description`. */
  where: string;
  text: string;
  field: 'name' | 'title' | 'description' | 'instructions' | 'schema' | 'key' | 'uri' | 'argument';
  owner: { kind: 'tool' | 'prompt' | 'resource' | 'template' | 'server'; name: string };
  property?: string;
  keyword?: string;
  file: string;
  /** The 1-based line of the character at `index` in `text`. */
  lineAt(index: number): number;
}

interface Piece {
  /** Offset of this piece in the whole text. */
  from: number;
  node: Node;
  /** The literal spans lines in the source (a template with raw line breaks): offsets map to lines. */
  multiline: boolean;
}

interface Read {
  value: string;
  pieces: Piece[];
}

const MAX_DEPTH = 6;

/** The text an expression stands for, with where each piece of it is written. */
export function textOf(node: Node | undefined, sources: ParsedSources, depth = 0): Read | undefined {
  if (!node || depth > MAX_DEPTH) return undefined;
  const n = unwrap(node);
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) {
    return { value: n.getLiteralValue(), pieces: [{ from: 0, node: n, multiline: n.getText().includes('\n') }] };
  }
  if (Node.isTemplateExpression(n)) {
    const cn = n.compilerNode;
    let value = cn.head.text;
    const pieces: Piece[] = [{ from: 0, node: n, multiline: n.getText().includes('\n') }];
    for (const span of cn.templateSpans) value += span.literal.text;
    return { value, pieces };
  }
  if (Node.isTaggedTemplateExpression(n)) return textOf(n.getTemplate(), sources, depth + 1);
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getKind() === SyntaxKind.PlusToken) {
    const l = textOf(n.getLeft(), sources, depth + 1);
    const r = textOf(n.getRight(), sources, depth + 1);
    if (!l && !r) return undefined;
    const left = l ?? { value: '', pieces: [] };
    const right = r ?? { value: '', pieces: [] };
    return { value: left.value + right.value, pieces: [...left.pieces, ...right.pieces.map((p) => ({ ...p, from: p.from + left.value.length }))] };
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    const name = callee.getName();
    if (name === 'trim' || name === 'trimStart' || name === 'trimEnd') return textOf(callee.getExpression(), sources, depth + 1);
    if (name !== 'join') return undefined;
    const arr = unwrap(callee.getExpression());
    if (!Node.isArrayLiteralExpression(arr)) return undefined;
    const sepArg = n.getArguments()[0];
    const sep = sepArg ? textOf(sepArg, sources, depth + 1)?.value : ',';
    if (sep === undefined) return undefined;
    let value = '';
    const pieces: Piece[] = [];
    arr.getElements().forEach((el, i) => {
      if (i > 0) value += sep;
      const r = textOf(el, sources, depth + 1);
      if (!r) return;
      pieces.push(...r.pieces.map((p) => ({ ...p, from: p.from + value.length })));
      value += r.value;
    });
    return pieces.length ? { value, pieces } : undefined;
  }
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    return v && v !== n ? textOf(v, sources, depth + 1) : undefined;
  }
  return undefined;
}

function lineMapper(read: Read): (index: number) => number {
  return (index: number) => {
    let piece = read.pieces[0]!;
    for (const p of read.pieces) if (p.from <= index) piece = p;
    const start = positionOf(piece.node).line;
    if (!piece.multiline) return start;
    return start + (read.value.slice(piece.from, index).match(/\n/g)?.length ?? 0);
  };
}

/** JSON Schema keywords: a property assignment under one of these names is not a documented argument. */
const SCHEMA_KEYWORDS = new Set([
  'description', 'title', 'type', 'items', 'properties', 'default', 'enum', 'const', 'examples', 'additionalProperties', 'patternProperties',
  'anyOf', 'oneOf', 'allOf', 'not', 'required', '$schema', '$ref', '$defs', 'definitions', 'format', 'pattern', 'prefixItems', 'inputSchema', 'outputSchema', 'argsSchema',
]);

/** The argument a schema string documents: the nearest enclosing property that is not a schema keyword. */
function propertyOfText(node: Node, root: Node): string | undefined {
  for (let cur: Node | undefined = node.getParent(); cur && cur !== root; cur = cur.getParent()) {
    if (Node.isPropertyAssignment(cur)) {
      const k = propertyName(cur.getNameNode());
      if (k && !SCHEMA_KEYWORDS.has(k)) return k;
    }
  }
  return undefined;
}

/** The node a schema stands for: an object literal or zod chain, following an identifier to its const. */
function schemaRoot(node: Node | undefined, sources: ParsedSources): Node | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    return v && v !== n && !Node.isSourceFile(v) ? v : undefined;
  }
  return n;
}

type Owner = SourceText['owner'];

class Collector {
  readonly out: SourceText[] = [];
  private readonly seen = new Set<string>();
  constructor(private readonly sources: ParsedSources) {}

  add(node: Node | undefined, base: Omit<SourceText, 'text' | 'file' | 'lineAt'>): void {
    const read = textOf(node, this.sources);
    if (!read || read.value === '') return;
    const first = read.pieces[0]!.node;
    const file = this.sources.rel(first.getSourceFile());
    const key = `${base.where}\u0000${file}:${first.getStart()}\u0000${read.value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.out.push({ ...base, text: read.value, file, lineAt: lineMapper(read) });
  }

  /** The descriptions and titles written in a schema (zod `.describe()`, JSON Schema `description`/`title`). */
  schema(node: Node | undefined, base: string, owner: Owner): void {
    const root = schemaRoot(node, this.sources);
    if (!root) return;
    const label = `${owner.kind} ${owner.name}`;
    const texts: { node: Node; keyword: string }[] = [];
    // Walked on compiler nodes: only the texts found are wrapped.
    const sf = root.getSourceFile();
    const visit = (n: ts.Node, depth: number): void => {
      if (depth > 40) return;
      if (ts.isPropertyAssignment(n)) {
        const k = rawPropertyName(n.name);
        if (k === 'description' || k === 'title') texts.push({ node: wrapNode(sf, n.initializer), keyword: k });
      } else if (ts.isCallExpression(n)) {
        const c = rawUnwrap(n.expression);
        if (ts.isPropertyAccessExpression(c) && c.name.text === 'describe' && n.arguments[0]) texts.push({ node: wrapNode(sf, n.arguments[0]), keyword: 'description' });
      }
      ts.forEachChild(n, (c) => visit(c, depth + 1));
    };
    visit(root.compilerNode, 0);
    for (const t of texts) {
      const property = propertyOfText(t.node, root);
      const where = `${label} ${[base, property, t.keyword].filter(Boolean).join('.')}`;
      this.add(t.node, { where, field: 'schema', owner, ...(property ? { property } : {}), keyword: t.keyword });
    }
  }

  item(kind: Owner['kind'], def: Registered & { uri?: string; inputSchema?: Node; outputSchema?: Node; argsSchema?: Node }): void {
    const owner = { kind, name: def.name };
    const at = (field: string) => `${kind} ${def.name} ${field}`;
    const cfg = Node.isCallExpression(def.node) ? undefined : objectLiteralOf(def.node, this.sources);
    const nameNode = this.nameNodeOf(def, cfg);
    if (def.nameIsLiteral) this.add(nameNode, { where: at('name'), field: 'name', owner });
    if (def.description !== undefined || def.descriptionNode) this.add(def.descriptionNode, { where: at('description'), field: 'description', owner });
    const titleNode = this.titleNodeOf(def, cfg);
    if (titleNode) this.add(titleNode, { where: at('title'), field: 'title', owner });
    if (kind === 'tool') {
      this.schema(def.inputSchema, 'inputSchema', owner);
      this.schema(def.outputSchema, 'outputSchema', owner);
    }
    if (kind === 'prompt') this.schema(def.argsSchema, 'arguments', owner);
  }

  private nameNodeOf(def: Registered, cfg: ReturnType<typeof objectLiteralOf>): Node | undefined {
    if (cfg) return propertyValue(cfg, 'name');
    if (Node.isCallExpression(def.node)) {
      const a0 = def.node.getArguments()[0];
      const o = objectLiteralOf(a0, this.sources);
      return o ? propertyValue(o, 'name') : a0;
    }
    return undefined;
  }

  private titleNodeOf(def: Registered, cfg: ReturnType<typeof objectLiteralOf>): Node | undefined {
    if (def.title === undefined) return undefined;
    if (cfg) return propertyValue(cfg, 'title');
    if (Node.isCallExpression(def.node)) {
      for (const a of def.node.getArguments()) {
        const o = objectLiteralOf(a, this.sources);
        const t = o && propertyValue(o, 'title');
        if (t) return t;
      }
    }
    return undefined;
  }
}

const SERVER_CLASSES = new Set(['McpServer', 'Server', 'FastMCP']);

export interface SourceTexts {
  texts: SourceText[];
  /** Literal names of the tools registered in the source. */
  toolNames: Set<string>;
  /** Tool names with the line of their literal, for findings about a name. */
  toolNameLines: { name: string; file: string; line: number }[];
  /** Something is registered (a tool, prompt or resource), so there was something to read. */
  registered: boolean;
  /** Tools whose name is not a literal (computed at run time): the list of own names is incomplete. */
  computedToolNames: number;
  /** Descriptions written as something other than a readable text (a call, a lookup), and prose texts read. */
  unreadDescriptions: number;
  proseRead: number;
}

const memo = new WeakMap<RepoFacts, SourceTexts>();

export function sourceTexts(repo: RepoFacts): SourceTexts {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const c = new Collector(sources);
  for (const t of model.tools) c.item('tool', t);
  for (const p of model.prompts) c.item('prompt', p);
  for (const r of model.resources) {
    c.item(r.template ? 'template' : 'resource', r);
    if (r.uri !== undefined && Node.isCallExpression(r.node)) {
      const target = r.node.getArguments()[1];
      const n = target && unwrap(target);
      const uriNode = n && Node.isNewExpression(n) ? n.getArguments()[0] : n;
      c.add(uriNode, { where: `${r.template ? 'template' : 'resource'} ${r.name} ${r.template ? 'uriTemplate' : 'uri'}`, field: 'uri', owner: { kind: r.template ? 'template' : 'resource', name: r.name } });
    }
  }
  // Server instructions: new McpServer(info, { instructions }), new Server(info, { instructions }), new FastMCP({ instructions }).
  for (const [, sf] of modelFiles(sources)) {
    if (!sf.getFullText().includes('instructions')) continue;
    const news = ofKinds(sf, [SyntaxKind.NewExpression], (cn) => {
      const e = (cn as ts.NewExpression).expression;
      const name = ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : '';
      return SERVER_CLASSES.has(name);
    });
    for (const n of news) {
      if (!Node.isNewExpression(n)) continue;
      for (const a of n.getArguments()) {
        const o = objectLiteralOf(a, sources);
        const ins = o && propertyValue(o, 'instructions');
        if (ins) c.add(ins, { where: 'server instructions', field: 'instructions', owner: { kind: 'server', name: '' } });
      }
    }
  }
  const literalTools = model.tools.filter((t) => t.nameIsLiteral);
  const result: SourceTexts = {
    texts: c.out,
    toolNames: new Set(literalTools.map((t) => t.name)),
    toolNameLines: literalTools.map((t) => ({ name: t.name, file: t.file, line: t.nameLine })),
    registered: model.tools.length + model.prompts.length + model.resources.length > 0,
    computedToolNames: model.tools.length - literalTools.length,
    unreadDescriptions: [...model.tools, ...model.prompts, ...model.resources].filter((d) => d.descriptionNode && !textOf(d.descriptionNode, sources)).length,
    proseRead: c.out.filter((t) => t.field !== 'name' && t.field !== 'uri' && t.field !== 'key').length,
  };
  memo.set(repo, result);
  return result;
}
