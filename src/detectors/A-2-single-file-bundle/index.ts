import { parse } from 'parse5';
import { fileNotReadData } from '../../facts/not-read.js';
import { couldNotJudge, defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { MAX_BUNDLE_BYTES, renderedApps, viewAttempts } from '../support/apps/apps-support.js';
import { builtViewFiles } from '../support/apps/view-files.js';
import { ts, type Node as MorphNode } from '../../facts/morph.js';
import { wrapNode } from '../../facts/ts-source.js';
import { lineIn, viewCode } from '../support/apps/app-source.js';
import { embeddedScripts, embeddedViews, GAP, partialViews, sourceOf } from '../support/apps/embedded-view.js';
import { urlOf } from '../support/apps/view-urls.js';
import { rawDeclarationOf } from '../../facts/scope.js';

/**
 * A-2 — the View is one self-contained file.
 *
 * Static: every built HTML bundle of the repository (`dist/`, `build/`, `out/`, `public/`; without any, the HTML files
 * the package keeps elsewhere, `ui/`, `widgets/`…, named after a `ui://` URI of the server's code: view-files) carries its scripts
 * and styles inline: a `<script src>` or a `<link href>` to a stylesheet or a preloaded module is a file the
 * host would have to fetch, and it cannot (the View is served as one resource). The HTML is parsed (parse5),
 * so a tag inside a comment or a string is not a tag. The View's code (its UI source files and the inline scripts of the
 * bundles, app-source.viewCode) must load nothing from another origin at run time either: a network call (`fetch`,
 * `new XMLHttpRequest().open`, `WebSocket`, `EventSource`, `navigator.sendBeacon`) or a dynamic `import()` of an
 * absolute http(s)/ws(s) URL, or such a URL set as an element's `src` or a created `<link>`'s `href` (`script.src = …`,
 * `el.setAttribute('src', …)`), is red — declared in the resource's CSP or not. A URL the reading cannot resolve to
 * a fixed origin (a variable, a parameter) is the dynamic part's.
 *
 * Without a built bundle, the View the server's code serves whole (an HTML document literal handed to the `ui://`
 * resource's registration, or an HTML file it reads next to itself: support/apps/embedded-view.ts) is read the same way.
 * A document the code assembles around pieces the reading cannot know (`<script src="${base}/widgets/run.js">` with
 * the base from the environment, a value computed at run time: embedded-view.partialViews) is read for what is
 * written around them: a script or stylesheet it loads by URL is not inlined, whatever the URL resolves to (red);
 * with none, the unknown pieces leave the View unjudged (`view-partly-built`), never green. A URL that is one unknown
 * piece whole (it may be a `data:` URL) is not counted.
 *
 * Dynamic: the rendered View (host harness, session.apps) tried no request at run time: neither to another
 * file of its own (a multi-file bundle) nor to any other origin, whether the CSP let it through or not — an
 * App that declares domains in its CSP metadata is rendered under that CSP but is still red here.
 */

const FETCHED_LINKS = new Set(['stylesheet', 'modulepreload', 'preload', 'prefetch', 'import']);

interface Node {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
  sourceCodeLocation?: { startLine: number } | null;
}

const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;
const inline = (u: string) => /^(data|blob):/i.test(u.trim()) || u.trim() === '';

/** External references of a parsed HTML document (tag, URL, line), in document order. */
export function externalReferences(html: string): { tag: string; url: string; line: number }[] {
  const out: { tag: string; url: string; line: number }[] = [];
  const walk = (n: Node) => {
    if (n.nodeName === 'script') {
      const src = attr(n, 'src');
      if (src !== undefined && !inline(src)) out.push({ tag: 'script', url: src, line: n.sourceCodeLocation?.startLine ?? 0 });
    } else if (n.nodeName === 'link') {
      const rel = (attr(n, 'rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr(n, 'href');
      if (href !== undefined && !inline(href) && rel.some((r) => FETCHED_LINKS.has(r))) out.push({ tag: `link rel=${rel.join(' ')}`, url: href, line: n.sourceCodeLocation?.startLine ?? 0 });
    }
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(html, { sourceCodeLocationInfo: true }) as unknown as Node);
  return out;
}

const NETWORK_CALLS = new Set(['fetch', 'sendBeacon']);
const NETWORK_CTORS = new Set(['WebSocket', 'EventSource']);

/** Loads from an absolute remote URL in one file of View code: what loads it, the URL, the node. */
export function remoteLoads(sf: ts.SourceFile): { via: string; url: string; node: ts.Node }[] {
  const out: { via: string; url: string; node: ts.Node }[] = [];
  const absolute = (e: ts.Expression | undefined) => {
    const t = urlOf(e);
    return t.kind === 'absolute' ? t.url : undefined;
  };
  const nameOf = (e: ts.Expression): string | undefined => (ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined);
  // `src` loads on any element (script, img, iframe, media); `href` only on a `<link>` (an anchor's href is a link the
  // user may follow, not a load): the element is a variable made by document.createElement("link").
  const loads = (attr: string, el: ts.Expression): boolean => {
    if (attr === 'src') return true;
    const decl = ts.isIdentifier(el) ? rawDeclarationOf(el)?.parent : undefined;
    const init = decl && ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
    if (!init || !ts.isCallExpression(init) || nameOf(init.expression) !== 'createElement') return false;
    const tag = init.arguments[0];
    return !!tag && ts.isStringLiteral(tag) && tag.text.toLowerCase() === 'link';
  };
  // xhr.open(method, url): the first argument is a method, not a URL (window.open(url, target) opens a link).
  const isMethod = (e: ts.Expression | undefined) => !!e && (ts.isStringLiteral(e) ? /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/i.test(e.text) : absolute(e) === undefined);
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const name = nameOf(n.expression);
      let url: string | undefined;
      let via: string | undefined;
      if (n.expression.kind === ts.SyntaxKind.ImportKeyword) [via, url] = ['import()', absolute(n.arguments[0])];
      else if (name && NETWORK_CALLS.has(name)) [via, url] = [name, absolute(n.arguments[0])];
      else if (name === 'open' && n.arguments.length >= 2 && ts.isPropertyAccessExpression(n.expression) && isMethod(n.arguments[0])) [via, url] = ['XMLHttpRequest.open', absolute(n.arguments[1])];
      else if (name === 'setAttribute' && n.arguments.length === 2 && ts.isStringLiteral(n.arguments[0]!) && /^(src|href)$/.test(n.arguments[0].text) && ts.isPropertyAccessExpression(n.expression) && loads(n.arguments[0].text, n.expression.expression)) [via, url] = [`setAttribute('${n.arguments[0].text}')`, absolute(n.arguments[1])];
      if (via && url) out.push({ via, url, node: n });
    } else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && NETWORK_CTORS.has(n.expression.text)) {
      const url = absolute(n.arguments?.[0]);
      if (url) out.push({ via: n.expression.text, url, node: n });
    } else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && /^(src|href)$/.test(n.left.name.text)) {
      const url = loads(n.left.name.text, n.left.expression) ? absolute(n.right) : undefined;
      if (url) out.push({ via: `.${n.left.name.text} =`, url, node: n });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

export default [
  defineDetector({
    ruleId: 'A-2',
    genre: 'static',
    needs: ['repo'],
    messages: { 'bundle-references-file': ['file', 'tag', 'url'], 'view-code-loads-remote': ['file', 'via', 'url'] },
    judge({ inputs: { repo } }) {
      const bundles = builtViewFiles(repo);
      // No built bundle: the View the server's code serves whole (an HTML literal, or a file it reads) is the View.
      const embedded = bundles.length ? [] : embeddedViews(repo);
      const partial = bundles.length ? [] : partialViews(repo);
      if (!bundles.length && !embedded.length && !partial.length) return couldNotJudge('no-built-view');
      const findings: Finding[] = [];
      for (const e of partial) {
        for (const ref of externalReferences(e.html)) {
          // A URL made only of unknown pieces (`${PREFIX}${base64}`): what it loads is not known (a data: URL maybe).
          if (ref.url.split(GAP).join('').trim() === '') continue;
          const at = sourceOf(e, ref.line);
          findings.push({ messageId: 'bundle-references-file', data: { file: at.file, tag: ref.tag, url: ref.url.slice(0, 200) }, location: at, evidence: ref.url.slice(0, 200) });
        }
      }
      for (const file of bundles) {
        const r = repo.source(file, MAX_BUNDLE_BYTES);
        if (!r.ok) return couldNotJudge('file-not-read', fileNotReadData({ file, cause: r.cause, size: r.size, limit: r.limit }));
        for (const ref of externalReferences(r.text)) {
          findings.push({ messageId: 'bundle-references-file', data: { file, tag: ref.tag, url: ref.url.slice(0, 200) }, location: { file, line: ref.line }, evidence: ref.url.slice(0, 200) });
        }
      }
      for (const e of embedded) {
        for (const ref of externalReferences(e.html)) {
          const at = sourceOf(e, ref.line);
          findings.push({ messageId: 'bundle-references-file', data: { file: at.file, tag: ref.tag, url: ref.url.slice(0, 200) }, location: at, evidence: ref.url.slice(0, 200) });
        }
      }
      const view = viewCode(repo);
      if (view.unread.length) return couldNotJudge('file-not-read', fileNotReadData(view.unread[0]!));
      const seen = new Set<string>();
      const code = [...view.code];
      for (const e of embedded) {
        try {
          for (const s of embeddedScripts(e)) code.push({ file: s.file, lineOffset: s.line - 1, sf: s.sf, bundle: true });
        } catch (err) {
          return couldNotJudge('file-not-read', fileNotReadData({ file: e.file, cause: err instanceof RangeError ? 'too-deep' : 'parse-failed' }));
        }
      }
      for (const c of code) {
        let loads: ReturnType<typeof remoteLoads>;
        try {
          loads = remoteLoads(c.sf.compilerNode);
        } catch (e) {
          if (e instanceof RangeError) return couldNotJudge('file-not-read', fileNotReadData({ file: c.file, cause: 'too-deep' }));
          throw e;
        }
        for (const l of loads) {
          const line = lineIn(c, wrapNode(c.sf, l.node) as MorphNode);
          const key = `${c.file}|${line}|${l.url}`;
          if (seen.has(key)) continue;
          seen.add(key);
          findings.push({ messageId: 'view-code-loads-remote', data: { file: c.file, via: l.via, url: l.url.slice(0, 200) }, location: { file: c.file, line }, evidence: l.url.slice(0, 200) });
        }
      }
      if (!findings.length && partial.length) return couldNotJudge('view-partly-built', { file: partial[0]!.file, line: partial[0]!.line });
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
  defineDetector({
    ruleId: 'A-2',
    genre: 'dynamic',
    needs: ['session'],
    messages: { 'view-requested': ['tool', 'origin', 'via'] },
    judge({ inputs: { session } }) {
      const got = renderedApps(session);
      if ('state' in got) return got;
      const findings: Finding[] = [];
      for (const v of got.rendered) {
        for (const a of viewAttempts(v)) findings.push({ messageId: 'view-requested', data: { tool: v.tool, origin: a.origin, via: a.kind ? `${a.via} (${a.kind})` : a.via }, evidence: a.url.slice(0, 300) });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
