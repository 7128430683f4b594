import { posix } from 'node:path';
import { parse } from 'parse5';
import { Node, Project, type SourceFile } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, initializerOf } from '../../../facts/scope.js';
import { constString } from '../../../facts/server-model.js';
import { parsedSources, positionOf, unwrap } from '../../../facts/ts-source.js';
import { MAX_BUNDLE_BYTES } from './apps-support.js';
import { inlineScripts, ownCalls, type ViewCode } from './app-source.js';

/**
 * A View the server's own code serves whole, with no built bundle in `dist/` (A-2, A-5 static): the HTML document
 * handed to the registration of a `ui://` resource (registerAppResource, registerResource, resource) — a string or
 * template literal without substitutions, a const holding one, or an HTML file the code reads next to itself
 * (`readFileSync(new URL('./view.html', import.meta.url))`, `readFileSync(join(__dirname, 'view.html'))`). A document
 * assembled at run time (a template with substitutions, pieces joined) is not read: its text is not in the code.
 */

export interface EmbeddedView {
  /** The file the HTML text is in (the server's source file for a literal, the HTML file for a file read). */
  file: string;
  /** Line of that file where the HTML text starts. */
  line: number;
  html: string;
}

/** An inline View script longer than this is a bundle (read with a bundle's readings), shorter is hand-written. */
export const EMBEDDED_BUNDLE_CHARS = 100_000;

const REGISTRATIONS = new Set(['registerAppResource', 'registerResource', 'resource']);
const READS = new Set(['readFileSync', 'readFile']);
const isHtmlDocument = (s: string): boolean => /^\s*(?:<!doctype\s+html|<html[\s>])/i.test(s);

/** The literal pieces of a path expression, when every piece is a literal (or __dirname / import.meta.dirname first). */
function pathOf(n: Node, file: string): string | undefined {
  const e = unwrap(n);
  const here = posix.dirname(file);
  const lit = constString(e)?.value;
  if (lit !== undefined) return undefined; // relative to the working directory: unknown
  // new URL('./view.html', import.meta.url)
  if (Node.isNewExpression(e) && e.getExpression().getText() === 'URL') {
    const [a, b] = e.getArguments();
    const rel = a && constString(a)?.value;
    return rel !== undefined && b?.getText() === 'import.meta.url' && rel.startsWith('.') ? posix.normalize(posix.join(here, rel)) : undefined;
  }
  // join(__dirname, 'view.html') / path.resolve(import.meta.dirname, '..', 'ui', 'view.html')
  if (Node.isCallExpression(e)) {
    const callee = e.getExpression();
    const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if (name !== 'join' && name !== 'resolve') return undefined;
    const [first, ...rest] = e.getArguments();
    if (!first || !/^(?:__dirname|import\.meta\.dirname)$/.test(first.getText())) return undefined;
    const parts = rest.map((r) => constString(r)?.value);
    return parts.every((p) => p !== undefined) && parts.length ? posix.normalize(posix.join(here, ...(parts as string[]))) : undefined;
  }
  return undefined;
}

function viewOf(n: Node, file: string, repo: RepoFacts, depth = 0): EmbeddedView | undefined {
  if (depth > 3) return undefined;
  const e = unwrap(Node.isAwaitExpression(n) ? n.getExpression() : n);
  const s = constString(e);
  if (s && isHtmlDocument(s.value) && (Node.isStringLiteral(s.literal) || Node.isNoSubstitutionTemplateLiteral(s.literal))) return { file, line: positionOf(s.literal).line, html: s.value };
  if (Node.isCallExpression(e)) {
    const callee = e.getExpression();
    const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    // readFileSync(path, 'utf8'), or its .toString()
    if (name === 'toString' && Node.isPropertyAccessExpression(callee)) return viewOf(callee.getExpression(), file, repo, depth + 1);
    if (!READS.has(name) || !e.getArguments()[0]) return undefined;
    const rel = pathOf(e.getArguments()[0]!, file);
    if (!rel || !/\.html?$/i.test(rel) || !repo.files.includes(rel)) return undefined;
    const r = repo.source(rel, MAX_BUNDLE_BYTES);
    return r.ok && isHtmlDocument(r.text) ? { file: rel, line: 1, html: r.text } : undefined;
  }
  if (Node.isIdentifier(e)) {
    const d = declarationOf(e);
    if (!d || d.getSourceFile() !== e.getSourceFile()) return undefined;
    const init = initializerOf(d);
    return init && Node.isVariableDeclaration(d.getParent()) ? viewOf(init, file, repo, depth + 1) : undefined;
  }
  return undefined;
}

const memo = new WeakMap<RepoFacts, EmbeddedView[]>();

/** The Views the server's code serves whole as HTML documents (memoised), in file and line order. */
export function embeddedViews(repo: RepoFacts): EmbeddedView[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const out = new Map<string, EmbeddedView>();
  for (const { file, call, name } of ownCalls(sources)) {
    if (!REGISTRATIONS.has(name) || !call.getArguments().some((a) => constString(a)?.value.startsWith('ui://'))) continue;
    call.forEachDescendant((d) => {
      if (!(Node.isStringLiteral(d) || Node.isNoSubstitutionTemplateLiteral(d) || Node.isIdentifier(d) || Node.isCallExpression(d))) return;
      const v = viewOf(d, file, repo);
      if (v) out.set(`${v.file}:${v.line}`, v);
    });
  }
  const views = [...out.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  memo.set(repo, views);
  return views;
}

/** The inline scripts of an embedded View, parsed apart (line: where the script's text starts in `file`). */
export function embeddedScripts(v: EmbeddedView): { sf: SourceFile; line: number }[] {
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
  return inlineScripts(v.html).map((s, i) => ({ sf: project.createSourceFile(`/${v.file}.${v.line}.${i}.js`, s.text, { overwrite: true }), line: v.line + s.line - 1 }));
}

interface HtmlNode {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
  content?: HtmlNode;
}

/** Does the View load a script from a file or another origin (`<script src>`, not a data: URL)? Its code is then not all here. */
export function loadsScripts(v: EmbeddedView): boolean {
  let found = false;
  const walk = (n: HtmlNode): void => {
    if (found) return;
    const src = n.nodeName === 'script' ? n.attrs?.find((a) => a.name === 'src')?.value : undefined;
    if (src !== undefined && !/^\s*data:/i.test(src)) found = true;
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(v.html) as unknown as HtmlNode);
  return found;
}

/**
 * The code of the Views the server's code serves whole (their inline scripts, as View code: a script longer than
 * EMBEDDED_BUNDLE_CHARS read as a bundle), or undefined when there is none, when one loads a script by `src` (its
 * code is then elsewhere), or when a script cannot be parsed.
 */
export function embeddedViewCode(repo: RepoFacts): ViewCode[] | undefined {
  return viewsCode(embeddedViews(repo));
}

/** The code of some View documents (see embeddedViewCode), undefined when there is none or it is not all here. */
function viewsCode(views: EmbeddedView[]): ViewCode[] | undefined {
  if (!views.length || views.some(loadsScripts)) return undefined;
  try {
    return views.flatMap((e) => embeddedScripts(e).map((s) => ({ file: e.file, lineOffset: s.line - 1, sf: s.sf, bundle: e.html.length > EMBEDDED_BUNDLE_CHARS })));
  } catch {
    return undefined;
  }
}

/**
 * The code of a View document as a host was served it (A-7 dynamic: the raw resources/read answer), named `file`:
 * its inline scripts, or undefined when it loads a script by `src` or a script cannot be parsed.
 */
export function servedViewCode(file: string, html: string): ViewCode[] | undefined {
  return viewsCode([{ file, line: 1, html }]);
}
