import { afterLoad, Node, Project, ts, SyntaxKind, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { noteSourceRead, sourceReaders, type FileNotRead } from './not-read.js';
import { followDependencies, missingEntryModules, selectModelFiles } from './published.js';
import { isGeneratedPath, MAX_FILE_PARSE_BYTES, SCREEN_PATTERNS, SOURCE_LIMITS, type SourceSetLike } from './source-limits.js';
import type { SafeRead } from './safe-read.js';
import { isOwnSource } from './source-paths.js';
import { tsBudget } from './budget.js';
import { hasPythonSource } from './python-source.js';
import { frameworkClass, frameworkRegions, inRegions, ownModules, sourceMapOf, unsplitBundler } from './bundle-regions.js';

export { isTestPath } from './source-paths.js';
export { isGeneratedPath, SCREEN_PATTERNS, SOURCE_LIMITS } from './source-limits.js';

/**
 * The audited repository's JavaScript/TypeScript sources as syntax trees (ts-morph), built once per
 * RepoFacts and shared by the detectors that read code. Files come from RepoFacts (same bytes, same
 * ignore rules), are parsed in memory (nothing touches the disk) and are never type-checked. Test
 * folders, fixtures and declaration files are left out: they are not the published object.
 */

/** Source files (relative paths) that belong to the audited object. */
export function sourceFilesOf(repo: RepoFacts): string[] {
  return repo.files.filter(isOwnSource);
}

export interface ParsedSources {
  /** Parsed files, keyed by their path relative to the audited root (a followed dependency's under `node_modules/<name>/`). */
  readonly files: ReadonlyMap<string, SourceFile>;
  /** Relative path of a parsed file. */
  rel(sf: SourceFile): string;
  /**
   * Source files of the object that were not parsed and may hold code the rules look for (too large and not
   * cleared by the screen, unreadable, not a regular file, failed to parse, nested too deep, past a budget),
   * and dependencies the tools seem to live in that could not be read. In path order.
   */
  readonly unread: readonly FileNotRead[];
  /** Files too large to parse that the pattern screen read whole and found none of the code the rules look for in. */
  readonly screened: readonly FileNotRead[];
  /**
   * Bundles too large to parse whole that were read as the package's own modules (bundle-regions ownModules): one
   * entry per bundle, cause 'bundled-libraries', `size` the bytes of the library modules left out (named in the
   * report's skipped inputs; the file itself counts as read).
   */
  readonly bundled?: readonly FileNotRead[];
  /** Dependencies whose files were read (their folder under node_modules), in name order. */
  readonly dependencies: readonly { name: string; folder: string; files: number }[];
  /** Bare module specifiers of the followed dependencies -> the parsed file they resolve to (facts/published). */
  readonly entries?: ReadonlyMap<string, string>;
  /** The files the server model reads (facts/published selectModelFiles), in path order. */
  readonly model: readonly string[];
}


const cache = new WeakMap<RepoFacts, ParsedSources>();

/** Where the parsed files are kept while they are read (own sources first, then followed dependencies). */
export class SourceSet implements SourceSetLike {
  /** `budget`: bytes of source this audit may parse (facts/budget), the TypeScript side's share by default. */
  constructor(readonly budget: number = SOURCE_LIMITS.totalParseBytes) {
    this.perFile = Math.min(MAX_FILE_PARSE_BYTES, budget);
  }
  readonly project = new Project({
    useInMemoryFileSystem: true,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    compilerOptions: { allowJs: true },
  });
  readonly files = new Map<string, SourceFile>();
  readonly back = new Map<SourceFile, string>();
  readonly unread: FileNotRead[] = [];
  readonly screened: FileNotRead[] = [];
  readonly bundled: FileNotRead[] = [];
  readonly dependencies: { name: string; folder: string; files: number }[] = [];
  readonly entries = new Map<string, string>();
  parsedBytes = 0;
  /** The limits of this audit, read once (the environment cannot change them halfway). */
  readonly perFile: number;

  /**
   * Read and parse one file. `read(limit)` gives its text (at most `limit` bytes), `scan()` runs the pattern
   * screen over it in chunks. Returns the parsed file, or undefined (then it is in `unread` or `screened`).
   */
  add(
    rel: string,
    read: (limit: number) => SafeRead,
    scan: () => { ok: true; matched: RegExp[]; size: number } | { ok: false; cause: string; size?: number; limit?: number },
    readBeside?: (rel: string, limit: number) => SafeRead,
  ): SourceFile | undefined {
    if (this.files.size >= SOURCE_LIMITS.maxFiles) {
      this.unread.push({ file: rel, cause: 'too-many-files', limit: SOURCE_LIMITS.maxFiles });
      return undefined;
    }
    const left = this.budget - this.parsedBytes;
    const limit = Math.min(this.perFile, left);
    const t = read(limit);
    if (!t.ok) {
      if (t.cause !== 'too-large') {
        this.unread.push({ file: rel, cause: t.cause });
        return undefined;
      }
      // Too large to parse (or past the audit's budget): the pattern screen reads it in chunks.
      const overBudget = t.size !== undefined && t.size <= this.perFile;
      // A bundle too large to parse whole is read as its own modules when they fit (bundle-regions.ts); one whose
      // bundler left no mark between its modules (and no source map that names them) is named so.
      let bundler: string | undefined;
      const whole = t.size !== undefined && t.size <= SOURCE_LIMITS.bundleBytes ? read(SOURCE_LIMITS.bundleBytes) : undefined;
      if (whole?.ok) {
        const own = ownModules(whole.text, this.sourceMapText(whole.text, rel, readBeside));
        if (own && own.kept <= limit) {
          // Lines a source map names are cut where the map says: what is left must parse as it is.
          const sf = this.parse(rel, own.text, own.kept, own.byMap);
          if (sf) {
            this.bundled.push({ file: rel, cause: 'bundled-libraries', size: own.left });
            return sf;
          }
          if (!own.byMap) return undefined;
        }
        bundler = unsplitBundler(whole.text);
      }
      const skipped: FileNotRead = overBudget
        ? { file: rel, cause: 'budget', size: t.size, limit: this.budget }
        : bundler
          ? { file: rel, cause: 'bundle-without-modules', size: t.size, limit: this.perFile, bundler }
          : { file: rel, cause: 'too-large', size: t.size, limit: this.perFile };
      const sc = scan();
      if (!sc.ok) this.unread.push(sc.cause === 'too-large' ? { ...skipped, size: sc.size ?? skipped.size } : { file: rel, cause: sc.cause });
      else if (sc.matched.length) this.unread.push(skipped);
      else this.screened.push(skipped);
      return undefined;
    }
    return this.parse(rel, t.text, t.size);
  }

  /** The text of the source map shipped with a bundle (bundle-regions sourceMapOf), when there is one to read. */
  private sourceMapText(text: string, rel: string, readBeside: ((rel: string, limit: number) => SafeRead) | undefined): string | undefined {
    const where = sourceMapOf(text, rel);
    if (!where) return undefined;
    if ('inline' in where) return where.inline;
    const m = readBeside?.(where.file, SOURCE_LIMITS.bundleBytes);
    return m?.ok ? m.text : undefined;
  }

  /** `clean`: a text cut by a source map, dropped (undefined, nothing noted) when it does not parse without errors. */
  private parse(rel: string, text: string, size: number, clean = false): SourceFile | undefined {
    let sf: SourceFile;
    try {
      sf = this.project.createSourceFile('/' + rel, text, { overwrite: true });
    } catch (e) {
      if (clean) return undefined;
      this.unread.push({ file: rel, cause: e instanceof RangeError ? 'too-deep' : 'parse-failed' });
      return undefined;
    }
    if (clean && ((sf.compilerNode as unknown as { parseDiagnostics?: readonly unknown[] }).parseDiagnostics?.length ?? 0) > 0) {
      this.project.removeSourceFile(sf);
      return undefined;
    }
    // One iterative walk: the per-file index, and the nesting depth (a tree deeper than the limit is dropped
    // before any recursive walk of a detector can overflow the stack on it).
    if (!indexFile(sf)) {
      this.project.removeSourceFile(sf);
      // No limit in the data: the parser itself may overflow first on the same file (RangeError above) depending on
      // the stack depth it is called at, and the same file must give the same report either way.
      this.unread.push({ file: rel, cause: 'too-deep' });
      return undefined;
    }
    this.parsedBytes += size;
    this.files.set(rel, sf);
    this.back.set(sf, rel);
    return sf;
  }

  done(model: readonly string[]): ParsedSources {
    const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    const files = new Map([...this.files].sort(([a], [b]) => byPath(a, b)));
    const back = this.back;
    const parsed: ParsedSources = {
      files,
      rel: (sf) => back.get(sf) ?? sf.getFilePath().replace(/^\//, ''),
      unread: [...this.unread].sort((a, b) => byPath(a.file, b.file)),
      screened: [...this.screened].sort((a, b) => byPath(a.file, b.file)),
      bundled: [...this.bundled].sort((a, b) => byPath(a.file, b.file)),
      dependencies: [...this.dependencies].sort((a, b) => byPath(a.name, b.name)),
      entries: new Map(this.entries),
      model,
    };
    for (const sf of files.values()) setOf.set(sf, parsed);
    return parsed;
  }
}

/** The parsed sources a file belongs to: lets a value read in one file follow a relative import to another. */
const setOf = new WeakMap<SourceFile, ParsedSources>();
export const sourcesOf = (sf: SourceFile): ParsedSources | undefined => setOf.get(sf);

/** The parsed sources if some part asked for them (the report's inputs; nothing is parsed here). */
export const peekParsedSources = (repo: RepoFacts): ParsedSources | undefined => cache.get(repo);
sourceReaders.js = { unread: (repo) => parsedSources(repo).unread, peek: peekParsedSources };

/**
 * The parsed sources of a repository (memoised). Own files come first in the byte budget (generated output
 * after the rest), then the dependencies the published entry points lead to when the package registers no
 * tool itself (facts/published).
 */
export function parsedSources(repo: RepoFacts): ParsedSources {
  noteSourceRead('js');
  const hit = cache.get(repo);
  if (hit) return hit;
  const set = new SourceSet(tsBudget(hasPythonSource(repo)));
  const listed = sourceFilesOf(repo);
  const generated = listed.filter((f) => isGeneratedPath(f));
  const own = listed.filter((f) => !isGeneratedPath(f));
  for (const rel of [...own, ...generated]) {
    set.add(
      rel,
      (limit) => repo.source(rel, limit),
      () => repo.scan(rel, SCREEN_PATTERNS, SOURCE_LIMITS.scanBytes),
      (beside, limit) => repo.source(beside, limit),
    );
  }
  followDependencies(repo, set);
  // The modules the entry points need that the package does not hold: the server's code was not there to read.
  if (set.files.size > 0) set.unread.push(...missingEntryModules(repo, listed));
  const parsed = set.done(selectModelFiles(set.files, repo));
  cache.set(repo, parsed);
  return parsed;
}


/** 1-based line and column of a node's start. */
export function positionOf(node: Node): { line: number; column: number } {
  // The compiler's cached line map (a binary search), not ts-morph's scan of the text.
  const cn = node.compilerNode;
  const sf = cn.getSourceFile();
  const { line, character } = ts.getLineAndCharacterOfPosition(sf, cn.getStart(sf));
  return { line: line + 1, column: character + 1 };
}

/** The node without wrapping parentheses, `as`, `satisfies` or non-null assertions. */
export function unwrap(node: Node): Node {
  let n = node;
  for (;;) {
    if (Node.isParenthesizedExpression(n) || Node.isAsExpression(n) || Node.isSatisfiesExpression(n) || Node.isNonNullExpression(n)) {
      n = n.getExpression();
    } else if (isIndirectCallee(n.compilerNode)) n = (n as Node & { getRight(): Node }).getRight();
    else return n;
  }
}

/** unwrap() on a compiler node: through parentheses, `as`, `satisfies` and `!`. */
export function rawUnwrap(n: ts.Node): ts.Node {
  let u = n;
  for (;;) {
    if (ts.isParenthesizedExpression(u) || ts.isAsExpression(u) || ts.isSatisfiesExpression(u) || ts.isNonNullExpression(u)) u = u.expression;
    else if (isIndirectCallee(u)) u = u.right;
    else return u;
  }
}

/**
 * The name a function (compiler node) is called by: its own (a declaration's or method's, `#` dropped), or that of the
 * variable, property or member it is given to (`const f = () => …`, `{ f: function () {} }`, `obj.f = …`); a named
 * function expression given to none of these, by its own name.
 */
export function rawFunctionName(cn: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(cn) || ts.isMethodDeclaration(cn)) && cn.name) {
    return ts.isIdentifier(cn.name) || ts.isStringLiteral(cn.name) || ts.isPrivateIdentifier(cn.name) ? cn.name.text.replace(/^#/, '') : undefined;
  }
  if (ts.isArrowFunction(cn) || ts.isFunctionExpression(cn)) {
    let p = cn.parent;
    while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p))) p = p.parent;
    if (!p) return undefined;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.initializer && ts.isIdentifier(p.name)) return p.name.text;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(p.left)) return p.left.name.text;
    if (cn.name) return cn.name.text;
  }
  return undefined;
}

/**
 * `(0, f)`: the comma form compilers emit for an imported function called without its module as `this`
 * (TypeScript's CommonJS output writes `(0, child_process_1.exec)(cmd)`); it stands for `f`.
 */
function isIndirectCallee(n: ts.Node): n is ts.BinaryExpression {
  return ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.CommaToken && ts.isNumericLiteral(n.left);
}

/** The value of a string literal or a template without substitutions, else undefined. */
export function stringValue(node: Node | undefined): string | undefined {
  if (!node) return undefined;
  const n = unwrap(node);
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) return n.getLiteralValue();
  return undefined;
}

/** The text of a property name (identifier, string or numeric literal); undefined for a computed name. */
export function propertyName(nameNode: Node): string | undefined {
  if (Node.isIdentifier(nameNode) || Node.isPrivateIdentifier(nameNode)) return nameNode.getText();
  if (Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode)) return nameNode.getLiteralValue();
  if (Node.isNumericLiteral(nameNode)) return nameNode.getText();
  return undefined;
}

/** propertyName on a compiler node. */
export function rawPropertyName(n: ts.Node): string | undefined {
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isNumericLiteral(n)) return n.getText();
  return undefined;
}

/** Follow an identifier to the initializer of a `const` declared at the top level of the same file. */
export function localConstInitializer(id: Node): Node | undefined {
  if (!Node.isIdentifier(id)) return undefined;
  const name = id.getText();
  for (const st of id.getSourceFile().getVariableStatements()) {
    for (const d of st.getDeclarations()) {
      if (d.getName() === name) {
        const init = d.getInitializer();
        return init ? unwrap(init) : undefined;
      }
    }
  }
  return undefined;
}

/** The nodes of a file by kind (an array indexed by kind: cheaper to fill than a Map). */
interface Buckets {
  get(kind: SyntaxKind): ts.Node[] | undefined;
  /** Nodes of the INDEXED kinds by lower-cased name (see indexName). */
  names: Map<string, ts.Node[]>;
}
const rawByKind = new WeakMap<SourceFile, Buckets>();

/**
 * One walk of a file's compiler tree: its nodes by kind, and the name index, filled together. Iterative (an
 * explicit stack, pre-order, children in source order, the same order as a recursive walk), so that a deeply
 * nested file cannot overflow the stack here; false when the tree is nested deeper than SOURCE_LIMITS.maxDepth.
 */
function indexFile(sf: SourceFile): boolean {
  if (rawByKind.has(sf)) return true;
  const lists: ts.Node[][] = [];
  const names = new Map<string, ts.Node[]>();
  const nodes: ts.Node[] = [];
  const depths: number[] = [];
  const kids: ts.Node[] = [];
  const collect = (c: ts.Node): undefined => {
    kids.push(c);
    return undefined;
  };
  const pushChildren = (n: ts.Node, depth: number): void => {
    kids.length = 0;
    ts.forEachChild(n, collect);
    for (let i = kids.length - 1; i >= 0; i--) {
      nodes.push(kids[i]!);
      depths.push(depth);
    }
  };
  const max = SOURCE_LIMITS.maxDepth;
  const indexedKind = INDEXED_KIND();
  pushChildren(sf.compilerNode, 1);
  // A bundle's framework modules are not indexed (bundle-regions.ts): their top-level statements are skipped whole.
  const text = sf.compilerNode.text;
  const framework = frameworkRegions(text);
  while (nodes.length) {
    const n = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return false;
    if (depth === 1 && framework.length && inRegions(framework, n.getStart(sf.compilerNode))) continue;
    const k = n.kind;
    (lists[k] ??= []).push(n);
    if (indexedKind[k] === 1) {
      const name = indexName(n);
      if (name !== undefined && name.length <= MAX_INDEXED_NAME) {
        const l = name.toLowerCase();
        const list = names.get(l);
        if (list) list.push(n);
        else names.set(l, [n]);
      }
    }
    // A framework class inlined without module comments (a minified bundle) is recognised by its members.
    if ((k === SyntaxKind.ClassDeclaration || k === SyntaxKind.ClassExpression) && frameworkClass(n as ts.ClassLikeDeclaration)) continue;
    pushChildren(n, depth + 1);
  }
  rawByKind.set(sf, { get: (kind) => lists[kind], names });
  return true;
}

function bucketsOf(sf: SourceFile): Buckets {
  const raw = rawByKind.get(sf);
  if (raw) return raw;
  // A file parsed outside parsedSources (tests): indexed on first use.
  if (!indexFile(sf)) throw new RangeError(`${sf.getFilePath()}: nested deeper than ${SOURCE_LIMITS.maxDepth} levels`);
  return rawByKind.get(sf)!;
}
const wrappedByKind = new WeakMap<SourceFile, Map<SyntaxKind, Node[]>>();

/**
 * A raw filter may carry the names it accepts (`names`, lower-cased): ofKinds then looks the candidates up
 * in a per-file index by lower-cased name instead of testing every node of the kinds. The filter is still
 * applied to the candidates, so the index only ever narrows what a plain scan would find.
 */
export type NamedFilter = ((cn: ts.Node) => boolean) & { names?: ReadonlySet<string> };

/** Tag a raw filter with the names it can accept (lower-cased for the index; see NamedFilter). */
export const namedFilter = (names: Iterable<string>, filter: (cn: ts.Node) => boolean): NamedFilter =>
  Object.assign((cn: ts.Node) => filter(cn), { names: new Set([...names].map((n) => n.toLowerCase())) });

/** Compiler nodes in the order of a walk of the tree (an ancestor before its descendants). */
export const inTreeOrder = (nodes: ts.Node[]): ts.Node[] => nodes.sort((a, b) => a.pos - b.pos || b.end - a.end);

/** An identifier's text, read from escapedText without the getter (unescapeLeadingUnderscores inlined). */
const idName = (t: string): string => (t.length >= 3 && t.charCodeAt(0) === 95 && t.charCodeAt(1) === 95 && t.charCodeAt(2) === 95 ? t.slice(1) : t);

/**
 * The last name of a raw callee: `f` for f(), a.b.f(), new f(), a['f'](), f`…`; through parentheses, `!`,
 * `as`, `satisfies` and type assertions. Read by kind (the first walk asks it of every call).
 */
export function rawCalleeName(cn: ts.Node): string | undefined {
  const kind = cn.kind;
  let e: ts.Node;
  if (kind === SyntaxKind.CallExpression || kind === SyntaxKind.NewExpression) e = (cn as ts.CallExpression).expression;
  else if (kind === SyntaxKind.TaggedTemplateExpression) e = (cn as ts.TaggedTemplateExpression).tag;
  else return undefined;
  for (;;) {
    const k = e.kind;
    if (k === SyntaxKind.ParenthesizedExpression || k === SyntaxKind.NonNullExpression || k === SyntaxKind.AsExpression || k === SyntaxKind.SatisfiesExpression || k === SyntaxKind.TypeAssertionExpression) {
      e = (e as ts.ParenthesizedExpression).expression;
    } else break;
  }
  if (e.kind === SyntaxKind.Identifier) return idName((e as ts.Identifier).escapedText as string);
  if (e.kind === SyntaxKind.PropertyAccessExpression) return idName((e as ts.PropertyAccessExpression).name.escapedText as string);
  if (e.kind === SyntaxKind.ElementAccessExpression) {
    const a = (e as ts.ElementAccessExpression).argumentExpression;
    return a.kind === SyntaxKind.StringLiteral || a.kind === SyntaxKind.NoSubstitutionTemplateLiteral ? (a as ts.StringLiteralLike).text : undefined;
  }
  return undefined;
}

/**
 * The name a node is indexed by: a call's last callee name (rawCalleeName), a literal's value, a property
 * key, an accessed name. Written as a switch on the kind: the first walk asks it of every indexed node.
 */
function indexName(cn: ts.Node): string | undefined {
  switch (cn.kind) {
    case SyntaxKind.CallExpression:
    case SyntaxKind.NewExpression:
    case SyntaxKind.TaggedTemplateExpression:
      return rawCalleeName(cn);
    case SyntaxKind.StringLiteral:
    case SyntaxKind.NoSubstitutionTemplateLiteral:
      return (cn as ts.StringLiteralLike).text;
    case SyntaxKind.PropertyAssignment:
    case SyntaxKind.ShorthandPropertyAssignment: {
      const n = (cn as ts.PropertyAssignment).name;
      const k = n.kind;
      if (k === SyntaxKind.Identifier || k === SyntaxKind.PrivateIdentifier) return idName((n as ts.Identifier).escapedText as string);
      return k === SyntaxKind.StringLiteral || k === SyntaxKind.NoSubstitutionTemplateLiteral || k === SyntaxKind.NumericLiteral ? (n as ts.StringLiteral).text : undefined;
    }
    case SyntaxKind.PropertyAccessExpression:
      return idName((cn as ts.PropertyAccessExpression).name.escapedText as string);
  }
  return undefined;
}

/** Kinds that the per-file name index holds (see indexName). */
const INDEXED = afterLoad(() => new Set<SyntaxKind>([
  SyntaxKind.CallExpression,
  SyntaxKind.NewExpression,
  SyntaxKind.TaggedTemplateExpression,
  SyntaxKind.StringLiteral,
  SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.PropertyAssignment,
  SyntaxKind.ShorthandPropertyAssignment,
  SyntaxKind.PropertyAccessExpression,
]));

/** INDEXED as a table by kind (the walk tests every node). */
const INDEXED_KIND = afterLoad(() => {
  const table = new Uint8Array(SyntaxKind.Count);
  for (const k of INDEXED()) table[k] = 1;
  return table;
});

/** Names longer than this are not indexed (long literals are texts, not names); a filter naming one scans instead. */
const MAX_INDEXED_NAME = 64;

/** Whether a name set holds one the index does not keep (memoised per set: filters are reused across files). */
const longMemo = new WeakMap<ReadonlySet<string>, boolean>();
const longName = (names: ReadonlySet<string>): boolean => {
  let hit = longMemo.get(names);
  if (hit === undefined) {
    hit = false;
    for (const n of names) if (n.length > MAX_INDEXED_NAME) hit = true;
    longMemo.set(names, hit);
  }
  return hit;
};

/**
 * All nodes of some syntax kinds in a file, in source order. The compiler tree is walked once per file
 * (raw TypeScript nodes, bucketed by kind) and only the nodes asked for are wrapped by ts-morph: a detector
 * that needs every call of a file pays for the calls, not for every token. Shared by all detectors of an audit.
 */
export function ofKinds(sf: SourceFile, kinds: readonly SyntaxKind[], rawFilter?: NamedFilter): Node[] {
  if (rawFilter) return rawOfKinds(sf, kinds, rawFilter).map((cn) => wrapNode(sf, cn));
  let wrapped = wrappedByKind.get(sf);
  if (!wrapped) wrappedByKind.set(sf, (wrapped = new Map()));
  const raw = bucketsOf(sf);
  const out: Node[] = [];
  for (const k of kinds) {
    let w = wrapped.get(k);
    if (!w) wrapped.set(k, (w = (raw.get(k) ?? []).map((cn) => wrapNode(sf, cn))));
    out.push(...w);
  }
  return kinds.length > 1 ? out.sort((a, b) => a.getPos() - b.getPos() || a.getEnd() - b.getEnd()) : out;
}

/**
 * ofKinds without the wrapping: the compiler nodes of some kinds that pass the filter, in source order.
 * For detectors that decide on compiler nodes and wrap only what they report or follow further.
 */
export function rawOfKinds(sf: SourceFile, kinds: readonly SyntaxKind[], rawFilter: NamedFilter): ts.Node[] {
  const raw = bucketsOf(sf);
  const byPos = (a: ts.Node, b: ts.Node): number => a.pos - b.pos || a.end - b.end;
  const out: ts.Node[] = [];
  for (const k of kinds) {
    if (rawFilter.names && INDEXED().has(k) && !longName(rawFilter.names)) {
      const hits: ts.Node[] = [];
      for (const name of rawFilter.names) for (const cn of raw.names.get(name) ?? []) if (cn.kind === k && rawFilter(cn)) hits.push(cn);
      // Several names: merged back into one order (by position; a scan gives the walk's order).
      if (rawFilter.names.size > 1) hits.sort(byPos);
      out.push(...hits);
      continue;
    }
    for (const cn of raw.get(k) ?? []) if (rawFilter(cn)) out.push(cn);
  }
  return kinds.length > 1 ? out.sort(byPos) : out;
}

/** positionOf on a compiler node. */
export function rawPositionOf(cn: ts.Node): { line: number; column: number } {
  const sf = cn.getSourceFile();
  const { line, character } = ts.getLineAndCharacterOfPosition(sf, cn.getStart(sf));
  return { line: line + 1, column: character + 1 };
}

/**
 * The modules a file names in imports, re-exports, `import x = require()`, require() and import() calls,
 * without the `node:` prefix (memoised; read from raw string literals). Origins are resolved within a file
 * (scope.ts), so a call can reach a module's member only if the file names that module: detectors use this
 * set to skip files before resolving anything.
 */
const specsMemo = new WeakMap<SourceFile, ReadonlySet<string>>();
export function moduleSpecs(sf: SourceFile): ReadonlySet<string> {
  const hit = specsMemo.get(sf);
  if (hit) return hit;
  const out = new Set<string>();
  const raw = bucketsOf(sf);
  for (const k of [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral]) {
    for (const cn of raw.get(k) ?? []) {
      const p = cn.parent;
      if (
        p &&
        (ts.isImportDeclaration(p) ||
          ts.isExportDeclaration(p) ||
          ts.isExternalModuleReference(p) ||
          (ts.isCallExpression(p) &&
            p.arguments[0] === cn &&
            (p.expression.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(p.expression) && p.expression.text === 'require'))))
      ) {
        out.add((cn as ts.StringLiteralLike).text.replace(/^node:/, ''));
      }
    }
  }
  specsMemo.set(sf, out);
  return out;
}

/** True when the file names one of the modules (see moduleSpecs). */
export function namesAnyModule(sf: SourceFile, modules: Iterable<string>): boolean {
  const specs = moduleSpecs(sf);
  for (const m of modules) if (specs.has(m)) return true;
  return false;
}

/** The ts-morph wrapper of a compiler node of `sf` (cached by ts-morph, so cheap when it already exists). */
export function wrapNode(sf: SourceFile, cn: ts.Node): Node {
  const w = sf as unknown as { _getNodeFromCompilerNode?: (n: ts.Node) => Node };
  if (typeof w._getNodeFromCompilerNode === 'function') return w._getNodeFromCompilerNode.call(sf, cn);
  // Without ts-morph's internal entry point: find the wrapper by position.
  let n: Node | undefined = sf.getDescendantAtStartWithWidth(cn.getStart(sf.compilerNode), cn.getWidth(sf.compilerNode));
  while (n && n.compilerNode !== cn) n = n.getParent();
  return n ?? sf;
}

const stripNode = (m: string): string => m.replace(/^node:/, '');

export interface Binding {
  /** Module specifier without the node: prefix. */
  module: string;
  /** 'default', '*' (namespace or whole require), or the exported name. */
  imported: string;
}

const importMemo = new WeakMap<SourceFile, Map<string, Binding>>();

/** Local name -> imported binding, from import declarations and `require('m')` declarations (read on compiler nodes). */
export function importsOf(sf: SourceFile): Map<string, Binding> {
  const hit = importMemo.get(sf);
  if (hit) return hit;
  const out = new Map<string, Binding>();
  for (const st of sf.compilerNode.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteralLike(st.moduleSpecifier)) continue;
    const module = stripNode(st.moduleSpecifier.text);
    const clause = st.importClause;
    if (clause?.name) out.set(clause.name.text, { module, imported: 'default' });
    const nb = clause?.namedBindings;
    if (nb && ts.isNamespaceImport(nb)) out.set(nb.name.text, { module, imported: '*' });
    else if (nb) for (const sp of nb.elements) out.set(sp.name.text, { module, imported: (sp.propertyName ?? sp.name).text });
  }
  // `const x = require('m')`, `const { a, b: c } = await import('m')`: only declarations whose initializer is such a call.
  const requireOf = (cn: ts.Node): ts.CallExpression | undefined => {
    let i = (cn as ts.VariableDeclaration).initializer;
    while (i && (ts.isParenthesizedExpression(i) || ts.isAsExpression(i) || ts.isSatisfiesExpression(i) || ts.isNonNullExpression(i) || ts.isAwaitExpression(i))) i = i.expression;
    if (!i || !ts.isCallExpression(i)) return undefined;
    const c = i.expression;
    return c.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c) && c.text === 'require') ? i : undefined;
  };
  for (const n of ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => !!requireOf(cn))) {
    const cn = n.compilerNode as ts.VariableDeclaration;
    const first = requireOf(cn)!.arguments[0];
    if (!first || !ts.isStringLiteralLike(first)) continue;
    const module = stripNode(first.text);
    const name = cn.name;
    if (ts.isIdentifier(name)) out.set(name.text, { module, imported: '*' });
    else if (ts.isObjectBindingPattern(name)) {
      for (const el of name.elements) {
        if (!ts.isIdentifier(el.name)) continue;
        const prop = el.propertyName;
        const imported = !prop ? el.name.text : ts.isIdentifier(prop) || ts.isStringLiteralLike(prop) || ts.isNumericLiteral(prop) ? prop.text : el.name.text;
        out.set(el.name.text, { module, imported });
      }
    }
  }
  // `const [{ McpServer }, m] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('m')])`:
  // each element of the array pattern is bound as the module loaded at its place.
  const loadedTogether = (cn: ts.Node): ts.NodeArray<ts.Expression> | undefined => {
    const d = cn as ts.VariableDeclaration;
    if (!ts.isArrayBindingPattern(d.name)) return undefined;
    let i = d.initializer;
    while (i && (ts.isParenthesizedExpression(i) || ts.isAsExpression(i) || ts.isNonNullExpression(i) || ts.isAwaitExpression(i))) i = i.expression;
    const callee = i && ts.isCallExpression(i) ? i.expression : undefined;
    if (!callee || !ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression) || callee.expression.text !== 'Promise' || callee.name.text !== 'all') return undefined;
    const list = (i as ts.CallExpression).arguments[0];
    return list && ts.isArrayLiteralExpression(list) ? list.elements : undefined;
  };
  for (const n of ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => !!loadedTogether(cn))) {
    const cn = n.compilerNode as ts.VariableDeclaration;
    const loaded = loadedTogether(cn)!;
    (cn.name as ts.ArrayBindingPattern).elements.forEach((el, idx) => {
      let call = loaded[idx];
      while (call && (ts.isParenthesizedExpression(call) || ts.isAwaitExpression(call))) call = call.expression;
      if (ts.isOmittedExpression(el) || !call || !ts.isCallExpression(call)) return;
      const c = call.expression;
      const first = call.arguments[0];
      if (!(c.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c) && c.text === 'require')) || !first || !ts.isStringLiteralLike(first)) return;
      const module = stripNode(first.text);
      if (ts.isIdentifier(el.name)) out.set(el.name.text, { module, imported: '*' });
      else if (ts.isObjectBindingPattern(el.name)) {
        for (const inner of el.name.elements) {
          if (!ts.isIdentifier(inner.name)) continue;
          const prop = inner.propertyName;
          const imported = !prop ? inner.name.text : ts.isIdentifier(prop) || ts.isStringLiteralLike(prop) || ts.isNumericLiteral(prop) ? prop.text : inner.name.text;
          out.set(inner.name.text, { module, imported });
        }
      }
    });
  }
  importMemo.set(sf, out);
  return out;
}
