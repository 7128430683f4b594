import { Node, ts } from '../../facts/morph.js';
import { findNodes, mayResolveFunction, type FunctionLikeNode } from '../../facts/scope.js';
import { functionCached } from '../../facts/flow/modules.js';
import { acceptsWithoutAsking } from '../../facts/flow/guards.js';
import { constString } from '../../facts/server-model.js';
import { rawUnwrap, unwrap, type ParsedSources } from '../../facts/ts-source.js';

/**
 * whether a JavaScript/TypeScript handler asks the human before it acts, as the rule's exemption means it: an
 * elicitation on the handler's way to its action, every time. Not such a guard (the rule: "a server-side policy …
 * is not such a guard"):
 *
 *  - an elicitation in a branch a policy chooses (`if (policy.requiresApproval(cmd)) await elicit(…)`,
 *    `case 'ask':`, `config.autoApprove || await confirm(…)`): the other commands run unasked;
 *  - a helper that lets the request through before asking (`if (this.mode === 'allow') return true`, read by
 *    facts/flow/guards acceptsWithoutAsking);
 *  - an elicitation that asks for a password, a passphrase or a token: it collects a credential, it does not show
 *    the user what will be sent;
 *  - in a dispatcher shared by several tools, an elicitation in the branch of another tool (`case 'delete_host':`).
 *
 * Branches on the client's ability to elicit or on the answer of an earlier round (`if (!canElicit) refuse`,
 * `if (answer.kind === 'missing')`) are not a policy's. Read once per handler (gatesOf), per tool by name (asksBefore).
 */

/** Names read in a condition that make it a policy's choice (what the server decides, not what the user answers). */
const POLICY_WORDS = /polic|mode|config|setting|option|require|approv|confirm|danger|risk|safe|sensitive|whitelist|blacklist|allow|deny|block|trust|auto|yolo|skip|bypass|pattern|match|level|tier|decision|verdict|needs|should|must/i;
/** A policy's decision compared in a condition (`decision === 'ask'`, `case 'prompt':`). */
const DECISION = /^(?:ask|prompt|confirm|approve|approval|allow|deny|block|manual|interactive|auto|review)$/i;

/** Schema properties of an elicitation that collects a credential rather than an approval. */
const CREDENTIAL = /^(?:pass(?:word|phrase)?|sudo_?pass(?:word)?|secret|token|api_?key|key|otp|totp|mfa|pin|code|username|user|login|credentials?)$/i;

/** An elicitation request: `elicitInput(…)`, `x.elicitInput(…)`, `inputRequired(…)`, `x.elicit(…)`, a request for 'elicitation/create'. */
function isElicitation(cn: ts.Node): cn is ts.CallExpression {
  if (!ts.isCallExpression(cn)) return false;
  const e = rawUnwrap(cn.expression);
  if (ts.isIdentifier(e)) return e.text === 'elicitInput' || e.text === 'inputRequired';
  if (ts.isPropertyAccessExpression(e) && (e.name.text === 'elicitInput' || e.name.text === 'elicit')) return true;
  const first = cn.arguments[0] && rawUnwrap(cn.arguments[0]);
  return !!first && ts.isObjectLiteralExpression(first) && first.properties.some((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'method' && ts.isStringLiteralLike(p.initializer) && p.initializer.text === 'elicitation/create');
}

/** The property names of an object literal, if `n` is one. */
function literalKeys(n: ts.Node | undefined): string[] | undefined {
  const o = n && rawUnwrap(n);
  if (!o || !ts.isObjectLiteralExpression(o)) return undefined;
  return o.properties.flatMap((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) ? [p.name.text] : []));
}

function propertyOf(n: ts.Node | undefined, name: string): ts.Expression | undefined {
  const o = n && rawUnwrap(n);
  if (!o || !ts.isObjectLiteralExpression(o)) return undefined;
  for (const p of o.properties) if (ts.isPropertyAssignment(p) && p.name && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) && p.name.text === name) return p.initializer;
  return undefined;
}

/** An elicitation whose form asks only for credentials (`{ password }`, `{ passphrase }`): it collects a secret, it approves nothing. */
function asksForCredential(c: ts.CallExpression): boolean {
  const arg = c.arguments[0];
  const params = propertyOf(arg, 'params') ?? arg;
  const keys = literalKeys(propertyOf(propertyOf(params, 'requestedSchema'), 'properties'));
  return !!keys && keys.length > 0 && keys.every((k) => CREDENTIAL.test(k));
}

/**
 * The tool names the branches between `site` and `fn` require (each inner list: one of these names), or undefined
 * when a branch is a policy's choice (a condition reading a policy, a configuration or a mode, the right side of
 * `&&`/`||`/`??`, a catch clause, a `default:`).
 */
function branchNames(site: Node, fn: Node): string[][] | undefined {
  const sets: string[][] = [];
  const literalsOf = (cond: Node): string[] => [cond, ...cond.getDescendants()].flatMap((d) => (Node.isStringLiteral(d) || Node.isNoSubstitutionTemplateLiteral(d) ? [d.getLiteralValue()] : []));
  const policy = (cond: Node): boolean => (POLICY_WORDS.test(cond.getText()) && !/elicit|capabilit/i.test(cond.getText())) || literalsOf(cond).some((l) => DECISION.test(l));
  let child: Node = site;
  for (let p = site.getParent(); p && p !== fn; child = p, p = p.getParent()) {
    if (Node.isIfStatement(p) && child !== p.getExpression()) {
      const cond = p.getExpression();
      if (policy(cond)) return undefined;
      const lits = literalsOf(cond);
      // A branch on the tool's name (a dispatcher) attributes the question to that tool; any other branch is left as
      // it was read before (a guard on the arguments, a second round) unless it reads a policy.
      if (lits.length && /\bname\b|tool/i.test(cond.getText())) sets.push(lits);
    } else if (Node.isCaseClause(p) && child !== p.getExpression()) {
      const sw = p.getParentOrThrow().getParent();
      const on = sw && Node.isSwitchStatement(sw) ? sw.getExpression() : undefined;
      if (on && policy(on)) return undefined;
      const v = constString(p.getExpression())?.value;
      if (v === undefined || DECISION.test(v)) return undefined;
      sets.push([v]);
    } else if (Node.isDefaultClause(p)) return undefined;
    else if (Node.isConditionalExpression(p) && child !== p.getCondition()) {
      if (policy(p.getCondition())) return undefined;
    } else if (Node.isBinaryExpression(p) && child === p.getRight() && ['&&', '||', '??', '&&=', '||=', '??='].includes(p.getOperatorToken().getText())) return undefined;
    else if (Node.isCatchClause(p)) return undefined;
  }
  return sets;
}

/** One place where a handler asks the human, with the tool names its branches require. */
export interface Gate {
  names: string[][];
}

const gateMemo = new WeakMap<Node, Gate[]>();
const helperMemo = new WeakMap<Node, boolean>();

/** Whether a helper function asks the human on every path it lets the request through (depth: helpers it calls). */
function helperAsks(fn: FunctionLikeNode, sources: ParsedSources, depth: number): boolean {
  const hit = helperMemo.get(fn);
  if (hit !== undefined) return hit;
  helperMemo.set(fn, false);
  const ok = sitesIn(fn, sources, depth).some((s) => s.names.length === 0) && !acceptsWithoutAsking(fn, sources);
  helperMemo.set(fn, ok);
  return ok;
}

/** The places in `fn` that ask: an elicitation written there, or a call of a helper that asks (two hops at most). */
function sitesIn(fn: FunctionLikeNode, sources: ParsedSources, depth: number): Gate[] {
  const out: Gate[] = [];
  for (const site of findNodes(fn, isElicitation)) {
    if (asksForCredential(site.compilerNode as ts.CallExpression)) continue;
    const names = branchNames(site, fn);
    if (names) out.push({ names });
  }
  if (depth < 2) {
    for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && !isElicitation(cn) && mayResolveFunction((cn as ts.CallExpression).expression))) {
      if (!Node.isCallExpression(call)) continue;
      const g = functionCached(unwrap(call.getExpression()), sources);
      if (!g || g === fn || !helperAsks(g, sources, depth + 1)) continue;
      const names = branchNames(call, fn);
      if (names) out.push({ names });
    }
  }
  return out;
}

/** The places a handler asks the human before it acts, read once per handler. */
export function gatesOf(handler: FunctionLikeNode, sources: ParsedSources): Gate[] {
  const hit = gateMemo.get(handler);
  if (hit) return hit;
  const gates = acceptsWithoutAsking(handler, sources) ? [] : sitesIn(handler, sources, 0);
  gateMemo.set(handler, gates);
  return gates;
}

/** Whether one of the gates asks before the tool `name` acts (its branches are the tool's, or none). */
export const asksBefore = (gates: readonly Gate[], name: string): boolean => gates.some((g) => g.names.every((set) => set.includes(name)));
