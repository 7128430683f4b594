import { Node, SyntaxKind, ts } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, valueOfDeclaration } from '../../../facts/scope.js';
import { constString, modelFiles, objectLiteralOf, propertyValue, registrationArgs, serverModel, type Registered, type ToolDef } from '../../../facts/server-model.js';
import { ofKinds, parsedSources, positionOf, propertyName, rawPropertyName, rawUnwrap, unwrap, wrapNode, type ParsedSources } from '../../../facts/ts-source.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { ToolTemplate } from '../../../facts/tool-templates.js';
import { generatedTools, isGenerated, type GeneratedTool } from './generated-tools.js';

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
  // `Schema.shape.description.value`, `TEXTS.TOOL.NAVIGATE`: a literal held in a same-file const object or zod schema (facts/server-model constString).
  if (Node.isPropertyAccessExpression(n)) {
    const s = constString(n);
    return s && s.literal !== n ? textOf(s.literal, sources, depth + 1) : undefined;
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
      const a0 = registrationArgs(def)[0];
      const o = objectLiteralOf(a0, this.sources);
      return o ? propertyValue(o, 'name') : a0;
    }
    return undefined;
  }

  private titleNodeOf(def: Registered, cfg: ReturnType<typeof objectLiteralOf>): Node | undefined {
    if (def.title === undefined) return undefined;
    if (cfg) return propertyValue(cfg, 'title');
    if (Node.isCallExpression(def.node)) {
      for (const a of registrationArgs(def)) {
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
  /** Documents the tools are built from (support/source/generated-tools) that could not be read, with why. */
  unreadDocuments: { file: string; why: string }[];
}

/** Keys of an API document whose string values are served texts (names, summaries, descriptions, titles); enum values too. */
const DOCUMENT_NAME_KEYS = new Set(['operationId', 'name']);
const DOCUMENT_PROSE_KEYS = new Set(['summary', 'description', 'title']);
const MAX_DOCUMENT_TEXTS = 5000;

/**
 * The texts of the documents built tools come from (a JSON document the package loads, read whole): names
 * (operationId, name), summaries, descriptions and titles, and enum values, each with the line where its JSON
 * string is written. A document that is missing, unreadable, not JSON, or whose path is not made of constants
 * is listed in `unread` (with why); it is not guessed at.
 */
function builtDocumentTexts(repo: RepoFacts, built: GeneratedTool[]): { texts: SourceText[]; names: string[]; unread: { file: string; why: string }[]; read: Set<ToolTemplate> } {
  const texts: SourceText[] = [];
  const names: string[] = [];
  const unread: { file: string; why: string }[] = [];
  const read = new Set<ToolTemplate>();
  const done = new Set<string>();
  for (const t of built) {
    const tpl = t.template;
    if (tpl.items !== 'document') continue;
    if (!tpl.documentPath) {
      unread.push({ file: `${tpl.file}:${tpl.line}`, why: tpl.documentWhy ?? 'path-not-constant' });
      continue;
    }
    const file = tpl.documentPath;
    if (!/\.json$/i.test(file)) {
      unread.push({ file, why: 'format-not-read' });
      continue;
    }
    const doc = repo.json(file);
    const raw = repo.text(file);
    if (!doc.ok || !raw.ok) {
      if (!done.has(file)) unread.push({ file, why: doc.ok ? 'unreadable' : doc.problem });
      done.add(file);
      continue;
    }
    read.add(tpl);
    if (done.has(file)) continue;
    done.add(file);
    const text = raw.value;
    const lineOf = (value: string): number => {
      const at = text.indexOf(JSON.stringify(value).slice(1, -1));
      return at < 0 ? 1 : (text.slice(0, at).match(/\n/g)?.length ?? 0) + 1;
    };
    const push = (value: string, pointer: string, field: SourceText['field'], owner: string, keyword?: string) => {
      if (value === '' || texts.length >= MAX_DOCUMENT_TEXTS) return;
      const line = lineOf(value);
      texts.push({ where: `document ${file} ${pointer}`, text: value, field, owner: { kind: 'tool', name: owner }, ...(keyword ? { keyword } : {}), file, lineAt: () => line });
    };
    // In a document of operations (OpenAPI-like: objects with an operationId), only the operations are served,
    // and of an operation's own texts only those the template reads (`op.summary`); texts nested in it
    // (parameters, schemas) are read whole, as a schema builder may serve any of them.
    const operations = /"operationId"\s*:/.test(text);
    const accessed = new Set(tpl.param ? [...tpl.node.getText().matchAll(new RegExp(`(?<![\\w$])${tpl.param.replace(/\$/g, '\\$')}\\.([\\w$]+)`, 'g'))].map((m) => m[1]!) : []);
    const walk = (v: unknown, pointer: string, owner: string, depth: number): void => {
      if (depth > 40 || texts.length >= MAX_DOCUMENT_TEXTS || v === null || typeof v !== 'object') return;
      if (Array.isArray(v)) {
        v.forEach((x, i) => walk(x, `${pointer}/${i}`, owner, depth + 1));
        return;
      }
      const o = v as Record<string, unknown>;
      const isOperation = typeof o.operationId === 'string';
      const own = isOperation ? (o.operationId as string) : owner;
      if (isOperation) names.push(own);
      const served = !operations || own !== '';
      for (const [k, x] of Object.entries(o)) {
        const at = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (typeof x === 'string') {
          if (!served || (isOperation && accessed.size > 0 && !accessed.has(k))) continue;
          if (DOCUMENT_NAME_KEYS.has(k)) push(x, at, 'name', own);
          else if (DOCUMENT_PROSE_KEYS.has(k)) push(x, at, k === 'title' ? 'title' : 'description', own, k);
        } else if (k === 'enum' && Array.isArray(x) && served) {
          x.forEach((e, i) => typeof e === 'string' && push(e, `${at}/${i}`, 'schema', own, 'enum'));
        } else walk(x, at, own, depth + 1);
      }
    };
    walk(doc.value, '', '', 0);
  }
  // The reason names why as an ICU select key: camelCase (missing, tooLarge, invalidJson, formatNotRead, pathNotConstant).
  const key = (why: string) => why.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return { texts, names, unread: unread.map((u) => ({ ...u, why: key(u.why) })), read };
}

const memo = new WeakMap<RepoFacts, SourceTexts>();

export function sourceTexts(repo: RepoFacts): SourceTexts {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const model = serverModel(repo);
  const c = new Collector(sources);
  // Tools written one by one, else the tools a template builds at run time (generated-tools.ts).
  const built = model.tools.length ? [] : generatedTools(repo);
  const tools = model.tools.length ? model.tools : built;
  // A tool read on a row of a document that builtDocumentTexts reads whole: its texts are read there, once.
  const inDocument = (t: ToolDef): boolean => isGenerated(t) && !!t.row && t.template.items === 'document' && /\.json$/i.test(t.template.documentPath ?? '');
  for (const t of tools) if (!inDocument(t)) c.item('tool', t);
  const docs = builtDocumentTexts(repo, built);
  c.out.push(...docs.texts);
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
  const literalTools = tools.filter((t) => t.nameIsLiteral);
  // A tool built from a document that was read: its names are the document's.
  const namedByDocument = built.filter((t) => !t.nameIsLiteral && docs.read.has(t.template));
  const result: SourceTexts = {
    texts: c.out,
    toolNames: new Set([...literalTools.map((t) => t.name), ...docs.names]),
    toolNameLines: literalTools.map((t) => ({ name: t.name, file: t.file, line: t.nameLine })),
    registered: tools.length + model.prompts.length + model.resources.length > 0,
    computedToolNames: tools.length - literalTools.length - namedByDocument.length,
    unreadDescriptions: [...tools, ...model.prompts, ...model.resources].filter((d) => d.descriptionNode && !textOf(d.descriptionNode, sources) && !namedByDocument.includes(d as never)).length,
    proseRead: c.out.filter((t) => t.field !== 'name' && t.field !== 'uri' && t.field !== 'key').length,
    unreadDocuments: docs.unread,
  };
  memo.set(repo, result);
  return result;
}
