import { Node } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import type { ToolDef } from '../../../facts/server-model.js';
import { itemsOfName } from '../../../facts/tool-templates.js';
import { parsedSources, unwrap } from '../../../facts/ts-source.js';
import { isGenerated, listMayDrop } from './generated-tools.js';
import { noteSourceRead } from '../../../facts/not-read.js';

/**
 * The API operations a server turns into tools at run time, read from the document shipped in its package:
 * an OpenAPI-like document (`paths` → method → operation) or an endpoint table (objects with an HTTP `method`
 * and a `path`, each with a tool name). Used by rules that judge what each tool does when tool names
 * are computed from such a document: the operation's name, method, path and summary are what the served tool
 * will say. Found through the tool template (support/source/generated-tools) or, for tools registered in a
 * loop (`for (const e of endpoints) server.tool(e.toolName, …)`), through the list the loop walks
 * (facts/tool-templates itemsOfName). Only JSON documents are read; nothing is guessed about one that is not.
 */

export interface DocumentOperation {
  /** The operation's own name (operationId, toolName, name, alias), when it has one. */
  name?: string;
  /** Upper-case HTTP method. */
  method: string;
  path: string;
  /** Summary and description, joined. */
  summary?: string;
  /** Parameter names (path, query, and the top-level properties of an inline JSON request body). */
  params: string[];
}

export interface OperationDocument {
  file: string;
  operations: DocumentOperation[];
  /** What the document says it describes: its title and its servers' host names. */
  context: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const NAME_KEYS = ['operationId', 'toolName', 'name', 'alias', 'id'];
const PATH_KEYS = ['path', 'pathPattern', 'url', 'endpoint', 'route'];
const MAX_OPERATIONS = 5000;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function paramsOf(op: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (Array.isArray(op.parameters)) for (const p of op.parameters) if (isObj(p) && str(p.name)) out.push(p.name as string);
  const body = isObj(op.requestBody) && isObj(op.requestBody.content) ? op.requestBody.content : undefined;
  for (const media of Object.values(body ?? {})) {
    const props = isObj(media) && isObj(media.schema) && isObj(media.schema.properties) ? media.schema.properties : undefined;
    if (props) out.push(...Object.keys(props));
  }
  return out;
}

function summaryOf(op: Record<string, unknown>): string | undefined {
  const parts = [str(op.summary), str(op.description)].filter((x): x is string => !!x);
  return parts.length ? parts.join(' ') : undefined;
}

/** The operations of a parsed JSON document (see the file header). */
export function operationsOf(doc: unknown): { operations: DocumentOperation[]; context: string } {
  const operations: DocumentOperation[] = [];
  const context: string[] = [];
  if (isObj(doc) && isObj(doc.info) && str(doc.info.title)) context.push(doc.info.title as string);
  if (isObj(doc) && Array.isArray(doc.servers)) {
    for (const s of doc.servers) {
      const url = isObj(s) ? str(s.url) : undefined;
      const host = url && /^https?:\/\/([^/:?#]+)/i.exec(url)?.[1];
      if (host) context.push(host);
    }
  }
  if (isObj(doc) && isObj(doc.paths)) {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!isObj(item)) continue;
      for (const m of METHODS) {
        const op = item[m];
        if (!isObj(op) || operations.length >= MAX_OPERATIONS) continue;
        const summary = summaryOf(op);
        operations.push({ ...(str(op.operationId) ? { name: op.operationId as string } : {}), method: m.toUpperCase(), path, ...(summary ? { summary } : {}), params: paramsOf(op) });
      }
    }
    return { operations, context: context.join(' ') };
  }
  // An endpoint table: objects holding an HTTP method and a path, anywhere in the document (bounded depth).
  const walk = (v: unknown, depth: number): void => {
    if (depth > 6 || operations.length >= MAX_OPERATIONS) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    if (!isObj(v)) return;
    const method = str(v.method) ?? str(v.httpMethod) ?? str(v.verb);
    const path = PATH_KEYS.map((k) => str(v[k])).find((x) => x !== undefined);
    if (method && METHODS.includes(method.toLowerCase()) && path) {
      const name = NAME_KEYS.map((k) => str(v[k])).find((x) => x !== undefined);
      const summary = summaryOf(v);
      operations.push({ ...(name ? { name } : {}), method: method.toUpperCase(), path, ...(summary ? { summary } : {}), params: paramsOf(v) });
      return;
    }
    for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(doc, 0);
  return { operations, context: context.join(' ') };
}

/** The document a tool whose name is computed is built from, if its path is known: the template's, or the list its registration loop walks. */
function documentPathOf(repo: RepoFacts, t: ToolDef): string | undefined {
  // A template over rows that pass a filter first (`visible.map(…)` with `const visible = doc.rows.filter(…)`) does not
  // build one tool per operation of the document: its operations are not read.
  if (isGenerated(t)) return t.template.items === 'document' && !listMayDrop(t.template, parsedSources(repo)) ? t.template.documentPath : undefined;
  // registerTool(e.toolName, …) / tool(e.toolName, …) / addTool({ name: e.toolName, … }): the name's expression.
  const call = Node.isCallExpression(t.node) ? t.node : undefined;
  const first = call?.getArguments()[0];
  const nameNode = t.config ? t.config.getProperty('name') : first;
  const expr = nameNode && Node.isPropertyAssignment(nameNode) ? nameNode.getInitializer() : nameNode;
  if (!expr) return undefined;
  const read = itemsOfName(repo, parsedSources(repo), unwrap(expr));
  return read?.items === 'document' ? read.documentPath : undefined;
}

/** The operations behind a tool whose name is computed from a shipped JSON document, or undefined when there is none or it cannot be read. */
export function documentOperations(repo: RepoFacts, t: ToolDef): OperationDocument | undefined {
  if (t.nameIsLiteral) return undefined;
  const file = documentPathOf(repo, t);
  if (!file || !/\.json$/i.test(file)) return undefined;
  const doc = repo.json(file);
  if (!doc.ok) return undefined;
  const { operations, context } = operationsOf(doc.value);
  return operations.length ? { file, operations, context } : undefined;
}

/**
 * The one OpenAPI document a package ships and its code loads, for tools whose names are computed in a way the
 * reading does not follow (a converter class that walks the document into a field). Only when there is exactly
 * one JSON file with top-level `openapi`/`swagger` and `paths` outside node_modules, and a parsed source file
 * names it: two documents, or one the code never names, leave the names unread.
 */
const shippedMemo = new WeakMap<RepoFacts, OperationDocument | null>();
export function shippedOpenApiDocument(repo: RepoFacts): OperationDocument | undefined {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  let hit = shippedMemo.get(repo);
  if (hit === undefined) shippedMemo.set(repo, (hit = readShipped(repo) ?? null));
  return hit ?? undefined;
}

function readShipped(repo: RepoFacts): OperationDocument | undefined {
  const candidates = repo.files.filter((f) => /\.json$/i.test(f) && !/(?:^|\/)node_modules\//.test(f) && !/(?:^|\/)package(?:-lock)?\.json$/.test(f));
  const docs: { file: string; value: unknown }[] = [];
  for (const f of candidates.slice(0, 200)) {
    const head = repo.text(f);
    if (!head.ok || !/"(?:openapi|swagger)"\s*:/.test(head.value.slice(0, 4096)) || !/"paths"\s*:/.test(head.value)) continue;
    const doc = repo.json(f);
    if (doc.ok && isObj(doc.value) && isObj(doc.value.paths) && (str(doc.value.openapi) || str(doc.value.swagger))) docs.push({ file: f, value: doc.value });
    if (docs.length > 1) return undefined;
  }
  const only = docs[0];
  if (!only) return undefined;
  const base = only.file.split('/').pop()!;
  const sources = parsedSources(repo);
  if (![...sources.files.values()].some((sf) => sf.getFullText().includes(base))) return undefined;
  const { operations, context } = operationsOf(only.value);
  return operations.length ? { file: only.file, operations, context } : undefined;
}
