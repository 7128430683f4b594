import { isBuiltin } from 'node:module';
import { dirname, posix, relative } from 'node:path';
import { ts } from '../../facts/morph.js';
import { entryOfPackage, installedFolder, packageOf as specifierParts } from '../../facts/published.js';
import { locateInside, readInside } from '../../facts/safe-read.js';

/**
 * installed dependencies that print on stdout when they are loaded. A module's top-level code runs at its
 * first import: a `console.log` (`info`, `debug`, `table`, `dir`) or `process.stdout.write` there, outside any
 * function or class, is printed by every server that loads the package, before any message (the usual case: a
 * client library warning with console.log that its key or configuration is missing). The files read are the
 * package's entry for the imported subpath (its `exports`, else `main`) and the files it loads by relative path at
 * its own top level, bounded in number and size; a package that is not installed beside the audited one is not read.
 *
 * Not counted, because they do not run when a server loads the package: a branch taken only when the file is run
 * as a program (`require.main === module`, `import.meta`, `process.argv`), on a terminal (`isTTY`), in a browser
 * (`window`, `document`), or when an environment variable is set (`if (process.env.DEBUG)`,
 * `process.env.X && console.log(…)`): a variable that is NOT set (`if (!process.env.API_KEY)`) is the default of
 * a scrubbed launch and is counted.
 */

const MAX_FILES = 40;
const MAX_BYTES = 512 * 1024;
const PRINTS = /\bconsole\s*\.\s*(?:log|info|debug|table|dir)\s*\(|\bprocess\s*\.\s*stdout\s*\.\s*write\s*\(/;
const STDOUT_CONSOLE = new Set(['log', 'info', 'debug', 'table', 'dir']);
/** Conditions whose true branch does not run when a stdio server loads the package. */
const NOT_ON_LOAD = /\brequire\s*\.\s*main\b|\bimport\s*\.\s*meta\b|\bprocess\s*\.\s*argv\b|\bisTTY\b|\btypeof\s+(?:window|document)\b|\bwindow\s*\.|\bdocument\s*\./;

/** The package name and subpath of a bare specifier (published.ts), or undefined for a builtin or a path. */
export function packageOf(spec: string): { name: string; sub: string } | undefined {
  const p = specifierParts(spec);
  return p && !isBuiltin(p.name) ? p : undefined;
}

/** Is this expression a read of an environment variable being set: `process.env.X`, `process.env.X === '1'`, `env.DEBUG`? */
function envIsSet(e: ts.Expression): boolean {
  let c = e;
  while (ts.isParenthesizedExpression(c)) c = c.expression;
  const isEnv = (x: ts.Expression): boolean => /^(?:process\s*\.\s*)?env\s*(?:\.|\[)/.test(x.getText());
  if (isEnv(c)) return true;
  if (ts.isBinaryExpression(c)) {
    const k = c.operatorToken.kind;
    if (k === ts.SyntaxKind.AmpersandAmpersandToken) return envIsSet(c.left) || envIsSet(c.right);
    if (k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.EqualsEqualsToken) return isEnv(c.left) || isEnv(c.right);
  }
  return false;
}

/** A branch that does not run on load (see the file header). */
const skipsOnLoad = (cond: ts.Expression): boolean => NOT_ON_LOAD.test(cond.getText()) || envIsSet(cond);

/** The top-level prints of one file and the relative modules it loads at top level. */
function readTopLevel(sf: ts.SourceFile): { prints: number[]; loads: string[] } {
  const prints: number[] = [];
  const loads: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) || ts.isClassLike(n)) return;
    if (ts.isIfStatement(n)) {
      visit(n.expression);
      if (!skipsOnLoad(n.expression)) visit(n.thenStatement);
      if (n.elseStatement) visit(n.elseStatement);
      return;
    }
    if (ts.isConditionalExpression(n)) {
      visit(n.condition);
      if (!skipsOnLoad(n.condition)) visit(n.whenTrue);
      visit(n.whenFalse);
      return;
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) {
      visit(n.left);
      if (!skipsOnLoad(n.left)) visit(n.right);
      return;
    }
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteralLike(n.moduleSpecifier)) {
      if (n.moduleSpecifier.text.startsWith('.')) loads.push(n.moduleSpecifier.text);
      return;
    }
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const a = n.arguments[0];
      if (ts.isIdentifier(callee) && callee.text === 'require' && a && ts.isStringLiteralLike(a) && a.text.startsWith('.')) loads.push(a.text);
      if (ts.isPropertyAccessExpression(callee)) {
        const obj = callee.expression;
        const m = callee.name.text;
        const consolePrint = ts.isIdentifier(obj) && obj.text === 'console' && STDOUT_CONSOLE.has(m);
        const stdoutWrite = m === 'write' && ts.isPropertyAccessExpression(obj) && obj.name.text === 'stdout' && ts.isIdentifier(obj.expression) && obj.expression.text === 'process';
        if (consolePrint || stdoutWrite) prints.push(sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { prints, loads };
}

/** The file a relative specifier names inside a package folder (as Node resolves it: the path, .js/.cjs/.mjs, or index.js). */
function resolveIn(folder: string, fromRel: string, spec: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(fromRel), spec));
  if (base.startsWith('..')) return undefined;
  for (const c of [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}/index.js`]) {
    const at = locateInside(folder, c);
    if (at.ok && at.stats.isFile()) return c;
  }
  return undefined;
}

export interface ImportPrint {
  /** The file of the package, relative to its folder, and the line of the first print. */
  file: string;
  line: number;
}

/** Where an installed package prints on stdout when `spec` is loaded from `root` (see the file header), or undefined. */
export function printsOnImport(root: string, spec: string, memo: Map<string, ImportPrint | null>): ImportPrint | undefined {
  const p = packageOf(spec);
  if (!p) return undefined;
  const key = `${p.name}/${p.sub}`;
  if (memo.has(key)) return memo.get(key) ?? undefined;
  memo.set(key, null);
  const folder = installedFolder(root, p.name);
  if (!folder || relative(root, folder).split(/[\\/]/).length > 6) return undefined;
  // Read through the safe reader, confined to the package's folder: a dependency of an untrusted repository may be
  // a FIFO, a device, a link out of its folder or a huge file.
  const manifest = readInside(folder, 'package.json', MAX_BYTES);
  if (!manifest.ok) return undefined;
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(manifest.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const exists = (rel: string): boolean => {
    const at = locateInside(folder, rel);
    return at.ok && at.stats.isFile();
  };
  const entry = entryOfPackage(pkg, p.sub, exists);
  if (!entry || !/\.(?:c|m)?js$/.test(entry)) return undefined;
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length && seen.size <= MAX_FILES) {
    const rel = queue.shift()!;
    const read = readInside(folder, rel, MAX_BYTES);
    if (!read.ok) continue;
    const text = read.text;
    const mayPrint = PRINTS.test(text);
    if (!mayPrint && !/\brequire\s*\(\s*['"]\.|\bfrom\s*['"]\.|\bimport\s*['"]\./.test(text)) continue;
    const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const { prints, loads } = readTopLevel(sf);
    if (mayPrint && prints.length) {
      const hit = { file: posix.join(dirname(rel) === '.' ? '' : dirname(rel), posix.basename(rel)), line: prints[0]! };
      memo.set(key, hit);
      return hit;
    }
    for (const s of loads) {
      const target = resolveIn(folder, rel, s);
      if (target && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return undefined;
}
