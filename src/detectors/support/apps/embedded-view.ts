import { posix } from 'node:path';
import { parse } from 'parse5';
import { Node, Project, SyntaxKind, type CallExpression, type SourceFile } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, functionOf, initializerOf, type FunctionLikeNode } from '../../../facts/scope.js';
import { constString, returnedExpressions } from '../../../facts/server-model.js';
import { parsedSources, positionOf, unwrap, type ParsedSources } from '../../../facts/ts-source.js';
import { MAX_BUNDLE_BYTES } from './apps-support.js';
import { inlineScripts, ownCalls, type ViewCode } from './app-source.js';

/**
 * A View the server's own code serves whole, with no built bundle in `dist/` (A-2, A-5 static): the HTML document
 * handed to the registration of a `ui://` resource (registerAppResource, registerResource, resource) — a string or
 * template literal without substitutions, a const holding one, or an HTML file the code reads next to itself
 * (`readFileSync(new URL('./view.html', import.meta.url))`, `readFileSync(join(__dirname, 'view.html'))`, or through a
 * const holding the folder), or a document assembled at run time from pieces that are all in the package (a template
 * around the script and style files the code reads, a `+` chain, a helper function of no parameters returning it:
 * builtText), with where each of its lines is written (segments). A low-level resources/read handler, or a
 * registration, whose contents carry the App's mimeType serves a View too. A piece the reading cannot follow (a
 * document fetched from a URL, a parameter) leaves the View unread.
 */

export interface EmbeddedView {
  /** The file the HTML text is in (the server's source file for a literal, the HTML file for a file read). */
  file: string;
  /** Line of that file where the HTML text starts. */
  line: number;
  html: string;
  /** A document assembled at run time from pieces (a template around files read): from which line of the document on (1-based) the text comes from which file and line. */
  segments?: { from: number; file: string; line: number }[];
}

/** An inline View script longer than this is a bundle (read with a bundle's readings), shorter is hand-written. */
export const EMBEDDED_BUNDLE_CHARS = 100_000;

const REGISTRATIONS = new Set(['registerAppResource', 'registerResource', 'resource']);
const READS = new Set(['readFileSync', 'readFile']);
const isHtmlDocument = (s: string): boolean => /^\s*(?:<!doctype\s+html|<html[\s>])/i.test(s);

/** The literal pieces of a path expression, when every piece is a literal (or __dirname / import.meta.dirname first, or a const holding such a path). */
function pathOf(n: Node, file: string, depth = 0): string | undefined {
  if (depth > 3) return undefined;
  const e = unwrap(n);
  const here = posix.dirname(file);
  // A const holding a folder or file path of the package (const WEB_DIR = join(__dirname, '..', 'web')).
  if (Node.isIdentifier(e) && !/^(?:__dirname|__filename)$/.test(e.getText())) {
    const d = declarationOf(e);
    const init = d && d.getSourceFile() === e.getSourceFile() && Node.isVariableDeclaration(d.getParent()) ? initializerOf(d) : undefined;
    return init ? pathOf(init, file, depth + 1) : undefined;
  }
  const lit = constString(e)?.value;
  if (lit !== undefined) return undefined; // relative to the working directory: unknown
  // new URL('./view.html', import.meta.url)
  if (Node.isNewExpression(e) && e.getExpression().getText() === 'URL') {
    const [a, b] = e.getArguments();
    const rel = a && constString(a)?.value;
    return rel !== undefined && b?.getText() === 'import.meta.url' && rel.startsWith('.') ? posix.normalize(posix.join(here, rel)) : undefined;
  }
  // join(__dirname, 'view.html') / path.resolve(import.meta.dirname, '..', 'ui', 'view.html') / join(WEB_DIR, 'widget.js')
  if (Node.isCallExpression(e)) {
    const callee = e.getExpression();
    const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if (name !== 'join' && name !== 'resolve') return undefined;
    const [first, ...rest] = e.getArguments();
    if (!first) return undefined;
    const base = /^(?:__dirname|import\.meta\.dirname)$/.test(first.getText()) ? here : pathOf(first, file, depth + 1);
    if (base === undefined) return undefined;
    const parts = rest.map((r) => constString(r)?.value);
    return parts.every((p) => p !== undefined) && (parts.length || base !== here) ? posix.normalize(posix.join(base, ...(parts as string[]))) : undefined;
  }
  return undefined;
}

/** A text the code builds, with where each of its pieces comes from (char offset in the text, file, line there). */
interface Built {
  text: string;
  pieces: { at: number; file: string; line: number }[];
}

const joinBuilt = (parts: Built[]): Built => {
  let text = '';
  const pieces: Built['pieces'] = [];
  for (const p of parts) {
    for (const x of p.pieces) pieces.push({ ...x, at: x.at + text.length });
    text += p.text;
  }
  return { text, pieces };
};

/**
 * The text an expression of the server's code evaluates to, when every piece of it is in the package: a string or
 * template literal, a const holding one, a template or a `+` chain of such pieces (a View assembled at run time:
 * `<script>${js}</script>` around a built script), a file the code reads by a path of its own folder, or the one
 * result of a local function without parameters (`text: widgetHtml()`). Undefined when a piece is not known.
 */
function builtText(n: Node, file: string, repo: RepoFacts, sources: ParsedSources, depth = 0): Built | undefined {
  if (depth > 5) return undefined;
  const e = unwrap(Node.isAwaitExpression(n) ? n.getExpression() : n);
  const here = (node: Node) => ({ file: sources.rel(node.getSourceFile()), line: positionOf(node).line });
  if (Node.isStringLiteral(e) || Node.isNoSubstitutionTemplateLiteral(e)) return { text: e.getLiteralText(), pieces: [{ at: 0, ...here(e) }] };
  if (Node.isTemplateExpression(e)) {
    const parts: Built[] = [{ text: e.getHead().getLiteralText(), pieces: [{ at: 0, ...here(e) }] }];
    for (const span of e.getTemplateSpans()) {
      const v = builtText(span.getExpression(), file, repo, sources, depth + 1);
      if (!v) return undefined;
      parts.push(v, { text: span.getLiteral().getLiteralText(), pieces: [{ at: 0, ...here(span.getLiteral()) }] });
    }
    const out = joinBuilt(parts);
    return out.text.length <= MAX_BUNDLE_BYTES ? out : undefined;
  }
  if (Node.isBinaryExpression(e) && e.getOperatorToken().getText() === '+') {
    const l = builtText(e.getLeft(), file, repo, sources, depth + 1);
    const r = l && builtText(e.getRight(), file, repo, sources, depth + 1);
    return l && r && l.text.length + r.text.length <= MAX_BUNDLE_BYTES ? joinBuilt([l, r]) : undefined;
  }
  if (Node.isIdentifier(e)) {
    const d = declarationOf(e);
    if (!d || d.getSourceFile() !== e.getSourceFile()) return undefined;
    const init = Node.isVariableDeclaration(d.getParent()) ? initializerOf(d) : undefined;
    return init ? builtText(init, file, repo, sources, depth + 1) : undefined;
  }
  if (Node.isCallExpression(e)) {
    const callee = e.getExpression();
    const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    // readFileSync(path, 'utf8'), or its .toString()
    if (name === 'toString' && Node.isPropertyAccessExpression(callee) && !e.getArguments().length) return builtText(callee.getExpression(), file, repo, sources, depth + 1);
    if (READS.has(name)) {
      const arg = e.getArguments()[0];
      const rel = arg && pathOf(arg, file);
      if (!rel || !repo.files.includes(rel)) return undefined;
      const r = repo.source(rel, MAX_BUNDLE_BYTES);
      return r.ok ? { text: r.text, pieces: [{ at: 0, file: rel, line: 1 }] } : undefined;
    }
    // A local function of no parameters returning one text (function widgetHtml() { return `<!doctype html>…`; }).
    if (e.getArguments().length || !Node.isIdentifier(callee)) return undefined;
    let fn: FunctionLikeNode | undefined;
    try {
      fn = functionOf(callee, sources);
    } catch {
      fn = undefined;
    }
    if (!fn || fn.getParameters().length) return undefined;
    const returned = returnedExpressions(fn);
    return returned.length === 1 ? builtText(returned[0]!, file, repo, sources, depth + 1) : undefined;
  }
  return undefined;
}

/** The line of the text where a char offset falls (1-based). */
const lineAt = (text: string, at: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

function viewOf(n: Node, file: string, repo: RepoFacts, sources: ParsedSources): EmbeddedView | undefined {
  const b = builtText(n, file, repo, sources);
  if (!b || !isHtmlDocument(b.text)) return undefined;
  const first = b.pieces[0]!;
  // One piece: the document as written in one place. Several: where each line of the assembled document comes from.
  if (b.pieces.length === 1) return { file: first.file, line: first.line, html: b.text };
  const segments = b.pieces.filter((p, i) => i === 0 || p.at < b.text.length).map((p) => ({ from: lineAt(b.text, p.at), file: p.file, line: p.line }));
  return { file: first.file, line: first.line, html: b.text, segments };
}

/** Where a line of an embedded View's document is written: the file and the line there. */
export function sourceOf(v: EmbeddedView, htmlLine: number): { file: string; line: number } {
  if (!v.segments) return { file: v.file, line: v.line + htmlLine - 1 };
  let seg = v.segments[0]!;
  for (const s of v.segments) if (s.from <= htmlLine) seg = s;
  return { file: seg.file, line: seg.line + htmlLine - seg.from };
}

/** A resource's contents typed as an App's View (RESOURCE_MIME_TYPE, or `text/html;profile=mcp-app` written out). */
const APP_MIME = /^(?:[\w$.]*RESOURCE_MIME_TYPE|(["'`])text\/html;\s*profile=mcp-app\1)$/;

/**
 * Does a call serve a View: the registration of a `ui://` resource (registerAppResource, registerResource, resource),
 * or a registration or low-level resources/read handler (setRequestHandler(ReadResourceRequestSchema, …)) whose
 * contents say they are an App's View by their mimeType?
 */
function servesView(call: CallExpression, name: string): boolean {
  const args = call.getArguments();
  const reads = name === 'setRequestHandler' && !!args[0] && /^(?:[\w$.]*ReadResourceRequestSchema|(["'`])resources\/read\1)$/.test(args[0].getText());
  if (!REGISTRATIONS.has(name) && !reads) return false;
  if (!reads && args.some((a) => constString(a)?.value.startsWith('ui://'))) return true;
  return call.getDescendantsOfKind(SyntaxKind.PropertyAssignment).some((p) => p.getName() === 'mimeType' && APP_MIME.test(p.getInitializer()?.getText() ?? ''));
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
    if (!servesView(call, name)) continue;
    call.forEachDescendant((d, traversal) => {
      if (!(Node.isStringLiteral(d) || Node.isNoSubstitutionTemplateLiteral(d) || Node.isTemplateExpression(d) || Node.isIdentifier(d) || Node.isCallExpression(d))) return;
      const v = viewOf(d, file, repo, sources);
      if (!v) return;
      out.set(`${v.file}:${v.line}`, v);
      traversal.skip(); // its pieces are not Views of their own
    });
  }
  const views = [...out.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  memo.set(repo, views);
  return views;
}

/** The inline scripts of an embedded View, parsed apart (file, line: where the script's text starts, in the file it is written in). */
export function embeddedScripts(v: EmbeddedView): { sf: SourceFile; file: string; line: number }[] {
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
  return inlineScripts(v.html).map((s, i) => ({ sf: project.createSourceFile(`/${v.file}.${v.line}.${i}.js`, s.text, { overwrite: true }), ...sourceOf(v, s.line) }));
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
    return views.flatMap((e) => embeddedScripts(e).map((s) => ({ file: s.file, lineOffset: s.line - 1, sf: s.sf, bundle: e.html.length > EMBEDDED_BUNDLE_CHARS })));
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
