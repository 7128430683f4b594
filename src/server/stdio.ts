import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { log } from '../engine/log.js';
import { buildServer } from './build.js';

/** Serve over stdio through the SDK's era-aware entry point (2026-07-28 and the 2025-06-18 floor). */
export async function serve(): Promise<void> {
  const handle = serveStdio(() => buildServer(), { onerror: (e) => log.error({ err: e }, 'transport error') });
  const stop = () => {
    void Promise.resolve(handle.close()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
