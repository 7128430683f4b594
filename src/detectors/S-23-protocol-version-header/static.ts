import { Node, ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { findNodes, isDescendantOf } from '../../facts/scope.js';
import { stringValue } from '../../facts/ts-source.js';
import {
  answersStatusDeep,
  calleeName,
  enclosingFunction,
  headerReads,
  httpTransports,
  locationOf,
  readSources,
  sitesOf,
  named,
  K,
  type Site,
} from '../support/source/source-support.js';

/**
 * S-23, static part. The SDK's Streamable HTTP transports (createMcpHandler, StreamableHTTPServerTransport
 * and its Node / web-standard variants) validate MCP-Protocol-Version themselves: present, unless code in
 * front of them deletes or overwrites the header. A transport built by hand (or the deprecated SSE
 * transport) must read the header and answer 400 on the branch that tests it.
 */

const HEADER = 'mcp-protocol-version';

/** `delete req.headers['mcp-protocol-version']`, `headers.delete(...)`, `headers.set(...)`, `req.headers[...] = …`. */
function rewrites(files: Parameters<typeof sitesOf>[0]): Site[] {
  const raw = named(new Set([HEADER]), (cn: ts.Node): boolean => (cn as ts.StringLiteralLike).text?.toLowerCase() === HEADER);
  return sitesOf(files, K.strings, (n) => {
    if (stringValue(n)?.toLowerCase() !== HEADER) return false;
    const p = n.getParent();
    // Only the incoming request's headers: a client setting the header on what it sends is not a rewrite.
    const onRequest = (target: Node): boolean => /\b(req|request)\b/i.test(target.getText());
    if (Node.isCallExpression(p) && p.getArguments()[0] === n) {
      const name = calleeName(p) ?? '';
      return ['delete', 'set', 'removeHeader'].includes(name) && onRequest(p.getExpression());
    }
    if (Node.isElementAccessExpression(p) && onRequest(p.getExpression())) {
      const gp = p.getParent();
      if (Node.isDeleteExpression(gp)) return true;
      if (Node.isBinaryExpression(gp) && gp.getLeft() === p && gp.getOperatorToken().getText() === '=') return true;
    }
    return false;
  }, raw);
}

/** The names the read value is bound to (`const v = req.headers[...]`, `const { 'mcp-protocol-version': v } = …`). */
function boundTo(read: Node): string[] {
  let n: Node = read;
  for (let p = n.getParent(); p; n = p, p = p.getParent()) {
    if (Node.isVariableDeclaration(p)) return Node.isIdentifier(p.getNameNode()) ? [p.getName()] : [];
    if (Node.isBindingElement(p)) return [p.getName()];
    if (Node.isStatement(p) || Node.isIfStatement(p) || Node.isArrowFunction(p)) return [];
  }
  return [];
}

/** True when a 400 is answered on a branch whose condition tests the header's value. */
function rejectsWith400(read: Node): boolean {
  const fn = enclosingFunction(read) ?? read.getSourceFile();
  const names = boundTo(read);
  const mentions = (cond: Node): boolean =>
    cond === read ||
    isDescendantOf(read, cond) ||
    findNodes(cond, ts.isIdentifier).some((d) => Node.isIdentifier(d) && names.includes(d.getText())) ||
    (Node.isIdentifier(cond) && names.includes(cond.getText()));
  let ok = false;
  fn.forEachDescendant((n, t) => {
    if (Node.isIfStatement(n) && mentions(n.getExpression()) && answersStatusDeep(n.getThenStatement(), 400)) ok = true;
    else if (Node.isConditionalExpression(n) && mentions(n.getCondition()) && (answersStatusDeep(n.getWhenTrue(), 400) || answersStatusDeep(n.getWhenFalse(), 400))) ok = true;
    if (ok) t.stop();
  });
  return ok;
}

export default defineDetector({
  ruleId: 'S-23',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'protocol-version-ignored': ['transport'],
    'protocol-version-not-rejected': [],
    'protocol-version-rewritten': [],
  },
  judge({ inputs: { repo, session } }): Verdict {
    const src = readSources(repo);
    if ('verdict' in src) return src.verdict;
    const transports = httpTransports(src.files);
    // Served over HTTP in the same run: the transport exists, the source reading did not find it.
    if (transports.length === 0) return session?.isHttp() ? couldNotJudge('http-served-not-in-source') : notApplicable('no-http-transport');
    const findings: Finding[] = [];
    for (const r of rewrites(src.files)) findings.push({ messageId: 'protocol-version-rewritten', location: locationOf(r.file, r.node) });
    const handBuilt = transports.filter((t) => t.kind !== 'sdk');
    if (handBuilt.length > 0 && !transports.some((t) => t.kind === 'sdk')) {
      const reads = headerReads(src.files, HEADER);
      if (reads.length === 0) {
        for (const t of handBuilt) findings.push({ messageId: 'protocol-version-ignored', data: { transport: t.name }, location: locationOf(t.file, t.node) });
      } else if (!reads.some((r) => rejectsWith400(r.node))) {
        for (const r of reads) findings.push({ messageId: 'protocol-version-not-rejected', location: locationOf(r.file, r.node) });
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
