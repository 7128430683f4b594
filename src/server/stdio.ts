import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { defaultLocale, t } from '../engine/i18n.js';
import { log } from '../engine/log.js';
import { buildServer } from './build.js';
import { boundedStdioTransport, type Rejection } from './bounded-stdio.js';

const WIRE_KEY: Record<Rejection['cause'], string> = { 'too-large': 'tooLarge', 'not-json': 'notJson', 'not-json-rpc': 'notJsonRpc' };

/**
 * Serve over stdio through the SDK's era-aware entry point (2026-07-28 and the 2025-06-18 floor), reading stdin
 * through a bounded line reader: an oversized or malformed message gets a JSON-RPC error, and the server stays up.
 */
export async function serve(): Promise<void> {
  const locale = defaultLocale();
  const transport = boundedStdioTransport({
    message: (r, limit) => t(locale, `server.wire.${WIRE_KEY[r.cause]}`, { limit, size: r.size ?? 0 }),
    onRejected: (r) => log.warn({ cause: r.cause, size: r.size, code: r.code }, 'inbound message rejected'),
  });
  const handle = serveStdio(() => buildServer(), { transport, onerror: (e) => log.error({ err: e }, 'transport error') });
  const stop = () => {
    void Promise.resolve(handle.close()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
