/**
 * Language runtimes and shells, by program name: shared by the argument-array reading (argv.ts) and the sinks
 * (sinks.ts), which import each other's other exports otherwise.
 */

/** Language runtimes (and shells) that run code given on their command line or in a script file. */
const RUNTIMES = new Set([
  'python', 'python2', 'python3', 'py', 'node', 'nodejs', 'bun', 'deno', 'ruby', 'perl', 'php', 'Rscript', 'osascript', 'lua', 'julia', 'tsx', 'ts-node',
  'sh', 'bash', 'zsh', 'pwsh', 'powershell',
]);
/** Is this the name (or path) of a language runtime: `python3`, `/usr/bin/node`, `python3.12`? */
export function isRuntime(name: string): boolean {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '');
  return RUNTIMES.has(base) || /^python3?\.\d+$/.test(base);
}
