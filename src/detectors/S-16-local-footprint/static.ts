import { afterLoad, Node, SyntaxKind, ts, type SourceFile } from '../../facts/morph.js';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { findNodes, originOf } from '../../facts/scope.js';
import { ofKinds, stringValue, unwrap } from '../../facts/ts-source.js';
import {
  authChecks,
  calleeName,
  hostLabel,
  httpTransports,
  isAllInterfaces,
  isLoopback,
  locationOf,
  nodesOf,
  readSources,
  remoteDeployment,
  resolveValue,
  transportListenSites,
} from '../support/source/source-support.js';

/**
 * S-16, static part.
 * (a) Footprint: paths that name credential stores (~/.ssh and private keys, ~/.aws, ~/.config/gcloud,
 *     ~/.azure, ~/.npmrc, ~/.netrc, ~/.docker/config.json, shell history, ~/.kube): built from the home
 *     folder (path.join/resolve(os.homedir(), …), a template with homedir() or process.env.HOME), or
 *     a string literal handed to an fs read (directly or through a const). A path tested with
 *     startsWith / includes / === (a deny check) is not a read. Each must be declared in mcp.json under
 *     `footprint` (or `files`).
 * (b) Transport: an MCP HTTP transport listening on the local machine (loopback, or every interface
 *     when nothing shows a remote deployment) with no credential check anywhere in the source.
 */

interface Store {
  path: string;
  re: RegExp;
}

const STORES: Store[] = [
  { path: '~/.ssh', re: /(^|\/)\.ssh(\/|$)/ },
  { path: '~/.ssh/id_rsa', re: /(^|\/)id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/ },
  { path: '~/.aws/credentials', re: /(^|\/)\.aws(\/|$)/ },
  { path: '~/.config/gcloud', re: /(^|\/)\.config\/gcloud(\/|$)/ },
  { path: '~/.azure', re: /(^|\/)\.azure(\/|$)/ },
  { path: '~/.npmrc', re: /(^|\/)\.npmrc$/ },
  { path: '~/.netrc', re: /(^|\/)[._]netrc$/ },
  { path: '~/.docker/config.json', re: /(^|\/)\.docker\/config\.json$/ },
  { path: '~/.bash_history', re: /(^|\/)\.bash_history$/ },
  { path: '~/.zsh_history', re: /(^|\/)\.zsh_history$/ },
  { path: 'fish_history', re: /(^|\/)fish_history$/ },
  { path: '~/.kube/config', re: /(^|\/)\.kube(\/|$)/ },
];

const storeOf = (p: string): Store | undefined => STORES.find((s) => s.re.test(p));
const STORE_HINT = /\.ssh|id_(rsa|dsa|ecdsa|ed25519)|\.aws|gcloud|\.azure|npmrc|netrc|\.docker|_history|\.kube/;

const HOME = '~';
const PATH_KINDS = afterLoad(() => [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.TemplateExpression, SyntaxKind.CallExpression]);
const FS_MODULES = new Set(['fs', 'fs/promises', 'fs-extra', 'graceful-fs']);
const FS_READS = /^(readFile|readFileSync|createReadStream|readdir|readdirSync|opendir|opendirSync|open|openSync|access|accessSync|stat|statSync|lstat|lstatSync|existsSync|copyFile|copyFileSync|cp|cpSync|readJson|readJsonSync|glob|globSync)$/;
const COMPARISONS = new Set(['startsWith', 'endsWith', 'includes', 'indexOf', 'match', 'test', 'has']);

/** The path an expression spells, with the home folder as ~ and unknown parts as *; undefined when it is not path-like. */
function pathText(node: Node, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined) return s.replace(/\\/g, '/').replace(/^\$HOME\b|^%USERPROFILE%/i, HOME);
  if (Node.isTemplateExpression(n)) {
    let out = n.getHead().getLiteralText();
    for (const span of n.getTemplateSpans()) out += part(span.getExpression(), depth) + span.getLiteral().getLiteralText();
    return out.replace(/\\/g, '/');
  }
  if (Node.isCallExpression(n)) {
    const o = originOf(n.getExpression());
    const fn = o?.path[o.path.length - 1];
    if (o && o.module === 'path' && (fn === 'join' || fn === 'resolve')) return n.getArguments().map((a) => part(a, depth)).join('/');
  }
  return undefined;
}

/** One segment of a path: the home folder, a known string, or * for a value unknown here. */
function part(node: Node, depth: number): string {
  const n = unwrap(node);
  if (isHome(n)) return HOME;
  const p = pathText(n, depth + 1);
  if (p !== undefined) return p;
  const v = resolveValue(n);
  if (v && v !== n) {
    if (isHome(v)) return HOME;
    const q = pathText(v, depth + 1);
    if (q !== undefined) return q;
  }
  return '*';
}

/** os.homedir(), process.env.HOME / USERPROFILE. */
function isHome(n: Node): boolean {
  if (Node.isCallExpression(n)) {
    const o = originOf(n.getExpression());
    return !!o && o.module === 'os' && o.path[o.path.length - 1] === 'homedir';
  }
  return /^process\.env(\.|\[['"])(HOME|USERPROFILE)\b/.test(n.getText());
}

/** True when the value is tested (a deny check) rather than used as a path. */
function isCompared(n: Node): boolean {
  const p = n.getParent();
  if (!p) return false;
  if (Node.isCallExpression(p) && (p.getArguments() as Node[]).includes(n)) return COMPARISONS.has(calleeName(p) ?? '');
  if (Node.isBinaryExpression(p)) return ['===', '!==', '==', '!='].includes(p.getOperatorToken().getText());
  return false;
}

/** True when the value (or the const it initializes) is handed to an fs read. */
function reachesFs(start: Node): boolean {
  // Climb through defaults and wrappers: readFile(process.env.X ?? '~/.kube/config').
  let n = start;
  for (let p = n.getParent(); p; p = n.getParent()) {
    const wraps =
      (Node.isBinaryExpression(p) && ['??', '||'].includes(p.getOperatorToken().getText())) ||
      (Node.isConditionalExpression(p) && p.getCondition() !== n) ||
      Node.isParenthesizedExpression(p) ||
      Node.isAsExpression(p) ||
      Node.isNonNullExpression(p);
    if (!wraps) break;
    n = p;
  }
  const uses: Node[] = [n];
  const p = n.getParent();
  if (p && Node.isVariableDeclaration(p) && Node.isIdentifier(p.getNameNode())) {
    const name = p.getName();
    const scope = p.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a));
    if (scope) for (const d of findNodes(scope, (cn) => ts.isIdentifier(cn) && cn.text === name)) if (Node.isIdentifier(d) && d !== p.getNameNode()) uses.push(d);
  }
  return uses.some((u) => {
    const c = u.getParent();
    if (!c || !Node.isCallExpression(c) || !(c.getArguments() as Node[]).includes(u)) return false;
    const o = originOf(c.getExpression());
    const fn = o?.path[o.path.length - 1] ?? calleeName(c) ?? '';
    return (!!o && FS_MODULES.has(o.module) && FS_READS.test(fn)) || (!o && FS_READS.test(fn));
  });
}

interface Read {
  file: string;
  node: Node;
  store: Store;
}

/** Every position of a text where STORE_HINT matches (overlapping starts included), in order. */
const STORE_HINT_ALL = new RegExp(STORE_HINT.source, 'g');
function hintStarts(text: string): number[] {
  const out: number[] = [];
  STORE_HINT_ALL.lastIndex = 0;
  for (let m = STORE_HINT_ALL.exec(text); m; m = STORE_HINT_ALL.exec(text)) {
    out.push(m.index);
    STORE_HINT_ALL.lastIndex = m.index + 1;
  }
  return out;
}

/** The index of the first element of a sorted array that is >= x. */
function firstAtOrAfter(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function credentialReads(files: [string, SourceFile][]): Read[] {
  const hits: Read[] = [];
  for (const [file, sf] of files) {
    // A file whose text names no credential store has no credential read: skip it without walking it.
    const text = sf.getFullText();
    const starts = hintStarts(text);
    if (starts.length === 0) continue;
    // A node's text can name a store only if a hint starts inside it (checked by a binary search, so that
    // nested calls do not each rescan their text); the node's own text is then tested as before.
    const hinted = (cn: ts.Node): boolean => {
      const from = cn.getStart(sf.compilerNode);
      const i = firstAtOrAfter(starts, from);
      return i < starts.length && starts[i]! < cn.end && STORE_HINT.test(text.slice(from, cn.end));
    };
    for (const n of ofKinds(sf, PATH_KINDS(), hinted)) {
      if (!(Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n) || Node.isTemplateExpression(n) || Node.isCallExpression(n))) continue;
      if (Node.isImportDeclaration(n.getParent()) || Node.isExternalModuleReference(n.getParent())) continue;
      // Cheap test first: only expressions whose text names a store are read further.
      if (!STORE_HINT.test(n.getText())) continue;
      const text = pathText(n);
      if (text === undefined) continue;
      const store = storeOf(text);
      if (!store || isCompared(n)) continue;
      // A path computed from the home folder is a path; a bare string only when it reaches an fs read.
      const computed = !Node.isStringLiteral(n) && !Node.isNoSubstitutionTemplateLiteral(n) && text.startsWith(HOME);
      if (computed || reachesFs(n)) hits.push({ file, node: n, store });
    }
  }
  // Report the outermost expression: '.ssh' inside path.join(os.homedir(), '.ssh') is the same read.
  return hits.filter((h) => !hits.some((o) => o !== h && o.file === h.file && o.node.containsRange(h.node.getPos(), h.node.getEnd())));
}

/** The paths mcp.json declares under footprint (or files), as strings at any depth. */
function declaredFootprint(repo: RepoFacts): string[] {
  const mcp = repo.object('mcp.json');
  if (!mcp.ok) return [];
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v.replace(/\\/g, '/'));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(mcp.value.footprint);
  walk(mcp.value.files);
  return out;
}

export default defineDetector({
  ruleId: 'S-16',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'undeclared-credential-read': ['path'],
    'local-http-without-auth': ['host'],
  },
  judge({ inputs: { repo } }): Verdict {
    const src = readSources(repo);
    if ('verdict' in src) return src.verdict;
    const findings: Finding[] = [];
    const declared = declaredFootprint(repo);
    for (const r of credentialReads(src.files)) {
      if (declared.some((d) => r.store.re.test(d))) continue;
      findings.push({ messageId: 'undeclared-credential-read', data: { path: r.store.path }, location: locationOf(r.file, r.node) });
    }
    const transports = httpTransports(src.files);
    if (transports.length > 0 && authChecks(src.files).length === 0) {
      for (const l of transportListenSites(src.files, transports)) {
        if (remoteDeployment(repo, l.file)) continue;
        const local = l.host.kind === 'none' || (l.host.kind === 'literal' && (isLoopback(l.host.value) || isAllInterfaces(l.host.value)));
        if (local) findings.push({ messageId: 'local-http-without-auth', data: { host: hostLabel(l.host) }, location: locationOf(l.file, l.node) });
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
