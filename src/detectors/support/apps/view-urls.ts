import { ts } from '../../../facts/morph.js';
import { rawDeclarationOf } from '../../../facts/scope.js';

/**
 * Where a URL expression of a View's code goes, as far as a reading of one file can tell: the fixed text it starts
 * with (a string, the head of a template or of a `+` chain, a `const` in scope), classified as local (`data:`,
 * `blob:`, `URL.createObjectURL(…)`), absolute (`http(s)://host…`, `ws(s)://host…`) or unknown. Shared by A-2 (what
 * the View loads from elsewhere) and A-3 (where its network calls go).
 */

/** Where a network use goes, as far as the reading can tell. */
export type Target = { kind: 'local' } | { kind: 'absolute'; url: string } | { kind: 'unknown' };

/** The fixed text a URL expression starts with: a string, the head of a template or of a `+` chain, a `const` of the file. */
export function leadingText(e: ts.Expression, depth = 0): string | undefined {
  let n = e;
  while (ts.isParenthesizedExpression(n) || ts.isAsExpression(n)) n = n.expression;
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isTemplateExpression(n)) {
    // `${BASE}/x`: the head is empty, the origin is in the first substitution.
    if (n.head.text === '' && n.templateSpans.length) {
      const first = leadingText(n.templateSpans[0]!.expression, depth);
      return first === undefined ? '' : first + n.templateSpans[0]!.literal.text;
    }
    return n.head.text;
  }
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) return leadingText(n.left, depth);
  if (ts.isIdentifier(n) && depth < 3) {
    // A `const` in scope (facts/scope: parameters and inner declarations shadow it, as minified bundles reuse names).
    const decl = rawDeclarationOf(n)?.parent;
    const init = decl && ts.isVariableDeclaration(decl) && ts.isVariableDeclarationList(decl.parent) && decl.parent.flags & ts.NodeFlags.Const ? decl.initializer : undefined;
    return init ? leadingText(init, depth + 1) : undefined;
  }
  return undefined;
}

export function urlOf(arg: ts.Expression | undefined): Target {
  if (!arg) return { kind: 'unknown' };
  let n = arg;
  while (ts.isParenthesizedExpression(n)) n = n.expression;
  // URL.createObjectURL(blob): a blob: URL of the page itself.
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'createObjectURL') return { kind: 'local' };
  const head = leadingText(n);
  if (head === undefined) return { kind: 'unknown' };
  if (/^\s*(data|blob):/i.test(head)) return { kind: 'local' };
  // An absolute URL: its origin is in the fixed text (`https://host/…`, `https://host` + path).
  const m = /^\s*((?:https?|wss?):\/\/[^/?#\s]+)(?:[/?#]|$)/i.exec(head);
  if (m) return { kind: 'absolute', url: head.trim() };
  return { kind: 'unknown' };
}
