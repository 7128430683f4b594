import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { declarationOf, findNodes, isFunctionLike, originOf } from '../../facts/scope.js';
import { rawFunctionName, unwrap } from '../../facts/ts-source.js';

/**
 * console methods picked by a computed key: `console[messageLevel](message)`, the shape of hand-written
 * loggers (a `Logger` class whose `log`/`info`/`warn` call one `doLog(level, args)`, a `write(level, …)` helper).
 * The key is read for the method names it can hold, from what the code writes:
 *
 *  - a string literal, or a conditional or `||`/`??` of them (`console[isError ? 'error' : 'log']`);
 *  - a const or variable initialised so;
 *  - a parameter of the function around the call: its default value, and the values the same file passes at its
 *    position where it calls that function by name (`this.doLog('log', args)`, `write('info', message)`), followed
 *    two functions deep (a wrapper that passes its own parameter on).
 *
 * A call counts when one of those values is a console method that writes to stdout (`stdout`, the caller's set); a
 * key with no readable value is not counted (nothing shows it ever names one). Read once per file, and only in a
 * file whose text indexes the console.
 */

const MAX_DEPTH = 3;

/** The global console (not a local of that name), also as `globalThis.console` / `global.console`. */
function isConsole(n: Node): boolean {
  const u = unwrap(n);
  if (Node.isPropertyAccessExpression(u)) {
    const o = unwrap(u.getExpression());
    return u.getName() === 'console' && Node.isIdentifier(o) && /^(?:globalThis|global)$/.test(o.getText()) && originOf(o)?.module === '<global>';
  }
  if (!Node.isIdentifier(u) || u.getText() !== 'console') return false;
  const m = originOf(u)?.module;
  return m === '<global>' || m === 'console';
}

/** The calls of a file by the last name of their callee (`f(…)`, `this.f(…)`, `x.f(…)`; `#` dropped as rawFunctionName drops it), indexed once. */
type CallIndex = Map<string, { call: Node; bare: boolean }[]>;

function callIndex(sf: SourceFile): CallIndex {
  const out: CallIndex = new Map();
  for (const n of findNodes(sf, (cn) => ts.isCallExpression(cn) && (ts.isIdentifier(cn.expression) || ts.isPropertyAccessExpression(cn.expression)))) {
    if (!Node.isCallExpression(n)) continue;
    const c = n.getExpression();
    const bare = Node.isIdentifier(c);
    const name = bare ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName().replace(/^#/, '') : '';
    const list = out.get(name) ?? [];
    list.push({ call: n, bare });
    out.set(name, list);
  }
  return out;
}

/**
 * The name a function is called by (facts/ts-source `rawFunctionName`), and whether it is called bare (`f(…)`: a
 * declaration or a variable's value) or as a member (`this.f(…)`: a method or property); a function expression
 * given to none of these has no name to be called by.
 */
function calledName(fn: Node): { name: string; bare: boolean } | undefined {
  const name = rawFunctionName(fn.compilerNode);
  if (!name) return undefined;
  if (Node.isFunctionDeclaration(fn)) return { name, bare: true };
  if (Node.isMethodDeclaration(fn)) return { name, bare: false };
  const p = fn.getParent();
  if (p && Node.isVariableDeclaration(p)) return { name, bare: true };
  if (p && (Node.isPropertyDeclaration(p) || Node.isPropertyAssignment(p))) return { name, bare: false };
  return undefined;
}

/** The string values an expression can take, as far as the code writes them (empty when none is readable). */
function valuesOf(e: Node | undefined, calls: () => CallIndex, depth: number): string[] {
  if (!e || depth > MAX_DEPTH) return [];
  const u = unwrap(e);
  if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) return [u.getLiteralValue()];
  if (Node.isConditionalExpression(u)) {
    // A branch that is a name the condition compares (`level === 'info' ? 'error' : level`) holds only what the test left.
    const cond = u.getCondition();
    return [u.getWhenTrue(), u.getWhenFalse()].flatMap((b) => (comparedIn(cond, unwrap(b)) ? [] : valuesOf(b, calls, depth)));
  }
  if (Node.isBinaryExpression(u) && ['||', '??'].includes(u.getOperatorToken().getText())) return [...valuesOf(u.getLeft(), calls, depth), ...valuesOf(u.getRight(), calls, depth)];
  if (!Node.isIdentifier(u)) return [];
  const d = declarationOf(u);
  const p = d?.getParent();
  if (!p) return [];
  if (Node.isVariableDeclaration(p) && p.getNameNode() === d) return valuesOf(p.getInitializer(), calls, depth + 1);
  if (!Node.isParameterDeclaration(p) || p.getNameNode() !== d) return [];
  const fn = p.getParent();
  if (!fn || !isFunctionLike(fn)) return [];
  // A parameter the function assigns again (`if (level !== 'warn') level = 'error'`) no longer holds what callers
  // passed: the key is not read (no value, no call counted).
  if (reassignedIn(fn).has(u.getText())) return [];
  const out = valuesOf(p.getInitializer(), calls, depth + 1);
  const i = fn.getParameters().indexOf(p);
  const named = calledName(fn);
  if (i < 0 || !named || p.isRestParameter()) return out;
  for (const { call, bare } of calls().get(named.name) ?? []) {
    if (bare !== named.bare || !Node.isCallExpression(call)) continue;
    const args = call.getArguments();
    if (args.slice(0, i + 1).some((a) => Node.isSpreadElement(a))) continue;
    out.push(...valuesOf(args[i], calls, depth + 1));
  }
  return out;
}

/** The names a function assigns to (`x = …`, `x ||= …`) anywhere in its body, read once per function. */
const reassigned = new WeakMap<Node, Set<string>>();
function reassignedIn(fn: Node): Set<string> {
  let names = reassigned.get(fn);
  if (names) return names;
  names = new Set();
  const visit = (cn: ts.Node): void => {
    if (ts.isBinaryExpression(cn) && cn.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && cn.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      let l: ts.Expression = cn.left;
      while (ts.isParenthesizedExpression(l)) l = l.expression;
      if (ts.isIdentifier(l)) names!.add(l.text);
    }
    ts.forEachChild(cn, visit);
  };
  ts.forEachChild(fn.compilerNode, visit);
  reassigned.set(fn, names);
  return names;
}

const EQUALITY = new Set(['===', '!==', '==', '!=']);

/** Whether `test` compares the name `key` with a string (`key === 'info'`, `['log', 'info'].includes(key)`). */
function comparedIn(test: Node, key: Node): boolean {
  if (!Node.isIdentifier(key)) return false;
  const name = key.getText();
  const isKey = (x: Node): boolean => Node.isIdentifier(unwrap(x)) && unwrap(x).getText() === name;
  const isText = (x: Node): boolean => Node.isStringLiteral(unwrap(x)) || Node.isNoSubstitutionTemplateLiteral(unwrap(x));
  return [test, ...test.getDescendants()].some((d) => {
    if (Node.isBinaryExpression(d) && EQUALITY.has(d.getOperatorToken().getText())) return (isKey(d.getLeft()) && isText(d.getRight())) || (isKey(d.getRight()) && isText(d.getLeft()));
    if (Node.isCallExpression(d)) {
      const c = unwrap(d.getExpression());
      return Node.isPropertyAccessExpression(c) && /^(?:includes|has)$/.test(c.getName()) && d.getArguments().some(isKey);
    }
    return false;
  });
}

/**
 * Whether the key of a `console[key](…)` is narrowed by a test around the call, inside its function: an `if` or a
 * conditional that compares it with a string, or a `switch` on it (`if (level === 'info') console.error(…); else
 * console[level](…)`). What reaches the call is then not every value passed in: the call is left alone.
 */
function narrowed(call: Node, key: Node): boolean {
  if (!Node.isIdentifier(key)) return false;
  for (let a: Node | undefined = call; a && !isFunctionLike(a); a = a.getParent()) {
    if (a !== call && (Node.isIfStatement(a) || Node.isConditionalExpression(a)) && comparedIn(Node.isIfStatement(a) ? a.getExpression() : a.getCondition(), key)) return true;
    if (a !== call && Node.isSwitchStatement(a) && Node.isIdentifier(unwrap(a.getExpression())) && unwrap(a.getExpression()).getText() === key.getText()) return true;
    // An earlier `if` of the same block that compares the key and leaves (`if (level === 'info') { console.error(…); return; }`).
    const block = a.getParent();
    if (block && (Node.isBlock(block) || Node.isCaseClause(block) || Node.isDefaultClause(block))) {
      for (const prev of a.getPreviousSiblings()) if (Node.isIfStatement(prev) && comparedIn(prev.getExpression(), key) && leaves(prev.getThenStatement())) return true;
    }
  }
  return false;
}

/** Whether a branch always ends in `return` or `throw` (its last statement, or itself). */
function leaves(st: Node): boolean {
  const last = Node.isBlock(st) ? st.getStatements().at(-1) : st;
  return !!last && (Node.isReturnStatement(last) || Node.isThrowStatement(last));
}

/** `console[key](…)` calls of a file whose key can name one of `stdout` (console methods writing to stdout), with that method. */
export function computedConsoleCalls(sf: SourceFile, stdout: (method: string) => boolean): { node: Node; method: string }[] {
  if (!/\bconsole\s*\[/.test(sf.getFullText())) return [];
  const sites = findNodes(sf, (cn) => {
    if (!ts.isCallExpression(cn)) return false;
    let c: ts.Expression = cn.expression;
    while (ts.isParenthesizedExpression(c)) c = c.expression;
    return ts.isElementAccessExpression(c);
  });
  let index: CallIndex | undefined;
  const calls = (): CallIndex => (index ??= callIndex(sf));
  const out: { node: Node; method: string }[] = [];
  for (const n of sites) {
    if (!Node.isCallExpression(n)) continue;
    const c = unwrap(n.getExpression());
    if (!Node.isElementAccessExpression(c) || !isConsole(c.getExpression())) continue;
    const key = c.getArgumentExpression();
    if (!key || narrowed(n, unwrap(key))) continue;
    const method = valuesOf(key, calls, 0).find(stdout);
    if (method) out.push({ node: n, method });
  }
  return out;
}
