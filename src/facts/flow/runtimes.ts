/**
 * Language runtimes and shells, by program name: shared by the argument-array reading (argv.ts) and the sinks
 * (sinks.ts), which import each other's other exports otherwise.
 */

/** Language runtimes (and shells) that run code given on their command line or in a script file. */
const RUNTIMES = new Set([
  'python', 'python2', 'python3', 'py', 'node', 'nodejs', 'bun', 'deno', 'ruby', 'perl', 'php', 'Rscript', 'osascript', 'lua', 'julia', 'tsx', 'ts-node',
  'sh', 'bash', 'zsh', 'pwsh', 'powershell',
  // Runtimes a code runner's table of executors names for other languages (`go run`, `dotnet fsi`, `swift`…).
  'go', 'dotnet', 'dart', 'swift', 'elixir', 'groovy', 'scala', 'kotlin', 'racket', 'tclsh',
]);
/** Is this the name (or path) of a language runtime: `python3`, `/usr/bin/node`, `python3.12`? */
export function isRuntime(name: string): boolean {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '');
  return RUNTIMES.has(base) || /^python3?\.\d+$/.test(base);
}

/**
 * Programs that are not language runtimes but run the commands given on their command line: the sqlite3 shell
 * reads `-cmd` text as a dot-command (`.shell`, `.system` start a program) unless it is started with `-safe`.
 */
const COMMAND_SHELLS = new Set(['sqlite3']);
/** Does this program run code given on its command line: a language runtime, or a command shell such as sqlite3? */
export function runsCommandLine(name: string): boolean {
  return isRuntime(name) || COMMAND_SHELLS.has((name.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, ''));
}

/** Subcommands after which those runtimes take the script to run (`go run`, `deno run -A`, `dotnet fsi`). */
const RUN_SUBCOMMANDS = new Set(['run', 'fsi', 'script']);
/** Options of those runtimes whose value is the next word (`powershell -ExecutionPolicy ByPass -File`). */
const VALUE_OPTIONS = new Set(['-ExecutionPolicy', '-executionpolicy']);

/**
 * Is a command text a language runtime with its options, ready to be given a script (`python3 -u`, `go run`,
 * `powershell -ExecutionPolicy ByPass -File`), and not a runtime given a script of its own (`python3 convert.py`)?
 */
export function isRuntimeCommand(line: string): boolean {
  const words = line.trim().split(/\s+/);
  if (!isRuntime(words[0] ?? '')) return false;
  return words.slice(1).every((w, i) => w.startsWith('-') || RUN_SUBCOMMANDS.has(w) || VALUE_OPTIONS.has(words[i] ?? ''));
}
