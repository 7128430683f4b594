import { Node, SyntaxKind, type SourceFile } from '../../facts/morph.js';
import { classValueOf, declarationOf, fieldValues, functionOf, isFunctionLike, originOf } from '../../facts/scope.js';
import { stringValue, unwrap, type ParsedSources } from '../../facts/ts-source.js';

/**
 * process.stdout handed to a writer of the source. A logger or printer written in the package that is given
 * stdout as a value and writes on it puts its lines on the protocol channel just as `process.stdout.write` does:
 *   - a function or constructor of the source called with `process.stdout` (`make(process.stdout)`,
 *     `new Printer(process.stdout)`) whose parameter is written (`stream.write(…)`, also once kept in a field:
 *     `this.out = out; … this.out.write(…)`);
 *   - a parameter whose default is `process.stdout` (`constructor(out = process.stdout)`), when a call of that function
 *     in the files read leaves the argument out;
 *   - a variable or field that holds stdout on a path stdio takes (`const stream = process.env.LOG_STDERR ?
 *     process.stderr : process.stdout`): a conditional that selects a mode is resolved (static.ts `value`), one the
 *     client's environment or command line can set either way holds stdout when either branch does;
 *   - a file stream opened on stdout itself (`fs.createWriteStream('/dev/stdout')`, `createWriteStream(null, { fd: 1 })`)
 *     kept in a variable or field and written.
 * A stdout given to a function or class that is not in the source (the SDK's transport) is not read here; a
 * constructor that keeps a stream given otherwise (`new Logger(process.stderr)`) is not counted.
 */

/** The tests static.ts owns: stdout itself, the value an expression has on stdio, a condition settable on stdio. */
export interface StreamTests {
  isStdout(n: Node): boolean;
  value(n: Node): Node;
  settable(cond: Node): boolean;
}

/** Words of a condition that may choose the transport: such a conditional is left to modes.ts, not counted here. */
const MODE_WORDS = /http|sse|stdio|transport|mode|server|port|remote|web|listen/i;

type Callee = Node; // a function-like node or a constructor

/** Does an expression yield process.stdout on a path stdio takes? */
function yieldsStdout(n: Node, t: StreamTests, depth = 0): boolean {
  if (depth > 3) return false;
  const u = t.value(n);
  // A parameter holds what its calls give it (StdoutStreams.holds), not only its default.
  if (Node.isIdentifier(u) && Node.isParameterDeclaration(declarationOf(u)?.getParent())) return false;
  if (t.isStdout(u) || stdoutFileStream(u)) return true;
  // A condition the client can set either way, unless it reads as a choice of mode (`useHttp`, `transport`).
  if (Node.isConditionalExpression(u)) {
    const cond = u.getCondition();
    if (!t.settable(cond) || MODE_WORDS.test(cond.getText()) || MODE_WORDS.test(t.value(cond).getText())) return false;
    return yieldsStdout(u.getWhenTrue(), t, depth + 1) || yieldsStdout(u.getWhenFalse(), t, depth + 1);
  }
  return false;
}

/** The function or constructor a call or `new` reaches in the source, or undefined. */
function calleeOf(call: Node, sources: ParsedSources): Callee | undefined {
  if (Node.isCallExpression(call)) return functionOf(call.getExpression(), sources);
  if (Node.isNewExpression(call)) {
    const cls = classValueOf(call.getExpression(), sources);
    return cls?.getConstructors()[0];
  }
  return undefined;
}

export class StdoutStreams {
  /** Parameters of the source given process.stdout at some call: callee → argument positions. */
  private passed?: Map<Callee, Set<number>>;
  private calls?: Node[];

  constructor(
    private readonly files: readonly SourceFile[],
    private readonly sources: ParsedSources,
    private readonly t: StreamTests,
  ) {}

  /** Every call and `new` of the files read that passes an argument or could leave one out. */
  private allCalls(): Node[] {
    return (this.calls ??= this.files.flatMap((sf) => sf.getDescendants().filter((n) => Node.isCallExpression(n) || Node.isNewExpression(n))));
  }

  private passedMap(): Map<Callee, Set<number>> {
    if (this.passed) return this.passed;
    const out = new Map<Callee, Set<number>>();
    for (const sf of this.files) {
      if (!sf.getFullText().includes('stdout')) continue;
      for (const call of sf.getDescendants()) {
        if (!Node.isCallExpression(call) && !Node.isNewExpression(call)) continue;
        const args = call.getArguments();
        const at = args.findIndex((a) => yieldsStdout(a, this.t));
        if (at < 0) continue;
        const f = calleeOf(call, this.sources);
        if (!f) continue;
        const set = out.get(f) ?? new Set<number>();
        args.forEach((a, i) => { if (yieldsStdout(a, this.t)) set.add(i); });
        out.set(f, set);
      }
    }
    return (this.passed = out);
  }

  /** Is a call of `fn` in the files read made without its argument at `index` (its default then applies)? */
  private omitted(fn: Callee, index: number): boolean {
    const name = Node.isConstructorDeclaration(fn) ? (fn.getParent() as { getName?(): string | undefined } | undefined)?.getName?.() : nameOfFunction(fn);
    if (!name) return false;
    return this.allCalls().some((call) => {
      const c = Node.isCallExpression(call) || Node.isNewExpression(call) ? unwrap(call.getExpression()!) : undefined;
      const last = c && (Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : undefined);
      if (last !== name || !(Node.isCallExpression(call) || Node.isNewExpression(call))) return false;
      const args = call.getArguments();
      if (args.length > index && !/^(?:undefined|void 0)$/.test(unwrap(args[index]!).getText())) return false;
      return calleeOf(call, this.sources) === fn;
    });
  }

  /** Does a parameter hold process.stdout: given it at a call, or defaulting to it where a call leaves it out? */
  private parameterHolds(p: Node): boolean {
    if (!Node.isParameterDeclaration(p)) return false;
    const fn = p.getParent();
    if (!fn || !(isFunctionLike(fn) || Node.isConstructorDeclaration(fn))) return false;
    const index = (fn as unknown as { getParameters(): Node[] }).getParameters().indexOf(p);
    if (index < 0) return false;
    if (this.passedMap().get(fn)?.has(index)) return true;
    const init = p.getInitializer();
    return !!init && yieldsStdout(init, this.t) && this.omitted(fn, index);
  }

  /** Can the receiver of a `.write(…)` call hold process.stdout (see the file header)? */
  holds(x: Node, depth = 0): boolean {
    if (depth > 3) return false;
    const u = unwrap(x);
    if (Node.isIdentifier(u)) {
      const d = declarationOf(u);
      const p = d?.getParent();
      if (!d || !p) return false;
      if (Node.isParameterDeclaration(p) && p.getNameNode() === d) return this.parameterHolds(p);
      if (Node.isVariableDeclaration(p) && p.getNameNode() === d) {
        const init = p.getInitializer();
        if (!init) return false;
        if (yieldsStdout(init, this.t)) return true;
        return Node.isIdentifier(unwrap(init)) && this.holds(init, depth + 1);
      }
      return false;
    }
    if (Node.isPropertyAccessExpression(u) && unwrap(u.getExpression()).getKind() === SyntaxKind.ThisKeyword) {
      return fieldValues(u).some((v) => yieldsStdout(v, this.t) || (Node.isIdentifier(unwrap(v)) && this.holds(v, depth + 1)));
    }
    return false;
  }
}

/** The name a function is called by: its own, or that of the variable or property it is assigned to. */
function nameOfFunction(fn: Node): string | undefined {
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return fn.getName();
  const p = fn.getParent();
  if (p && (Node.isVariableDeclaration(p) || Node.isPropertyAssignment(p))) return p.getName();
  return Node.isFunctionExpression(fn) ? fn.getName() : undefined;
}

/** The path of file descriptor 1 as a file. */
export const STDOUT_PATH = /^\/dev\/(?:stdout|fd\/1)$/;

/** `fs.createWriteStream('/dev/stdout')` or `createWriteStream(null | path, { fd: 1 })` of node:fs: a stream on stdout. */
export function stdoutFileStream(n: Node): boolean {
  if (!Node.isCallExpression(n)) return false;
  const o = originOf(unwrap(n.getExpression()));
  if (!o || !/^(?:node:)?fs$/.test(o.module) || o.path.filter((p) => p !== 'default').pop() !== 'createWriteStream') return false;
  const [path, opts] = n.getArguments();
  const p = path ? stringValue(unwrap(path)) : undefined;
  if (p !== undefined && STDOUT_PATH.test(p)) return true;
  const obj = opts ? unwrap(opts) : undefined;
  const fd = obj && Node.isObjectLiteralExpression(obj) ? obj.getProperty('fd') : undefined;
  return !!fd && Node.isPropertyAssignment(fd) && unwrap(fd.getInitializerOrThrow()).getText() === '1';
}
