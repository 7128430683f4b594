import { Node, SyntaxKind, ts, type SourceFile } from '../../facts/morph.js';
import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { originOf, resolveRelativeModule } from '../../facts/scope.js';
import { namesAnyModule, ofKinds, positionOf, stringValue, unwrap } from '../../facts/ts-source.js';
import { codeOf, reachable, type Code, type Fn } from '../support/source/code-paths.js';
import { isFunctionLike } from '../../facts/scope.js';
import { serverModel } from '../../facts/server-model.js';
import type { SessionFacts } from '../../facts/session.js';
import { neverRunsOnStdio } from './modes.js';
import { rawCallNamed } from '../support/source/source-support.js';
import { judgePythonStdout } from './python.js';

/**
 * clean stdout on stdio (static part). A stdio server is one whose source uses the SDK's stdio
 * transport (`serveStdio(...)`, `new StdioServerTransport()`) or whose mcp.json declares a stdio transport;
 * otherwise the rule does not apply. The files read are those the stdio entry loads: every file that
 * starts the transport and, transitively, the files it imports by relative path (static, dynamic or
 * require); when only mcp.json says stdio, every source file. In them, each of these is a finding:
 *   - `console.log`, `console.info`, `console.debug`, `console.table`, `console.dir` (stdout in Node),
 *     unless the source reassigns that console method;
 *   - `process.stdout.write(...)`, except the transport's own writes (an argument that builds a
 *     `jsonrpc` message, or a write inside a class named *Transport);
 *   - a pino logger created without a destination (pino writes to stdout by default) or with stdout
 *     as its destination;
 *   - a winston Console transport without `stderrLevels` (it writes every level to stdout by default), a
 *     bunyan logger created without `stream`/`streams` (bunyan writes to stdout by default).
 * Writes on a path the stdio mode never takes are not findings (modes.ts: `--help`, `--list-tools`, an
 * HTTP-only branch, a function called only from such paths).
 *
 * With a recorded stdio session whose stdout was clean (every line JSON-RPC, something read), the
 * server's start-up was observed: writes outside the tool, prompt and resource handlers (and the
 * functions they reach), which would have run at start-up, are refuted by that evidence and dropped.
 * Writes a handler reaches stay: the probe calls no tool by default.
 */

/** The probe's own note for a line longer than its capture bound (not a line the server wrote). */
const DISCARDED = '[mcp-doctor: a line longer than the capture bound was discarded]';

/** A recorded stdio session whose stdout carried only JSON-RPC messages, and something was read. */
function cleanStdioSession(session: SessionFacts | undefined): boolean {
  if (!session || session.session.target.transport !== 'stdio') return false;
  if (session.noise().some((n) => n.line !== DISCARDED)) return false;
  return session.session.connections.some((c) => c.messages.some((m) => m.dir === 'in'));
}

const STDOUT_CONSOLE = new Set(['log', 'info', 'debug', 'table', 'dir']);
const STDOUT_CALLS: ReadonlySet<string> = new Set([...STDOUT_CONSOLE, 'write']);
const MANIFEST = 'mcp.json';

/** What mcp.json declares: 'stdio' among its transports, 'other' transports only, or undefined (no manifest or no transport). */
function declaredTransport(repo: RepoFacts): 'stdio' | 'other' | undefined {
  if (!repo.has(MANIFEST)) return undefined;
  const m = repo.object(MANIFEST);
  if (!m.ok || m.value.transport === undefined || m.value.transport === null) return undefined;
  const t = m.value.transport;
  const entries = Array.isArray(t) ? t : [t];
  if (entries.length === 0) return undefined;
  return entries.some((e) => e === 'stdio' || (!!e && typeof e === 'object' && (e as { type?: unknown }).type === 'stdio')) ? 'stdio' : 'other';
}

const STDIO_STARTERS: ReadonlySet<string> = new Set(['serveStdio', 'StdioServerTransport']);

/** Files that start a stdio transport. */
function stdioEntries(code: Code): SourceFile[] {
  return code.files
    .filter(([, sf]) =>
      ofKinds(sf, [SyntaxKind.CallExpression, SyntaxKind.NewExpression], rawCallNamed(STDIO_STARTERS)).some((n) => {
        if (!Node.isCallExpression(n) && !Node.isNewExpression(n)) return false;
        const c = unwrap(n.getExpression());
        const name = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
        return name === 'serveStdio' || name === 'StdioServerTransport';
      }),
    )
    .map(([, sf]) => sf);
}

/** Relative module specifiers a file loads: imports, re-exports, `import('…')` and `require('…')` (read on compiler nodes). */
function loadedSpecs(sf: SourceFile): string[] {
  const out: string[] = [];
  for (const st of sf.compilerNode.statements) {
    if ((ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) || (ts.isExportDeclaration(st) && !st.isTypeOnly)) {
      const m = st.moduleSpecifier;
      if (m && ts.isStringLiteralLike(m)) out.push(m.text);
    }
  }
  ofKinds(sf, [SyntaxKind.CallExpression], (cn) => {
    const c = cn as ts.CallExpression;
    const e = c.expression;
    if (e.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(e) && e.text === 'require')) {
      const a = c.arguments[0];
      if (a && ts.isStringLiteralLike(a)) out.push(a.text);
    }
    return false;
  });
  return out.filter((s) => s.startsWith('.'));
}

/** The entry files and everything they load by relative path. */
function loadedFrom(code: Code, entries: SourceFile[]): SourceFile[] {
  const seen = new Set<SourceFile>(entries);
  const queue = [...entries];
  while (queue.length) {
    const sf = queue.shift()!;
    for (const spec of loadedSpecs(sf)) {
      const target = resolveRelativeModule(code.rel(sf), spec, code.sources);
      if (target && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen];
}

/** `console` / `process` as the global (or `process` imported from node:process), not a local of that name. */
const isGlobal = (n: Node, name: string): boolean => {
  const u = unwrap(n);
  if (!Node.isIdentifier(u) || u.getText() !== name) return false;
  const m = originOf(u)?.module;
  return m === '<global>' || m === name;
};

/** Console methods the source points elsewhere: `console.log = console.error` and the like. */
function reassignedConsole(files: SourceFile[]): Set<string> {
  const out = new Set<string>();
  for (const sf of files) {
    const raw = (cn: ts.Node): boolean => {
      const b = cn as ts.BinaryExpression;
      return b.operatorToken.kind === SyntaxKind.EqualsToken && (ts.isPropertyAccessExpression(b.left) || ts.isParenthesizedExpression(b.left));
    };
    for (const n of ofKinds(sf, [SyntaxKind.BinaryExpression], raw)) {
      if (!Node.isBinaryExpression(n) || n.getOperatorToken().getText() !== '=') continue;
      const left = unwrap(n.getLeft());
      if (Node.isPropertyAccessExpression(left) && unwrap(left.getExpression()).getText() === 'console') out.add(left.getName());
    }
  }
  return out;
}

/** Where a pino destination argument writes: 'stdout', 'stderr' or undefined when it cannot be told. */
function destinationOf(arg: Node): 'stdout' | 'stderr' | undefined {
  const t = arg.getText().replace(/\s+/g, '');
  if (/stderr|dest:2\b|destination\(2\)|fd:2\b/.test(t)) return 'stderr';
  if (/stdout|dest:1\b|destination\(1\)|fd:1\b|destination\(\)/.test(t)) return 'stdout';
  return undefined;
}

/** A pino logger that writes to stdout: `pino()`, `pino({ level })` without transport, or a stdout destination. */
function pinoToStdout(call: Node): boolean {
  if (!Node.isCallExpression(call)) return false;
  const o = originOf(call.getExpression());
  if (!o || o.module !== 'pino' || !(o.path.length === 0 || (o.path.length === 1 && ['pino', 'default'].includes(o.path[0]!)))) return false;
  const args = call.getArguments();
  if (args.length >= 2) return destinationOf(args[1]!) === 'stdout';
  if (args.length === 0) return true;
  const a = unwrap(args[0]!);
  if (Node.isObjectLiteralExpression(a)) return !a.getProperty('transport');
  return destinationOf(a) === 'stdout';
}

/**
 * Other loggers whose default destination is stdout: winston's Console transport (`new winston.transports.Console()`,
 * `new transports.Console({...})`) unless its options name `stderrLevels`, and bunyan's `createLogger({...})`
 * without `stream` or `streams`. Returns the library, or undefined. An options value that cannot be read is
 * given the benefit of the doubt.
 */
function loggerToStdout(n: Node): 'winston' | 'bunyan' | undefined {
  if (Node.isNewExpression(n)) {
    const o = originOf(n.getExpression());
    if (!o || o.module !== 'winston' || o.path[o.path.length - 1] !== 'Console' || !o.path.includes('transports')) return undefined;
    const arg = n.getArguments()[0];
    if (!arg) return 'winston';
    const a = unwrap(arg);
    return Node.isObjectLiteralExpression(a) && !a.getProperty('stderrLevels') && !a.getProperties().some((p) => Node.isSpreadAssignment(p)) ? 'winston' : undefined;
  }
  if (Node.isCallExpression(n)) {
    const o = originOf(n.getExpression());
    if (!o || o.module !== 'bunyan' || o.path[o.path.length - 1] !== 'createLogger') return undefined;
    const arg = n.getArguments()[0];
    const a = arg ? unwrap(arg) : undefined;
    return a && Node.isObjectLiteralExpression(a) && !a.getProperty('stream') && !a.getProperty('streams') && !a.getProperties().some((p) => Node.isSpreadAssignment(p)) ? 'bunyan' : undefined;
  }
  return undefined;
}

function isTransportWrite(call: Node): boolean {
  if (!Node.isCallExpression(call)) return false;
  if (call.getArguments().some((a) => /jsonrpc/i.test(a.getText()))) return true;
  const cls = call.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  return !!cls && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls)) && /Transport/.test(cls.getName() ?? '');
}

export default defineDetector({
  ruleId: 'X-7',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'stdout-write': ['call'],
    'pino-stdout': [],
    'logger-stdout': ['library'],
    'python-stdout-write': ['call'],
  },
  judge({ inputs: { repo, session } }) {
    // A recorded stdio session shows the server runs on stdio, whatever the manifest and the source reading say.
    const servedOnStdio = session?.session.target.transport === 'stdio';
    const declared = servedOnStdio ? 'stdio' : declaredTransport(repo);
    const src = codeOf(repo, { pythonPart: true });
    if (!src.ok && src.verdict.reason?.code === 'no-js-source') return declared === 'other' && !servedOnStdio ? notApplicable('no-stdio-transport') : judgePythonStdout(repo, cleanStdioSession(session), declared === 'stdio');
    if (!src.ok) return declared === 'other' ? notApplicable('no-stdio-transport') : src.verdict;
    const code = src.code;
    const entries = stdioEntries(code);
    if (entries.length === 0 && declared !== 'stdio') return notApplicable('no-stdio-transport');
    const files = entries.length ? loadedFrom(code, entries) : code.files.map(([, sf]) => sf);
    const redirected = reassignedConsole(files);
    const ctx = { files, sources: code.sources };
    // With a clean live stdout, only writes that a handler reaches (not exercised by the probe) can stand.
    let handlerCode: Set<Fn> | undefined;
    if (cleanStdioSession(session)) {
      const handlers = serverModel(repo).entries.map((e) => e.fn);
      handlerCode = new Set(reachable(code, handlers));
    }
    const stands = (n: Node): boolean => {
      if (neverRunsOnStdio(n, ctx)) return false;
      if (!handlerCode) return true;
      for (let f = n.getFirstAncestor((a) => isFunctionLike(a)); f; f = f.getFirstAncestor((a) => isFunctionLike(a))) if (handlerCode.has(f as Fn)) return true;
      return false;
    };
    const findings: Finding[] = [];
    for (const sf of files) {
      const file = code.rel(sf);
      // Without pino named in the file (origins are read within a file), only console.* and .write calls can matter.
      const loggers = namesAnyModule(sf, ['pino', 'winston', 'bunyan']);
      const raw = loggers ? undefined : rawCallNamed(STDOUT_CALLS);
      for (const n of ofKinds(sf, loggers ? [SyntaxKind.CallExpression, SyntaxKind.NewExpression] : [SyntaxKind.CallExpression], raw)) {
        const at = { file, line: positionOf(n).line };
        const library = loggers ? loggerToStdout(n) : undefined;
        if (library) {
          if (stands(n)) findings.push({ messageId: 'logger-stdout', data: { library }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        if (!Node.isCallExpression(n)) continue;
        const callee = unwrap(n.getExpression());
        if (Node.isPropertyAccessExpression(callee)) {
          const obj = unwrap(callee.getExpression());
          const m = callee.getName();
          if (STDOUT_CONSOLE.has(m) && isGlobal(obj, 'console') && !redirected.has(m)) {
            if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: `console.${m}` }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
          if (m === 'write' && Node.isPropertyAccessExpression(obj) && obj.getName() === 'stdout' && isGlobal(obj.getExpression(), 'process') && !isTransportWrite(n)) {
            if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: 'process.stdout.write' }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
        }
        if (pinoToStdout(n) && stands(n)) findings.push({ messageId: 'pino-stdout', location: at, evidence: n.getText().slice(0, 120) });
      }
    }
    return findings.length ? { state: 'non-conforming', findings } : present();
  },
});
