import { pino } from 'pino';

/** Structured logs go to stderr only: stdout is the protocol channel when serving stdio. */
export const log = pino(
  { name: 'mcp-doctor', level: process.env.MCP_DOCTOR_LOG_LEVEL ?? 'warn' },
  pino.destination({ dest: 2, sync: true }),
);
