import { Node, SyntaxKind, ts, type SourceFile, type Identifier } from '../morph.js';
import { assignedValues, declarationOf, mayResolveFunction, fieldValues, findNodes, importOf as importOfDecl, isFunctionLike, resolveRelativeModule, valueOfDeclaration } from '../scope.js';
import { constString, objectLiteralOf, propertyValue } from '../server-model.js';
import { rawUnwrap, propertyName, unwrap, wrapNode, type ParsedSources } from '../ts-source.js';
import { type Analyzable, classId, functionCached, rawEnclosingClass, stripAwait } from './modules.js';
import { type Check, declKey, type Family, ownReturns, type RawFlow, v, type Verdict } from './taint.js';

/**
 * Taint flow (facts/flow.ts), the guards: the checks met on the way to a sink (allow-lists and what writes them,
 * empty lists that open everything, rejections, a human asked to confirm).
 */

/* ---------------------------------------------------------- confirmation */

export const CONFIRMED: Partial<Record<Family, Verdict>> = { process: v('sound', 'confirmed'), argv: v('sound', 'confirmed') };
const humanMemo = new WeakMap<ts.Node, boolean>();

/**
 * Whether a function asks the human (itself, or a helper of the audited source it calls): an elicitation
 * request (`elicitInput(…)`, the SDK's `inputRequired.elicit(…)`, a request for 'elicitation/create').
 */
export function asksHuman(fn: Analyzable, sources: ParsedSources, depth = 0): boolean {
  const hit = humanMemo.get(fn.compilerNode);
  if (hit !== undefined) return hit;
  humanMemo.set(fn.compilerNode, false);
  const elicits = (cn: ts.Node): boolean => {
    if (ts.isStringLiteralLike(cn)) return cn.text === 'elicitation/create';
    if (!ts.isCallExpression(cn)) return false;
    const c = rawUnwrap(cn.expression);
    if (ts.isIdentifier(c)) return c.text === 'elicitInput';
    return ts.isPropertyAccessExpression(c) && (c.name.text === 'elicitInput' || (c.name.text === 'elicit' && ts.isIdentifier(c.expression) && c.expression.text === 'inputRequired'));
  };
  let found = findNodes(fn, elicits).length > 0;
  if (!found && depth < 2) {
    for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayResolveFunction(cn.expression))) {
      if (!Node.isCallExpression(call)) continue;
      const g = functionCached(unwrap(call.getExpression()), sources);
      if (g && g !== fn && asksHuman(g, sources, depth + 1)) {
        found = true;
        break;
      }
    }
  }
  humanMemo.set(fn.compilerNode, found);
  return found;
}

const elicitsRaw = (cn: ts.Node): boolean => {
  if (ts.isStringLiteralLike(cn)) return cn.text === 'elicitation/create';
  if (!ts.isCallExpression(cn)) return false;
  const c = rawUnwrap(cn.expression);
  if (ts.isIdentifier(c)) return c.text === 'elicitInput';
  return ts.isPropertyAccessExpression(c) && (c.name.text === 'elicitInput' || (c.name.text === 'elicit' && ts.isIdentifier(c.expression) && c.expression.text === 'inputRequired'));
};

/** Names of the property that says a request may go on (`{ allowed: true }`, `{ approved: true, reason }`). */
const ACCEPT_KEY = /^(?:allow(?:ed)?|approved?|ok|confirmed|accept(?:ed)?|proceed|permitted|granted)$/i;
const ACCEPT_WORD = /^(?:allow(?:ed)?|approved?|accept(?:ed)?|granted|auto)$/i;

/** `return true`, `return 'allow'`, `return { allowed: true, … }`: the request goes on. */
function acceptingReturn(r: ts.ReturnStatement): boolean {
  return !!r.expression && acceptingValue(r.expression);
}

/** `true`, `'allow'`, `{ allowed: true, … }`: a value that lets the request go on. */
function acceptingValue(x: ts.Expression): boolean {
  const e = rawUnwrap(x);
  if (e.kind === SyntaxKind.TrueKeyword) return true;
  if (ts.isStringLiteralLike(e)) return ACCEPT_WORD.test(e.text);
  if (ts.isObjectLiteralExpression(e)) {
    return e.properties.some((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && ACCEPT_KEY.test(p.name.text) && rawUnwrap(p.initializer).kind === SyntaxKind.TrueKeyword);
  }
  return false;
}

/** An elicitation result written in the code that accepts: `{ action: 'accept', … }`. */
function acceptedAnswer(x: ts.Expression): boolean {
  const e = rawUnwrap(x);
  return ts.isObjectLiteralExpression(e) && e.properties.some((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'action' && ts.isStringLiteralLike(rawUnwrap(p.initializer)) && (rawUnwrap(p.initializer) as ts.StringLiteral).text === 'accept');
}

const openMemo = new WeakMap<ts.Node, boolean>();

/**
 * Whether a function that asks the human (asksHuman) also lets the request through without asking: a return
 * that accepts it (`return true`, `return { allowed: true }`) written before the question, in it or in the
 * helper it asks through (a policy whose default mode allows: `if (this.mode === 'allow') return { allowed:
 * true }` before `elicitInput`). Such a gate is a policy, not a confirmation of every command.
 */
export function acceptsWithoutAsking(fn: Analyzable, sources: ParsedSources, depth = 0): boolean {
  const hit = openMemo.get(fn.compilerNode);
  if (hit !== undefined) return hit;
  openMemo.set(fn.compilerNode, false);
  const returns = ownReturns(fn);
  const acceptsBefore = (pos: number): boolean => returns.some((r) => r.getStart() < pos && acceptingReturn(r));
  // The question failing lets the request through: an accepting return in the `catch` of a `try` that asks (a
  // client that cannot elicit makes elicitInput throw, and most clients cannot), or `.catch(() => true)` on it.
  const acceptsOnFailure = (q: ts.Node): boolean => {
    for (const r of returns) {
      if (!acceptingReturn(r)) continue;
      for (let p: ts.Node | undefined = r.parent; p && p !== fn.compilerNode; p = p.parent) {
        if (ts.isCatchClause(p)) {
          const t = (p.parent as unknown as { tryBlock: ts.Node }).tryBlock;
          if (q.pos >= t.pos && q.end <= t.end) return true;
        }
      }
    }
    for (let p: ts.Node | undefined = q.parent; p && p !== fn.compilerNode && !ts.isStatement(p); p = p.parent) {
      if (!ts.isCallExpression(p) || !ts.isPropertyAccessExpression(p.expression) || p.expression.name.text !== 'catch') continue;
      const h = p.arguments[0] && rawUnwrap(p.arguments[0]);
      if (h && (ts.isArrowFunction(h) || ts.isFunctionExpression(h))) {
        // The fallback answers: a value that lets the request go on, or an elicitation result that accepts (`{ action: 'accept' }`).
        const yes = (x: ts.Expression): boolean => acceptingValue(x) || acceptedAnswer(x);
        const body = h.body;
        if (ts.isBlock(body) ? body.statements.some((st) => ts.isReturnStatement(st) && !!st.expression && yes(st.expression)) : yes(body as ts.Expression)) return true;
      }
    }
    return false;
  };
  let open = false;
  const asked = findNodes(fn, elicitsRaw)[0];
  if (asked) open = acceptsBefore(asked.getStart()) || acceptsOnFailure(asked.compilerNode);
  else if (depth < 2) {
    for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayResolveFunction(cn.expression))) {
      if (!Node.isCallExpression(call)) continue;
      const g = functionCached(unwrap(call.getExpression()), sources);
      if (!g || g === fn || !asksHuman(g, sources, depth + 1)) continue;
      open = acceptsBefore(call.getStart()) || acceptsOnFailure(call.compilerNode) || acceptsWithoutAsking(g, sources, depth + 1);
      break;
    }
  }
  openMemo.set(fn.compilerNode, open);
  return open;
}

/* ------------------------------------------------------- allowed roots */

/** Calls that change what a collection holds (for writes of allowed roots). */
export const STORE_MUTATORS = new Set(['push', 'unshift', 'splice', 'add', 'set']);
/** Methods that give a collection derived from their receiver. */
const DERIVING_METHODS = new Set(['map', 'filter', 'slice', 'concat', 'flat', 'flatMap', 'values', 'keys', 'entries', 'toSorted']);
const CALLBACK_METHODS = new Set(['some', 'every', 'find', 'findIndex', 'filter', 'forEach', 'map', 'flatMap']);

const isModuleLevel = (id: Node): boolean => !id.getFirstAncestor((a) => isFunctionLike(a) || Node.isClassDeclaration(a) || Node.isClassExpression(a) || Node.isConstructorDeclaration(a));

/** The top-level declaring identifier of a variable a module exports under `name` (`export let roots = []`, `export { roots }`). */
function exportedVariable(sf: SourceFile, name: string): Identifier | undefined {
  let local = name;
  for (const ed of sf.getExportDeclarations()) {
    if (ed.getModuleSpecifierValue()) continue;
    for (const ne of ed.getNamedExports()) if ((ne.getAliasNode()?.getText() ?? ne.getName()) === name) local = ne.getName();
  }
  for (const st of sf.getVariableStatements()) for (const d of st.getDeclarations()) if (d.getName() === local && Node.isIdentifier(d.getNameNode())) return d.getNameNode() as Identifier;
  return undefined;
}

/**
 * Where a value is kept, as storage keys: `m:<decl>` for a module-level variable (through imports of it from
 * another module), `this@<class>` for an instance, with property paths (`.allowedDirectories`, `.*` for a
 * computed key); followed through local variables, destructuring, the collection a callback iterates
 * (`roots.some((r) => …)` reads `roots`), what a function of the audited source returns, spreads and
 * derived collections. [] when the value is not kept anywhere the analysis can name.
 */
export function storageKeys(expr: Node, sources: ParsedSources, depth = 0, forWrite = false): string[] {
  if (depth > 8) return [];
  const n = stripAwait(expr);
  const union = (xs: Node[]): string[] => (forWrite ? [] : [...new Set(xs.flatMap((x) => storageKeys(x, sources, depth + 1)))]);
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return [];
    const imp = importOfDecl(d);
    if (imp) {
      const target = resolveRelativeModule(sources.rel(d.getSourceFile()), imp.spec, sources);
      const decl = target && imp.imported !== '*' ? exportedVariable(target, imp.imported) : undefined;
      return decl ? [`m:${declKey(decl)}`] : [];
    }
    const p = d.getParent();
    if (isModuleLevel(d) && (Node.isVariableDeclaration(p) || Node.isBindingElement(p))) return [`m:${declKey(d)}`];
    // Assigning a local variable changes nothing stored; writing through it (`cfg.roots = …`) does.
    if (forWrite && depth === 0) return [];
    if (Node.isVariableDeclaration(p) && p.getNameNode() === d) {
      const init = p.getInitializer();
      return init ? storageKeys(init, sources, depth + 1, forWrite) : [];
    }
    if (Node.isBindingElement(p)) {
      const holder = p.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      const pn = p.getPropertyNameNode();
      const prop = pn ? propertyName(pn) : p.getName();
      const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
      return init && prop !== undefined && p.getParent() === holder!.getNameNode() ? storageKeys(init, sources, depth + 1).map((k) => `${k}.${prop}`) : [];
    }
    if (Node.isParameterDeclaration(p)) {
      // roots.some((root) => …): the parameter is an element of the collection.
      const cb = p.getParent();
      const call = cb?.getParent();
      if (isFunctionLike(cb) && Node.isCallExpression(call) && (call.getArguments() as Node[]).includes(cb)) {
        const c = unwrap(call.getExpression());
        if (Node.isPropertyAccessExpression(c) && CALLBACK_METHODS.has(c.getName())) return storageKeys(c.getExpression(), sources, depth + 1);
      }
    }
    return [];
  }
  if (Node.isThisExpression(n)) {
    const cls = rawEnclosingClass(n.compilerNode);
    return cls ? [`this@${classId(cls)}`] : [];
  }
  if (Node.isPropertyAccessExpression(n)) return storageKeys(n.getExpression(), sources, depth + 1, forWrite).map((k) => `${k}.${n.getName()}`);
  if (Node.isElementAccessExpression(n)) {
    const key = constString(n.getArgumentExpression())?.value;
    return storageKeys(n.getExpression(), sources, depth + 1, forWrite).map((k) => `${k}.${key ?? '*'}`);
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    // A derived collection is a copy: writing into it changes nothing stored.
    if (Node.isPropertyAccessExpression(callee) && DERIVING_METHODS.has(callee.getName())) return forWrite ? [] : storageKeys(callee.getExpression(), sources, depth + 1);
    const fn = functionCached(callee, sources);
    if (fn) return [...new Set(returnedOf(fn).flatMap((x) => storageKeys(x, sources, depth + 1, forWrite)))];
    return union(n.getArguments());
  }
  if (Node.isBinaryExpression(n) && ['+', '??', '||'].includes(n.getOperatorToken().getText())) return union([n.getLeft(), n.getRight()]);
  if (Node.isConditionalExpression(n)) return union([n.getWhenTrue(), n.getWhenFalse()]);
  if (Node.isTemplateExpression(n)) return union(n.getTemplateSpans().map((sp) => sp.getExpression()));
  if (Node.isObjectLiteralExpression(n)) return union(n.getProperties().flatMap((pr) => (Node.isSpreadAssignment(pr) ? [pr.getExpression()] : [])));
  if (Node.isArrayLiteralExpression(n)) return union(n.getElements().map((e) => (Node.isSpreadElement(e) ? e.getExpression() : e)));
  return [];
}

/** A write of `write` changes what `root` holds: the same place, a place holding it, or a part of it. */
export function keysMatch(root: string, write: string): boolean {
  const w = write.endsWith('.*') ? write.slice(0, -2) : write;
  return root === w || root.startsWith(w + '.') || w.startsWith(root + '.');
}

/** `E.length === 0`, `!E.length`, `E.size === 0`, `!E || E.length === 0` → E. */
function emptyTested(cond: Node): Node | undefined {
  const u = unwrap(cond);
  const lengthOf = (x: Node): Node | undefined => {
    const v = unwrap(x);
    return Node.isPropertyAccessExpression(v) && (v.getName() === 'length' || v.getName() === 'size') ? v.getExpression() : undefined;
  };
  if (Node.isPrefixUnaryExpression(u) && u.getOperatorToken() === SyntaxKind.ExclamationToken) return lengthOf(u.getOperand());
  if (Node.isBinaryExpression(u)) {
    const op = u.getOperatorToken().getText();
    if (op === '||') return emptyTested(u.getLeft()) ?? emptyTested(u.getRight());
    const l = u.getLeft();
    const r = u.getRight();
    const num = (x: Node): string | undefined => (Node.isNumericLiteral(unwrap(x)) ? unwrap(x).getText() : undefined);
    if ((op === '===' || op === '==' || op === '<=') && num(r) === '0') return lengthOf(l);
    if (op === '<' && num(r) === '1') return lengthOf(l);
    if ((op === '===' || op === '==') && num(l) === '0') return lengthOf(r);
  }
  return undefined;
}

/** `E.length > 0`, `E.length !== 0`, `E.length >= 1`, `E.length` (truthy), `E.size > 0` → E. */
function nonEmptyTested(cond: Node): Node | undefined {
  const u = unwrap(cond);
  const lengthOf = (x: Node): Node | undefined => {
    const v = unwrap(x);
    return Node.isPropertyAccessExpression(v) && (v.getName() === 'length' || v.getName() === 'size') ? v.getExpression() : undefined;
  };
  if (Node.isPropertyAccessExpression(u)) return lengthOf(u);
  if (Node.isBinaryExpression(u)) {
    const op = u.getOperatorToken().getText();
    const num = Node.isNumericLiteral(unwrap(u.getRight())) ? unwrap(u.getRight()).getText() : undefined;
    if ((op === '>' || op === '!==' || op === '!=') && num === '0') return lengthOf(u.getLeft());
    if (op === '>=' && num === '1') return lengthOf(u.getLeft());
  }
  return undefined;
}

/** Does a branch let the value through (return true, or the client's value itself), without throwing or returning anything else? */
function accepts(stmt: Node | undefined, carriesValue: (n: Node) => boolean): boolean {
  if (!stmt) return false;
  let ok = false;
  let refused = false;
  const test = (n: Node): void => {
    if (Node.isThrowStatement(n)) refused = true;
    else if (Node.isReturnStatement(n)) {
      const e = n.getExpression() && unwrap(n.getExpression()!);
      if (e && (Node.isTrueLiteral(e) || carriesValue(e))) ok = true;
      else refused = true;
    }
  };
  test(stmt);
  stmt.forEachDescendant((n, trav) => {
    if (isFunctionLike(n)) return trav.skip();
    test(n);
  });
  return ok && !refused;
}

/**
 * Whether a collection may be empty when nothing is configured: an empty array or Set written as its value
 * or as a default (`config.allowedDirectories ?? []`, `{ allowedDirectories: [] }`), followed through
 * variables, imports, fields, object properties (spreads included) and what functions return.
 */
function mayBeEmpty(expr: Node | undefined, sources: ParsedSources, depth = 0): boolean {
  if (!expr || depth > 8) return false;
  const n = stripAwait(expr);
  const again = (x: Node | undefined): boolean => mayBeEmpty(x, sources, depth + 1);
  if (Node.isArrayLiteralExpression(n)) return n.getElements().length === 0;
  if (Node.isNewExpression(n)) return /^(?:Set|Map|Array)$/.test(n.getExpression().getText()) && n.getArguments().length === 0;
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) return again(n.getRight()) || again(n.getLeft());
  if (Node.isConditionalExpression(n)) return again(n.getWhenTrue()) || again(n.getWhenFalse());
  if (Node.isIdentifier(n)) {
    const d = declarationOf(n);
    if (!d) return false;
    const p = d.getParent();
    if (Node.isBindingElement(p)) {
      const holder = p.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      const pn = p.getPropertyNameNode();
      const prop = pn ? propertyName(pn) : p.getName();
      const init = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
      return (!!p.getInitializer() && again(p.getInitializer())) || (!!init && prop !== undefined && propertyMayBeEmpty(init, prop, sources, depth + 1));
    }
    if (Node.isVariableDeclaration(p) && !p.getInitializer()) return assignedValues(d).some((x) => again(x));
    const v = valueOfDeclaration(d, sources);
    return !!v && v !== n && !Node.isSourceFile(v) && again(v);
  }
  if (Node.isPropertyAccessExpression(n)) {
    if (Node.isThisExpression(unwrap(n.getExpression()))) return fieldValues(n).some((x) => again(x));
    return propertyMayBeEmpty(n.getExpression(), n.getName(), sources, depth + 1);
  }
  if (Node.isCallExpression(n)) {
    const callee = unwrap(n.getExpression());
    if (Node.isPropertyAccessExpression(callee) && DERIVING_METHODS.has(callee.getName())) return again(callee.getExpression());
    const fn = functionCached(callee, sources);
    return !!fn && returnedOf(fn).some((x) => again(x));
  }
  return false;
}

/** What a function returns: its expression body, or the expressions of its own return statements. */
function returnedOf(fn: Analyzable): Node[] {
  const body = fn.getBody();
  if (body && !Node.isBlock(body)) return [body];
  return ownReturns(fn).flatMap((r) => (r.expression ? [wrapNode(fn.getSourceFile(), r.expression)] : []));
}

/** Whether property `prop` of the object an expression holds may be an empty collection (see mayBeEmpty). */
function propertyMayBeEmpty(obj: Node, prop: string, sources: ParsedSources, depth: number): boolean {
  if (depth > 8) return false;
  const o = stripAwait(obj);
  const lit = Node.isObjectLiteralExpression(o) ? o : objectLiteralOf(o, sources);
  if (lit) {
    const v = propertyValue(lit, prop);
    if (v) return mayBeEmpty(v, sources, depth + 1);
    return lit.getProperties().some((p) => Node.isSpreadAssignment(p) && propertyMayBeEmpty(p.getExpression(), prop, sources, depth + 1));
  }
  if (Node.isPropertyAccessExpression(o) && Node.isThisExpression(unwrap(o.getExpression()))) return fieldValues(o).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
  if (Node.isIdentifier(o)) {
    const d = declarationOf(o);
    if (!d) return false;
    const p = d.getParent();
    if (Node.isVariableDeclaration(p) && !p.getInitializer()) return assignedValues(d).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
    const v = valueOfDeclaration(d, sources);
    return !!v && v !== o && !Node.isSourceFile(v) && propertyMayBeEmpty(v, prop, sources, depth + 1);
  }
  if (Node.isCallExpression(o)) {
    const fn = functionCached(unwrap(o.getExpression()), sources);
    return !!fn && returnedOf(fn).some((x) => propertyMayBeEmpty(x, prop, sources, depth + 1));
  }
  return false;
}

/**
 * The branch that makes a confinement check open to everything while its allow-list is empty, when the list
 * may be empty by default: an earlier `if (allowed.length === 0) return true` (or return the path) in the
 * function of the check, or the check written as `allowed.length === 0 || …` / `allowed.length > 0 && !ok`.
 */
export function openWhenEmpty(fn: Analyzable, check: Node, roots: Node[], sources: ParsedSources, carriesValue: (n: Node) => boolean): Node | undefined {
  const body = fn.getBody();
  if (!body) return undefined;
  // The tested list must be the one the check compares with (the same storage, or the same expression).
  let rootKeys: string[] | undefined;
  const rootText = roots.map((r) => r.getText()).join(' ') + ' ' + check.getAncestors().slice(0, 6).map((a) => (Node.isCallExpression(a) ? a.getExpression().getText() : '')).join(' ');
  const sameList = (e: Node): boolean => {
    rootKeys ??= [...new Set(roots.flatMap((r) => storageKeys(r, sources)))];
    const keys = storageKeys(e, sources);
    return keys.some((k) => rootKeys!.includes(k)) || rootText.includes(e.getText());
  };
  const open = (e: Node | undefined): boolean => !!e && sameList(e) && mayBeEmpty(e, sources);
  for (let cur: Node = check, p = check.getParent(); p && p !== body; cur = p, p = p.getParent()) {
    if (Node.isBinaryExpression(p)) {
      const op = p.getOperatorToken().getText();
      const other = p.getLeft() === cur ? p.getRight() : p.getLeft();
      const e = op === '||' ? emptyTested(other) : op === '&&' ? nonEmptyTested(other) : undefined;
      if (open(e)) return p;
    }
    if (Node.isStatement(p)) break;
  }
  for (const st of findNodes(body, (cn) => ts.isIfStatement(cn) && cn.getStart() < check.getStart())) {
    if (!Node.isIfStatement(st) || st.getThenStatement().containsRange(check.getPos(), check.getEnd())) continue;
    const e = emptyTested(st.getExpression());
    if (e && accepts(st.getThenStatement(), carriesValue) && open(e)) return st;
  }
  return undefined;
}

/* ------------------------------------------------------------ relevance */

/**
 * Does a check test the value that reaches the sink? Yes when the checked expression is one the value went
 * through, or when the checked value and the sink's value share a variable other than a whole arguments
 * object — unless the checked value is only a piece of a value (`url.protocol`, `p.split('/')[0]`,
 * `extname(p)`), which counts only for a URL looked up in a collection (`ALLOWED_HOSTS.has(url.hostname)`).
 */
export function relevant(c: Check, f: Pick<RawFlow, 'kind' | 'taint'>, rootKeys: ReadonlySet<string>): boolean {
  if (c.subjectKey && f.taint.keys.has(c.subjectKey) && !rootKeys.has(c.subjectKey)) return true;
  if (c.part && !((f.kind === 'http' || f.kind === 'navigate') && c.lookup)) return false;
  // A path confinement made here on a resolved copy (`full = path.resolve(root, p)`) does not confine a call
  // given the unresolved value itself (`readFile(p)`): that call resolves it against another folder.
  if (f.kind === 'fs' && c.at === c.node && c.verdict.fs?.guard === 'sound' && !f.taint.resolved && !f.taint.basename && c.subjectKey !== undefined) return false;
  for (const k of c.keys) if (f.taint.keys.has(k) && !rootKeys.has(k) && !(f.kind === 'fs' && siblings(k, c.keys, f.taint.keys))) return true;
  return false;
}

/**
 * Are the checked value and the sink's value two different properties of the object both went through
 * (`note.dir` checked, `note.file` written)? Then that object is not what they share.
 */
function siblings(k: string, a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const props = (keys: ReadonlySet<string>): Set<string> => {
    const out = new Set<string>();
    for (const x of keys) if (x.startsWith(k + '.')) out.add(x.slice(k.length + 1).split('.')[0]!);
    return out;
  };
  const pa = props(a);
  const pb = props(b);
  return pa.size > 0 && pb.size > 0 && ![...pa].some((x) => pb.has(x));
}

/**
 * A check made while computing an argument of the call a flow goes through (`readFile(insideRoot(name))`):
 * arguments are evaluated before the call, so it counts as coming first — unless it sits in a callback.
 */
export function argumentOf(inner: Node, call: Node): boolean {
  if (inner === call || inner.getStart() < call.getStart() || inner.getEnd() > call.getEnd()) return false;
  for (let p = inner.getParent(); p && p !== call; p = p.getParent()) if (isFunctionLike(p)) return false;
  return true;
}

/* ------------------------------------------------------------ guarding */

const REJECT_CALL = /(?:error|reject|deny|denied|fail|forbid|refus|abort|exit)/i;
const ASSERT_CALL = /^(?:assert|invariant|ensure|check|expect|require|verify|validate)/i;

/** A result object that says the request was refused: `{ ok: false, … }` (`success`, `valid`, `isValid`, `allowed`, `inside`), or one carrying an `error`. */
function refusalObject(e: Node): boolean {
  if (!Node.isObjectLiteralExpression(e)) return false;
  for (const key of ['ok', 'success', 'valid', 'isValid', 'allowed', 'inside']) {
    const val = propertyValue(e, key);
    if (val && Node.isFalseLiteral(unwrap(val))) return true;
  }
  return !!(propertyValue(e, 'error') ?? propertyValue(e, 'err'));
}

/** Does this statement leave the normal path: throw, return nothing / false / null / an error result, continue, break, exit? */
function rejects(stmt: Node | undefined): boolean {
  if (!stmt) return false;
  let found = false;
  const test = (n: Node): void => {
    if (Node.isThrowStatement(n) || Node.isContinueStatement(n) || Node.isBreakStatement(n)) found = true;
    else if (Node.isReturnStatement(n)) {
      const e = n.getExpression() && unwrap(n.getExpression()!);
      if (!e || Node.isFalseLiteral(e) || Node.isNullLiteral(e) || e.getText() === 'undefined') found = true;
      else if (Node.isObjectLiteralExpression(e) && (propertyValue(e, 'isError') || refusalObject(e))) found = true;
      // return error / return refusal / return denied: a value named as a refusal.
      else if (Node.isIdentifier(e) && REJECT_CALL.test(e.getText())) found = true;
      else if ((Node.isCallExpression(e) || Node.isNewExpression(e)) && REJECT_CALL.test(e.getExpression().getText())) found = true;
    } else if (Node.isCallExpression(n) && REJECT_CALL.test(n.getExpression().getText())) found = true;
  };
  test(stmt);
  stmt.forEachDescendant((n, trav) => {
    if (isFunctionLike(n)) {
      trav.skip();
      return;
    }
    test(n);
    if (found) trav.stop();
  });
  return found;
}

/**
 * The branch a rejecting check is confined to: a check written inside one branch of an `if` (`if (options.rootDir)
 * { … if (!full.startsWith(root + sep)) throw … }`) guards only what follows it in that branch when the other branch
 * goes on without rejecting (no root configured: the path passes unchecked). The innermost such branch, or undefined
 * when the check is not inside one (up to the function it is in).
 */
export function conditionalBranch(check: Node, testsSubject?: (e: Node) => boolean): Node | undefined {
  let prev: Node = check;
  for (let cur = check.getParent(); cur && !isFunctionLike(cur) && !Node.isSourceFile(cur); prev = cur, cur = cur.getParent()) {
    if (!Node.isIfStatement(cur) || cur.getExpression() === prev) continue;
    // `if (args.path) { …check args.path… }`: the branch is taken whenever the checked value is given, so the
    // check guards what follows (the other branch has no value to check); only another condition confines it.
    // Only a branch that exists to check (the check last in it): a branch that goes on using the value
    // (`if (context) { check; args.push('--context', context) }`) keeps its check to itself.
    if (testsSubject && lastIn(prev, check) && presenceTested(cur.getExpression()).some(testsSubject)) continue;
    const other = cur.getThenStatement() === prev ? cur.getElseStatement() : cur.getThenStatement();
    if (!rejects(other)) return prev;
  }
  return undefined;
}

/** Is the check in the last statement of a branch (or the branch itself)? */
function lastIn(branch: Node, check: Node): boolean {
  if (!Node.isBlock(branch)) return true;
  const last = branch.getStatements().at(-1);
  return !!last && check.getStart() >= last.getStart() && check.getEnd() <= last.getEnd();
}

/** The values an `if` condition tests for presence: `E`, `!E`, `E != null`, `E !== undefined`, `typeof E === 'string'`, each conjunct of `&&`. */
function presenceTested(cond: Node): Node[] {
  const u = unwrap(cond);
  if (Node.isPrefixUnaryExpression(u) && u.getOperatorToken() === SyntaxKind.ExclamationToken) return presenceTested(u.getOperand());
  if (Node.isBinaryExpression(u)) {
    const op = u.getOperatorToken().getText();
    if (op === '&&' || op === '||') return [...presenceTested(u.getLeft()), ...presenceTested(u.getRight())];
    if (['==', '!=', '===', '!=='].includes(op)) {
      const [l, r] = [unwrap(u.getLeft()), unwrap(u.getRight())];
      const nullish = (x: Node): boolean => Node.isNullLiteral(x) || x.getText() === 'undefined';
      if (nullish(r)) return [l];
      if (nullish(l)) return [r];
      if (Node.isTypeOfExpression(l) && Node.isStringLiteral(r)) return [l.getExpression()];
      if (Node.isTypeOfExpression(r) && Node.isStringLiteral(l)) return [r.getExpression()];
    }
    return [];
  }
  return Node.isIdentifier(u) || Node.isPropertyAccessExpression(u) || Node.isElementAccessExpression(u) ? [u] : [];
}

/**
 * Is a check in a position where it guards? 'after' when it rejects (an `if` whose branch throws, returns
 * an error or nothing, continues), decides what a predicate returns, is kept in a variable or asserted: it
 * then guards what follows it. A node when it selects a branch (`if (ok) { … }`, `ok ? … : …`): it guards
 * what that branch holds. Undefined when it guards nothing (a check whose branch only transforms the
 * value, or whose result is thrown away).
 */
export function guarding(check: Node): 'after' | Node | undefined {
  let prev: Node = check;
  let cur = check.getParent();
  while (cur) {
    if (Node.isParenthesizedExpression(cur) || Node.isPrefixUnaryExpression(cur) || Node.isAwaitExpression(cur) || Node.isAsExpression(cur) || Node.isNonNullExpression(cur)) {
      prev = cur;
      cur = cur.getParent();
      continue;
    }
    if (Node.isBinaryExpression(cur) && ['&&', '||', '??', '===', '!==', '==', '!='].includes(cur.getOperatorToken().getText())) {
      prev = cur;
      cur = cur.getParent();
      continue;
    }
    if (Node.isIfStatement(cur) && cur.getExpression() === prev) {
      if (rejects(cur.getThenStatement()) || rejects(cur.getElseStatement())) return 'after';
      return cur.getThenStatement();
    }
    if (Node.isConditionalExpression(cur) && cur.getCondition() === prev) return cur.getWhenTrue();
    if (Node.isReturnStatement(cur) || Node.isVariableDeclaration(cur) || (Node.isArrowFunction(cur) && cur.getBody() === prev)) return 'after';
    if (Node.isBinaryExpression(cur) && cur.getOperatorToken().getText() === '=') return 'after';
    if (Node.isCallExpression(cur)) {
      const callee = unwrap(cur.getExpression());
      const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
      if (ASSERT_CALL.test(name)) return 'after';
      // a predicate passed to some/every/filter/find: its result is the helper's verdict
      if (['some', 'every', 'filter', 'find', 'findIndex'].includes(name)) return 'after';
      return undefined;
    }
    if (isFunctionLike(cur)) {
      // the body of a predicate callback `(d) => …`
      return Node.isArrowFunction(cur) && cur.getBody() === prev ? 'after' : undefined;
    }
    return undefined;
  }
  return undefined;
}
