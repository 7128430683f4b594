import { ownPackage } from '../engine/paths.js';
import { capabilitiesOf, CLIENT_INFO, envelope, exploreServer, LEGACY, resultOf } from './scenario.js';
import { SESSION_FORMAT, type Connection, type ConnectionLabel, type RecordedSession } from './session.js';
import { DEFAULT_LIMITS, StdioConnection, type Limits, type StdioTarget } from './stdio.js';

export interface StdioProbeOptions {
  target: StdioTarget;
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  onStep?: (step: string) => void;
}

export class ProbeCancelled extends Error {
  constructor() {
    super('probe cancelled');
  }
}

/** A version no server supports, to see whether it counter-offers one it does (S-14). */
export const FUTURE_VERSION = '2099-01-01';

async function onConnection(
  label: ConnectionLabel,
  opts: StdioProbeOptions,
  limits: Limits,
  body: (c: StdioConnection) => Promise<void>,
): Promise<Connection> {
  const c = new StdioConnection(label, opts.target, limits);
  const onAbort = () => void c.close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (c.start()) await body(c);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await c.close();
  }
  return c.record;
}

function outcome(c: StdioConnection, a: Awaited<ReturnType<StdioConnection['request']>>): void {
  if (c.record.outcome === 'spawn-failed') return;
  if (a.kind === 'timeout') c.record.outcome = 'timeout';
  else if (a.kind === 'closed') c.record.outcome = 'exited';
  else if (a.message.error) {
    c.record.outcome = 'refused';
    c.record.detail = String((a.message.error as { code?: unknown }).code);
  } else c.record.outcome = 'answered';
}

/** Probe a stdio server: the 2026-07-28 era, the 2025-06-18 era and a version negotiation, each on its own process. */
export async function probeStdio(opts: StdioProbeOptions): Promise<RecordedSession> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const started = Date.now();
  const actions: RecordedSession['actions'] = [];
  const step = (s: string) => opts.onStep?.(s);
  const check = () => {
    if (opts.signal?.aborted) throw new ProbeCancelled();
  };

  check();
  step('server/discover');
  const modern = await onConnection('modern', opts, limits, async (c) => {
    const a = await c.request('server/discover', envelope());
    outcome(c, a);
    const r = resultOf(a);
    if (r) await exploreServer(c, capabilitiesOf(r), (x) => envelope(x), actions, (s) => step(`2026-07-28 ${s}`));
  });
  check();
  step('initialize');
  const legacy = await onConnection('legacy', opts, limits, async (c) => {
    const a = await c.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO });
    outcome(c, a);
    const r = resultOf(a);
    if (r) {
      c.notify('notifications/initialized');
      await exploreServer(c, capabilitiesOf(r), (x) => x ?? {}, actions, (s) => step(`2025-06-18 ${s}`));
    }
  });
  check();
  step('version negotiation');
  const negotiation = await onConnection('negotiation', opts, limits, async (c) => {
    const a = await c.request('initialize', { protocolVersion: FUTURE_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    outcome(c, a);
  });
  check();
  return {
    format: SESSION_FORMAT,
    tool: ownPackage(),
    target: { transport: 'stdio', command: [opts.target.command, ...opts.target.args], cwd: opts.target.cwd },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    actions,
    connections: [modern, legacy, negotiation],
  };
}
