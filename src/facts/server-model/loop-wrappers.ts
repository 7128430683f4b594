import { Node, type CallExpression, type Identifier } from '../morph.js';
import { declarationOf, isFunctionLike, type FunctionLikeNode } from '../scope.js';
import { unwrap, type ParsedSources } from '../ts-source.js';
import { onItem, type LoopItem } from './class-tools.js';
import { listElements, objectLiteralOf, propertyThroughSpreads, variableParts } from './values.js';
import { forwardedParameter, wrapperCalls } from './wrappers.js';
import type { SourceFile } from '../morph.js';

/**
 * A registering helper whose tool names are composed from TWO of its inputs — a key of an options parameter and the
 * item of a loop over a list parameter:
 *
 *   export function registerTabTools(server, opts, tabs) {
 *     for (const tab of tabs) server.registerTool(`${opts.prefix}_${tab.name}`, { title: tab.title, … }, handler);
 *   }
 *   registerTabTools(server, { ...OPTS, prefix: OPTS.prefix }, PROJECT_TABS);      // const PROJECT_TABS = [{ name: 'tasks', … }]
 *
 * Read only when the shape is plain: the registration sits directly in a `for (const x of P)` (or `P.forEach((x) => …)`)
 * whose list P is a plain parameter of the helper, every variable part of the name is `x.key` / `x` or a parameter of
 * the helper (or a key of one), and the helper is called by name. At each call, the list passed must be a written
 * list of object literals (listElements) and each other part a value the call passes; a call whose list or values
 * cannot be read is returned unread (its tools stay unknown). Anything else: undefined (the registration stays as
 * written, its name computed).
 */

export interface LoopWrapperTool {
  item: LoopItem;
  /** What a value of the registration stands for at this call and item. */
  on: (n: Node | undefined) => Node | undefined;
  /** Where the tool is written: the item's value the name reads (`{ name: 'tasks' }`), else the item. */
  at: Node;
}

export interface LoopWrapperRead {
  fn: FunctionLikeNode;
  tools: LoopWrapperTool[];
  unreadCalls: { call: CallExpression; file: string }[];
}

/** The loop a registration sits in, directly (its body, or a block that is its body), with the loop variable and its list. */
function enclosingLoop(registration: Node): { variable: Node; list: Node } | undefined {
  let cur: Node | undefined = registration.getParent();
  for (let i = 0; cur && i < 4; i++, cur = cur.getParent()) {
    if (Node.isForOfStatement(cur)) {
      const init = cur.getInitializer();
      const decl = Node.isVariableDeclarationList(init) ? init.getDeclarations() : [];
      if (decl.length !== 1 || !Node.isIdentifier(decl[0]!.getNameNode())) return undefined;
      return { variable: decl[0]!.getNameNode(), list: cur.getExpression() };
    }
    if (isFunctionLike(cur)) {
      const call = cur.getParent();
      const first = cur.getParameters()[0];
      if (!call || !Node.isCallExpression(call) || call.getArguments()[0] !== cur || !first || !Node.isIdentifier(first.getNameNode())) return undefined;
      const callee = unwrap(call.getExpression());
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'forEach') return undefined;
      return { variable: first.getNameNode(), list: callee.getExpression() };
    }
    if (!Node.isBlock(cur) && !Node.isExpressionStatement(cur) && !Node.isAwaitExpression(cur)) return undefined;
  }
  return undefined;
}

/** The holder a part reads: `opts` of `opts.prefix`, `tab` of `tab.name`, `kind` of `kind`. */
function holderOf(part: Node): Identifier | undefined {
  const u = unwrap(part);
  if (Node.isIdentifier(u)) return u;
  if (Node.isPropertyAccessExpression(u)) {
    const h = unwrap(u.getExpression());
    return Node.isIdentifier(h) ? h : undefined;
  }
  return undefined;
}

export function loopWrapperTools(registration: Node, nameArg: Node, files: readonly [string, SourceFile][], sources: ParsedSources): LoopWrapperRead | undefined {
  const parts = variableParts(nameArg);
  if (!parts || parts.length < 2) return undefined;
  const loop = enclosingLoop(registration);
  if (!loop) return undefined;
  const listParam = forwardedParameter(unwrap(loop.list));
  if (!listParam || listParam.bindings || !Node.isIdentifier(unwrap(loop.list))) return undefined;
  const fn = listParam.fn;
  const params = fn.getParameters();
  const variableDecl = loop.variable;
  let itemPart: Node | undefined;
  let readsParam = false;
  for (const p of parts) {
    const h = holderOf(p);
    const d = h && declarationOf(h);
    if (!d) return undefined;
    if (d === variableDecl) {
      itemPart ??= p;
      continue;
    }
    const w = forwardedParameter(p);
    if (!w || w.fn !== fn || w.bindings || w.index === listParam.index) return undefined;
    readsParam = true;
  }
  if (!itemPart || !readsParam) return undefined;
  const param = variableDecl.getText();
  const tools: LoopWrapperTool[] = [];
  const unreadCalls: { call: CallExpression; file: string }[] = [];
  const calls = wrapperCalls(listParam, files, sources);
  if (!calls.length) return undefined;
  for (const c of calls) {
    const args = c.call.getArguments();
    const listArg = args[listParam.index];
    const elements = listArg ? listElements(listArg, sources) : [];
    const objs = elements.map((el) => objectLiteralOf(el, sources));
    if (!objs.length || objs.length > 500 || objs.some((o) => !o)) {
      unreadCalls.push(c);
      continue;
    }
    // A parameter of the helper → the argument passed; `opts.key` → that key of the object passed (through spreads).
    const atCall = (u: Node): Node | undefined => {
      const h = holderOf(u);
      const d = h && declarationOf(h);
      const p = d?.getParent();
      const j = p && Node.isParameterDeclaration(p) && p.getParent() === fn ? params.indexOf(p) : -1;
      if (j < 0 || j === listParam.index || !args[j]) return undefined;
      if (Node.isIdentifier(u)) return args[j];
      const obj = objectLiteralOf(args[j], sources);
      return obj && Node.isPropertyAccessExpression(u) ? propertyThroughSpreads(obj, u.getName(), sources) : undefined;
    };
    for (const obj of objs as NonNullable<(typeof objs)[number]>[]) {
      const item: LoopItem = { param, obj };
      const itemValue = onItem(unwrap(itemPart), item);
      tools.push({
        at: itemValue && itemValue !== unwrap(itemPart) ? itemValue : obj,
        item,
        on: (n) => {
          const u = n && unwrap(n);
          if (!u) return n;
          const v = onItem(u, item);
          if (v !== u && v !== n) return v;
          return atCall(u) ?? n;
        },
      });
    }
  }
  return { fn, tools, unreadCalls };
}
