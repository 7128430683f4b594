import { Node, type SourceFile } from '../../facts/morph.js';
import { moduleAssignments } from '../../facts/python-model.js';
import type { PythonFile } from '../../facts/python-source.js';
import { resolveRelativeModule } from '../../facts/scope.js';
import type { ParsedSources } from '../../facts/ts-source.js';
import { escapeRegExp } from '../../facts/regex.js';

/**
 * the code a handler reaches, to tell which client libraries it uses and whether it asks the user
 * before it acts. Read syntactically and kept shallow on purpose: the handler's own text, the top-level
 * declarations of its file that it names, and the top-level declarations it imports by relative path (one
 * hop). A library counts when one of these pieces names a binding imported from it (`import`, `require`,
 * Python `import` / `from … import`), or a module-level value built from one.
 */

export interface Piece {
  text: string;
  /** The JavaScript/TypeScript file the text belongs to. */
  sf?: SourceFile;
  /** The Python file the text belongs to. */
  py?: PythonFile;
}

/** Whether `text` names one of `names` as a whole identifier. */
export const names = (text: string, list: readonly string[]): boolean => list.some((n) => new RegExp(`(?<![\\w$])${escapeRegExp(n)}(?![\\w$])`).test(text));
/** Whether `text` calls `name` (`name(`, `x.name(`). */
export const calls = (text: string, name: string): boolean => new RegExp(`(?<![\\w$])${escapeRegExp(name)}\\s*\\(`).test(text);

export const rootModule = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

/** Local names a JS/TS file binds to a package (its root module): imports and `const x = require('m')`. */
export function bindingsOf(sf: SourceFile, module: string): string[] {
  const out: string[] = [];
  for (const d of sf.getImportDeclarations()) {
    if (rootModule(d.getModuleSpecifierValue()) !== module) continue;
    const def = d.getDefaultImport();
    if (def) out.push(def.getText());
    const ns = d.getNamespaceImport();
    if (ns) out.push(ns.getText());
    for (const n of d.getNamedImports()) out.push((n.getAliasNode() ?? n.getNameNode()).getText());
  }
  for (const v of sf.getVariableDeclarations()) {
    const init = v.getInitializer();
    if (!init || !Node.isCallExpression(init) || init.getExpression().getText() !== 'require') continue;
    const arg = init.getArguments()[0];
    if (arg && Node.isStringLiteral(arg) && rootModule(arg.getLiteralValue()) === module) out.push(v.getName());
  }
  // Module-level values built from a binding (`const transport = nodemailer.createTransport(…)`).
  const direct = [...out];
  if (direct.length) for (const v of sf.getVariableDeclarations()) if (!out.includes(v.getName()) && names(v.getInitializer()?.getText() ?? '', direct)) out.push(v.getName());
  return out;
}

/**
 * A file's top-level functions, variables and classes by name, gathered once per file: asking ts-morph by name
 * walks (and wraps) every statement each time, which over a bundle of thousands of statements and many handlers
 * made one audit take tens of minutes.
 */
interface TopLevel {
  names: string[];
  nodes: Map<string, Node>;
  texts: Map<string, string>;
}
const topLevels = new WeakMap<SourceFile, TopLevel>();
function topLevelOf(sf: SourceFile): TopLevel {
  const known = topLevels.get(sf);
  if (known) return known;
  const fns = sf.getFunctions();
  const vars = sf.getVariableStatements().flatMap((st) => st.getDeclarations());
  const classes = sf.getClasses();
  const names = [...fns.map((f) => f.getName()), ...vars.map((d) => d.getName()), ...classes.map((c) => c.getName())].filter((n): n is string => !!n);
  // A function of that name first, then a variable, then a class (as getFunction ?? getVariableDeclaration ?? getClass).
  const nodes = new Map<string, Node>();
  for (const group of [fns, vars, classes] as Node[][]) {
    for (const d of group) {
      const n = (d as unknown as { getName(): string | undefined }).getName();
      if (n && !nodes.has(n)) nodes.set(n, d);
    }
  }
  const t: TopLevel = { names, nodes, texts: new Map() };
  topLevels.set(sf, t);
  return t;
}

/** The text of a top-level function, variable or class of a file, by name. */
function declText(sf: SourceFile, name: string): string | undefined {
  const t = topLevelOf(sf);
  const cached = t.texts.get(name);
  if (cached !== undefined) return cached;
  const text = t.nodes.get(name)?.getText();
  if (text !== undefined) t.texts.set(name, text);
  return text;
}

/** Whether `text` names `name` as a whole identifier, through the set of its identifier runs when `name` is plain. */
function namesIn(text: string, runs: ReadonlySet<string>, name: string): boolean {
  return /^[\w$]+$/.test(name) ? runs.has(name) : names(text, [name]);
}

/** The pieces of code a JS/TS handler reaches (itself, same-file declarations it names, relative imports it names). */
export function reachedPieces(handler: Node, sources: ParsedSources): Piece[] {
  const sf = handler.getSourceFile();
  const text = handler.getText();
  const out: Piece[] = [{ text, sf }];
  const runs = new Set(text.match(/[\w$]+/g) ?? []);
  for (const n of topLevelOf(sf).names) {
    if (!namesIn(text, runs, n)) continue;
    const t = declText(sf, n);
    if (t && !t.includes(text)) out.push({ text: t, sf });
  }
  for (const d of sf.getImportDeclarations()) {
    const spec = d.getModuleSpecifierValue();
    if (!spec.startsWith('.')) continue;
    const target = resolveRelativeModule(sources.rel(sf), spec, sources);
    if (!target) continue;
    for (const n of d.getNamedImports()) {
      const local = (n.getAliasNode() ?? n.getNameNode()).getText();
      if (!namesIn(text, runs, local)) continue;
      const t = declText(target, n.getNameNode().getText());
      if (t) out.push({ text: t, sf: target });
    }
  }
  return out;
}

/** Local names a Python file binds to a module (`import m`, `import m as x`, `from m import y`), and module-level values built from them. */
export function pyBindingsOf(file: PythonFile, module: string): string[] {
  const out = [...file.imports].filter(([, dotted]) => dotted.replace(/^\.+/, '').split('.')[0] === module).map(([local]) => local);
  if (out.length) {
    const direct = [...out];
    for (const [name, value] of moduleAssignments(file)) if (!out.includes(name) && names(value.text, direct)) out.push(name);
  }
  return out;
}

/** The pieces of code a Python handler reaches: itself and the module-level values it names. */
export function pyReachedPieces(handler: { text: string }, file: PythonFile): Piece[] {
  const out: Piece[] = [{ text: handler.text, py: file }];
  for (const [name, value] of moduleAssignments(file)) if (names(handler.text, [name])) out.push({ text: value.text, py: file });
  return out;
}

/** Whether the pieces use a package: a piece names one of its bindings and, when `callNames` is given, some piece calls one of them. */
export function usesModule(pieces: readonly Piece[], module: string, callNames?: readonly string[]): boolean {
  const bound = pieces.some((p) => {
    const b = p.sf ? bindingsOf(p.sf, module) : p.py ? pyBindingsOf(p.py, module) : [];
    return b.length > 0 && names(p.text, b);
  });
  return bound && (!callNames || pieces.some((p) => callNames.some((c) => calls(p.text, c))));
}

/**
 * Calls that ask the user before going on: an elicitation (SDK v2 `inputRequired(…)` / `inputRequired.elicit(…)`,
 * SDK v1 `server.elicitInput(…)`, FastMCP `ctx.elicit(…)`).
 */
export const CONFIRMATION_CALLS: readonly string[] = ['inputRequired', 'elicitInput', 'elicit'];

/** Whether a handler asks the user before it acts (one of its pieces calls a confirmation API). */
export const asksUser = (pieces: readonly Piece[]): boolean => pieces.some((p) => CONFIRMATION_CALLS.some((c) => calls(p.text, c)));
