import { Node, type ArrayLiteralExpression, type Identifier } from '../morph.js';
import { declarationOf, initializerOf } from '../scope.js';
import { constString } from '../server-model.js';
import { unwrap } from '../ts-source.js';
import { possibleStrings } from './sinks.js';
import { isRuntime, isRuntimeCommand } from './runtimes.js';
import type { ParsedSources } from '../ts-source.js';
import { piecesOf, worstArgv, type ArgvPosition, type Taint } from './taint.js';

/**
 * Taint flow (facts/flow.ts), argument arrays: where a client value sits in the argument array of a program
 * started without a shell (`execFile('kubectl', ['get', kind, name])`), which decides whether it may be read
 * as an option (X-4's third red: a value starting with `-`), and whether it is code handed to a language
 * runtime (`spawn('python3', ['-c', code])`, `node -e`).
 */

/**
 * The flags after which those runtimes read code (`python -c`, `node -e`/`-p`, `ruby -e`, `perl -e`, `php -r`,
 * `deno eval`), and sqlite3's `-cmd` (a dot-command: `.shell`, `.system`).
 */
const CODE_FLAGS = new Set(['-c', '-e', '-E', '--eval', '-p', '--print', '-r', 'eval', '-cmd']);
/** sqlite3's safe mode: its dot-commands that start programs or open files are refused. */
const SAFE_MODE = '-safe';

/**
 * Where the client's values sit in an array literal (see Taint.argv), given the taint of each element: a value
 * after a `--` element, glued after fixed text (`--namespace=${ns}`, `ref:${x}`; not `--${x}`),
 * or right after a fixed option (`-m`, `--message`: its value, which the program does not read as an option) is
 * 'safe'; after a code flag ('-c', '-e'…) it is 'code', except after sqlite3's `-cmd` in safe mode (`-safe`) or glued
 * after a fixed dot-command name that starts no program (see afterFixedDotCommand); anywhere else 'option'. A spread of a tainted array keeps
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
  const safeMode = els.some((e) => constString(e)?.value === SAFE_MODE);
  for (const el of els) {
    const spread = Node.isSpreadElement(el);
    const t = taintOf(spread ? el.getExpression() : el);
    const lit = spread ? undefined : constString(el)?.value;
    if (t) {
      // A resolved path (path.resolve/join, realpath) is absolute: not read as an option either.
      // A file the client's text was written to is a script, wherever it sits.
      if (t.codeFile) positions.push('code');
      else if (endOfOptions || t.resolved || t.codeDir || t.validated) positions.push('safe');
      else if (spread) positions.push(t.argv);
      else if (prev === '-cmd') positions.push(safeMode || afterFixedDotCommand(el) ? 'safe' : 'code');
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
 * sqlite3's dot-commands that start a program or load code: `.shell` and `.system` run their arguments, `.import`,
 * `.output`, `.once` and `.read` open a pipe to a program when their file begins with `|`, `.load` loads a shared
 * library. The shell takes any unambiguous prefix of a command name (`.sys`), so a name written as a prefix of one of
 * these counts as one.
 */
const PROGRAM_DOT_COMMANDS = ['shell', 'system', 'import', 'output', 'once', 'read', 'load'];

/**
 * The value of sqlite3's `-cmd` glued after a fixed dot-command name and a space (`.mode ${mode}`,
 * `.separator "${sep}"`): one `-cmd` string is one dot-command line, whose name the fixed text sets; the value is
 * only that command's arguments and cannot start another (`.shell`). Not when the fixed command is one that starts a
 * program or loads code itself (PROGRAM_DOT_COMMANDS), nor when the fixed text is not a dot-command (`${line}`,
 * `.${name} …`, SQL text).
 */
function afterFixedDotCommand(el: Node): boolean {
  const pieces = piecesOf(unwrap(el));
  const head = pieces?.[0];
  if (!head || !('text' in head)) return false;
  const m = /^\.([A-Za-z]+)\s/.exec(head.text);
  if (!m) return false;
  const name = m[1]!.toLowerCase();
  return !PROGRAM_DOT_COMMANDS.some((c) => c.startsWith(name));
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

/** Words that end one command of a shell line and start the next (`cd dir && python main.py`). */
const SHELL_SEPARATOR = /^(?:&&|\|\||;|\||&)$/;

/**
 * Does a shell command line run a script the client's text was written to: a language runtime (a word written
 * in the line, or a value picked from a table written in the code: `${executor} "${file}"` with
 * `EXECUTORS = { python: 'python3 -u', … }`) followed, after its flags, by that file (`isCode`), or by a file
 * named in the line after a `cd` into the folder it was written into (`isDir`: `cd ${dir} && python main.py`).
 * A runtime given another script, with the file as its data (`python3 convert.py ${file}`), is not.
 */
export function shellRunsScript(line: Node, isCode: (e: Node) => boolean, isDir: (e: Node) => boolean, sources?: ParsedSources): boolean {
  let u = unwrap(line);
  if (Node.isIdentifier(u)) {
    const d = declarationOf(u);
    const init = d && initializerOf(d);
    if (init) u = unwrap(init);
  }
  const pieces = piecesOf(u);
  if (!pieces) return false;
  // The line as words; a word is the texts and values glued together (`"${file}"` is one word).
  type Word = { text: string; code: boolean; dir: boolean; runtime: boolean };
  const words: Word[] = [];
  let cur: Word | undefined;
  const end = (): void => {
    if (cur) words.push(cur);
    cur = undefined;
  };
  const word = (): Word => (cur ??= { text: '', code: false, dir: false, runtime: false });
  for (const p of pieces) {
    if ('text' in p) {
      const parts = p.text.split(/(\s+|&&|\|\||;)/);
      for (const part of parts) {
        if (part === '') continue;
        if (/^\s+$/.test(part)) end();
        else if (SHELL_SEPARATOR.test(part)) {
          end();
          words.push({ text: part, code: false, dir: false, runtime: false });
        } else word().text += part.replace(/["']/g, '');
      }
    } else {
      const w = word();
      if (isCode(p.expr)) w.code = true;
      else if (isDir(p.expr)) w.dir = true;
      else {
        // A program picked from a table or a constant: `python3 -u` is the runtime and its flags. A table of
        // executors by language (possibly in another module) runs the file when one of its entries is a runtime:
        // the client's language picks that entry.
        const values = possibleStrings(p.expr, 0, sources);
        if (values.some(isRuntimeCommand)) w.runtime = true;
        else w.text += '\0';
      }
    }
  }
  end();
  let inDir = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.text === 'cd' && words[i + 1]?.dir) inDir = true;
    const runtime = w.runtime || (!w.code && !w.dir && isRuntime(w.text));
    if (!runtime) continue;
    let j = i + 1;
    while (j < words.length && !words[j]!.code && !words[j]!.dir && words[j]!.text.startsWith('-') && !SHELL_SEPARATOR.test(words[j]!.text)) j++;
    const script = words[j];
    if (!script || SHELL_SEPARATOR.test(script.text)) continue;
    if (script.code) return true;
    if (inDir && !script.dir && /^[\w.-]+$/.test(script.text)) return true;
  }
  return false;
}

/**
 * A program and its argument array joined into a shell line (`spawn(EXECUTORS[lang], [file], { shell: true })`):
 * the program is a language runtime and its first operand, after its flags, is the file holding the client's text.
 */
export function argvRunsScript(program: Node, argv: Node, isCode: (e: Node) => boolean, sources?: ParsedSources): boolean {
  const values = possibleStrings(program, 0, sources);
  if (!values.some(isRuntimeCommand)) return false;
  const u = unwrap(argv);
  const d = Node.isIdentifier(u) ? declarationOf(u) : undefined;
  const list = Node.isArrayLiteralExpression(u) ? u : d ? initializerOf(d) : undefined;
  const els = list && Node.isArrayLiteralExpression(unwrap(list)) ? (unwrap(list) as ArrayLiteralExpression).getElements() : [];
  const first = els.find((e) => !(constString(e)?.value ?? '').startsWith('-') || constString(e) === undefined);
  return !!first && isCode(first);
}
