import { Node, type ArrayLiteralExpression, type Identifier } from '../morph.js';
import { initializerOf } from '../scope.js';
import { constString } from '../server-model.js';
import { unwrap } from '../ts-source.js';
import { possibleStrings } from './sinks.js';
import { piecesOf, worstArgv, type ArgvPosition, type Taint } from './taint.js';

/**
 * Taint flow (facts/flow.ts), argument arrays: where a client value sits in the argument array of a program
 * started without a shell (`execFile('kubectl', ['get', kind, name])`), which decides whether it may be read
 * as an option (X-4's third red: a value starting with `-`), and whether it is code handed to a language
 * runtime (`spawn('python3', ['-c', code])`, `node -e`).
 */

/** Language runtimes (and shells) that run code given on their command line or in a script file. */
const RUNTIMES = new Set([
  'python', 'python2', 'python3', 'py', 'node', 'nodejs', 'bun', 'deno', 'ruby', 'perl', 'php', 'Rscript', 'osascript', 'lua', 'julia', 'tsx', 'ts-node',
  'sh', 'bash', 'zsh', 'pwsh', 'powershell',
]);
/** The flags after which those runtimes read code (`python -c`, `node -e`/`-p`, `ruby -e`, `perl -e`, `php -r`, `deno eval`). */
const CODE_FLAGS = new Set(['-c', '-e', '-E', '--eval', '-p', '--print', '-r', 'eval']);

/** Is this the name (or path) of a language runtime: `python3`, `/usr/bin/node`, `python3.12`? */
export function isRuntime(name: string): boolean {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '');
  return RUNTIMES.has(base) || /^python3?\.\d+$/.test(base);
}

/**
 * Where the client's values sit in an array literal (see Taint.argv), given the taint of each element: a value
 * after a `--` element, glued after fixed text (`--namespace=${ns}`, `ref:${x}`; not `--${x}`),
 * or right after a fixed option (`-m`, `--message`: its value, which the program does not read as an option) is
 * 'safe'; after a code flag ('-c', '-e'…) it is 'code'; anywhere else 'option'. A spread of a tainted array keeps
 * that array's position unless a `--` comes before it.
 */
export function arrayArgv(arr: Node, taintOf: (e: Node) => Taint | undefined): { argv?: ArgvPosition; runtime: boolean } {
  return Node.isArrayLiteralExpression(arr) ? elementsArgv(arr.getElements(), taintOf) : { runtime: false };
}

function elementsArgv(els: Node[], taintOf: (e: Node) => Taint | undefined): { argv?: ArgvPosition; runtime: boolean } {
  const positions: (ArgvPosition | undefined)[] = [];
  let endOfOptions = false;
  let runtime = false;
  let prev: string | undefined;
  for (const el of els) {
    const spread = Node.isSpreadElement(el);
    const t = taintOf(spread ? el.getExpression() : el);
    const lit = spread ? undefined : constString(el)?.value;
    if (t) {
      // A resolved path (path.resolve/join, realpath) is absolute: not read as an option either.
      // A file the client's text was written to is a script, wherever it sits.
      if (t.codeFile) positions.push('code');
      else if (endOfOptions || t.resolved) positions.push('safe');
      else if (spread) positions.push(t.argv);
      else if (prev !== undefined && CODE_FLAGS.has(prev)) positions.push('code');
      else if (prev !== undefined && /^-{1,2}[A-Za-z][\w-]*$/.test(prev)) positions.push('safe');
      else positions.push(gluedAfterText(el) ? 'safe' : 'option');
    } else if (lit === '--' || lit === '--end-of-options') endOfOptions = true;
    else if (lit !== undefined && isRuntime(lit)) runtime = true;
    prev = lit;
  }
  return { argv: positions.length ? worstArgv(positions) : 'safe', runtime };
}

/**
 * A template or concatenation that starts with fixed text, the value glued after it (`ref:${x}`,
 * `--namespace=${ns}`, `-n${n}`): the value cannot begin the element. Not when the fixed text is only dashes
 * (`--${name}`: the value names the option).
 */
function gluedAfterText(el: Node): boolean {
  const pieces = piecesOf(unwrap(el));
  const head = pieces?.[0];
  return !!head && 'text' in head && head.text !== '' && !/^-+$/.test(head.text);
}

/**
 * The place of the values `arr.push(...)` adds to a local array, read as if they followed the array's initial
 * elements (`const args = ['get', '--']; args.push(name)` is after `--`).
 */
export function pushedArgv(decl: Identifier, call: Node, taintOf: (e: Node) => Taint | undefined): { argv?: ArgvPosition; runtime: boolean } {
  if (!Node.isCallExpression(call)) return { runtime: false };
  const init = initializerOf(decl);
  const before = init && Node.isArrayLiteralExpression(unwrap(init)) ? (unwrap(init) as ArrayLiteralExpression).getElements() : [];
  return elementsArgv([...before.filter((e) => !taintOf(e)), ...call.getArguments()], taintOf);
}
