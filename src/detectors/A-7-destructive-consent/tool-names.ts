import { afterLoad, ts } from '../../facts/morph.js';
import { rawDeclarationOf } from '../../facts/scope.js';

/**
 * The tool names an expression of the View's code can hold, when they are written down in the same file:
 * a string literal; a `const` holding one (or a `var` / `let` never assigned again: a minified bundle's consts); either side of a conditional or of `??` / `||`; a member of a
 * literal table (`TOOLS.remove`, `TOOLS[action]` = every value of TOOLS); the element (or a member of the element)
 * of a literal array a callback is mapped over (`ACTIONS.map((a) => … a.tool …)`); a parameter typed with a union of
 * string literals (`name: 'archive' | 'purge'`, directly or through a type alias of the file). Undefined when any
 * of the names cannot be read. `viaType` says a name came from a parameter's type: who calls the function, and
 * what they confirm first, is not read then.
 */

export interface ToolNames {
  names: string[];
  viaType: boolean;
}

const MAX_DEPTH = 6;
const MAX_NAMES = 64;
const ITERATORS = new Set(['map', 'forEach', 'flatMap', 'filter', 'find', 'some', 'every']);

function strip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e)) e = e.expression;
  return e;
}

function join(parts: (ToolNames | undefined)[]): ToolNames | undefined {
  if (parts.some((p) => p === undefined)) return undefined;
  const names = [...new Set(parts.flatMap((p) => p!.names))];
  return names.length && names.length <= MAX_NAMES ? { names, viaType: parts.some((p) => p!.viaType) } : undefined;
}

const propName = (n: ts.PropertyName): string | undefined => (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isNumericLiteral(n) ? n.text : undefined);

/** The const initializer a declaring identifier names, or undefined. */
function constInit(decl: ts.Identifier): ts.Expression | undefined {
  const d = decl.parent;
  if (!ts.isVariableDeclaration(d) || d.name !== decl || !d.initializer) return undefined;
  return fixedBinding(d) ? d.initializer : undefined;
}

const isFnLike = (n: ts.Node): boolean => ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n);
const ASSIGNMENTS = afterLoad(() => new Set([ts.SyntaxKind.EqualsToken, ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken, ts.SyntaxKind.BarBarEqualsToken, ts.SyntaxKind.AmpersandAmpersandEqualsToken]));
const fixedMemo = new WeakMap<ts.VariableDeclaration, boolean>();

/**
 * A binding that holds its initializer for good: a `const`, or a `var` / `let` the file never assigns again. A
 * minified bundle writes the View's constants as `var a=\`poll-stats\`,b=…` (Rollup and esbuild turn top-level
 * consts into vars), so the name a call passes is read through such a var as through the const it was.
 */
function fixedBinding(d: ts.VariableDeclaration): boolean {
  if (ts.getCombinedNodeFlags(d) & ts.NodeFlags.Const) return true;
  if (!ts.isIdentifier(d.name) || !ts.isVariableDeclarationList(d.parent) || ts.isForInStatement(d.parent.parent) || ts.isForOfStatement(d.parent.parent)) return false;
  const hit = fixedMemo.get(d);
  if (hit !== undefined) return hit;
  const name = d.name.text;
  let written = false;
  const writes = (t: ts.Node): boolean => ts.isIdentifier(t) && t.text === name && rawDeclarationOf(t) === d.name;
  const scopeOf = (n: ts.Node): ts.Node | undefined => {
    for (let c = n.parent; c; c = c.parent) if (isFnLike(c) || ts.isSourceFile(c)) return c;
    return undefined;
  };
  const scope = scopeOf(d);
  const visit = (n: ts.Node): void => {
    if (written) return;
    // `var a = 'x'; … var a = 'y';`: a second var of the same name in the same function writes it again.
    if (n !== d && ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === name && !(ts.getCombinedNodeFlags(n) & (ts.NodeFlags.Let | ts.NodeFlags.Const)) && scopeOf(n) === scope) {
      written = true;
      return;
    }
    if (ts.isBinaryExpression(n) && ASSIGNMENTS().has(n.operatorToken.kind) && writes(strip(n.left))) written = true;
    else if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) && writes(n.operand)) written = true;
    // A destructuring assignment ([a, b] = …) or another declaration of the same name: not followed, taken as a write.
    else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && (ts.isArrayLiteralExpression(n.left) || ts.isObjectLiteralExpression(n.left)) && n.left.getText().includes(name)) written = true;
    else ts.forEachChild(n, visit);
  };
  visit(d.getSourceFile());
  fixedMemo.set(d, !written);
  return !written;
}

/** The literal arrays a callback parameter runs over: `LIST.map((x) => …)` with LIST a const array literal (or Object.values of a table). */
function iteratedElements(param: ts.ParameterDeclaration, depth: number): ts.Expression[] | undefined {
  const fn = param.parent;
  if (!(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) || fn.parameters[0] !== param) return undefined;
  const call = fn.parent;
  if (!ts.isCallExpression(call) || call.arguments[0] !== fn || !ts.isPropertyAccessExpression(call.expression) || !ITERATORS.has(call.expression.name.text)) return undefined;
  return arrayElements(call.expression.expression, depth + 1);
}

function arrayElements(e: ts.Expression, depth: number): ts.Expression[] | undefined {
  if (depth > MAX_DEPTH) return undefined;
  e = strip(e);
  if (ts.isArrayLiteralExpression(e)) return e.elements.some((x) => ts.isSpreadElement(x)) ? undefined : [...e.elements];
  if (ts.isIdentifier(e)) {
    const decl = rawDeclarationOf(e);
    const init = decl && constInit(decl);
    return init ? arrayElements(init, depth + 1) : undefined;
  }
  // Object.values(TABLE)
  if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'values' && ts.isIdentifier(e.expression.expression) && e.expression.expression.text === 'Object' && e.arguments[0]) {
    const objs = objectsOf(e.arguments[0], depth + 1);
    if (!objs) return undefined;
    const out: ts.Expression[] = [];
    for (const o of objs) for (const p of o.properties) {
      if (!ts.isPropertyAssignment(p)) return undefined;
      out.push(p.initializer);
    }
    return out;
  }
  return undefined;
}

/** The object literals an expression can be: a const table, an element of an iterated literal array, a member of one. */
function objectsOf(e: ts.Expression, depth: number): ts.ObjectLiteralExpression[] | undefined {
  if (depth > MAX_DEPTH) return undefined;
  e = strip(e);
  if (ts.isObjectLiteralExpression(e)) return [e];
  if (ts.isIdentifier(e)) {
    const decl = rawDeclarationOf(e);
    if (!decl) return undefined;
    const init = constInit(decl);
    if (init) return objectsOf(init, depth + 1);
    if (ts.isParameter(decl.parent) && decl.parent.name === decl) return objectsOfEach(iteratedElements(decl.parent, depth), depth);
    return undefined;
  }
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return objectsOfEach(memberValues(e, depth), depth);
  return undefined;
}

/** The object literals every one of the expressions can be, or undefined when one of them cannot be read. */
function objectsOfEach(exprs: ts.Expression[] | undefined, depth: number): ts.ObjectLiteralExpression[] | undefined {
  if (!exprs) return undefined;
  const out: ts.ObjectLiteralExpression[] = [];
  for (const x of exprs) {
    const o = objectsOf(x, depth + 1);
    if (!o) return undefined;
    out.push(...o);
  }
  return out;
}

/** The values a member access can read: one key of each object, or every value for a key that is not a literal. */
function memberValues(e: ts.PropertyAccessExpression | ts.ElementAccessExpression, depth: number): ts.Expression[] | undefined {
  const objs = objectsOf(e.expression, depth + 1);
  if (!objs) return undefined;
  const key = ts.isPropertyAccessExpression(e) ? e.name.text : ts.isStringLiteral(strip(e.argumentExpression)) || ts.isNoSubstitutionTemplateLiteral(strip(e.argumentExpression)) ? (strip(e.argumentExpression) as ts.StringLiteral).text : undefined;
  const out: ts.Expression[] = [];
  for (const o of objs) {
    for (const p of o.properties) {
      if (ts.isSpreadAssignment(p)) return undefined;
      if (!ts.isPropertyAssignment(p)) continue;
      const k = propName(p.name);
      if (k === undefined && key !== undefined) return undefined;
      if (key === undefined || k === key) out.push(p.initializer);
    }
  }
  return out.length ? out : undefined;
}

/** String literal types of a parameter's annotation (a union, or an alias of the file naming one). */
function typeNames(t: ts.TypeNode | undefined, depth: number): string[] | undefined {
  if (!t || depth > MAX_DEPTH) return undefined;
  if (ts.isParenthesizedTypeNode(t)) return typeNames(t.type, depth + 1);
  if (ts.isLiteralTypeNode(t)) return ts.isStringLiteral(t.literal) ? [t.literal.text] : undefined;
  if (ts.isUnionTypeNode(t)) {
    const out: string[] = [];
    for (const m of t.types) {
      const n = typeNames(m, depth + 1);
      if (!n) return undefined;
      out.push(...n);
    }
    return out;
  }
  if (ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName) && !t.typeArguments) {
    const name = t.typeName.text;
    const alias = t.getSourceFile().statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    return alias ? typeNames(alias.type, depth + 1) : undefined;
  }
  return undefined;
}

export function toolNamesOf(expr: ts.Expression, depth = 0): ToolNames | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const e = strip(expr);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return { names: [e.text], viaType: false };
  if (ts.isConditionalExpression(e)) return join([toolNamesOf(e.whenTrue, depth + 1), toolNamesOf(e.whenFalse, depth + 1)]);
  if (ts.isBinaryExpression(e) && (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || e.operatorToken.kind === ts.SyntaxKind.BarBarToken)) return join([toolNamesOf(e.left, depth + 1), toolNamesOf(e.right, depth + 1)]);
  if (ts.isIdentifier(e)) {
    const decl = rawDeclarationOf(e);
    if (!decl) return undefined;
    const init = constInit(decl);
    if (init) return toolNamesOf(init, depth + 1);
    const d = decl.parent;
    if (ts.isParameter(d) && d.name === decl) {
      const els = iteratedElements(d, depth);
      if (els) return join(els.map((x) => toolNamesOf(x, depth + 1)));
      const t = typeNames(d.type, 0);
      return t?.length ? { names: [...new Set(t)], viaType: true } : undefined;
    }
    // const { tool } = ACTION / ({ tool }) => … over a literal array: the member of each object.
    if (ts.isBindingElement(d) && d.name === decl && !d.dotDotDotToken && ts.isObjectBindingPattern(d.parent)) {
      const key = d.propertyName ? propName(d.propertyName) : decl.text;
      const holder = d.parent.parent;
      let objs: ts.ObjectLiteralExpression[] | undefined;
      if (ts.isVariableDeclaration(holder) && holder.initializer && fixedBinding(holder)) objs = objectsOf(holder.initializer, depth + 1);
      else if (ts.isParameter(holder)) objs = objectsOfEach(iteratedElements(holder, depth), depth);
      if (!objs || key === undefined) return undefined;
      const values: ts.Expression[] = [];
      for (const o of objs) {
        const p = o.properties.find((q): q is ts.PropertyAssignment => ts.isPropertyAssignment(q) && propName(q.name) === key);
        if (!p) return undefined;
        values.push(p.initializer);
      }
      return join(values.map((v) => toolNamesOf(v, depth + 1)));
    }
    return undefined;
  }
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
    const values = memberValues(e, depth);
    return values ? join(values.map((v) => toolNamesOf(v, depth + 1))) : undefined;
  }
  return undefined;
}
