import { Node, SyntaxKind, ts, type CallExpression, type Identifier, type NewExpression, type TaggedTemplateExpression } from '../morph.js';
import { declarationOf, downlevelAsyncBody, initializerOf, mayResolveFunction, findNodes, isFunctionLike, originOf, GLOBAL, type FunctionLikeNode } from '../scope.js';
import { constString, constrainedArguments, objectLiteralOf, propertyValue, regexSource } from '../server-model.js';
import { propertyName, rawUnwrap, unwrap, wrapNode, type ParsedSources } from '../ts-source.js';
import { acceptsWithoutAsking, asksHuman, conditionalBranch, CONFIRMED, guarding, openWhenEmpty, relevant, storageKeys, STORE_MUTATORS } from './guards.js';
import { type Analyzable, classId, constructorOf, functionCached, functionsOfCallee, originCached, ownerClass, stripAwait } from './modules.js';
import { argvRunsScript, arrayArgv, pushedArgv, shellRunsScript } from './argv.js';
import { type ArgvItem } from '../file-arguments.js';
import { accumulatedLineWords, argvItemsOf, classifySink, commandLineWords, FS_MODULES, type HttpRequest, httpRequestOf, last, MAX_DEPTH, type SinkContext, type SinkMatch, type SinkPart, type UrlShape } from './sinks.js';
import { ALLOW, bodyNodes, madeWithPath, type Check, CLOSED_BASE, CLOSED_ORIGIN, declKey, DENY, DENY_NAME, ESCAPE_MODULES, ESCAPE_NAME, exprKey, type Family, type FnResult, hasSeparator, isSep, ITERATING, liftKeys, merge, NON_TEXT_METHODS, worstArgv, OPEN_HOST, ownReturns, promiseResolutions, BARE_ORIGIN, ROOT_PATH, PARSE_METHODS, PART_METHODS, PASS_GLOBALS, PATH_MODULES, patternVerdict, type Piece, piecesOf, type RawFlow, RELATIVE, type Stop, SCHEME, signature, type StoreWrite, type Taint, unionKeys, v, type Verdict, withKeys } from './taint.js';

/**
 * Taint flow (facts/flow.ts), the propagation: one run over a handler (Run) and the analysis of one function
 * (FnAnalysis) from its tainted parameters to the sinks it reaches, through calls, stores and returns.
 */

/** `'..' + sep`, `` `..${path.sep}` ``: a prefix that starts by going up (a path.relative result tested with it leaves the root). */
/** Calls a quoting function may make on the text without handing it to another quoting step. */
const TEXT_CALLS = new Set(['replace', 'replaceAll', 'toString', 'trim', 'split', 'join', 'map', 'String', 'stringify']);

/**
 * A function named like a shell quoting one whose body shows it quotes nothing for a shell: it wraps the value in
 * double quotes (`"${arg}"`, `'"' + s + '"'`, JSON.stringify), where the shell still expands `$(…)` and backquotes, or
 * writes HTML entities (`&quot;`), and it neither handles single quotes (the `'\''` idiom) nor escapes both `$` and a
 * backquote, and calls nothing but text methods (a call to another function may be the real quoting). Anything else
 * is left to the name.
 */
function notShellQuoting(f: Node): boolean {
  const texts: string[] = [];
  let doubleWrap = false;
  for (const n of f.getDescendants()) {
    if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) texts.push(n.getLiteralText());
    else if (Node.isRegularExpressionLiteral(n)) texts.push(n.getText());
    else if (Node.isTemplateExpression(n)) {
      const spans = n.getTemplateSpans();
      texts.push(n.getHead().getLiteralText(), ...spans.map((sp) => sp.getLiteral().getLiteralText()));
      if (n.getHead().getLiteralText().endsWith('"') && spans[spans.length - 1]!.getLiteral().getLiteralText().startsWith('"')) doubleWrap = true;
    } else if (Node.isCallExpression(n)) {
      const c = n.getExpression();
      const name = Node.isIdentifier(c) ? c.getText() : Node.isPropertyAccessExpression(c) ? c.getName() : '';
      if (!TEXT_CALLS.has(name)) return false;
      if (name === 'stringify') doubleWrap = true;
    }
  }
  if (texts.some((t) => t.includes("'")) || (texts.some((t) => t.includes('$')) && texts.some((t) => t.includes('`')))) return false;
  return doubleWrap || texts.includes('"') || texts.some((t) => /&(?:quot|amp|lt|gt|#\d+);/.test(t));
}

function upwardStart(b: Node): boolean {
  const u = unwrap(b);
  if (Node.isBinaryExpression(u) && u.getOperatorToken().getText() === '+') return upwardStart(u.getLeft());
  if (Node.isTemplateExpression(u)) return u.getHead().getLiteralText().startsWith('..');
  return constString(u)?.value.startsWith('..') ?? false;
}

export class Run {
  readonly summaries = new Map<Analyzable, Map<string, FnResult>>();
  readonly rootKeys = new Set<string>();
  readonly sources: ParsedSources;
  /**
   * Client values kept in class fields (`this.command = cmd`), by `this@<class>.<field>`: read by any method of
   * that class the analysis runs afterwards (a field is shared by the calls made on one instance).
   */
  readonly fields = new Map<string, Taint>();
  /** The names of the tainted fields (a superset test for mayTaint). */
  readonly fieldNames = new Set<string>();
  /** Per class id, how many times its fields' taint changed (part of the summaries' signature). */
  readonly fieldVersion = new Map<string, number>();
  /** Client values written into module-level variables and fields, by any handler (filled once every entry is read). */
  readonly writes: StoreWrite[] = [];
  /** Some file can ask the human (names an elicitation API): only then are confirmation gates looked for. */
  readonly elicits: boolean;
  constructor(readonly ctx: SinkContext) {
    this.sources = ctx.sources;
    this.elicits = [...ctx.sources.files.values()].some((sf) => /elicitInput|elicitation\/create|inputRequired/.test(sf.getFullText()));
  }

  /** Record a client value stored in a field; true when it changes what is known. */
  setField(key: string, name: string, t: Taint): boolean {
    const cur = this.fields.get(key);
    if (cur && signature(cur) === signature(t)) return false;
    this.fields.set(key, cur ? { ...merge([cur, t])!, steps: cur.steps } : t);
    this.fieldNames.add(name);
    const cls = key.slice(5, key.indexOf('.'));
    this.fieldVersion.set(cls, (this.fieldVersion.get(cls) ?? 0) + 1);
    return true;
  }

  /** Whether a class has fields holding client values. */
  hasTaintedFields(cls: ts.Node | undefined): boolean {
    return !!cls && this.fieldVersion.has(classId(cls));
  }

  analyze(fn: Analyzable, params: (Taint | undefined)[], depth: number): FnResult {
    const owner = ownerClass(fn);
    const sig =
      params.map((t) => signature(t)).join(';') +
      '@' +
      depth +
      (owner ? `#${this.fieldVersion.get(classId(owner)) ?? 0}` : '');
    let byFn = this.summaries.get(fn);
    if (!byFn) this.summaries.set(fn, (byFn = new Map()));
    const hit = byFn.get(sig);
    if (hit) return hit;
    const placeholder: FnResult = { flows: [], checks: [], writes: [] };
    byFn.set(sig, placeholder); // cuts recursion
    const result = new FnAnalysis(this, fn, depth).run(params);
    byFn.set(sig, result);
    return result;
  }
}

class FnAnalysis {
  private readonly env = new Map<string, Taint>();
  /** Writes of client values into module-level variables and fields (see recordWrite), by key and position. */
  private readonly writes = new Map<string, StoreWrite>();
  /** Checks of called functions already taken in (a function called at several places reports them once). */
  private readonly seenChecks = new Set<Check>();
  /** The names of the variables in env (a superset test for taintOf). */
  private readonly taintedNames = new Set<string>();
  /**
   * Local objects given a client value on a property after they were made (`options.path = out`), by name: the object
   * itself is not tainted, but a call handed it (`page.pdf(options)`, `spawn(cmd, argv, opts)`) is visited, for the
   * sinks that read such later assignments (facts/flow/sinks optionValues: `cwd`, a browser's `path`).
   */
  private readonly optionHolders = new Set<string>();
  /** Calls given a client value that lead nowhere known (FnResult.stops), by call. */
  private readonly stops = new Map<ts.Node, Stop>();
  private changed = false;
  constructor(
    private readonly run_: Run,
    private readonly fn: Analyzable,
    private readonly depth: number,
  ) {}

  run(params: (Taint | undefined)[]): FnResult {
    const ps = this.fn.getParameters();
    const owner = ownerClass(this.fn);
    ps.forEach((p, i) => {
      const t = p.getDotDotDotToken() ? merge(params.slice(i)) : params[i];
      if (!t) return;
      this.bind(p.getNameNode(), { ...t, keys: new Set(), steps: [] }, p);
      // constructor(private readonly command: string): the argument is kept in this.command.
      if (owner && Node.isConstructorDeclaration(this.fn) && p.isParameterProperty()) this.run_.setField(`this@${classId(owner)}.${p.getName()}`, p.getName(), { ...t, steps: [p] });
    });
    // A compiler's downlevel async function (`function f(a_1, b_1) { return __awaiter(this, arguments, void 0,
    // function* (a, b = 1) { … }) }`, esbuild's `__async(this, arguments, function* (a, b) { … })`): the
    // generator receives the call's arguments in the same positions.
    const inner = downlevelAsyncBody(this.fn);
    inner?.getParameters().forEach((p, i) => {
      const t = p.getDotDotDotToken() ? merge(params.slice(i)) : params[i];
      if (t) this.bind(p.getNameNode(), { ...t, keys: new Set(), steps: [] }, p);
    });
    const nodes = bodyNodes(this.fn);
    const body = this.fn.getBody();
    const sf = this.fn.getSourceFile();
    // Propagation, checks and flows all need a tainted value inside the node (see taintOf): a node that
    // mentions no tainted name is skipped before it is wrapped.
    for (let round = 0; round < 8; round++) {
      this.changed = false;
      for (const cn of nodes) if (this.mayTaint(cn)) this.propagate(wrapNode(sf, cn));
      if (!this.changed) break;
    }
    const flows: RawFlow[] = [];
    const checks: Check[] = [];
    // `new Repository(dir).status()`: the constructor runs (and keeps the value in fields) before the method, which
    // a walk in source order meets first.
    const early = new Set<ts.Node>();
    for (const cn of nodes) {
      if (early.has(cn)) continue;
      // A method call runs with the fields of its instance: followed when some class keeps client values.
      if (!this.mayTaint(cn) && !(this.run_.fieldNames.size && (ts.isCallExpression(cn) || ts.isNewExpression(cn)) && ts.isPropertyAccessExpression(cn.expression)) && !this.handedOptionHolder(cn)) continue;
      const n = wrapNode(sf, cn);
      this.collectCheck(n, checks);
      if (ts.isCallExpression(cn) && ts.isPropertyAccessExpression(cn.expression)) {
        const recv = rawUnwrap(cn.expression.expression);
        if (ts.isNewExpression(recv) && this.mayTaint(recv)) {
          early.add(recv);
          this.visitCall(wrapNode(sf, recv) as NewExpression, flows, checks);
        }
      }
      if (Node.isCallExpression(n) || Node.isNewExpression(n) || Node.isTaggedTemplateExpression(n)) this.visitCall(n, flows, checks);
    }
    let ret: Taint | undefined;
    // A returned `new Promise((resolve) => …)` gives what its executor resolves (taint.promiseResolutions).
    const settled = (e: ts.Expression): (Taint | undefined)[] =>
      promiseResolutions(e).filter((x) => this.mayTaint(x)).map((x) => this.returned(wrapNode(sf, x), checks));
    if (body && !Node.isBlock(body)) {
      const viaPromise = settled(body.compilerNode as ts.Expression).filter((t): t is Taint => !!t);
      ret = viaPromise.length ? merge([this.returned(body, checks), ...viaPromise]) : this.returned(body, checks);
    } else {
      const rets: (Taint | undefined)[] = [];
      for (const r of ownReturns(this.fn)) {
        if (r.expression && this.mayTaint(r.expression)) rets.push(this.returned(wrapNode(sf, r.expression), checks));
        if (r.expression) rets.push(...settled(r.expression));
      }
      const tainted = rets.filter((t): t is Taint => !!t);
      ret = tainted.length === 1 ? tainted[0] : merge(tainted);
    }
    return { flows, checks, ret, writes: [...this.writes.values()], ...(this.stops.size ? { stops: [...this.stops.values()] } : {}) };
  }

  /* ---- returns */

  /**
   * The taint of a returned expression, with the path checks of this function that guard it (Taint.confinedBy):
   * each branch of a conditional (`inside ? real : undefined`) and each property of an object literal
   * (`{ ok: true, real }`) on its own.
   */
  private returned(e: Node, checks: Check[]): Taint | undefined {
    const u = unwrap(e);
    if (Node.isConditionalExpression(u)) return merge([this.returned(u.getWhenTrue(), checks), this.returned(u.getWhenFalse(), checks)]);
    const t = this.taintOf(u);
    if (!t || t.confinedBy) return t;
    return this.confined(t, u, checks, 0);
  }

  private confined(t: Taint, at: Node, checks: Check[], depth: number): Taint {
    if (t.props && depth < 3) {
      const props = new Map([...t.props].map(([k, x]) => [k, x.confinedBy ? x : this.confined(x, at, checks, depth + 1)] as const));
      const rest = t.rest && (t.rest.confinedBy ? t.rest : this.confined(t.rest, at, checks, depth + 1));
      const all = [...props.values(), ...(rest ? [rest] : [])];
      const by = all.length && all.every((x) => x.confinedBy?.length) ? [...new Set(all.flatMap((x) => x.confinedBy!))] : undefined;
      return { ...t, props, ...(rest ? { rest } : {}), ...(by ? { confinedBy: by } : {}) };
    }
    const by = checks.filter(
      (c) =>
        c.fn === this.fn &&
        !!c.verdict.fs &&
        (c.scope ? at.getStart() >= c.scope.getStart() && at.getEnd() <= c.scope.getEnd() : c.at.getEnd() <= at.getStart()) &&
        relevant(c, { kind: 'fs', taint: t }, this.run_.rootKeys),
    );
    return by.length ? { ...t, confinedBy: by } : t;
  }

  /** The arguments of a call to a constructor or method, each with the path checks of this function that guard it at the call. */
  private checkedArgs(ats: (Taint | undefined)[], call: Node, checks: Check[]): (Taint | undefined)[] {
    if (!checks.some((c) => c.verdict.fs)) return ats;
    return ats.map((t) => (t && !t.confinedBy ? this.confined(t, call, checks, 0) : t));
  }

  /* ---- binding */

  private set(id: Identifier, t: Taint, step: Node, extraKey?: string): void {
    const key = declKey(id);
    const cur = this.env.get(key);
    if (cur && (!cur.prefix || t.prefix)) {
      // A later assignment may refine the value (`p = path.resolve(root, p)`): keep the refinement and the
      // new keys. Flags only go up, so the iteration ends; the position rule of guards keeps a sink written
      // before the refinement unguarded.
      const up = {
        resolved: cur.resolved || t.resolved,
        relative: cur.relative || t.relative,
        basename: cur.basename || t.basename,
        escaped: cur.escaped || t.escaped,
      };
      // An array that gets another value (`args.push(name)`) keeps the worst place of its values (flow/argv.ts).
      const argv = cur.argv === t.argv ? cur.argv : worstArgv([cur.argv, t.argv]);
      const argvRuntime = cur.argvRuntime || t.argvRuntime;
      const keys = withKeys(unionKeys(cur.keys, t.keys), extraKey);
      // Confined only while every value it is given was (an earlier sink keeps the first value's guards).
      const confinedBy = cur.confinedBy && t.confinedBy ? cur.confinedBy : undefined;
      const same = keys.size === cur.keys.size && (Object.keys(up) as (keyof typeof up)[]).every((k) => !!up[k] === !!cur[k]) && argv === cur.argv && !!argvRuntime === !!cur.argvRuntime && confinedBy === cur.confinedBy;
      if (same) return;
      this.env.set(key, { ...cur, ...up, keys, argv, argvRuntime, confinedBy });
      this.changed = true;
      return;
    }
    if (t.root) this.run_.rootKeys.add(key);
    this.taintedNames.add(id.compilerNode.text);
    this.env.set(key, { ...t, keys: withKeys(t.keys, key, extraKey), steps: [...t.steps, step] });
    this.changed = true;
  }

  private bind(name: Node, t: Taint, step: Node, initKey?: string): void {
    if (Node.isIdentifier(name)) return this.set(name, t, step, initKey);
    if (Node.isObjectBindingPattern(name)) {
      for (const el of name.getElements()) {
        if (el.getDotDotDotToken()) {
          this.bind(el.getNameNode(), t, el);
          continue;
        }
        const pn = el.getPropertyNameNode();
        const prop = pn ? propertyName(pn) : el.getName();
        if (prop === undefined) continue;
        const k = initKey ? `${initKey}.${prop}` : undefined;
        const sub = this.member(t, prop, k);
        if (sub) this.bind(el.getNameNode(), sub, el, k);
      }
    } else if (Node.isArrayBindingPattern(name)) {
      const sub = this.element(t);
      if (!sub) return;
      for (const el of name.getElements()) if (Node.isBindingElement(el)) this.bind(el.getNameNode(), sub, el);
    }
  }

  private member(t: Taint, prop: string, key?: string): Taint | undefined {
    if (t.props) {
      const sub = t.props.get(prop) ?? t.rest;
      return sub && { ...sub, keys: withKeys(sub.keys, key), steps: t.steps };
    }
    if (t.prefix) {
      if (t.prefix[0] !== prop) return undefined;
      const rest = t.prefix.slice(1);
      if (key) this.run_.rootKeys.add(key);
      return { ...t, prefix: rest.length ? rest : undefined, root: true, keys: withKeys(t.keys, key) };
    }
    if (t.root && t.safe?.has(prop)) return undefined;
    if (prop === 'length') return undefined;
    const validated = t.validated || (!!t.root && !!t.patterned?.has(prop));
    return { ...t, root: false, safe: undefined, patterned: undefined, validated, part: t.part || !t.root, keys: withKeys(t.keys, key) };
  }

  private element(t: Taint): Taint | undefined {
    if (t.prefix) return undefined;
    if (t.props) return merge([...t.props.values(), t.rest]);
    return { ...t, root: false, safe: undefined, part: t.part || !t.root };
  }

  private propagate(n: Node): void {
    if (Node.isVariableDeclaration(n)) {
      const init = n.getInitializer();
      if (!init) return;
      const t = this.taintOf(init);
      if (t) this.bind(n.getNameNode(), t, n, exprKey(stripAwait(init)));
    } else if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (!['=', '+=', '??=', '||='].includes(op)) return;
      const left = unwrap(n.getLeft());
      let t = this.taintOf(n.getRight());
      if (!t) return;
      // `url += \`?q=${q}\`` on a URL the client does not reach: the value lands after its origin.
      if (op === '+=' && t.relPath && !this.taintOf(left)) t = { ...t, urlFixed: true };
      // `command += \` ${pattern}\`` on a `let command = 'rg'`: the line as accumulated, its program the first word.
      if (op === '+=' && Node.isIdentifier(left)) t = this.accumulatedLine(left, t);
      if (!Node.isObjectLiteralExpression(left) && !Node.isArrayLiteralExpression(left)) this.recordWrite(left, n);
      if (Node.isIdentifier(left)) {
        const d = declarationOf(left);
        if (d) this.set(d, t, n);
      } else if (Node.isPropertyAccessExpression(left) && Node.isIdentifier(unwrap(left.getExpression()))) {
        this.optionHolders.add(unwrap(left.getExpression()).getText());
      } else if (Node.isPropertyAccessExpression(left) && Node.isThisExpression(unwrap(left.getExpression()))) {
        const key = exprKey(left);
        if (key && this.run_.setField(key, left.getName(), { ...t, steps: [...t.steps, n] })) this.changed = true;
      } else if (Node.isObjectLiteralExpression(left) || Node.isArrayLiteralExpression(left)) {
        // destructuring assignment: taint every identifier assigned
        left.forEachDescendant((x) => {
          const parent = x.getParent();
          if (Node.isIdentifier(x) && !(Node.isPropertyAssignment(parent) && parent.getNameNode() === x) && !Node.isPropertyAccessExpression(parent)) {
            const d = declarationOf(x);
            if (d) this.set(d, { ...t, root: false }, n);
          }
        });
      }
    } else if (Node.isForOfStatement(n) || Node.isForInStatement(n)) {
      const t = this.taintOf(n.getExpression());
      const init = n.getInitializer();
      if (!t || !Node.isVariableDeclarationList(init)) return;
      const el = Node.isForOfStatement(n) ? this.element(t) : undefined;
      if (!el) return;
      for (const d of init.getDeclarations()) this.bind(d.getNameNode(), el, d);
    } else if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      // allowed.push(dir), roots.add(dir), settings.set(key, value), Object.assign(config, changes): a write of the collection.
      if (Node.isPropertyAccessExpression(callee) && STORE_MUTATORS.has(callee.getName()) && n.getArguments().some((a) => this.taintOf(a))) this.recordWrite(callee.getExpression(), n);
      if (Node.isPropertyAccessExpression(callee) && callee.getText() === 'Object.assign' && n.getArguments().slice(1).some((a) => this.taintOf(a)) && n.getArguments()[0]) this.recordWrite(n.getArguments()[0]!, n, true);
      // writeFile(tmp, code): the file now holds the client's text; run by a language runtime it is code (flow/argv.ts).
      const fo = Node.isIdentifier(callee) || Node.isPropertyAccessExpression(callee) ? originCached(callee, this.run_.sources) : undefined;
      const [dest, data] = n.getArguments();
      if (fo && FS_MODULES.has(fo.module) && /^(?:writeFile|writeFileSync|outputFile|outputFileSync)$/.test(last(fo)) && dest && data && this.taintOf(data)) {
        const id = unwrap(dest);
        const d = Node.isIdentifier(id) ? declarationOf(id) : undefined;
        if (d && !this.taintOf(id)) this.set(d, { keys: new Set(), steps: [...this.taintOf(data)!.steps, n], codeFile: true, argv: 'code' }, n);
        // writeFile(join(dir, 'main.py'), code): the folder now holds a script (`cd ${dir} && python main.py`, flow/argv.ts).
        const folder = Node.isCallExpression(id) && /^(?:join|resolve)$/.test(last(originCached(unwrap(id.getExpression()), this.run_.sources) ?? { module: '', path: [] })) ? id.getArguments()[0] : undefined;
        const fu = folder && unwrap(folder);
        const fd = fu && Node.isIdentifier(fu) ? declarationOf(fu) : undefined;
        // Only a fresh temporary folder of this function (`const dir = mkdtempSync(join(tmpdir(), 'run-'))`), not a configured root.
        const fresh = fd && fd.getStart() > this.fn.getStart() && fd.getEnd() < this.fn.getEnd() && /mkdtemp|tmpdir|tmp|temp/i.test(initializerOf(fd)?.getText() ?? '');
        if (fd && fresh && !this.taintOf(folder!)) this.set(fd, { keys: new Set(), steps: [...this.taintOf(data)!.steps, n], codeDir: true, argv: 'safe' }, n);
      }
      if (!Node.isPropertyAccessExpression(callee)) return;
      // args.push(name) on a local array: the array now holds the value (its place read as in flow/argv.ts).
      const recvId = unwrap(callee.getExpression());
      if ((callee.getName() === 'push' || callee.getName() === 'unshift') && Node.isIdentifier(recvId)) {
        const pushed = merge(n.getArguments().map((a) => this.taintOf(Node.isSpreadElement(a) ? a.getExpression() : a)));
        const d = pushed && declarationOf(recvId);
        if (d && Node.isVariableDeclaration(d.getParent())) {
          const { argv, runtime } = pushedArgv(d, n, (e) => this.taint(e));
          this.set(d, { ...pushed, root: false, argv, argvRuntime: runtime }, n);
        }
        return;
      }
      const idx = ITERATING.get(callee.getName());
      if (idx === undefined) return;
      const t = this.taintOf(callee.getExpression());
      const cb = n.getArguments()[0];
      const el = t && this.element(t);
      if (!el || !cb || !isFunctionLike(unwrap(cb))) return;
      const p = (unwrap(cb) as FunctionLikeNode).getParameters()[idx];
      if (p) this.bind(p.getNameNode(), el, p);
    }
  }

  /**
   * Whether the result of a call decides if the function goes on: the call is the condition of an `if` that
   * leaves (return, throw), or its result is kept in a variable that such an `if` tests.
   */
  private gates(call: Node): boolean {
    const leaves = (st: Node): boolean => Node.isReturnStatement(st) || Node.isThrowStatement(st) || findNodes(st, (d) => ts.isReturnStatement(d) || ts.isThrowStatement(d)).length > 0;
    let cur: Node = call;
    let p = cur.getParent();
    while (p && (Node.isAwaitExpression(p) || Node.isParenthesizedExpression(p) || Node.isPrefixUnaryExpression(p) || Node.isPropertyAccessExpression(p))) {
      cur = p;
      p = p.getParent();
    }
    if (Node.isIfStatement(p) && p.getExpression() === cur) return leaves(p.getThenStatement());
    if (Node.isVariableDeclaration(p) && Node.isIdentifier(p.getNameNode())) {
      const name = p.getName();
      const body = this.fn.getBody();
      return !!body && findNodes(body, (cn) => ts.isIfStatement(cn) && cn.getStart() > call.getStart()).some(
        (st) => Node.isIfStatement(st) && new RegExp(`\\b${name}\\b`).test(st.getExpression().getText()) && leaves(st.getThenStatement()),
      );
    }
    return false;
  }

  /** A client value written into `target` (a module-level variable, a field, or a property of one): kept for 'roots-writable'. */
  private recordWrite(target: Node, node: Node, anyProperty = false): void {
    for (const k of storageKeys(target, this.run_.sources, 0, true)) {
      const key = anyProperty ? `${k}.*` : k;
      const id = `${key}@${node.getStart()}`;
      if (!this.writes.has(id)) this.writes.set(id, { key, node, at: node, tool: '' });
    }
  }

  /* ---- expressions */

  /**
   * The taint of an expression. Taint only ever starts at a variable set in this analysis (see set()), so an
   * expression that mentions none of their names is clean: that is decided on compiler nodes, before any
   * part of it is wrapped.
   */
  /** A call or `new` handed, as an argument, a local object given a client value on a property later (optionHolders). */
  private handedOptionHolder(cn: ts.Node): boolean {
    if (!this.optionHolders.size || !(ts.isCallExpression(cn) || ts.isNewExpression(cn))) return false;
    return (cn.arguments ?? []).some((a) => {
      const u = rawUnwrap(a);
      return ts.isIdentifier(u) && this.optionHolders.has(u.text);
    });
  }

  taintOf(e: Node): Taint | undefined {
    return this.mayTaint(e.compilerNode) ? this.taint(e) : undefined;
  }

  private mayTaint(cn: ts.Node): boolean {
    const names = this.taintedNames;
    const fields = this.run_.fieldNames;
    if (names.size === 0 && fields.size === 0) return false;
    const visit = (n: ts.Node): boolean => (ts.isIdentifier(n) ? names.has(n.text) || fields.has(n.text) : n.kind === SyntaxKind.ThisKeyword ? fields.size > 0 : !!ts.forEachChild(n, visit));
    return visit(cn);
  }

  private taint(e: Node): Taint | undefined {
    const n = stripAwait(e);
    if (Node.isIdentifier(n)) {
      const d = declarationOf(n);
      return d ? this.env.get(declKey(d)) : undefined;
    }
    if (Node.isPropertyAccessExpression(n)) {
      if (Node.isThisExpression(unwrap(n.getExpression()))) {
        const key = exprKey(n);
        return key ? this.run_.fields.get(key) : undefined;
      }
      const t = this.taint(n.getExpression());
      return t && this.member(t, n.getName(), exprKey(n));
    }
    if (Node.isElementAccessExpression(n)) {
      const t = this.taint(n.getExpression());
      if (!t) return undefined;
      const key = constString(n.getArgumentExpression())?.value;
      return key !== undefined ? this.member(t, key, exprKey(n)) : this.element(t);
    }
    if (Node.isTemplateExpression(n)) return this.commandLine(n, this.scriptLine(n, this.shaped(n, merge(n.getTemplateSpans().map((s) => this.taint(s.getExpression()))))));
    if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (op === '+') return this.commandLine(n, this.scriptLine(n, this.shaped(n, merge([this.taint(n.getLeft()), this.taint(n.getRight())]))));
      if (op === '??' || op === '||' || op === '+=') return merge([this.taint(n.getLeft()), this.taint(n.getRight())]);
      if (op === '&&' || op === ',' || op === '=' || op === '??=' || op === '||=') return this.taint(n.getRight());
      return undefined;
    }
    if (Node.isConditionalExpression(n)) return merge([this.taint(n.getWhenTrue()), this.taint(n.getWhenFalse())]);
    if (Node.isArrayLiteralExpression(n)) {
      const t = merge(n.getElements().map((el) => this.taint(Node.isSpreadElement(el) ? el.getExpression() : el)));
      if (!t) return undefined;
      // Where the client's values sit, should the array be a program's arguments (flow/argv.ts).
      const { argv, runtime } = arrayArgv(n, (e) => this.taint(e));
      // Its literal elements and where the client's values sit, for a launch that is handed the whole array elsewhere.
      // A spread of an array built before (`const cwdArgs = ['-C', dir]; git([...cwdArgs, 'log'])`) brings its own
      // elements and tainted places, in order.
      const tainted: number[] = [];
      const items: ArgvItem[] = [];
      for (const el of n.getElements()) {
        const inner = Node.isSpreadElement(el) ? this.taint(el.getExpression())?.argvItems : undefined;
        if (inner) {
          for (const i of inner.tainted) tainted.push(items.length + i);
          items.push(...inner.items);
          continue;
        }
        if (!Node.isSpreadElement(el) && this.taint(el)) tainted.push(items.length);
        items.push(...argvItemsOf([el]));
      }
      return { ...t, argv, argvRuntime: runtime, argvItems: { items, tainted } };
    }
    if (Node.isObjectLiteralExpression(n)) {
      // Field-sensitive: `{ path: p, rules }` keeps each property's own taint.
      const props = new Map<string, Taint>();
      const rests: Taint[] = [];
      for (const p of n.getProperties()) {
        if (Node.isPropertyAssignment(p)) {
          const t = this.taint(p.getInitializerOrThrow());
          const name = propertyName(p.getNameNode());
          if (t && name !== undefined) props.set(name, t);
          else if (t) rests.push(t);
        } else if (Node.isShorthandPropertyAssignment(p)) {
          const t = this.taint(p.getNameNode());
          if (t) props.set(p.getName(), t);
        } else if (Node.isSpreadAssignment(p)) {
          const t = this.taint(p.getExpression());
          if (t?.props) for (const [k, v] of t.props) props.set(k, v);
          if (t?.rest) rests.push(t.rest);
          else if (t && !t.props) rests.push(t);
        }
      }
      const all = [...props.values(), ...rests];
      const whole = merge(all);
      if (!whole) return undefined;
      const restOf = rests.length === 1 ? rests[0] : merge(rests);
      return { ...whole, props, rest: restOf };
    }
    if (Node.isCallExpression(n)) return this.callTaint(n);
    if (Node.isNewExpression(n)) {
      const name = n.getExpression().getText();
      const [a, base] = n.getArguments() ?? [];
      if (name === 'URL' && base) {
        // new URL(ref, base): a relative reference with a fixed start keeps the base's scheme and host; any
        // other reference the client reaches may be absolute and replace them.
        const ta = a && this.taint(a);
        const tb = this.taint(base);
        if (!ta) return tb;
        const t = merge([ta, tb])!;
        return { ...t, urlFixed: !!ta.relPath && (!tb || !!tb.urlFixed), schemeFixed: false, relPath: false };
      }
      if (name === 'URL' || name === 'String') return a ? this.taint(a) : undefined;
      return undefined;
    }
    if (Node.isTaggedTemplateExpression(n) && n.getTag().getText() === 'String.raw') {
      const tpl = n.getTemplate();
      return Node.isTemplateExpression(tpl) ? merge(tpl.getTemplateSpans().map((s) => this.taint(s.getExpression()))) : undefined;
    }
    return undefined;
  }

  /**
   * The URL shape of a template or concatenation (see Taint.urlFixed): read from the constant text and the
   * values the client does not reach before the first value it does.
   */
  /**
   * A command line written where the file holding the client's text is named (`${executor} "${filePath}"`, with
   * `executor` picked from a table of runtimes), then handed to a helper that runs it through a shell: the line
   * is code to run wherever it goes (Taint.scriptLine), since the helper only sees a parameter.
   */
  /** A function of the package named like a shell quoting one (`escapeShellArg`) whose body quotes nothing for a shell (see notShellQuoting). */
  private quotesNothingForShell(callee: Node): boolean {
    const f = functionCached(callee, this.run_.sources);
    return !!f && notShellQuoting(f);
  }

  /** A template (or `+`, `.concat` chain) read as a command line (`rg -n ${pattern} ${dir}`): its words, kept for a shell that is handed the line elsewhere (Taint.commandLine). */
  private commandLine(n: Node, t: Taint | undefined): Taint | undefined {
    const words = t && commandLineWords(n);
    if (!t || !words) return t;
    const tainted = words.argv.flatMap((w, i) => (w.expr && this.taint(w.expr) ? [i] : []));
    return { ...t, commandLine: { program: words.program, items: words.argv.map((w) => w.item), tainted } };
  }

  /** A command line accumulated with `+=` in a `let` (sinks.ts accumulatedLineWords), kept as Taint.commandLine. */
  private accumulatedLine(id: Node, t: Taint): Taint {
    const d = declarationOf(id as Identifier);
    const words = d && accumulatedLineWords(d);
    if (!words) return t;
    const tainted = words.argv.flatMap((w, i) => (w.expr && this.taint(w.expr) ? [i] : []));
    return { ...t, commandLine: { program: words.program, items: words.argv.map((w) => w.item), tainted } };
  }

  private scriptLine(n: Node, t: Taint | undefined): Taint | undefined {
    if (!t || t.scriptLine || !(t.codeFile || t.codeDir)) return t;
    const isCode = (e: Node): boolean => !!this.taintOf(e)?.codeFile;
    const isDir = (e: Node): boolean => !!this.taintOf(e)?.codeDir;
    return shellRunsScript(n, isCode, isDir, this.run_.sources) ? { ...t, codeFile: false, codeDir: false, scriptLine: true } : t;
  }

  private shaped(n: Node, t: Taint | undefined): Taint | undefined {
    if (!t) return t;
    const pieces = piecesOf(n);
    if (!pieces) return t;
    let prefix = '';
    for (const p of pieces) {
      if ('text' in p) {
        prefix += p.text;
        continue;
      }
      const pt = this.taintOf(p.expr);
      if (!pt) {
        prefix += constString(p.expr)?.value ?? '\0';
        continue;
      }
      if (prefix === '') return { ...t, urlFixed: pt.urlFixed, schemeFixed: pt.schemeFixed, relPath: pt.relPath, rootPath: pt.rootPath, hostless: pt.hostless || pt.urlFixed, textFirst: pt.textFirst };
      // `${BASE}${endpoint}`: a root-relative reference (`/items/${id}`, from the callers) after a base the client does not reach.
      const urlFixed = CLOSED_ORIGIN.test(prefix) || CLOSED_BASE.test(prefix) || (!!pt.rootPath && BARE_ORIGIN.test(prefix));
      const rootPath = !prefix.includes('\0') && ROOT_PATH.test(prefix);
      return { ...t, urlFixed, schemeFixed: !urlFixed && OPEN_HOST.test(prefix), relPath: !prefix.includes('\0') && RELATIVE.test(prefix) && !SCHEME.test(prefix), rootPath, hostless: urlFixed || rootPath, textFirst: prefix.trim() !== '' && !prefix.includes('\0') };
    }
    return t;
  }

  private argTaints(call: CallExpression | NewExpression): (Taint | undefined)[] {
    return (call.getArguments() ?? []).map((a) => this.taintOf(a));
  }

  private callTaint(call: CallExpression): Taint | undefined {
    const callee = unwrap(call.getExpression());
    const args = call.getArguments();
    const o = originCached(callee, this.run_.sources);
    const m = o ? last(o) : '';
    if (o && PATH_MODULES.has(o.module)) {
      if (m === 'resolve' || m === 'join' || m === 'normalize') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, resolved: true, relative: false };
      }
      if (m === 'relative') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, relative: true, resolved: false };
      }
      if (m === 'basename') {
        const t = args[0] && this.taintOf(args[0]);
        return t ? { ...t, root: false, basename: true } : undefined;
      }
      if (m === 'dirname' || m === 'extname') {
        const t = merge(args.map((a) => this.taintOf(a)));
        return t && { ...t, part: true };
      }
      if (m === 'format' || m === 'toNamespacedPath') return merge(args.map((a) => this.taintOf(a)));
      return undefined;
    }
    if (o && FS_MODULES.has(o.module) && (m === 'realpath' || m === 'realpathSync' || m === 'native')) {
      const t = args[0] && this.taintOf(args[0]);
      return t ? { ...t, root: false, resolved: true } : undefined;
    }
    const calleeName = Node.isIdentifier(callee) ? callee.getText() : Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if ((o && ESCAPE_MODULES.has(o.module)) || (ESCAPE_NAME.test(calleeName) && !this.quotesNothingForShell(callee))) {
      const t = merge(args.map((a) => this.taintOf(a)));
      return t && { ...t, escaped: true };
    }
    if (o?.module === GLOBAL && PASS_GLOBALS.has(o.path[0] ?? '')) {
      if (NON_TEXT_METHODS.has(m) || /^(?:is|has)/.test(m)) return undefined;
      return merge(args.map((a) => this.taintOf(a)));
    }
    if (Node.isPropertyAccessExpression(callee)) {
      const recv = this.taintOf(callee.getExpression());
      const name = callee.getName();
      if (recv) {
        if (NON_TEXT_METHODS.has(name)) return undefined;
        const extra = name === 'concat' ? args.map((a) => this.taintOf(a)) : [];
        const t = merge([recv, ...extra]);
        const out = t && { ...t, basename: recv.basename, escaped: recv.escaped, part: recv.part || PART_METHODS.has(name), replaced: recv.replaced || name === 'replace' || name === 'replaceAll' };
        return name === 'concat' ? this.commandLine(call, out) : out;
      }
      if (name === 'concat' || name === 'replace' || name === 'replaceAll') {
        const t = merge((name === 'concat' ? args : args.slice(1)).map((a) => this.taintOf(a)));
        if (t) return name === 'concat' ? this.commandLine(call, t) : t;
      }
    }
    // Schema.parse(args), safeParse(args).data…: validation keeps the text, minus the constrained arguments.
    if (Node.isPropertyAccessExpression(callee) && PARSE_METHODS.has(callee.getName()) && args[0] && !this.taintOf(callee.getExpression())) {
      const t = this.taintOf(args[0]);
      if (t) {
        const constrained = t.root ? constrainedArguments(callee.getExpression(), this.run_.sources) : [];
        const checked = constrained.length ? { ...t, safe: new Set([...(t.safe ?? []), ...constrained]) } : t;
        return /^safeParse/.test(callee.getName()) && !t.prefix ? { ...checked, prefix: ['data'], root: true } : checked;
      }
    }
    const f = this.depth < MAX_DEPTH ? functionCached(callee, this.run_.sources) : undefined;
    if (f) {
      const ats = this.argTaints(call);
      if (!ats.some(Boolean) && !(Node.isMethodDeclaration(f) && this.run_.hasTaintedFields(ownerClass(f)))) return undefined;
      const r = this.run_.analyze(f, ats, this.depth + 1);
      if (!r.ret) return undefined;
      const first = ats.find(Boolean);
      return { ...r.ret, keys: liftKeys(f, ats, r.ret.keys), steps: [...(first?.steps ?? []), call, ...r.ret.steps] };
    }
    return undefined;
  }

  /* ---- sinks and calls */

  private visitCall(n: CallExpression | NewExpression | TaggedTemplateExpression, flows: RawFlow[], checks: Check[]): void {
    const match = classifySink(n, this.run_.ctx);
    if (match) {
      for (const part of match.parts) {
        const ts = part.exprs.map((e) => this.taintOf(e));
        const t = merge(ts);
        if (!t) continue;
        // An argument array received whole (`execFile('git', args)` in `runGit(args)`): a path only when a client
        // value sits where the program reads a file or folder in the array as it was made (`['-C', repo, 'log']`).
        if (part.argvOf && !(t.argvItems && madeWithPath(part.argvOf, t.argvItems))) continue;
        // A command line received whole (`exec(command)` in `runCommand(command)`): the same, on the template it was made as.
        if (part.lineMade && !(t.commandLine && madeWithPath([t.commandLine.program], t.commandLine))) continue;
        // A file that holds the client's text is not a client-chosen path, URL or command: it matters only as a
        // program's argument (flow/argv.ts).
        let kind = part.kind;
        // A command line built elsewhere that runs the file holding the client's text (`executeCommand(\`${executor} "${file}"\`)`).
        if (t.scriptLine) {
          if (part.kind !== 'shell') continue;
          kind = 'eval';
        } else if (t.codeFile || t.codeDir) {
          // …except in a shell line that hands it to a language runtime (`${executor} "${file}"`): code.
          const isCode = (e: Node): boolean => !!this.taintOf(e)?.codeFile;
          const isDir = (e: Node): boolean => !!this.taintOf(e)?.codeDir;
          const sources = this.run_.sources;
          if (part.kind === 'shell' && part.exprs[0] && (shellRunsScript(part.exprs[0], isCode, isDir, sources) || (!!part.exprs[1] && argvRunsScript(part.exprs[0], part.exprs[1], isCode, sources)))) kind = 'eval';
          else if (part.kind !== 'argument' || t.codeDir) continue;
        }
        const urlShape = part.kind === 'http' || part.kind === 'navigate' ? this.destination(n, t) : undefined;
        flows.push({
          sink: n,
          match,
          kind,
          // resolved: every tainted operand went through path.resolve/join or realpath (merge does not keep it).
          taint: { ...t, keys: unionKeys(new Set(), ts.flatMap((x) => (x ? [...x.keys] : []))), ...(ts.every((x) => !x || x.resolved) ? { resolved: true } : {}) },
          chain: [{ fn: this.fn, at: n }],
          steps: [...t.steps, n],
          ...(urlShape ? { urlShape } : {}),
        });
      }
      return;
    }
    if (this.depth >= MAX_DEPTH) {
      if (!Node.isTaggedTemplateExpression(n)) this.noteStop(n, 'depth-limit');
      return;
    }
    if (Node.isNewExpression(n)) {
      // new Session(command): the constructor runs with the arguments (and may keep them in fields, where they
      // carry the path checks made on them before this call: see Taint.confinedBy).
      const ats = this.argTaints(n);
      const ctor = ats.some(Boolean) ? constructorOf(n, this.run_.sources) : undefined;
      if (ctor && ctor !== this.fn) this.follow(n, ctor, this.checkedArgs(ats, n, checks), flows, checks);
      return;
    }
    if (!Node.isCallExpression(n)) return;
    const fns = functionsOfCallee(unwrap(n.getExpression()), this.run_.sources).filter((x) => x.fn !== this.fn);
    if (!fns.length) {
      this.noteStop(n);
      return;
    }
    const ats = this.argTaints(n);
    const tainted = ats.some(Boolean);
    for (const { fn, key } of fns) {
      // A method of a class whose fields hold client values runs with them, whatever its arguments; what it keeps
      // in fields carries the path checks made on its arguments before this call.
      if (tainted || (Node.isMethodDeclaration(fn) && this.run_.hasTaintedFields(ownerClass(fn)))) this.follow(n, fn, Node.isMethodDeclaration(fn) ? this.checkedArgs(ats, n, checks) : ats, flows, checks, key);
    }
  }

  /**
   * What of an outbound request's destination the client reaches (see Flow.urlShape): the URL's own shape, or
   * a relative reference resolved against a base the client does not reach — an axios `baseURL`, a got or ky
   * `prefixUrl` (which is always prepended), in the call's options or the instance's configuration.
   */
  private destination(n: Node, t: Taint): UrlShape {
    if (t.urlFixed || t.hostless) return 'path';
    const req = httpRequestOf(n, this.run_.sources);
    if (req) {
      const configs = [req.options, ...req.instance].map((c) => (c ? objectLiteralOf(c, this.run_.sources) : undefined));
      const fixedKey = (key: string): boolean =>
        configs.some((c) => {
          const v = c && propertyValue(c, key);
          return !!v && !this.taintOf(v);
        });
      const tu = req.url && this.taintOf(req.url);
      if ((req.library === 'got' || req.library === 'ky') && fixedKey('prefixUrl')) return 'path';
      if (req.library === 'axios' && fixedKey('baseURL') && (!tu || tu.relPath || tu.urlFixed)) return 'path';
      if (tu && !tu.urlFixed && !tu.schemeFixed) return 'url';
    }
    return t.schemeFixed ? 'host' : 'url';
  }

  /** A call given a client value that leads nowhere known (FnResult.stops): the shape of its callee. */
  private noteStop(n: CallExpression | NewExpression, depthLimit?: 'depth-limit'): void {
    if (this.stops.size >= 200 || this.stops.has(n.compilerNode)) return;
    const ts_ = this.argTaints(n).filter((t): t is Taint => !!t);
    if (!ts_.length) return;
    const keys = unionKeys(new Set(), ts_.flatMap((x) => [...x.keys]));
    if (depthLimit) {
      this.stops.set(n.compilerNode, { at: n, why: depthLimit, keys });
      return;
    }
    const callee = unwrap(n.getExpression());
    const o = originCached(callee, this.run_.sources);
    if (o && o.module !== GLOBAL && !o.module.startsWith('.')) this.stops.set(n.compilerNode, { at: n, why: 'dependency', module: o.module, keys });
    else if (o) return; // a global (JSON, console, String…) or a relative module's export the analysis does not read as a function
    else this.stops.set(n.compilerNode, { at: n, why: Node.isPropertyAccessExpression(callee) || Node.isElementAccessExpression(callee) ? 'method-of-unknown-receiver' : 'unresolved-function', keys });
  }

  private follow(n: CallExpression | NewExpression, f: Analyzable, ats: (Taint | undefined)[], flows: RawFlow[], checks: Check[], tableKey?: string): void {
    const r = this.run_.analyze(f, ats, this.depth + 1);
    const first = ats.find(Boolean);
    for (const rf of r.flows) {
      flows.push({
        ...rf,
        taint: { ...rf.taint, keys: liftKeys(f, ats, rf.taint.keys) },
        chain: [{ fn: this.fn, at: n }, ...rf.chain],
        steps: [...(first?.steps ?? []), n, ...rf.steps],
        tableKey: rf.tableKey ?? tableKey,
      });
    }
    for (const c of r.checks) {
      if (this.seenChecks.has(c)) continue;
      this.seenChecks.add(c);
      checks.push(c);
      // A check of the callee itself counts at this call, for the arguments that reach it (its own lifted
      // checks carry the deeper ones up, one level at a time). Not when the callee is async and its promise is
      // tested or dropped without `await` (`if (!isAllowed(p)) throw …`, `validatePath(p);`): a promise is truthy
      // and a rejection nobody awaits stops nothing, so the check does nothing here (read for file paths only: X-5).
      if (!c.scope && c.fn === f) {
        const verdict = c.verdict.fs && unawaitedAsync(n, f) ? Object.fromEntries(Object.entries(c.verdict).filter(([k]) => k !== 'fs')) : c.verdict;
        if (verdict === c.verdict || Object.keys(verdict).length) checks.push({ ...c, verdict, fn: this.fn, at: n, keys: liftKeys(f, ats, c.keys) });
      }
    }
    for (const s of r.stops ?? []) if (this.stops.size < 200 && !this.stops.has(s.at.compilerNode)) this.stops.set(s.at.compilerNode, { ...s, keys: liftKeys(f, ats, s.keys) });
    for (const w of r.writes) {
      const id = `${w.key}@${w.node.getStart()}`;
      if (!this.writes.has(id)) this.writes.set(id, { ...w, at: n });
    }
  }

  /* ---- checks */

  private addCheck(checks: Check[], node: Node, subjectNode: Node, subject: Taint | undefined, verdict: Partial<Record<Family, Verdict>>, scope?: Node, roots?: Node[]): void {
    if (!subject) return;
    if (!scope) {
      const g = guarding(node);
      if (!g) return;
      // A rejecting check inside one branch of an `if` guards that branch only (conditionalBranch).
      // Not when the `if` tests the checked value itself (`if (args.path) { …check… }`), or what it holds.
      const own = exprKey(subjectNode);
      const testsSubject = (e: Node): boolean => {
        const k = exprKey(e);
        return !!k && (subject.keys.has(k) || k === own || (!!own && k.startsWith(own + '.')));
      };
      scope = g !== 'after' ? g : conditionalBranch(node, testsSubject);
    }
    let shown = node;
    if (verdict.fs?.guard === 'sound' && roots?.length) {
      // An allow-list that means "everything" while it is empty, and is empty unless configured.
      const bypass = openWhenEmpty(this.fn, node, roots, this.run_.sources, (e) => !!this.taintOf(e));
      if (bypass) {
        verdict = { ...verdict, fs: v('unsound', 'default-open') };
        shown = bypass;
      }
    }
    checks.push({ node: shown, fn: this.fn, at: node, keys: subject.keys, subjectKey: exprKey(subjectNode), part: subject.part, verdict, scope, ...(roots?.length ? { roots } : {}) });
  }

  private collectCheck(n: Node, checks: Check[]): void {
    if (Node.isCallExpression(n)) {
      const callee = unwrap(n.getExpression());
      const args = n.getArguments();
      // A confirmation the human gives: the value is shown in an elicitation and nothing runs unless accepted.
      const gate = this.run_.elicits && mayResolveFunction(callee.compilerNode) ? functionCached(callee, this.run_.sources) : undefined;
      if (gate && asksHuman(gate, this.run_.sources) && !acceptsWithoutAsking(gate, this.run_.sources) && this.gates(n)) {
        for (const a of args) {
          const t = this.taintOf(a);
          if (t) this.addCheck(checks, n, a, t, CONFIRMED);
        }
        return;
      }
      if (Node.isPropertyAccessExpression(callee)) {
        const m = callee.getName();
        const recvNode = callee.getExpression();
        const recv = this.taintOf(recvNode);
        if (m === 'startsWith' && recv) {
          const b = args[0];
          const lit = constString(b)?.value;
          if (recv.relative && (lit !== undefined ? lit.startsWith('..') : b !== undefined && upwardStart(b))) return this.addCheck(checks, n, recvNode, recv, { fs: v('sound', 'relative-check') });
          // A literal prefix confines only when it is an absolute folder written with its separator ('/srv/data/').
          if (lit !== undefined) {
            const root = lit.length > 1 && /^(?:\/|[A-Za-z]:\\)/.test(lit) && /[\\/]$/.test(lit);
            // x.startsWith('-'): a value that would be read as an option is looked for (an argument-array guard).
            const option = lit.startsWith('-') ? { argv: v('sound', 'option-check') } : {};
            return this.addCheck(checks, n, recvNode, recv, root && recv.resolved ? { fs: v('sound', 'separator-prefix'), process: v('unsound', 'blocklist') } : { ...DENY, ...option });
          }
          if (b && isSep(b) && constString(b) === undefined) return this.addCheck(checks, n, recvNode, recv, DENY); // startsWith(path.sep): only absoluteness
          if (hasSeparator(b)) return this.addCheck(checks, n, recvNode, recv, { fs: recv.resolved ? v('sound', 'separator-prefix') : v('unsound', 'raw-path-check'), process: v('unsound', 'blocklist') }, undefined, b ? [b] : undefined);
          return this.addCheck(checks, n, recvNode, recv, { fs: v('unsound', 'prefix-without-separator'), process: v('unsound', 'blocklist') });
        }
        if (['includes', 'indexOf', 'lastIndexOf', 'has', 'hasOwnProperty'].includes(m) && args[0]) {
          const arg = this.taintOf(args[0]);
          if (arg && !recv) {
            const denied = DENY_NAME.test(recvNode.getText());
            const before = checks.length;
            this.addCheck(checks, n, args[0], arg, denied ? DENY : ALLOW, undefined, [recvNode]);
            // addCheck keeps nothing when the test guards no code (its result only stored or returned).
            if (checks.length > before) checks[checks.length - 1]!.lookup = true;
            return;
          }
          if (recv && !arg && m !== 'has' && m !== 'hasOwnProperty') return this.addCheck(checks, n, recvNode, recv, DENY);
          return;
        }
        if (m === 'test' && args[0]) {
          const re = regexSource(recvNode);
          const subj = this.taintOf(args[0]);
          if (re !== undefined && subj) return this.addCheck(checks, n, args[0], subj, patternVerdict(re));
          return;
        }
        if ((m === 'match' || m === 'search') && recv) {
          const re = regexSource(args[0]);
          return this.addCheck(checks, n, recvNode, recv, re !== undefined && m === 'match' ? patternVerdict(re) : DENY);
        }
      }
      const o = originOf(callee);
      if (o && PATH_MODULES.has(o.module) && last(o) === 'isAbsolute' && args[0]) {
        const subj = this.taintOf(args[0]);
        return this.addCheck(checks, n, args[0], subj, subj?.relative ? { fs: v('sound', 'relative-check') } : { fs: v('unsound', 'raw-path-check') });
      }
      if (o?.module === GLOBAL && o.path.join('.') === 'Object.hasOwn' && args[1]) return this.addCheck(checks, n, args[1], this.taintOf(args[1]), ALLOW);
      return;
    }
    if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      if (['===', '!==', '==', '!='].includes(op)) {
        const [l, r] = [n.getLeft(), n.getRight()];
        const lt = this.taintOf(l);
        const rt = this.taintOf(r);
        if (lt && !rt && constString(r)) return this.addCheck(checks, n, l, lt, ALLOW);
        if (rt && !lt && constString(l)) return this.addCheck(checks, n, r, rt, ALLOW);
        return;
      }
      if (op === 'in') {
        const lt = this.taintOf(n.getLeft());
        if (lt && !this.taintOf(n.getRight())) this.addCheck(checks, n, n.getLeft(), lt, DENY_NAME.test(n.getRight().getText()) ? DENY : ALLOW);
      }
      return;
    }
    if (Node.isSwitchStatement(n)) {
      const t = this.taintOf(n.getExpression());
      if (!t) return;
      for (const c of n.getCaseBlock().getClauses()) {
        if (Node.isCaseClause(c) && constString(c.getExpression())) this.addCheck(checks, c, n.getExpression(), t, ALLOW, c);
      }
    }
  }
}

/**
 * Is this call of an async function left without `await`, its promise only tested (the condition of an `if` or
 * a `?:`, under `!` or parentheses) or its statement's whole expression (the result dropped)?
 */
function unawaitedAsync(call: Node, f: Analyzable): boolean {
  if (!(Node.isFunctionDeclaration(f) || Node.isFunctionExpression(f) || Node.isArrowFunction(f) || Node.isMethodDeclaration(f)) || !f.isAsync()) return false;
  let prev: Node = call;
  let cur = call.getParent();
  while (cur && (Node.isParenthesizedExpression(cur) || (Node.isPrefixUnaryExpression(cur) && cur.getOperatorToken() === SyntaxKind.ExclamationToken))) {
    prev = cur;
    cur = cur.getParent();
  }
  if (!cur) return false;
  if (Node.isIfStatement(cur)) return cur.getExpression() === prev;
  if (Node.isConditionalExpression(cur)) return cur.getCondition() === prev;
  return Node.isExpressionStatement(cur) && prev === call;
}
