import { Node, SyntaxKind, ts, type CallExpression, type Identifier, type SourceFile } from '../../facts/morph.js';
import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding, Verdict } from '../../engine/types.js';
import { enclosingClass, findNodes, functionOf, mayResolveFunction, originOf, rawOriginOf } from '../../facts/scope.js';
import { namesAnyModule, parsedSources, stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';
import {
  args,
  calleeName,
  callersOf,
  declarationOf,
  enclosingFunction,
  functionName,
  initializerOf,
  locationOf,
  propertyOf,
  readSources,
  resolveValue,
  sitesOf,
  K,
  type Site,
} from '../support/source/source-support.js';

/**
 * S-19 — authorization URLs are validated before opening (static). Finds the code that opens URLs in a
 * browser: child_process running open / xdg-open / start (exec with a command string, spawn or execFile
 * with an argument array), the `open` package (and opn, better-opn), electron's shell.openExternal.
 * - Through a shell (exec, spawn with shell: true, cmd /c start, sh -c, PowerShell) with a URL that is
 *   not a constant: red.
 * - Otherwise the URL's scheme must be checked against an allowlist (protocol === 'https:',
 *   ['https:', 'http:'].includes(u.protocol), startsWith('https://'), /^https?:/.test(url)) in the
 *   opening function or in every function that calls it, or be written in the code
 *   (`http://127.0.0.1:${port}`); a blocklist of bad schemes is its own finding.
 * Only URL-looking values count (names or initializers saying url, uri, href, link, endpoint,
 * authorization, redirect…): `open` run on a file path is an editor, not a browser.
 * Only authorization URLs count: the URL, the function that opens it, the functions around it and its
 * callers (a few levels: the values they pass, their names, the call a callback is given to) must show an
 * authorization flow — OAuth metadata (authorization_endpoint), an authorization URL or endpoint, OAuth
 * parameters (client_id, response_type, redirect_uri, code_challenge), a login or sign-in, an OAuth client
 * provider (redirectToAuthorization), a device-code verification URI. A welcome page, a dashboard or a
 * documentation link opened in the browser is not S-19's concern; when every opener is of that kind the rule
 * is not-applicable ('no-authorization-url-opener').
 * Maintained sanitizers count as a scheme allowlist: strict-url-sanitise (throws on anything but http(s)) and
 * @braintree/sanitize-url (returns about:blank), as do helpers of the audited source that the opening
 * function calls, and a static Set of schemes on a class (`Cls.ALLOWED_SCHEMES.has(u.protocol)`).
 */

const OPENERS = /^(open|xdg-open|start|explorer(\.exe)?|rundll32|sensible-browser|x-www-browser|gnome-open|kde-open|wslview)$/i;
const SHELLS = /^(cmd(\.exe)?|sh|bash|zsh|dash|powershell(\.exe)?|pwsh)$/i;
const BAD_SCHEMES = ['javascript:', 'data:', 'file:', 'vbscript:'];
const OPEN_PACKAGES = new Set(['open', 'opn', 'better-opn', 'open-url']);

/** The string values an expression can take: literals, const, ternaries, { darwin: 'open', … }[platform]. */
function literalValues(node: Node | undefined, depth = 0): string[] {
  if (!node || depth > 5) return [];
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined) return [s];
  if (Node.isConditionalExpression(n)) return [...literalValues(n.getWhenTrue(), depth + 1), ...literalValues(n.getWhenFalse(), depth + 1)];
  if (Node.isBinaryExpression(n) && ['??', '||'].includes(n.getOperatorToken().getText())) {
    return [...literalValues(n.getLeft(), depth + 1), ...literalValues(n.getRight(), depth + 1)];
  }
  if (Node.isElementAccessExpression(n)) {
    const obj = resolveValue(n.getExpression());
    if (obj && Node.isObjectLiteralExpression(obj)) {
      return obj.getProperties().flatMap((p) => (Node.isPropertyAssignment(p) ? literalValues(p.getInitializer(), depth + 1) : []));
    }
  }
  if (Node.isIdentifier(n)) {
    const v = resolveValue(n);
    if (v && v !== n) return literalValues(v, depth + 1);
  }
  return [];
}

/** How a command string starts: its first word(s), and whether any part of it is not constant. */
function commandShape(node: Node): { words: string[]; dynamic: boolean } {
  const n = unwrap(resolveValue(node) ?? node);
  if (Node.isTemplateExpression(n)) {
    const head = n.getHead().getLiteralText();
    const words = head.trim() ? [head.trim()] : literalValues(n.getTemplateSpans()[0]?.getExpression()).map((v) => v + n.getTemplateSpans()[0]!.getLiteral().getLiteralText());
    return { words, dynamic: true };
  }
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') {
    let left: Node = n;
    while (Node.isBinaryExpression(left) && left.getOperatorToken().getText() === '+') left = unwrap(left.getLeft());
    return { words: literalValues(left), dynamic: true };
  }
  return { words: literalValues(n), dynamic: false };
}

/** True when a command line (first words) starts a browser, directly or through cmd /c start, sh -c, PowerShell. */
function opensBrowser(command: string): boolean {
  const w = command.trim().split(/\s+/);
  if (OPENERS.test(w[0] ?? '')) return true;
  if (SHELLS.test(w[0] ?? '')) return /\bstart\b|Start-Process|open|xdg-open/i.test(command);
  return false;
}

interface Opener extends Site {
  /** The opener as shown: exec, spawn('xdg-open'), open. */
  label: string;
  shell: boolean;
  /** The URL arguments that are not constants (empty: the opener only opens fixed URLs). */
  urls: Node[];
}

const URLISH = /url|uri|href|link|endpoint|authori[sz]|redirect|location|https?:|login|oauth|verification/i;

/** The value reads as a URL (its text or the initializer of a name in it), not a file path or an editor argument. */
function urlLike(n: Node): boolean {
  if (URLISH.test(n.getText())) return true;
  return findNodes(n, ts.isIdentifier).some((d) => {
    if (!Node.isIdentifier(d)) return false;
    const i = initializerOf(declarationOf(d));
    return !!i && URLISH.test(i.getText());
  });
}

/** The constant text a value starts with (literal, template head, left of a concatenation, through consts). */
function prefixOf(node: Node | undefined, depth = 0): string | undefined {
  if (!node || depth > 4) return undefined;
  const n = unwrap(node);
  const s = stringValue(n);
  if (s !== undefined) return s;
  if (Node.isTemplateExpression(n)) return n.getHead().getLiteralText() || undefined;
  if (Node.isBinaryExpression(n) && n.getOperatorToken().getText() === '+') return prefixOf(n.getLeft(), depth + 1);
  if (Node.isIdentifier(n)) {
    const v = resolveValue(n);
    return v && v !== n ? prefixOf(v, depth + 1) : undefined;
  }
  return undefined;
}

/** The scheme is written in the code: http(s)://… */
const fixedScheme = (n: Node | undefined): boolean => /^https?:\/\//i.test(prefixOf(n) ?? '');

function openers(files: [string, SourceFile][]): Opener[] {
  const out: Opener[] = [];
  const modules = ['child_process', 'cross-spawn', 'execa', 'electron', ...OPEN_PACKAGES];
  const moduleSet = new Set(modules);
  // Raw pre-filter: every branch below needs a callee from one of these modules.
  const fromModules = (cn: ts.Node): boolean => ts.isCallExpression(cn) && moduleSet.has(rawOriginOf(cn.expression)?.module ?? '');
  for (const s of sitesOf(files.filter(([, sf]) => namesAnyModule(sf, modules)), K.call, Node.isCallExpression, fromModules)) {
    const call = s.node;
    const o = originOf(call.getExpression());
    if (!o) continue;
    const fn = o.path[o.path.length - 1] ?? '';
    const a = args(call);
    if (o.module === 'child_process' && (fn === 'exec' || fn === 'execSync') && a[0]) {
      const shape = commandShape(a[0]);
      if (!shape.words.some(opensBrowser)) continue;
      if (shape.dynamic && !urlLike(a[0])) continue;
      out.push({ ...s, label: fn, shell: true, urls: shape.dynamic ? [a[0]] : [] });
    } else if ((o.module === 'child_process' && ['spawn', 'spawnSync', 'execFile', 'execFileSync'].includes(fn)) || (o.module === 'cross-spawn' && fn !== 'sync') || (o.module === 'execa' && ['', 'execa', 'execaSync'].includes(fn))) {
      const cmds = literalValues(a[0]);
      const argvNode = a[1] && Node.isArrayLiteralExpression(a[1]) ? a[1] : undefined;
      const argv = argvNode ? argvNode.getElements().map(unwrap) : [];
      const opts = a.find((x, i) => i > 0 && Node.isObjectLiteralExpression(x));
      const shellOpt = propertyOf(opts, 'shell');
      const viaShell = !!shellOpt && shellOpt.getText() !== 'false';
      const argText = argv.map((x) => stringValue(x) ?? '').join(' ');
      const isOpener = cmds.some((c) => OPENERS.test(c)) || cmds.some((c) => SHELLS.test(c) && opensBrowser(`${c} ${argText}`));
      if (!isOpener) continue;
      const shell = viaShell || cmds.some((c) => SHELLS.test(c));
      const dynamic = argv.filter((x) => stringValue(x) === undefined);
      const urls = dynamic.filter(urlLike);
      if (dynamic.length > 0 && urls.length === 0) continue;
      out.push({ ...s, label: `${fn || o.module}('${cmds[0]}')`, shell, urls });
    } else if ((OPEN_PACKAGES.has(o.module) && (fn === '' || fn === 'default')) || (o.module === 'electron' && fn === 'openExternal')) {
      if (!a[0]) continue;
      const constant = stringValue(a[0]) !== undefined;
      if (!constant && !urlLike(a[0])) continue;
      out.push({ ...s, label: o.module === 'electron' ? 'shell.openExternal' : o.module, shell: false, urls: constant ? [] : [a[0]] });
    }
  }
  return out;
}

type Check = { kind: 'allow' } | { kind: 'block'; node: Node } | { kind: 'none' };

const endsWithProtocol = (n: Node): boolean => /\.protocol$/.test(unwrap(n).getText());

/** Maintained URL sanitizers that let only http(s) through (or turn anything else into about:blank). */
const SANITIZERS = new Set(['strict-url-sanitise', '@braintree/sanitize-url']);

/** The scheme check written in a function, or in the helpers of the audited source it calls: an allowlist wins over a blocklist. */
function checksIn(fn: Node, sources?: ParsedSources, depth = 0): Check {
  const own = checksInOwn(fn);
  if (own.kind === 'allow' || !sources || depth > 1) return own;
  for (const call of findNodes(fn, (cn) => cn !== fn.compilerNode && ts.isCallExpression(cn) && mayResolveFunction(cn.expression))) {
    if (!Node.isCallExpression(call)) continue;
    const helper = functionOf(call.getExpression(), sources);
    if (!helper || helper === fn || helper.containsRange(fn.getPos(), fn.getEnd())) continue;
    const h = checksIn(helper, sources, depth + 1);
    if (h.kind === 'allow') return h;
    if (h.kind === 'block' && own.kind === 'none') return h;
  }
  return own;
}

function checksInOwn(fn: Node): Check {
  let block: Node | undefined;
  let allow = false;
  fn.forEachDescendant((n, t) => {
    if (Node.isBinaryExpression(n) && ['===', '!==', '==', '!='].includes(n.getOperatorToken().getText())) {
      const l = n.getLeft();
      const r = n.getRight();
      const lit = stringValue(l) ?? stringValue(r);
      const other = stringValue(l) !== undefined ? r : l;
      if (lit !== undefined && endsWithProtocol(other)) {
        if (lit === 'https:' || lit === 'http:') allow = true;
        else if (BAD_SCHEMES.includes(lit)) block ??= n;
      }
    } else if (Node.isCallExpression(n)) {
      const name = calleeName(n) ?? '';
      const arg0 = n.getArguments()[0];
      const lit = stringValue(arg0);
      const origin = originOf(n.getExpression());
      if (origin && SANITIZERS.has(origin.module)) allow = true;
      else if (name === 'startsWith' && lit !== undefined) {
        if (/^https?:/.test(lit)) allow = true;
        else if (BAD_SCHEMES.some((b) => lit.toLowerCase().startsWith(b))) block ??= n;
      } else if ((name === 'includes' || name === 'has') && arg0 && endsWithProtocol(arg0)) {
        const recv = n.getExpression();
        const values = Node.isPropertyAccessExpression(recv) ? collectionValues(recv.getExpression()) : [];
        if (values.some((v) => v === 'https:' || v === 'http:')) allow = true;
        else if (values.some((v) => BAD_SCHEMES.includes(v))) block ??= n;
      } else if (name === 'test' || name === 'match') {
        const re = name === 'test' ? n.getExpression() : arg0;
        const rx = re && Node.isPropertyAccessExpression(re) ? unwrap(re.getExpression()) : re ? unwrap(re) : undefined;
        const src = rx && Node.isRegularExpressionLiteral(rx) ? rx.getLiteralText() : '';
        if (/^\/\^\(?https\?|^\/\^https/.test(src)) allow = true;
        else if (/javascript|vbscript|data:|file:/i.test(src)) block ??= n;
      }
    }
    if (allow) t.stop();
  });
  if (allow) return { kind: 'allow' };
  return block ? { kind: 'block', node: block } : { kind: 'none' };
}

/** The literal strings of an array or Set written in place, in a const, or in a static property of a class (`Cls.SCHEMES`, `this.SCHEMES`). */
function collectionValues(n: Node): string[] {
  let v = resolveValue(n);
  const u = unwrap(n);
  if (Node.isPropertyAccessExpression(u)) {
    const cls = Node.isThisExpression(unwrap(u.getExpression())) ? enclosingClass(u) : undefined;
    const named = cls ?? (Node.isIdentifier(unwrap(u.getExpression())) ? declarationOf(unwrap(u.getExpression()) as Identifier) : undefined);
    const c = named && (Node.isClassDeclaration(named) || Node.isClassExpression(named)) ? named : undefined;
    const prop = c?.getProperty(u.getName());
    const init = prop && Node.isPropertyDeclaration(prop) ? prop.getInitializer() : undefined;
    if (init) v = unwrap(init);
  }
  if (v && Node.isNewExpression(v)) v = v.getArguments()[0] ? resolveValue(v.getArguments()[0]) : undefined;
  return v && Node.isArrayLiteralExpression(v) ? v.getElements().map((e) => stringValue(e)).filter((s): s is string => s !== undefined) : [];
}

/** The position of the parameter of `fn` that a URL expression is built from, or -1. */
function parameterIndex(fn: Node, url: Node | undefined, depth = 0): number {
  if (!url || depth > 3 || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn) || Node.isMethodDeclaration(fn))) return -1;
  const params = fn.getParameters();
  for (const d of findNodes(url, ts.isIdentifier)) {
    if (!Node.isIdentifier(d)) continue;
    const decl = declarationOf(d);
    const i = params.findIndex((p) => p === decl);
    if (i >= 0) return i;
    // const safe = sanitize(url): a local value made from the parameter.
    const init = decl && Node.isVariableDeclaration(decl) && fn.containsRange(decl.getPos(), decl.getEnd()) ? initializerOf(decl) : undefined;
    const j = init ? parameterIndex(fn, init, depth + 1) : -1;
    if (j >= 0) return j;
  }
  return -1;
}

/**
 * The check that guards a URL opened in a function: its own, or, when the URL is a parameter, the one in
 * every function that calls it (a few levels up); a caller passing a URL whose scheme is written in the
 * code (`http://127.0.0.1:${port}`) needs none.
 */
function guardOf(fn: Node, files: [string, SourceFile][], url: Node | undefined, sources: ParsedSources, depth = 0): Check {
  const own = checksIn(fn, sources);
  if (own.kind === 'allow' || depth > 3) return own;
  const index = parameterIndex(fn, url);
  const callers = index >= 0 ? callersOf(fn, files) : [];
  if (callers.length === 0) return own;
  const up = callers.map((c): Check => {
    const arg = c.node.getArguments()[index];
    if (fixedScheme(arg)) return { kind: 'allow' };
    return guardOf(enclosingFunction(c.node) ?? c.node.getSourceFile(), files, arg, sources, depth + 1);
  });
  if (up.every((u) => u.kind === 'allow')) return { kind: 'allow' };
  if (own.kind === 'block') return own;
  return up.find((u) => u.kind === 'block') ?? own;
}

/** Words that show an authorization flow (see the file header). */
const AUTH_WORDS = /authori[sz]|oauth|log_?in\b|sign_?in|consent|verification_?ur[il]|device_?code|client_id|response_type|redirect_uri|code_challenge|auth_?ur[il]|auth_?endpoint/i;

/** The text a value is made of: itself and the initializers of the names in it (one level). */
function saysAuthorization(n: Node | undefined): boolean {
  if (!n) return false;
  if (AUTH_WORDS.test(n.getText())) return true;
  return findNodes(n, ts.isIdentifier).some((d) => {
    if (!Node.isIdentifier(d)) return false;
    const i = initializerOf(declarationOf(d));
    return !!i && AUTH_WORDS.test(i.getText());
  });
}

/** A function's name, or, for a callback, what it is given to (`registerTool('login', …)`, `new XOAuthProvider(…, (url) => …)`). */
function contextText(fn: Node): string {
  const name = Node.isMethodDeclaration(fn) ? fn.getName() : functionName(fn);
  if (name) return name;
  const call = fn.getParent();
  if (call && (Node.isCallExpression(call) || Node.isNewExpression(call))) {
    return [call.getExpression().getText(), ...(call.getArguments() as Node[]).map((a) => stringValue(a) ?? '')].join(' ');
  }
  return '';
}

/** The calls of a method from its own class (`this.openBrowser(url)`). */
function methodCallers(fn: Node): CallExpression[] {
  if (!Node.isMethodDeclaration(fn)) return [];
  const cls = fn.getParent();
  const name = fn.getName();
  return findNodes(cls, (cn) => ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression) && cn.expression.name.text === name && cn.expression.expression.kind === SyntaxKind.ThisKeyword).filter(Node.isCallExpression);
}

/**
 * Whether an opener opens an authorization URL: its URL, the functions around it, and, for a URL received as
 * a parameter, the callers (three levels up) and what they pass say so.
 */
function opensAuthorization(o: Opener, files: [string, SourceFile][]): boolean {
  if (o.urls.some(saysAuthorization)) return true;
  const visit = (fn: Node | undefined, url: Node | undefined, depth: number): boolean => {
    if (!fn || depth > 3) return false;
    for (let f: Node | undefined = fn, i = 0; f && i < 4; f = enclosingFunction(f), i++) if (AUTH_WORDS.test(contextText(f))) return true;
    const index = parameterIndex(fn, url);
    if (index < 0) return false;
    const calls: CallExpression[] = [...callersOf(fn, files).map((c) => c.node), ...methodCallers(fn)];
    return calls.some((c) => {
      const arg = c.getArguments()[index];
      return saysAuthorization(arg) || visit(enclosingFunction(c), arg, depth + 1);
    });
  };
  return visit(enclosingFunction(o.node), o.urls[0], 0);
}

const fileOf = (files: [string, SourceFile][], n: Node): string => files.find(([, sf]) => sf === n.getSourceFile())?.[0] ?? n.getSourceFile().getBaseName();

export default [
  defineDetector({
    ruleId: 'S-19',
    genre: 'static',
    needs: ['repo'],
    messages: {
      'opened-through-shell': ['opener'],
      'scheme-unchecked': ['opener'],
      'scheme-blocklist': ['opener'],
    },
    judge({ inputs: { repo } }): Verdict {
      const src = readSources(repo);
      if ('verdict' in src) return src.verdict;
      const found = openers(src.files);
      if (found.length === 0) return notApplicable('no-url-opener');
      const sources = parsedSources(repo);
      const authorization = found.filter((o) => o.urls.length > 0 && opensAuthorization(o, src.files));
      if (authorization.length === 0 && found.some((o) => o.urls.length > 0)) return notApplicable('no-authorization-url-opener', { count: found.length });
      const findings: Finding[] = [];
      const seen = new Set<string>();
      for (const o of authorization) {
        if (o.shell) {
          findings.push({ messageId: 'opened-through-shell', data: { opener: o.label }, location: locationOf(o.file, o.node) });
          continue;
        }
        if (o.urls.every(fixedScheme)) continue;
        const g = guardOf(enclosingFunction(o.node) ?? o.node.getSourceFile(), src.files, o.urls[0], sources);
        if (g.kind === 'allow') continue;
        if (g.kind === 'block') {
          const loc = locationOf(fileOf(src.files, g.node), g.node);
          const key = `${loc.file}:${loc.line}`;
          if (!seen.has(key)) findings.push({ messageId: 'scheme-blocklist', data: { opener: o.label }, location: loc });
          seen.add(key);
        } else findings.push({ messageId: 'scheme-unchecked', data: { opener: o.label }, location: locationOf(o.file, o.node) });
      }
      return findings.length ? { state: 'non-conforming', findings } : present();
    },
  }),
];
