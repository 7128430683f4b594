import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { sinkSites, toolFlows, type SinkSite } from '../../facts/flow.js';
import type { RepoFacts } from '../../facts/repo.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { declarationOf, findNodes, functionOf, initializerOf, isDescendantOf, isFunctionLike } from '../../facts/scope.js';
import { constString, objectLiteralOf, propertyValue, serverModel, type ToolDef } from '../../facts/server-model.js';
import { parsedSources, positionOf, propertyName, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { HINTS } from './dynamic.js';
import { noteSourceRead } from '../../facts/not-read.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import { keyState, toolsToJudge } from '../support/source/generated-tools.js';
import { judgePythonAnnotations } from './python.js';

/**
 * C-15 — tool annotations declared and honest (static part, JavaScript/TypeScript). For every tool
 * registered in the source (facts/server-model: registerTool, v1 `tool`, FastMCP addTool, tools/list
 * definitions):
 *   - 'missing-annotations-in-source': no annotations at all (at the tool's name);
 *   - 'missing-hint-in-source': an annotations object literal without some of the four hints (one
 *     finding listing them);
 *   - 'hint-not-boolean-in-source': hints written as a string, a number or null (one finding listing them);
 *   - 'read-only-tool-changes-things': `readOnlyHint: true`, yet the tool writes or deletes files, runs a
 *     command its arguments choose, or sends a PUT, PATCH, DELETE or POST request (a POST to a
 *     query-like endpoint, graphql, search, completions…, is taken for a read);
 *   - 'non-destructive-tool-deletes': `destructiveHint: false` (and not read-only), yet the tool deletes files.
 *     Removing a file the code itself created in the same call is not a destructive update (ownTempFile): a
 *     temporary file with a name made unique there (randomBytes, randomUUID, Date.now, pid…) and written
 *     before it is removed (the atomic save: write a temp file, rename it over the target, unlink the temp
 *     on failure), or anything inside a directory made there by mkdtemp. A deletion the tool's arguments
 *     reach is always counted.
 * What a tool does: the sinks its arguments reach (facts/flow toolFlows, through called functions), and the
 * file and HTTP sinks written in its handler (or its branch of a low-level dispatcher) and in the functions
 * of the audited source it calls, two levels deep (facts/flow sinkSites). A command with a fixed program is
 * not counted (`git status` reads); an HTTP method that is not a literal is not counted.
 * Tools built at run time (a tools/list handler mapping a document, a catalog or a table of classes through one
 * object literal, support/source/generated-tools) are judged on that template when the source writes no tool
 * one by one: a template without `annotations` (and no spread) is 'missing-annotations-in-source' for every
 * tool built from it, at the template's line; annotations read from the item (`op.annotations`) are not literal.
 * Annotations given as a value the reading cannot follow (a call, an object from elsewhere) are not judged:
 * could-not-judge 'annotations-not-literal' when nothing else is red. No tool in the source: not-applicable
 * 'no-tools-registered'; no JS/TS source: the Python reading (python.ts) on a Python repository, else could-not-judge 'no-source'.
 */

type Action = 'write' | 'delete' | 'command' | 'request';
interface Effect {
  action: Action;
  call: string;
  file: string;
  line: number;
}

const WRITE_METHODS = new Set(['PUT', 'PATCH', 'DELETE', 'POST']);
/** A POST that reads: GraphQL, search and query APIs, model completions, JSON-RPC. */
const QUERY_LIKE = /graphql|search|query|lookup|completions|embeddings|\/chat\b|json-?rpc|\brpc\b|translate|summari[sz]e|classify|moderations/i;

/** The method of an HTTP call: from the verb (`axios.post`) or the `method` of its options; undefined when not a literal; 'GET' when not given. */
export function httpMethod(node: Node, sources: ParsedSources): string | undefined {
  if (!Node.isCallExpression(node)) return undefined;
  const callee = unwrap(node.getExpression());
  if (Node.isPropertyAccessExpression(callee)) {
    const verb = callee.getName().toUpperCase();
    if (['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(verb)) return verb;
  }
  for (const a of node.getArguments()) {
    const o = objectLiteralOf(a, sources);
    if (!o) continue;
    const m = propertyValue(o, 'method');
    if (!m) continue;
    const s = constString(m)?.value;
    return s === undefined ? undefined : s.toUpperCase();
  }
  return 'GET';
}

function httpWrites(site: SinkSite, sources: ParsedSources): boolean {
  const m = httpMethod(site.node, sources);
  if (!m || !WRITE_METHODS.has(m)) return false;
  return m !== 'POST' || !QUERY_LIKE.test(site.node.getText());
}

function effectOfSite(site: SinkSite, sources: ParsedSources): Effect | undefined {
  const at = { call: site.call, file: site.file, line: site.line };
  if (site.family === 'fs' && site.access === 'write') return { action: 'write', ...at };
  if (site.family === 'fs' && site.access === 'delete') return { action: 'delete', ...at };
  if (site.family === 'http' && httpWrites(site, sources)) return { action: 'request', ...at };
  return undefined;
}

/** A name made unique where it is built: the file cannot have existed before the code created it. */
const UNIQUE_NAME = /\b(?:randomBytes|randomUUID|randomInt|getRandomValues|uuid(?:v[1-7])?|v4|nanoid|ulid|Date\.now|process\.pid|hrtime|Math\.random)\s*[(.]|\bprocess\.pid\b/;
const MKDTEMP = /\bmkdtemp(?:Sync)?\s*\(/;

/** The `const` that a path expression names, declared in a function (not at module level nor a parameter), with that function. */
function localConst(expr: Node | undefined): { decl: Node; init: Node; fn: Node } | undefined {
  if (!expr) return undefined;
  const u = unwrap(expr);
  if (!Node.isIdentifier(u)) return undefined;
  const decl = declarationOf(u);
  const init = decl ? initializerOf(decl) : undefined;
  const list = decl?.getParent()?.getParent();
  if (!decl || !init || !Node.isVariableDeclarationList(list) || !(list.getFlags() & ts.NodeFlags.Const)) return undefined;
  const fn = decl.getFirstAncestor((a) => isFunctionLike(a));
  return fn ? { decl, init, fn } : undefined;
}

/** A directory made by mkdtemp in this function, or a path built inside one (`join(dir, 'out.zip')`). */
function inOwnTempDir(init: Node, fn: Node, depth = 0): boolean {
  if (MKDTEMP.test(init.getText())) return true;
  if (depth > 2) return false;
  for (const id of findNodes(init, (cn) => ts.isIdentifier(cn))) {
    const c = localConst(id);
    if (c && c.fn === fn && c.decl.compilerNode !== id.compilerNode && inOwnTempDir(c.init, fn, depth + 1)) return true;
  }
  return false;
}

/**
 * Does a deletion remove only a file the code created in the same call? Its path is a local `const` that is
 * either inside a directory made there by mkdtemp, or a uniquely named file that a write of that function (or
 * a rename away from it) took as its path before the deletion. A module-level path, a parameter, a path read
 * from a field or a fixed name is not the call's own: another run, or the user, may have made that file.
 */
function ownTempFile(site: SinkSite, writes: SinkSite[]): boolean {
  if (!Node.isCallExpression(site.node)) return false;
  const c = localConst(site.node.getArguments()[0]);
  if (!c || !isDescendantOf(site.node, c.fn)) return false;
  if (inOwnTempDir(c.init, c.fn)) return true;
  if (!UNIQUE_NAME.test(c.init.getText())) return false;
  const at = site.node.getStart();
  return writes.some((w) => {
    if (!Node.isCallExpression(w.node) || w.node.getSourceFile() !== site.node.getSourceFile() || w.node.getStart() >= at || !isDescendantOf(w.node, c.fn)) return false;
    const first = w.node.getArguments()[0];
    const u = first ? unwrap(first) : undefined;
    return !!u && Node.isIdentifier(u) && declarationOf(u)?.compilerNode === c.decl.compilerNode;
  });
}

const spanOf = (n: Node) => ({ file: n.getSourceFile(), start: n.getStart(), end: n.getEnd() });
type Span = ReturnType<typeof spanOf>;

/** The handler's code (or its dispatcher branch) and the functions of the audited source it calls, `depth` levels deep. */
function spansOf(tool: ToolDef, sources: ParsedSources, depth = 2): Span[] {
  const root = tool.branch ?? (tool.api === 'tools/list' || tool.api === 'definition' ? undefined : tool.handler);
  if (!root) return [];
  const spans: Span[] = [spanOf(root)];
  const seen = new Set<Node>([root]);
  let frontier: Node[] = [root];
  for (let d = 0; d < depth && frontier.length; d++) {
    const next: Node[] = [];
    for (const n of frontier) {
      for (const call of findNodes(n, (cn) => ts.isCallExpression(cn))) {
        if (!Node.isCallExpression(call)) continue;
        const fn = functionOf(call.getExpression(), sources);
        if (!fn || seen.has(fn) || !sources.files.has(sources.rel(fn.getSourceFile()))) continue;
        // A function nested in one already read is already covered.
        if (spans.some((s) => s.file === fn.getSourceFile() && s.start <= fn.getStart() && fn.getEnd() <= s.end)) continue;
        seen.add(fn);
        spans.push(spanOf(fn));
        next.push(fn);
      }
    }
    frontier = next;
  }
  return spans;
}

/** The sink sites that change something (writes, deletions, writing requests), computed once per audit. */
const effectMemo = new WeakMap<RepoFacts, { byPos: Map<string, SinkSite>; effects: { site: SinkSite; effect: Effect }[] }>();
function effectSites(repo: RepoFacts, sources: ParsedSources) {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  let hit = effectMemo.get(repo);
  if (!hit) {
    const sites = sinkSites(repo);
    const writes = sites.filter((s) => s.family === 'fs' && s.access === 'write');
    const effects = sites.flatMap((site) => {
      const effect = effectOfSite(site, sources);
      if (effect?.action === 'delete' && ownTempFile(site, writes)) return [];
      return effect ? [{ site, effect }] : [];
    });
    effectMemo.set(repo, (hit = { byPos: new Map(sites.map((s) => [`${s.file}:${s.line}:${s.column}`, s])), effects }));
  }
  return hit;
}

function effectsOf(tool: ToolDef, repo: RepoFacts, sources: ParsedSources): Effect[] {
  const out: Effect[] = [];
  const { byPos, effects } = effectSites(repo, sources);
  for (const f of toolFlows(repo)) {
    if (f.entryKind !== 'tool' || f.tool !== tool.name) continue;
    const at = { call: f.sinkCall, file: f.file, line: f.line };
    if (f.sinkKind === 'fs' && f.access === 'write') out.push({ action: 'write', ...at });
    else if (f.sinkKind === 'fs' && f.access === 'delete') out.push({ action: 'delete', ...at });
    else if (f.sinkKind === 'shell' || f.sinkKind === 'process') out.push({ action: 'command', ...at });
    else if (f.sinkKind === 'http') {
      const site = byPos.get(`${f.file}:${f.line}:${f.column}`);
      if (site && httpWrites(site, sources)) out.push({ action: 'request', ...at });
    }
  }
  // The handler's own code and what it calls are read only when the source changes something somewhere.
  const spans = effects.length ? spansOf(tool, sources) : [];
  for (const { site, effect } of spans.length ? effects : []) {
    const sf = site.node.getSourceFile();
    const pos = site.node.getStart();
    if (spans.some((sp) => sp.file === sf && sp.start <= pos && pos < sp.end)) out.push(effect);
  }
  // One effect per sink line and action, in source order.
  const seen = new Set<string>();
  return out
    .filter((e) => {
      const k = `${e.action}|${e.file}:${e.line}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}

/** The line of property `key` in an object literal, else the object's line. */
function lineOfKey(obj: Node, key: string): number {
  if (Node.isObjectLiteralExpression(obj)) {
    for (const p of obj.getProperties()) {
      if ((Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && propertyName(p.getNameNode()) === key) return positionOf(p).line;
    }
  }
  return positionOf(obj).line;
}

export default defineDetector({
  ruleId: 'C-15',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  partial: true,
  messages: {
    'missing-annotations-in-source': ['tool'],
    'missing-hint-in-source': ['tool', 'hints', 'count'],
    'hint-not-boolean-in-source': ['tool', 'hints', 'count'],
    'read-only-tool-changes-things': ['tool', 'action', 'call', 'file', 'line'],
    'non-destructive-tool-deletes': ['tool', 'call', 'file', 'line'],
  },
  judge({ inputs: { repo, session } }) {
    const model = serverModel(repo);
    if (model.files.length === 0) return hasPythonSource(repo) ? judgePythonAnnotations(repo, session) : couldNotJudge('no-source');
    // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools).
    const tools = toolsToJudge(repo);
    if (tools.length === 0) return noToolsFound(repo, session);
    const sources = parsedSources(repo);
    const findings: Finding[] = [];
    let unread = 0;
    for (const t of tools) {
      const tool = t.name;
      if (!t.annotationsNode) {
        // A template with a spread may bring annotations the reading cannot see.
        if (keyState(t, 'annotations', undefined) === 'unknown') {
          unread++;
          continue;
        }
        findings.push({ messageId: 'missing-annotations-in-source', data: { tool }, location: { file: t.file, line: t.nameLine } });
        continue;
      }
      const obj = objectLiteralOf(t.annotationsNode, sources);
      if (!obj) {
        unread++;
        continue;
      }
      const objFile = sources.rel(obj.getSourceFile());
      const open = obj.getProperties().some((p) => Node.isSpreadAssignment(p));
      const keys = new Set(
        obj.getProperties().flatMap((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) ? [propertyName(p.getNameNode()) ?? ''] : [])),
      );
      // One finding per defect per tool: the hints left out together, and the mistyped ones together.
      if (open) unread++;
      else {
        const missing = HINTS.filter((h) => !keys.has(h));
        if (missing.length) findings.push({ messageId: 'missing-hint-in-source', data: { tool, hints: missing.join(', '), count: missing.length }, location: { file: objFile, line: positionOf(obj).line } });
      }
      // A hint written as a string, a number or null: clients expect a JSON boolean.
      const mistyped: { hint: string; node: Node }[] = [];
      for (const hint of HINTS) {
        const v = propertyValue(obj, hint);
        const u = v && Node.isPropertyAssignment(v.getParent()) ? unwrap(v) : undefined;
        if (u && (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u) || Node.isNumericLiteral(u) || Node.isNullLiteral(u))) mistyped.push({ hint, node: u });
      }
      if (mistyped.length) {
        findings.push({
          messageId: 'hint-not-boolean-in-source',
          data: { tool, hints: mistyped.map((m) => m.hint).join(', '), count: mistyped.length },
          location: { file: objFile, line: positionOf(mistyped[0]!.node).line },
          evidence: mistyped.map((m) => `${m.hint}: ${m.node.getText()}`).join(', ').slice(0, 200),
        });
      }
      const ann = t.annotations ?? {};
      if (ann.readOnlyHint !== true && ann.destructiveHint !== false) continue;
      const effects = effectsOf(t, repo, sources);
      if (ann.readOnlyHint === true) {
        const e = effects[0];
        if (e) {
          findings.push({
            messageId: 'read-only-tool-changes-things',
            data: { tool, action: e.action, call: e.call, file: e.file, line: e.line },
            location: { file: objFile, line: lineOfKey(obj, 'readOnlyHint') },
            evidence: effects.map((x) => `${x.call} (${x.file}:${x.line})`).join(', ').slice(0, 300),
          });
        }
      } else {
        const e = effects.find((x) => x.action === 'delete');
        if (e) {
          findings.push({
            messageId: 'non-destructive-tool-deletes',
            data: { tool, call: e.call, file: e.file, line: e.line },
            location: { file: objFile, line: lineOfKey(obj, 'destructiveHint') },
          });
        }
      }
    }
    if (findings.length) return { state: findings.every((f) => f.messageId === 'missing-annotations-in-source') ? 'absent' : 'non-conforming', findings };
    if (unread) return couldNotJudge('annotations-not-literal', { count: unread });
    return present();
  },
});
