import { Node, SyntaxKind } from '../morph.js';
import { functionOf, type FunctionLikeNode } from '../scope.js';
import { sourcesOf, stringValue, unwrap } from '../ts-source.js';

/**
 * A tool name passed through a local transform of one string: `camelToSnake('getUser')`, `toolName(op.operationId)`,
 *
 *   function camelToSnake(s) { return s.replace(/([A-Z])/g, '_$1').toLowerCase(); }
 *   const toolName = (id) => id.replace(/[^a-zA-Z0-9]+/g, '_').toLowerCase().slice(0, 64);
 *
 * Computed here only when the callee is a function of the package with one plain parameter whose body is a single
 * return (or an arrow's expression) built from that parameter, string/regex/number literals, `+`, templates and the
 * string methods below with literal arguments (a `replace` by a function, any other call, any other variable: not
 * read). The methods are run on the value itself (String.prototype), so the result is what the package computes.
 */

const STRING_METHODS = new Set(['replace', 'replaceAll', 'toLowerCase', 'toUpperCase', 'trim', 'trimStart', 'trimEnd', 'slice', 'substring', 'split', 'join', 'padStart', 'padEnd', 'repeat']);
const MAX_TEXT = 256;

type Value = string | number | RegExp | string[];

/** The one-string transform a call applies, when its callee is such a function; undefined otherwise. */
export function transformOf(call: Node): ((s: string) => string | undefined) | undefined {
  const u = unwrap(call);
  if (!Node.isCallExpression(u) || u.getArguments().length !== 1) return undefined;
  const callee = unwrap(u.getExpression());
  if (!Node.isIdentifier(callee)) return undefined;
  const sources = sourcesOf(u.getSourceFile());
  const fn = sources && functionOf(callee, sources);
  const body = fn && returnedExpression(fn);
  const param = fn?.getParameters();
  if (!body || param?.length !== 1 || param[0]!.getInitializer() || param[0]!.isRestParameter() || !Node.isIdentifier(param[0]!.getNameNode())) return undefined;
  const name = param[0]!.getName();
  return (s: string) => {
    if (s.length > MAX_TEXT) return undefined;
    try {
      const v = evaluate(body, name, s, 0);
      return typeof v === 'string' && v.length <= MAX_TEXT ? v : undefined;
    } catch {
      return undefined;
    }
  };
}

function returnedExpression(fn: FunctionLikeNode): Node | undefined {
  if (Node.isArrowFunction(fn)) {
    const b = fn.getBody();
    if (!Node.isBlock(b)) return b;
  }
  const block = fn.getBody();
  if (!block || !Node.isBlock(block)) return undefined;
  const st = block.getStatements();
  if (st.length !== 1 || !Node.isReturnStatement(st[0]!)) return undefined;
  return st[0].getExpression();
}

const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}|](?:[^()\\]|\\.)*\)\s*[+*{?]/;

function regexOf(n: Node): RegExp | undefined {
  const text = n.getText();
  const end = text.lastIndexOf('/');
  if (end <= 0 || end > 200) return undefined;
  const flags = text.slice(end + 1);
  const source = text.slice(1, end);
  // The package's own pattern is run here: one that can backtrack without end (a quantified group holding a
  // quantifier or an alternation, `(a+)+`, `(a|a)+`, or a back-reference) is not run, so a hostile package cannot stall the audit.
  if (NESTED_QUANTIFIER.test(source) || /\\[1-9k]/.test(source)) return undefined;
  return /^[gimsuy]*$/.test(flags) ? new RegExp(source, flags) : undefined;
}

/** The value of an expression of the transform, or undefined when it is not one the header lists. */
function evaluate(node: Node, param: string, arg: string, depth: number): Value | undefined {
  if (depth > 12) return undefined;
  const n = unwrap(node);
  const str = stringValue(n);
  if (str !== undefined) return str;
  if (Node.isNumericLiteral(n)) return Number(n.getLiteralValue());
  if (Node.isPrefixUnaryExpression(n) && n.getOperatorToken() === SyntaxKind.MinusToken && Node.isNumericLiteral(n.getOperand())) return -Number(n.getOperand().getText());
  if (Node.isRegularExpressionLiteral(n)) return regexOf(n);
  if (Node.isIdentifier(n)) return n.getText() === param ? arg : undefined;
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getKind() === SyntaxKind.PlusToken) {
    const l = evaluate(n.getLeft(), param, arg, depth + 1);
    const r = evaluate(n.getRight(), param, arg, depth + 1);
    return typeof l === 'string' && typeof r === 'string' ? l + r : undefined;
  }
  if (Node.isTemplateExpression(n)) {
    let out = n.getHead().getLiteralText();
    for (const span of n.getTemplateSpans()) {
      const v = evaluate(span.getExpression(), param, arg, depth + 1);
      if (typeof v !== 'string') return undefined;
      out += v + span.getLiteral().getLiteralText();
    }
    return out;
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (!Node.isPropertyAccessExpression(callee) || !STRING_METHODS.has(callee.getName())) return undefined;
    const target = evaluate(callee.getExpression(), param, arg, depth + 1);
    const args = n.getArguments().map((a) => evaluate(a, param, arg, depth + 1));
    if (args.some((a) => a === undefined || Array.isArray(a))) return undefined;
    const method = callee.getName();
    if (Array.isArray(target)) return method === 'join' && args.length <= 1 && args.every((a) => typeof a === 'string') ? target.join(...(args as string[])) : undefined;
    if (typeof target !== 'string' || method === 'join') return undefined;
    if (method === 'repeat' && (typeof args[0] !== 'number' || args[0] > 8)) return undefined;
    const out = (String.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!.apply(target, args);
    if (typeof out === 'string') return out;
    return Array.isArray(out) && out.every((x) => typeof x === 'string') ? (out as string[]) : undefined;
  }
  return undefined;
}
