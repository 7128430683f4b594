import { posix } from 'node:path';
import { Node, SyntaxKind, ts, type NewExpression } from '../../facts/morph.js';
import { FRAMEWORK } from '../../facts/bundle-regions.js';
import { entryOfPackage, importsOfText, installedFolder, packageOf } from '../../facts/published.js';
import { locateInside, readInside } from '../../facts/safe-read.js';
import { objectLiteralOf } from '../../facts/server-model.js';
import { importsOf, ofKinds, unwrap } from '../../facts/ts-source.js';
import type { Code, Fn } from '../support/source/code-paths.js';

/**
 * S-13: API clients from a dependency. A class imported from a package (not an MCP SDK, not an HTTP library
 * read elsewhere in this rule) is constructed in the source, kept in a variable or a field, and one of its
 * methods is called on a request path. The package as installed (its package.json and the files its entry
 * reaches by relative imports, bounded) says:
 *   - whether it makes HTTP requests: it depends on an HTTP client (axios, got, node-fetch, undici, ky…) or its
 *     code calls fetch() or http(s).request() and builds API requests (headers, credentials, a base URL: a
 *     library that only fetches its own assets, such as a WebAssembly module, is not an API client), itself or
 *     in the dependencies it installs (two levels down);
 *   - whether a time limit exists: the word timeout in its code (an option it takes), and a default value
 *     for it (`timeout: 60000`, `timeout ?? 30_000`, `DEFAULT_TIMEOUT`).
 * Red when it makes HTTP requests and nothing bounds them: no default, and the construction passes no option
 * whose name holds "timeout" (a construction whose options cannot be read is given the benefit of the doubt).
 * A package that is declared but not installed, or that cannot be read, is named for could-not-judge.
 */

export interface DependencyClient {
  package: string;
  node: NewExpression;
  verdict: 'unbounded' | 'not-read';
}

/** Schema libraries: their classes make no request. */
const NOT_CLIENTS = new Set(['zod']);
/** HTTP libraries read by the rule's own request reading, and the database client it reads apart. */
const READ_ELSEWHERE = new Set(['axios', 'got', 'ky', 'node-fetch', 'cross-fetch', 'undici', 'pg']);
const HTTP_DEPENDENCIES = new Set(['axios', 'got', 'ky', 'node-fetch', 'cross-fetch', 'undici', 'superagent', 'request', 'ofetch', 'isomorphic-fetch', 'openapi-fetch', 'graphql-request', 'needle', 'phin', 'wretch', 'formdata-node']);
const HTTP_CALL = /\bfetch\s*\(|\bhttps?\.(?:request|get)\s*\(|\brequire\(\s*['"](?:node:)?https?['"]\s*\)|from\s+['"](?:node:)?https?['"]/;
/**
 * What tells an API client's requests from a library that fetches its own assets (a WebAssembly module, a data
 * file): request headers, credentials or a base URL written in the same code.
 */
const API_REQUEST = /\b(?:baseUrl|baseURL|base_url|apiKey|api_key|apiToken|Authorization|Bearer)\b|\bheaders\s*:/;
const TIMEOUT_WORD = /\btimeout(?:Ms|MS|_ms|Millis|InMs)?\b/i;
const TIMEOUT_DEFAULT = /\btimeout\w*\s*(?:\?\?|\|\|)\s*[\d_]{3,}|\btimeout\w*\s*[:=]\s*[\d_]{4,}|\bDEFAULT_\w*TIMEOUT\w*\b|\bdefaultTimeout\b/i;
const LIMITS = { files: 60, bytes: 8 * 1024 * 1024, file: 4 * 1024 * 1024, depth: 2, deps: 12, packages: 40 };

type PackageVerdict = { kind: 'http'; bounded: boolean } | { kind: 'not-http' } | { kind: 'not-read' };

/**
 * What the installed package says (see the header), memoised per folder and name for one audit; at most
 * LIMITS.packages packages are read in one audit (past that, a package is not read).
 */
let packageMemo = new Map<string, PackageVerdict>();
function judgePackage(from: string, name: string, declared: boolean, depth = 0): PackageVerdict {
  const key = `${from}\0${name}\0${depth}`;
  const hit = packageMemo.get(key);
  if (hit) return hit;
  const v = packageMemo.size >= LIMITS.packages ? ({ kind: 'not-read' } as const) : readPackage(from, name, declared, depth);
  packageMemo.set(key, v);
  return v;
}

function readPackage(from: string, name: string, declared: boolean, depth: number): PackageVerdict {
  const folder = installedFolder(from, name);
  if (!folder) return declared ? { kind: 'not-read' } : { kind: 'not-http' };
  const pj = readInside(folder, 'package.json', 1024 * 1024);
  let pkg: Record<string, unknown> | undefined;
  try {
    const v: unknown = pj.ok ? JSON.parse(pj.text) : undefined;
    pkg = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    pkg = undefined;
  }
  if (!pkg) return { kind: 'not-read' };
  const deps = Object.keys((pkg.dependencies as Record<string, unknown> | undefined) ?? {});
  const exists = (rel: string): boolean => /\.(?:c|m)?js$/.test(rel) && locateInside(folder, rel).ok;
  const entry = entryOfPackage(pkg, '', exists);
  if (!entry) return { kind: 'not-read' };
  const queue = [entry];
  const seen = new Set<string>();
  let bytes = 0;
  let http = deps.some((d) => HTTP_DEPENDENCIES.has(d));
  let word = false;
  let fallback = false;
  let unread = false;
  let called = false;
  let api = false;
  while (queue.length && seen.size < LIMITS.files && bytes < LIMITS.bytes) {
    const rel = queue.shift()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const t = readInside(folder, rel, LIMITS.file);
    if (!t.ok) {
      unread = true;
      continue;
    }
    bytes += t.size;
    if (HTTP_CALL.test(t.text)) called = true;
    if (API_REQUEST.test(t.text)) api = true;
    if (TIMEOUT_WORD.test(t.text)) word = true;
    if (TIMEOUT_DEFAULT.test(t.text)) fallback = true;
    for (const spec of importsOfText(t.text)) {
      if (!spec.startsWith('.')) continue;
      const base = posix.normalize(posix.join(posix.dirname(rel), spec));
      const f = [base, `${base}.js`, `${base}.cjs`, `${base}.mjs`, `${base}/index.js`].find(exists);
      if (f && !f.startsWith('..') && !seen.has(f)) queue.push(f);
    }
  }
  // Its own fetch/http calls count when its code also builds API requests (headers, credentials, a base URL).
  if (called && api) http = true;
  // The requests may be made by a dependency (@octokit/rest -> @octokit/core -> @octokit/request): followed two levels down.
  let depBounded = false;
  if (!http && depth < LIMITS.depth) {
    for (const d of deps.slice(0, LIMITS.deps)) {
      const sub = judgePackage(folder, d, false, depth + 1);
      if (sub.kind !== 'http') continue;
      http = true;
      depBounded ||= sub.bounded;
    }
  }
  if (!http) return unread || queue.length > 0 ? { kind: 'not-read' } : { kind: 'not-http' };
  return { kind: 'http', bounded: (word && fallback) || depBounded };
}

/** The name a constructed instance is kept under: `client` (a variable) or `this.client` (a field). */
function holderOf(n: NewExpression): string | undefined {
  let p: Node | undefined = n.getParent();
  while (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isAwaitExpression(p))) p = p.getParent();
  if (!p) return undefined;
  if (Node.isVariableDeclaration(p) && Node.isIdentifier(p.getNameNode())) return p.getName();
  if (Node.isPropertyDeclaration(p)) return `this.${p.getName()}`;
  if (Node.isBinaryExpression(p) && p.getOperatorToken().getText() === '=') {
    const l = p.getLeft().getText().replace(/\s+/g, '');
    return /^(?:this\.)?[\w$]+$/.test(l) ? l : undefined;
  }
  return undefined;
}

/** Does the construction pass an option named like a timeout (or options that cannot be read)? */
function passesTimeout(n: NewExpression, code: Code): boolean {
  for (const a of n.getArguments()) {
    const u = unwrap(a);
    if (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u) || Node.isTemplateExpression(u) || Node.isNumericLiteral(u)) continue;
    const o = objectLiteralOf(a, code.sources);
    if (!o) {
      if (Node.isIdentifier(u) || Node.isPropertyAccessExpression(u) || Node.isBinaryExpression(u) || Node.isCallExpression(u)) {
        // A token or a URL read from the environment or the arguments: not an options object.
        if (/(?:key|token|secret|url|uri|host|endpoint|env\.)/i.test(u.getText())) continue;
      }
      return true;
    }
    if (o.getProperties().some((p) => Node.isSpreadAssignment(p))) return true;
    if (o.getProperties().some((p) => /timeout/i.test((p as Node & { getName?: () => string }).getName?.() ?? ''))) return true;
    // A nested options object: `{ request: { timeout } }`, `{ httpOptions: { timeout } }`.
    if (/\btimeout/i.test(o.getText())) return true;
  }
  return false;
}

/**
 * The clients of dependencies used on a request path (`fns`, the functions its handlers reach) whose requests
 * have no ceiling, and the ones whose package could not be read.
 */
export function dependencyClients(code: Code, fns: readonly Fn[], root: string, declared: ReadonlySet<string>): DependencyClient[] {
  const out: DependencyClient[] = [];
  packageMemo = new Map();
  const used = (holder: string): boolean => {
    // `client.method(…)` or a namespaced method (`octokit.repos.get(…)`, `stripe.customers.list(…)`).
    const re = new RegExp(`(?:^|[^\\w$.])${holder.replace(/[.$]/g, (c) => `\\${c}`)}(?:\\s*\\??\\.\\s*[\\w$]+)+\\s*\\(`);
    return fns.some((f) => re.test(f.getText()));
  };
  for (const [, sf] of code.files) {
    const bare = new Map<string, string>();
    for (const [local, b] of importsOf(sf)) {
      const p = packageOf(b.module);
      if (!p || FRAMEWORK.test(p.name) || NOT_CLIENTS.has(p.name) || READ_ELSEWHERE.has(p.name)) continue;
      bare.set(local, p.name);
    }
    if (bare.size === 0) continue;
    for (const n of ofKinds(sf, [SyntaxKind.NewExpression], (cn) => {
      const e = (cn as ts.NewExpression).expression;
      const root = ts.isIdentifier(e) ? e : ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) ? e.expression : undefined;
      return !!root && bare.has(root.text);
    })) {
      if (!Node.isNewExpression(n)) continue;
      const e = unwrap(n.getExpression());
      const local = Node.isIdentifier(e) ? e.getText() : Node.isPropertyAccessExpression(e) ? unwrap(e.getExpression()).getText() : '';
      const pkg = bare.get(local);
      if (!pkg) continue;
      const holder = holderOf(n);
      if (!holder || !used(holder)) continue;
      const v = judgePackage(root, pkg, declared.has(pkg));
      if (v.kind === 'not-read') out.push({ package: pkg, node: n, verdict: 'not-read' });
      else if (v.kind === 'http' && !v.bounded && !passesTimeout(n, code)) out.push({ package: pkg, node: n, verdict: 'unbounded' });
    }
  }
  return out;
}
