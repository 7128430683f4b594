import { createRequire } from 'node:module';
import type { LogFn, Logger } from 'pino';

/**
 * Structured logs go to stderr only: stdout is the protocol channel when serving stdio.
 *
 * pino is loaded on the first message at or above the level (MCP_DOCTOR_LOG_LEVEL, default `warn`), not when a
 * command starts: `serve` answers `initialize` without it, and most runs log nothing.
 */
const LEVEL = process.env.MCP_DOCTOR_LOG_LEVEL ?? 'warn';
/** pino's default level values; an unknown level name loads pino at once, which rejects it. */
const VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const THRESHOLD = VALUES[LEVEL] ?? -Infinity;

let real: Logger | undefined;
function logger(): Logger {
  if (!real) {
    const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino');
    real = pino({ name: 'mcp-doctor', level: LEVEL }, pino.destination({ dest: 2, sync: true }));
  }
  return real;
}

type Level = 'debug' | 'info' | 'warn' | 'error';
const at = (level: Level): LogFn =>
  ((...args: unknown[]) => {
    if (VALUES[level]! >= THRESHOLD) (logger()[level] as (...a: unknown[]) => void)(...args);
  }) as LogFn;

export const log: Pick<Logger, Level> = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
