import type { ReadCause } from '../facts/safe-read.js';
import { t } from './i18n.js';

/** The audit's own errors, in a module of their own: the faces test for them without loading the analyser. */

export class UnknownRuleError extends Error {
  constructor(readonly ids: string[]) {
    super(`unknown rule id(s): ${ids.join(', ')}`);
  }
}

export class AuditCancelled extends Error {
  constructor() {
    super('audit cancelled');
  }
}

/** The audited root exists but cannot be listed: the audit cannot run (exit 3 / a tool error), never "no source". */
export class RootUnreadable extends Error {
  constructor(readonly path: string) {
    super('the folder to audit could not be read');
  }
}

/**
 * A config file (or the baseline it names) that cannot be used. `file` is the path as the user would name it
 * (relative to the audited root when inside it), `cause` says why a file was not read at all, `issues` say
 * what is wrong in one that was read. Neither ever holds the file's content.
 */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: string[],
    readonly cause?: ReadCause | 'invalid-json',
  ) {
    super(`${file}: ${cause ?? issues.join('; ')}`);
  }
}

/** The localized text of a ConfigError (CLI and MCP tool alike). */
export function configErrorText(e: ConfigError, locale: string): string {
  if (e.cause) return t(locale, 'cli.errors.configUnread', { file: e.file, cause: e.cause, detail: e.issues.join('; ') });
  return t(locale, 'cli.errors.config', { file: e.file, issues: e.issues.join('; ') });
}
