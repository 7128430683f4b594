import { Node, SyntaxKind, type ts } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { sinkSites, type SinkSite } from '../../facts/flow.js';
import { isGenerated, keyState, toolsToJudge } from '../support/source/generated-tools.js';
import { returnedExpressions, serverModel } from '../../facts/server-model.js';
import { findNodes, functionOf, isFunctionLike, type FunctionLikeNode } from '../../facts/scope.js';
import { parsedSources, propertyName, stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import { calleeName, declarationOf, K, locationOf, readSources, resolveValue, sitesOf, rawNameText, rawPropNamed } from '../support/source/source-support.js';
import { judgePythonUntrusted } from './python.js';
import { noHandlersFound } from '../support/source/tool-absence.js';
import { instructionLike } from './instructions.js';

export { instructionLike } from './instructions.js';

/**
 * C-16 — content returned to the model is untrusted (static).
 *
 * Third-party content: the value of an outbound request (fetch, http/https, axios, got, undici, node-fetch,
 * ky — facts/flow sink sites) or of a file read (fs read family) whose path is not the package's own file
 * (a literal, `new URL('…', import.meta.url)`, `join(__dirname, '…')` are the server's own content), followed backwards from where it is used
 * through local variables, destructuring, `await`, property reads and method calls on it (`res.text()`,
 * `JSON.parse(x)`, `data.items.map(…)`), templates and concatenations, and through local functions that
 * return it (`await readPage(url)`), a few levels deep.
 *
 * Instruction positions, red when third-party content reaches them without a trust-boundary marker:
 *   - 'external-in-description': a tool description built from it;
 *   - 'external-in-instructions': the server `instructions` built from it;
 *   - 'external-in-prompt': a message text returned by a prompt handler (prompts are instructions the
 *     user sends to the model); an embedded resource (`{ type: 'resource', resource: { uri, text } }`)
 *     is data with its provenance and is not judged;
 *   - 'external-in-instruction-text': a tool result text that interpolates it into sentences addressed to
 *     the model (a reviewed registry of phrases: "follow these steps", "you must", "Instructions:", …).
 * A marker is a delimiter around the interpolation (an XML-like tag just before it and its closing tag
 * after, or the word "untrusted" in the surrounding text) or a call named like sanitize/escape/untrusted/
 * fence/quote around the value. Plain tool results that return fetched text as their own block are data.
 * noHandlersFound of support/source/tool-absence (could-not-judge, or not-applicable on a relay) when the source registers nothing the model reads. Tools built at run time
 * from a template (support/source/generated-tools) are read like written ones; their descriptions read from the
 * package's own document or classes are its own text, and those read from a catalog fetched at run time leave the
 * part could-not-judge 'descriptions-from-catalog' when nothing is red. Python source
 * only: the Python reading (python.ts).
 */

const MARKER_CALL = /sanitiz|escape|untrusted|fence|quote|delimit|wrapExternal|asData/i;

interface Origin {
  call: string;
  kind: 'http' | 'fs';
}

/** A path fixed in the code and inside the package (a literal, new URL('…', import.meta.url), join(__dirname, '…'), or a choice between such paths): the server's own file, not third-party content. */
function ownPath(node: Node | undefined, depth = 0): boolean {
  if (!node || depth > 4) return false;
  let n = unwrap(node);
  if (Node.isIdentifier(n)) {
    if (n.getText() === '__dirname' || n.getText() === '__filename') return true;
    const v = resolveValue(n);
    if (!v || v === n) return false;
    n = v;
  }
  if (stringValue(n) !== undefined) return true;
  const t = n.getText().replace(/\s/g, '');
  if (/^import\.meta\.(url|dirname|filename)$/.test(t)) return true;
  if (Node.isNewExpression(n) && calleeName(n) === 'URL') {
    const a = n.getArguments();
    return stringValue(a[0]) !== undefined && (a.length === 1 ? false : ownPath(a[1], depth + 1));
  }
  // One of two own paths (`existsSync(dev) ? dev : published`, `a ?? b`): still the package's own file.
  if (Node.isConditionalExpression(n)) return ownPath(n.getWhenTrue(), depth + 1) && ownPath(n.getWhenFalse(), depth + 1);
  if (Node.isBinaryExpression(n) && /^(\|\||\?\?)$/.test(n.getOperatorToken().getText())) return ownPath(n.getLeft(), depth + 1) && ownPath(n.getRight(), depth + 1);
  if (Node.isCallExpression(n) && /^(join|resolve|fileURLToPath|dirname)$/.test(calleeName(n) ?? '')) {
    const a = n.getArguments();
    return a.length > 0 && a.every((x) => ownPath(x, depth + 1));
  }
  return false;
}

const ownFile = (call: Node): boolean => (Node.isCallExpression(call) || Node.isNewExpression(call)) && ownPath(call.getArguments()[0]);

class Tracer {
  private readonly sites = new Map<ts.Node, SinkSite>();
  constructor(
    all: SinkSite[],
    private readonly sources: ParsedSources,
  ) {
    for (const s of all) if (s.family === 'http' || (s.family === 'fs' && s.access === 'read' && !ownFile(s.node))) this.sites.set(s.node.compilerNode, s);
  }

  get empty(): boolean {
    return this.sites.size === 0;
  }

  /** The third-party call a value comes from, if any. */
  origin(node: Node | undefined, depth = 0, seen = new Set<Node>()): Origin | undefined {
    if (!node || depth > 10 || seen.has(node)) return undefined;
    seen.add(node);
    const n = unwrap(node);
    const site = this.sites.get(n.compilerNode);
    if (site) return { call: site.call, kind: site.family === 'http' ? 'http' : 'fs' };
    const next = (x: Node | undefined): Origin | undefined => this.origin(x, depth + 1, seen);
    if (Node.isAwaitExpression(n) || Node.isSpreadElement(n)) return next(n.getExpression());
    if (Node.isPropertyAccessExpression(n) || Node.isElementAccessExpression(n)) return next(n.getExpression());
    if (Node.isTemplateExpression(n)) {
      for (const s of n.getTemplateSpans()) {
        const o = next(s.getExpression());
        if (o) return o;
      }
      return undefined;
    }
    if (Node.isBinaryExpression(n)) {
      if (!['+', '??', '||'].includes(n.getOperatorToken().getText())) return undefined;
      return next(n.getLeft()) ?? next(n.getRight());
    }
    if (Node.isConditionalExpression(n)) return next(n.getWhenTrue()) ?? next(n.getWhenFalse());
    if (Node.isArrayLiteralExpression(n)) {
      for (const e of n.getElements()) {
        const o = next(e);
        if (o) return o;
      }
      return undefined;
    }
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      if (!d) return undefined;
      if (Node.isVariableDeclaration(d)) {
        // The element of a for…of over a third-party list.
        const loop = d.getParent()?.getParent();
        if (loop && Node.isForOfStatement(loop)) return next(loop.getExpression());
        return next(d.getInitializer());
      }
      if (Node.isBindingElement(d)) {
        const owner = d.getFirstAncestor((a) => Node.isVariableDeclaration(a) || Node.isParameterDeclaration(a));
        return owner && Node.isVariableDeclaration(owner) ? next(owner.getInitializer()) : undefined;
      }
      return undefined;
    }
    if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      const name = calleeName(n) ?? '';
      if (MARKER_CALL.test(name)) return undefined;
      // A method on a third-party value (res.text(), page.slice(0, 500), items.map(…)).
      if (Node.isPropertyAccessExpression(callee)) {
        const o = next(callee.getExpression());
        if (o) return o;
      }
      // JSON.parse(x), String(x), decodeURIComponent(x)…
      if (/^(parse|String|decodeURIComponent|decodeURI|stringify)$/.test(name)) return next(n.getArguments()[0]);
      // A local function that returns third-party content.
      const fn = functionOf(n.getExpression(), this.sources);
      if (fn && isFunctionLike(fn) && depth < 8) {
        for (const r of returnedExpressions(fn)) {
          const o = next(r);
          if (o) return o;
        }
      }
    }
    return undefined;
  }
}

/** The interpolations of a template are each marked (delimited, or passed through a marker call). */
function marked(n: Node): boolean {
  const u = unwrap(n);
  if (Node.isCallExpression(u) && MARKER_CALL.test(calleeName(u) ?? '')) return true;
  if (!Node.isTemplateExpression(u)) return false;
  const lits = [u.getHead().getLiteralText(), ...u.getTemplateSpans().map((s) => s.getLiteral().getLiteralText())];
  if (lits.some((l) => /untrusted/i.test(l))) return true;
  return u.getTemplateSpans().every((s, i) => {
    const e = unwrap(s.getExpression());
    if (Node.isCallExpression(e) && MARKER_CALL.test(calleeName(e) ?? '')) return true;
    return /<[A-Za-z][\w:-]*(?:\s[^<>]*)?>\s*$/.test(lits[i]!) && /^\s*<\//.test(lits[i + 1] ?? '');
  });
}

/** The literal text of a template or concatenation (interpolations left out). */
function literalText(n: Node): string {
  const u = unwrap(n);
  if (Node.isTemplateExpression(u)) return [u.getHead().getLiteralText(), ...u.getTemplateSpans().map((s) => s.getLiteral().getLiteralText())].join(' ');
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return `${literalText(u.getLeft())} ${literalText(u.getRight())}`;
  return stringValue(u) ?? '';
}

const isRawTextProperty = (cn: ts.Node): boolean => cn.kind === SyntaxKind.PropertyAssignment && rawNameText((cn as ts.PropertyAssignment).name) === 'text';

/** `text` properties written in a function's own body (nested callbacks included, nested declarations too). */
function textProperties(fn: FunctionLikeNode): Node[] {
  return findNodes(fn, isRawTextProperty).filter((n) => Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'text');
}

/** An embedded resource's text ({ uri, text } inside { type: 'resource', resource }) is data with provenance. */
function embeddedResource(prop: Node): boolean {
  const obj = prop.getParent();
  return !!obj && Node.isObjectLiteralExpression(obj) && obj.getProperties().some((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && propertyName(p.getNameNode()) === 'uri');
}

function judge(repo: RepoFacts): Verdict {
  const src = readSources(repo, { pythonPart: true });
  if ('verdict' in src) return src.verdict.reason?.code === 'python-source-only' ? judgePythonUntrusted(repo) : src.verdict;
  const model = serverModel(repo);
  // Tools written one by one, else the tools a template builds at run time (support/source/generated-tools).
  const tools = toolsToJudge(repo);
  if (tools.length === 0 && model.prompts.length === 0 && model.resources.length === 0) return noHandlersFound(repo);
  const sources = parsedSources(repo);
  const tracer = new Tracer(sinkSites(repo), sources);
  // Descriptions a template reads from a catalog fetched (or modules loaded) at run time: whose text they are is not in the source.
  const fromCatalog = tools.filter((t) => isGenerated(t) && t.template.items === 'remote' && keyState(t, 'description', t.descriptionNode) !== 'written').length;
  if (tracer.empty) return fromCatalog ? couldNotJudge('descriptions-from-catalog', { count: fromCatalog }) : present();
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const push = (messageId: string, node: Node, data: Record<string, string>): void => {
    const file = sources.rel(node.getSourceFile());
    const location = locationOf(file, node);
    const key = `${messageId}|${file}:${location.line}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ messageId, data, location });
  };

  for (const t of tools) {
    // A description read from the package's own document or class is the package's text, not third-party
    // content; one read from a catalog is counted in fromCatalog.
    if (isGenerated(t) && (t.template.items !== 'remote' || keyState(t, 'description', t.descriptionNode) !== 'written')) continue;
    // SDK v1 server.tool(name, description, …): the server model reads only a literal description.
    let d = t.descriptionNode;
    if (!d && t.api === 'tool' && Node.isCallExpression(t.node)) {
      const second = t.node.getArguments()[1];
      if (second && second !== t.node.getArguments().at(-1) && !Node.isObjectLiteralExpression(unwrap(second))) d = second;
    }
    if (!d || Node.isStringLiteral(unwrap(d))) continue;
    const o = tracer.origin(d);
    if (o && !marked(d)) push('external-in-description', d, { name: t.name, call: o.call });
  }

  for (const { node } of sitesOf(src.files, K.properties, (n) => Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'instructions', rawPropNamed(new Set(['instructions'])))) {
    if (!Node.isPropertyAssignment(node)) continue;
    const v = node.getInitializerOrThrow();
    if (Node.isStringLiteral(unwrap(v))) continue;
    const o = tracer.origin(v);
    if (o && !marked(v)) push('external-in-instructions', v, { call: o.call });
  }

  for (const p of model.prompts) {
    if (!p.handler) continue;
    for (const prop of textProperties(p.handler)) {
      if (!Node.isPropertyAssignment(prop) || embeddedResource(prop)) continue;
      const v = prop.getInitializerOrThrow();
      const o = tracer.origin(v);
      if (o && !marked(v)) push('external-in-prompt', prop, { name: p.name, call: o.call });
    }
  }

  for (const t of tools) {
    if (!t.handler) continue;
    const body = t.branch ?? t.handler;
    for (const n of findNodes(body, isRawTextProperty)) {
      if (!Node.isPropertyAssignment(n) || propertyName(n.getNameNode()) !== 'text' || embeddedResource(n)) continue;
      const v = n.getInitializerOrThrow();
      if (!instructionLike(literalText(v))) continue;
      const o = tracer.origin(v);
      if (o && !marked(v)) push('external-in-instruction-text', n, { name: t.name, call: o.call });
    }
  }

  findings.sort((a, b) => (a.location!.file < b.location!.file ? -1 : a.location!.file > b.location!.file ? 1 : a.location!.line! - b.location!.line!));
  if (findings.length) return { state: 'non-conforming', findings };
  return fromCatalog ? couldNotJudge('descriptions-from-catalog', { count: fromCatalog }) : present();
}

export default [
  defineDetector({
    ruleId: 'C-16',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'external-in-description': ['name', 'call'],
      'external-in-instructions': ['call'],
      'external-in-prompt': ['name', 'call'],
      'external-in-instruction-text': ['name', 'call'],
    },
    judge({ inputs: { repo } }): Verdict {
      return judge(repo);
    },
  }),
];
