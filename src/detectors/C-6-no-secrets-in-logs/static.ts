import { SyntaxKind, Node, type CallExpression, type SourceFile, ts } from '../../facts/morph.js';
import { defineDetector, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { declarationOf, initializerOf, isRawFunctionLike, rawDeclarationOf, rawOriginOf } from '../../facts/scope.js';
import { serverModel } from '../../facts/server-model.js';
import { ofKinds, positionOf, propertyName, rawOfKinds, rawPositionOf, rawUnwrap, unwrap, wrapNode } from '../../facts/ts-source.js';
import { codeOf, isFn, passThrough, sinkOf, type Code, type Fn } from '../support/source/code-paths.js';
import { named, rawNameText } from '../support/source/source-support.js';
import { judgePythonLogs } from './python.js';
import { libraryLoggerOf } from './logger-origin.js';
import type { ParsedSources } from '../../facts/ts-source.js';
import { axiosResponseHeld, httpClientErrorsLogged } from './http-errors.js';
import { execErrorsToClient } from './exec-errors.js';
import { CONSOLE_METHODS, isPersonalName, isSecretName, LOGGER_FACTORY, LOGGER_METHODS, LOGGER_NAME, MASKING } from './names.js';

/**
 * C-6 — no secrets in logs, no raw traces to clients (static part). Two looks at the source:
 *
 * Log statements — `console.log/info/warn/error/debug/trace`, a logger method (`info`, `warn`, `error`,
 * `debug`, `trace`, `fatal`, `log`) on an object named log/logger/pino/winston/bunyan or ending in
 * `Logger`, or on a logger library's instance under another name (built here, imported or a class field: logger-origin.ts), a log function of the file that writes to console or stderr (`log('error', …)`, localLogWrapper;
 * a first argument 'debug'/'trace' is its debug level), and MCP log notifications (`sendLoggingMessage`) — that carry, as a value (interpolated,
 * concatenated, as an argument or an object field, possibly through String/JSON.stringify/inspect):
 *   - a secret-named value: a name ending in token, password, passwd, secret, apiKey, authorization,
 *     cookie, privateKey, accessKey or credentials (progress/page/cancellation tokens excepted);
 *   - a request or environment object whole: `process.env`, `req` / `request`, `headers`, `authInfo`;
 *   - a personal field: a name ending in email, ipAddress, phone(Number), remoteAddress, or `ip` alone;
 *   - an internal detail of the machine: `__dirname`, `__filename`, `import.meta.url`, `process.execPath`,
 *     `process.cwd()`, `os.hostname()`, `os.homedir()`, `os.userInfo()`, or a const declared with one of them
 *     (`const workdir = process.cwd()`, internalHeldBy);
 *   - a tool call's arguments whole (the handler's arguments parameter, `request.params.arguments`): the user's
 *     data, logged by default; a logger's debug/trace level, a debug-level MCP log message, or a gate that an
 *     environment variable or a command-line flag turns on (whatever its name, diagnosticGated/optIn) is the opt-in;
 *   - an upstream response whole, read through axios (`JSON.stringify(res.data)`, `res`): the user's account data,
 *     logged by default (same opt-ins);
 *   - a getter of such a field (`client.getEmail()`, `getApiKey()`), read as the field it returns, unless every
 *     declaration of it in the package returns a literal (`getSupportEmail() { return 'support@…' }`, literalGetters).
 * An HTTP client's error logged whole where the client sends a credential (http-errors.ts).
 * Secret names include connection strings and database URLs (connectionString, databaseUrl, dsn, mongoUri…).
 * A value only tested or measured (`!!token`, `token.length`, `typeof token`) is not logged. Logger calls
 * are not flagged when a pino `redact` option is configured anywhere in the source.
 * A secret-named value that does not hold the secret is not one either: a const whose value is a label of
 * where the secret comes from (`const token = process.env.X ? 'environment' : 'config file'`) or a masked
 * form (`mask(key)`, `key.slice(0, 4) + '…'`, `'*'.repeat(8)`, a replace with asterisks), and a secret
 * logged through a short prefix or suffix (`apiKey.slice(0, 4)`). A cut that keeps more than 8 characters or an
 * open end (`apiKey.substring(0, 20)`, `token.slice(0, 12)`, `header.slice(7)`) prints the secret (rawCut).
 * Tool arguments or an upstream response logged at the info level of a winston/pino logger whose level is set
 * from a value not read here (`level: config.logLevel`) are not judged: info may be off by default (loggerLevelUnread).
 *
 * Raw traces returned to the client — `<error>.stack` (an error variable: a catch binding, or a name like
 * err / error / e / ex, or `new Error().stack`) flowing into a tool result's `content` /
 * `structuredContent`, into `new McpError(…)` / `new ProtocolError(…)`, or into an error thrown from a
 * tool handler (the SDK turns it into the result's text).
 * A failed command's raw error (its command line and stderr) sent to the client (exec-errors.ts).
 * A driver's raw connection or launch error (the host it names, the browser's path) sent to the client (exec-errors.ts).
 * Python source only: the Python reading (python.ts), with the same message ids.
 */

const WHOLE_OBJECTS = new Set(['req', 'request', 'headers', 'rawHeaders', 'authInfo']);
const ERROR_NAME = /^(?:e|err|error|ex|exc|exception|cause)$|(?:Error|Err)$/;
const ERROR_CLASSES = /(?:^|\.)(?:McpError|ProtocolError)$/;

/** The last name of a value expression: `token`, `apiKey` for cfg.apiKey, `cookie` for h['cookie']. */
function lastName(n: ts.Node): string | undefined {
  if (ts.isIdentifier(n)) return n.text;
  if (ts.isPropertyAccessExpression(n)) return n.name.text;
  if (ts.isElementAccessExpression(n)) {
    const a = rawUnwrap(n.argumentExpression);
    return ts.isStringLiteral(a) || ts.isNoSubstitutionTemplateLiteral(a) ? a.text : undefined;
  }
  return undefined;
}

type Logged = { kind: 'secret' | 'object' | 'personal' | 'internal' | 'arguments' | 'response'; name: string; node: Node; cut?: true };

/** An upstream response whole: an axios response (`res`, which also keeps the request's headers) or its `res.data`. */
function wholeResponse(n: ts.Node): boolean {
  if (ts.isIdentifier(n)) return axiosResponseHeld(n);
  if (!ts.isPropertyAccessExpression(n) || n.name.text !== 'data') return false;
  const o = rawUnwrap(n.expression);
  return ts.isIdentifier(o) && axiosResponseHeld(o);
}

/**
 * A tool call's arguments whole: the parameter of a tool handler that receives them (`async (args) => …`, the entry
 * of the server model with an empty path), a `*.params.arguments` read of a tools/call request, or a const holding
 * one (`const args = request.params.arguments ?? {}`, `const { name, arguments: args } = request.params`). One field of them (`args.projectKey`) is not the whole.
 */
function isParamsArguments(n: ts.Node): boolean {
  if (!ts.isPropertyAccessExpression(n) || n.name.text !== 'arguments') return false;
  const o = rawUnwrap(n.expression);
  return ts.isPropertyAccessExpression(o) && o.name.text === 'params';
}
function wholeArguments(n: ts.Node, argParams: ReadonlySet<ts.Node>): boolean {
  if (isParamsArguments(n)) return true;
  if (!ts.isIdentifier(n)) return false;
  const d = rawDeclarationOf(n);
  if (!d) return false;
  if (argParams.has(d)) return true;
  // `const { name, arguments: args } = request.params`
  const be = d.parent;
  if (be && ts.isBindingElement(be) && be.name === d && be.propertyName && rawNameText(be.propertyName) === 'arguments' && ts.isObjectBindingPattern(be.parent)) {
    const vd = be.parent.parent;
    if (!ts.isVariableDeclaration(vd) || !vd.initializer || !ts.isVariableDeclarationList(vd.parent) || (vd.parent.flags & ts.NodeFlags.Const) === 0) return false;
    const init = rawUnwrap(vd.initializer);
    return ts.isPropertyAccessExpression(init) && init.name.text === 'params';
  }
  const decl = d.parent;
  if (!decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer || !ts.isVariableDeclarationList(decl.parent) || (decl.parent.flags & ts.NodeFlags.Const) === 0) return false;
  let init = rawUnwrap(decl.initializer);
  while (ts.isBinaryExpression(init) && (init.operatorToken.kind === SyntaxKind.QuestionQuestionToken || init.operatorToken.kind === SyntaxKind.BarBarToken)) init = rawUnwrap(init.left);
  return isParamsArguments(init);
}

/** `getEmail()`, `this.client.getApiKey()`: a getter without arguments whose name (after `get`) is a secret or personal field. */
function getterName(cn: ts.CallExpression): string | undefined {
  if (cn.arguments.length) return undefined;
  const name = getterCallee(cn);
  const m = /^get_?([A-Za-z][\w]*)$/.exec(name);
  return m && /^[A-Z_]/.test(name.slice(3)) ? m[1] : undefined;
}

function getterCallee(cn: ts.CallExpression): string {
  const c = rawUnwrap(cn.expression);
  return ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : '';
}

/**
 * The getters of the package that return a constant: every function or method declared in the source under that
 * name (`getSupportEmail() { return "support@example.com"; }`) returns a literal and nothing else. The package's
 * own published address or placeholder is no secret and no person's data. A name declared nowhere in the source
 * (a library's getter) or once with another return is not in the set.
 */
function literalGetters(code: Code): Set<string> {
  const literal = new Map<string, boolean>();
  const isLiteral = (e: ts.Expression | undefined): boolean => {
    const v = e && rawUnwrap(e);
    return !!v && (ts.isStringLiteralLike(v) || ts.isNumericLiteral(v) || v.kind === SyntaxKind.NullKeyword);
  };
  for (const [, sf] of code.files) {
    const visit = (n: ts.Node): void => {
      let name: string | undefined;
      let body: ts.Node | undefined;
      if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n)) && n.name) {
        name = rawNameText(n.name);
        body = n.body;
      } else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && isRawFunctionLike(rawUnwrap(n.initializer))) {
        name = n.name.text;
        body = (rawUnwrap(n.initializer) as ts.FunctionLikeDeclaration).body;
      } else if (ts.isPropertyAssignment(n) && n.initializer && isRawFunctionLike(rawUnwrap(n.initializer))) {
        name = rawNameText(n.name);
        body = (rawUnwrap(n.initializer) as ts.FunctionLikeDeclaration).body;
      }
      if (name && /^get_?[A-Z_]/.test(name) && body) {
        let ok: boolean;
        if (!ts.isBlock(body)) ok = isLiteral(body as ts.Expression);
        else {
          const returns: ts.ReturnStatement[] = [];
          const find = (m: ts.Node): void => {
            if (isRawFunctionLike(m)) return;
            if (ts.isReturnStatement(m)) returns.push(m);
            ts.forEachChild(m, find);
          };
          ts.forEachChild(body, find);
          ok = returns.length > 0 && returns.every((r) => isLiteral(r.expression));
        }
        literal.set(name, (literal.get(name) ?? true) && ok);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf.compilerNode);
  }
  return new Set([...literal].filter(([, ok]) => ok).map(([n]) => n));
}

/** Values that name the machine's own layout: its file paths, home, user and host name. */
const INTERNAL_IDS = new Set(['__dirname', '__filename']);
const INTERNAL_ACCESS = new Set(['process.execPath', 'import.meta.url', 'import.meta.dirname', 'import.meta.filename']);
const OS_CALLS = new Set(['hostname', 'homedir', 'userInfo']);

/** `os.hostname()`, `os.homedir()`, `os.userInfo()` (node:os, namespace or named import) and `process.cwd()`. */
function internalCall(cn: ts.CallExpression): string | undefined {
  const c = rawUnwrap(cn.expression);
  if (ts.isPropertyAccessExpression(c)) {
    const recv = rawUnwrap(c.expression);
    if (!ts.isIdentifier(recv)) return undefined;
    if (recv.text === 'process' && c.name.text === 'cwd' && rawOriginOf(recv)?.module === '<global>') return 'process.cwd()';
    if (OS_CALLS.has(c.name.text) && rawOriginOf(recv)?.module === 'os') return `os.${c.name.text}()`;
    return undefined;
  }
  if (ts.isIdentifier(c) && OS_CALLS.has(c.text)) {
    const o = rawOriginOf(c);
    return o?.module === 'os' && o.path[0] === c.text ? `os.${c.text}()` : undefined;
  }
  return undefined;
}

/** `__dirname`, `import.meta.url`, `os.hostname()`…: the internal value an expression reads, by its text. */
function internalValue(n: ts.Node): string | undefined {
  const text = () => n.getText(n.getSourceFile()).replace(/\s+/g, '');
  if (ts.isIdentifier(n)) return INTERNAL_IDS.has(n.text) ? n.text : undefined;
  if (ts.isPropertyAccessExpression(n)) return INTERNAL_ACCESS.has(text()) ? text() : undefined;
  return ts.isCallExpression(n) ? internalCall(n) : undefined;
}

/** The internal value a const is declared with (`const cwdLog = process.cwd()`), read on its initialiser alone. */
function internalHeldBy(id: ts.Identifier): string | undefined {
  const d = rawDeclarationOf(id);
  const decl = d?.parent;
  if (!d || !decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer || !ts.isVariableDeclarationList(decl.parent) || (decl.parent.flags & ts.NodeFlags.Const) === 0) return undefined;
  return internalValue(rawUnwrap(decl.initializer));
}

/**
 * A cut of a value by literal bounds (`x.slice(0, 4)`, `x.substring(0, 20)`, `x.substr(0, 16)`, `x.slice(-4)`,
 * `x.slice(7)`): 'short' when it keeps at most 8 characters (a hint), 'long' when it keeps more or an open end.
 */
const CUT_METHODS = new Set(['slice', 'substring', 'substr']);
function rawCut(cn: ts.CallExpression): 'short' | 'long' | undefined {
  const c = rawUnwrap(cn.expression);
  if (!ts.isPropertyAccessExpression(c) || !CUT_METHODS.has(c.name.text)) return undefined;
  const nums = cn.arguments.map((a) => {
    const u = rawUnwrap(a);
    if (ts.isNumericLiteral(u)) return Number(u.text);
    if (ts.isPrefixUnaryExpression(u) && u.operator === SyntaxKind.MinusToken && ts.isNumericLiteral(u.operand)) return -Number(u.operand.text);
    return Number.NaN;
  });
  if (nums.length === 0 || nums.some(Number.isNaN)) return undefined;
  const [a, b] = nums as [number, number | undefined];
  if (a < 0) return a >= -8 ? 'short' : 'long';
  if (b === undefined || b < 0) return 'long';
  return (c.name.text === 'substr' ? b : b - a) <= 8 ? 'short' : 'long';
}
/** `x.slice(0, 4)`, `x.substring(0, 6)`, `x.slice(-4)`: a few characters of a value, as a hint. */
function isShortCut(call: Node): boolean {
  return Node.isCallExpression(call) && rawCut(call.compilerNode) === 'short';
}

/** Does an expression stand for a label or a masked form rather than a secret (see the file header)? */
function labelOrMask(expr: Node | undefined, depth = 0): boolean {
  if (!expr || depth > 6) return false;
  const n = unwrap(expr);
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n) || Node.isNumericLiteral(n) || Node.isTrueLiteral(n) || Node.isFalseLiteral(n) || Node.isNullLiteral(n)) return true;
  if (Node.isIdentifier(n) && n.getText() === 'undefined') return true;
  if (Node.isTemplateExpression(n)) return n.getTemplateSpans().every((sp) => labelOrMask(sp.getExpression(), depth + 1));
  if (Node.isConditionalExpression(n)) return labelOrMask(n.getWhenTrue(), depth + 1) && labelOrMask(n.getWhenFalse(), depth + 1);
  if (Node.isBinaryExpression(n) && ['+', '||', '??'].includes(n.getOperatorToken().getText())) return labelOrMask(n.getLeft(), depth + 1) && labelOrMask(n.getRight(), depth + 1);
  if (Node.isCallExpression(n)) {
    if (isShortCut(n)) return true;
    const c = unwrap(n.getExpression());
    const name = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
    if (MASKING.test(name)) return true;
    // '*'.repeat(8), key.replace(/./g, '*'), key.replaceAll(/\w/g, '•')
    if (Node.isPropertyAccessExpression(c) && name === 'repeat') return labelOrMask(c.getExpression(), depth + 1);
    if (Node.isPropertyAccessExpression(c) && (name === 'replace' || name === 'replaceAll')) {
      const rep = n.getArguments()[1];
      const v = rep && (Node.isStringLiteral(unwrap(rep)) || Node.isNoSubstitutionTemplateLiteral(unwrap(rep))) ? unwrap(rep).getText() : '';
      return /[*•x#]/.test(v);
    }
    return false;
  }
  if (Node.isIdentifier(n)) return heldLabelOrMask(n, depth + 1);
  return false;
}

/** A const whose value is a label or a masked form. */
function heldLabelOrMask(id: Node, depth: number): boolean {
  if (!Node.isIdentifier(id)) return false;
  const d = declarationOf(id);
  const decl = d?.getParent();
  const list = decl?.getParent();
  if (!d || !Node.isVariableDeclaration(decl) || !Node.isVariableDeclarationList(list) || (list.getFlags() & ts.NodeFlags.Const) === 0) return false;
  return labelOrMask(initializerOf(d), depth);
}

/**
 * What a log argument carries as a value: secret-named values and whole request / env objects. The
 * argument is read on compiler nodes; only a leaf with a name of interest is wrapped, to follow it up.
 */
function loggedValues(sf: SourceFile, arg: ts.Node, argParams: ReadonlySet<ts.Node>, constGetters: ReadonlySet<string>): Logged[] {
  const out: Logged[] = [];
  // The value must reach the argument through pass-through nodes only; a short cut of it is a hint, not the value.
  const reaches = (raw: ts.Node): boolean => {
    let cur: Node = wrapNode(sf, raw);
    while (cur.compilerNode !== arg) {
      const up = passThrough(cur);
      if (!up || isShortCut(up)) return false;
      cur = up;
    }
    return true;
  };
  const consider = (raw: ts.Node) => {
    // Cheap test first: only secret-named values, whole request objects and process.env are of interest.
    const name = lastName(raw);
    if (!name) return;
    if (wholeArguments(raw, argParams)) {
      if (reaches(raw)) out.push({ kind: 'arguments', name: raw.getText(sf.compilerNode).replace(/\s+/g, '').slice(0, 60), node: wrapNode(sf, raw) });
      return;
    }
    if (wholeResponse(raw)) {
      if (reaches(raw)) out.push({ kind: 'response', name: raw.getText(sf.compilerNode).replace(/\s+/g, '').slice(0, 60), node: wrapNode(sf, raw) });
      return;
    }
    const internal = internalValue(raw);
    if (internal) {
      if (reaches(raw)) out.push({ kind: 'internal', name: internal, node: wrapNode(sf, raw) });
      return;
    }
    // A const that holds one (`const cwd = process.cwd()`, then `${cwd}` in the log line).
    const held = ts.isIdentifier(raw) ? internalHeldBy(raw) : undefined;
    if (held) {
      if (reaches(raw)) out.push({ kind: 'internal', name: `${name} (${held})`, node: wrapNode(sf, raw) });
      return;
    }
    if (isPersonalName(name) && !isSecretName(name)) {
      if (reaches(raw) && !(ts.isIdentifier(raw) && heldLabelOrMask(wrapNode(sf, raw), 0))) out.push({ kind: 'personal', name: raw.getText(sf.compilerNode).replace(/\s+/g, '').slice(0, 60), node: wrapNode(sf, raw) });
      return;
    }
    if (!(name === 'env' || WHOLE_OBJECTS.has(name) || isSecretName(name))) {
      // A configuration object logged whole: `const config = { apiKey: process.env.X, … }` then log(config).
      const held = ts.isIdentifier(raw) ? secretHeldBy(raw) : undefined;
      if (held && reaches(raw)) out.push({ kind: 'secret', name: `${name}.${held}`.slice(0, 60), node: wrapNode(sf, raw) });
      return;
    }
    if (!reaches(raw)) return;
    const leaf = wrapNode(sf, raw);
    const text = leaf.getText().replace(/\s+/g, '');
    if (text === 'process.env') out.push({ kind: 'object', name: text, node: leaf });
    else if (WHOLE_OBJECTS.has(name)) out.push({ kind: 'object', name: text.slice(0, 60), node: leaf });
    else if (isSecretName(name) && !(Node.isIdentifier(leaf) && heldLabelOrMask(leaf, 0))) out.push({ kind: 'secret', name: text.slice(0, 60), node: leaf });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isShorthandPropertyAssignment(n)) {
      consider(n.name);
      return;
    }
    if (ts.isIdentifier(n) || ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) {
      consider(n);
      return; // the maximal access is the value; its parts are not
    }
    if (isRawFunctionLike(n)) return;
    if (ts.isCallExpression(n)) {
      const internal = internalCall(n);
      if (internal) {
        if (reaches(n)) out.push({ kind: 'internal', name: internal, node: wrapNode(sf, n) });
        return;
      }
      // A long cut of a secret (`apiKey.substring(0, 20)`, `token.slice(7)`) prints most of it: not a hint.
      const cutOf = rawCut(n) === 'long' ? rawUnwrap((rawUnwrap(n.expression) as ts.PropertyAccessExpression).expression) : undefined;
      const cutName = cutOf && lastName(cutOf);
      if (cutOf && cutName && isSecretName(cutName) && !(ts.isIdentifier(cutOf) && heldLabelOrMask(wrapNode(sf, cutOf), 0)) && reaches(n)) {
        out.push({ kind: 'secret', name: n.getText(sf.compilerNode).replace(/\s+/g, '').slice(0, 60), node: wrapNode(sf, n), cut: true });
        return;
      }
      const got = getterName(n);
      if (got && (isSecretName(got) || isPersonalName(got)) && !constGetters.has(getterCallee(n)) && reaches(n)) {
        out.push({ kind: isSecretName(got) ? 'secret' : 'personal', name: n.getText(sf.compilerNode).replace(/\s+/g, '').slice(0, 60), node: wrapNode(sf, n) });
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(arg);
  return out;
}

/**
 * The secret-named property an object held by `id` carries, when `id` is a variable declared with an object
 * literal in the audited source (a later reassignment is not followed), and that property's value is not a
 * literal (a literal is a placeholder or a default, not a secret the process was given): `{ apiKey:
 * process.env.ACME_KEY }`, `{ token: opts.token }`. Undefined otherwise.
 */
function secretHeldBy(id: ts.Identifier): string | undefined {
  const d = rawDeclarationOf(id);
  const decl = d?.parent;
  if (!d || !decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer) return undefined;
  const init = rawUnwrap(decl.initializer);
  if (!ts.isObjectLiteralExpression(init)) return undefined;
  for (const p of init.properties) {
    if (ts.isShorthandPropertyAssignment(p) && isSecretName(p.name.text)) return p.name.text;
    if (!ts.isPropertyAssignment(p)) continue;
    const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
    if (!key || !isSecretName(key)) continue;
    const v = rawUnwrap(p.initializer);
    if (ts.isStringLiteral(v) || ts.isNoSubstitutionTemplateLiteral(v) || ts.isNumericLiteral(v) || v.kind === SyntaxKind.NullKeyword || v.kind === SyntaxKind.TrueKeyword || v.kind === SyntaxKind.FalseKeyword) continue;
    return key;
  }
  return undefined;
}

const MESSAGE_OF = { secret: 'secret-in-log', object: 'object-in-log', personal: 'personal-in-log', internal: 'internal-in-log', arguments: 'arguments-in-log', response: 'response-in-log' } as const;

/**
 * Is a log call behind an explicit diagnostic opt-in: inside an `if` (or the right of `&&`, or a branch of `?:`)
 * whose condition is an opt-in (optIn), after an early `if (!<opt-in>) return;` of its block
 * (`function log(...p) { if (!DEBUG) return; console.error(...p) }`), or inside a function named debug/verbose/trace
 * (`function debugLog(…)`)? Read up to the nearest function boundary, then that function's own name.
 */
const DIAGNOSTIC = /debug|verbose|trace/i;
function diagnosticGated(cn: ts.Node): boolean {
  let cur: ts.Node = cn;
  for (let p = cn.parent; p; cur = p, p = p.parent) {
    if (ts.isIfStatement(p) && p.thenStatement === cur && optIn(p.expression)) return true;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === SyntaxKind.AmpersandAmpersandToken && p.right === cur && optIn(p.left)) return true;
    if (ts.isConditionalExpression(p) && p.whenTrue === cur && optIn(p.condition)) return true;
    if ((ts.isBlock(p) || ts.isSourceFile(p)) && ts.isStatement(cur)) {
      const at = p.statements.indexOf(cur as ts.Statement);
      if (p.statements.slice(0, Math.max(at, 0)).some(leavesUnlessOptIn)) return true;
    }
    if (isRawFunctionLike(p)) {
      const fn = p as ts.FunctionLikeDeclaration;
      const own = fn.name && ts.isIdentifier(fn.name) ? fn.name.text : ts.isVariableDeclaration(p.parent) && ts.isIdentifier(p.parent.name) ? p.parent.name.text : ts.isPropertyAssignment(p.parent) ? rawNameText(p.parent.name) ?? '' : '';
      return DIAGNOSTIC.test(own);
    }
  }
  return false;
}

/** `if (!DEBUG) return;`, `if (!opts.verbose) { return; }`: the rest of the block runs only when the opt-in is on. */
function leavesUnlessOptIn(st: ts.Statement): boolean {
  if (!ts.isIfStatement(st) || st.elseStatement) return false;
  const then = ts.isBlock(st.thenStatement) && st.thenStatement.statements.length === 1 ? st.thenStatement.statements[0]! : st.thenStatement;
  if (!ts.isReturnStatement(then)) return false;
  const c = rawUnwrap(st.expression);
  return ts.isPrefixUnaryExpression(c) && c.operator === SyntaxKind.ExclamationToken && optIn(c.operand);
}

/**
 * Is a condition an explicit opt-in, on only when the person running the server turns it on: a name that says
 * debug/verbose/trace (`this.verbose`, `process.env.DEBUG`), an environment variable read for truth or compared
 * equal to a literal (`process.env.LOG_TOOL_CALLS`, `process.env.X === "1"`), a command-line flag
 * (`process.argv.includes("--log-calls")`), or a const holding one (`const TRACE = process.env.X === "1"`),
 * whatever its name. A condition that holds by default (`process.env.QUIET !== "1"`) is not one.
 */
function optIn(e: ts.Expression, depth = 0): boolean {
  if (depth > 4) return false;
  const c = rawUnwrap(e) as ts.Expression;
  if (DIAGNOSTIC.test(c.getText(c.getSourceFile()))) return true;
  if (envRead(c)) return true;
  if (ts.isBinaryExpression(c)) {
    const op = c.operatorToken.kind;
    if (op === SyntaxKind.AmpersandAmpersandToken) return optIn(c.left, depth + 1) || optIn(c.right, depth + 1);
    if (op === SyntaxKind.BarBarToken) return optIn(c.left, depth + 1) && optIn(c.right, depth + 1);
    if (op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken) {
      const [v, lit] = ts.isStringLiteralLike(rawUnwrap(c.right)) ? [c.left, rawUnwrap(c.right)] : [c.right, rawUnwrap(c.left)];
      return ts.isStringLiteralLike(lit) && lit.text !== '' && (envRead(rawUnwrap(v)) || cliFlag(rawUnwrap(v)));
    }
    return false;
  }
  if (cliFlag(c)) return true;
  if (ts.isPrefixUnaryExpression(c) && c.operator === SyntaxKind.ExclamationToken) {
    const inner = rawUnwrap(c.operand);
    return ts.isPrefixUnaryExpression(inner) && inner.operator === SyntaxKind.ExclamationToken && optIn(inner.operand, depth + 1);
  }
  if (ts.isCallExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === 'Boolean' && c.arguments.length === 1) return optIn(c.arguments[0]!, depth + 1);
  if (ts.isIdentifier(c)) {
    const d = rawDeclarationOf(c);
    const decl = d?.parent;
    if (!decl || !ts.isVariableDeclaration(decl) || decl.name !== d || !decl.initializer || !ts.isVariableDeclarationList(decl.parent) || (decl.parent.flags & ts.NodeFlags.Const) === 0) return false;
    return optIn(decl.initializer, depth + 1);
  }
  return false;
}
/** `process.env.X`, `process.env["X"]`. */
function envRead(n: ts.Node): boolean {
  if (!ts.isPropertyAccessExpression(n) && !ts.isElementAccessExpression(n)) return false;
  const o = rawUnwrap(n.expression);
  return ts.isPropertyAccessExpression(o) && o.name.text === 'env' && ts.isIdentifier(o.expression) && o.expression.text === 'process';
}
/** `process.argv.includes("--log-calls")`, `args.includes("-v")`: a command-line flag given. */
function cliFlag(n: ts.Node): boolean {
  if (!ts.isCallExpression(n) || n.arguments.length !== 1) return false;
  const c = rawUnwrap(n.expression);
  const a = rawUnwrap(n.arguments[0]!);
  return ts.isPropertyAccessExpression(c) && c.name.text === 'includes' && ts.isStringLiteralLike(a) && /^--?[A-Za-z]/.test(a.text);
}

/** An MCP log notification sent at the debug level: `sendLoggingMessage({ level: "debug", data })`. */
function debugLevelMessage(cn: ts.CallExpression): boolean {
  const c = rawUnwrap(cn.expression);
  const first = cn.arguments[0] && rawUnwrap(cn.arguments[0]);
  if (!ts.isPropertyAccessExpression(c) || c.name.text !== 'sendLoggingMessage' || !first || !ts.isObjectLiteralExpression(first)) return false;
  return first.properties.some((p) => ts.isPropertyAssignment(p) && rawNameText(p.name) === 'level' && ts.isStringLiteralLike(rawUnwrap(p.initializer)) && (rawUnwrap(p.initializer) as ts.StringLiteralLike).text === 'debug');
}

/**
 * A log function of the package: `log(…)`, `logError(…)`… declared in the file (a function declaration or a const
 * arrow) whose body writes to `console.*` or `process.stderr.write` — the logger of a package without a library.
 */
const LOCAL_LOG_NAME = /^(?:log|logError|logWarn|logWarning|logInfo|logMessage|writeLog)$/;
function localLogWrapper(id: ts.Identifier): 'plain' | 'gated' | undefined {
  const d = rawDeclarationOf(id);
  const decl = d?.parent;
  let body: ts.Node | undefined;
  if (decl && ts.isFunctionDeclaration(decl)) body = decl.body;
  else if (decl && ts.isVariableDeclaration(decl) && decl.name === d && decl.initializer && isRawFunctionLike(rawUnwrap(decl.initializer))) body = (rawUnwrap(decl.initializer) as ts.FunctionLikeDeclaration).body;
  if (!body) return undefined;
  let writes: 'plain' | 'gated' | undefined;
  const visit = (n: ts.Node): void => {
    if (writes === 'plain') return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const recv = rawUnwrap(n.expression.expression);
      const text = recv.getText(recv.getSourceFile()).replace(/\s+/g, '');
      if ((text === 'console' && CONSOLE_METHODS.has(n.expression.name.text)) || (text === 'process.stderr' && n.expression.name.text === 'write')) {
        // A write under a debug/verbose condition makes the wrapper a diagnostic opt-in (`if (DEBUG) console.error(…)`).
        writes = diagnosticGated(n) ? (writes ?? 'gated') : 'plain';
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return writes;
}

/** A local log function called with a debug or trace level first (`log('debug', …)`). */
function localDebugLevel(cn: ts.CallExpression): boolean {
  const first = cn.arguments[0] && rawUnwrap(cn.arguments[0]);
  return !!first && ts.isIdentifier(rawUnwrap(cn.expression)) && ts.isStringLiteralLike(first) && /^(?:debug|trace|verbose)$/i.test(first.text);
}

/** Is this call a log statement? Returns its callee text (read on compiler nodes). */
function logCall(cn: ts.CallExpression, sf: SourceFile, sources: ParsedSources): string | undefined {
  const c = rawUnwrap(cn.expression);
  if (ts.isIdentifier(c)) {
    const how = LOCAL_LOG_NAME.test(c.text) ? localLogWrapper(c) : undefined;
    return how === 'plain' ? c.text : how === 'gated' ? `${c.text}.debug` : undefined;
  }
  if (!ts.isPropertyAccessExpression(c)) return undefined;
  const m = c.name.text;
  const recv = rawUnwrap(c.expression);
  if (m === 'sendLoggingMessage') return c.getText(cn.getSourceFile());
  if (ts.isIdentifier(recv) && recv.text === 'console') {
    return CONSOLE_METHODS.has(m) && rawOriginOf(recv)?.module === '<global>' ? `console.${m}` : undefined;
  }
  const rname = ts.isIdentifier(recv) ? recv.text : ts.isPropertyAccessExpression(recv) ? recv.name.text : undefined;
  if (!rname || !LOGGER_METHODS.has(m)) return undefined;
  // A logger library's instance under another name (`const out = pino()`, `this.audit = winston.createLogger(…)`,
  // imported from the package's logger module): see logger-origin.ts.
  return LOGGER_NAME.test(rname) || libraryLoggerOf(sf, recv, sources) ? `${rname}.${m}` : undefined;
}

/** Raw pre-filter: only `x.stack` reads and calls of a logging-shaped method are worth wrapping and judging. */
const LOG_METHOD_NAMES = new Set([...CONSOLE_METHODS, ...LOGGER_METHODS, 'sendLoggingMessage']);
const LOCAL_LOG_NAMES = new Set(['log', 'logError', 'logWarn', 'logWarning', 'logInfo', 'logMessage', 'writeLog']);
const mayMatter = named(new Set([...LOG_METHOD_NAMES, ...LOCAL_LOG_NAMES, 'stack']), (cn) => mayMatterRaw(cn));
function mayMatterRaw(cn: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(cn)) return cn.name.text === 'stack';
  if (!ts.isCallExpression(cn)) return false;
  let e: ts.Expression = cn.expression;
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  if (ts.isIdentifier(e)) return LOCAL_LOG_NAMES.has(e.text);
  return ts.isPropertyAccessExpression(e) && LOG_METHOD_NAMES.has(e.name.text);
}

/** A pino `redact` option anywhere in the source. */
function redactionConfigured(code: Code): boolean {
  return code.files.some(([, sf]) =>
    ofKinds(sf, [SyntaxKind.PropertyAssignment], named(new Set(['redact']), (cn) => ts.isPropertyAssignment(cn) && rawNameText(cn.name) === 'redact')).some((n) => Node.isPropertyAssignment(n) && propertyName(n.getNameNode()) === 'redact' && !!n.getFirstAncestor((a) => Node.isCallExpression(a) && /pino/i.test(a.getExpression().getText()))),
  );
}

/**
 * Does the package build a logger (`winston.createLogger({ level })`, `pino({ level })`, `bunyan.createLogger`)
 * whose level is not a literal nor an environment read with a literal default (`process.env.LOG_LEVEL ?? 'info'`)?
 * Then whether `logger.info(…)` writes by default is not read (`level: config.logLevel`, defaulting to 'error'
 * two files away): the info line may be an opt-in, and user data logged through it is not judged.
 */
function loggerLevelUnread(code: Code): boolean {
  const literalOr = (e: ts.Expression): boolean => {
    const v = rawUnwrap(e) as ts.Expression;
    if (ts.isStringLiteralLike(v)) return true;
    return ts.isBinaryExpression(v) && (v.operatorToken.kind === SyntaxKind.QuestionQuestionToken || v.operatorToken.kind === SyntaxKind.BarBarToken) && envRead(rawUnwrap(v.left)) && ts.isStringLiteralLike(rawUnwrap(v.right));
  };
  return code.files.some(([, sf]) =>
    rawOfKinds(sf, [SyntaxKind.PropertyAssignment], named(new Set(['level']), (cn) => ts.isPropertyAssignment(cn) && rawNameText(cn.name) === 'level')).some((cn) => {
      const pa = cn as ts.PropertyAssignment;
      const call = pa.parent.parent;
      return ts.isCallExpression(call) && LOGGER_FACTORY.test(rawUnwrap(call.expression).getText(sf.compilerNode).replace(/\s+/g, '')) && !literalOr(pa.initializer);
    }),
  );
}

/** Is `x.stack` the trace of an error? */
function isErrorStack(n: Node): boolean {
  if (!Node.isPropertyAccessExpression(n) || n.getName() !== 'stack') return false;
  const obj = unwrap(n.getExpression());
  if (Node.isNewExpression(obj)) return /Error$/.test(obj.getExpression().getText());
  if (!Node.isIdentifier(obj)) return false;
  const name = obj.getText();
  if (ERROR_NAME.test(name)) return true;
  return !!n.getFirstAncestor((a) => Node.isCatchClause(a) && a.getVariableDeclaration()?.getName() === name);
}

export default defineDetector({
  ruleId: 'C-6',
  genre: 'static',
  needs: ['repo'],
  messages: {
    'secret-in-log': ['name', 'call'],
    'object-in-log': ['name', 'call'],
    'personal-in-log': ['name', 'call'],
    'internal-in-log': ['name', 'call'],
    'http-error-in-log': ['name', 'call'],
    'arguments-in-log': ['name', 'call'],
    'response-in-log': ['name', 'call'],
    'stack-to-client': ['channel'],
    'exec-error-to-client': ['name', 'channel'],
    'driver-error-to-client': ['name', 'source', 'channel'],
  },
  judge({ inputs: { repo } }) {
    const src = codeOf(repo);
    if (!src.ok) return src.verdict.reason?.code === 'source-language-not-read' ? judgePythonLogs(repo) : src.verdict;
    const code = src.code;
    const redacted = redactionConfigured(code);
    const levelUnread = loggerLevelUnread(code);
    const handlers = new Set<Fn>();
    const model = serverModel(repo);
    for (const t of model.tools) if (t.handler) handlers.add(t.handler);
    for (const r of model.requestHandlers) if (r.handler && r.method === 'tools/call') handlers.add(r.handler);
    const inHandler = (n: Node) => !!n.getFirstAncestor((a) => isFn(a) && handlers.has(a));
    // The parameters that receive a tool call's arguments whole (see wholeArguments).
    const argParams = new Set<ts.Node>();
    for (const e of model.entries) {
      if (e.kind !== 'tool') continue;
      for (const i of e.inputs) {
        const p = e.fn.getParameters()[i.param]?.getNameNode();
        if (i.path.length === 0 && p && Node.isIdentifier(p)) argParams.add(p.compilerNode);
      }
    }

    const constGetters = literalGetters(code);
    const findings: Finding[] = [];
    for (const [file, sf] of code.files) {
      for (const cn of rawOfKinds(sf, [SyntaxKind.CallExpression, SyntaxKind.PropertyAccessExpression], mayMatter)) {
        if (ts.isCallExpression(cn)) {
          const call = logCall(cn, sf, code.sources);
          if (!call || (redacted && !call.startsWith('console.'))) continue;
          const seen = new Set<string>();
          for (const arg of cn.arguments) {
            for (const v of loggedValues(sf, arg, argParams, constGetters)) {
              // A logger's debug/trace level is the diagnostic opt-in the standard allows for details of the
              // machine and personal fields (never for secrets); console.debug prints whatever the level.
              // console.log/info write to stdout, which is a command's own output to the person who ran it (`auth
              // status` printing the signed-in account) more often than a log: not judged for these two kinds.
              // A tool call's arguments are the user's data: logged whole only behind an explicit diagnostic opt-in.
              if ((v.kind === 'arguments' || v.kind === 'response') && diagnosticGated(cn)) continue;
              // A logger library's info line is on by default only where its level says so (see loggerLevelUnread).
              if ((v.kind === 'arguments' || v.kind === 'response') && levelUnread && !call.startsWith('console.') && /\.info$/.test(call)) continue;
              // A cut of a secret (a preview of a token) at a logger's debug/trace level is a diagnostic hint behind the opt-in
              // (a long cut at the default levels stays red).
              if ((v.kind === 'internal' || v.kind === 'personal' || v.kind === 'arguments' || v.kind === 'response' || (v.kind === 'secret' && v.cut)) && (/^(?!console\.).*\.(?:debug|trace)$/.test(call) || localDebugLevel(cn) || debugLevelMessage(cn) || call === 'console.log' || call === 'console.info')) continue;
              const key = `${v.kind}:${v.name}`;
              if (seen.has(key)) continue;
              seen.add(key);
              findings.push({
                messageId: MESSAGE_OF[v.kind],
                data: { name: v.name, call },
                location: { file, line: rawPositionOf(cn).line },
                evidence: cn.getText(sf.compilerNode).replace(/\s+/g, ' ').slice(0, 120),
              });
            }
          }
          continue;
        }
        const n = wrapNode(sf, cn);
        if (!isErrorStack(n)) continue;
        const sink = sinkOf(n);
        let channel: string | undefined;
        if (sink?.kind === 'field') channel = sink.name;
        else if (sink?.kind === 'new') {
          if (ERROR_CLASSES.test(sink.callee)) channel = 'protocol_error';
          else if (/Error$/.test(sink.callee) && Node.isThrowStatement(sink.node.getParent()) && inHandler(sink.node)) channel = 'thrown_error';
        }
        if (channel) {
          findings.push({ messageId: 'stack-to-client', data: { channel }, location: { file, line: positionOf(n).line }, evidence: n.getText().slice(0, 80) });
        }
      }
    }
    findings.push(...httpClientErrorsLogged(code, redacted));
    findings.push(...execErrorsToClient(code, inHandler));
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
