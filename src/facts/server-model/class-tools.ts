import { Node, SyntaxKind, ts, type CallExpression, type ObjectLiteralExpression, type SourceFile } from '../morph.js';
import { baseClassOf, enclosingClass, isFunctionLike, type ClassNode, type FunctionLikeNode } from '../scope.js';
import { propertyName, rawOfKinds, unwrap, wrapNode, type NamedFilter, type ParsedSources } from '../ts-source.js';
import { escapeRegExp } from '../regex.js';
import { constString, literalBoolean, objectLiteralOf } from './values.js';

/**
 * Tools declared as classes: a base class registers every tool the same way, from its own fields —
 *
 *   class ToolBase { register(server) { server.registerTool(this.name, { description: this.description,
 *     inputSchema: this.argsShape, annotations: this.annotations }, (args, extra) => this.execute(args, extra)) } }
 *   class FindTool extends ToolBase { name = 'find'; operationType = 'read'; … execute(args) { … } }
 *   const AllTools = [FindTool, …]; for (const T of AllTools) new T(session).register(server);
 *
 * The registration's `this.<field>` values are read on each class that extends the registering one (through
 * any depth, across the package's files): a field's initializer, a getter's returned value, or `this.key = …` in
 * a constructor, looked up from the class up through the classes it extends. A class stands for a tool when the
 * package names it somewhere besides its declaration and exports (a registry array, a `new`), and it is not
 * `abstract`. Booleans computed from fields are evaluated per class (`this.operationType === 'read'`, `!`, `&&`,
 * `||`, `?:`, `[…].includes(this.x)`); anything else stays unread. The method the base handler delegates to
 * (`this.execute(args)`) is the class's own, where the tool's arguments go.
 */

/** A class's own field: its initializer, a getter's returned value, or `this.key = …` in the constructor. */
export function classField(cls: ClassNode, key: string): Node | undefined {
  for (const m of cls.getMembers()) {
    const name = Node.isPropertyDeclaration(m) || Node.isGetAccessorDeclaration(m) ? propertyName(m.getNameNode()) : undefined;
    if (name !== key || (Node.isPropertyDeclaration(m) && m.isStatic())) continue;
    if (Node.isPropertyDeclaration(m)) {
      const init = m.getInitializer();
      if (init) return init;
      continue;
    }
    const body = m.getBody();
    const ret = body && Node.isBlock(body) ? body.getStatements().find((x) => Node.isReturnStatement(x)) : undefined;
    return ret && Node.isReturnStatement(ret) ? ret.getExpression() : undefined;
  }
  for (const c of cls.getConstructors()) {
    for (const st of c.getStatements()) {
      if (!Node.isExpressionStatement(st)) continue;
      const e = unwrap(st.getExpression());
      if (!Node.isBinaryExpression(e) || e.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
      const l = unwrap(e.getLeft());
      if (Node.isPropertyAccessExpression(l) && Node.isThisExpression(unwrap(l.getExpression())) && l.getName() === key) return e.getRight();
    }
  }
  return undefined;
}

/** A field looked up from the class up through the classes it extends (the nearest one written wins). */
export function fieldOf(cls: ClassNode, key: string, sources: ParsedSources): Node | undefined {
  let c: ClassNode | undefined = cls;
  for (let i = 0; c && i < 6; i++) {
    const v = classField(c, key);
    if (v) return v;
    c = baseClassOf(c, sources);
  }
  return undefined;
}

/** `this.key` → key; anything else undefined. */
export function thisField(n: Node | undefined): string | undefined {
  const u = n && unwrap(n);
  return u && Node.isPropertyAccessExpression(u) && Node.isThisExpression(unwrap(u.getExpression())) ? u.getName() : undefined;
}

/** What a value written in the base class stands for on one class: `this.key` is that class's field (followed). */
export function onClass(n: Node | undefined, cls: ClassNode, sources: ParsedSources): Node | undefined {
  let cur = n;
  for (let i = 0; cur && i < 4; i++) {
    const k = thisField(cur);
    if (!k) return cur;
    const v = fieldOf(cls, k, sources);
    if (!v) return cur;
    cur = v;
  }
  return cur;
}

/** A string on one class: a literal, a const, or `this.key` holding one. */
export function stringOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources): { value: string; literal: Node } | undefined {
  return constString(onClass(n, cls, sources));
}

/** A boolean computed on one class from literals and its fields; undefined when it cannot be read. */
export function booleanOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources, depth = 0): boolean | undefined {
  if (!n || depth > 8) return undefined;
  const v = unwrap(onClass(n, cls, sources)!);
  const lit = literalBoolean(v);
  if (lit !== undefined) return lit;
  if (Node.isPrefixUnaryExpression(v) && v.getOperatorToken() === SyntaxKind.ExclamationToken) {
    const b = booleanOn(v.getOperand(), cls, sources, depth + 1);
    return b === undefined ? undefined : !b;
  }
  if (Node.isConditionalExpression(v)) {
    const c = booleanOn(v.getCondition(), cls, sources, depth + 1);
    return c === undefined ? undefined : booleanOn(c ? v.getWhenTrue() : v.getWhenFalse(), cls, sources, depth + 1);
  }
  if (Node.isBinaryExpression(v)) {
    const op = v.getOperatorToken().getKind();
    if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
      const l = booleanOn(v.getLeft(), cls, sources, depth + 1);
      const r = booleanOn(v.getRight(), cls, sources, depth + 1);
      if (op === SyntaxKind.AmpersandAmpersandToken) return l === false || r === false ? false : l && r ? true : undefined;
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
    }
    const eq = op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken;
    const ne = op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken;
    if (eq || ne) {
      const l = stringOn(v.getLeft(), cls, sources);
      const r = stringOn(v.getRight(), cls, sources);
      if (!l || !r) return undefined;
      return eq ? l.value === r.value : l.value !== r.value;
    }
    return undefined;
  }
  // `['create', 'update'].includes(this.operationType)`
  if (Node.isCallExpression(v)) {
    const callee = unwrap(v.getExpression());
    const arg = v.getArguments()[0];
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'includes' || !arg) return undefined;
    const list = unwrap(callee.getExpression());
    const s = stringOn(arg, cls, sources);
    if (!Node.isArrayLiteralExpression(list) || !s) return undefined;
    const items = list.getElements().map((e) => constString(e)?.value);
    return items.some((x) => x === undefined) ? undefined : items.includes(s.value);
  }
  return undefined;
}

/** The annotations object on one class, and its hints evaluated there. */
export function annotationsOn(n: Node | undefined, cls: ClassNode, sources: ParsedSources): { node?: Node; obj?: ObjectLiteralExpression; hints?: Record<string, boolean> } {
  const node = onClass(n, cls, sources);
  const obj = objectLiteralOf(node, sources);
  if (!obj) return { node };
  const hints: Record<string, boolean> = {};
  for (const p of obj.getProperties()) {
    if (!Node.isPropertyAssignment(p)) continue;
    const k = propertyName(p.getNameNode());
    const b = booleanOn(p.getInitializerOrThrow(), cls, sources);
    if (k && b !== undefined) hints[k] = b;
  }
  return { node, obj, hints };
}

/** The method of the class (or of a class it extends) the base handler calls as `this.m(…)` with the handler's first parameter. */
export function delegateOn(handler: FunctionLikeNode | undefined, cls: ClassNode, sources: ParsedSources): FunctionLikeNode | undefined {
  const first = handler?.getParameters()[0];
  const argName = first && Node.isIdentifier(first.getNameNode()) ? first.getName() : undefined;
  if (!handler || !argName) return undefined;
  for (const call of handler.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const m = thisField(call.getExpression());
    if (!m || !call.getArguments().some((a) => unwrap(a).getText() === argName)) continue;
    for (let c: ClassNode | undefined = cls, i = 0; c && i < 6; c = baseClassOf(c, sources), i++) {
      const method = c.getInstanceMethod(m);
      if (method && isFunctionLike(method) && method.getBody()) return method;
    }
  }
  return undefined;
}

const HERITAGE: NamedFilter = (cn) => (ts.isClassDeclaration(cn) || ts.isClassExpression(cn)) && !!cn.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword);

/** Whether the package names the class outside its own declaration and its exports (a registry, a `new`). */
function named(cls: ClassNode, files: readonly [string, SourceFile][]): boolean {
  const name = cls.getName();
  if (!name) return true; // a class expression is a value where it is written
  const word = new RegExp(`\\b${escapeRegExp(name)}\\b`);
  const exportLine = new RegExp(
    `^\\s*(?:export\\s+(?:default\\s+)?(?:abstract\\s+)?class\\s+${escapeRegExp(name)}\\b|(?:abstract\\s+)?class\\s+${escapeRegExp(name)}\\b|exports\\.${escapeRegExp(name)}\\s*=\\s*(?:${escapeRegExp(name)}|void 0)|Object\\.defineProperty\\(exports,\\s*["']${escapeRegExp(name)}["']|export\\s*\\{[^}]*\\}\\s*;?\\s*$)`,
  );
  for (const [, sf] of files) {
    const text = sf.getFullText();
    if (!word.test(text)) continue;
    for (const line of text.split('\n')) if (word.test(line) && !exportLine.test(line) && !/^\s*(?:import|export\s+\*)/.test(line)) return true;
  }
  return false;
}

/**
 * The classes a registration written in a class method with a `this.<field>` name stands for: the registering
 * class and every class extending it (any depth, in the package's files) that is not abstract and that the
 * package names besides its declaration. undefined when the call is not in a class or no such class is found.
 */
export function registeringClasses(call: CallExpression, nameArg: Node, files: readonly [string, SourceFile][], sources: ParsedSources): ClassNode[] | undefined {
  if (!thisField(nameArg)) return undefined;
  const base = enclosingClass(call);
  if (!base) return undefined;
  const all: ClassNode[] = [];
  for (const [, sf] of files) for (const cn of rawOfKinds(sf, [SyntaxKind.ClassDeclaration, SyntaxKind.ClassExpression], HERITAGE)) all.push(wrapNode(sf, cn) as ClassNode);
  const extending = (c: ClassNode): boolean => {
    for (let b = baseClassOf(c, sources), i = 0; b && i < 6; b = baseClassOf(b, sources), i++) if (b === base) return true;
    return false;
  };
  const out = [base, ...all.filter(extending)].filter((c) => !(Node.isClassDeclaration(c) && c.isAbstract()) && (c === base ? classField(c, thisField(nameArg)!) !== undefined : true) && named(c, files));
  return out.length ? out : undefined;
}
