import { ownPackage } from '../engine/paths.js';
import { ProbeCancelled } from './outcome.js';
import { capabilitiesOf, CLIENT_CAPABILITIES, CLIENT_INFO, envelope, exercisesOf, exploreServer, LEGACY, listAll, MODERN, resultOf, SKIP_INVALID_ARGUMENTS, type ExerciseOption, type ExerciseState } from './scenario.js';
import { SESSION_FORMAT, type Connection, type ConnectionLabel, type HttpExchange, type RecordedSession } from './session.js';
import { beginRun, endRun, launchPlan, newRunMarker } from './contain.js';
import { HttpConnection, send, type HttpTarget } from './http.js';
import { checkUrl } from './ssrf.js';
import { Deadline, DEFAULT_LIMITS, StdioConnection, type Limits, type RunContext, type StdioTarget } from './stdio.js';

export interface StdioProbeOptions {
  target: StdioTarget;
  /** Opt-ins beyond the default requests (scenario.ts): invalid arguments, read-only calls. */
  exercise?: ExerciseOption;
  /** Locales the package declares (C-20): one more connection each, started with LANG/LC_ALL set to it. */
  locales?: string[];
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  onStep?: (step: string) => void;
}

/** A connection the overall deadline left no time for: recorded, so every era keeps its place in the session. */
function skipped(label: ConnectionLabel): Connection {
  return { label, outcome: 'timeout', detail: 'deadline', messages: [], noise: [], stderr: '', truncated: false, durationMs: 0 };
}

/** The session says when the overall limit cut the probe short. */
function deadlineAction(deadline: Deadline): RecordedSession['actions'] {
  return deadline.hit ? [{ kind: 'deadline', detail: `overall limit of ${deadline.ms} ms reached: later requests were not sent` }] : [];
}

export { ProbeCancelled };

const posixLocale = (locale: string) => `${locale}_${locale.toUpperCase()}.UTF-8`;

/** A version no server supports, to see whether it counter-offers one it does (S-14). */
export const FUTURE_VERSION = '2099-01-01';
/** Counter-offers after which the negotiation connection lists tools (revisions whose tools/list this probe speaks). */
const NEGOTIATED_LISTING: readonly string[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

async function onConnection(
  label: ConnectionLabel,
  opts: StdioProbeOptions,
  limits: Limits,
  run: RunContext,
  body: (c: StdioConnection) => Promise<void>,
): Promise<Connection> {
  if (run.deadline.expired) {
    run.deadline.hit = true;
    return skipped(label);
  }
  // Connections run at once: each has its own marker, so that ending one kills its processes and no other's.
  const own: RunContext = { ...run, marker: newRunMarker() };
  beginRun(own.marker);
  const c = new StdioConnection(label, opts.target, limits, own);
  const onAbort = () => void c.close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (c.start()) await body(c);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await c.close();
    endRun(own.marker);
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
  const plan = await launchPlan();
  const run: RunContext = { plan, marker: newRunMarker(), deadline: new Deadline(limits.overallMs) };
  beginRun(run.marker);
  try {
    return await stdioScenario(opts, limits, run);
  } finally {
    // Anything of this run still alive (a daemon that left every connection's tree) is killed here.
    endRun(run.marker);
  }
}

async function stdioScenario(opts: StdioProbeOptions, limits: Limits, run: RunContext): Promise<RecordedSession> {
  const started = Date.now();
  // The opening request also waits for the program to start (a cold npx, a large bundle): it may take the
  // connection's whole budget, later requests one request timeout each.
  const opening = Math.max(limits.requestTimeoutMs, limits.connectionTimeoutMs);
  const actions: RecordedSession['actions'] = [];
  const step = (s: string) => opts.onStep?.(s);
  const check = () => {
    if (opts.signal?.aborted) throw new ProbeCancelled();
  };

  const exercise: ExerciseState = { mode: opts.exercise, done: !opts.exercise };
  // Each era keeps its own list of actions, joined in a fixed order below, so that connections run at once still
  // give the same session.
  const modernActions: RecordedSession['actions'] = [];
  const legacyActions: RecordedSession['actions'] = [];
  // The two eras and the version negotiation start at once (every probe needs the three); the locales start once
  // an era has its first answer (or gave up): a target that never answers is started three times, not once per
  // connection.
  let opened!: () => void;
  const firstAnswer = new Promise<void>((r) => (opened = r));
  const runModern = () =>
    onConnection('modern', opts, limits, run, async (c) => {
      step('server/discover');
      const a = await c.request('server/discover', envelope(), opening);
      opened();
      outcome(c, a);
      const r = resultOf(a);
      if (r) await exploreServer(c, capabilitiesOf(r), (x) => envelope(x), modernActions, (s) => step(`2026-07-28 ${s}`), exercise);
    });
  const runLegacy = () =>
    onConnection('legacy', opts, limits, run, async (c) => {
      step('initialize');
      const a = await c.request('initialize', { protocolVersion: LEGACY, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO }, opening);
      opened();
      outcome(c, a);
      const r = resultOf(a);
      if (r) {
        c.notify('notifications/initialized');
        await exploreServer(c, capabilitiesOf(r), (x) => x ?? {}, legacyActions, (s) => step(`2025-06-18 ${s}`), exercise);
      }
    });
  const runNegotiation = () =>
    onConnection('negotiation', opts, limits, run, async (c) => {
      step('version negotiation');
      const a = await c.request('initialize', { protocolVersion: FUTURE_VERSION, capabilities: {}, clientInfo: CLIENT_INFO }, opening);
      outcome(c, a);
      // A server that counter-offers a 2025-era revision is a third launch already running: its tools are listed once
      // (walked to the end), so that X-11 compares the catalog's order across launches even when only the
      // 2025-06-18 era answers. Nothing else is asked on this connection.
      const r = resultOf(a);
      if (r && typeof r.protocolVersion === 'string' && NEGOTIATED_LISTING.includes(r.protocolVersion) && capabilitiesOf(r).tools) {
        c.notify('notifications/initialized');
        step('tools/list (negotiated revision)');
        await listAll(c, 'tools/list', (x) => x ?? {});
      }
    });
  const localeList = (opts.locales ?? []).slice(0, 3);
  const runLocale = (locale: string) => async (): Promise<Connection> => {
    step(`locale ${locale}`);
    const posix = posixLocale(locale);
    const env = { ...opts.target.env, LANG: posix, LC_ALL: posix, LC_MESSAGES: posix };
    const conn = await onConnection('locale', { ...opts, target: { ...opts.target, env } }, limits, run, async (c) => {
      const a = await c.request('initialize', { protocolVersion: LEGACY, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO }, opening);
      outcome(c, a);
      if (resultOf(a)) {
        c.notify('notifications/initialized');
        await c.request('tools/list', {});
      }
    });
    return { ...conn, locale };
  };

  // The connections are independent processes: the eras and the negotiation at once, the locales after the first
  // answer, so the probe costs about one start of the target when it answers, not one per connection. The read-only opt-in calls tools
  // on the first era that lists them, so with it the 2026-07-28 era goes before the 2025-06-18 one, as a client would.
  check();
  const ordered = exercisesOf(opts.exercise).includes('read-only');
  const modernDone = runModern().finally(opened);
  const after = <T>(f: () => Promise<T>) => firstAnswer.then(f);
  const eras = ordered
    ? [async () => [await modernDone, await runLegacy()]]
    : [async () => [await modernDone], async () => [await runLegacy().finally(opened)]];
  const all = await Promise.all([...eras.map((e) => e()), runNegotiation().then((c) => [c]), ...localeList.map((l) => after(runLocale(l)).then((c) => [c]))]);
  const conns = all.flat();
  // A program that cannot run twice at once (a lock file, a fixed port) exits on the second start: a connection
  // that ended that way while another answered is run again, alone.
  const answered = conns.some((c) => c.outcome === 'answered' || c.outcome === 'refused');
  const reruns: RecordedSession['actions'] = [];
  const rerun = [runModern, runLegacy, runNegotiation, ...localeList.map(runLocale)];
  for (let i = 0; i < conns.length; i++) {
    const c = conns[i]!;
    if (!answered || c.outcome !== 'exited' || c.messages.some((m) => m.dir === 'in') || run.deadline.expired) continue;
    check();
    if (c.label === 'modern') modernActions.length = 0;
    if (c.label === 'legacy') legacyActions.length = 0;
    conns[i] = await rerun[i]!();
    reruns.push({ kind: 'rerun-alone', detail: `${c.label}${c.locale ? ` ${c.locale}` : ''}: exited without answering while another connection was open` });
  }
  const [modern, legacy, negotiation, ...localeConnections] = conns as [Connection, Connection, Connection, ...Connection[]];
  actions.push(...modernActions);
  // Said once per probe, not once per era (scenario.ts): the second era's copy is dropped.
  for (const a of legacyActions) if (!(a.kind === SKIP_INVALID_ARGUMENTS && modernActions.some((m) => m.kind === a.kind && m.detail === a.detail))) actions.push(a);
  for (const l of localeList) actions.push({ kind: 'locale', detail: `LANG=${posixLocale(l)}` });
  actions.push(...reruns);
  check();
  return {
    format: SESSION_FORMAT,
    tool: ownPackage(),
    target: { transport: 'stdio', command: [opts.target.command, ...opts.target.args], cwd: opts.target.cwd },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    actions: [...actions, ...deadlineAction(run.deadline)],
    connections: [modern, legacy, negotiation, ...localeConnections],
    containment: { method: run.plan.method, ...(run.plan.reason ? { reason: run.plan.reason } : {}) },
  };
}

export interface HttpProbeOptions {
  url: string;
  exercise?: ExerciseOption;
  headers?: Record<string, string>;
  allowPrivate?: boolean;
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  onStep?: (step: string) => void;
}

export class SsrfRefused extends Error {
  constructor(
    readonly code: string,
    readonly data: Record<string, string>,
  ) {
    super(code);
  }
}

/** Probe a Streamable HTTP endpoint: both eras, version negotiation, then transport checks (Origin, headers, auth). */
export async function probeHttp(opts: HttpProbeOptions): Promise<RecordedSession> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const verdict = await checkUrl(opts.url, { allowPrivate: !!opts.allowPrivate });
  if (!verdict.ok) throw new SsrfRefused(verdict.code, verdict.data);
  const target: HttpTarget = { url: verdict.url, address: verdict.address, family: verdict.family, addresses: verdict.addresses, headers: { ...(opts.headers ?? {}) } };
  const started = Date.now();
  const deadline = new Deadline(limits.overallMs);
  const actions: RecordedSession['actions'] = [];
  const step = (s: string) => opts.onStep?.(s);
  const check = () => {
    if (opts.signal?.aborted) throw new ProbeCancelled();
  };

  const exercise: ExerciseState = { mode: opts.exercise, done: !opts.exercise };
  check();
  step('server/discover');
  const m = new HttpConnection('modern', target, limits, true, deadline);
  const a = await m.request('server/discover', envelope());
  httpOutcome(m, a);
  const dr = resultOf(a);
  if (dr) await exploreServer(m, capabilitiesOf(dr), (x) => envelope(x), actions, (s) => step(`2026-07-28 ${s}`), exercise);
  const modern = m.close();

  check();
  step('initialize');
  const l = new HttpConnection('legacy', target, limits, false, deadline);
  const la = await l.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO });
  httpOutcome(l, la);
  const lr = resultOf(la);
  if (lr) {
    const sid = l.record.http?.at(-1)?.response?.headers['mcp-session-id'];
    if (sid) l.sticky['mcp-session-id'] = sid;
    l.sticky['mcp-protocol-version'] = typeof lr.protocolVersion === 'string' ? lr.protocolVersion : LEGACY;
    await l.notify('notifications/initialized');
    await exploreServer(l, capabilitiesOf(lr), (x) => x ?? {}, actions, (s) => step(`2025-06-18 ${s}`), exercise);
  }
  const legacy = l.close();

  check();
  step('version negotiation');
  const n = new HttpConnection('negotiation', target, limits, false, deadline);
  httpOutcome(n, await n.request('initialize', { protocolVersion: FUTURE_VERSION, capabilities: {}, clientInfo: CLIENT_INFO }));
  const negotiation = n.close();

  check();
  step('transport checks');
  const body = (meta: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id: 'mcp-doctor-check', method: 'server/discover', params: envelope({ _meta: meta }) });
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' };
  const t = { timeoutMs: limits.requestTimeoutMs, started, deadline };
  const httpChecks: HttpExchange[] = [];
  const check1 = async (opts: Parameters<typeof send>[1]) => {
    // Past the overall deadline the remaining checks are not sent (the session's `deadline` action says so).
    if (deadline.expired) deadline.hit = true;
    else httpChecks.push(await send(target, opts));
  };
  await check1({ ...t, label: 'hostile-origin', headers: { ...base, origin: 'http://evil.example' }, body: body() });
  await check1({
    ...t,
    label: 'unsupported-protocol-version',
    headers: { ...base, 'mcp-protocol-version': '1999-01-01' },
    body: body({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }),
  });
  await check1({ ...t, label: 'header-mismatch', headers: { ...base, 'mcp-method': 'tools/list' }, body: body() });
  await check1({ ...t, label: 'protected-resource-metadata', method: 'GET', path: '/.well-known/oauth-protected-resource', headers: { accept: 'application/json' } });
  actions.push({ kind: 'http-checks', detail: 'hostile Origin, unsupported MCP-Protocol-Version, Mcp-Method mismatch, /.well-known/oauth-protected-resource' });
  if (modern.http?.some((x) => x.response?.status === 401)) {
    // The server protects itself: forged tokens must be refused (S-5). No real credential is ever sent.
    for (const [label, token] of forgedTokens(verdict.url.href)) {
      await check1({ ...t, label, headers: { ...base, authorization: `Bearer ${token}` }, body: body() });
    }
    actions.push({ kind: 'forged-tokens', detail: 'alg none, bad signature' });
  }
  actions.push(...deadlineAction(deadline));
  return {
    format: SESSION_FORMAT,
    tool: ownPackage(),
    target: { transport: 'http', url: verdict.url.href },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    actions,
    connections: [modern, legacy, negotiation],
    httpChecks,
  };
}

function httpOutcome(c: HttpConnection, a: Awaited<ReturnType<HttpConnection['request']>>): void {
  if (a.kind === 'timeout') c.record.outcome = 'timeout';
  else if (a.kind === 'closed') {
    c.record.outcome = 'http-error';
    c.record.detail = c.record.http?.at(-1)?.error;
  } else if (a.message.error) {
    c.record.outcome = 'refused';
    const e = a.message.error as { code?: unknown; data?: { httpStatus?: unknown } };
    c.record.detail = e.data?.httpStatus !== undefined ? `HTTP ${String(e.data.httpStatus)}` : String(e.code);
  } else c.record.outcome = 'answered';
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Tokens no correct resource server accepts: unsigned (alg none) and signed with a key nobody holds. */
export function forgedTokens(audience: string): [string, string][] {
  const claims = { iss: 'https://mcp-doctor.invalid', aud: audience, sub: 'mcp-doctor-probe', exp: Math.floor(Date.now() / 1000) + 300 };
  const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
  const bad = `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'mcp-doctor' })}.${b64url(claims)}.${Buffer.from('not-a-signature').toString('base64url')}`;
  return [
    ['token-alg-none', none],
    ['token-bad-signature', bad],
  ];
}
