import { Node, type CallExpression, type Identifier } from '../../../facts/morph.js';
import { declarationOf, enclosingClass, importOf, initializerOf, valueOfDeclaration } from '../../../facts/scope.js';
import { listElements, objectLiteralOf, propertyValue } from '../../../facts/server-model.js';
import { unwrap, type ParsedSources } from '../../../facts/ts-source.js';

/**
 * The values an expression of a registration wrapper may hold, read from the code that feeds the wrapper (App tool
 * registration through a helper: `function addAppTool(server, tool) { registerAppTool(server, tool.name, …,
 * tool.handler) }` called with literal definitions, a loop over a table of them, a class whose constructor keeps its
 * argument in a field). Followed: consts, members of object literals, a function's parameter to the arguments of its
 * calls in the audited source (by the function's name), a parameter of a forEach/map callback and a for…of variable
 * to the elements of the list, a destructured parameter to the member of the object given, `this.x` to what the
 * constructor stores there and from there to the arguments of `new Class(…)`, a function declaration's name to the
 * function (a table entry's `handler: incidents`). In the order the code writes them (a
 * name and a handler read from the same objects pair up by index). Undefined when a value cannot be followed.
 */

const MAX_VALUES = 200;
const CALLBACK_METHODS = new Set(['forEach', 'map', 'flatMap']);

type Calls = { name: string; call: CallExpression }[];

export function heldValues(expr: Node, sources: ParsedSources, calls: Calls, depth = 0): Node[] | undefined {
  if (depth > 8) return undefined;
  const e = unwrap(expr);
  if (Node.isIdentifier(e)) return identifierValues(e, sources, calls, depth);
  if (Node.isPropertyAccessExpression(e)) {
    const member = e.getName();
    const base = unwrap(e.getExpression());
    if (Node.isThisExpression(base)) return fieldValues(e, member, sources, calls, depth);
    return membersOf(heldValues(base, sources, calls, depth + 1), member, sources, calls, depth);
  }
  return [e];
}

/** The values of one member of each object literal among some values; undefined when one is not such an object or lacks it. */
function membersOf(objs: Node[] | undefined, member: string, sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  if (!objs) return undefined;
  const out: Node[] = [];
  for (const o of objs) {
    const obj = objectLiteralOf(o, sources);
    const v = obj && propertyValue(obj, member);
    const vs = v && heldValues(v, sources, calls, depth + 1);
    if (!vs) return undefined;
    out.push(...vs);
    if (out.length > MAX_VALUES) return undefined;
  }
  return out;
}

/** What `this.<member>` holds: the value the class's constructor assigns to it. */
function fieldValues(e: Node, member: string, sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  const cls = enclosingClass(e);
  const ctor = cls?.getConstructors()[0];
  if (!ctor) return undefined;
  const assigned: Node[] = [];
  ctor.getBody()?.forEachDescendant((d) => {
    if (!Node.isBinaryExpression(d) || d.getOperatorToken().getText() !== '=') return;
    const left = unwrap(d.getLeft());
    if (Node.isPropertyAccessExpression(left) && Node.isThisExpression(unwrap(left.getExpression())) && left.getName() === member) assigned.push(d.getRight());
  });
  if (assigned.length !== 1) return undefined;
  return heldValues(assigned[0]!, sources, calls, depth + 1);
}

function identifierValues(id: Identifier, sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  // A constructor's parameter is declared like a function's (facts/scope): constructor(definition) { this.definition = definition }
  const d = declarationOf(id);
  if (!d) return undefined;
  const parent = d.getParent();
  if (Node.isVariableDeclaration(parent)) {
    // for (const tool of TOOLS)
    const list = parent.getParent()?.getParent();
    if (list && Node.isForOfStatement(list) && !parent.getInitializer()) return listValues(list.getExpression(), sources, calls, depth);
    const init = initializerOf(d);
    return init ? heldValues(init, sources, calls, depth + 1) : undefined;
  }
  // import { runWorkflow } from './tools/run-workflow.js'
  if (importOf(d)) {
    const v = valueOfDeclaration(d, sources);
    return v && !Node.isSourceFile(v) ? heldValues(v, sources, calls, depth + 1) : undefined;
  }
  // function addAppTool(server, { name, handler }): the member of the object given.
  if (Node.isBindingElement(parent)) {
    const pattern = parent.getParent();
    const param = pattern?.getParent();
    if (!Node.isObjectBindingPattern(pattern) || !param || !Node.isParameterDeclaration(param)) return undefined;
    const key = parent.getPropertyNameNode()?.getText() ?? parent.getName();
    return membersOf(parameterValues(param, sources, calls, depth), key, sources, calls, depth);
  }
  if (Node.isParameterDeclaration(parent)) return parameterValues(parent, sources, calls, depth);
  // { name: 'show-incidents', handler: incidents } with `async function incidents(args) { … }`: the function itself.
  if (Node.isFunctionDeclaration(parent) && parent.getNameNode() === d) return [parent];
  return undefined;
}

function listValues(list: Node, sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  return valuesOfEach(listElements(list, sources), sources, calls, depth);
}

/** The values of each of some expressions, in order; undefined when there is none, too many, or one cannot be followed. */
function valuesOfEach(nodes: Node[], sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  if (!nodes.length || nodes.length > MAX_VALUES) return undefined;
  const out: Node[] = [];
  for (const n of nodes) {
    const vs = heldValues(n, sources, calls, depth + 1);
    if (!vs) return undefined;
    out.push(...vs);
  }
  return out;
}

/** The values a parameter is given: the list a callback maps over, or the arguments of the function's calls. */
function parameterValues(param: Node, sources: ParsedSources, calls: Calls, depth: number): Node[] | undefined {
  if (!Node.isParameterDeclaration(param)) return undefined;
  const fn = param.getParent();
  const index = fn && 'getParameters' in fn ? (fn as unknown as { getParameters(): Node[] }).getParameters().indexOf(param) : -1;
  if (!fn || index < 0 || param.isRestParameter()) return undefined;
  // TOOLS.forEach((tool) => …)
  const host = fn.getParent();
  if ((Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) && index === 0 && host && Node.isCallExpression(host)) {
    const callee = unwrap(host.getExpression());
    if (Node.isPropertyAccessExpression(callee) && CALLBACK_METHODS.has(callee.getName())) return listValues(callee.getExpression(), sources, calls, depth);
    return undefined;
  }
  // The calls of a named function or of a class's constructor (new Cls(…)).
  let name: string | undefined;
  let isNew = false;
  if (Node.isFunctionDeclaration(fn)) name = fn.getName();
  else if ((Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) && host && Node.isVariableDeclaration(host)) name = host.getName();
  else if (Node.isConstructorDeclaration(fn)) {
    const cls = fn.getParent();
    name = Node.isClassDeclaration(cls) ? cls.getName() : undefined;
    isNew = true;
  }
  if (!name) return undefined;
  const args: Node[] = [];
  if (isNew) {
    for (const [file, sf] of sources.files) {
      if (file.startsWith('node_modules/')) continue;
      sf.forEachDescendant((d) => {
        if (Node.isNewExpression(d) && unwrap(d.getExpression()).getText() === name) {
          const a = d.getArguments()[index];
          if (a) args.push(a);
        }
      });
    }
  } else for (const c of calls) if (c.name === name && unwrap(c.call.getExpression()).getText() === name && c.call.getArguments()[index]) args.push(c.call.getArguments()[index]!);
  return valuesOfEach(args, sources, calls, depth);
}
