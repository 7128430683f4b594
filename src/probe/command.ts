import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import which from 'which';

/**
 * The program a command names, as the system would start it: a name with a slash is a path from the working
 * folder, a bare name is looked up in the target's PATH (which). Undefined when there is nothing to start.
 */
export function resolveCommand(command: string, cwd: string, env: Record<string, string>): string | undefined {
  if (command.includes('/') || (process.platform === 'win32' && command.includes('\\')) || isAbsolute(command)) {
    const file = resolve(cwd, command);
    try {
      if (!statSync(file).isFile()) return undefined;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      return undefined;
    }
  }
  return which.sync(command, { path: env.PATH ?? '', nothrow: true }) ?? undefined;
}
