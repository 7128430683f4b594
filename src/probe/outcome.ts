import { stripVTControlCharacters } from 'node:util';
import { t } from '../engine/i18n.js';

/**
 * How a probe ends when it does not give a report (bad input, unreachable target, cancelled), apart from the
 * probe itself: the faces (CLI, MCP server) test for these without loading the probe or the analyser.
 */

export class ProbeInputError extends Error {
  constructor(
    readonly code: string,
    readonly data: Record<string, string> = {},
  ) {
    super(code);
  }
}

export class ProbeCancelled extends Error {
  constructor() {
    super('probe cancelled');
  }
}

/** Why the probe could not run: the program was not found, or the target never answered anything. */
export interface Unreachable {
  cause: 'not-found' | 'spawn-failed' | 'exited' | 'timeout' | 'http-error' | 'blocked';
  command?: string;
  cwd?: string;
  url?: string;
  exit?: { code: number | null; signal: string | null };
  /** The error of the first connection (spawn error, HTTP error), bounded. */
  error?: string;
  /** The tail of the server's stderr: bounded, control characters stripped. */
  stderr?: string;
  /** An http(s) URL the stdio target printed on stdout as where it listens: it serves HTTP, not stdio. */
  printedUrl?: string;
}

/**
 * The URL a silent stdio target says it listens on ("MCP server listening on http://localhost:3001/mcp"), from
 * its stdout lines that were not messages (bounded by the capture); undefined when none says so.
 */
export function printedHttpUrl(noise: readonly string[]): string | undefined {
  for (const line of noise) {
    if (!/\b(listen|serving|running|started|available)/i.test(line)) continue;
    const m = /https?:\/\/[^\s"'<>`]{1,300}/.exec(line);
    if (!m) continue;
    try {
      return new URL(m[0].replace(/[.,;:)\]]+$/, '')).href;
    } catch {
      /* not a URL */
    }
  }
  return undefined;
}

/** The target could not be reached at all (command not found, connection refused) or never answered. */
export class ProbeUnreachable extends Error {
  constructor(readonly data: Unreachable) {
    super(data.cause);
  }
  /** One line for logs and older callers. */
  get detail(): string {
    return [this.data.cause, this.data.command ?? this.data.url, this.data.error].filter(Boolean).join(': ');
  }
}

/**
 * The tail of a target's stderr, safe for a terminal and a report: escape sequences and control characters
 * (C0 but newline and tab, C1, bidirectional and other format characters) removed, at most `maxLines` lines and
 * `maxChars` characters from the end.
 */
export function stderrTail(s: string, maxLines = 20, maxChars = 2000): string {
  const clean = stripVTControlCharacters(s)
    .replace(/\r\n?/g, '\n')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => (c === '\n' ? c : c === '\t' ? ' ' : ''));
  const lines = clean.split('\n').map((l) => l.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  const tail = lines.slice(-maxLines).join('\n');
  return tail.length > maxChars ? '…' + tail.slice(-maxChars) : tail;
}

/** The message for an unreachable target, in `locale`: one line, then the stderr tail (each line through `quote`). */
export function unreachableText(u: Unreachable, locale: string, quote: (s: string) => string = (s) => s): string {
  const q = (s: string | undefined) => quote(s ?? '');
  let line: string;
  if (u.cause === 'not-found') line = t(locale, 'cli.errors.notFound', { command: q(u.command) });
  else {
    const why =
      u.cause === 'exited'
        ? u.exit?.signal
          ? t(locale, 'cli.errors.never.signal', { signal: q(String(u.exit.signal)) })
          : t(locale, 'cli.errors.never.exited', { code: q(String(u.exit?.code ?? '?')) })
        : t(locale, 'cli.errors.never.timeout');
    // Nothing to talk to (the connection or the start failed) is "could not be reached"; a program that ran and
    // said nothing (it exited or stayed silent) "never answered".
    line =
      u.cause === 'http-error' || u.cause === 'spawn-failed' || u.cause === 'blocked'
        ? t(locale, 'cli.errors.unreachable', { detail: `${q(u.command ?? u.url)}: ${q(u.error ?? u.cause)}` })
        : t(locale, 'cli.errors.neverAnswered', { target: q(u.command ?? u.url), why });
  }
  if (u.printedUrl) line += `\n${t(locale, 'cli.errors.printedUrl', { url: q(u.printedUrl) })}`;
  if (!u.stderr) return line;
  return `${line}\n${t(locale, 'cli.errors.stderrTail')}\n${u.stderr
    .split('\n')
    .map((l) => `  | ${quote(l)}`)
    .join('\n')}`;
}

