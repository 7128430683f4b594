import { Node, SyntaxKind, ts, type CallExpression, type SourceFile } from '../morph.js';
import { declarationOf, isFunctionLike, type FunctionLikeNode } from '../scope.js';
import { namedFilter, positionOf, propertyName, rawOfKinds, unwrap, wrapNode, type ParsedSources } from '../ts-source.js';
import { loopVariableItems, type LoopItem } from './class-tools.js';
import { objectLiteralOf, variableParts } from './values.js';

/**
 * Tools registered through a local wrapper: a function of the package that hands its parameter to the SDK's
 * registration, called once per tool with the tool's object —
 *
 *   const addTool = (tool) => { if (allowed(tool.name)) server.addTool(tool); };   addTool({ name: 'search', … });
 *   function registerToolConditional(name, config, handler) { … server.registerTool(name, config, handler) }
 *   registerStaticTool({ name, description, inputShape, handler }) { this.server.registerTool(name, { description,
 *     inputSchema: inputShape }, handler) }                           this.registerStaticTool({ name: 'list', … })
 *
 * forwardedParameter() says which parameter of which function a registration's argument is (a plain parameter, or a
 * name bound by destructuring it); wrapperCalls() finds the calls of that function in the files read (through the
 * per-file index of calls by callee name, one look-up per wrapper) and reads, at each, the object it passes: an
 * object literal (or a const holding one), or the variable of a loop over a written list of such objects. A call
 * whose object cannot be read is returned as unread, with its place: the tools it registers are not known.
 */

export interface Forwarded {
  fn: FunctionLikeNode;
  /** The function's name, as its callers write it (`addTool`, `this.registerStaticTool`). */
  name: string;
  index: number;
  /** The parameter's name (`tool`), or, for a destructured one, the local names bound to the object's keys. */
  param: string;
  bindings?: ReadonlyMap<string, string>;
}

/** The name a function is called by: a declaration's, a `const f = (…) => …`'s, a method's or an object key's. */
function calledName(fn: FunctionLikeNode): string | undefined {
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return Node.isMethodDeclaration(fn) ? propertyName(fn.getNameNode()) : fn.getName();
  const parent = fn.getParent();
  if (parent && Node.isVariableDeclaration(parent) && Node.isIdentifier(parent.getNameNode())) return parent.getName();
  if (parent && Node.isPropertyAssignment(parent)) return propertyName(parent.getNameNode());
  if (parent && Node.isPropertyDeclaration(parent)) return propertyName(parent.getNameNode());
  return undefined;
}

/**
 * Which parameter of an enclosing function `arg` (a registration's argument: `tool`, `tool.name`, `name` bound by
 * `{ name }`) stands for, when that function is one the package calls by name. undefined otherwise.
 */
export function forwardedParameter(arg: Node): Forwarded | undefined {
  let u = unwrap(arg);
  if (Node.isPropertyAccessExpression(u)) u = unwrap(u.getExpression());
  if (!Node.isIdentifier(u)) return undefined;
  const d = declarationOf(u);
  if (!d) return undefined;
  let p: Node | undefined = d.getParent();
  // A name bound by destructuring the parameter: `{ name, inputShape: schema }`.
  let binding: Node | undefined;
  if (p && Node.isBindingElement(p)) {
    binding = p;
    const pattern = p.getParent();
    p = pattern && Node.isObjectBindingPattern(pattern) ? pattern.getParent() : undefined;
  }
  if (!p || !Node.isParameterDeclaration(p)) return undefined;
  const fn = p.getParent();
  if (!isFunctionLike(fn)) return undefined;
  const name = calledName(fn);
  if (!name || name.length < 3) return undefined;
  const index = fn.getParameters().indexOf(p);
  if (index < 0) return undefined;
  if (!binding) return Node.isIdentifier(p.getNameNode()) ? { fn, name, index, param: p.getName() } : undefined;
  const pattern = p.getNameNode();
  if (!Node.isObjectBindingPattern(pattern)) return undefined;
  const bindings = new Map<string, string>();
  for (const el of pattern.getElements()) {
    const local = el.getNameNode();
    if (!Node.isIdentifier(local)) continue;
    const keyNode = el.getPropertyNameNode();
    const key = keyNode ? propertyName(keyNode) : local.getText();
    if (key !== undefined) bindings.set(local.getText(), key);
  }
  return { fn, name, index, param: p.getText(), bindings };
}

/**
 * forwardedParameter for a registration's name: also a name a factory composes from one parameter
 * (`\`${opts.prefix}_search\``, `'list_' + kind`: every part that is not a string constant is that parameter, or
 * a key of it). `byItem`: the name reads a key of the object passed (`opts.prefix`, `tool.name`, a destructured
 * name), so each call's object must be read; otherwise the argument passed is the value.
 */
export function forwardedName(arg: Node): (Forwarded & { byItem: boolean }) | undefined {
  const parts = variableParts(arg);
  if (!parts) {
    const w = forwardedParameter(arg);
    return w && { ...w, byItem: !!w.bindings || Node.isPropertyAccessExpression(unwrap(arg)) };
  }
  let found: (Forwarded & { byItem: boolean }) | undefined;
  for (const p of parts) {
    const w = forwardedParameter(p);
    if (!w || (found && (found.fn !== w.fn || found.index !== w.index))) return undefined;
    const byItem = !!w.bindings || Node.isPropertyAccessExpression(p);
    found = found ? { ...found, byItem: found.byItem || byItem } : { ...w, byItem };
  }
  return found;
}

export interface WrapperCall {
  call: CallExpression;
  file: string;
  /** One item per tool the call registers (one, or one per element of the loop's list it passes). */
  items?: LoopItem[];
}

const callFilters = new Map<string, ReturnType<typeof namedFilter>>();
function callsNamed(name: string) {
  let f = callFilters.get(name);
  if (!f) {
    f = namedFilter([name], (cn) => {
      if (!ts.isCallExpression(cn)) return false;
      const e = cn.expression;
      return (ts.isIdentifier(e) && e.text === name) || (ts.isPropertyAccessExpression(e) && e.name.text === name);
    });
    callFilters.set(name, f);
  }
  return f;
}

/** The calls of a wrapper in the files read, each with the tool objects it passes (see the file header). */
export function wrapperCalls(w: Forwarded, files: readonly [string, SourceFile][], sources: ParsedSources): WrapperCall[] {
  const out: WrapperCall[] = [];
  // A function is called by its bare name (in its file, or imported), a method or an object's key as `x.name(…)`:
  // `server.addTool(…)` is not a call of a local `addTool` function.
  const isMember = Node.isMethodDeclaration(w.fn) || !!w.fn.getParentIfKind(SyntaxKind.PropertyAssignment) || !!w.fn.getParentIfKind(SyntaxKind.PropertyDeclaration);
  for (const [file, sf] of files) {
    for (const cn of rawOfKinds(sf, [SyntaxKind.CallExpression], callsNamed(w.name))) {
      const call = wrapNode(sf, cn);
      if (!Node.isCallExpression(call)) continue;
      if (call.getFirstAncestor((a) => a === w.fn)) continue;
      const callee = unwrap(call.getExpression());
      if (isMember !== Node.isPropertyAccessExpression(callee)) continue;
      const arg = call.getArguments()[w.index];
      if (!arg) continue;
      const obj = objectLiteralOf(arg, sources);
      if (obj) {
        out.push({ call, file, items: [{ param: w.param, obj, ...(w.bindings ? { bindings: w.bindings } : {}) }] });
        continue;
      }
      const looped = loopVariableItems(unwrap(arg), sources);
      out.push({ call, file, items: looped?.map((it) => ({ ...it, param: w.param, ...(w.bindings ? { bindings: w.bindings } : {}) })) });
    }
  }
  return out;
}

/** Where a call is, for a registration that could not be read. */
export const callSpot = (file: string, call: Node): { file: string; line: number; expression: string } => {
  const text = call.getText().replace(/\s+/g, ' ');
  return { file, line: positionOf(call).line, expression: text.length > 80 ? `${text.slice(0, 77)}...` : text };
};
