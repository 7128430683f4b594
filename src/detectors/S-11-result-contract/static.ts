import { Node, SyntaxKind, ts, type ObjectLiteralExpression } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { dispatchBranches, modelFiles, objectLiteralOf, propertyValue, returnedExpressions, serverModel, type ToolDef } from '../../facts/server-model.js';
import { constString } from '../../facts/server-model.js';
import { ofKinds, parsedSources, positionOf, propertyName, rawUnwrap, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { findNodes, functionOf, type FunctionLikeNode } from '../../facts/scope.js';
import { noToolsFound } from '../support/source/tool-absence.js';
import { isGenerated, keyState, toolsToJudge } from '../support/source/generated-tools.js';
import { judgePythonResults } from './python.js';
import { reservedUnknown } from './dynamic.js';
import { catchesEveryName, ERROR_CTOR, handlerChannels, unmarkedErrorResults, unmarkedThroughTables, wrapperGuard } from './channels.js';
import { returnedObjects } from './results.js';

/**
 * S-11 — result contract (static part, JavaScript/TypeScript). Reads what the source writes, where it is
 * written as literals:
 *   - 'structured-without-schema-in-source': a tool returns an object literal with `structuredContent`
 *     while its registration (or its tools/list definition) declares no `outputSchema`;
 *   - 'structured-without-text-in-source': such a result has no text block (`content` missing, or an array
 *     literal of literal blocks none of which is `type: 'text'`);
 *   - 'unknown-tool-result-in-source': a hand-written tools/call dispatcher answers a name it does not
 *     know with a result (the `default:` of its switch, or a return after its last `if (name === …)`
 *     branch, or the `default:` of the switch of a function of the package the handler hands the name to:
 *     delegatedUnknownResult) instead of throwing a JSON-RPC error;
 *   - 'reserved-error-code-in-source': a literal code in -32099..-32020 that the specification does not
 *     define there (-32020, -32021, -32022 and -32042 are defined), given to an error constructor
 *     (`new McpError(code, …)`, `ProtocolError`…), as the `code` of an object, or as an error-code enum member;
 *   - 'error-code-not-integer-in-source': an error constructor given a string or a fractional code;
 *   - 'execution-error-thrown-in-source' and 'wrong-meaning-code-in-source': what a hand-written tools/call
 *     handler throws on the protocol channel (channels.ts): a failure of the tool's own work, or a code JSON-RPC
 *     defines for another failure (-32601 for an unknown tool…);
 *   - 'upstream-failure-uncaught-in-source': an awaited API request or browser action such a handler lets reject;
 *   - 'execution-error-result-unmarked-in-source': a tool's `catch` answers the failure without `isError: true`;
 *   - 'execution-error-data-unmarked-in-source': a function's `catch` hands the failure back as data (`{ success: false, error }`)
 *     that the tool's function puts into an ordinary result's text unread (channels.ts, errorDataThroughResults);
 *   - 'failed-response-result-unmarked-in-source': so does the failure branch of a check of an upstream response.
 * The results are read from the `return` statements of the handler (or of the dispatcher branch).
 * When no tool's result could be read as an object literal and nothing is red: could-not-judge
 * 'tool-results-not-read'; a tools/call handler registered through a wrapper of a dependency leaves its channels
 * unread: could-not-judge 'handler-wrapped-outside-source'. No tool in the source: not-applicable 'no-tools-registered'. Python source only:
 * the Python reading (python.ts).
 */

/** The number a literal stands for (`-32050`, `32050`), else undefined. */
function numberOf(n: Node): number | undefined {
  const u = unwrap(n);
  if (Node.isNumericLiteral(u)) return Number(u.getLiteralValue());
  if (Node.isPrefixUnaryExpression(u) && u.getOperatorToken() === SyntaxKind.MinusToken) {
    const o = unwrap(u.getOperand());
    if (Node.isNumericLiteral(o)) return -Number(o.getLiteralValue());
  }
  return undefined;
}

/** numberOf's shapes on a compiler node: a numeric literal, or minus one (through parentheses and casts). */
function rawNumber(cn: ts.Node): boolean {
  const u = rawUnwrap(cn);
  if (ts.isNumericLiteral(u)) return true;
  return ts.isPrefixUnaryExpression(u) && u.operator === SyntaxKind.MinusToken && ts.isNumericLiteral(rawUnwrap(u.operand));
}


/** Keys under which a tool's definition object carries the function that runs it. */
const TOOL_FN_KEYS = ['handler', 'execute', 'run', 'handle', 'callback', 'fn', 'call', 'invoke', 'impl'];

/**
 * Object literals a tools/call handler indexes by a computed key (`handlers[name](args)`, `TOOL_MAP[request.params.name]`):
 * tables of per-tool functions, keyed by tool name.
 */
function indexedTables(handler: FunctionLikeNode, sources: ParsedSources): ObjectLiteralExpression[] {
  const out: ObjectLiteralExpression[] = [];
  for (const n of findNodes(handler, (cn) => ts.isElementAccessExpression(cn) && !ts.isStringLiteralLike(cn.argumentExpression) && !ts.isNumericLiteral(cn.argumentExpression))) {
    if (!Node.isElementAccessExpression(n)) continue;
    const o = objectLiteralOf(n.getExpression(), sources);
    if (o && !out.includes(o)) out.push(o);
  }
  return out;
}

/**
 * The function a tool of a hand-written dispatcher runs when no branch names it: its definition's own
 * `handler` (or `execute`, `run`…) property, that of the tool object or class holding the definition, or the
 * member named after the tool in a table the dispatcher indexes.
 */
function tableFunction(t: ToolDef, tables: readonly ObjectLiteralExpression[], sources: ParsedSources): FunctionLikeNode | undefined {
  const read = (v: Node | undefined): FunctionLikeNode | undefined => {
    if (!v) return undefined;
    try {
      return functionOf(v, sources);
    } catch {
      return undefined;
    }
  };
  for (const k of TOOL_FN_KEYS) {
    const f = read(propertyValue(t.config, k));
    if (f) return f;
  }
  // The definition held by a tool object or class beside its function (`{ schema: { name, … }, handle }`, a class
  // with a `schema` field or getter and a `handle` method): that function.
  const holder = t.config?.getParent();
  const outer = Node.isPropertyAssignment(holder) ? holder.getParent() : undefined;
  if (Node.isObjectLiteralExpression(outer)) {
    for (const k of TOOL_FN_KEYS) {
      const f = read(propertyValue(outer, k));
      if (f) return f;
    }
  }
  const member = t.config?.getFirstAncestor((a) => Node.isPropertyDeclaration(a) || Node.isGetAccessorDeclaration(a));
  const cls = member?.getParent();
  if (member && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls))) {
    for (const k of TOOL_FN_KEYS) {
      const m = cls.getMethod(k);
      if (m && !m.isStatic() && m.getBody()) return m;
    }
  }
  for (const table of tables) {
    const f = read(propertyValue(table, t.name));
    if (f) return f;
  }
  return undefined;
}

/** False when the content is known to hold no text block; undefined when it cannot be read. */
function hasTextBlock(result: ObjectLiteralExpression, sources: ParsedSources): boolean | undefined {
  const content = propertyValue(result, 'content');
  if (!content) return result.getProperties().some((p) => Node.isSpreadAssignment(p)) ? undefined : false;
  const arr = unwrap(content);
  if (!Node.isArrayLiteralExpression(arr)) return undefined;
  let unknown = false;
  for (const el of arr.getElements()) {
    const o = objectLiteralOf(el, sources);
    if (!o) {
      unknown = true;
      continue;
    }
    const type = constString(propertyValue(o, 'type'))?.value;
    if (type === 'text') return true;
    if (type === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

export default defineDetector({
  ruleId: 'S-11',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  partial: true,
  messages: {
    'structured-without-schema-in-source': ['tool'],
    'structured-without-text-in-source': ['tool'],
    'unknown-tool-result-in-source': [],
    'reserved-error-code-in-source': ['code'],
    'error-code-not-integer-in-source': ['call'],
    'execution-error-thrown-in-source': [],
    'wrong-meaning-code-in-source': ['code'],
    'upstream-failure-uncaught-in-source': [],
    'execution-error-result-unmarked-in-source': [],
    'execution-error-data-unmarked-in-source': [],
    'failed-response-result-unmarked-in-source': ['check'],
  },
  judge({ inputs: { repo, session } }) {
    const model = serverModel(repo);
    if (model.files.length === 0) return hasPythonSource(repo) ? judgePythonResults(repo, session) : couldNotJudge('no-source');
    const sources = parsedSources(repo);
    const findings: Finding[] = [];
    const at = (n: Node) => ({ file: sources.rel(n.getSourceFile()), line: positionOf(n).line });

    // Results of the tools.
    let read = 0;
    // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools):
    // those share one tools/call dispatcher, whose results are theirs; a template without outputSchema (and no
    // spread) declares none for any of them, one read from the item is not judged.
    const tools = toolsToJudge(repo);
    const reported = new Set<string>();
    const tablesOf = new Map<FunctionLikeNode, ObjectLiteralExpression[]>();
    const branchesOf = new Map<FunctionLikeNode, Node[]>();
    for (const t of tools) {
      const built = isGenerated(t);
      const lowLevel = t.api === 'tools/list' || t.api === 'definition';
      let results: ObjectLiteralExpression[];
      // Results shared by every branch: the dispatcher's returns outside its branches (`result = await x(); break;` then one return).
      let shared = false;
      if (lowLevel && !built && !t.branch) {
        // A tool run through a table: its definition's handler, or the dispatcher's table member of its name.
        if (t.handler && !tablesOf.has(t.handler)) tablesOf.set(t.handler, indexedTables(t.handler, sources));
        const fn = tableFunction(t, (t.handler && tablesOf.get(t.handler)) ?? [], sources);
        results = fn ? returnedObjects(fn, undefined, sources) : [];
      } else {
        results = returnedObjects(t.handler, lowLevel && !built ? t.branch : undefined, sources);
      }
      // The dispatcher may wrap what the branch or the table's function gives back in one result of its own.
      if (!results.length && lowLevel && !built && t.handler) {
        // Branches and `default:` clauses (what an unknown name gets) are left out.
        if (!branchesOf.has(t.handler)) branchesOf.set(t.handler, [...dispatchBranches(t.handler).map((b) => b.node), ...findNodes(t.handler, (cn) => ts.isDefaultClause(cn))]);
        results = returnedObjects(t.handler, undefined, sources, 0, new Set(), branchesOf.get(t.handler));
        shared = true;
      }
      if (results.length) read++;
      for (const r of results) {
        const sc = propertyValue(r, 'structuredContent');
        if (!sc) continue;
        const scAt = at(sc.getParent() ?? sc);
        if (built || shared) {
          const key = `${scAt.file}:${scAt.line}`;
          if (reported.has(key)) continue;
          reported.add(key);
        }
        if (!t.outputSchema && keyState(t, 'outputSchema', undefined) === 'absent') findings.push({ messageId: 'structured-without-schema-in-source', data: { tool: t.name }, location: scAt });
        // SDK v2's McpServer appends the text block itself (SEP-2106 §4.3, projectCallToolResult); v1 and hand-written handlers do not.
        const appended = t.flavour === 'sdk-v2' && !lowLevel;
        if (!appended && hasTextBlock(r, sources) === false) findings.push({ messageId: 'structured-without-text-in-source', data: { tool: t.name }, location: scAt });
      }
    }

    // Unknown tools in hand-written dispatchers.
    const answeredUnknown = new Set<FunctionLikeNode>();
    for (const rh of model.requestHandlers) {
      if (rh.method !== 'tools/call' || !rh.handler) continue;
      const branches = dispatchBranches(rh.handler);
      if (!branches.length) {
        // The handler looks the name up itself and answers a miss with a result (`if (!tool) return errorResult(…)`),
        // or hands the name to a dispatcher of the package (`handleToolCall(request.params.name, args)`).
        const first = missingNameResult(rh.handler, isToolName, sources) ?? delegatedUnknownResult(rh.handler, sources);
        if (first) {
          findings.push({ messageId: 'unknown-tool-result-in-source', location: at(first) });
          answeredUnknown.add(rh.handler);
        }
        continue;
      }
      for (const b of branches) {
        const clause = b.node;
        if (!Node.isCaseClause(clause)) continue;
        const block = clause.getParent();
        const def = Node.isCaseBlock(block) ? block.getClauses().find((c) => Node.isDefaultClause(c)) : undefined;
        if (!def || !def.getStatements().length) continue;
        // Unknown names turned away before the switch: its `default:` is reached by none.
        const sw = block?.getParent();
        if (sw && Node.isSwitchStatement(sw) && rejectedBefore(rh.handler, sw, sameNameAs(sw.getExpression()))) break;
        const first = def.getStatements().find((s) => Node.isReturnStatement(s) || Node.isThrowStatement(s));
        if (first && Node.isReturnStatement(first) && first.getExpression() && objectLiteralOf(first.getExpression(), sources)) {
          findings.push({ messageId: 'unknown-tool-result-in-source', location: at(first) });
          answeredUnknown.add(rh.handler);
        }
        break;
      }
      // `if (name === 'x') { … }` chains: a result returned after the last branch.
      const body = rh.handler.getBody();
      const ifs = branches.filter((b) => !Node.isCaseClause(b.node));
      if (body && Node.isBlock(body) && ifs.length) {
        const lastEnd = Math.max(...ifs.map((b) => b.node.getEnd()));
        const firstBranch = ifs.reduce((a, b) => (b.node.getStart() < a.node.getStart() ? b : a)).node;
        const after = rejectedBefore(rh.handler, firstBranch, isToolName) ? [] : body.getStatements().filter((s) => s.getStart() >= lastEnd);
        const first = after.find((s) => Node.isReturnStatement(s) || Node.isThrowStatement(s));
        if (first && Node.isReturnStatement(first) && first.getExpression() && objectLiteralOf(first.getExpression(), sources)) {
          findings.push({ messageId: 'unknown-tool-result-in-source', location: at(first) });
          answeredUnknown.add(rh.handler);
        }
      }
    }

    // What hand-written tools/call handlers throw on the protocol channel (each handler once).
    const walked = new Set<FunctionLikeNode>();
    let wrappedOutside = false;
    // The functions that answer tools/call, read below for failures answered as ordinary results.
    const roots = new Set<FunctionLikeNode>();
    for (const rh of model.requestHandlers) {
      if (rh.method !== 'tools/call' || !rh.handler || walked.has(rh.handler)) continue;
      walked.add(rh.handler);
      roots.add(rh.handler);
      const tables = tablesOf.get(rh.handler) ?? indexedTables(rh.handler, sources);
      const tableFns = tools.filter((t) => t.handler === rh.handler && !t.branch).map((t) => tableFunction(t, tables, sources)).filter((f): f is FunctionLikeNode => !!f);
      for (const f of tableFns) roots.add(f);
      // A handler registered through a wrapper of a dependency: what it lets through cannot be read.
      const wrapped = wrapperGuard(rh.node, sources);
      if (wrapped === 'unknown') {
        wrappedOutside = true;
        continue;
      }
      const channels = handlerChannels(rh.handler, sources, tableFns, wrapped);
      for (const c of channels) {
        findings.push({ messageId: c.messageId, ...(c.code !== undefined ? { data: { code: c.code } } : {}), location: at(c.node), evidence: c.node.getText().slice(0, 120) });
      }
      // Whatever the handler calls, a body that is one try whose catch answers every failure gives an unknown name a result.
      if (!answeredUnknown.has(rh.handler) && !channels.some((c) => c.messageId === 'unknown-tool-result-in-source')) {
        const every = catchesEveryName(rh.handler, sources);
        if (every) findings.push({ messageId: 'unknown-tool-result-in-source', location: at(every), evidence: every.getText().slice(0, 120) });
      }
    }

    // Failures of a tool's own work answered as ordinary results, without isError (any API: the SDK flags none it is given).
    for (const t of tools) if (t.handler && !isGenerated(t)) roots.add(t.handler);
    for (const c of unmarkedErrorResults([...roots], sources)) {
      findings.push({ messageId: c.messageId, ...(c.check !== undefined ? { data: { check: c.check } } : {}), location: at(c.node), evidence: c.node.getText().slice(0, 120) });
    }
    // …and through a table of tool definitions a shared handler runs (`await tool.cb(args)`) and wraps unmarked.
    const handlers = [...new Set(tools.map((t) => t.handler).filter((h): h is FunctionLikeNode => !!h))];
    const throughTables = unmarkedThroughTables(handlers, modelFiles(sources).map(([, sf]) => sf), sources);
    const known = new Set(findings.map((f) => `${f.location?.file}:${f.location?.line}`));
    for (const c of throughTables.findings) {
      const loc = at(c.node);
      if (!known.has(`${loc.file}:${loc.line}`)) findings.push({ messageId: c.messageId, location: loc, evidence: c.node.getText().slice(0, 120) });
    }

    // Error codes written as literals.
    const seen = new Set<string>();
    for (const [file, sf] of modelFiles(sources)) {
      const text = sf.getFullText();
      if (!/-\s*320[2-9]\d|Error\s*\(/.test(text)) continue;
      for (const n of ofKinds(sf, [SyntaxKind.NewExpression], (cn) => {
        const e = (cn as ts.NewExpression).expression;
        const a0 = (cn as ts.NewExpression).arguments?.[0];
        // Only a code written as a number or a string is read below.
        if (!a0 || !(rawNumber(a0) || ts.isStringLiteral(rawUnwrap(a0)) || ts.isNoSubstitutionTemplateLiteral(rawUnwrap(a0)))) return false;
        return ERROR_CTOR.test(ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? `.${e.name.text}` : '');
      })) {
        if (!Node.isNewExpression(n)) continue;
        const a0 = n.getArguments()[0];
        if (!a0) continue;
        const u = unwrap(a0);
        const c = numberOf(u);
        if (c !== undefined && !Number.isInteger(c)) findings.push({ messageId: 'error-code-not-integer-in-source', data: { call: n.getExpression().getText() }, location: { file, line: positionOf(u).line }, evidence: u.getText() });
        else if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) {
          findings.push({ messageId: 'error-code-not-integer-in-source', data: { call: n.getExpression().getText() }, location: { file, line: positionOf(u).line }, evidence: u.getText().slice(0, 80) });
        } else if (c !== undefined && reservedUnknown(c)) {
          seen.add(`${file}:${u.getStart()}`);
          findings.push({ messageId: 'reserved-error-code-in-source', data: { code: c }, location: { file, line: positionOf(u).line } });
        }
      }
      if (!/-\s*320[2-9]\d/.test(text)) continue;
      for (const n of ofKinds(sf, [SyntaxKind.PrefixUnaryExpression], rawNumber)) {
        const c = numberOf(n);
        if (c === undefined || !reservedUnknown(c) || seen.has(`${file}:${n.getStart()}`)) continue;
        const p = n.getParent();
        const isCode =
          (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === 'code') ||
          (Node.isEnumMember(p) && /error|code/i.test(p.getParent()?.getName() ?? ''));
        if (isCode) findings.push({ messageId: 'reserved-error-code-in-source', data: { code: c }, location: { file, line: positionOf(n).line } });
      }
    }

    if (findings.length) return { state: 'non-conforming', findings };
    if (tools.length === 0) return noToolsFound(repo, session);
    // The table's definitions may sit in a source file that was not read: that file is named (as for present).
    if (throughTables.unread && sources.unread.length) return couldNotJudge('file-not-read', fileNotReadData(sources.unread[0]!));
    if (read === 0 || throughTables.unread) return couldNotJudge('tool-results-not-read');
    if (wrappedOutside) return couldNotJudge('handler-wrapped-outside-source');
    return present();
  },
});

/** The name of the tool called: `request.params.name`, or a name destructured or copied from it. */
function isToolName(e: Node): boolean {
  const n = unwrap(e);
  if (Node.isPropertyAccessExpression(n)) return n.getName() === 'name' && /(?:^|\.)params$/.test(unwrap(n.getExpression()).getText());
  if (!Node.isIdentifier(n)) return false;
  const d = n.getSymbol()?.getDeclarations()[0];
  if (Node.isBindingElement(d)) return (d.getPropertyNameNode()?.getText() ?? d.getName()) === 'name' && /params/.test(d.getParent()?.getParent()?.getText() ?? '');
  if (Node.isVariableDeclaration(d)) {
    const init = d.getInitializer();
    return !!init && Node.isPropertyAccessExpression(unwrap(init)) && isToolName(init);
  }
  return false;
}

/**
 * A tools/call handler with no branches of its own that hands the tool's name to one function of the package
 * (`return handleToolCall(request.params.name, request.params.arguments ?? {})`, awaited or not, the arrow's
 * body, a statement of its own body or a return inside a `try` of it): the `switch` on that parameter in the function,
 * whose `default:` answers with a result (`return { content: […], isError: true }`), answers an unknown tool with a
 * result; so does the function's first check that the name is missing from what it looked the name up in (a registry's
 * `if (!this.tools.get(name))`, `if (!(name in handlers))`) when it returns a result. The return is given; undefined
 * when the handler delegates otherwise, the function cannot be read, or the unknown name is thrown.
 */
function delegatedUnknownResult(handler: FunctionLikeNode, sources: ParsedSources): Node | undefined {
  const body = handler.getBody();
  if (!body) return undefined;
  // The returns of the body, also those of a `try` standing in it (`try { return await registry.execute(name, args) }`).
  const returned = (sts: Node[]): Node[] =>
    sts.flatMap((st) => (Node.isReturnStatement(st) && st.getExpression() ? [st.getExpression()!] : Node.isTryStatement(st) ? returned(st.getTryBlock().getStatements()) : []));
  const exprs: Node[] = Node.isBlock(body)
    ? [...returned(body.getStatements()), ...body.getStatements().flatMap((st) => (Node.isExpressionStatement(st) ? [st.getExpression()] : []))]
    : [body];
  for (const e of exprs) {
    let x = unwrap(e);
    if (Node.isAwaitExpression(x)) x = unwrap(x.getExpression());
    if (!Node.isCallExpression(x)) continue;
    const pos = x.getArguments().findIndex((a) => isToolName(a));
    if (pos < 0) continue;
    // The handler turns unknown names away before it hands the name on.
    if (rejectedBefore(handler, x, isToolName)) continue;
    let fn: FunctionLikeNode | undefined;
    try {
      fn = functionOf(x.getExpression(), sources);
    } catch {
      fn = undefined;
    }
    const param = fn?.getParameters()[pos];
    if (!fn || fn === handler || !param || !Node.isIdentifier(param.getNameNode())) continue;
    const pname = param.getName();
    for (const sw of findNodes(fn, (cn) => ts.isSwitchStatement(cn))) {
      if (!Node.isSwitchStatement(sw)) continue;
      const subject = unwrap(sw.getExpression());
      if (!Node.isIdentifier(subject) || subject.getText() !== pname) continue;
      // The switch must stand in the function itself, not in a function nested in it.
      let owner: ts.Node | undefined = sw.compilerNode.parent;
      while (owner && !ts.isFunctionLike(owner)) owner = owner.parent;
      if (owner !== fn.compilerNode) continue;
      const def = sw.getCaseBlock().getClauses().find((c) => Node.isDefaultClause(c));
      if (!def) continue;
      // …or the function does, before its switch (`if (!TOOL_NAMES.includes(name)) throw …`).
      if (rejectedBefore(fn, sw, (e) => Node.isIdentifier(unwrap(e)) && unwrap(e).getText() === pname)) continue;
      const first = def.getStatements().find((st) => Node.isReturnStatement(st) || Node.isThrowStatement(st));
      if (first && Node.isReturnStatement(first) && first.getExpression() && objectLiteralOf(first.getExpression()!, sources)) return first;
    }
    // A registry's lookup (`const tool = this.tools.get(toolName); if (!tool) { return { content: […], isError: true } }`).
    const missed = missingNameResult(fn, (e) => Node.isIdentifier(unwrap(e)) && unwrap(e).getText() === pname, sources);
    if (missed) return missed;
  }
  return undefined;
}

/**
 * The return of the first statement of `fn`'s own body that checks the name (`isName`) is missing from what it was
 * looked up in (`const tool = tools.find((t) => t.name === name); if (!tool) return errorResult(…)`, `if (!(name in
 * handlers))`, `if (!this.tools.get(name))`) when that check answers with a result; undefined when the first such check
 * throws, or there is none.
 */
function missingNameResult(fn: FunctionLikeNode, isName: (e: Node) => boolean, sources: ParsedSources): Node | undefined {
  const body = fn.getBody();
  if (!body || !Node.isBlock(body)) return undefined;
  for (const st of body.getStatements()) {
    if (!Node.isIfStatement(st) || !missingName(st.getExpression(), isName)) continue;
    const then = st.getThenStatement();
    const first = Node.isBlock(then) ? then.getStatements().find((x) => Node.isReturnStatement(x) || Node.isThrowStatement(x)) : then;
    if (first && Node.isReturnStatement(first) && first.getExpression() && resultAnswer(first.getExpression()!, sources, isName)) return first;
    return undefined;
  }
  return undefined;
}

/** Calls that get their answer from another server or client (`upstream.callTool(…)`, `client.request(…)`, `fetch(…)`). */
const FORWARDS = /^(?:callTool|request|send|fetch)$/;

/**
 * Is `e` a result: an object literal, or a call of a function of the source every return of which is one
 * (`const errorResult = (...messages) => ({ content: […], isError: true })`)? Not when the call hands the name (`isName`)
 * to a function that forwards it to another client or server (`forwardToUpstream(name, args)` whose body calls
 * `upstream.callTool({ name, … })`): that answer comes from elsewhere, not from the server turning the name away.
 */
function resultAnswer(e: Node, sources: ParsedSources, isName: (e: Node) => boolean): boolean {
  if (objectLiteralOf(e, sources)) return true;
  let x = unwrap(e);
  if (Node.isAwaitExpression(x)) x = unwrap(x.getExpression());
  if (!Node.isCallExpression(x)) return false;
  let fn: FunctionLikeNode | undefined;
  try {
    fn = functionOf(x.getExpression(), sources);
  } catch {
    fn = undefined;
  }
  if (!fn) return false;
  if (forwardsName(fn, x, isName)) return false;
  const rs = returnedExpressions(fn);
  return rs.length > 0 && rs.every((r) => !!objectLiteralOf(r, sources));
}

/** Does `fn`, called by `call`, pass the parameter that receives the name (`isName`) to a forwarding call? */
function forwardsName(fn: FunctionLikeNode, call: Node, isName: (e: Node) => boolean): boolean {
  if (!Node.isCallExpression(call)) return false;
  const params = fn.getParameters();
  const names = new Set<string>();
  call.getArguments().forEach((a, i) => {
    const p = params[i];
    if (isName(a) && p && Node.isIdentifier(p.getNameNode())) names.add(p.getName());
  });
  if (names.size === 0) return false;
  return fn.getDescendantsOfKind(SyntaxKind.CallExpression).some((c) => {
    const callee = unwrap(c.getExpression());
    const cname = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
    if (!FORWARDS.test(cname)) return false;
    return c.getArguments().some((a) => (Node.isIdentifier(a) && names.has(a.getText())) || a.getDescendantsOfKind(SyntaxKind.Identifier).some((d) => names.has(d.getText())));
  });
}

/** A matcher of the expression a switch is on: the same text, or the tool's name read from the request. */
function sameNameAs(subject: Node): (e: Node) => boolean {
  const text = unwrap(subject).getText();
  return (e) => unwrap(e).getText() === text || isToolName(e);
}

const MEMBERSHIP = new Set(['includes', 'has', 'some', 'find', 'hasOwnProperty', 'get']);
/**
 * Does `cond` hold when the name (`isName`) is not among a collection's? `!TOOLS.includes(name)`, `!names.has(name)`,
 * `!TOOLS.some((t) => t.name === name)`, `!(name in handlers)`, `!handlers[name]`, `TOOLS.indexOf(name) === -1`, or
 * `!tool` where `const tool = TOOLS.find(…)` (or `.get(name)`, `[name]`); one disjunct of `||` suffices.
 */
function missingName(cond: Node, isName: (e: Node) => boolean, depth = 0): boolean {
  const c = unwrap(cond);
  if (depth > 3) return false;
  if (Node.isBinaryExpression(c)) {
    const op = c.getOperatorToken().getKind();
    if (op === SyntaxKind.BarBarToken) return missingName(c.getLeft(), isName, depth + 1) || missingName(c.getRight(), isName, depth + 1);
    const l = unwrap(c.getLeft());
    const r = unwrap(c.getRight());
    // `TOOLS.indexOf(name) === -1`, `… < 0`
    const idx = (n: Node): boolean => {
      if (!Node.isCallExpression(n)) return false;
      const callee = unwrap(n.getExpression());
      return Node.isPropertyAccessExpression(callee) && /^(?:indexOf|findIndex)$/.test(callee.getName()) && mentionsName(n, isName);
    };
    if ((op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken) && idx(l) && r.getText().replace(/\s+/g, '') === '-1') return true;
    if (op === SyntaxKind.LessThanToken && idx(l) && r.getText() === '0') return true;
    // `x === undefined`
    if ((op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken) && /^(?:undefined|null)$/.test(r.getText())) return found(l, isName, depth);
    return false;
  }
  if (Node.isPrefixUnaryExpression(c) && c.getOperatorToken() === SyntaxKind.ExclamationToken) return found(c.getOperand(), isName, depth);
  return false;
}

/** Does `e` say the name was found: a membership call, `name in X`, `X[name]`, or a const holding one of these? */
function found(e: Node, isName: (e: Node) => boolean, depth: number): boolean {
  const u = unwrap(e);
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getKind() === SyntaxKind.InKeyword) return isName(u.getLeft());
  if (Node.isElementAccessExpression(u)) return isName(u.getArgumentExpressionOrThrow());
  if (Node.isCallExpression(u)) {
    const callee = unwrap(u.getExpression());
    return Node.isPropertyAccessExpression(callee) && MEMBERSHIP.has(callee.getName()) && mentionsName(u, isName);
  }
  if (Node.isIdentifier(u) && depth < 3) {
    const d = u.getSymbol()?.getDeclarations()[0];
    if (Node.isVariableDeclaration(d) && d.getInitializer()) {
      let init = unwrap(d.getInitializer()!);
      if (Node.isAwaitExpression(init)) init = unwrap(init.getExpression());
      return found(init, isName, depth + 1);
    }
  }
  return false;
}

/** The name is an argument of the call, or compared (`===`, `==`) in the callback it is given. */
function mentionsName(call: Node, isName: (e: Node) => boolean): boolean {
  if (!Node.isCallExpression(call)) return false;
  return call.getArguments().some((a) => {
    if (isName(a)) return true;
    const f = unwrap(a);
    if (!Node.isArrowFunction(f) && !Node.isFunctionExpression(f)) return false;
    return !!f.getFirstDescendant((d) => Node.isBinaryExpression(d) && /^={2,3}$/.test(d.getOperatorToken().getText()) && (isName(d.getLeft()) || isName(d.getRight())));
  });
}

/**
 * Is every unknown name turned away before `target` in `fn`: a statement before it, in one of the blocks that hold it,
 * `if (<the name is missing from a collection>) throw …` (a block whose first exit is a throw)? A membership check of
 * the name against the served list that throws before the dispatch leaves the dispatch's fallback to no unknown name.
 */
function rejectedBefore(fn: FunctionLikeNode, target: Node, isName: (e: Node) => boolean): boolean {
  const body = fn.getBody();
  if (!body) return false;
  for (let n: Node | undefined = target; n && n !== body.getParent(); n = n.getParent()) {
    const p = n.getParent();
    if (!p || !(Node.isBlock(p) || Node.isSourceFile(p))) continue;
    for (const st of p.getStatements()) {
      if (st.getStart() >= n.getStart()) break;
      if (!Node.isIfStatement(st) || !missingName(st.getExpression(), isName)) continue;
      const then = st.getThenStatement();
      const first = Node.isBlock(then) ? then.getStatements().find((x) => Node.isReturnStatement(x) || Node.isThrowStatement(x)) : then;
      if (first && Node.isThrowStatement(first)) return true;
    }
    if (n === body) break;
  }
  return false;
}
