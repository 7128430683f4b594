import { Node } from '../morph.js';
import { unwrap } from '../ts-source.js';

/**
 * Taint flow (facts/flow.ts): text built from pieces — a template literal or a `+` chain read as its constant
 * texts and its expressions (used by the taint, argument arrays, and the SQL of file functions in sinks.ts).
 */

export type Piece = { text: string } | { expr: Node };

/** A template literal or a `+` chain as its constant texts and its expressions, in order. */
export function piecesOf(n: Node): Piece[] | undefined {
  if (Node.isTemplateExpression(n)) {
    const out: Piece[] = [{ text: n.getHead().getLiteralText() }];
    for (const span of n.getTemplateSpans()) out.push({ expr: span.getExpression() }, { text: span.getLiteral().getLiteralText() });
    return out;
  }
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') {
    const out: Piece[] = [];
    const add = (x: Node): void => {
      const u = unwrap(x);
      if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') {
        add(u.getLeft());
        add(u.getRight());
        return;
      }
      const c = Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u) ? u.getLiteralValue() : undefined;
      out.push(c !== undefined ? { text: c } : { expr: u });
    };
    add(n);
    return out;
  }
  return undefined;
}
