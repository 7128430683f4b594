import { Node, SyntaxKind, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { serverModel } from '../../facts/server-model.js';
import { codeOf, reachable, type Fn } from '../support/source/code-paths.js';
import { headerReads, httpTransports, isHeaderWrite, K, locationOf, named, rawNameText, sitesOf, type HttpTransport } from '../support/source/source-support.js';

/**
 * stateless transport (static part). Condition: the source serves MCP over HTTP in the 2026-07-28 era:
 * through the SDK v2 per-request handler (`createMcpHandler`), or through a transport it wrote itself (which
 * may answer any revision). The SDK's per-connection transports (`StreamableHTTPServerTransport`,
 * `NodeStreamableHTTPServerTransport`, the SSE transport) serve the 2025 era only: a source that has only
 * those does not meet the condition (not-applicable, with the transport named).
 *
 * Red, in what serves modern requests:
 *   - 'session-id-read': the code a tool, prompt or resource handler reaches reads a `sessionId` (the request
 *     context's, a transport's) — state bound to a protocol session that 2026-07-28 does not have;
 *   - 'session-keyed-state': that code stores or looks up state by a session id (`map.set(sessionId, …)`,
 *     `store[sessionId]`);
 *   - 'session-header': a hand-built transport writes an `Mcp-Session-Id` header or reads one to find its state.
 * A session generator on an SDK per-connection transport beside `createMcpHandler` is a legacy route and is
 * not judged here (S-18 judges its ids).
 */

const LEGACY_ONLY = new Set(['StreamableHTTPServerTransport', 'NodeStreamableHTTPServerTransport', 'WebStandardStreamableHTTPServerTransport', 'SSEServerTransport']);
const HEADER = 'mcp-session-id';
const SESSION_KEY = /^(?:[\w$.]*\.)?(?:session_?id|sessionKey|mcpSessionId)$/i;

/** Does a hand-built transport answer the modern revision? Unknown in general: it may echo any version. */
function modernServed(transports: HttpTransport[]): HttpTransport[] {
  return transports.filter((t) => t.kind === 'hand-built' || (t.kind === 'sdk' && !LEGACY_ONLY.has(t.name)));
}

const isSessionKey = (n: Node | undefined): boolean => !!n && SESSION_KEY.test(n.getText().replace(/\s/g, ''));

function stateFindings(fns: readonly Fn[], rel: (sf: SourceFile) => string): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  const add = (messageId: string, node: Node) => {
    const loc = locationOf(rel(node.getSourceFile()), node);
    const key = `${messageId}:${loc.file}:${loc.line}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ messageId, data: { expression: node.getText().replace(/\s+/g, ' ').slice(0, 80) }, location: loc });
  };
  for (const fn of fns) {
    for (const c of fn.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = c.getExpression();
      if (!Node.isPropertyAccessExpression(callee)) continue;
      if (['set', 'get', 'has', 'delete'].includes(callee.getName()) && isSessionKey(c.getArguments()[0])) add('session-keyed-state', c);
    }
    for (const e of fn.getDescendantsOfKind(SyntaxKind.ElementAccessExpression)) {
      if (isSessionKey(e.getArgumentExpression())) add('session-keyed-state', e);
    }
    for (const p of fn.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
      if (p.getName() !== 'sessionId') continue;
      // Inside a keyed access it is reported once, as keyed state.
      const parent = p.getParent();
      if (Node.isElementAccessExpression(parent) && parent.getArgumentExpression() === p) continue;
      if (Node.isCallExpression(parent) && parent.getArguments()[0] === p && Node.isPropertyAccessExpression(parent.getExpression())) continue;
      add('session-id-read', p);
    }
    for (const b of fn.getDescendantsOfKind(SyntaxKind.BindingElement)) {
      const name = b.getPropertyNameNode()?.getText() ?? b.getName();
      if (name === 'sessionId') add('session-id-read', b);
    }
  }
  return out;
}

export default defineDetector({
  ruleId: 'X-10',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: { 'session-id-read': ['expression'], 'session-keyed-state': ['expression'], 'session-header': ['transport'] },
  judge({ inputs: { repo, session } }): Verdict {
    const got = codeOf(repo);
    if (!got.ok) return got.verdict;
    const { code } = got;
    const files = code.files;
    const transports = httpTransports(files);
    if (transports.length === 0) return session?.isHttp() ? couldNotJudge('http-served-not-in-source') : notApplicable('no-http-transport');
    const modern = modernServed(transports);
    if (modern.length === 0) return notApplicable('modern-http-not-served', { transport: [...new Set(transports.map((t) => t.name))].sort().join(', ') });

    const findings: Finding[] = [];
    // Hand-built transports: the session header itself, in the files that serve MCP.
    const handFiles = new Set(modern.filter((t) => t.kind === 'hand-built').map((t) => t.file));
    if (handFiles.size) {
      const inHand = files.filter(([f]) => handFiles.has(f));
      const raw = named(new Set([HEADER]), (cn) => rawNameText(cn)?.toLowerCase() === HEADER);
      for (const s of sitesOf(inHand, K.headerReads, (n) => isHeaderWrite(n, HEADER), raw)) {
        findings.push({ messageId: 'session-header', data: { transport: modern.find((t) => t.file === s.file)!.name }, location: locationOf(s.file, s.node) });
      }
      for (const s of headerReads(inHand, HEADER)) {
        findings.push({ messageId: 'session-header', data: { transport: modern.find((t) => t.file === s.file)!.name }, location: locationOf(s.file, s.node) });
      }
    }
    // What the handlers reach: the state they keep.
    const model = serverModel(repo);
    const starts = model.entries.map((e) => e.fn);
    findings.push(...stateFindings(reachable(code, starts), code.rel));
    if (findings.length) {
      findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : (a.location!.line ?? 0) - (b.location!.line ?? 0)));
      return { state: 'non-conforming', findings };
    }
    if (starts.length === 0 && handFiles.size === 0) return couldNotJudge('handlers-not-found-for-state');
    return present();
  },
});
