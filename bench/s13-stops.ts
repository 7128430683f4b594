import { resolve } from 'node:path';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { Node, ts, type SourceFile } from '../src/facts/morph.js';
import { rawDeclarationOf, rawOriginOf, isRawFunctionLike, declarationOf, valueOfDeclaration } from '../src/facts/scope.js';
import { rawUnwrap, rawPositionOf, wrapNode } from '../src/facts/ts-source.js';
import { codeOf, reachable, stepTargets, type Code, type Fn } from '../src/detectors/support/source/code-paths.js';
import s13 from '../src/detectors/S-13-progress-cancellation/static.js';

/**
 * Where the handlers' reading stops (diagnostic, not product output). For one folder: walks every handler's
 * path the way S-13 does (code-paths.reachable) and lists each call in the functions read that leads nowhere
 * although a function of the audited source has the name it calls (a candidate lost edge), classified by shape;
 * then, for the request S-13 names as outbound-not-traced, climbs back from it by name to the reached call that
 * should have led there.
 * Run: node dist/bench/s13-stops.js <dir> [--all]
 */

const [, , dir, flag] = process.argv;
const repo = RepoFacts.gather(resolve(dir!));
const src = codeOf(repo);
if (!src.ok) {
  console.log(JSON.stringify(src.verdict));
  process.exit(0);
}
const code: Code = src.code;
const model = serverModel(repo);
const entries = [...model.tools.map((t) => t.handler), ...model.prompts.map((p) => p.handler), ...model.resources.map((r) => r.handler), ...model.requestHandlers.map((r) => r.handler)].filter((f): f is Fn => !!f);
const reached = new Set(reachable(code, entries));

// Names of the functions the source defines (functions, methods, consts and members holding one).
const defined = new Map<string, ts.Node[]>();
const nameOf = (cn: ts.Node): string | undefined => {
  if ((ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn)) && cn.name && (ts.isIdentifier(cn.name) || ts.isStringLiteral(cn.name))) return cn.name.text;
  if ((ts.isArrowFunction(cn) || ts.isFunctionExpression(cn)) && cn.parent) {
    const p = cn.parent;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name && ts.isIdentifier(p.name)) return p.name.text;
    if (ts.isBinaryExpression(p) && ts.isPropertyAccessExpression(p.left)) return p.left.name.text;
  }
  return undefined;
};
for (const [, sf] of code.files) {
  const visit = (cn: ts.Node): void => {
    if (isRawFunctionLike(cn)) {
      const n = nameOf(cn);
      if (n) defined.set(n, [...(defined.get(n) ?? []), cn]);
    }
    ts.forEachChild(cn, visit);
  };
  visit(sf.compilerNode);
}

const sfOf = (cn: ts.Node): SourceFile => code.files.find(([, f]) => f.compilerNode === cn.getSourceFile())![1];
const at = (cn: ts.Node): string => `${code.rel(sfOf(cn))}:${rawPositionOf(cn).line}`;

/** Why a call that leads nowhere stopped: the shape of its callee. */
function why(c: ts.Node): string {
  if (ts.isElementAccessExpression(c)) return 'dynamic-element-access';
  if (ts.isCallExpression(c)) return 'returned-function (f()())';
  if (ts.isIdentifier(c)) {
    const d = rawDeclarationOf(c);
    if (!d) return 'unresolved-identifier (no declaration)';
    const p = d.parent;
    if (ts.isParameter(p)) return 'callback-parameter';
    if (ts.isBindingElement(p)) return 'destructured-binding';
    if (ts.isImportSpecifier(p) || ts.isImportClause(p)) {
      const o = rawOriginOf(c);
      return o && o.module.startsWith('.') ? 'import-not-followed (relative, re-export/barrel?)' : `external-import`;
    }
    if (ts.isVariableDeclaration(p)) {
      const init = p.initializer && rawUnwrap(p.initializer);
      if (init && (ts.isCallExpression(init) || ts.isAwaitExpression(init))) return 'returned-function (const f = make())';
      if (init && ts.isPropertyAccessExpression(init)) return 'const-of-member';
      return 'const-other';
    }
    return `identifier-declared-as-${ts.SyntaxKind[p.kind]}`;
  }
  if (ts.isPropertyAccessExpression(c)) {
    const o = rawOriginOf(c);
    if (o && !o.module.startsWith('.') && o.module !== '<global>') return 'external-member';
    let r = rawUnwrap(c.expression);
    while (ts.isAwaitExpression(r)) r = rawUnwrap(r.expression);
    if (r.kind === ts.SyntaxKind.ThisKeyword) return 'this-method-not-found';
    if (ts.isPropertyAccessExpression(r) && rawUnwrap(r.expression).kind === ts.SyntaxKind.ThisKeyword) return 'receiver: this.field (instance of unknown class)';
    if (ts.isPropertyAccessExpression(r)) return 'receiver: a.b chain';
    if (ts.isCallExpression(r)) return 'receiver: call result';
    if (ts.isIdentifier(r)) {
      const d = rawDeclarationOf(r);
      if (!d) return 'receiver: undeclared identifier';
      const p = d.parent;
      if (ts.isParameter(p)) return p.type ? 'receiver: typed parameter' : 'receiver: untyped parameter';
      if (ts.isBindingElement(p)) return 'receiver: destructured binding';
      if (ts.isNamespaceImport(p)) return 'receiver: namespace import (member not found)';
      if (ts.isImportSpecifier(p) || ts.isImportClause(p)) return 'receiver: imported value (relative)';
      if (ts.isVariableDeclaration(p)) {
        let init = p.initializer && rawUnwrap(p.initializer);
        while (init && ts.isAwaitExpression(init)) init = rawUnwrap(init.expression);
        if (!init) return 'receiver: let assigned later';
        if (ts.isNewExpression(init)) return 'receiver: const = new X (X unknown)';
        if (ts.isCallExpression(init)) {
          const ce = rawUnwrap(init.expression);
          return ts.isIdentifier(ce) && ce.text === 'require' ? 'receiver: require()' : 'receiver: const = call()';
        }
        return `receiver: const = ${ts.SyntaxKind[init.kind]}`;
      }
      return `receiver: ${ts.SyntaxKind[p.kind]}`;
    }
    return `receiver: ${ts.SyntaxKind[r.kind]}`;
  }
  return ts.SyntaxKind[c.kind];
}

const calleeName = (c: ts.Node): string | undefined => (ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : ts.isElementAccessExpression(c) ? '[]' : undefined);

/** Names of builtin and library methods a source also defines now and then (not a lost edge when the receiver is unknown). */
const COMMON = new Set(['get', 'set', 'has', 'delete', 'clear', 'add', 'push', 'pop', 'map', 'filter', 'find', 'forEach', 'reduce', 'join', 'split', 'slice', 'test', 'exec', 'match', 'replace', 'parse', 'stringify', 'from', 'keys', 'values', 'entries', 'error', 'info', 'warn', 'debug', 'log', 'then', 'catch', 'finally', 'toString', 'includes', 'startsWith', 'endsWith', 'trim', 'toLowerCase', 'toUpperCase', 'on', 'once', 'emit', 'write', 'end', 'close', 'send', 'connect', 'safeParse', 'request', 'call', 'apply', 'bind', 'json', 'text']);
const reachedRawAll = new Set([...reached].map((r) => r.compilerNode as ts.Node));
const tally = new Map<string, number>();
const lines: string[] = [];
for (const fn of reached) {
  const sf = fn.getSourceFile();
  const visit = (cn: ts.Node): void => {
    if (cn !== fn.compilerNode && (ts.isCallExpression(cn) || ts.isNewExpression(cn))) {
      const c = rawUnwrap(cn.expression);
      const name = calleeName(c);
      const targets = stepTargets(cn, sf, code);
      const calleeTargets = targets.length && !(cn.arguments ?? []).some(() => false);
      const globalRecv = ts.isPropertyAccessExpression(c) && ts.isIdentifier(rawUnwrap(c.expression)) && !rawDeclarationOf(rawUnwrap(c.expression) as ts.Identifier);
      const candidate = name === '[]' || (name !== undefined && defined.has(name) && !COMMON.has(name) && !globalRecv && (defined.get(name)?.length ?? 0) <= 4 && !defined.get(name)!.some((d) => reachedRawAll.has(d)));
      if (!calleeTargets && candidate && !ts.isNewExpression(cn)) {
        const w = why(c);
        tally.set(w, (tally.get(w) ?? 0) + 1);
        lines.push(`  ${w.padEnd(52)} ${c.getText().replace(/\s+/g, ' ').slice(0, 60).padEnd(60)} ${at(cn)}`);
      }
    }
    ts.forEachChild(cn, visit);
  };
  visit(fn.compilerNode);
}

const verdict = s13.judge({ inputs: { repo } } as never) as { state: string; reason?: { code: string; data?: { file?: string; line?: number; client?: string } }; findings?: unknown[] };
console.log(`# ${dir}\nS-13 static: ${verdict.state} ${verdict.reason ? JSON.stringify(verdict.reason) : ''} findings=${verdict.findings?.length ?? 0}`);
console.log(`handlers=${entries.length} reached functions=${reached.size} files=${code.files.length}`);
console.log('stopping shapes (calls in reached functions naming a function of the source, that lead nowhere):');
for (const [k, v] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`  ${String(v).padStart(4)}  ${k}`);
if (flag === '--all') console.log(lines.join('\n'));

// Back from the untraced request: its function, then the calls naming it, until one sits in a reached function.
const data = verdict.reason?.code === 'outbound-not-traced' ? verdict.reason.data : undefined;
if (data?.file && data.line) {
  const sf = code.files.find(([p, f]) => p === data.file || code.rel(f) === data.file)?.[1];
  if (sf) {
    const pos = sf.compilerNode.getPositionOfLineAndCharacter(data.line - 1, 0);
    let f: ts.Node | undefined = sf.compilerNode.getChildren()[0];
    let inner: ts.Node | undefined;
    const find = (cn: ts.Node): void => {
      if (cn.getStart() <= pos && pos < cn.end) {
        if (isRawFunctionLike(cn)) inner = cn;
        ts.forEachChild(cn, find);
      }
    };
    find(sf.compilerNode);
    f = inner;
    const reachedRaw = new Set([...reached].map((r) => r.compilerNode as ts.Node));
    console.log(`untraced request ${data.client} at ${data.file}:${data.line}`);
    const seen = new Set<ts.Node>();
    let frontier: ts.Node[] = f ? [f] : [];
    for (let depth = 0; depth < 8 && frontier.length; depth++) {
      const next: ts.Node[] = [];
      for (const g of frontier) {
        if (seen.has(g)) continue;
        seen.add(g);
        // functions enclosing g up to a named one
        let named: ts.Node | undefined = g;
        while (named && !(isRawFunctionLike(named) && nameOf(named))) named = named.parent;
        const enclosing: ts.Node[] = [];
        for (let e: ts.Node | undefined = g; e; e = e.parent) if (isRawFunctionLike(e)) enclosing.push(e);
        const hitReached = enclosing.find((e) => reachedRaw.has(e));
        const n = named ? nameOf(named) : undefined;
        console.log(`${'  '.repeat(depth + 1)}fn ${n ?? '<anonymous>'} at ${at(g)}${hitReached ? '  <- READ by the handlers\' paths' : ''}`);
        if (hitReached || !n) {
          if (!n && !hitReached) console.log(`${'  '.repeat(depth + 2)}(anonymous: ${ts.SyntaxKind[g.parent?.kind ?? 0]} ${g.parent?.getText().replace(/\s+/g, ' ').slice(0, 80)})`);
          continue;
        }
        for (const [, osf] of code.files) {
          const v = (cn: ts.Node): void => {
            if ((ts.isCallExpression(cn) || ts.isNewExpression(cn)) && calleeName(rawUnwrap(cn.expression)) === n) {
              let e: ts.Node | undefined = cn.parent;
              while (e && !isRawFunctionLike(e)) e = e.parent;
              const resolved = stepTargets(cn, osf, code).some((t) => t.compilerNode === named);
              console.log(`${'  '.repeat(depth + 2)}call ${rawUnwrap(cn.expression).getText().replace(/\s+/g, ' ').slice(0, 60)} at ${at(cn)} ${resolved ? 'resolves' : `STOPS: ${why(rawUnwrap(cn.expression))}`}`);
              if (e) next.push(e);
              else console.log(`${'  '.repeat(depth + 3)}(top level)`);
            }
            // referenced without a call (handed as a value)
            const handed = !!cn.parent && ((ts.isCallExpression(cn.parent) && cn.parent.arguments.includes(cn as ts.Expression)) || (ts.isPropertyAssignment(cn.parent) && cn.parent.initializer === cn) || ts.isShorthandPropertyAssignment(cn.parent) || (ts.isVariableDeclaration(cn.parent) && cn.parent.initializer === cn) || (ts.isPropertyAccessExpression(cn.parent) && cn.parent.name === cn && !ts.isCallExpression(cn.parent.parent) && (ts.isCallExpression(cn.parent.parent) || ts.isPropertyAssignment(cn.parent.parent) || ts.isVariableDeclaration(cn.parent.parent))));
            if (handed && ts.isIdentifier(cn) && cn.text === n && !(ts.isCallExpression(cn.parent) && cn.parent.expression === cn) && !(ts.isPropertyAccessExpression(cn.parent) && cn.parent.name === cn && ts.isCallExpression(cn.parent.parent)) && cn !== (named as ts.FunctionDeclaration).name && !(cn.parent && (ts.isVariableDeclaration(cn.parent) || ts.isPropertyAssignment(cn.parent) || ts.isMethodDeclaration(cn.parent) || ts.isFunctionDeclaration(cn.parent)) && (cn.parent as unknown as { name?: ts.Node }).name === cn)) {
              console.log(`${'  '.repeat(depth + 2)}value-ref ${cn.parent.getText().replace(/\s+/g, ' ').slice(0, 80)} at ${at(cn)}`);
            }
            ts.forEachChild(cn, v);
          };
          v(osf.compilerNode);
        }
      }
      frontier = next;
    }
  }
}
void Node;
void declarationOf;
void valueOfDeclaration;
void sfOf;
