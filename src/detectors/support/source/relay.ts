import { SyntaxKind, ts } from '../../../facts/morph.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import { modelFiles, serverModel } from '../../../facts/server-model.js';
import { namedFilter, parsedSources, rawOfKinds, rawPositionOf } from '../../../facts/ts-source.js';

/**
 * A relay: a server that declares no tool of its own and forwards what its client sends to another MCP server
 * (a gateway from stdio to HTTP or back, a proxy in front of a remote server). The tools it serves are that
 * upstream server's, so the static parts that judge the tools a source declares have nothing of its own to judge.
 * Two shapes count as evidence, read once per audit:
 *
 *   - a transport's message handler that forwards the message it receives: `transport.onmessage = (msg) => {
 *     upstream.send(msg) }`, `sseTransport.onmessage = (m) => child.stdin.write(JSON.stringify(m) + '\n')` — the
 *     object is named as a transport, the handler passes its parameter to a `send`, `write` or `request` call on
 *     another object;
 *   - a tools/list request handler that answers with another client's list (`client.listTools(…)`).
 *
 * Nothing else: a server that builds tools and also forwards some is judged on the tools it builds (the callers
 * reach here only when no tool was found).
 */
export interface Relay {
  file: string;
  line: number;
}

const memo = new WeakMap<RepoFacts, Relay | null>();

const FORWARDS: ReadonlySet<string> = new Set(['send', 'write', 'request']);
const TRANSPORT = /transport/i;

const onmessage = namedFilter(['onmessage'], (cn) => ts.isPropertyAccessExpression(cn) && cn.name.text === 'onmessage');

/** The rightmost name of an object expression (`this.upstream`, `session.transport`, `client`). */
function lastName(e: ts.Expression): string {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (e.kind === SyntaxKind.ThisKeyword) return 'this';
  return '';
}

/** Whether `fn` passes its first parameter to a send/write/request call on an object other than `self`. */
function forwardsParameter(fn: ts.ArrowFunction | ts.FunctionExpression, self: string): boolean {
  const p = fn.parameters[0];
  if (!p || !ts.isIdentifier(p.name)) return false;
  const param = p.name.text;
  let found = false;
  const mentions = (n: ts.Node): boolean => (ts.isIdentifier(n) && n.text === param) || (!!ts.forEachChild(n, (c) => (mentions(c) ? true : undefined)));
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && FORWARDS.has(n.expression.name.text)) {
      const target = n.expression.expression.getText();
      if (target !== self && n.arguments.some((a) => mentions(a))) {
        found = true;
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

function find(repo: RepoFacts): Relay | undefined {
  const parsed = parsedSources(repo);
  for (const [file, sf] of modelFiles(parsed)) {
    for (const cn of rawOfKinds(sf, [SyntaxKind.PropertyAccessExpression], onmessage)) {
      const access = cn as ts.PropertyAccessExpression;
      const assign = access.parent;
      if (!assign || !ts.isBinaryExpression(assign) || assign.left !== access || assign.operatorToken.kind !== SyntaxKind.EqualsToken) continue;
      if (!TRANSPORT.test(lastName(access.expression))) continue;
      let right = assign.right;
      while (ts.isParenthesizedExpression(right)) right = right.expression;
      if (!ts.isArrowFunction(right) && !ts.isFunctionExpression(right)) continue;
      if (forwardsParameter(right, access.expression.getText())) return { file, line: rawPositionOf(access).line };
    }
  }
  for (const h of serverModel(repo).requestHandlers) {
    if (h.method === 'tools/list' && h.handler && /\.listTools\s*\(/.test(h.handler.getText())) return { file: h.file, line: h.line };
  }
  return undefined;
}

/** The place where the source relays another server's messages, if it does (see the file header). */
export function relayOf(repo: RepoFacts): Relay | undefined {
  noteSourceRead('js');
  let hit = memo.get(repo);
  if (hit === undefined) memo.set(repo, (hit = find(repo) ?? null));
  return hit ?? undefined;
}
