import { Node, ts, type BinaryExpression, type SourceFile } from '../../facts/morph.js';
import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { findNodes, isDescendantOf, originOf } from '../../facts/scope.js';
import { propertyName, stringValue } from '../../facts/ts-source.js';
import {
  answersStatusDeep,
  args,
  authChecks,
  calledFunction,
  calleeName,
  declarationOf,
  enclosingFunction,
  initializerOf,
  isHeaderRead,
  isHeaderWrite,
  locationOf,
  readSources,
  resolveValue,
  sitesOf,
  rawNameText,
  named,
  headerReads,
  K,
  type Site,
} from '../support/source/source-support.js';

/**
 * S-18 — session integrity (static). Applies when the source issues session ids: a `sessionIdGenerator`
 * that is not `undefined` (SDK Streamable HTTP transports), or an `Mcp-Session-Id` header written by hand.
 * - The generator must be cryptographic (randomUUID, randomBytes, getRandomValues, uuid v4, nanoid);
 *   Math.random, a timestamp, a counter, uuid v1 or a constant is predictable.
 * - A session must not stand in for authentication: a lookup of the session id that answers 401/403
 *   when the session is unknown, or a credential checked only on the initialize path, with no credential
 *   check on every request.
 */

const HEADER = 'mcp-session-id';
type Weak = 'math_random' | 'timestamp' | 'counter' | 'uuid_v1' | 'constant';
const STRONG = new Set(['randomUUID', 'randomBytes', 'getRandomValues', 'randomInt', 'nanoid', 'v4', 'uuidv4', 'ulid', 'createId', 'cuid']);

interface Issuer extends Site {
  /** The expression that produces the id (a function, an identifier or a value). */
  value: Node | undefined;
}

function issuers(files: [string, SourceFile][]): Issuer[] {
  const out: Issuer[] = [];
  const raw = named(
    new Set(['sessionidgenerator', HEADER]),
    (cn: ts.Node): boolean =>
      ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn) ? rawNameText(cn.name) === 'sessionIdGenerator' : rawNameText(cn)?.toLowerCase() === HEADER,
  );
  for (const s of sitesOf(files, [...K.properties, ...K.strings], (n) => Node.isPropertyAssignment(n) || Node.isShorthandPropertyAssignment(n) || isHeaderWrite(n, HEADER), raw)) {
    const n = s.node;
    if (Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'sessionIdGenerator') {
      const v = n.getInitializerOrThrow();
      if (v.getText() !== 'undefined') out.push({ ...s, value: v });
    } else if (Node.isShorthandPropertyAssignment(n) && n.getName() === 'sessionIdGenerator') {
      out.push({ ...s, value: n.getNameNode() });
    } else if (!Node.isPropertyAssignment(n) && !Node.isShorthandPropertyAssignment(n)) {
      const p = n.getParent();
      let value: Node | undefined;
      if (Node.isPropertyAssignment(p)) value = p.getInitializer();
      else if (Node.isCallExpression(p)) value = args(p)[1];
      else if (Node.isElementAccessExpression(p) && Node.isBinaryExpression(p.getParent())) value = (p.getParent() as BinaryExpression).getRight();
      // Sending back an id that was received (a client, a proxy) is not issuing one.
      if (!echoes(value)) out.push({ ...s, value });
    }
  }
  return out;
}

/** The value is a session id read from a message (`res.headers['mcp-session-id']`, or a const holding one). */
function echoes(value: Node | undefined): boolean {
  if (!value) return false;
  const v = resolveValue(value) ?? value;
  return [value, v].some((x) => findNodes(x, ts.isStringLiteralLike).some((d) => stringValue(d)?.toLowerCase() === HEADER));
}

/** The expressions a generator yields: a function's returned values, or the value itself, following local consts and functions. */
function produced(v: Node | undefined, depth = 0): Node[] {
  if (!v || depth > 4) return [];
  if (Node.isArrowFunction(v) || Node.isFunctionExpression(v) || Node.isFunctionDeclaration(v)) {
    const body = v.getBody();
    if (!body) return [];
    if (!Node.isBlock(body)) return [body];
    const out: Node[] = [];
    body.forEachDescendant((d, t) => {
      if (Node.isArrowFunction(d) || Node.isFunctionExpression(d) || Node.isFunctionDeclaration(d)) return t.skip();
      if (Node.isReturnStatement(d) && d.getExpression()) out.push(d.getExpression()!);
    });
    return out;
  }
  if (Node.isIdentifier(v)) {
    const d = declarationOf(v);
    if (d && Node.isFunctionDeclaration(d)) return produced(d, depth + 1);
    const init = initializerOf(d);
    if (init) return produced(init, depth + 1);
  }
  return [v];
}

/** The predictable source in an id expression, unless a cryptographic one is also there. */
function weakness(expr: Node): { node: Node; source: Weak } | undefined {
  let weak: { node: Node; source: Weak } | undefined;
  let strong = false;
  const seen = new Set<Node>();
  const visit = (root: Node, depth: number): void => {
    if (seen.has(root) || depth > 3) return;
    seen.add(root);
    const check = (n: Node): void => {
      if (Node.isPropertyAccessExpression(n) && n.getText().replace(/\s/g, '') === 'Math.random') weak ??= { node: n.getParentOrThrow(), source: 'math_random' };
      else if ((Node.isCallExpression(n) || Node.isNewExpression(n))) {
        const text = n.getExpression().getText().replace(/\s/g, '');
        const o = Node.isCallExpression(n) ? originOf(n.getExpression()) : undefined;
        const name = o?.path[o.path.length - 1] ?? calleeName(n) ?? '';
        if (['Date.now', 'performance.now', 'process.hrtime', 'process.hrtime.bigint'].includes(text) || (Node.isNewExpression(n) && text === 'Date')) {
          weak ??= { node: n, source: 'timestamp' };
        } else if (o?.module === 'uuid' && (name === 'v1' || name === 'v6')) weak ??= { node: n, source: 'uuid_v1' };
        else if (STRONG.has(name)) strong = true;
        else if (Node.isCallExpression(n)) {
          const fn = calledFunction(n);
          if (fn) for (const e of produced(fn)) visit(e, depth + 1);
        }
      } else if ((Node.isPostfixUnaryExpression(n) || Node.isPrefixUnaryExpression(n)) && /^\+\+|\+\+$/.test(n.getText())) {
        weak ??= { node: n, source: 'counter' };
      } else if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+=' && Node.isNumericLiteral(n.getRight())) {
        weak ??= { node: n, source: 'counter' };
      } else if (Node.isIdentifier(n) && !Node.isPropertyAccessExpression(n.getParent())) {
        if (STRONG.has(n.getText())) strong = true;
        const init = initializerOf(declarationOf(n));
        if (init && !Node.isArrowFunction(init) && !Node.isFunctionExpression(init)) visit(init, depth + 1);
      }
    };
    check(root);
    root.forEachDescendant(check);
  };
  visit(expr, 0);
  if (!strong && !weak && (Node.isStringLiteral(expr) || Node.isNoSubstitutionTemplateLiteral(expr) || Node.isNumericLiteral(expr))) return { node: expr, source: 'constant' };
  return strong ? undefined : weak;
}

/** Lookups of the session id in a store (`sessions.has(id)`, `transports[id]`, `id in sessions`) that decide an if. */
function sessionGates(files: [string, SourceFile][]): { lookup: Node; gate: Node; file: string }[] {
  const out: { lookup: Node; gate: Node; file: string }[] = [];
  for (const read of headerReads(files, HEADER)) {
    const fn = enclosingFunction(read.node) ?? read.node.getSourceFile();
    const ids = new Set<string>();
    const decl = read.node.getFirstAncestor((a) => Node.isVariableDeclaration(a));
    if (decl && Node.isVariableDeclaration(decl) && Node.isIdentifier(decl.getNameNode())) ids.add(decl.getName());
    const isId = (n: Node | undefined): boolean => !!n && (n === read.node || isDescendantOf(read.node, n) || (Node.isIdentifier(n) && ids.has(n.getText())));
    const holders = new Set<string>(); // const t = transports[id]
    const lookups: Node[] = [];
    fn.forEachDescendant((n) => {
      let hit = false;
      if (Node.isCallExpression(n) && ['has', 'get'].includes(calleeName(n) ?? '') && isId(n.getArguments()[0])) hit = true;
      else if (Node.isElementAccessExpression(n) && isId(n.getArgumentExpression()) && !/headers$/i.test(n.getExpression().getText())) hit = true;
      else if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === 'in' && isId(n.getLeft())) hit = true;
      if (!hit) return;
      lookups.push(n);
      const v = n.getFirstAncestor((a) => Node.isVariableDeclaration(a));
      if (v && Node.isVariableDeclaration(v) && Node.isIdentifier(v.getNameNode())) holders.add(v.getName());
    });
    fn.forEachDescendant((n) => {
      if (!Node.isIfStatement(n)) return;
      const cond = n.getExpression();
      const lookup = lookups.find((l) => l === cond || isDescendantOf(l, cond));
      const holder = findNodes(cond, ts.isIdentifier).find((d) => Node.isIdentifier(d) && holders.has(d.getText()));
      const at = lookup ?? holder;
      if (at) out.push({ lookup: at, gate: n, file: read.file });
    });
  }
  return out;
}

/** Inside the branch that creates a session (initialize request, id generator, onsessioninitialized). */
function onInitializePath(n: Node): boolean {
  return !!n.getFirstAncestor((a) => {
    const p = a.getParent();
    if (p && Node.isIfStatement(p) && p.getThenStatement() === a) return /isInitializeRequest|['"]initialize['"]/.test(p.getExpression().getText());
    if (Node.isPropertyAssignment(a)) return ['sessionIdGenerator', 'onsessioninitialized'].includes(propertyName(a.getNameNode()) ?? '');
    return false;
  });
}

export default [
  defineDetector({
    ruleId: 'S-18',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'predictable-session-id': ['source'],
      'session-as-auth': [],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo);
      if ('verdict' in src) return src.verdict;
      const issued = issuers(src.files);
      if (issued.length === 0) return notApplicable('no-session-ids');
      const findings: Finding[] = [];
      const flagged = new Set<Node>();
      for (const i of issued) {
        for (const e of produced(i.value)) {
          const w = weakness(e);
          if (!w || flagged.has(w.node)) continue;
          flagged.add(w.node);
          findings.push({ messageId: 'predictable-session-id', data: { source: w.source }, location: locationOf(src.files.find(([, sf]) => sf === w.node.getSourceFile())?.[0] ?? i.file, w.node) });
        }
      }
      const checks = authChecks(src.files);
      const perRequest = checks.filter((c) => !onInitializePath(c.node));
      if (perRequest.length === 0) {
        const seen = new Set<Node>();
        for (const g of sessionGates(src.files)) {
          if (seen.has(g.gate)) continue;
          seen.add(g.gate);
          const refuses = answersStatusDeep(g.gate, 401) || answersStatusDeep(g.gate, 403);
          if (refuses || checks.length > 0) findings.push({ messageId: 'session-as-auth', location: locationOf(g.file, g.gate) });
        }
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
