import { Node, type ObjectLiteralExpression, type SourceFile } from './morph.js';
import type { RepoFacts } from './repo.js';
import { localConstInitializer, parsedSources, positionOf, propertyName, stringValue, unwrap } from './ts-source.js';
import { noteSourceRead } from './not-read.js';

/**
 * What an extension's source says about itself, read syntactically: the objects passed to `define*(...)`
 * factories (`defineMiddleware({ identifier, beforeCall })`), the names exported by the entry module(s)
 * and by `src/hooks/*`, and the identifier strings written in code. Files of nested packages (a folder
 * with its own package.json or extension.json) are left out. Shared by the E-* detectors.
 */

export interface CodeSpot {
  file: string;
  line: number;
  column: number;
}

export interface Member extends CodeSpot {
  name: string;
}

export interface DefineCall extends CodeSpot {
  /** The factory's name, e.g. defineMiddleware. */
  callee: string;
  /** Properties and methods of the object passed as first argument (spreads of local objects followed). */
  members: Member[];
}

export interface ExtensionSource {
  defines: DefineCall[];
  /** Entry modules found (relative paths). */
  entryFiles: string[];
  /** Files under src/hooks/ that were parsed. */
  hookFiles: string[];
  /** Names exported by the entry modules and src/hooks/* files; a hook file's default export is named after the file. */
  exports: Member[];
  /** Literal identifiers written in code: `identifier: '...'` in a define object, or an exported `identifier` constant. */
  identifiers: (CodeSpot & { value: string })[];
}

const DEFINE = /^define[A-Z0-9_]\w*$/;
const SOURCE_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'];

const spot = (file: string, node: Node): CodeSpot => ({ file, ...positionOf(node) });

/** Candidate entry modules: package.json main/module/exports mapped back to sources, then the conventional ones. */
function entryCandidates(repo: RepoFacts): string[] {
  const specs: string[] = [];
  const pj = repo.object('package.json');
  if (pj.ok) {
    const collect = (v: unknown, depth = 0): void => {
      if (depth > 4) return;
      if (typeof v === 'string') specs.push(v);
      else if (v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [k, sub] of Object.entries(v)) {
          // Subpath keys other than the root are other entry points, not the extension itself.
          if (k.startsWith('.') && k !== '.') continue;
          collect(sub, depth + 1);
        }
      }
    };
    collect(pj.value.main);
    collect(pj.value.module);
    collect(pj.value.exports);
  }
  const out: string[] = [];
  for (const raw of specs) {
    const spec = raw.replace(/^\.\//, '');
    const stem = spec.replace(/\.[cm]?[jt]sx?$/, '');
    const stems = [stem, stem.replace(/^(?:dist|build|lib|out)\//, 'src/')];
    out.push(spec);
    for (const s of stems) for (const ext of SOURCE_EXTS) out.push(s + ext);
  }
  for (const stem of ['src/index', 'src/extension', 'index']) for (const ext of SOURCE_EXTS) out.push(stem + ext);
  return [...new Set(out)];
}

function objectOf(node: Node | undefined): ObjectLiteralExpression | undefined {
  if (!node) return undefined;
  let n = unwrap(node);
  if (Node.isIdentifier(n)) n = localConstInitializer(n) ?? n;
  return Node.isObjectLiteralExpression(n) ? n : undefined;
}

const isNullish = (n: Node | undefined): boolean =>
  !!n && (Node.isNullLiteral(unwrap(n)) || (Node.isIdentifier(unwrap(n)) && unwrap(n).getText() === 'undefined'));

/** Members of an object literal; spreads of local object literals are followed once. */
function membersOf(obj: ObjectLiteralExpression, file: string, seen = new Set<Node>()): Member[] {
  if (seen.has(obj)) return [];
  seen.add(obj);
  const out: Member[] = [];
  for (const p of obj.getProperties()) {
    if (Node.isSpreadAssignment(p)) {
      const inner = objectOf(p.getExpression());
      if (inner) out.push(...membersOf(inner, file, seen));
      continue;
    }
    if (Node.isPropertyAssignment(p)) {
      if (isNullish(p.getInitializer())) continue;
      const name = propertyName(p.getNameNode());
      if (name) out.push({ name, ...spot(file, p) });
    } else if (Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isGetAccessorDeclaration(p)) {
      const name = propertyName(p.getNameNode());
      if (name) out.push({ name, ...spot(file, p) });
    }
  }
  return out;
}

/** The value of `identifier` in an object literal, when it is a literal (or a local const holding one), where the literal is written. */
function identifierIn(obj: ObjectLiteralExpression, file: string): (CodeSpot & { value: string }) | undefined {
  for (const p of obj.getProperties()) {
    let valueNode: Node | undefined;
    if (Node.isPropertyAssignment(p) && propertyName(p.getNameNode()) === 'identifier') valueNode = p.getInitializer();
    else if (Node.isShorthandPropertyAssignment(p) && p.getName() === 'identifier') valueNode = p.getNameNode();
    else continue;
    if (!valueNode) continue;
    const u = unwrap(valueNode);
    const literal = stringValue(u) !== undefined ? u : localConstInitializer(u);
    const value = stringValue(literal);
    if (literal && value !== undefined) return { value, ...spot(file, literal) };
  }
  return undefined;
}

/** Hook-file name to the export name it stands for: before-call.ts / before_call.ts / beforeCall.ts -> beforecall. */
const fileKey = (rel: string): string =>
  rel
    .split('/')
    .pop()!
    .replace(/\.[^.]+$/, '')
    .replace(/[-_]/g, '')
    .toLowerCase();

function exportsOf(sf: SourceFile, file: string, isHookFile: boolean): Member[] {
  const out: Member[] = [];
  for (const fn of sf.getFunctions()) {
    if (!fn.isExported()) continue;
    const name = fn.isDefaultExport() && isHookFile ? fileKey(file) : fn.getName();
    if (name) out.push({ name, ...spot(file, fn) });
  }
  for (const st of sf.getVariableStatements()) {
    if (!st.isExported()) continue;
    for (const d of st.getDeclarations()) out.push({ name: d.getName(), ...spot(file, d) });
  }
  for (const ed of sf.getExportDeclarations()) {
    for (const ne of ed.getNamedExports()) {
      const name = ne.getAliasNode()?.getText() ?? ne.getName();
      if (name === 'default' && isHookFile) out.push({ name: fileKey(file), ...spot(file, ne) });
      else out.push({ name, ...spot(file, ne) });
    }
  }
  for (const ea of sf.getExportAssignments()) {
    if (ea.isExportEquals()) continue;
    const obj = objectOf(ea.getExpression());
    if (obj) out.push(...membersOf(obj, file));
    else if (isHookFile) out.push({ name: fileKey(file), ...spot(file, ea) });
  }
  return out;
}

const cache = new WeakMap<RepoFacts, ExtensionSource>();

export function extensionSource(repo: RepoFacts): ExtensionSource {
  noteSourceRead('js'); // a memoised answer still counts as reading the source (engine/runner)
  const hit = cache.get(repo);
  if (hit) return hit;
  // Files of a nested package (a folder with its own package.json or extension.json) belong to another object.
  const nested = new Set(
    repo.files
      .filter((f) => f.includes('/') && (f.endsWith('/package.json') || f.endsWith('/extension.json')))
      .map((f) => f.slice(0, f.lastIndexOf('/') + 1)),
  );
  const files = new Map([...parsedSources(repo).files].filter(([f]) => ![...nested].some((d) => f.startsWith(d))));
  const defines: DefineCall[] = [];
  const identifiers: ExtensionSource['identifiers'] = [];
  for (const [file, sf] of files) {
    sf.forEachDescendant((node) => {
      if (!Node.isCallExpression(node)) return;
      const callee = unwrap(node.getExpression());
      const name = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : undefined;
      if (!name || !DEFINE.test(name)) return;
      const obj = objectOf(node.getArguments()[0]);
      defines.push({ callee: name, ...spot(file, node), members: obj ? membersOf(obj, file) : [] });
      const id = obj ? identifierIn(obj, file) : undefined;
      if (id) identifiers.push(id);
    });
  }
  const entryFiles = entryCandidates(repo).filter((f) => files.has(f));
  const hookFiles = [...files.keys()].filter((f) => f.startsWith('src/hooks/'));
  const exports: Member[] = [];
  for (const f of [...new Set([...entryFiles, ...hookFiles])]) {
    const sf = files.get(f)!;
    exports.push(...exportsOf(sf, f, hookFiles.includes(f)));
    for (const st of sf.getVariableStatements()) {
      if (!st.isExported()) continue;
      for (const d of st.getDeclarations()) {
        if (!/^(?:identifier|extension_id)$/i.test(d.getName())) continue;
        const init = d.getInitializer();
        const v = stringValue(init);
        if (init && v !== undefined) identifiers.push({ value: v, ...spot(f, unwrap(init)) });
      }
    }
  }
  // The same literal can be reached twice (an exported const that a define object also uses).
  const seen = new Set<string>();
  const uniqueIdentifiers = identifiers.filter((i) => {
    const k = `${i.file}:${i.line}:${i.column}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const result: ExtensionSource = { defines, entryFiles, hookFiles, exports, identifiers: uniqueIdentifiers };
  cache.set(repo, result);
  return result;
}
