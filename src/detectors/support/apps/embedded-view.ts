import { posix } from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, unzipSync } from 'node:zlib';
import { parse } from 'parse5';
import { Node, Project, SyntaxKind, ts, type CallExpression, type ForOfStatement, type Identifier, type SourceFile, type TemplateExpression } from '../../../facts/morph.js';
import { noteSourceRead } from '../../../facts/not-read.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { declarationOf, functionOf, importOf, initializerOf, rawDeclarationOf, valueOfDeclaration, type FunctionLikeNode } from '../../../facts/scope.js';
import { constString, returnedExpressions } from '../../../facts/server-model.js';
import { namedFilter, parsedSources, positionOf, rawOfKinds, unwrap, wrapNode, type ParsedSources } from '../../../facts/ts-source.js';
import { MAX_BUNDLE_BYTES } from './apps-support.js';
import { inlineScripts, ownCalls, type ViewCode } from './app-source.js';

/**
 * A View the server's own code serves whole, with no built bundle in `dist/` (A-2, A-5 static): the HTML document
 * handed to the registration of a `ui://` resource (registerAppResource, registerResource, resource) — a string or
 * template literal without substitutions, a const holding one, or an HTML file the code reads next to itself
 * (`readFileSync(new URL('./view.html', import.meta.url))`, `readFileSync(join(__dirname, 'view.html'))`, or through a
 * const holding the folder), or a document assembled at run time from pieces that are all in the package (a template
 * around the script and style files the code reads, a `+` chain, a helper function of no parameters returning it:
 * builtText), with where each of its lines is written (segments). The document may be a const another module of the
 * package exports (`import { VIEW_HTML } from './view-html.js'`, or required from it), or kept encoded in the code and
 * decoded as the server decodes it (base64 through Buffer.from / atob / TextDecoder, gzip, deflate or brotli through
 * node:zlib, or a base64 `blob` of the contents): its lines then point at the blob. A View of another package (a
 * dependency's file) or a blob that does not decode is not read. A low-level resources/read handler, or a
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
  /**
   * Some pieces of the document are not in the package (a URL from the environment, a value computed at run time):
   * each stands in `html` as GAP. What is written around them is read (a `<script src="${…}/view.js">` is a script the
   * document does not inline); the size of the whole and the code it runs are not known (partialViews).
   */
  partial?: true;
}

/** Stands in a partly built View's document for a piece the reading could not know. */
export const GAP = '${…}';

/** An inline View script longer than this is a bundle (read with a bundle's readings), shorter is hand-written. */
export const EMBEDDED_BUNDLE_CHARS = 100_000;

const REGISTRATIONS = new Set(['registerAppResource', 'registerResource', 'resource']);
const READS = new Set(['readFileSync', 'readFile']);
const isHtmlDocument = (s: string): boolean => /^\s*(?:<!doctype\s+html|<html[\s>])/i.test(s);

/**
 * A value bound while the reading follows a View built at run time, by the text of the expression it stands for: a
 * parameter of a helper function given a literal at its call (`widgetHtml('status')`), or a value tried for a piece of
 * a file path the code computes (`join(WEB_DIR, `${name}.js`)` for each `web/*.js` of the package).
 */
type Env = ReadonlyMap<string, string>;
/** The first piece of a file path the reading could not resolve, and the values the package's files allow for it. */
interface Hole {
  /** Each way to fill it: the bindings to add to the reading's Env. */
  values: Record<string, string>[];
}
interface Reading {
  env: Env;
  hole?: Hole;
  /** Read a document some of whose pieces are unknown: a template span or a `+` operand not known becomes a GAP. */
  gaps?: boolean;
  /** Set when a GAP was put in. */
  gapped?: boolean;
}
/** Marks an unresolved piece of a path (never in a file name). */
const HOLE = '\u0000';
/** More files than this for one piece of a path: the reading does not guess which are Views. */
const MAX_HOLE_VALUES = 8;
/** At most this many Views read from one registration (each value of each unresolved piece). */
const MAX_VARIANTS = 16;
/** At most this many readings of one expression with values tried. */
const MAX_TRIES = 64;

const keyOf = (n: Node): string => unwrap(n).getText();

/**
 * One piece of a path (a folder or file name): a literal, a value bound in the reading, a template or `+` chain of
 * such pieces; a name or a property the reading cannot resolve (a parameter, a loop variable's field) is a hole.
 */
function pathPiece(n: Node, env: Env, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const e = unwrap(n);
  const bound = env.get(keyOf(e));
  if (bound !== undefined) return bound;
  const lit = constString(e)?.value;
  if (lit !== undefined) return lit;
  if (Node.isTemplateExpression(e)) {
    let out = e.getHead().getLiteralText();
    for (const span of e.getTemplateSpans()) {
      const v = pathPiece(span.getExpression(), env, depth + 1);
      if (v === undefined) return undefined;
      out += v + span.getLiteral().getLiteralText();
    }
    return out;
  }
  if (Node.isBinaryExpression(e) && e.getOperatorToken().getText() === '+') {
    const l = pathPiece(e.getLeft(), env, depth + 1);
    const r = l === undefined ? undefined : pathPiece(e.getRight(), env, depth + 1);
    return l === undefined || r === undefined ? undefined : l + r;
  }
  if ((Node.isIdentifier(e) || Node.isPropertyAccessExpression(e)) && e.getText().length <= 80 && !e.getText().includes(HOLE)) return `${HOLE}${e.getText()}${HOLE}`;
  return undefined;
}

const calleeName = (e: Node): string => {
  const callee = Node.isCallExpression(e) ? e.getExpression() : undefined;
  return !callee ? '' : Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
};

/**
 * The package path an expression of the server's code names (relative to the package), when it is anchored on the
 * code's own place: `__dirname`, `import.meta.dirname`, `dirname(fileURLToPath(import.meta.url))`,
 * `new URL('./view.html', import.meta.url)`, a `join` / `resolve` of such a folder and pieces (pathPiece), or a const
 * holding such a path. A piece it cannot resolve is left marked (HOLE) for the caller to try the package's files.
 */
function pathOf(n: Node, file: string, env: Env, depth = 0): string | undefined {
  if (depth > 8) return undefined;
  const e = unwrap(n);
  const here = posix.dirname(file);
  const text = e.getText();
  if (/^(?:__dirname|import\.meta\.dirname)$/.test(text)) return here;
  if (/^(?:__filename|import\.meta\.filename|import\.meta\.url)$/.test(text)) return file;
  // A const holding a folder or file path of the package (const WEB_DIR = join(__dirname, '..', 'web')).
  if (Node.isIdentifier(e)) {
    const d = declarationOf(e);
    const init = d && d.getSourceFile() === e.getSourceFile() && Node.isVariableDeclaration(d.getParent()) ? initializerOf(d) : undefined;
    return init ? pathOf(init, file, env, depth + 1) : undefined;
  }
  // new URL('./view.html', import.meta.url) / new URL(`../ui/${name}.html`, import.meta.url)
  if (Node.isNewExpression(e) && e.getExpression().getText() === 'URL') {
    const [a, b] = e.getArguments();
    const rel = a && pathPiece(a, env);
    return rel !== undefined && b?.getText() === 'import.meta.url' && rel.startsWith('.') ? posix.normalize(posix.join(here, rel)) : undefined;
  }
  if (!Node.isCallExpression(e)) return undefined;
  const name = calleeName(e);
  const args = e.getArguments();
  // fileURLToPath(new URL(…, import.meta.url)), dirname(fileURLToPath(import.meta.url))
  if (name === 'fileURLToPath' && args.length === 1) return pathOf(args[0]!, file, env, depth + 1);
  if (name === 'dirname' && args.length === 1) {
    const p = pathOf(args[0]!, file, env, depth + 1);
    return p === undefined ? undefined : posix.dirname(p);
  }
  // join(__dirname, 'view.html') / path.resolve(import.meta.dirname, '..', 'ui', 'view.html') / join(WEB_DIR, `${name}.js`)
  if (name !== 'join' && name !== 'resolve') return undefined;
  const [first, ...rest] = args;
  if (!first) return undefined;
  const base = pathOf(first, file, env, depth + 1);
  if (base === undefined) return undefined;
  const parts = rest.map((r) => pathPiece(r, env));
  return parts.every((p) => p !== undefined) && (parts.length || base !== here) ? posix.normalize(posix.join(base, ...(parts as string[]))) : undefined;
}

/** Does a file of the package look like server code (it imports Node's modules or the MCP SDK), not a View's asset? */
const SERVER_CODE = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](?:node:|fs["'/]|path["']|@modelcontextprotocol\/(?:sdk|server))/;

/**
 * The values a marked piece of a path can take in the package: the files the path's pattern matches (the first
 * unresolved piece is any name without a slash), leaving out node_modules and server code. More than
 * MAX_HOLE_VALUES, or none: no values (the View stays unread).
 */
function holeOf(rel: string, repo: RepoFacts): Hole {
  const parts = rel.split(HOLE);
  const key = parts[1]!;
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let pattern = '^';
  for (let i = 0; i < parts.length; i++) pattern += i % 2 === 0 ? esc(parts[i]!) : i === 1 ? '([^/]+)' : '[^/]+';
  const re = new RegExp(`${pattern}$`);
  const values = new Set<string>();
  for (const f of repo.files) {
    if (f.startsWith('node_modules/') || f.includes('/node_modules/')) continue;
    const m = re.exec(f);
    if (!m) continue;
    if (/\.[cm]?js$/.test(f)) {
      const r = repo.source(f, MAX_BUNDLE_BYTES);
      if (!r.ok || SERVER_CODE.test(r.text)) continue;
    }
    values.add(m[1]!);
    if (values.size > MAX_HOLE_VALUES) return { values: [] };
  }
  return { values: [...values].sort().map((v) => ({ [key]: v })) };
}

/**
 * The table a loop variable goes over, when it is a literal of the same file: `for (const view of VIEWS)`,
 * `VIEWS.forEach((view) => …)` / `.map`, over a const array literal, `Object.values(TABLE)` / `Object.keys(TABLE)` over
 * a const object literal. Each element gives the bindings of the variable's string fields (`view.name`), or of the
 * variable itself for a string. Undefined when the variable is no such loop's.
 */
function loopHole(id: Node): Hole | undefined {
  if (!Node.isIdentifier(id)) return undefined;
  const d = declarationOf(id);
  if (!d || d.getSourceFile() !== id.getSourceFile()) return undefined;
  const decl = d.getParent();
  let over: Node | undefined;
  if (Node.isVariableDeclaration(decl) && decl.getNameNode() === d && Node.isForOfStatement(decl.getParent()?.getParent())) over = (decl.getParent()!.getParent() as ForOfStatement).getExpression();
  else if (Node.isParameterDeclaration(decl) && decl.getNameNode() === d) {
    const fn = decl.getParent();
    const call = fn?.getParent();
    if (fn && Node.isCallExpression(call) && call.getArguments()[0] === fn && (fn as FunctionLikeNode).getParameters()[0] === decl && /^(?:forEach|map|flatMap)$/.test(calleeName(call))) {
      const callee = call.getExpression();
      over = Node.isPropertyAccessExpression(callee) ? callee.getExpression() : undefined;
    }
  }
  if (!over) return undefined;
  const name = id.getText();
  const constInit = (n: Node | undefined): Node | undefined => {
    const e = n && unwrap(n);
    if (!e || !Node.isIdentifier(e)) return e;
    const dd = declarationOf(e);
    return dd && dd.getSourceFile() === e.getSourceFile() && Node.isVariableDeclaration(dd.getParent()) ? unwrap(initializerOf(dd) ?? e) : undefined;
  };
  let elements: Node[] | undefined;
  const o = unwrap(over);
  if (Node.isCallExpression(o) && /^Object\.(?:values|keys)$/.test(o.getExpression().getText()) && o.getArguments().length === 1) {
    const table = constInit(o.getArguments()[0]);
    if (!table || !Node.isObjectLiteralExpression(table)) return undefined;
    const props = table.getProperties().filter(Node.isPropertyAssignment);
    const keys = o.getExpression().getText().endsWith('keys');
    if (keys) return { values: props.slice(0, MAX_VARIANTS).map((p) => ({ [name]: p.getName().replace(/^["'`]|["'`]$/g, '') })) };
    elements = props.map((p) => p.getInitializerOrThrow());
  } else {
    const arr = constInit(o);
    if (!arr || !Node.isArrayLiteralExpression(arr)) return undefined;
    elements = arr.getElements();
  }
  const values: Record<string, string>[] = [];
  for (const el of elements.slice(0, MAX_VARIANTS)) {
    const e = unwrap(el);
    const lit = constString(e)?.value;
    if (lit !== undefined) values.push({ [name]: lit });
    else if (Node.isObjectLiteralExpression(e)) {
      const b: Record<string, string> = {};
      for (const p of e.getProperties()) {
        if (!Node.isPropertyAssignment(p)) continue;
        const v = constString(p.getInitializerOrThrow())?.value;
        if (v !== undefined) b[`${name}.${p.getName()}`] = v;
      }
      values.push(b);
    } else return undefined;
  }
  return values.length ? { values } : undefined;
}

/** The loop variable an expression reads (`view` of `view.name`), when the reading has no value for it: its table's elements. */
function loopHoleOf(e: Node, env: Env): Hole | undefined {
  const x = unwrap(e);
  if (env.has(x.getText())) return undefined;
  const root = Node.isPropertyAccessExpression(x) ? unwrap(x.getExpression()) : x;
  return loopHole(root);
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
function builtText(n: Node, file: string, repo: RepoFacts, sources: ParsedSources, rd: Reading, depth = 0): Built | undefined {
  if (depth > 5) return undefined;
  const e = unwrap(Node.isAwaitExpression(n) ? n.getExpression() : n);
  const here = (node: Node) => ({ file: sources.rel(node.getSourceFile()), line: positionOf(node).line });
  if (Node.isStringLiteral(e) || Node.isNoSubstitutionTemplateLiteral(e)) return { text: e.getLiteralText(), pieces: [{ at: 0, ...here(e) }] };
  if (Node.isTemplateExpression(e)) {
    const parts: Built[] = [{ text: e.getHead().getLiteralText(), pieces: [{ at: 0, ...here(e) }] }];
    for (const span of e.getTemplateSpans()) {
      const v = builtText(span.getExpression(), file, repo, sources, rd, depth + 1) ?? gapAt(span.getExpression(), rd, here);
      if (!v) return undefined;
      parts.push(v, { text: span.getLiteral().getLiteralText(), pieces: [{ at: 0, ...here(span.getLiteral()) }] });
    }
    const out = joinBuilt(parts);
    return out.text.length <= MAX_BUNDLE_BYTES ? out : undefined;
  }
  // A cache filled on first use (`html ??= build()`, `html ||= build()`): what it is filled with.
  if (Node.isBinaryExpression(e) && ['??=', '||='].includes(e.getOperatorToken().getText())) return builtText(e.getRight(), file, repo, sources, rd, depth + 1);
  if (Node.isBinaryExpression(e) && e.getOperatorToken().getText() === '+') {
    const l = builtText(e.getLeft(), file, repo, sources, rd, depth + 1) ?? gapAt(e.getLeft(), rd, here);
    const r = l && (builtText(e.getRight(), file, repo, sources, rd, depth + 1) ?? gapAt(e.getRight(), rd, here));
    return l && r && l.text.length + r.text.length <= MAX_BUNDLE_BYTES ? joinBuilt([l, r]) : undefined;
  }
  if (Node.isPropertyAccessExpression(e)) {
    // A field of a loop variable over a literal table (`view.title` in `for (const view of VIEWS)`), for the element being tried.
    const bound = rd.env.get(e.getText());
    if (bound !== undefined) return { text: bound, pieces: [{ at: 0, ...here(e) }] };
    const loop = loopHoleOf(e, rd.env);
    if (loop) rd.hole ??= loop;
    return undefined;
  }
  if (Node.isIdentifier(e)) {
    const d = declarationOf(e);
    if (!d || d.getSourceFile() !== e.getSourceFile()) return undefined;
    // A document another module of the package exports (`import { VIEW_HTML } from './view-html.js'`, or a const
    // required from it): what that module's export holds, read there.
    if (importOf(d) || Node.isBindingElement(d.getParent()) || (Node.isVariableDeclaration(d.getParent()) && requiresModule(initializerOf(d)))) {
      let v: Node | undefined;
      try {
        v = valueOfDeclaration(d, sources);
      } catch {
        v = undefined;
      }
      if (!v || v === e || Node.isSourceFile(v) || Node.isFunctionDeclaration(v) || Node.isClassDeclaration(v)) return undefined;
      return builtText(v, sources.rel(v.getSourceFile()), repo, sources, { env: new Map(), gaps: rd.gaps }, depth + 1);
    }
    // A helper's parameter given a literal at the call being followed (widgetHtml('status')), or a loop variable.
    const bound = Node.isParameterDeclaration(d.getParent()) || !Node.isVariableDeclaration(d.getParent()) || Node.isForOfStatement(d.getParent()?.getParent()?.getParent()) ? rd.env.get(e.getText()) : undefined;
    if (bound !== undefined) return { text: bound, pieces: [{ at: 0, ...here(e) }] };
    const loop = loopHoleOf(e, rd.env);
    if (loop) {
      rd.hole ??= loop;
      return undefined;
    }
    const init = Node.isVariableDeclaration(d.getParent()) ? initializerOf(d) : undefined;
    if (init && !isNothing(init)) return builtText(init, file, repo, sources, rd, depth + 1);
    // A cache the code fills once (`let html = null; … html = `<!doctype html>…${readFileSync(…)}`;`): its one assignment.
    const set = Node.isVariableDeclaration(d.getParent()) ? onlyAssignment(d.getSourceFile(), e.getText()) : undefined;
    if (!set || declarationOf(wrapNode(d.getSourceFile(), set.left) as Identifier)?.compilerNode !== d.compilerNode) return undefined;
    return builtText(wrapNode(d.getSourceFile(), set.right), file, repo, sources, rd, depth + 1);
  }
  if (Node.isCallExpression(e)) {
    const callee = e.getExpression();
    const name = calleeName(e);
    // A document the code keeps encoded (base64, gzip): Buffer.from(B64, 'base64').toString('utf8'), gunzipSync(…).toString(),
    // new TextDecoder().decode(…), atob(B64): decoded as the server decodes it.
    if (name === 'toString' && Node.isPropertyAccessExpression(callee) && e.getArguments().length <= 1 && isUtf8(e.getArguments()[0])) {
      const bytes = bytesOf(callee.getExpression(), file, repo, sources, rd, depth + 1);
      if (bytes) return bytes.value.length <= MAX_BUNDLE_BYTES ? decoded(bytes.value.toString('utf8'), bytes.pieces) : undefined;
    }
    if (name === 'decode' && Node.isPropertyAccessExpression(callee) && Node.isNewExpression(unwrap(callee.getExpression())) && e.getArguments().length === 1) {
      const ctor = unwrap(callee.getExpression()).asKind(SyntaxKind.NewExpression)!;
      if (ctor.getExpression().getText() !== 'TextDecoder' || !ctor.getArguments().every((a) => isUtf8(a))) return undefined;
      const bytes = bytesOf(e.getArguments()[0]!, file, repo, sources, rd, depth + 1);
      return bytes && bytes.value.length <= MAX_BUNDLE_BYTES ? decoded(bytes.value.toString('utf8'), bytes.pieces) : undefined;
    }
    if (name === 'atob' && e.getArguments().length === 1) {
      const b = builtText(e.getArguments()[0]!, file, repo, sources, rd, depth + 1);
      const value = b && base64Bytes(b.text);
      return value && value.length <= MAX_BUNDLE_BYTES ? decoded(value.toString('latin1'), b.pieces) : undefined;
    }
    // readFileSync(path, 'utf8'), or its .toString()
    if (name === 'toString' && Node.isPropertyAccessExpression(callee) && !e.getArguments().length) return builtText(callee.getExpression(), file, repo, sources, rd, depth + 1);
    if (READS.has(name)) {
      const arg = e.getArguments()[0];
      const rel = arg && pathOf(arg, sources.rel(e.getSourceFile()), rd.env);
      if (!rel) return undefined;
      // A piece of the path the reading cannot resolve (a parameter, a loop variable): the caller tries the package's files for it.
      if (rel.includes(HOLE)) {
        rd.hole ??= holeOf(rel, repo);
        return undefined;
      }
      if (!repo.files.includes(rel)) return undefined;
      const r = repo.source(rel, MAX_BUNDLE_BYTES);
      return r.ok ? { text: r.text, pieces: [{ at: 0, file: rel, line: 1 }] } : undefined;
    }
    // A function of the repository returning one text (function widgetHtml() { return `<!doctype html>…`; }), its
    // parameters bound to the literals of the call (widgetHtml('status')), or left to the file tried for the piece of
    // a path they make (widgetHtml(widget.file) in a loop over the Views).
    if (!Node.isIdentifier(callee) && !Node.isPropertyAccessExpression(callee)) return undefined;
    let fn: FunctionLikeNode | undefined;
    try {
      fn = functionOf(callee, sources);
    } catch {
      fn = undefined;
    }
    if (!fn) return undefined;
    const params = fn.getParameters();
    const args = e.getArguments();
    if (args.length > params.length) return undefined;
    const env = new Map(rd.env);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!.getNameNode();
      const a = args[i];
      if (!Node.isIdentifier(p) || !a) continue;
      const lit = constString(a)?.value ?? rd.env.get(keyOf(a));
      if (lit !== undefined) env.set(p.getText(), lit);
      else {
        // widgetHtml(view.name) in a loop over a literal table: each element is tried (viewsOf).
        const loop = loopHoleOf(a, rd.env);
        if (loop) rd.hole ??= loop;
      }
    }
    // Several returns of the same expression (`if (cached) return cached; cached = …; return cached;`) are one; a name
    // is the same only when it is the same variable (`return html` in two branches, each its own `const html`, are two).
    const sameAs = (r: Node): string => {
      const x = unwrap(r);
      const d = Node.isIdentifier(x) ? declarationOf(x) : undefined;
      return d ? `${x.getText()}@${d.getSourceFile().getFilePath()}:${d.getStart()}` : x.getText();
    };
    const returned = returnedExpressions(fn).filter((r, i, all) => all.findIndex((x) => sameAs(x) === sameAs(r)) === i);
    if (returned.length !== 1) return undefined;
    const inner: Reading = { env, gaps: rd.gaps };
    const out = builtText(returned[0]!, file, repo, sources, inner, depth + 1);
    if (!out && inner.hole && !rd.hole) rd.hole = inner.hole;
    if (out && inner.gapped) rd.gapped = true;
    return out;
  }
  return undefined;
}

/** `require('./m.js')` (or `require('./m.js').X`): a const bound to what another module of the package exports. */
function requiresModule(init: Node | undefined): boolean {
  const x = init && unwrap(init);
  const call = x && Node.isPropertyAccessExpression(x) ? unwrap(x.getExpression()) : x;
  return !!call && Node.isCallExpression(call) && call.getExpression().getText() === 'require' && Node.isStringLiteral(call.getArguments()[0] ?? call) && /^\.\.?\//.test((call.getArguments()[0] as Node).getText().slice(1));
}

/**
 * A document decoded from a blob written on one line of the code: each of its lines is told to come from that line
 * (a finding in it points at the blob, not past it), up to MAX_DECODED_LINES lines.
 */
const MAX_DECODED_LINES = 5000;
function decoded(text: string, pieces: Built['pieces']): Built {
  const at = pieces[0]!;
  const out: Built['pieces'] = [{ ...at, at: 0 }];
  for (let i = text.indexOf('\n'); i >= 0 && out.length < MAX_DECODED_LINES; i = text.indexOf('\n', i + 1)) out.push({ file: at.file, line: at.line, at: i + 1 });
  return { text, pieces: out };
}

/** No encoding argument, or one naming UTF-8 (what `toString()` and `new TextDecoder()` default to). */
const isUtf8 = (a: Node | undefined): boolean => !a || /^utf-?8$/i.test(constString(a)?.value ?? '');

/** The bytes of a base64 text, when it is one whole (padding allowed, whitespace ignored); undefined otherwise. */
function base64Bytes(text: string): Buffer | undefined {
  const t = text.replace(/\s+/g, '');
  if (!t || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return undefined;
  return Buffer.from(t, /[-_]/.test(t) ? 'base64url' : 'base64');
}

const INFLATE: Record<string, (b: Buffer, o: { maxOutputLength: number }) => Buffer> = { gunzipSync, inflateSync, inflateRawSync, unzipSync, brotliDecompressSync };

/**
 * The bytes an expression of the server's code evaluates to, when it decodes a text of the package the reading knows:
 * `Buffer.from(text, 'base64' | 'base64url' | 'hex' | 'utf8')` and the zlib decompressions of such bytes (gunzipSync,
 * inflateSync, brotliDecompressSync…), bounded by MAX_BUNDLE_BYTES. Undefined for anything else.
 */
function bytesOf(n: Node, file: string, repo: RepoFacts, sources: ParsedSources, rd: Reading, depth: number, layers = 0): { value: Buffer; pieces: Built['pieces'] } | undefined {
  // The decoding layers count apart from builtText's depth (a decoded text is one step of the reading, whatever its layers).
  if (layers > 3) return undefined;
  const e = unwrap(n);
  if (!Node.isCallExpression(e)) return undefined;
  const name = calleeName(e);
  const args = e.getArguments();
  const callee = e.getExpression();
  if (name === 'from' && Node.isPropertyAccessExpression(callee) && callee.getExpression().getText() === 'Buffer' && args.length >= 1 && args.length <= 2) {
    const enc = args[1] ? constString(args[1])?.value?.toLowerCase() : 'utf8';
    const b = builtText(args[0]!, file, repo, sources, rd, depth);
    if (!b || enc === undefined) return undefined;
    const value = enc === 'base64' || enc === 'base64url' ? base64Bytes(b.text) : enc === 'hex' && /^(?:[0-9a-f]{2})*$/i.test(b.text) ? Buffer.from(b.text, 'hex') : /^utf-?8$/.test(enc) ? Buffer.from(b.text, 'utf8') : undefined;
    return value ? { value, pieces: b.pieces } : undefined;
  }
  const inflate = INFLATE[name];
  if (inflate && args.length >= 1) {
    const inner = bytesOf(args[0]!, file, repo, sources, rd, depth, layers + 1);
    if (!inner) return undefined;
    try {
      return { value: inflate(inner.value, { maxOutputLength: MAX_BUNDLE_BYTES + 1 }), pieces: inner.pieces };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** `null` or `undefined`: the first value of a cache the code fills later. */
const isNothing = (n: Node): boolean => n.getKind() === SyntaxKind.NullKeyword || (Node.isIdentifier(n) && n.getText() === 'undefined');

/** The assignments (`name = value`, not `null`) of each plain name in a file, found once per file. */
const assignmentsMemo = new WeakMap<SourceFile, Map<string, ts.BinaryExpression[]>>();
function onlyAssignment(sf: SourceFile, name: string): ts.BinaryExpression | undefined {
  let byName = assignmentsMemo.get(sf);
  if (!byName) {
    byName = new Map();
    const test = Object.assign((cn: ts.Node) => ts.isBinaryExpression(cn) && cn.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(cn.left), {});
    for (const cn of rawOfKinds(sf, [SyntaxKind.BinaryExpression], test) as ts.BinaryExpression[]) {
      if (cn.right.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(cn.right) && cn.right.text === 'undefined')) continue;
      const key = (cn.left as ts.Identifier).text;
      byName.set(key, [...(byName.get(key) ?? []), cn]);
    }
    assignmentsMemo.set(sf, byName);
  }
  const all = byName.get(name);
  return all?.length === 1 ? all[0] : undefined;
}

/** A piece the reading could not know, as a GAP, when the reading takes them (Reading.gaps). */
function gapAt(n: Node, rd: Reading, here: (node: Node) => { file: string; line: number }): Built | undefined {
  if (!rd.gaps) return undefined;
  rd.gapped = true;
  return { text: GAP, pieces: [{ at: 0, ...here(n) }] };
}

/** The line of the text where a char offset falls (1-based). */
const lineAt = (text: string, at: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

function viewOf(b: Built, partial = false): EmbeddedView | undefined {
  if (!isHtmlDocument(b.text)) return undefined;
  const first = b.pieces[0]!;
  const mark = partial ? { partial: true as const } : {};
  // One piece: the document as written in one place. Several: where each line of the assembled document comes from.
  if (b.pieces.length === 1) return { file: first.file, line: first.line, html: b.text, ...mark };
  const segments = b.pieces.filter((p, i) => i === 0 || p.at < b.text.length).map((p) => ({ from: lineAt(b.text, p.at), file: p.file, line: p.line }));
  return { file: first.file, line: first.line, html: b.text, segments, ...mark };
}

/**
 * The Views an expression serves: the one document it builds, or, when a piece of a file path it reads is not
 * resolved (a parameter, a loop variable), one document for each file of the package that piece may name (holeOf).
 */
function viewsOf(n: Node, file: string, repo: RepoFacts, sources: ParsedSources): EmbeddedView[] {
  const out: EmbeddedView[] = [];
  let tries = 0;
  const go = (env: Env, level: number): void => {
    if (out.length >= MAX_VARIANTS) return;
    const rd: Reading = { env };
    let b = builtText(n, file, repo, sources, rd);
    // The document served as a `blob` of the contents (base64, as the protocol carries it).
    const holder = n.getParent();
    if (b && Node.isPropertyAssignment(holder) && holder.getName() === 'blob' && holder.getInitializer() === n) {
      const bytes = base64Bytes(b.text);
      b = bytes && bytes.length <= MAX_BUNDLE_BYTES ? decoded(bytes.toString('utf8'), b.pieces) : undefined;
    }
    if (b) {
      const v = viewOf(b);
      if (v) out.push(v);
      return;
    }
    if (!rd.hole || level >= 3) return;
    for (const value of rd.hole.values) {
      // A hole the bindings do not fill (the loop variable itself, not one of its fields): nothing more to try.
      if (Object.keys(value).every((k) => env.has(k)) || ++tries > MAX_TRIES) return;
      go(new Map([...env, ...Object.entries(value)]), level + 1);
    }
  };
  go(new Map(), 0);
  // Not a whole document: what the code writes around the pieces it cannot know, when that is a document.
  if (!out.length && !tries) {
    const rd: Reading = { env: new Map(), gaps: true };
    const b = builtText(n, file, repo, sources, rd);
    const v = b && rd.gapped ? viewOf(b, true) : undefined;
    if (v) out.push(v);
  }
  return out;
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
function servesView(call: CallExpression, name: string, namesUi: boolean): boolean {
  const args = call.getArguments();
  const reads = name === 'setRequestHandler' && !!args[0] && /^(?:[\w$.]*ReadResourceRequestSchema|(["'`])resources\/read\1)$/.test(args[0].getText());
  if (!REGISTRATIONS.has(name) && !reads) return false;
  // A resources/read handler of a server whose own code names `ui://` URIs serves its Views, whatever the mimeType
  // is written as (a field of the table entry it looks the URI up in): only an HTML document it returns is a View.
  if (reads && namesUi) return true;
  if (!reads && args.some((a) => constString(a)?.value.startsWith('ui://'))) return true;
  // A registration in a loop over the Views, or in a helper: its URI a template (`ui://acme/${view.name}.html`).
  if (!reads && args.some((a) => Node.isTemplateExpression(unwrap(a)) && (unwrap(a) as TemplateExpression).getHead().getLiteralText().startsWith('ui://'))) return true;
  return call.getDescendantsOfKind(SyntaxKind.PropertyAssignment).some((p) => {
    if (p.getName() !== 'mimeType') return false;
    const init = p.getInitializer();
    // Written out, RESOURCE_MIME_TYPE, or a const of the server's own holding the App's type (const APP_MIME = "text/html;profile=mcp-app").
    return APP_MIME.test(init?.getText() ?? '') || /^text\/html;\s*profile=mcp-app$/.test(constString(init)?.value ?? '');
  });
}

const memo = new WeakMap<RepoFacts, EmbeddedView[]>();

/** The Views the server's code serves whole as HTML documents (memoised), in file and line order. */
export function embeddedViews(repo: RepoFacts): EmbeddedView[] {
  return servedViews(repo).filter((v) => !v.partial);
}

/**
 * The Views the server's code assembles around pieces the reading cannot know (a script URL from the environment, a
 * value computed at run time), each marked partial with a GAP for each such piece, in file and line order.
 */
export function partialViews(repo: RepoFacts): EmbeddedView[] {
  return servedViews(repo).filter((v) => v.partial);
}

function servedViews(repo: RepoFacts): EmbeddedView[] {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = memo.get(repo);
  if (hit) return hit;
  const sources = parsedSources(repo);
  const out = new Map<string, EmbeddedView>();
  const namesUi = [...sources.files].some(([file, sf]) => !file.startsWith('node_modules/') && rawOfKinds(sf, [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.TemplateExpression], startsUiUri).length > 0);
  for (const { file, call, name } of ownCalls(sources)) {
    if (!servesView(call, name, namesUi)) continue;
    call.forEachDescendant((d, traversal) => {
      if (!(Node.isStringLiteral(d) || Node.isNoSubstitutionTemplateLiteral(d) || Node.isTemplateExpression(d) || Node.isIdentifier(d) || Node.isCallExpression(d))) return;
      const vs = viewsOf(d, file, repo, sources);
      if (!vs.length) return;
      // Several Views from one template (one per file it reads): told apart by the files of their pieces.
      for (const v of vs) out.set(`${v.file}:${v.line}:${(v.segments ?? []).map((g) => `${g.file}:${g.line}`).join(',')}`, v);
      traversal.skip(); // its pieces are not Views of their own
    });
  }
  // A View held in a table the server serves from (a resources/read handler looking the URI up, a loop over the
  // entries): an object literal of the server's own code pairing a `ui://` URI with the document (tableViews).
  for (const v of tableViews(repo, sources)) {
    const key = `${v.file}:${v.line}:${(v.segments ?? []).map((g) => `${g.file}:${g.line}`).join(',')}`;
    if (!out.has(key)) out.set(key, v);
  }
  const views = [...out.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  memo.set(repo, views);
  return views;
}

/** A string literal (or a template's head) that starts a `ui://` URI. */
const startsUiUri = (cn: ts.Node): boolean =>
  ((ts.isStringLiteral(cn) || ts.isNoSubstitutionTemplateLiteral(cn)) && cn.text.startsWith('ui://')) || (ts.isTemplateExpression(cn) && cn.head.text.startsWith('ui://'));

/**
 * Views held in a table of the server's own code: a `ui://` URI set side by side with an HTML document (a literal, a
 * const holding one, a template assembled from package files, a package file the code reads: viewsOf) — an object
 * literal with a property whose value is the URI and another whose value is the document (`{ uri: 'ui://widget/run.html',
 * mimeType, html: RUN_HTML }`, an entry of a map a resources/read handler looks the requested URI up in), an object
 * keyed by the URI (`{ [RUN_URI]: html }`, `{ 'ui://widget/run.html': html }`), or a `[uri, document]` pair (an entry of
 * `new Map([[RUN_URI, readFileSync(…)]])` built at start, of `Object.fromEntries`). The URI may be written there or be
 * a const of the same file holding it (`const RUN_URI = 'ui://…'`). The URI and the document side by side are the View
 * served under that URI, whatever registers it. The `ui://` strings and the uses of such consts are found once per file
 * (the index of ts-source), never by a walk per registration.
 */
function tableViews(repo: RepoFacts, sources: ParsedSources): EmbeddedView[] {
  const out: EmbeddedView[] = [];
  const seen = new Set<ts.Node>();
  // A URI, a mimeType, a name, a number or a flag is no document: only what may hold text is followed.
  const mayHoldText = (init: ts.Expression): boolean =>
    (ts.isIdentifier(init) || ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init) || ts.isTemplateExpression(init) || ts.isCallExpression(init) || ts.isBinaryExpression(init) || ts.isPropertyAccessExpression(init) || ts.isAwaitExpression(init)) &&
    !((ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) && !isHtmlDocument(init.text));
  /** The expressions set beside a node standing for a `ui://` URI (see above). */
  const besideUri = (u: ts.Node): ts.Expression[] => {
    const parent = u.parent;
    if (!parent) return [];
    // { uri: 'ui://…', html: … }
    if (ts.isPropertyAssignment(parent) && parent.initializer === u) {
      const obj = parent.parent;
      if (!ts.isObjectLiteralExpression(obj) || seen.has(obj)) return [];
      seen.add(obj);
      return obj.properties.filter((p): p is ts.PropertyAssignment => p !== parent && ts.isPropertyAssignment(p)).map((p) => p.initializer);
    }
    // { 'ui://…': html }
    if (ts.isPropertyAssignment(parent) && parent.name === u) return [parent.initializer];
    // { [RUN_URI]: html }
    if (ts.isComputedPropertyName(parent) && parent.expression === u && ts.isPropertyAssignment(parent.parent)) return [parent.parent.initializer];
    // [RUN_URI, html]: a pair, as a Map's entries are written
    if (ts.isArrayLiteralExpression(parent) && parent.elements.length === 2 && parent.elements[0] === u) return [parent.elements[1]!];
    return [];
  };
  for (const [file, sf] of sources.files) {
    if (file.startsWith('node_modules/')) continue;
    for (const uri of rawOfKinds(sf, [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.TemplateExpression], startsUiUri)) {
      const holders: ts.Node[] = [uri];
      // A variable holding the URI (const RUN_URI = 'ui://…', or a bundle's `var`), never assigned again: its uses in
      // the same file stand for it.
      const decl = uri.parent;
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer === uri && ts.isIdentifier(decl.name)) {
        const id = decl.name;
        const uses = rawOfKinds(sf, [SyntaxKind.Identifier], namedFilter([id.text], (cn) => cn !== id && ts.isIdentifier(cn) && cn.text === id.text && rawDeclarationOf(cn as ts.Identifier) === id));
        const assigned = uses.some((use) => ts.isBinaryExpression(use.parent) && use.parent.left === use && use.parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && use.parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment);
        if (!assigned) holders.push(...uses);
      }
      for (const h of holders) for (const init of besideUri(h)) if (mayHoldText(init)) out.push(...viewsOf(wrapNode(sf, init), file, repo, sources));
    }
  }
  return out;
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

/** The `src` of every script a View document loads (not a data: URL), in document order. */
export function scriptSources(html: string): string[] {
  const out: string[] = [];
  const walk = (n: HtmlNode): void => {
    const src = n.nodeName === 'script' ? n.attrs?.find((a) => a.name === 'src')?.value : undefined;
    if (src !== undefined && !/^\s*data:/i.test(src)) out.push(src.trim());
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
  };
  walk(parse(html) as unknown as HtmlNode);
  return out;
}

/** Does the View load a script from a file or another origin (`<script src>`, not a data: URL)? Its code is then not all here. */
export function loadsScripts(v: EmbeddedView): boolean {
  return scriptSources(v.html).length > 0;
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
