import { Node, ts, type SourceFile } from '../../facts/morph.js';
import { classOf, declarationOf, fieldValues, valueOfDeclaration } from '../../facts/scope.js';
import { rawUnwrap, unwrap, wrapNode, type ParsedSources } from '../../facts/ts-source.js';
import { CONSOLE_METHODS, LOGGER_FACTORY } from './names.js';

/**
 * C-6 (source parts) — where a logger used in a file comes from, when it is not built in that file: a logger
 * library's instance built in another module and imported (`import { logger } from './utils/logger.js'`, a default
 * export, `export default logger`), held as a class field (`this.logger = winston.createLogger(…)`,
 * `private log = pino()`), or a child of one (`logger.child({ … })`); and a logger class or object of the package
 * whose method hands its arguments as they are to `console.*` (a wrapper: `error(...args)
 * { console.error('[ERROR]', ...args) }`). Read only through what the source states: an identifier's declaration
 * (valueOfDeclaration follows relative imports), a field's initialiser and assignments (fieldValues), the class of
 * an instance (classOf).
 */
export type LoggerKind = 'pino' | 'other';

/** The values a receiver can hold: a variable's or import's value, or a `this.field`'s initialiser and assignments. */
function valuesOf(n: Node, sources: ParsedSources): Node[] {
  const u = unwrap(n);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const v = d && d !== u ? valueOfDeclaration(d, sources) : undefined;
    return v ? [v] : [];
  }
  if (Node.isPropertyAccessExpression(u)) return fieldValues(u);
  return [];
}

/** The library a value builds a logger with: `winston.createLogger(…)`, `pino(…)`, `bunyan.createLogger(…)`, `<logger>.child(…)`. */
function libraryOfValue(v: Node, sources: ParsedSources, depth: number): LoggerKind | undefined {
  if (depth > 4) return undefined;
  let u = unwrap(v);
  if (Node.isAwaitExpression(u)) u = unwrap(u.getExpression());
  if (Node.isIdentifier(u) || Node.isPropertyAccessExpression(u)) {
    for (const w of valuesOf(u, sources)) {
      const k = libraryOfValue(w, sources, depth + 1);
      if (k) return k;
    }
    return undefined;
  }
  if (!Node.isCallExpression(u)) return undefined;
  const callee = unwrap(u.getExpression());
  const text = callee.getText().replace(/\s+/g, '');
  if (LOGGER_FACTORY.test(text)) {
    // `createLogger({ silent: process.env.X !== '1', … })`: a logger that writes only when someone opts in is not judged.
    const opts = u.getArguments()[0] && unwrap(u.getArguments()[0]!);
    const silent = opts && Node.isObjectLiteralExpression(opts) ? opts.getProperty('silent') : undefined;
    if (silent && !(Node.isPropertyAssignment(silent) && unwrap(silent.getInitializerOrThrow()).getKind() === ts.SyntaxKind.FalseKeyword)) return undefined;
    return /pino$/.test(text) ? 'pino' : 'other';
  }
  // `baseLogger.child({ module: 'x' })`: the child writes like its parent.
  if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'child') return libraryOfValue(callee.getExpression(), sources, depth + 1);
  return undefined;
}

/** A logger library's instance a receiver holds, built in this file or another one of the package. */
export function libraryLoggerOf(sf: SourceFile, recv: ts.Node, sources: ParsedSources): LoggerKind | undefined {
  const r = rawUnwrap(recv);
  if (!ts.isIdentifier(r) && !(ts.isPropertyAccessExpression(r) && rawUnwrap(r.expression).kind === ts.SyntaxKind.ThisKeyword)) return undefined;
  return libraryOfValue(wrapNode(sf, r), sources, 0);
}

/**
 * Does the package's logger class or object behind a receiver write method `m`'s arguments as they are, to the
 * console: a parameter (or the spread of a rest parameter) passed straight to `console.*`? Then `logger.error('failed', err)` prints `err` through util.inspect, its own fields included.
 */
export function wrapperWritesArguments(sf: SourceFile, recv: ts.Node, m: string, sources: ParsedSources): boolean {
  const r = rawUnwrap(recv);
  if (!ts.isIdentifier(r) && !(ts.isPropertyAccessExpression(r) && rawUnwrap(r.expression).kind === ts.SyntaxKind.ThisKeyword)) return false;
  const n = wrapNode(sf, r);
  let fn: ts.FunctionLikeDeclaration | undefined;
  const cls = classOf(n, sources);
  if (cls) {
    for (const mem of cls.compilerNode.members) {
      if (mem.name && ts.isIdentifier(mem.name) && mem.name.text === m) {
        if (ts.isMethodDeclaration(mem)) fn = mem;
        else if (ts.isPropertyDeclaration(mem) && mem.initializer && (ts.isArrowFunction(rawUnwrap(mem.initializer)) || ts.isFunctionExpression(rawUnwrap(mem.initializer)))) fn = rawUnwrap(mem.initializer) as ts.FunctionLikeDeclaration;
      }
    }
  } else {
    for (const v of valuesOf(n, sources)) {
      const o = unwrap(v).compilerNode;
      if (!ts.isObjectLiteralExpression(o)) continue;
      for (const p of o.properties) {
        if (!p.name || !ts.isIdentifier(p.name) || p.name.text !== m) continue;
        if (ts.isMethodDeclaration(p)) fn = p;
        else if (ts.isPropertyAssignment(p) && (ts.isArrowFunction(rawUnwrap(p.initializer)) || ts.isFunctionExpression(rawUnwrap(p.initializer)))) fn = rawUnwrap(p.initializer) as ts.FunctionLikeDeclaration;
      }
    }
  }
  if (!fn?.body) return false;
  const params = new Set<string>();
  for (const p of fn.parameters) if (ts.isIdentifier(p.name)) params.add(p.name.text);
  if (!params.size) return false;
  let writes = false;
  const visit = (x: ts.Node): void => {
    if (writes) return;
    if (x !== fn!.body && (ts.isFunctionDeclaration(x) || ts.isFunctionExpression(x) || ts.isArrowFunction(x) || ts.isMethodDeclaration(x))) return;
    if (ts.isCallExpression(x) && ts.isPropertyAccessExpression(x.expression)) {
      const o = rawUnwrap(x.expression.expression);
      const text = o.getText(o.getSourceFile()).replace(/\s+/g, '');
      const mm = x.expression.name.text;
      if (text === 'console' && CONSOLE_METHODS.has(mm)) {
        writes = x.arguments.some((a) => {
          const e = ts.isSpreadElement(a) ? rawUnwrap(a.expression) : rawUnwrap(a);
          return ts.isIdentifier(e) && params.has(e.text);
        });
        if (writes) return;
      }
    }
    ts.forEachChild(x, visit);
  };
  visit(fn.body);
  return writes;
}
