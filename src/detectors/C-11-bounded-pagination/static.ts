import { Node, SyntaxKind } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declField, sourceDeclarations, UNKNOWN } from '../../facts/declarations.js';
import { declarationOf, functionOf, valueOfDeclaration } from '../../facts/scope.js';
import type { ToolDef } from '../../facts/server-model.js';
import { positionOf, propertyName, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { codeOf, reachable, type Code, type Fn } from '../support/source/code-paths.js';
import { catalogGap, noToolsFound } from '../support/source/tool-absence.js';
import { judgePythonPagination } from './python.js';
import { BOUND_PROP, CURSOR_ARG, LIST_NAME, NEXT_CURSOR, SIZE_ARG } from './names.js';

/**
 * C-11 — bounded pagination enforced by the tool (static part). Reads the list and search tools of the
 * source (a declared verb `list` or `search`, or a name starting with `list`/`search` followed by `_`, `-` or
 * a capital) and their code:
 *
 *   - the page size: an input argument named like a page size (`limit`, `pageSize`, `per_page`,
 *     `maxResults`, `top_k`…) must be bounded — a zod `.max()`/`.lte()`/`.lt()`, a JSON Schema `maximum`, or a
 *     `Math.min(…)` over it in the handler's code. A tool that takes no page-size argument must show a fixed
 *     bound in its code (`Math.min`, `.slice(…, n)`, a `limit`/`take`/`pageSize`… property set to a number or
 *     a constant, `LIMIT` in a query);
 *   - a cursor: a cursor argument (`cursor`, `pageToken`, `after`…) or a next cursor in what the code returns
 *     (`nextCursor`, `next_cursor`, `nextPageToken`…).
 *
 * The handler's code is the handler (or the dispatcher's branch) and the functions it reaches (code-paths).
 * A tool whose schema is built by code the reading cannot follow, or whose handler was not found, keeps the
 * part unjudged unless another tool is red.
 * Python source only: the Python reading (python.ts), with the same message ids.
 */

const LIST_VERBS = ['list', 'search'];
const ZOD_MAX = /\.(?:max|lte|lt)\s*\(/;

type Judged = { tool: string; findings: Finding[]; unknown?: string };

/** The schema as a node the reading can walk: an object literal, or a zod expression; undefined when built by other code. */
function schemaNode(node: Node | undefined, sources: ParsedSources, depth = 0): Node | undefined | 'none' {
  if (!node) return 'none';
  if (depth > 4) return undefined;
  const n = unwrap(node);
  if (Node.isObjectLiteralExpression(n)) return n;
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    const v = d ? valueOfDeclaration(d, sources) : undefined;
    return v && v !== n ? schemaNode(v, sources, depth + 1) : undefined;
  }
  if (Node.isCallExpression(n) || Node.isPropertyAccessExpression(n)) {
    // A zod chain: z.object({...}).strict(), z.strictObject(...). Anything else is code we do not run.
    return /^(?:z|zod)\.\w+/.test(n.getText()) ? n : undefined;
  }
  return undefined;
}

interface SchemaArgs {
  size: { name: string; node: Node; bounded: boolean }[];
  cursor: boolean;
}

/** The page-size and cursor arguments a schema declares (every property of the schema, nested ones included). */
function schemaArgs(schema: Node, sources: ParsedSources): SchemaArgs {
  const out: SchemaArgs = { size: [], cursor: false };
  const props = [schema, ...schema.getDescendantsOfKind(SyntaxKind.PropertyAssignment)].filter(Node.isPropertyAssignment);
  for (const p of props) {
    const name = propertyName(p.getNameNode());
    if (!name) continue;
    if (CURSOR_ARG.test(name)) out.cursor = true;
    if (!SIZE_ARG.test(name)) continue;
    let v: Node = unwrap(p.getInitializerOrThrow());
    if (Node.isIdentifier(v)) {
      const d = declarationOf(v);
      const r = d ? valueOfDeclaration(d, sources) : undefined;
      if (r) v = unwrap(r);
    }
    // `size` and `first` are page sizes only when typed as numbers; JSON Schema keywords are not arguments.
    const text = v.getText();
    if (Node.isObjectLiteralExpression(v)) {
      const keys = v.getProperties().map((q) => (Node.isPropertyAssignment(q) ? propertyName(q.getNameNode()) : undefined));
      if (!keys.some((k) => k === 'type')) continue;
      if (!/['"](?:integer|number)['"]/.test(text)) continue;
      out.size.push({ name, node: p, bounded: keys.includes('maximum') || keys.includes('exclusiveMaximum') });
    } else if (Node.isCallExpression(v) || Node.isPropertyAccessExpression(v)) {
      if (!/\b(?:number|int|bigint)\s*\(/.test(text) && !/\bcoerce\.number\b/.test(text)) continue;
      out.size.push({ name, node: p, bounded: ZOD_MAX.test(text) });
    }
  }
  return out;
}

/** The code a tool runs: its dispatcher branch or handler, and the functions they reach. */
function codeRoots(t: ToolDef, code: Code): Node[] | undefined {
  if (!t.handler) return undefined;
  if (t.branch) {
    const fns: Fn[] = [];
    for (const c of t.branch.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      try {
        const f = functionOf(c.getExpression(), code.sources);
        if (f && f !== t.handler) fns.push(f);
      } catch {
        /* a callee the reading cannot follow */
      }
    }
    return [t.branch, ...reachable(code, fns)];
  }
  return reachable(code, [t.handler]);
}

const isNumberish = (n: Node): boolean => {
  const u = unwrap(n);
  if (Node.isNumericLiteral(u)) return true;
  if (Node.isIdentifier(u)) return /^[A-Z][A-Z0-9_]*$/.test(u.getText());
  if (Node.isPropertyAccessExpression(u)) return /^[A-Z][A-Z0-9_]*$/.test(u.getName());
  if (Node.isCallExpression(u)) return /^Math\.min$/.test(u.getExpression().getText());
  // start + PAGE_SIZE, offset + 10: a window of fixed width.
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getKind() === SyntaxKind.PlusToken) return isNumberish(u.getRight());
  return false;
};

/** What the code shows: a clamp over each argument name, a fixed bound, a returned next cursor. */
function codeFacts(roots: Node[], sizeNames: string[]): { clamped: Set<string>; fixedBound: boolean; nextCursor: boolean } {
  const clamped = new Set<string>();
  let fixedBound = false;
  let nextCursor = false;
  for (const root of roots) {
    for (const c of root.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = c.getExpression().getText();
      if (callee === 'Math.min') {
        fixedBound = true;
        const text = c.getArguments().map((a) => a.getText()).join(',');
        for (const s of sizeNames) if (new RegExp(`\\b${s}\\b`).test(text)) clamped.add(s);
      } else if (/\.slice$/.test(callee) && c.getArguments().length === 2 && isNumberish(c.getArguments()[1]!)) fixedBound = true;
      else if (/\.(?:limit|take|top)$/.test(callee) && c.getArguments()[0] && isNumberish(c.getArguments()[0])) fixedBound = true;
    }
    for (const p of root.getDescendantsOfKind(SyntaxKind.PropertyAssignment)) {
      const name = propertyName(p.getNameNode()) ?? '';
      if (NEXT_CURSOR.test(name)) nextCursor = true;
      if (BOUND_PROP.test(name) && isNumberish(p.getInitializerOrThrow())) fixedBound = true;
    }
    for (const s of root.getDescendantsOfKind(SyntaxKind.ShorthandPropertyAssignment)) if (NEXT_CURSOR.test(s.getName())) nextCursor = true;
    for (const s of [...root.getDescendantsOfKind(SyntaxKind.StringLiteral), ...root.getDescendantsOfKind(SyntaxKind.NoSubstitutionTemplateLiteral), ...root.getDescendantsOfKind(SyntaxKind.TemplateExpression)]) {
      if (/\bLIMIT\s+(?:\d+|\$\d+|\?|:\w+)/.test(s.getText())) fixedBound = true;
    }
  }
  return { clamped, fixedBound, nextCursor };
}

function judgeTool(t: ToolDef, code: Code): Judged {
  const at = { file: t.file, line: t.nameLine };
  const found = schemaNode(t.inputSchema, code.sources);
  const roots = codeRoots(t, code);
  if (found === undefined) return { tool: t.name, findings: [], unknown: 'schema' };
  const args: SchemaArgs = found === 'none' ? { size: [], cursor: false } : schemaArgs(found, code.sources);
  if (!roots) return { tool: t.name, findings: [], unknown: 'handler' };
  const facts = codeFacts(roots, args.size.map((s) => s.name));
  const findings: Finding[] = [];
  for (const s of args.size) {
    if (s.bounded || facts.clamped.has(s.name)) continue;
    findings.push({ messageId: 'page-size-unbounded', data: { tool: t.name, argument: s.name }, location: { file: t.file, ...positionOf(s.node) } });
  }
  if (args.size.length === 0 && !facts.fixedBound) findings.push({ messageId: 'no-page-bound', data: { tool: t.name }, location: at });
  if (!args.cursor && !facts.nextCursor) findings.push({ messageId: 'no-cursor', data: { tool: t.name }, location: at });
  return { tool: t.name, findings };
}

export default defineDetector({
  ruleId: 'C-11',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: { 'page-size-unbounded': ['tool', 'argument'], 'no-page-bound': ['tool'], 'no-cursor': ['tool'] },
  judge({ inputs: { repo, session } }) {
    const got = codeOf(repo);
    if (!got.ok) return got.verdict.reason?.code === 'source-language-not-read' ? judgePythonPagination(repo, session) : got.verdict;
    const decls = sourceDeclarations(repo);
    if (decls.length === 0) return noToolsFound(repo, session);
    const judged: Judged[] = [];
    const verbUnread: string[] = [];
    for (const d of decls) {
      const verb = d.status === 'unknown' ? UNKNOWN : d.status === 'none' ? undefined : declField(d.value, ['verb']);
      const byName = LIST_NAME.test(d.tool.name);
      if (!byName && verb === UNKNOWN) {
        verbUnread.push(d.tool.name);
        continue;
      }
      if (!byName && !(typeof verb === 'string' && LIST_VERBS.includes(verb))) continue;
      judged.push(judgeTool(d.tool, got.code));
    }
    const findings = judged.flatMap((j) => j.findings);
    if (findings.length) return { state: 'non-conforming', findings };
    const unread = judged.filter((j) => j.unknown);
    if (unread.length) return couldNotJudge('list-tool-not-read', { tools: unread.map((j) => j.tool).join(', '), count: unread.length });
    if (verbUnread.length) return couldNotJudge('declarations-not-static', { tools: verbUnread.join(', '), count: verbUnread.length });
    if (judged.length) return present();
    // not-applicable stands on the tools read being the whole catalog (support/source/tool-absence.ts catalogGap).
    return catalogGap(repo, decls.map((d) => d.tool), session) ?? notApplicable('no-list-or-search-tool');
  },
});
