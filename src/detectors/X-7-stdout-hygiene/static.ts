import { Node, SyntaxKind, ts, type VariableDeclaration, type BinaryExpression, type CallExpression, type Identifier, type PropertyAccessExpression, type SourceFile } from '../../facts/morph.js';
import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import type { RepoFacts } from '../../facts/repo.js';
import { declarationOf, initializerOf, originOf, resolveRelativeModule } from '../../facts/scope.js';
import { namesAnyModule, ofKinds, positionOf, sourcesOf, stringValue, unwrap } from '../../facts/ts-source.js';
import { codeOf, reachable, type Code, type Fn } from '../support/source/code-paths.js';
import { isFunctionLike } from '../../facts/scope.js';
import { constString, serverModel } from '../../facts/server-model.js';
import type { SessionFacts } from '../../facts/session.js';
import { CLI_PARSERS, neverRunsOnStdio, neverStdio } from './modes.js';
import { rawCallNamed } from '../support/source/source-support.js';
import { judgePythonStdout } from './python.js';
import { packageOf, printsOnImport, type ImportPrint } from './dependencies.js';
import { computedConsoleCalls } from './computed-console.js';
import { STDOUT_PATH, StdoutStreams } from './stream-values.js';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import semver from 'semver';
import { declaredEntries, installedFolder } from '../../facts/published.js';

/**
 * X-7 — clean stdout on stdio (static part). A stdio server is one whose source uses the SDK's stdio
 * transport (`serveStdio(...)`, `new StdioServerTransport()`, FastMCP's `start({ transportType: 'stdio' })`) or whose mcp.json declares a stdio transport;
 * otherwise the rule does not apply. The files read are those the stdio entry loads: every file that
 * starts the transport, the files that import such a file at their top level (transitively, unless they serve
 * another transport or read the command line: `index.js` importing `server.js` and wiring the tools) and, transitively, the files they import by relative
 * path (static, dynamic or require); when only mcp.json says stdio, every source file. In them, each of these is a finding:
 *   - `console.log`, `console.info`, `console.debug`, `console.table`, `console.dir`, `console.dirxml`, `console.timeEnd`,
 *     `console.timeLog`, `console.count`, `console.group(label)` (stdout in Node), unless the source reassigns that console
 *     method; such a method taken out of the console (`const { log } = console`), a Console of node:console built on
 *     process.stdout (`new Console(process.stdout)`), and a write on file descriptor 1 (`fs.writeSync(1, …)`);
 *   - `process.stdout.write(...)`, except the transport's own writes (an argument that builds a
 *     `jsonrpc` message or carries one held in a value, see jsonRpcValue, or a write inside a class named *Transport) and an empty write (`write('', cb)`, a flush);
 *   - a pino logger created without a destination (pino writes to stdout by default) or with stdout
 *     as its destination;
 *   - a winston Console transport without `stderrLevels` (it writes every level to stdout by default), a
 *     bunyan logger created without `stream`/`streams` (bunyan writes to stdout by default);
 *   - other loggers on their stdout defaults: a log4js configuration with a `stdout` or `console` appender (or no
 *     configuration and a level set on a logger), consola's default instance at info level and below (`log`,
 *     `info`, `success`, `start`, `box`…), signale's default instance, a tslog `new Logger()` that is not
 *     `type: 'hidden'`, loglevel's `info`/`debug`/`log` once a level at or below info is set, and a `debug`
 *     instance pointed at `console.log`; instances made with options (`createConsola`, `new Signale`) are not read;
 *   - `process.stdout` kept in a variable and written (`const { stdout } = process; stdout.write(…)`);
 *   - a child process started with its stdout inherited (`stdio: 'inherit'`, `stdio: [x, 'inherit' | 1 |
 *     process.stdout, …]`, execa's `stdout: 'inherit'`), or its output piped into ours (`child.stdout.pipe(process.stdout)`):
 *     what the program prints lands on the protocol channel;
 *   - pino-pretty or pino/file (a transport target, `pino.transport(…)` or `pretty()` as the stream) without a
 *     `destination` or with 1; a winston Console whose `stderrLevels`/`consoleWarnLevels` leave out a level the logger
 *     emits and the files log at; a logger given `process.stdout` as its stream (bunyan `streams`, winston's Stream
 *     transport, `pino.multistream`); values followed through consts and through conditionals that select a mode;
 *   - a pino logger whose stderr stream is chosen by an environment flag the package sets itself once it runs, created
 *     while the modules load (before that assignment): it takes pino's default, stdout (pino-stdout-before-flag);
 *   - `console.log` handed on as a value (`.catch(console.log)`, `{ info: console.log }`, `console.log.bind(console)`);
 *   - a console method picked by a computed key that can name a stdout method (`console[messageLevel](…)` where the
 *     file calls `doLog('log', …)`: computed-console.ts); the console also as `globalThis.console`;
 *   - a library whose default output is console.log: `new DeviceCodeCredential()` of @azure/identity without
 *     `userPromptCallback` (library-stdout); an installed dependency whose top-level code prints on stdout
 *     (dependencies.ts, dependency-prints-on-import);
 *   - @kubernetes/client-node's exec/attach/log and node:stream's `pipeline` given `process.stdout`;
 *   - launch options kept in a const or chosen by a flag (`const RUN = { stdio: 'inherit' }`, `stdio: verbose ? 'inherit' :
 *     'pipe'`); shelljs `exec` without `silent` (it echoes the command's output) and `echo`;
 *   - `process.stdout.write` handed on as a value (`child.stdout.on('data', process.stdout.write.bind(process.stdout))`);
 *   - a writer of the source given stdout as a value and writing on it (stream-values.ts): `make(process.stdout)`,
 *     `constructor(out = process.stdout)` when a call leaves `out` out, a stream chosen by an environment flag; and stdout
 *     opened as a file (`fs.createWriteStream('/dev/stdout')` written, `fs.appendFileSync('/dev/stdout', …)`);
 *   - dotenv 17's banner: `config()` (or `import 'dotenv/config'`) of dotenv 17.x prints `[dotenv@17…] injecting env …`
 *     with console.log on every start, .env file or not, unless `quiet: true` is passed or DOTENV_CONFIG_QUIET is set
 *     (16.x is quiet by default; 18.x prints on stderr). The version is the installed one (node_modules/dotenv), else
 *     the lowest the declared range allows; an unreadable version is not counted.
 * Modules loaded by a computed path (`import(\`./tools/${f}\`)`, a folder joined to `__dirname`) are read with the
 * rest. A log4js configuration read from a file that is not in the package is could-not-judge
 * (logger-config-not-read) when nothing else is red; one in the package is read.
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

const STDOUT_CONSOLE = new Set(['log', 'info', 'debug', 'table', 'dir', 'dirxml', 'timeEnd', 'timeLog', 'count', 'group', 'groupCollapsed']);
/** Console methods that print only when given a label: `console.group()` alone indents and prints nothing. */
const LABEL_ONLY = new Set(['group', 'groupCollapsed']);
const STDOUT_CALLS: ReadonlySet<string> = new Set([...STDOUT_CONSOLE, 'write', 'writeSync']);
/** The call names read in a file that names no logger: stdout writes, pipes into stdout, launches. */
const CALLS_READ: ReadonlySet<string> = new Set([...STDOUT_CALLS, 'writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'echo', 'pipe', 'pipeline', 'spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork', 'sync', 'execa', 'execaSync', 'execaNode', 'execaCommand', 'execaCommandSync', 'crossSpawn']);
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

const START: ReadonlySet<string> = new Set(['start']);

/**
 * A FastMCP (TypeScript `fastmcp`) server that may start on stdio, in a file that imports fastmcp:
 * `server.start({ transportType: 'stdio' })`, a transportType chosen at run time (`transportType: useHttp ? 'httpStream'
 * : 'stdio'`, an environment variable), or `start()` on the FastMCP server itself without a transportType (stdio is
 * its default).
 */
function startsFastMcpStdio(sf: SourceFile): boolean {
  if (!namesAnyModule(sf, ['fastmcp'])) return false;
  return ofKinds(sf, [SyntaxKind.CallExpression], rawCallNamed(START)).some((n) => {
    const callee = Node.isCallExpression(n) ? unwrap(n.getExpression()) : undefined;
    if (!callee || !Node.isPropertyAccessExpression(callee) || !Node.isCallExpression(n)) return false;
    const opts = n.getArguments()[0] ? stdioValue(n.getArguments()[0]!) : undefined;
    if (opts && !Node.isObjectLiteralExpression(opts)) return false;
    const tt = opts?.getProperty('transportType');
    if (tt) {
      // A literal says which; a value chosen at run time (a flag, an environment variable) may be stdio.
      const v = Node.isPropertyAssignment(tt) ? tt.getInitializer() : undefined;
      const lit = v ? stringValue(unwrap(v)) : undefined;
      return lit === undefined ? true : lit === 'stdio';
    }
    // No transport named: stdio, when the receiver is the FastMCP server itself (`const server = new FastMCP(…)`).
    const recv = unwrap(callee.getExpression());
    const d = Node.isIdentifier(recv) ? declarationOf(recv) : undefined;
    const init = d ? initializerOf(d) : undefined;
    return !!init && Node.isNewExpression(init) && /(?:^|\.)FastMCP$/.test(unwrap(init.getExpression()).getText());
  });
}

/** Files that start a stdio transport. */
function stdioEntries(code: Code): SourceFile[] {
  return code.files
    .filter(
      ([, sf]) =>
        ofKinds(sf, [SyntaxKind.CallExpression, SyntaxKind.NewExpression], rawCallNamed(STDIO_STARTERS)).some((n) => {
          if (!Node.isCallExpression(n) && !Node.isNewExpression(n)) return false;
          const c = unwrap(n.getExpression());
          const name = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
          return name === 'serveStdio' || name === 'StdioServerTransport';
        }) || startsFastMcpStdio(sf),
    )
    .map(([, sf]) => sf);
}

/** Relative module specifiers a file loads: imports, re-exports, `import('…')` and `require('…')` (read on compiler nodes). */
function loadedSpecs(sf: SourceFile): string[] {
  return specsOf(sf).filter((s) => ownModule(sf, s));
}

/** Every module specifier a file loads: static imports and re-exports, `import()` and `require` of a string. */
function specsOf(sf: SourceFile): string[] {
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
  return out;
}

/**
 * A specifier naming one of the package's own modules: a relative path, the package's own name with an
 * `exports` subpath (Node's self-reference, `import { log } from 'my-server/utils'`) or a subpath import
 * (`#lib/log`, the `imports` field), the last two as facts/published records them.
 * A dependency's entry is not: its code is judged only for what it prints on import (dependencies.ts).
 */
function ownModule(sf: SourceFile, spec: string): boolean {
  if (spec.startsWith('.')) return true;
  const target = sourcesOf(sf)?.entries?.get(spec);
  return target !== undefined && !target.startsWith('node_modules/');
}

/**
 * A loader that is not simply a part of the stdio program: it serves another transport (HTTP, SSE) or opens a
 * listening server, or it reads the command line (a CLI whose subcommands run other modes than the server).
 */
const OTHER_MODE = /\b(?:StreamableHTTPServerTransport|SSEServerTransport|createMcpHandler|createServer|express|fastify|Hono|parseArgs|commander|yargs|cac|meow)\b|\.listen\(|process\.argv/;

/**
 * A loader that reads the command line (`process.argv`, `parseArgs`, commander, yargs, meow, cac…): only such a file
 * can be the stdio program's command line. One that only serves another transport (a separate HTTP bin importing the
 * server) is another program, whose start-up prints never run on stdio.
 */
const READS_COMMAND_LINE = new RegExp(`\\bprocess\\.argv\\b|\\b(?:parseArgs|minimist|mri|${[...CLI_PARSERS].join('|')})\\b`);

/** Relative modules a file imports with a top-level import or re-export (loaded whenever the file is). */
function staticSpecs(sf: SourceFile): string[] {
  const out: string[] = [];
  for (const st of sf.compilerNode.statements) {
    if ((ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) || (ts.isExportDeclaration(st) && !st.isTypeOnly)) {
      const m = st.moduleSpecifier;
      if (m && ts.isStringLiteralLike(m) && ownModule(sf, m.text)) out.push(m.text);
    }
  }
  return out;
}

/**
 * The files that import an entry at their top level, transitively (`index.js` importing `server.js`, which starts
 * the transport, and wiring the tools): the stdio program runs them too. A file that serves another transport (a
 * separate HTTP entry importing the same server) or reads the command line (a CLI with other modes) is left out,
 * and so is a module loaded only by a dynamic import (a mode that loads the server when it is chosen).
 */
function loadersOf(code: Code, entries: SourceFile[], commandLines?: SourceFile[]): SourceFile[] {
  const loaders = new Map<SourceFile, SourceFile[]>();
  for (const [, sf] of code.files) {
    for (const spec of staticSpecs(sf)) {
      const target = resolveRelativeModule(code.rel(sf), spec, code.sources);
      if (target && target !== sf) loaders.set(target, [...(loaders.get(target) ?? []), sf]);
    }
  }
  const seen = new Set<SourceFile>(entries);
  const queue = [...entries];
  const out: SourceFile[] = [];
  while (queue.length) {
    for (const l of loaders.get(queue.shift()!) ?? []) {
      if (seen.has(l)) continue;
      seen.add(l);
      if (OTHER_MODE.test(l.getFullText())) {
        commandLines?.push(l);
        continue;
      }
      out.push(l);
      queue.push(l);
    }
  }
  return out;
}

/**
 * The command line of the program: a loader left out by loadersOf that reads the command line (READS_COMMAND_LINE;
 * one that only serves another transport is another program) and is a declared entry of the package (`bin`, `main`) or a module such an entry imports at its top
 * level. Only its start-up writes are read (startupWrites): what every start of the program prints, stdio included.
 */
function commandLineFiles(code: Code, repo: RepoFacts, skipped: SourceFile[]): SourceFile[] {
  const pkg = repo.object('package.json');
  if (!pkg.ok || skipped.length === 0) return [];
  const declared = new Set<SourceFile>();
  for (const rel of declaredEntries(pkg.value)) {
    const sf = code.sources.files.get(rel) ?? resolveRelativeModule('package.json', `./${rel}`, code.sources);
    if (sf) declared.add(sf);
  }
  return skipped.filter((sf) => READS_COMMAND_LINE.test(sf.getFullText())).filter((sf) => declared.has(sf) || [...declared].some((d) => staticSpecs(d).some((spec) => resolveRelativeModule(code.rel(d), spec, code.sources) === sf)));
}

/** Does a statement end the path it is on (a `return`, `throw`, `break`, `continue` or `process.exit(…)` outside nested functions)? */
function endsPath(st: Node): boolean {
  if (isFunctionLike(st) || Node.isClassDeclaration(st)) return false;
  let ends = false;
  st.forEachDescendant((d, t) => {
    if (isFunctionLike(d) || Node.isClassDeclaration(d) || Node.isClassExpression(d)) return t.skip();
    if (Node.isReturnStatement(d) || Node.isThrowStatement(d) || Node.isBreakStatement(d) || Node.isContinueStatement(d)) ends = true;
    else if (Node.isCallExpression(d) && /^process\.(?:exit|abort)$/.test(unwrap(d.getExpression()).getText().replace(/\s+/g, ''))) ends = true;
    if (ends) t.stop();
  });
  return ends || Node.isReturnStatement(st) || Node.isThrowStatement(st);
}

/**
 * The writes a command line makes on every start, before it can end or choose: console.log-like calls and
 * `process.stdout.write` that are statements of the module's top level, or of the body of a function the top level
 * calls unconditionally (`main()`, `await main()`, `main().catch(…)`), before the first statement that can end the
 * path (`return`, `process.exit`, `throw`). A write inside a condition, a loop, a `try` or a callback is not one:
 * the mode choice, `--help` and the other transports are there.
 */
function startupWrites(sf: SourceFile, redirected: Set<string>, loggerCalls: CallExpression[] = []): { node: Node; call: string }[] {
  const out: { node: Node; call: string }[] = [];
  const visited = new Set<Node>();
  const walk = (stmts: Node[], depth: number): void => {
    for (const st of stmts) {
      if (!Node.isExpressionStatement(st)) {
        // `if (args.includes('--help')) { …; process.exit(0) }`: a branch stdio never takes ends no stdio path.
        if (Node.isIfStatement(st) && !st.getElseStatement() && neverStdio(st.getExpression(), 'then', 0, st.getThenStatement())) continue;
        if (endsPath(st)) return;
        continue;
      }
      let e = unwrap(st.getExpression());
      if (Node.isAwaitExpression(e) || Node.isVoidExpression(e)) e = unwrap(e.getExpression());
      if (Node.isCallExpression(e)) {
        const callee = unwrap(e.getExpression());
        if (Node.isPropertyAccessExpression(callee)) {
          const obj = unwrap(callee.getExpression());
          const m = callee.getName();
          if (STDOUT_CONSOLE.has(m) && isGlobal(obj, 'console') && !redirected.has(m) && !(LABEL_ONLY.has(m) && e.getArguments().length === 0)) {
            out.push({ node: e, call: `console.${m}` });
            continue;
          }
          if (m === 'write' && stdoutOf(obj) && !isTransportWrite(e)) {
            out.push({ node: e, call: 'process.stdout.write' });
            continue;
          }
          // logger.info(…): a line logged on every start, through a logger this file imports (see importedStdoutLogger).
          if (Node.isIdentifier(obj) && STARTUP_LEVELS.has(m)) loggerCalls.push(e);
        }
        // main(), main().catch(…), main().then(…): the body of a function of this file, one level.
        let target = callee;
        if (Node.isPropertyAccessExpression(target) && ['catch', 'then', 'finally'].includes(target.getName())) {
          const inner = unwrap(target.getExpression());
          target = Node.isCallExpression(inner) ? unwrap(inner.getExpression()) : inner;
        }
        if (depth === 0 && Node.isIdentifier(target)) {
          const d = declarationOf(target);
          const fn = d ? (initializerOf(d) ?? d.getParent()) : undefined;
          const body = fn && isFunctionLike(fn) && fn.getSourceFile() === sf ? (fn as Node & { getBody?: () => Node | undefined }).getBody?.() : undefined;
          if (body && Node.isBlock(body) && !visited.has(body)) {
            visited.add(body);
            walk(body.getStatements(), depth + 1);
          }
        }
      }
      if (endsPath(st)) return;
    }
  };
  walk(sf.getStatements(), 0);
  return out;
}

/** Levels a logger prints at by default (pino, winston, bunyan and their kin start at info). */
const STARTUP_LEVELS = new Set(['info', 'warn', 'error', 'fatal', 'log', 'notice']);

/**
 * The logger a command line logs with on every start (`logger.info('starting')`), when it is imported from a module
 * of the package that creates it at its top level (`export const logger = pino()`): that creation, if the logger's
 * destination is stdout. A logger the command line does not log with at start-up is not judged from here.
 */
function importedStdoutLogger(call: CallExpression, commandLine: SourceFile): Node | undefined {
  const callee = unwrap(call.getExpression());
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const obj = unwrap(callee.getExpression());
  if (!Node.isIdentifier(obj)) return undefined;
  const local = declarationOf(obj)?.getParent();
  if (!local || !(Node.isImportSpecifier(local) || Node.isImportClause(local)) || local.getSourceFile() !== commandLine) return undefined;
  const d = obj.getSymbol()?.getAliasedSymbol()?.getDeclarations()[0];
  if (!d || d.getSourceFile() === commandLine || d.getSourceFile().isInNodeModules() || OTHER_MODE.test(d.getSourceFile().getFullText())) return undefined;
  const init = Node.isVariableDeclaration(d) ? d.getInitializer() : undefined;
  const stmt = d.getFirstAncestor((a) => Node.isVariableStatement(a));
  if (!init || !stmt || !Node.isSourceFile(stmt.getParent())) return undefined;
  // Only a `const` logger is judged by its initializer: a `let` one may be re-pointed (`logToStderr()` assigning a
  // stderr logger) before the command line logs. A logger whose level either file sets to silent
  // (`logger.level = 'silent'`) is not judged from here either.
  if (!Node.isVariableStatement(stmt) || !(stmt.getDeclarationList().getFlags() & ts.NodeFlags.Const)) return undefined;
  if ([commandLine, d.getSourceFile()].some((sf) => silencesLogger(sf, sf === commandLine ? obj.getText() : (d as VariableDeclaration).getName()))) return undefined;
  return unwrap(init);
}

/**
 * Is this logger creation a top-level `const` whose level its module sets to silent by a top-level statement
 * (`const logger = pino(); logger.level = 'silent';`): it writes nothing, on every path.
 */
function silencedAtStart(n: Node): boolean {
  const d = n.getParent();
  const stmt = d?.getFirstAncestor((a) => Node.isVariableStatement(a));
  if (!d || !Node.isVariableDeclaration(d) || !Node.isIdentifier(d.getNameNode()) || !stmt || !Node.isVariableStatement(stmt)) return false;
  if (!Node.isSourceFile(stmt.getParent()) || !(stmt.getDeclarationList().getFlags() & ts.NodeFlags.Const)) return false;
  const sf = stmt.getSourceFile();
  return sf.getStatements().some((st) => Node.isExpressionStatement(st) && st.getPos() > stmt.getEnd() - 1 && silences(st.getExpression(), d.getName()));
}

/** Is `e` an assignment that sets the level of the logger named `name` to silent (`name.level = 'silent'`, `name.silent = true`)? */
function silences(e: Node, name: string): boolean {
  const b = unwrap(e);
  if (!Node.isBinaryExpression(b) || b.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) return false;
  const left = unwrap(b.getLeft());
  if (!Node.isPropertyAccessExpression(left) || unwrap(left.getExpression()).getText() !== name) return false;
  const right = unwrap(b.getRight());
  if (left.getName() === 'level') return constString(right)?.value === 'silent';
  return left.getName() === 'silent' && right.getKind() === SyntaxKind.TrueKeyword;
}

/** Does the file set the level of the logger named `name` to silent (`name.level = 'silent'`, `name.silent = true`)? */
function silencesLogger(sf: SourceFile, name: string): boolean {
  return sf.getDescendantsOfKind(SyntaxKind.BinaryExpression).some((b) => silences(b, name));
}

/**
 * Folders a file loads modules from by a computed path: `import(\`./tools/${name}.js\`)`, or a path built from the
 * module's own folder (`__dirname`, `import.meta`) and a literal folder name (`join(here, 'tools')`, followed
 * through consts), as in a loop over `readdirSync` of a folder of tool modules. Paths relative to the file.
 */
function computedLoadDirs(sf: SourceFile): string[] {
  const out: string[] = [];
  const calls = ofKinds(sf, [SyntaxKind.CallExpression], (cn) => {
    const c = cn as ts.CallExpression;
    const a = c.arguments[0];
    return (c.expression.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c.expression) && c.expression.text === 'require')) && !!a && !ts.isStringLiteralLike(a);
  });
  for (const call of calls) {
    if (!Node.isCallExpression(call)) continue;
    const arg = unwrap(call.getArguments()[0]!);
    if (Node.isTemplateExpression(arg)) {
      const head = arg.getHead().getLiteralText();
      if (/^\.\.?\//.test(head) && head.includes('/')) out.push(head.slice(0, head.lastIndexOf('/')) || '.');
      continue;
    }
    // The texts the path is built from: the argument and, two levels deep, the consts it names.
    const texts: string[] = [];
    const literals: string[] = [];
    const walk = (n: Node, depth: number): void => {
      texts.push(n.getText());
      for (const x of [n, ...n.getDescendants()]) {
        const s = stringValue(x);
        if (s !== undefined) literals.push(s);
        if (depth < 2 && Node.isIdentifier(x)) {
          const d = declarationOf(x);
          const init = d ? initializerOf(d) : undefined;
          if (init && init.getSourceFile() === sf) walk(init, depth + 1);
        }
      }
    };
    walk(arg, 0);
    if (!texts.some((t) => /\b__dirname\b|\bimport\.meta\b/.test(t))) continue;
    for (const l of literals) if (/^(?:\.\.?\/)?[\w@-]+(?:\/[\w@-]+)*\/?$/.test(l) && !/^\.?\.?$/.test(l)) out.push(l.replace(/\/$/, ''));
  }
  return out;
}

/**
 * Path aliases resolved at run time: a package that registers `tsconfig-paths` or `module-alias` (its register module
 * imported by a file read, or `-r …/register` in a bin or start script) loads `@/utils/log` or `@lib/log` as the file
 * its shipped `tsconfig.json` `compilerOptions.paths` (under `baseUrl`) or its package.json `_moduleAliases` names.
 * Each alias is a prefix (`@/*`, `@lib`) mapped to a folder or file of the package; the first existing file wins, as in
 * the resolvers. Nothing is aliased when the package registers neither, or ships no table.
 */
type Aliases = [prefix: string, exact: boolean, target: string][];
const ALIAS_REGISTER = /\b(?:tsconfig-paths|module-alias)(?:\/register)?\b/;
function runtimeAliases(root: string, code: Code): Aliases {
  const read = (f: string): unknown => {
    try {
      return JSON.parse(readFileSync(join(root, f), 'utf8').replace(/^\s*\/\/.*$/gm, ''));
    } catch {
      return undefined;
    }
  };
  const pkg = read('package.json') as { _moduleAliases?: Record<string, unknown>; scripts?: Record<string, unknown> } | undefined;
  const registered = code.files.some(([, sf]) => specsOf(sf).some((spec) => /^(?:tsconfig-paths|module-alias)(?:\/register)?$/.test(spec))) || Object.values(pkg?.scripts ?? {}).some((v) => typeof v === 'string' && ALIAS_REGISTER.test(v) && /(?:^|\s)(?:-r|--require)\s/.test(v));
  if (!registered) return [];
  const out: Aliases = [];
  for (const [k, v] of Object.entries(pkg?._moduleAliases ?? {})) if (typeof v === 'string') out.push([k, false, posix.normalize(v)]);
  const co = (read('tsconfig.json') as { compilerOptions?: { baseUrl?: unknown; paths?: Record<string, unknown> } } | undefined)?.compilerOptions;
  const base = typeof co?.baseUrl === 'string' ? co.baseUrl : '.';
  for (const [k, v] of Object.entries(co?.paths ?? {})) {
    const first = Array.isArray(v) ? v.find((x): x is string => typeof x === 'string') : undefined;
    if (!first) continue;
    if (k.endsWith('/*') && (first === '*' || first.endsWith('/*'))) out.push([k.slice(0, -1), false, posix.normalize(posix.join(base, first === '*' ? '.' : first.slice(0, -2)))]);
    else if (!k.includes('*') && !first.includes('*')) out.push([k, true, posix.normalize(posix.join(base, first))]);
  }
  return out.filter(([, , t]) => !t.startsWith('../'));
}
/** The package file an aliased specifier names: `@/x/y` under `@/*` -> `<target>/x/y`, `@lib/x` under `@lib` -> `<target>/x`. */
function aliasedModule(spec: string, aliases: Aliases, code: Code): SourceFile | undefined {
  for (const [prefix, exact, target] of aliases) {
    let rest: string | undefined;
    if (exact) rest = spec === prefix ? '' : undefined;
    else if (prefix.endsWith('/')) rest = spec.startsWith(prefix) ? spec.slice(prefix.length) : undefined;
    else rest = spec === prefix ? '' : spec.startsWith(`${prefix}/`) ? spec.slice(prefix.length + 1) : undefined;
    if (rest === undefined) continue;
    const hit = resolveRelativeModule('package.json', `./${rest ? posix.join(target, rest) : target}`, code.sources);
    if (hit) return hit;
  }
  return undefined;
}

/** The entry files and everything they load by relative path (and from folders loaded by a computed path, or by a runtime path alias). */
function loadedFrom(code: Code, entries: SourceFile[], aliases: Aliases = []): SourceFile[] {
  const seen = new Set<SourceFile>(entries);
  const queue = [...entries];
  const add = (target: SourceFile | undefined): void => {
    if (target && !seen.has(target)) {
      seen.add(target);
      queue.push(target);
    }
  };
  while (queue.length) {
    const sf = queue.shift()!;
    for (const spec of loadedSpecs(sf)) add(resolveRelativeModule(code.rel(sf), spec, code.sources));
    if (aliases.length) for (const spec of specsOf(sf)) if (!spec.startsWith('.')) add(aliasedModule(spec, aliases, code));
    const from = posix.dirname(code.rel(sf));
    for (const dir of computedLoadDirs(sf)) {
      const prefix = `${posix.normalize(posix.join(from, dir))}/`;
      if (prefix.startsWith('../') || prefix === './') continue;
      for (const [rel, other] of code.files) if (rel.startsWith(prefix)) add(other);
    }
  }
  return [...seen];
}

/** `console` / `process` as the global (or `process` imported from node:process), not a local of that name. */
const isGlobal = (n: Node, name: string): boolean => {
  const u = unwrap(n);
  // `globalThis.console`, `global.process`: the same global reached through the global object.
  if (Node.isPropertyAccessExpression(u) && u.getName() === name) {
    const o = unwrap(u.getExpression());
    return Node.isIdentifier(o) && /^(?:globalThis|global)$/.test(o.getText()) && originOf(o)?.module === '<global>';
  }
  if (!Node.isIdentifier(u) || u.getText() !== name) return false;
  const m = originOf(u)?.module;
  return m === '<global>' || m === name;
};

/** `process.stdout`, written as such or kept in a variable (`const out = process.stdout`, `const { stdout } = process`). */
function stdoutOf(obj: Node): boolean {
  if (Node.isPropertyAccessExpression(obj) && obj.getName() === 'stdout' && isGlobal(obj.getExpression(), 'process')) return true;
  if (!Node.isIdentifier(obj)) return false;
  const o = originOf(obj);
  return !!o && (o.module === '<global>' || o.module === 'process') && o.path.join('.') === (o.module === 'process' ? 'stdout' : 'process.stdout');
}

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

/**
 * The value an expression has when the server runs on stdio: a const followed to its initializer, and of a
 * conditional whose condition selects another mode (`useHttp ? 1 : 2`, modes.ts), the branch stdio takes. An
 * expression that cannot be followed is returned as it is.
 */
function stdioValue(n: Node, depth = 0): Node {
  const u = unwrap(n);
  if (depth > 3) return u;
  if (Node.isConditionalExpression(u)) {
    if (neverStdio(u.getCondition(), 'then')) return stdioValue(u.getWhenFalse(), depth + 1);
    if (neverStdio(u.getCondition(), 'else')) return stdioValue(u.getWhenTrue(), depth + 1);
    return u;
  }
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const decl = d?.getParent();
    const list = decl?.getParent();
    const init = d && Node.isVariableDeclaration(decl) && Node.isVariableDeclarationList(list) && list.getFlags() & ts.NodeFlags.Const ? initializerOf(d) : undefined;
    return init ? stdioValue(init, depth + 1) : u;
  }
  return u;
}

/**
 * Targets of pino's transports and pino-pretty's stream that write to file descriptor 1 unless told otherwise:
 * pino-pretty (index.js: `dest: opts.destination || 1`) and pino/file (file.js: `dest: opts.destination || 1`).
 */
const STDOUT_TARGETS: ReadonlySet<string> = new Set(['pino-pretty', 'pino/file']);

/** Does the `destination` option of pino-pretty or pino/file (an options object, or none) leave them on stdout? */
function optionsToStdout(options: Node | undefined): boolean {
  if (!options) return true;
  const o = stdioValue(options);
  if (!Node.isObjectLiteralExpression(o) || o.getProperties().some((p) => Node.isSpreadAssignment(p))) return false;
  const d = o.getProperty('destination');
  if (!d) return true;
  if (!Node.isPropertyAssignment(d)) return false;
  const v = stdioValue(d.getInitializerOrThrow());
  const text = v.getText().replace(/\s+/g, '');
  return text === '1' || stringValue(v) === '/dev/stdout' || text === 'process.stdout.fd';
}

/** A pino transport description (`{ target }`, `{ targets: [...] }`, `{ pipeline: [...] }`) one of whose targets writes to stdout. */
function transportToStdout(n: Node, depth = 0): boolean {
  const v = stdioValue(n);
  if (depth > 2 || !Node.isObjectLiteralExpression(v)) return false;
  const prop = (k: string): Node | undefined => {
    const p = v.getProperty(k);
    return p && Node.isPropertyAssignment(p) ? p.getInitializer() : undefined;
  };
  for (const k of ['targets', 'pipeline']) {
    const list = prop(k) ? stdioValue(prop(k)!) : undefined;
    if (!list || !Node.isArrayLiteralExpression(list)) continue;
    const items = list.getElements();
    // A pipeline writes where its last step does.
    return (k === 'pipeline' ? items.slice(-1) : items).some((e) => transportToStdout(e, depth + 1));
  }
  const target = prop('target') ? stringValue(stdioValue(prop('target')!)) : undefined;
  return !!target && STDOUT_TARGETS.has(target) && optionsToStdout(prop('options'));
}

/** A pino destination stream that is stdout: `process.stdout`, `pino.destination(1)`, `pino.transport({ target: 'pino-pretty' })`, `pretty()`. */
function streamToStdout(arg: Node): boolean {
  const v = stdioValue(arg);
  if (Node.isCallExpression(v)) {
    const o = originOf(v.getExpression());
    if (o?.module === 'pino' && names(o.path).pop() === 'transport') return !!v.getArguments()[0] && transportToStdout(v.getArguments()[0]!);
    if (o?.module === 'pino-pretty') return optionsToStdout(v.getArguments()[0]);
    // pino.multistream([{ level: 'info', stream: process.stdout }, { level: 'error', stream: process.stderr }]).
    if (o?.module === 'pino' && names(o.path).pop() === 'multistream') return !!v.getArguments()[0] && streamsToStdout(v.getArguments()[0]!);
  }
  return destinationOf(v) === 'stdout';
}

/**
 * A pino logger that writes to stdout: `pino()`, `pino({ level })` without transport, a transport or a stream
 * whose target writes to stdout (pino-pretty, pino/file without a destination), or a stdout destination.
 */
function pinoToStdout(call: Node): boolean {
  if (!Node.isCallExpression(call)) return false;
  const o = originOf(call.getExpression());
  if (!o || o.module !== 'pino' || !(o.path.length === 0 || (o.path.length === 1 && ['pino', 'default'].includes(o.path[0]!)))) return false;
  const args = call.getArguments();
  if (args.length >= 2) return streamToStdout(args[1]!);
  if (args.length === 0) return true;
  const a = stdioValue(args[0]!);
  if (Node.isObjectLiteralExpression(a)) {
    const tr = a.getProperty('transport');
    return !tr || (Node.isPropertyAssignment(tr) && transportToStdout(tr.getInitializerOrThrow()));
  }
  return streamToStdout(a);
}

/** `process.env.NAME` / `process.env['NAME']` in a text. */
const ENV_READ = /process\.env(?:\.([A-Za-z_][\w]*)|\[\s*['"`]([A-Za-z_][\w]*)['"`]\s*\])/g;
const envNames = (text: string): string[] => [...text.matchAll(ENV_READ)].map((m) => (m[1] ?? m[2])!);

/** A pino stream or transport that stays on stdout: none at all (`undefined`, `void 0`, `null`), or one that writes there. */
const leavesStdout = (n: Node): boolean => /^(?:undefined|void 0|null)$/.test(unwrap(n).getText()) || streamToStdout(n);
const toStderr = (n: Node): boolean => /stderr|dest(?:ination)?:2\b|destination\(2\)|fd:2\b/.test(unwrap(n).getText().replace(/\s+/g, ''));

/**
 * Environment flags the package sets itself once it runs (`process.env.MCP_MODE = 'true'` inside main() or a command's
 * action), and the functions called while the modules load (`const log = createLogger({ … })` at the top of a file).
 * Gathered once per judging over the files of the stdio program.
 */
interface LoadOrder {
  flagsSetLater: ReadonlySet<string>;
  calledAtLoad: ReadonlySet<string>;
}
function loadOrderOf(files: readonly SourceFile[], all: readonly SourceFile[]): LoadOrder {
  const flagsSetLater = new Set<string>();
  const calledAtLoad = new Set<string>();
  // The flag may be set by the command-line entry (a commander action), which is not among the stdio program's files.
  for (const sf of all) {
    for (const n of ofKinds(sf, [SyntaxKind.BinaryExpression])) {
      if (!Node.isBinaryExpression(n) || n.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
      const names = envNames(n.getLeft().getText());
      if (names.length && n.getFirstAncestor((a) => isFunctionLike(a))) for (const x of names) flagsSetLater.add(x);
    }
  }
  for (const sf of files) {
    for (const st of sf.compilerNode.statements) {
      if (!ts.isVariableStatement(st)) continue;
      for (const d of st.declarationList.declarations) {
        const init = d.initializer;
        if (!init || ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init)) continue;
        for (const m of init.getText(sf.compilerNode).matchAll(/([A-Za-z_$][\w$]*)\s*\(/g)) calledAtLoad.add(m[1]!);
      }
    }
  }
  return { flagsSetLater, calledAtLoad };
}

/** The name of the function a node sits in (a declaration, or a const holding an arrow or function expression), '' at the top level. */
function enclosingFunctionName(n: Node): string | undefined {
  const f = n.getFirstAncestor((a) => isFunctionLike(a));
  if (!f) return '';
  if (Node.isFunctionDeclaration(f)) return f.getName();
  const p = f.getParent();
  return p && Node.isVariableDeclaration(p) ? p.getName() : undefined;
}

/**
 * A pino logger whose stream is chosen by an environment flag that the package sets itself once it runs
 * (`const transport = process.env.MCP_MODE === 'true' ? pino.transport({ target: 'pino/file', options: { destination: 2 } })
 * : undefined`, with `process.env.MCP_MODE = 'true'` in main()), created while the modules load (at the top of a file,
 * or in a function a file calls at its top: `const logger = createLogger(…)`): at that moment the flag is not set yet,
 * and the logger takes pino's default, stdout. Returns the flag.
 */
function pinoBeforeFlag(call: Node, order: LoadOrder): string | undefined {
  if (!order.flagsSetLater.size || !Node.isCallExpression(call)) return undefined;
  const o = originOf(call.getExpression());
  if (!o || o.module !== 'pino' || !(o.path.length === 0 || (o.path.length === 1 && ['pino', 'default'].includes(o.path[0]!)))) return undefined;
  const args = call.getArguments();
  let dest: Node | undefined = args[1];
  if (!dest && args[0]) {
    const a = stdioValue(args[0]);
    const tr = Node.isObjectLiteralExpression(a) ? a.getProperty('transport') : undefined;
    if (tr && Node.isPropertyAssignment(tr)) dest = tr.getInitializer();
  }
  const c = dest ? stdioValue(dest) : undefined;
  if (!c || !Node.isConditionalExpression(c)) return undefined;
  const [t, f] = [c.getWhenTrue(), c.getWhenFalse()];
  if (!((toStderr(t) && leavesStdout(f)) || (toStderr(f) && leavesStdout(t)))) return undefined;
  // The flags the condition reads, directly or through the consts it names (`const isMCPMode = process.env.MCP_MODE === 'true'`).
  const cond = c.getCondition();
  const texts = [cond.getText()];
  for (const id of [cond, ...cond.getDescendants()].filter((x) => Node.isIdentifier(x))) {
    const d = declarationOf(id as never);
    const init = d ? initializerOf(d) : undefined;
    if (init) texts.push(init.getText());
  }
  const flag = texts.flatMap(envNames).find((x) => order.flagsSetLater.has(x));
  if (!flag) return undefined;
  const fn = enclosingFunctionName(call);
  return fn === '' || (fn !== undefined && order.calledAtLoad.has(fn)) ? flag : undefined;
}

/** winston's default levels (npm's), most severe first; a logger at one level emits it and those before it. */
const NPM_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

/** A string, or the literal fallback of `process.env.X || 'info'` / `?? 'info'`. */
function literalOrFallback(n: Node | undefined): string | undefined {
  if (!n) return undefined;
  const v = stdioValue(n);
  const s = stringValue(v);
  if (s !== undefined) return s;
  if (Node.isBinaryExpression(v) && [SyntaxKind.BarBarToken, SyntaxKind.QuestionQuestionToken].includes(v.getOperatorToken().getKind())) return stringValue(stdioValue(v.getRight()));
  return undefined;
}

/** A literal array of strings (followed through consts), or undefined when it cannot be read. */
function stringArray(n: Node): string[] | undefined {
  const v = stdioValue(n);
  if (!Node.isArrayLiteralExpression(v)) return undefined;
  const out = v.getElements().map((e) => stringValue(stdioValue(e)));
  return out.every((s) => s !== undefined) ? (out as string[]) : undefined;
}

/**
 * The npm levels a winston Console transport with `stderrLevels` / `consoleWarnLevels` still writes to stdout
 * (console.js: a level in neither set goes to `console._stdout`): the levels its logger emits (the transport's
 * `level`, else the `level` of the createLogger around it, else winston's default `info`) that neither list names.
 * Undefined when the lists, the level or custom `levels` cannot be read.
 */
function winstonStdoutLevels(n: Node, opts: Node): string[] | undefined {
  if (!Node.isObjectLiteralExpression(opts)) return undefined;
  const value = (o: Node, k: string): Node | undefined => {
    const p = Node.isObjectLiteralExpression(o) ? o.getProperty(k) : undefined;
    return p && Node.isPropertyAssignment(p) ? p.getInitializer() : undefined;
  };
  const covered = new Set<string>();
  for (const k of ['stderrLevels', 'consoleWarnLevels']) {
    const v = value(opts, k);
    if (!v) continue;
    const list = stringArray(v);
    if (!list) return undefined;
    for (const l of list) covered.add(l);
  }
  let level = value(opts, 'level');
  const create = n.getFirstAncestor((a) => Node.isCallExpression(a) && originOf(a.getExpression())?.module === 'winston' && names(originOf(a.getExpression())!.path).pop() === 'createLogger');
  const loggerOpts = create && Node.isCallExpression(create) && create.getArguments()[0] ? stdioValue(create.getArguments()[0]!) : undefined;
  if (loggerOpts && (!Node.isObjectLiteralExpression(loggerOpts) || value(loggerOpts, 'levels') || loggerOpts.getProperties().some((p) => Node.isSpreadAssignment(p)))) return undefined;
  if (!level && loggerOpts) level = value(loggerOpts, 'level');
  const name = level ? literalOrFallback(level) : 'info';
  const upto = name === undefined ? -1 : NPM_LEVELS.indexOf(name);
  if (upto < 0) return undefined;
  return NPM_LEVELS.slice(0, upto + 1).filter((l) => !covered.has(l));
}

/**
 * Other loggers whose default destination is stdout: winston's Console transport (`new winston.transports.Console()`,
 * `new transports.Console({...})`) unless its options name `stderrLevels` or `consoleWarnLevels` covering every
 * level it emits that the files log at (`levelsUsed`), and bunyan's `createLogger({...})` without `stream` or
 * `streams`. Returns the library, or undefined. An options value that cannot be read is given the benefit of the doubt.
 */
function loggerToStdout(n: Node, levelsUsed: ReadonlySet<string>): 'winston' | 'bunyan' | undefined {
  if (Node.isNewExpression(n)) {
    const o = originOf(n.getExpression());
    if (!o || o.module !== 'winston' || !o.path.includes('transports')) return undefined;
    if (o.path[o.path.length - 1] === 'Stream') return n.getArguments()[0] && streamsToStdout(n.getArguments()[0]!) ? 'winston' : undefined;
    if (o.path[o.path.length - 1] !== 'Console') return undefined;
    const arg = n.getArguments()[0];
    if (!arg) return 'winston';
    const a = stdioValue(arg);
    if (!Node.isObjectLiteralExpression(a) || a.getProperties().some((p) => Node.isSpreadAssignment(p))) return undefined;
    if (!a.getProperty('stderrLevels') && !a.getProperty('consoleWarnLevels')) return 'winston';
    return winstonStdoutLevels(n, a)?.some((l) => levelsUsed.has(l)) ? 'winston' : undefined;
  }
  if (Node.isCallExpression(n)) {
    const o = originOf(n.getExpression());
    if (!o || o.module !== 'bunyan' || o.path[o.path.length - 1] !== 'createLogger') return undefined;
    const arg = n.getArguments()[0];
    const a = arg ? unwrap(arg) : undefined;
    if (!a || !Node.isObjectLiteralExpression(a) || a.getProperties().some((p) => Node.isSpreadAssignment(p))) return undefined;
    // No stream: bunyan's default is process.stdout; or a stream (of `streams`) that is process.stdout.
    return (!a.getProperty('stream') && !a.getProperty('streams')) || streamsToStdout(a) ? 'bunyan' : undefined;
  }
  return undefined;
}

/**
 * Streams that are stdout in a logger's options: `{ stream: process.stdout }`, `streams: [{ level, stream: process.stdout }]`
 * (bunyan, winston's Stream transport, pino.multistream), or `pino.destination(1)` as such a stream.
 */
function streamsToStdout(n: Node, depth = 0): boolean {
  const v = stdioValue(n);
  if (depth > 3) return false;
  if (Node.isArrayLiteralExpression(v)) return v.getElements().some((e) => streamsToStdout(e, depth + 1));
  if (!Node.isObjectLiteralExpression(v)) return false;
  for (const k of ['stream', 'streams']) {
    const p = v.getProperty(k);
    if (!p || !Node.isPropertyAssignment(p)) continue;
    const s = stdioValue(p.getInitializerOrThrow());
    if (k === 'streams' ? streamsToStdout(s, depth + 1) : stdoutOf(s) || (Node.isCallExpression(s) && destinationOf(s) === 'stdout')) return true;
  }
  return false;
}

/** consola methods at the default level (info) or above that its reporters write to stdout (error, warn and fatal go to stderr). */
const CONSOLA_STDOUT = new Set(['log', 'info', 'success', 'start', 'ready', 'box', 'debug', 'trace', 'verbose']);
/** signale's loggers: the default instance writes every one of them to stdout. */
const SIGNALE_METHODS = new Set(['await', 'complete', 'debug', 'error', 'fatal', 'fav', 'info', 'log', 'note', 'pause', 'pending', 'star', 'start', 'success', 'wait', 'warn', 'watch']);
/** loglevel methods bound to console.log / info / debug (stdout); warn and error go to stderr, trace to console.trace (stderr). */
const LOGLEVEL_STDOUT = new Set(['info', 'debug', 'log']);
export const MORE_LOGGERS = ['log4js', 'consola', 'signale', 'tslog', 'loglevel', 'debug'];

/** The last names of an origin without `default` (an ES default import read through CommonJS). */
const names = (path: string[]): string[] => path.filter((p) => p !== 'default');

/** Files that call `<lib>.<method>(…)` for one of `methods` (on the module's own export), with that call's argument texts. */
function callsOf(files: SourceFile[], mod: string, methods: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const sf of files) {
    if (!namesAnyModule(sf, [mod])) continue;
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression], rawCallNamed(methods))) {
      if (!Node.isCallExpression(n)) continue;
      const o = originOf(n.getExpression());
      const p = o && o.module === mod ? names(o.path) : undefined;
      if (p && p.length >= 1 && methods.has(p[p.length - 1]!)) out.push(n.getArguments().map((a) => a.getText()).join(','));
    }
  }
  return out;
}

/**
 * Loggers of other libraries that write to stdout, from the calls of the stdio server's files (see the detector
 * comment): returns the library, or undefined. `ctx` holds what the whole set of files says (a log4js
 * configuration, a loglevel level).
 */
function moreLoggerToStdout(n: Node, ctx: { log4jsConfigs: string[]; loglevelLevels: string[] }): string | undefined {
  if (Node.isNewExpression(n)) {
    const o = originOf(n.getExpression());
    if (o?.module !== 'tslog' || names(o.path).pop() !== 'Logger') return undefined;
    // tslog prints with console.log unless its type is 'hidden' or its output is overwritten.
    const a = n.getArguments()[0];
    const obj = a ? unwrap(a) : undefined;
    if (obj && !Node.isObjectLiteralExpression(obj)) return undefined;
    const t = obj?.getText() ?? '';
    return /type\s*:\s*['"]hidden['"]|overwrite\s*:/.test(t) || obj?.getProperties().some((p) => Node.isSpreadAssignment(p)) ? undefined : 'tslog';
  }
  if (Node.isBinaryExpression(n)) {
    // debug.log = console.log(.bind(console)): the debug package, which writes to stderr, pointed at stdout.
    const left = unwrap(n.getLeft());
    if (!Node.isPropertyAccessExpression(left) || left.getName() !== 'log') return undefined;
    const recv = unwrap(left.getExpression());
    let o = originOf(recv);
    // const debug = createDebug('app'): an instance made by the package.
    const d = !o && Node.isIdentifier(recv) ? declarationOf(recv) : undefined;
    const init = d ? initializerOf(d) : undefined;
    if (init && Node.isCallExpression(unwrap(init))) o = originOf((unwrap(init) as CallExpression).getExpression());
    if (o?.module !== 'debug') return undefined;
    return /^console\.(?:log|info|debug)\b|process\.stdout/.test(n.getRight().getText().replace(/\s+/g, '')) ? 'debug' : undefined;
  }
  if (!Node.isCallExpression(n)) return undefined;
  const o = originOf(n.getExpression());
  if (!o) return undefined;
  const p = names(o.path);
  const m = p[p.length - 1] ?? '';
  if (o.module === 'consola' && p.length >= 1 && CONSOLA_STDOUT.has(m) && (p.length === 1 || p[0] === 'consola')) return 'consola';
  if (o.module === 'signale' && p.length === 1 && SIGNALE_METHODS.has(m)) return 'signale';
  if (o.module === 'loglevel' && p.length === 1 && LOGLEVEL_STDOUT.has(m) && ctx.loglevelLevels.some((l) => /trace|debug|info|^['"]?[012]['"]?$/i.test(l))) return 'loglevel';
  if (o.module === 'log4js' && m === 'configure') {
    // A stdout or console appender in the configuration (the console appender calls console.log).
    return /type\s*:\s*['"](?:stdout|console)['"]/.test(n.getArguments()[0]?.getText() ?? '') ? 'log4js' : undefined;
  }
  if (o.module === 'log4js' && m === 'getLogger' && ctx.log4jsConfigs.length === 0) {
    // No configuration: log4js's default appender is stdout; it logs once a level is set on the logger.
    const holder = n.getParent();
    if (!Node.isVariableDeclaration(holder)) return undefined;
    const name = holder.getName();
    const text = n.getSourceFile().getFullText();
    const level = new RegExp(`\\b${name.replace(/[$]/g, '\\$')}\\.level\\s*=\\s*['"](\\w+)['"]`).exec(text);
    return level && level[1]!.toLowerCase() !== 'off' ? 'log4js' : undefined;
  }
  return undefined;
}

const KUBE_CLIENT = '@kubernetes/client-node';
/** The writable-stream argument of @kubernetes/client-node's Exec.exec, Attach.attach and Log.log (dist/*.d.ts). */
const KUBE_STREAM_ARG: Readonly<Record<string, number>> = { exec: 4, attach: 3, log: 3 };

/** Launchers whose options can give the child our stdout. */
const LAUNCHERS: Record<string, RegExp> = {
  child_process: /^(?:spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)$/,
  'cross-spawn': /^(?:|spawn|sync)$/,
  execa: /^(?:execa|execaSync|execaNode|execaCommand|execaCommandSync)$/,
};

/**
 * Does a stdio option value give the child our stdout: 'inherit', or an array whose second entry is 'inherit', 1 or
 * process.stdout? Values are followed through consts (`const STDIO = 'inherit'`) and through conditionals: one that
 * selects a mode is resolved (stdioValue), any other (`verbose ? 'inherit' : 'pipe'`) inherits when either branch does.
 */
function inheritsStdout(v: Node | undefined, key: string, depth = 0): boolean {
  if (!v || depth > 3) return false;
  const u = stdioValue(v);
  if (Node.isConditionalExpression(u)) {
    // A flag that cannot be shown to be settable where the server serves on stdio is not taken to select 'inherit'.
    if (!settableOnStdio(u.getCondition())) return false;
    return inheritsStdout(u.getWhenTrue(), key, depth + 1) || inheritsStdout(u.getWhenFalse(), key, depth + 1);
  }
  const text = (n: Node | undefined): string => (n ? stdioValue(n).getText().replace(/\s+/g, '') : '');
  const inheritish = (n: Node | undefined): boolean => /^(?:['"`]inherit['"`]|1|process\.stdout)$/.test(text(n)) || (!!n && stdoutOf(stdioValue(n)));
  if (key === 'stdout') return inheritish(u);
  if (Node.isArrayLiteralExpression(u)) return inheritish(u.getElements()[1]);
  return /^['"`]inherit['"`]$/.test(text(u));
}

/**
 * Can a condition hold either way when the server is launched on stdio: it reads the environment or the command line
 * its client passes (`process.env.HELM_VERBOSE === '1'`, `process.argv.includes('--verbose')`) or the platform it runs
 * on (`process.platform === 'win32'`), directly or through a const (three levels). A parameter, a field or an option whose source is not read is not shown settable.
 */
function settableOnStdio(cond: Node, depth = 0): boolean {
  if (depth > 3) return false;
  for (const n of [cond, ...cond.getDescendants()]) {
    if (Node.isPropertyAccessExpression(n) && /^process\.(?:env|argv|platform)$/.test(n.getText().replace(/\s+/g, ''))) return true;
    if (!Node.isIdentifier(n) || n.getText() === 'process') continue;
    const d = declarationOf(n);
    const decl = d?.getParent();
    const list = decl?.getParent();
    const init = d && Node.isVariableDeclaration(decl) && Node.isVariableDeclarationList(list) && list.getFlags() & ts.NodeFlags.Const ? initializerOf(d) : undefined;
    if (init && settableOnStdio(init, depth + 1)) return true;
  }
  return false;
}

/** The value of an option in an options object: `{ stdio: … }` or the shorthand `{ stdio }`. */
function optionValue(obj: Node, key: string): Node | undefined {
  if (!Node.isObjectLiteralExpression(obj)) return undefined;
  const prop = obj.getProperty(key);
  if (prop && Node.isPropertyAssignment(prop)) return prop.getInitializer();
  if (prop && Node.isShorthandPropertyAssignment(prop)) return prop.getNameNode();
  return undefined;
}

/** A launch whose child writes on our stdout (see the detector comment): the callee as written, or undefined. */
function inheritedLaunch(n: Node): string | undefined {
  if (!Node.isCallExpression(n)) return undefined;
  const callee = unwrap(n.getExpression());
  const o = originOf(callee);
  const m = o ? names(o.path).pop() ?? '' : '';
  if (!o || !LAUNCHERS[o.module]?.test(m)) return undefined;
  for (const a of n.getArguments()) {
    // The options written in the call, or kept in a const (`const RUN = { stdio: 'inherit' }; spawnSync('helm', args, RUN)`).
    const obj = stdioValue(a);
    if (!Node.isObjectLiteralExpression(obj)) continue;
    for (const key of ['stdio', 'stdout']) {
      if (inheritsStdout(optionValue(obj, key), key)) return callee.getText().replace(/\s+/g, '').slice(0, 80);
    }
  }
  return undefined;
}

/**
 * shelljs echoes on our stdout: `exec(cmd)` prints the command's output as it runs unless `silent: true` is passed
 * (or set once with `config.silent = true`), and `echo(…)` prints its text. The callee as written, or undefined.
 */
function shelljsPrint(n: Node, silenced: boolean): { messageId: 'stdout-write' | 'child-stdout-inherited'; call: string } | undefined {
  if (silenced || !Node.isCallExpression(n)) return undefined;
  const callee = unwrap(n.getExpression());
  const o = originOf(callee);
  const m = o?.module === 'shelljs' ? names(o.path).pop() : undefined;
  const call = callee.getText().replace(/\s+/g, '').slice(0, 80);
  if (m === 'echo') return { messageId: 'stdout-write', call };
  if (m !== 'exec') return undefined;
  for (const a of n.getArguments().slice(1)) {
    const obj = stdioValue(a);
    if (!Node.isObjectLiteralExpression(obj)) continue;
    // Options spread from elsewhere may carry silent: not counted.
    if (obj.getProperties().some((p) => Node.isSpreadAssignment(p))) return undefined;
    const silent = optionValue(obj, 'silent');
    if (silent && stdioValue(silent).getText() !== 'false') return undefined;
  }
  return { messageId: 'child-stdout-inherited', call };
}

/** Does a file set shelljs's `config.silent = true` (every exec quiet)? */
function shelljsSilenced(files: SourceFile[]): boolean {
  return files.some((sf) => namesAnyModule(sf, ['shelljs']) && /\bconfig\.silent\s*=\s*true\b/.test(sf.getFullText()));
}

/** Where an expression's value goes: the outermost of its parentheses, `as` and `!` wrappers, and that one's parent. */
function valueUse(n: Node): { cur: Node; p: Node | undefined } {
  let cur: Node = n;
  let p = cur.getParent();
  while (p && (Node.isParenthesizedExpression(p) || Node.isAsExpression(p) || Node.isNonNullExpression(p))) {
    cur = p;
    p = p.getParent();
  }
  return { cur, p };
}

/**
 * `process.stdout.write` handed on as a value rather than called here: `child.stdout.on('data',
 * process.stdout.write.bind(process.stdout))`, `{ write: process.stdout.write }`, `const out = process.stdout.write.bind(…)`:
 * whoever calls it writes on the protocol channel. Not a reassignment (`process.stdout.write = …`) nor the original kept
 * unbound to be put back (`const original = process.stdout.write`).
 */
function stdoutWriteReferences(sf: SourceFile): Node[] {
  if (!sf.getFullText().includes('stdout')) return [];
  const raw = (cn: ts.Node): boolean => (cn as ts.PropertyAccessExpression).name.text === 'write';
  const writes = ofKinds(sf, [SyntaxKind.PropertyAccessExpression], raw).filter((n) => Node.isPropertyAccessExpression(n) && stdoutOf(unwrap(n.getExpression())));
  // `process.stdout.write = (c, ...r) => process.stderr.write(c, ...r)`: the file redirects stdout, and the original
  // it keeps bound is there to be put back or to carry the protocol.
  const redirected = writes.some((n) => {
    const b = n.getParent();
    return !!b && Node.isBinaryExpression(b) && b.getLeft() === n && b.getOperatorToken().getKind() === SyntaxKind.EqualsToken;
  });
  return writes.filter((n) => {
    if (!Node.isPropertyAccessExpression(n) || !stdoutOf(unwrap(n.getExpression()))) return false;
    let { cur, p } = valueUse(n);
    if (!p) return false;
    if (Node.isCallExpression(p)) return p.getExpression() !== cur && !isTransportWrite(p);
    let bound = false;
    if (Node.isPropertyAccessExpression(p) && p.getName() === 'bind' && Node.isCallExpression(p.getParent())) {
      // The bound method is the value: where it goes decides.
      bound = true;
      cur = p.getParent()!;
      p = cur.getParent();
      if (!p) return false;
    } else if (Node.isPropertyAccessExpression(p)) return false;
    if (Node.isCallExpression(p)) return p.getExpression() !== cur;
    if (Node.isPropertyAssignment(p) || Node.isArrayLiteralExpression(p) || Node.isReturnStatement(p)) return true;
    if (Node.isVariableDeclaration(p)) return bound && !redirected && boundWriterUsed(p);
    return false;
  });
}

/**
 * A bound stdout writer held in a variable (`const out = process.stdout.write.bind(process.stdout)`) writes when it is
 * called with data (`out(text)`) or handed on (`child.stdout.on('data', out)`, `{ write: out }`, `return out`).
 */
function boundWriterUsed(decl: Node): boolean {
  if (!Node.isVariableDeclaration(decl)) return false;
  const id = decl.getNameNode();
  if (!Node.isIdentifier(id)) return false;
  const name = id.getText();
  const raw = (cn: ts.Node): boolean => (cn as ts.Identifier).text === name;
  return ofKinds(decl.getSourceFile(), [SyntaxKind.Identifier], raw).some((r) => {
    if (r === id || declarationOf(r as Identifier)?.getParent() !== decl) return false;
    const { cur, p } = valueUse(r);
    if (!p) return false;
    if (Node.isCallExpression(p)) return p.getExpression() === cur ? p.getArguments().length > 0 : true;
    return Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isArrayLiteralExpression(p) || Node.isReturnStatement(p);
  });
}

/** The major version of dotenv the package runs: the installed one, else the lowest its declared range allows. */
function dotenvMajor(repo: RepoFacts): number | undefined {
  const folder = installedFolder(repo.root, 'dotenv');
  if (folder) {
    try {
      const v = semver.valid((JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: string }).version ?? '');
      if (v) return semver.major(v);
    } catch {
      /* not readable: the declared range decides */
    }
  }
  const pkg = repo.object('package.json');
  if (!pkg.ok) return undefined;
  for (const k of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    const range = (pkg.value[k] as Record<string, unknown> | undefined)?.dotenv;
    if (typeof range !== 'string') continue;
    try {
      const min = semver.minVersion(range);
      return min ? semver.major(min) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** dotenv 17.x loads: `config()` / `configDotenv()` without `quiet: true` (an options value that cannot be read is not counted), or `dotenv/config` loaded. */
function dotenvBanners(files: SourceFile[]): Node[] {
  const out: Node[] = [];
  for (const sf of files) {
    if (!namesAnyModule(sf, ['dotenv', 'dotenv/config'])) continue;
    for (const st of sf.getImportDeclarations()) if (st.getModuleSpecifierValue() === 'dotenv/config') out.push(st);
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression], rawCallNamed(new Set(['config', 'configDotenv', 'require'])))) {
      if (!Node.isCallExpression(n)) continue;
      const callee = unwrap(n.getExpression());
      if (Node.isIdentifier(callee) && callee.getText() === 'require') {
        if (stringValue(n.getArguments()[0]) === 'dotenv/config') out.push(n);
        continue;
      }
      const o = originOf(callee);
      const m = o?.module === 'dotenv' ? names(o.path).pop() : undefined;
      if (m !== 'config' && m !== 'configDotenv') continue;
      const a = n.getArguments()[0];
      const obj = a ? unwrap(a) : undefined;
      if (obj && !Node.isObjectLiteralExpression(obj)) continue;
      if (obj && (obj.getProperty('quiet') || obj.getProperties().some((p) => Node.isSpreadAssignment(p)))) continue;
      out.push(n);
    }
  }
  return out;
}

/** Libraries whose defaults print on stdout with console.log when a call leaves an option out. */
const PRINTING_DEFAULTS: Record<string, { cls: string; option: string }> = {
  // @azure/identity credentials/deviceCodeCredential.js: `userPromptCallback ?? defaultDeviceCodePromptCallback`,
  // which is `console.log(deviceCodeInfo.message)`: the sign-in code and URL, printed when a token is first asked for.
  '@azure/identity': { cls: 'DeviceCodeCredential', option: 'userPromptCallback' },
};

/** A library object made without the option that keeps its default printing off stdout: `{ library, call }`, or undefined. */
function printingDefault(n: Node): { library: string; call: string } | undefined {
  if (!Node.isNewExpression(n)) return undefined;
  const o = originOf(n.getExpression());
  const known = o ? PRINTING_DEFAULTS[o.module] : undefined;
  if (!o || !known || names(o.path).pop() !== known.cls) return undefined;
  const arg = n.getArguments()[0];
  const a = arg ? stdioValue(arg) : undefined;
  if (a && (!Node.isObjectLiteralExpression(a) || a.getProperty(known.option) || a.getProperties().some((p) => Node.isSpreadAssignment(p)))) return undefined;
  return { library: o.module, call: `new ${known.cls}` };
}

/**
 * `log4js.configure(<file>)`: log4js reads the appenders from a JSON file. 'stdout' when the file is in the package
 * and names a stdout or console appender, 'other' when it is read and names neither, 'unread' when it is not in
 * the package (a path from the environment, an absolute path, a value computed at run time); undefined for
 * a configuration object written in the call (read by moreLoggerToStdout) or another call.
 */
function log4jsFile(n: Node, repo: RepoFacts, file: string): 'stdout' | 'other' | 'unread' | undefined {
  if (!Node.isCallExpression(n)) return undefined;
  const o = originOf(n.getExpression());
  if (o?.module !== 'log4js' || names(o.path).pop() !== 'configure' || !n.getArguments()[0]) return undefined;
  const a = stdioValue(n.getArguments()[0]!);
  if (Node.isObjectLiteralExpression(a)) return undefined;
  const path = stringValue(a);
  if (path === undefined || path.startsWith('/')) return 'unread';
  const clean = path.replace(/^\.\//, '');
  for (const candidate of [clean, join(file, '..', clean).replace(/\\/g, '/')]) {
    if (!repo.has(candidate)) continue;
    const cfg = repo.object(candidate);
    if (!cfg.ok) return 'unread';
    const appenders = cfg.value.appenders;
    const types = appenders && typeof appenders === 'object' ? Object.values(appenders as Record<string, unknown>).map((v) => (v && typeof v === 'object' ? (v as { type?: unknown }).type : undefined)) : [];
    return types.some((x) => x === 'stdout' || x === 'console') ? 'stdout' : 'other';
  }
  return 'unread';
}

/** The npm levels the files log at on some logger (`logger.info(…)`, `log.log('debug', …)`), console aside. */
function levelsLogged(files: SourceFile[]): Set<string> {
  const out = new Set<string>();
  for (const sf of files) {
    for (const n of ofKinds(sf, [SyntaxKind.CallExpression], rawCallNamed(new Set([...NPM_LEVELS, 'log'])))) {
      if (!Node.isCallExpression(n)) continue;
      const callee = unwrap(n.getExpression());
      if (!Node.isPropertyAccessExpression(callee) || isGlobal(callee.getExpression(), 'console')) continue;
      const m = callee.getName();
      const level = m === 'log' ? stringValue(n.getArguments()[0]) : m;
      if (level && NPM_LEVELS.includes(level)) out.add(level);
    }
  }
  return out;
}

/**
 * `console.log` / `info` / `debug` handed on as a value rather than called here: `.catch(console.log)`,
 * `{ info: console.log }`, `const log = console.log`, `console.log.bind(console)`: whoever calls it writes to stdout.
 * Not a reassignment (`console.log = …`), a `typeof`, a comparison or another property read (`console.log.name`).
 */
function consoleReferences(sf: SourceFile, redirected: ReadonlySet<string>): Node[] {
  const raw = (cn: ts.Node): boolean => {
    const p = cn as ts.PropertyAccessExpression;
    return STDOUT_CONSOLE.has(p.name.text) && ts.isIdentifier(p.expression) && p.expression.text === 'console';
  };
  return ofKinds(sf, [SyntaxKind.PropertyAccessExpression], raw).filter((n) => {
    if (!Node.isPropertyAccessExpression(n) || redirected.has(n.getName()) || !isGlobal(n.getExpression(), 'console')) return false;
    const { cur, p } = valueUse(n);
    if (!p) return false;
    if (Node.isCallExpression(p)) return p.getExpression() !== cur;
    if (Node.isPropertyAccessExpression(p)) return ['bind', 'call', 'apply'].includes(p.getName());
    if (Node.isTypeOfExpression(p) || Node.isPrefixUnaryExpression(p) || Node.isExpressionStatement(p)) return false;
    if (Node.isBinaryExpression(p)) return p.getOperatorToken().getKind() === SyntaxKind.EqualsToken ? p.getRight() === cur : [SyntaxKind.BarBarToken, SyntaxKind.QuestionQuestionToken].includes(p.getOperatorToken().getKind()) && !definedFallback(cur);
    return true;
  }).filter((n) => !boundFallback(n));
}

const isOr = (n: Node): boolean => Node.isBinaryExpression(n) && [SyntaxKind.BarBarToken, SyntaxKind.QuestionQuestionToken].includes(n.getOperatorToken().getKind());

/** `console.log.bind(console)` as the value of a chain: the bound call, when `n` is the `console.log` of one that is a fallback. */
function boundFallback(n: Node): boolean {
  const p = n.getParent();
  const call = p?.getParent();
  if (!p || !Node.isPropertyAccessExpression(p) || p.getName() !== 'bind' || !call || !Node.isCallExpression(call) || call.getExpression() !== p) return false;
  const { cur, p: up } = valueUse(call);
  return !!up && isOr(up) && definedFallback(cur);
}

/**
 * Whether `cur` is only the last resort of a `||` / `??` chain whose earlier operand is a function the module always
 * defines, so that the fallback is never taken: debug 2.x's `var logFn = self.log || exports.log ||
 * console.log.bind(console)`, where debug's node entry (`exports = module.exports = require('./debug'); exports.log =
 * log;`, in the same bundle) sets `exports.log` to its stderr writer at the top of its module. An earlier operand
 * `<R>.<name>` counts when the file holds an unconditional statement `<R'>.<name> = <function>` at the top of a module
 * body (the file's, or a function body's: a bundler's module wrapper), R' being R's own binding, or both being a
 * CommonJS exports object where R' is assigned back from a require of R's module (definedOn). The chain's own
 * console operand is not a defined function, nor is an option (`opts.log || console.log`), which nothing defines.
 */
function definedFallback(cur: Node): boolean {
  const chain = cur.getParent();
  if (!chain || !isOr(chain) || (chain as BinaryExpression).getRight() !== cur) return false;
  const earlier: Node[] = [];
  const flatten = (e: Node): void => {
    const u = unwrap(e);
    if (isOr(u) && Node.isBinaryExpression(u)) {
      flatten(u.getLeft());
      flatten(u.getRight());
    } else earlier.push(u);
  };
  flatten((chain as BinaryExpression).getLeft());
  return earlier.some((op) => Node.isPropertyAccessExpression(op) && definedOn(op));
}

/** A CommonJS exports object, also as bundlers rename it (`exports2`, `module2.exports`, rollup's `exports$1`). */
const EXPORTS_OBJECT = /^(?:module(?:\$?\d+)?\.)?exports(?:\$?\d+)?$/;

/** Whether `op` (`R.name`) is set to a function by an unconditional top-of-module statement of the file (see definedFallback). */
function definedOn(op: PropertyAccessExpression): boolean {
  const name = op.getName();
  const recv = unwrap(op.getExpression());
  const sf = op.getSourceFile();
  if (!new RegExp(`\\.${name.replace(/[$]/g, '\\$')}\\s*=[^=]`).test(sf.getFullText())) return false;
  for (const a of ofKinds(sf, [SyntaxKind.BinaryExpression], (cn) => (cn as ts.BinaryExpression).operatorToken.kind === SyntaxKind.EqualsToken)) {
    if (!Node.isBinaryExpression(a)) continue;
    const left = unwrap(a.getLeft());
    if (!Node.isPropertyAccessExpression(left) || left.getName() !== name || !Node.isExpressionStatement(a.getParent())) continue;
    const st = a.getParent()!;
    const body = st.getParent();
    const moduleBody = body && (Node.isSourceFile(body) || (Node.isBlock(body) && !!body.getParent() && isFunctionLike(body.getParent()!)));
    if (!moduleBody || !isFunctionValue(a.getRight())) continue;
    if (sameObject(recv, unwrap(left.getExpression()), op, body)) return true;
  }
  return false;
}

/** A function expression, or a name declared as a function. */
function isFunctionValue(v: Node): boolean {
  const u = unwrap(v);
  if (isFunctionLike(u)) return true;
  if (!Node.isIdentifier(u)) return false;
  const d = declarationOf(u)?.getParent();
  if (d && Node.isFunctionDeclaration(d)) return true;
  const init = d && Node.isVariableDeclaration(d) ? d.getInitializer() : undefined;
  return !!init && isFunctionLike(unwrap(init));
}

/**
 * Whether the receiver `r` of the chain's operand and the receiver `s` of a definition (at the top of `body`) are one
 * object: the same binding (or the same undeclared `exports` of one file), or a CommonJS exports object that the
 * defining module assigns from a call of the module holding the chain (`exports = module.exports = require_debug()`,
 * esbuild's `var require_debug = __commonJS({ … })` or rollup's `function requireDebug () { … }` around the chain, webpack's
 * module path).
 */
function sameObject(r: Node, s: Node, chain: Node, body: Node): boolean {
  if (r.getText() !== s.getText() && !(EXPORTS_OBJECT.test(r.getText()) && EXPORTS_OBJECT.test(s.getText()))) return false;
  const root = (n: Node): Node => (Node.isPropertyAccessExpression(n) ? unwrap(n.getExpression()) : n);
  const dr = Node.isIdentifier(root(r)) ? declarationOf(root(r) as Identifier) : undefined;
  const ds = Node.isIdentifier(root(s)) ? declarationOf(root(s) as Identifier) : undefined;
  if (r.getText() === s.getText() && dr === ds) return true;
  if (!EXPORTS_OBJECT.test(s.getText())) return false;
  const stmts = Node.isSourceFile(body) || Node.isBlock(body) ? body.getStatements() : [];
  for (const st of stmts) {
    if (!Node.isExpressionStatement(st)) continue;
    let e = unwrap(st.getExpression());
    let toExports = false;
    while (Node.isBinaryExpression(e) && e.getOperatorToken().getKind() === SyntaxKind.EqualsToken) {
      toExports ||= EXPORTS_OBJECT.test(unwrap(e.getLeft()).getText());
      e = unwrap(e.getRight());
    }
    if (!toExports || !Node.isCallExpression(e)) continue;
    const callee = unwrap(e.getExpression());
    const d = Node.isIdentifier(callee) ? declarationOf(callee)?.getParent() : undefined;
    // esbuild's `var require_debug = __commonJS({ … })`, rollup's `function requireDebug () { … }`.
    const init = d && Node.isVariableDeclaration(d) ? d.getInitializer() : d && Node.isFunctionDeclaration(d) ? d : undefined;
    if (init && init.getStart() <= chain.getStart() && chain.getEnd() <= init.getEnd()) return true;
    // webpack: `__webpack_require__("./node_modules/debug/src/debug.js")`, the key of the module table entry holding the chain.
    const arg = e.getArguments().length === 1 ? unwrap(e.getArguments()[0]!) : undefined;
    if (arg && Node.isStringLiteral(arg) && arg.getLiteralValue().includes('/') && tableKeys(chain).includes(arg.getLiteralValue())) return true;
  }
  return false;
}

/** The string keys of the object-literal entries whose function values hold `n` (a webpack module table's paths). */
function tableKeys(n: Node): string[] {
  const out: string[] = [];
  for (let a = n.getParent(); a; a = a.getParent()) {
    if (!isFunctionLike(a)) continue;
    let slot: Node | undefined = Node.isMethodDeclaration(a) ? a : a.getParent();
    while (slot && Node.isParenthesizedExpression(slot)) slot = slot.getParent();
    const key = slot && (Node.isPropertyAssignment(slot) || Node.isMethodDeclaration(slot)) ? slot.getNameNode() : undefined;
    if (key && Node.isStringLiteral(key)) out.push(key.getLiteralValue());
  }
  return out;
}

/**
 * Other ways to reach stdout through the console: a stdout method taken out of it (`const { log } = console`), and a
 * Console of node:console built on process.stdout (`new Console(process.stdout)`, `new console.Console({ stdout:
 * process.stdout })`). Each is reported at its calls in the file (`log(…)`, `out.info(…)`), so that an alias never
 * called, or called only where stdout is not the protocol, is not red; a Console kept where its calls cannot be
 * followed within the file (exported, a field) is reported where it is built. Each with the text the finding names.
 */
function consoleAliases(sf: SourceFile, redirected: ReadonlySet<string>): { node: Node; call: string }[] {
  const out: { node: Node; call: string }[] = [];
  const text = sf.getFullText();
  // Bound names (their declaring identifiers) → the call the finding names; a Console's methods are called on it.
  const bound = new Map<ts.Node, string>();
  const consoles = new Set<ts.Node>();
  if (/\}\s*=\s*console\b/.test(text)) {
    for (const d of ofKinds(sf, [SyntaxKind.VariableDeclaration], (cn) => ts.isObjectBindingPattern((cn as ts.VariableDeclaration).name))) {
      if (!Node.isVariableDeclaration(d)) continue;
      const init = d.getInitializer();
      const pattern = d.getNameNode();
      if (!init || !isGlobal(init, 'console') || !Node.isObjectBindingPattern(pattern)) continue;
      for (const el of pattern.getElements()) {
        const key = el.getPropertyNameNode()?.getText() ?? el.getName();
        const name = el.getNameNode();
        if (STDOUT_CONSOLE.has(key) && !redirected.has(key) && Node.isIdentifier(name)) bound.set(name.compilerNode, `console.${key}`);
      }
    }
  }
  if (/\bConsole\s*\(/.test(text)) {
    for (const n of ofKinds(sf, [SyntaxKind.NewExpression])) {
      if (!Node.isNewExpression(n)) continue;
      const c = unwrap(n.getExpression());
      const o = originOf(c);
      const isConsole = (Node.isPropertyAccessExpression(c) && c.getName() === 'Console' && isGlobal(c.getExpression(), 'console')) || (!!o && /^(?:node:)?console$/.test(o.module) && names(o.path).pop() === 'Console');
      if (!isConsole) continue;
      const first = n.getArguments()[0] && unwrap(n.getArguments()[0]!);
      const stream = first && Node.isObjectLiteralExpression(first) ? first.getProperty('stdout') : first;
      const value = stream && Node.isPropertyAssignment(stream) ? stream.getInitializer() : Node.isShorthandPropertyAssignment(stream) ? stream.getNameNode() : stream;
      if (!value || !stdoutOf(unwrap(value))) continue;
      // Where the Console goes: a method called on it at once, a local variable (its calls below), else built here.
      let holder: Node = n;
      while (holder.getParent() && (Node.isParenthesizedExpression(holder.getParent()!) || Node.isAsExpression(holder.getParent()!))) holder = holder.getParent()!;
      const parent = holder.getParent();
      if (parent && Node.isPropertyAccessExpression(parent) && parent.getExpression() === holder) {
        const called = parent.getParent();
        if (STDOUT_CONSOLE.has(parent.getName()) && Node.isCallExpression(called) && called.getExpression() === parent) out.push({ node: called, call: 'new Console(process.stdout)' });
        continue;
      }
      const decl = parent && Node.isVariableDeclaration(parent) && parent.getInitializer() === holder ? parent : undefined;
      const exported = decl?.getVariableStatement()?.isExported() ?? false;
      if (decl && Node.isIdentifier(decl.getNameNode()) && !exported) consoles.add(decl.getNameNode().compilerNode);
      else out.push({ node: n, call: 'new Console(process.stdout)' });
    }
  }
  if (bound.size === 0 && consoles.size === 0) return out;
  // The calls of the bound names, read once over the file's calls.
  for (const call of ofKinds(sf, [SyntaxKind.CallExpression])) {
    if (!Node.isCallExpression(call)) continue;
    const callee = unwrap(call.getExpression());
    if (Node.isIdentifier(callee) && bound.size) {
      const d = declarationOf(callee);
      const named = d && bound.get(d.compilerNode);
      if (named) out.push({ node: call, call: named });
    } else if (Node.isPropertyAccessExpression(callee) && consoles.size && STDOUT_CONSOLE.has(callee.getName())) {
      const recv = unwrap(callee.getExpression());
      const d = Node.isIdentifier(recv) ? declarationOf(recv) : undefined;
      if (d && consoles.has(d.compilerNode)) out.push({ node: call, call: 'new Console(process.stdout)' });
    }
  }
  return out;
}

/** The loads of packages in a file: imports and re-exports (not type-only), `require('…')` and `import('…')` of a bare specifier. */
function bareLoads(sf: SourceFile): Node[] {
  const out: Node[] = [];
  for (const st of sf.getStatements()) {
    if ((Node.isImportDeclaration(st) && !st.isTypeOnly()) || (Node.isExportDeclaration(st) && !st.isTypeOnly())) {
      const s = st.getModuleSpecifierValue();
      if (s && packageOf(s)) out.push(st);
    }
  }
  for (const n of ofKinds(sf, [SyntaxKind.CallExpression], (cn) => {
    const c = cn as ts.CallExpression;
    const a = c.arguments[0];
    return (c.expression.kind === SyntaxKind.ImportKeyword || (ts.isIdentifier(c.expression) && c.expression.text === 'require')) && !!a && ts.isStringLiteralLike(a) && !!packageOf(a.text);
  })) out.push(n);
  return out;
}

/** A JSON-RPC message type's name: `JSONRPCMessage`, `JSONRPCResponse`, `JsonRpcRequest`. */
const JSONRPC_TYPE = /\bJ[Ss][Oo][Nn][-_]?R[Pp][Cc]\w*/;
/** A handler of messages from the other side: `x.onmessage = (m) => …`, `x.on('message', (m) => …)`, `onMessage((m) => …)`. */
const MESSAGE_HANDLER = /^on[-_]?message$/i;

/**
 * Does this written value carry a JSON-RPC message (then the write is the protocol itself)? The value, through
 * `+ '\n'`, a template and `JSON.stringify(…)`, is an object literal with `jsonrpc`; a const holding one, or the result of
 * a function of the file returning one (`const response = wrapResponse(req, …)`); a variable typed as a JSON-RPC
 * message; or the parameter of the other transport's message handler, relayed (`client.onmessage = (msg) => …`).
 * Any other `JSON.stringify(x)` is not taken for one.
 */
function jsonRpcValue(v: Node | undefined, depth = 0): boolean {
  const u = v && unwrap(v);
  if (!u || depth > 4) return false;
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getKind() === SyntaxKind.PlusToken) return jsonRpcValue(u.getLeft(), depth + 1) || jsonRpcValue(u.getRight(), depth + 1);
  if (Node.isTemplateExpression(u)) return u.getTemplateSpans().some((t) => jsonRpcValue(t.getExpression(), depth + 1));
  if (Node.isCallExpression(u)) {
    const callee = unwrap(u.getExpression());
    if (callee.getText().replace(/\s+/g, '') === 'JSON.stringify') return jsonRpcValue(u.getArguments()[0], depth + 1);
    // A function of the file that returns a message: `wrapResponse(req, payload)`.
    if (Node.isIdentifier(callee)) {
      const d = declarationOf(callee);
      const fn = d ? initializerOf(d) ?? d.getParent() : undefined;
      if (fn && isFunctionLike(fn)) {
        const body = (fn as Node & { getBody?: () => Node | undefined }).getBody?.();
        const outs = body && Node.isBlock(body) ? body.getDescendantsOfKind(SyntaxKind.ReturnStatement).map((r) => r.getExpression()) : [body];
        return outs.length > 0 && outs.every((o) => !!o && messageObject(o));
      }
    }
    return false;
  }
  if (messageObject(u)) return true;
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const decl = d?.getParent();
    if (decl && (Node.isVariableDeclaration(decl) || Node.isParameterDeclaration(decl)) && JSONRPC_TYPE.test(decl.getTypeNode()?.getText() ?? '')) return true;
    if (decl && Node.isVariableDeclaration(decl)) {
      const list = decl.getParent();
      return Node.isVariableDeclarationList(list) && !!(list.getFlags() & ts.NodeFlags.Const) && jsonRpcValue(decl.getInitializer(), depth + 1);
    }
    if (decl && Node.isParameterDeclaration(decl)) return relayedMessage(decl);
  }
  return false;
}

/** An object literal with a `jsonrpc` property. */
function messageObject(n: Node): boolean {
  const u = unwrap(n);
  return Node.isObjectLiteralExpression(u) && u.getProperties().some((p) => (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p)) && p.getName().replace(/['"]/g, '') === 'jsonrpc');
}

/** Is this parameter the message of a handler of the other transport's messages (`t.onmessage = (msg) => …`, `t.on('message', (msg) => …)`)? */
function relayedMessage(param: Node): boolean {
  const fn = param.getParent();
  if (!fn || !isFunctionLike(fn) || (fn as Node & { getParameters(): Node[] }).getParameters()[0] !== param) return false;
  const p = fn.getParent();
  if (p && Node.isBinaryExpression(p) && p.getRight() === fn && p.getOperatorToken().getKind() === SyntaxKind.EqualsToken) {
    const l = unwrap(p.getLeft());
    return Node.isPropertyAccessExpression(l) && MESSAGE_HANDLER.test(l.getName());
  }
  if (p && Node.isCallExpression(p) && (p.getArguments() as Node[]).includes(fn)) {
    const callee = unwrap(p.getExpression());
    const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
    if (MESSAGE_HANDLER.test(name)) return true;
    return (name === 'on' || name === 'once' || name === 'addListener') && constString(p.getArguments()[0])?.value === 'message';
  }
  return false;
}

function isTransportWrite(call: Node): boolean {
  if (!Node.isCallExpression(call)) return false;
  if (call.getArguments().some((a) => /jsonrpc/i.test(a.getText()))) return true;
  if (jsonRpcValue(call.getArguments()[0])) return true;
  // `process.stdout.write('', () => process.exit(0))`: an empty write puts nothing on the channel (it waits for the flush).
  const first = call.getArguments()[0];
  const u = first && unwrap(first);
  if (u && (Node.isStringLiteral(u) || Node.isNoSubstitutionTemplateLiteral(u)) && u.getLiteralValue() === '') return true;
  const cls = call.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  return !!cls && (Node.isClassDeclaration(cls) || Node.isClassExpression(cls)) && /Transport/.test(cls.getName() ?? '');
}

/** What stream-values.ts asks of this file: stdout itself, the value on stdio, a condition settable on stdio. */
const streamTests = { isStdout: stdoutOf, value: (n: Node) => stdioValue(n), settable: (c: Node) => settableOnStdio(c) };

export default defineDetector({
  ruleId: 'X-7',
  genre: 'static',
  needs: ['repo'],
  wants: ['session'],
  messages: {
    'stdout-write': ['call'],
    'pino-stdout': [],
    'pino-stdout-before-flag': ['flag'],
    'logger-stdout': ['library'],
    'child-stdout-inherited': ['call'],
    'dotenv-banner': ['version'],
    'library-stdout': ['library', 'call'],
    'dependency-prints-on-import': ['library', 'file'],
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
    const skipped: SourceFile[] = [];
    const files = entries.length ? loadedFrom(code, [...entries, ...loadersOf(code, entries, skipped)], runtimeAliases(repo.root, code)) : code.files.map(([, sf]) => sf);
    const commandLines = commandLineFiles(code, repo, skipped).filter((sf) => !files.includes(sf));
    const redirected = reassignedConsole(files);
    // Call sites are also read in the loaders set aside above (the command line that loads the stdio program): a
    // function of a loaded module whose every caller is a non-stdio subcommand's action there
    // (`.command('doctor').action(() => runDiagnostics())`) never runs on stdio; one with no caller read stays judged.
    const ctx = { files: [...files, ...skipped.filter((sf) => !files.includes(sf))], sources: code.sources };
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
    const levelsUsed = levelsLogged(files);
    // Logger configurations read from a file that is not in the package: judged only when nothing else is red.
    const unread: { library: string; file: string; line: number }[] = [];
    let order: LoadOrder | undefined;
    const silencedShell = shelljsSilenced(files);
    let streams: StdoutStreams | undefined;
    const more = { log4jsConfigs: callsOf(files, 'log4js', new Set(['configure'])), loglevelLevels: callsOf(files, 'loglevel', new Set(['setLevel', 'setDefaultLevel', 'enableAll'])).map((a) => a || 'trace') };
    for (const sf of files) {
      const file = code.rel(sf);
      // Without pino named in the file (origins are read within a file), only console.* and .write calls can matter.
      const loggers = namesAnyModule(sf, ['pino', 'winston', 'bunyan', ...MORE_LOGGERS, ...Object.keys(PRINTING_DEFAULTS), KUBE_CLIENT]);
      const kube = loggers && namesAnyModule(sf, [KUBE_CLIENT]);
      const raw = loggers ? undefined : rawCallNamed(CALLS_READ);
      for (const n of ofKinds(sf, loggers ? [SyntaxKind.CallExpression, SyntaxKind.NewExpression, SyntaxKind.BinaryExpression] : [SyntaxKind.CallExpression], raw)) {
        const at = { file, line: positionOf(n).line };
        const fromFile = loggers ? log4jsFile(n, repo, file) : undefined;
        if (fromFile === 'unread' && stands(n)) unread.push({ library: 'log4js', ...at });
        const library = loggers ? (loggerToStdout(n, levelsUsed) ?? moreLoggerToStdout(n, more) ?? (fromFile === 'stdout' ? 'log4js' : undefined)) : undefined;
        if (library) {
          if (stands(n)) findings.push({ messageId: 'logger-stdout', data: { library }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        const printing = loggers ? printingDefault(n) : undefined;
        if (printing) {
          // It prints when a token is first asked for, which the probe does not do: a clean live start-up says nothing about it.
          if (!neverRunsOnStdio(n, ctx)) findings.push({ messageId: 'library-stdout', data: printing, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        if (!Node.isCallExpression(n)) continue;
        const callee = unwrap(n.getExpression());
        if (Node.isPropertyAccessExpression(callee)) {
          const obj = unwrap(callee.getExpression());
          const m = callee.getName();
          if (STDOUT_CONSOLE.has(m) && isGlobal(obj, 'console') && !redirected.has(m) && !(LABEL_ONLY.has(m) && n.getArguments().length === 0)) {
            if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: `console.${m}` }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
          // child.stdout.pipe(process.stdout): the child's output on ours.
          if (m === 'pipe' && n.getArguments()[0] && stdoutOf(unwrap(n.getArguments()[0]!)) && !isTransportWrite(n)) {
            if (stands(n)) findings.push({ messageId: 'child-stdout-inherited', data: { call: `${callee.getText().replace(/\s+/g, '').slice(0, 60)}(process.stdout)` }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
          // @kubernetes/client-node's exec/attach (the command's output) and log (the pod's log) given process.stdout.
          const at4 = kube && Object.hasOwn(KUBE_STREAM_ARG, m) ? KUBE_STREAM_ARG[m] : undefined;
          if (at4 !== undefined && n.getArguments()[at4] && stdoutOf(unwrap(n.getArguments()[at4]!))) {
            if (stands(n)) findings.push({ messageId: m === 'log' ? 'stdout-write' : 'child-stdout-inherited', data: { call: `${callee.getText().replace(/\s+/g, '').slice(0, 60)}(…, process.stdout)` }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
          if (m === 'write' && (stdoutOf(obj)) && !isTransportWrite(n)) {
            if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: 'process.stdout.write' }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
          // A stream of the source's own logger or printer that holds process.stdout (stream-values.ts).
          if (m === 'write' && !isTransportWrite(n) && (streams ??= new StdoutStreams(files, code.sources, streamTests)).holds(obj)) {
            if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: `${obj.getText().replace(/\s+/g, '').slice(0, 60)}.write` }, location: at, evidence: n.getText().slice(0, 120) });
            continue;
          }
        }
        // fs.writeSync(1, …) / fs.write(1, …): a write on file descriptor 1, stdout.
        const fo = originOf(callee);
        const fd = n.getArguments()[0];
        if (fo && /^(?:node:)?fs$/.test(fo.module) && /^write(?:Sync)?$/.test(names(fo.path).pop() ?? '') && fd && unwrap(fd).getText() === '1') {
          if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: `${names(fo.path).pop()}(1, …)` }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        // fs.appendFileSync('/dev/stdout', …), fs.writeFile('/dev/stdout', …): stdout opened as a file.
        const fdPath = fd ? stringValue(unwrap(fd)) : undefined;
        if (fo && /^(?:node:)?fs(?:\/promises)?$/.test(fo.module) && /^(?:write|append)File(?:Sync)?$/.test(names(fo.path).pop() ?? '') && fdPath !== undefined && STDOUT_PATH.test(fdPath)) {
          if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: `${names(fo.path).pop()}('${fdPath}', …)` }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        // pipeline(source, …, process.stdout) of node:stream: the source's data on ours.
        const po = originOf(callee);
        const last = n.getArguments()[n.getArguments().length - 1];
        if (po && /^stream(?:\/promises)?$/.test(po.module) && names(po.path).pop() === 'pipeline' && last && stdoutOf(unwrap(last))) {
          if (stands(n)) findings.push({ messageId: 'stdout-write', data: { call: 'pipeline(…, process.stdout)' }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        const launch = inheritedLaunch(n);
        if (launch) {
          if (stands(n)) findings.push({ messageId: 'child-stdout-inherited', data: { call: launch }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        const shelljs = shelljsPrint(n, silencedShell);
        if (shelljs) {
          if (stands(n)) findings.push({ messageId: shelljs.messageId, data: { call: shelljs.call }, location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        if (pinoToStdout(n)) {
          if (stands(n) && !silencedAtStart(n)) findings.push({ messageId: 'pino-stdout', location: at, evidence: n.getText().slice(0, 120) });
          continue;
        }
        const flag = loggers ? pinoBeforeFlag(n, (order ??= loadOrderOf(files, code.files.map(([, sf]) => sf)))) : undefined;
        if (flag && stands(n)) findings.push({ messageId: 'pino-stdout-before-flag', data: { flag }, location: at, evidence: n.getText().slice(0, 120) });
      }
    }
    // console.log handed on as a value (`.catch(console.log)`), once per line not already reported.
    const reported = new Set(findings.map((f) => `${f.location?.file}:${f.location?.line}`));
    for (const sf of files) {
      for (const n of consoleReferences(sf, redirected)) {
        const at = { file: code.rel(sf), line: positionOf(n).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(n)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push({ messageId: 'stdout-write', data: { call: n.getText() }, location: at, evidence: (n.getParent() ?? n).getText().slice(0, 120) });
      }
    }
    for (const sf of files) {
      for (const n of stdoutWriteReferences(sf)) {
        const at = { file: code.rel(sf), line: positionOf(n).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(n)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push({ messageId: 'stdout-write', data: { call: 'process.stdout.write' }, location: at, evidence: (n.getParent() ?? n).getText().slice(0, 120) });
      }
    }
    for (const sf of files) {
      for (const { node, call } of consoleAliases(sf, redirected)) {
        const at = { file: code.rel(sf), line: positionOf(node).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(node)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push({ messageId: 'stdout-write', data: { call }, location: at, evidence: (node.getParent() ?? node).getText().slice(0, 120) });
      }
    }
    // The command line that loads the stdio program: what it prints on every start (a banner before the mode choice).
    for (const sf of commandLines) {
      const loggerCalls: CallExpression[] = [];
      for (const { node, call } of startupWrites(sf, reassignedConsole([sf]), loggerCalls)) {
        const at = { file: code.rel(sf), line: positionOf(node).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(node)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push({ messageId: 'stdout-write', data: { call }, location: at, evidence: node.getText().slice(0, 120) });
      }
      // The logger it logs with at start-up, created in a module it imports (read only there, see importedStdoutLogger).
      for (const c of loggerCalls) {
        const n = importedStdoutLogger(c, sf);
        if (!n) continue;
        const at = { file: code.rel(n.getSourceFile()), line: positionOf(n).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(c)) continue;
        const library = pinoToStdout(n) ? undefined : loggerToStdout(n, levelsLogged([sf, n.getSourceFile()]));
        if (!library && !pinoToStdout(n)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push(library ? { messageId: 'logger-stdout', data: { library }, location: at, evidence: n.getText().slice(0, 120) } : { messageId: 'pino-stdout', location: at, evidence: n.getText().slice(0, 120) });
      }
    }
    // `console[level](…)` whose key can name a stdout method (computed-console.ts).
    for (const sf of files) {
      for (const { node, method } of computedConsoleCalls(sf, (m) => STDOUT_CONSOLE.has(m) && !redirected.has(m))) {
        const at = { file: code.rel(sf), line: positionOf(node).line };
        if (reported.has(`${at.file}:${at.line}`) || !stands(node)) continue;
        reported.add(`${at.file}:${at.line}`);
        findings.push({ messageId: 'stdout-write', data: { call: `console.${method}` }, location: at, evidence: node.getText().slice(0, 120) });
      }
    }
    // Installed dependencies whose top-level code prints on stdout (dependencies.ts), once per package.
    const memo = new Map<string, ImportPrint | null>();
    const named = new Set<string>();
    for (const sf of files) {
      for (const n of bareLoads(sf)) {
        const spec = stringValue(Node.isCallExpression(n) ? n.getArguments()[0] : Node.isImportDeclaration(n) || Node.isExportDeclaration(n) ? n.getModuleSpecifier() : undefined);
        const lib = spec ? packageOf(spec)?.name : undefined;
        if (!spec || !lib || named.has(lib)) continue;
        const hit = printsOnImport(repo.root, spec, memo);
        if (!hit || !stands(n)) continue;
        named.add(lib);
        findings.push({ messageId: 'dependency-prints-on-import', data: { library: lib, file: `${hit.file}:${hit.line}` }, location: { file: code.rel(sf), line: positionOf(n).line }, evidence: n.getText().slice(0, 120) });
      }
    }
    // dotenv 17's start-up banner (see the detector comment), unless the source sets DOTENV_CONFIG_QUIET.
    const major = dotenvMajor(repo);
    if (major === 17 && !files.some((sf) => sf.getFullText().includes('DOTENV_CONFIG_QUIET'))) {
      for (const n of dotenvBanners(files)) {
        if (stands(n)) findings.push({ messageId: 'dotenv-banner', data: { version: String(major) }, location: { file: code.rel(n.getSourceFile()), line: positionOf(n).line }, evidence: n.getText().slice(0, 120) });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    const u = unread[0];
    return u ? couldNotJudge('logger-config-not-read', { library: u.library, file: `${u.file}:${u.line}` }) : present();
  },
});
