import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { AppBridge, type McpUiHostCapabilities } from '@modelcontextprotocol/ext-apps/app-bridge';
import { log } from '../engine/log.js';
import { ownPackage } from '../engine/paths.js';
import { sample, validator } from '../probe/exercise.js';
import { isReadOnlyClosedWorld, resultOf } from '../probe/scenario.js';
import type { JsonRpc } from '../probe/session.js';
import { PageTransport } from './bridge.js';
import { locateChromium, launchChromium, BrowserMissing, type LaunchedBrowser } from './browser.js';
import { deriveCsp, uiMetaOf } from './csp.js';
import { within } from './within.js';
import { APP_MIME, appTools, callableByApp, type AppTool } from '../probe/apps-discover.js';
import { HOST_ORIGIN, OBSERVE_BINDING, SANDBOX_ORIGIN, VIEW_HEIGHT, VIEW_INIT_SCRIPT, VIEW_PATH, VIEW_SANDBOX, VIEW_WIDTH } from './host-pages.js';
import { listAll, openHostConnection, type HostConnection, type HostTarget } from './host-connection.js';
import { NetGuard } from './netguard.js';
import { APPS_RECORD_FORMAT, type AppsRecord, type AxeRun, type ClickRecord, type HarnessReason, type ViewRun } from '../probe/apps-record.js';

/**
 * The MCP Apps host harness: a minimal, strict host that renders each App the way the specification says a
 * web host must, and records what happens. For each App tool (a tool whose `_meta` links a `ui://` resource):
 * read the resource over the host's own MCP connection, render it in headless Chromium behind the sandbox
 * proxy under the CSP derived from its declared domains, answer the View's `ui/initialize` through the host
 * side of the bridge (`AppBridge`), send it the tool input and the tool result, run axe-core on the initial
 * render and after the result, click through its controls, and measure the first contentful paint, the bridge
 * round trip of the tool calls made from the UI and the JS heap after settling.
 *
 * The host forwards a View's tool call to the server only when the user allowed it (`--exercise app`: the App
 * tools themselves and tools annotated read-only closed-world; `--exercise read-only`: the latter), and never
 * one annotated destructive; any other call gets a tool error saying mcp-doctor did not run it. Nothing the
 * View asks for (links, messages, downloads) is carried out: it is recorded.
 *
 * Hostile Views are expected: every wait is bounded, the View runs in an opaque origin with no modals, no
 * popups, no top navigation, the network guard refuses everything outside our two origins, and the browser is
 * closed on every path.
 */

export interface HarnessLimits {
  maxViews: number;
  /** Bound on everything one View takes. */
  viewBudgetMs: number;
  /** Wait for the View's `ui/initialize` and `ui/notifications/initialized`. */
  initTimeoutMs: number;
  /** Wait for the first contentful paint. */
  paintTimeoutMs: number;
  /** Quiet time on the bridge that counts as settled, and the longest settling wait. */
  quietMs: number;
  settleMaxMs: number;
  axeTimeoutMs: number;
  maxControls: number;
  maxRevealed: number;
  /** Tool calls made from the UI for the round-trip figures. */
  roundTripCalls: number;
  callTimeoutMs: number;
  /** Bound on one evaluation in a frame (a View that loops forever never answers). */
  evalTimeoutMs: number;
  maxResourceBytes: number;
}

export const DEFAULT_HARNESS_LIMITS: HarnessLimits = {
  maxViews: 5,
  viewBudgetMs: 60_000,
  initTimeoutMs: 10_000,
  paintTimeoutMs: 10_000,
  quietMs: 400,
  settleMaxMs: 3000,
  axeTimeoutMs: 20_000,
  maxControls: 8,
  maxRevealed: 3,
  roundTripCalls: 10,
  callTimeoutMs: 10_000,
  evalTimeoutMs: 3000,
  maxResourceBytes: 12 * 1024 * 1024,
};

/**
 * The host connection's message limits for Views up to `maxResourceBytes`: a resources/read answer carries the
 * HTML JSON-escaped (a line, or an HTTP body, up to about twice its size), so the probe's own 4 MiB message limit
 * would refuse a View of a few MB before the resource limit is even looked at.
 */
export const hostMessageLimits = (maxResourceBytes: number) => {
  const line = 2 * maxResourceBytes + 1024 * 1024;
  return { maxLineBytes: line, maxBodyBytes: line, maxCaptureBytes: Math.max(64 * 1024 * 1024, 2 * line) };
};

/** A browser and its network guard, launched once and reused by several harness runs (tests, benchmarks). */
export interface HarnessBrowser {
  launched: LaunchedBrowser;
  guard: NetGuard;
  close(): Promise<void>;
}

export async function startHarnessBrowser(executable?: string): Promise<HarnessBrowser> {
  const guard = new NetGuard();
  await guard.start();
  try {
    const launched = await launchChromium({ executable: executable ?? (await locateChromium()), blackholePort: guard.blackholePort });
    return {
      launched,
      guard,
      close: async () => {
        await launched.close();
        await guard.stop();
      },
    };
  } catch (e) {
    await guard.stop();
    throw e;
  }
}

export interface HarnessOptions {
  target: HostTarget;
  /** The era the probe saw the server answer in (legacy preferred when both did: the Apps SDK's floor). */
  era: 'modern' | 'legacy';
  /** Opt-ins: 'app' forwards the App tools' calls; 'read-only' forwards read-only closed-world tools. */
  exercise: readonly string[];
  /** Where to save a PNG screenshot of each rendered View. */
  artifactsDir?: string;
  /** A browser to reuse (closed by its owner); else one is launched and closed here. */
  browser?: HarnessBrowser;
  /** A launch of the browser already under way (started while the probe's sessions ran); owned and closed here. */
  launching?: Promise<HarnessBrowser>;
  executable?: string;
  limits?: Partial<HarnessLimits>;
  locale?: string;
  signal?: AbortSignal;
  onStep?: (s: string) => void;
}

const bounded = <T>(p: Promise<T>, ms: number): Promise<T | undefined> =>
  within(p, ms, undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let axeSource: string | undefined;
function axe(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/** The record of a run that rendered nothing, and why. */
const skippedRecord = (reason: HarnessReason, exercise: readonly string[], started = Date.now()): AppsRecord => ({
  format: APPS_RECORD_FORMAT,
  skipped: reason,
  exercise: [...exercise],
  views: [],
  durationMs: Date.now() - started,
});

export function skippedApps(code: string, data?: Record<string, string | number>, exercise: readonly string[] = []): AppsRecord {
  return skippedRecord({ code, ...(data ? { data } : {}) }, exercise);
}

/** Views past maxViews whose served code is read without rendering them. */
const MAX_VIEWS_READ = 20;

export async function runHarness(opts: HarnessOptions): Promise<AppsRecord> {
  const started = Date.now();
  const limits = { ...DEFAULT_HARNESS_LIMITS, ...opts.limits };
  const step = (s: string) => opts.onStep?.(s);
  // The browser starts while the host connection opens and lists the tools (or earlier, by the caller): its
  // launch is the harness's largest fixed cost. Settled either way, so an unused or failed launch never throws.
  const launch = opts.browser ? undefined : (opts.launching ?? startHarnessBrowser(opts.executable)).then((b) => ({ b }), (e: unknown) => ({ e }));
  let launchTaken = false;
  const dropLaunch = async () => {
    if (!launch || launchTaken) return;
    launchTaken = true;
    const got = await launch;
    if ('b' in got) await got.b.close();
  };
  step('apps: host connection');
  const opened = await openHostConnection(opts.target, opts.era, { requestTimeoutMs: limits.callTimeoutMs, connectionTimeoutMs: 30 * 60_000, ...hostMessageLimits(limits.maxResourceBytes) });
  if (!opened.conn) {
    const rec = skippedRecord({ code: 'apps-host-connection-failed', data: { detail: opened.failure ?? '' } }, opts.exercise, started);
    rec.connection = opened.record;
    await dropLaunch();
    return rec;
  }
  const conn = opened.conn;
  let own: HarnessBrowser | undefined;
  try {
    const tools = await listAll(conn, 'tools/list', 'tools');
    const apps = appTools(tools);
    if (!apps.length) return { ...skippedRecord({ code: 'apps-no-ui-tool' }, opts.exercise, started), connection: await conn.close() };
    const listedResources = await listAll(conn, 'resources/list', 'resources');
    let hb = opts.browser;
    if (!hb) {
      step('apps: browser');
      try {
        launchTaken = true;
        const got = await launch!;
        if ('e' in got) throw got.e;
        hb = own = got.b;
      } catch (e) {
        const reason: HarnessReason =
          e instanceof BrowserMissing ? { code: 'apps-browser-missing', data: { tried: e.tried.join(', ') } } : { code: 'apps-browser-failed', data: { error: String((e as Error).message).split('\n')[0]!.slice(0, 300) } };
        return { ...skippedRecord(reason, opts.exercise, started), connection: await conn.close() };
      }
    }
    const views: ViewRun[] = [];
    const byName = new Map(tools.filter((t) => typeof t.name === 'string').map((t) => [t.name as string, t]));
    // Each distinct View first (one tool per ui:// resource), then the other tools of a View already chosen: an App
    // whose many tools share a few Views gets every View rendered within the bound.
    const firstOfView = apps.filter((a, i) => apps.findIndex((b) => b.link.uri === a.link.uri) === i);
    const order = [...firstOfView, ...apps.filter((a) => !firstOfView.includes(a))];
    for (const app of order.slice(0, limits.maxViews)) {
      if (opts.signal?.aborted) break;
      step(`apps: render ${app.name}`);
      const v = await renderOne(app, { conn, hb, limits, opts, byName, listedResources });
      views.push(v);
      if (v.outcome === 'unresponsive' && own) {
        // A View that hung its renderer may have left the browser in a bad state: start a fresh one.
        await own.close();
        hb = own = await startHarnessBrowser(opts.executable).catch(() => undefined);
        if (!hb) break;
      }
    }
    // The Views past the bound are read, not rendered: their served code is on the record (what they can call, A-7).
    for (const app of firstOfView.slice(limits.maxViews, limits.maxViews + MAX_VIEWS_READ)) {
      if (opts.signal?.aborted) break;
      step(`apps: read ${app.link.uri}`);
      await conn.request('resources/read', { uri: app.link.uri });
    }
    return {
      format: APPS_RECORD_FORMAT,
      browser: { executable: hb?.launched.executable ?? '', version: hb?.launched.version },
      exercise: [...opts.exercise],
      connection: await conn.close(),
      views,
      durationMs: Date.now() - started,
    };
  } finally {
    await conn.close();
    await own?.close();
    await dropLaunch();
  }
}

interface RenderCtx {
  conn: HostConnection;
  hb: HarnessBrowser;
  limits: HarnessLimits;
  opts: HarnessOptions;
  byName: Map<string, Record<string, unknown>>;
  listedResources: Record<string, unknown>[];
}

/** May the host forward a call of this tool to the server? */
function allowed(tool: Record<string, unknown> | undefined, exercise: readonly string[]): boolean {
  if (!tool || !callableByApp(tool)) return false;
  const a = (typeof tool.annotations === 'object' && tool.annotations !== null ? tool.annotations : {}) as Record<string, unknown>;
  if (a.destructiveHint === true) return false;
  if ((exercise.includes('app') || exercise.includes('read-only')) && isReadOnlyClosedWorld(tool as never)) return true;
  return exercise.includes('app') && appTools([tool]).length > 0;
}

/** Schema-valid arguments for a tool, or undefined. */
function argumentsFor(tool: Record<string, unknown>): Record<string, unknown> | undefined {
  const schema = (tool.inputSchema ?? { type: 'object' }) as object;
  const args = (sample(schema) ?? {}) as Record<string, unknown>;
  const v = validator(schema);
  if (typeof v !== 'function') return undefined;
  const r = v(args);
  return r.valid === true ? args : undefined;
}

async function readUi(ctx: RenderCtx, app: AppTool, view: ViewRun): Promise<string | undefined> {
  const a = await ctx.conn.request('resources/read', { uri: app.link.uri });
  const r = resultOf(a);
  const contents = r && Array.isArray(r.contents) ? (r.contents as Record<string, unknown>[]) : [];
  const c = contents.find((x) => x && x.uri === app.link.uri) ?? contents[0];
  if (!c) {
    view.read = 'failed';
    view.detail = a.kind === 'response' && a.message.error ? `error ${String((a.message.error as { code?: unknown }).code)}` : a.kind;
    return undefined;
  }
  const listed = ctx.listedResources.find((x) => x.uri === app.link.uri);
  view.uiMeta = uiMetaOf(c._meta) ?? uiMetaOf(listed?._meta);
  let html: string | undefined;
  if (typeof c.text === 'string') html = c.text;
  else if (typeof c.blob === 'string') html = Buffer.from(c.blob, 'base64').toString('utf8');
  if (html === undefined || html.trim() === '') {
    view.read = 'empty';
    return undefined;
  }
  const bytes = Buffer.byteLength(html);
  view.html = { bytes, gzipBytes: gzipSync(html, { level: 9 }).length, sha256: createHash('sha256').update(html).digest('hex'), ...(typeof c.mimeType === 'string' ? { mimeType: c.mimeType } : {}) };
  if (bytes > ctx.limits.maxResourceBytes) {
    view.read = 'too-large';
    view.limitBytes = ctx.limits.maxResourceBytes;
    return undefined;
  }
  if (typeof c.mimeType === 'string' && !c.mimeType.toLowerCase().startsWith('text/html')) {
    view.read = 'not-html';
    return undefined;
  }
  view.read = 'ok';
  return html;
}

function emptyView(app: AppTool): ViewRun {
  return {
    tool: app.name,
    resourceUri: app.link.uri,
    read: 'failed',
    outcome: 'not-rendered',
    initialCall: 'not-callable',
    bridge: [],
    parentMessages: [],
    network: [],
    globals: [],
    console: [],
    pageErrors: [],
    dialogs: [],
    axe: [],
    clicks: [],
    truncated: false,
    durationMs: 0,
  };
}

const originOf = (u: string): string => {
  try {
    const x = new URL(u);
    return x.origin === 'null' ? `${x.protocol}//${x.host}` : x.origin;
  } catch {
    return u.slice(0, 200);
  }
};
const ours = (u: string): boolean => u.startsWith(HOST_ORIGIN + '/') || u === HOST_ORIGIN || u.startsWith(`${SANDBOX_ORIGIN}/sandbox.html`) || u.startsWith('about:') || u.startsWith('data:') || u.startsWith('blob:');

async function renderOne(app: AppTool, ctx: RenderCtx): Promise<ViewRun> {
  const t0 = Date.now();
  const view = emptyView(app);
  const { limits, opts } = ctx;
  const html = await readUi(ctx, app, view);
  if (html === undefined) {
    view.durationMs = Date.now() - t0;
    return view;
  }
  const csp = deriveCsp(view.uiMeta);
  view.csp = csp.policy;

  // The tool call whose result the View gets: only on the user's opt-in (see the top of this file).
  const toolDef = ctx.byName.get(app.name) ?? app.tool;
  const args = argumentsFor(toolDef);
  let toolResult: Record<string, unknown> | undefined;
  if (!args) view.initialCall = 'not-callable';
  else {
    view.toolInput = args;
    if (!allowed(toolDef, opts.exercise)) view.initialCall = 'not-allowed';
    else {
      const a = await ctx.conn.request('tools/call', { name: app.name, arguments: args });
      toolResult = resultOf(a);
      view.initialCall = toolResult ? 'forwarded' : 'failed';
    }
  }

  let context: BrowserContext | undefined;
  const budget = setTimeout(() => void context?.close().catch(() => undefined), limits.viewBudgetMs);
  try {
    await renderInBrowser(app, ctx, view, html, csp, args, toolResult, (c) => (context = c));
  } catch (e) {
    if (view.outcome !== 'unresponsive') {
      view.outcome = view.outcome === 'rendered' ? 'rendered' : 'harness-error';
      view.detail = String((e as Error).message ?? e).split('\n')[0]!.slice(0, 300);
    }
    log.warn({ err: e, tool: app.name }, 'apps: rendering failed');
  } finally {
    clearTimeout(budget);
    if (context) await bounded(context.close(), 5000);
  }
  view.durationMs = Date.now() - t0;
  return view;
}

async function renderInBrowser(
  app: AppTool,
  ctx: RenderCtx,
  view: ViewRun,
  html: string,
  csp: ReturnType<typeof deriveCsp>,
  args: Record<string, unknown> | undefined,
  toolResult: Record<string, unknown> | undefined,
  setContext: (c: BrowserContext) => void,
): Promise<void> {
  const { limits, opts, hb } = ctx;
  const context = await hb.launched.browser.newContext({
    proxy: { server: `http://127.0.0.1:${hb.guard.port}`, bypass: '<-loopback>' },
    viewport: { width: VIEW_WIDTH, height: VIEW_HEIGHT },
    locale: opts.locale ?? 'en-US',
    timezoneId: 'UTC',
    serviceWorkers: 'block',
    acceptDownloads: false,
  });
  setContext(context);
  const id = randomBytes(8).toString('hex');
  const viewUrl = hb.guard.serveView(id, { html, csp: csp.policy });
  const guardFrom = hb.guard.records.length;
  const page: Page = await context.newPage();
  const transport = new PageTransport(page);
  const at = () => Date.now() - transport.base;
  const isView = (f: Frame | null | undefined) => !!f && f.url().startsWith(viewUrl);
  let fcp: number | undefined;
  let firstPaint: number | undefined;
  /** The View's time origin (epoch ms), to place its bridge messages on its own clock. */
  let origin: number | undefined;
  let sandboxReady!: () => void;
  const sandboxIsReady = new Promise<void>((r) => (sandboxReady = r));
  const MAXREC = 200;
  const push = <T>(list: T[], x: T) => {
    if (list.length < MAXREC) list.push(x);
    else view.truncated = true;
  };

  await context.exposeBinding('__mcpDoctorFromView', (source, text: unknown) => {
    if (source.frame === page.mainFrame() && typeof text === 'string') transport.fromView(text);
  });
  await context.exposeBinding('__mcpDoctorSandboxReady', (source) => {
    if (source.frame === page.mainFrame()) sandboxReady();
  });
  await context.exposeBinding(OBSERVE_BINDING, (source, text: unknown) => {
    if (!isView(source.frame) || typeof text !== 'string' || text.length > 4096) return;
    let o: { api?: unknown; detail?: unknown; at?: unknown };
    try {
      o = JSON.parse(text) as typeof o;
    } catch {
      return;
    }
    if (typeof o.api !== 'string') return;
    const detail = typeof o.detail === 'string' ? o.detail : undefined;
    if (o.api === 'paint:fcp' || o.api === 'paint:fp' || o.api === 'paint:origin') {
      const n = Number(detail);
      if (!Number.isFinite(n) || n < 0) return;
      if (o.api === 'paint:fcp') fcp ??= n;
      else if (o.api === 'paint:fp') firstPaint ??= n;
      else origin ??= n;
      return;
    }
    if (o.api.startsWith('csp:')) {
      if (detail && /^[a-z][a-z0-9+.-]*:/i.test(detail)) push(view.network, { url: detail.slice(0, 2048), origin: originOf(detail), via: 'csp', directive: o.api.slice(4, 60), at: at() });
      return;
    }
    push(view.globals, { api: o.api.slice(0, 60), ...(detail !== undefined ? { detail: detail.slice(0, 500) } : {}), at: at() });
  });
  await context.addInitScript(VIEW_INIT_SCRIPT);

  page.on('dialog', (d) => {
    push(view.dialogs, { type: d.type(), at: at() });
    void d.dismiss().catch(() => undefined);
  });
  page.on('popup', (p) => void p.close().catch(() => undefined));
  page.on('console', (m) => {
    const type = m.type();
    if (type !== 'error' && type !== 'warning') return;
    const url = m.location()?.url ?? '';
    if (!url.startsWith(viewUrl) && url !== '') return;
    push(view.console, { level: type, text: m.text().slice(0, 1000), at: at() });
  });
  page.on('pageerror', (e) => push(view.pageErrors, { text: String(e.message).slice(0, 1000), at: at() }));
  page.on('request', (r) => {
    const u = r.url();
    if (ours(u) || u === viewUrl) return;
    push(view.network, { url: u.slice(0, 2048), origin: originOf(u), via: 'request', kind: r.resourceType(), at: at() });
  });

  // The host side of the bridge.
  const hostCapabilities: McpUiHostCapabilities = {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    sandbox: { csp: { connectDomains: csp.declared.connectDomains, resourceDomains: csp.declared.resourceDomains, frameDomains: csp.declared.frameDomains, baseUriDomains: csp.declared.baseUriDomains } },
  } as McpUiHostCapabilities;
  const bridge = new AppBridge(null, { name: 'mcp-doctor', version: ownPackage().version }, hostCapabilities, {
    hostContext: {
      theme: 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { width: VIEW_WIDTH, maxHeight: VIEW_HEIGHT },
      locale: opts.locale ?? 'en-US',
      timeZone: 'UTC',
      platform: 'web',
      userAgent: 'mcp-doctor',
      toolInfo: { tool: ctx.byName.get(app.name) ?? app.tool },
    } as never,
  });
  let initialized!: () => void;
  const isInitialized = new Promise<void>((r) => (initialized = r));
  bridge.oninitialized = () => initialized();
  bridge.oncalltool = async (params) => {
    const name = typeof params?.name === 'string' ? params.name : '';
    const def = ctx.byName.get(name);
    if (!allowed(def, opts.exercise)) {
      return { content: [{ type: 'text', text: `mcp-doctor did not run the tool ${JSON.stringify(name).slice(0, 200)}: its host forwards only the tools the user allowed (--exercise).` }], isError: true } as never;
    }
    const a = await ctx.conn.request('tools/call', { name, arguments: (params.arguments ?? {}) as Record<string, unknown> });
    const r = resultOf(a);
    if (r) return r as never;
    throw new Error(a.kind === 'response' ? `tool error ${String((a.message.error as { code?: unknown })?.code)}` : `tool call ${a.kind}`);
  };
  bridge.onreadresource = async (params) => {
    const uri = typeof params?.uri === 'string' ? params.uri : '';
    const a = await ctx.conn.request('resources/read', { uri });
    const r = resultOf(a);
    if (r) return r as never;
    throw new Error('resource read failed');
  };
  bridge.onopenlink = async () => ({}) as never;
  bridge.onmessage = async () => ({}) as never;
  bridge.onupdatemodelcontext = async () => ({}) as never;
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' }) as never;
  bridge.ondownloadfile = async () => ({ isError: true }) as never;
  bridge.onloggingmessage = () => undefined;
  bridge.onsizechange = (p) => {
    void bounded(page.evaluate(([w, h]) => (window as unknown as { __mcpDoctorResize: (a: unknown, b: unknown) => boolean }).__mcpDoctorResize(w, h), [p.width, p.height] as const), 2000);
  };
  transport.onerror = (e) => log.debug({ err: e }, 'apps: bridge message refused');
  await bridge.connect(transport);

  try {
    await page.goto(`${HOST_ORIGIN}/`, { timeout: 15_000, waitUntil: 'domcontentloaded' });
    await bounded(sandboxIsReady, 10_000);
    transport.base = Date.now();
    await bounded(
      page.evaluate((m) => (window as unknown as { __mcpDoctorToSandbox: (x: unknown) => boolean }).__mcpDoctorToSandbox(m), {
        jsonrpc: '2.0',
        method: 'ui/notifications/sandbox-resource-ready',
        params: { src: viewUrl, sandbox: VIEW_SANDBOX, allow: '' },
      }),
      5000,
    );

    // Initialization, then the tool input.
    const init = await within(isInitialized.then(() => true), limits.initTimeoutMs, false);
    if (init && args) await bridge.sendToolInput({ arguments: args });
    const deadline = Date.now() + limits.paintTimeoutMs;
    while (fcp === undefined && Date.now() < deadline) await sleep(50);
    await settle(transport, limits);
    const frame = page.frames().find(isView);
    if (!frame) {
      view.outcome = 'not-rendered';
      view.detail = 'no-view-frame';
      return;
    }
    view.outcome = 'rendered';
    if (!init) view.detail = 'not-initialized';
    const cdp = await viewSession(context, page, frame);
    if (!(await alive(cdp, limits))) {
      view.outcome = 'unresponsive';
      return;
    }
    view.axe.push(await runAxe(cdp, frame, 'initial', limits));
    if (init) {
      if (toolResult) await bridge.sendToolResult(toolResult as never);
      else await bridge.sendToolCancelled({ reason: view.initialCall === 'not-allowed' ? 'mcp-doctor calls tools only with --exercise app' : 'no arguments could be generated for the tool' });
      await settle(transport, limits);
      if (toolResult) view.axe.push(await runAxe(cdp, frame, 'after-result', limits));
    }
    if (opts.artifactsDir) {
      const dir = resolve(opts.artifactsDir);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `app-${app.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${createHash('sha256').update(app.link.uri).digest('hex').slice(0, 8)}.png`);
      if (await bounded(page.screenshot({ path: file, timeout: 10_000 }), 12_000)) view.screenshot = file;
    }
    if (init) await clickThrough(page, frame, transport, view, ctx);
    if (!(await alive(cdp, limits))) {
      view.outcome = 'unresponsive';
      return;
    }
    view.heapBytes = await heap(cdp, limits);
    await bounded(bridge.teardownResource({ reason: 'mcp-doctor is done' } as never), 1000);
  } finally {
    // The first render: the first contentful paint; else the first paint; else the View's own word that it has laid
    // out (its first ui/notifications/size-changed), on the View's clock. A View that shows nothing contentful
    // before its data (a chart waiting for a tool result) still paints and says its size.
    const sized = transport.log.find((m) => m.dir === 'from-view' && m.message.method === 'ui/notifications/size-changed');
    const sizedMs = sized && origin !== undefined ? transport.base + sized.at - origin : undefined;
    const render = fcp !== undefined ? { ms: fcp, by: 'first-contentful-paint' as const } : firstPaint !== undefined ? { ms: firstPaint, by: 'first-paint' as const } : sizedMs !== undefined && sizedMs >= 0 ? { ms: sizedMs, by: 'size-changed' as const } : undefined;
    if (render) {
      view.renderMs = render.ms;
      view.renderBy = render.by;
    }
    view.bridge = transport.log;
    view.parentMessages = transport.outside;
    if (transport.truncated) view.truncated = true;
    for (const r of hb.guard.records.slice(guardFrom)) {
      const u = r.url;
      if (u.startsWith(viewUrl)) continue;
      push(view.network, { url: u, origin: r.origin, via: 'guard', kind: r.method, at: r.time - transport.base });
    }
    await transport.close();
  }
}

/** After a click, how long the bridge may stay silent before the click counts as having sent nothing. */
const CLICK_GRACE_MS = 1500;

/** Wait until the bridge has been quiet for quietMs (bounded); `graceMs`: first wait that long for a message. */
async function settle(t: PageTransport, limits: HarnessLimits, graceMs = 0): Promise<void> {
  const end = Date.now() + limits.settleMaxMs + graceMs;
  let n = t.log.length;
  const grace = Date.now() + graceMs;
  while (graceMs && Date.now() < grace && t.log.length === n) await sleep(50);
  let since = Date.now();
  while (Date.now() < end) {
    await sleep(100);
    if (t.log.length !== n) {
      n = t.log.length;
      since = Date.now();
    } else if (Date.now() - since >= limits.quietMs) return;
  }
}

interface ViewCdp {
  session: CDPSession;
  frameId: string;
}

/** A CDP session on the View's renderer (its own process when isolated), and the View's frame id there. */
async function viewSession(context: BrowserContext, page: Page, frame: Frame): Promise<ViewCdp | undefined> {
  const viaFrame = await context.newCDPSession(frame).catch(() => undefined);
  const session = viaFrame ?? (await context.newCDPSession(page).catch(() => undefined));
  if (!session) return undefined;
  const tree = (await bounded(session.send('Page.getFrameTree'), 3000)) as { frameTree: FrameTree } | undefined;
  if (!tree) return undefined;
  const find = (t: FrameTree): string | undefined => (t.frame.url.startsWith(frame.url()) ? t.frame.id : (t.childFrames ?? []).map(find).find(Boolean));
  const frameId = find(tree.frameTree);
  return frameId ? { session, frameId } : undefined;
}
interface FrameTree {
  frame: { id: string; url: string };
  childFrames?: FrameTree[];
}

async function alive(cdp: ViewCdp | undefined, limits: HarnessLimits): Promise<boolean> {
  if (!cdp) return false;
  const r = await bounded(cdp.session.send('Runtime.evaluate', { expression: '1', returnByValue: true }), limits.evalTimeoutMs);
  return r !== undefined;
}

/** Evaluate in a fresh isolated world of the View (its own globals: the View cannot tamper with what runs there). */
async function isolatedEval(cdp: ViewCdp, expression: string, timeoutMs: number, world = 'mcp-doctor'): Promise<unknown> {
  const w = (await bounded(cdp.session.send('Page.createIsolatedWorld', { frameId: cdp.frameId, worldName: world, grantUniveralAccess: false }), 3000)) as { executionContextId: number } | undefined;
  if (!w) throw new Error('no isolated world');
  const r = (await bounded(cdp.session.send('Runtime.evaluate', { expression, contextId: w.executionContextId, awaitPromise: true, returnByValue: true }), timeoutMs)) as
    | { result?: { value?: unknown }; exceptionDetails?: { text?: string; exception?: { description?: string } } }
    | undefined;
  if (!r) throw new Error('timeout');
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text ?? 'exception');
  return r.result?.value;
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

async function runAxe(cdp: ViewCdp | undefined, _frame: Frame, phase: AxeRun['phase'], limits: HarnessLimits): Promise<AxeRun> {
  if (!cdp) return { phase, violations: [], error: 'no-session' };
  // axe-core runs in an isolated world of the View frame, with its own preloading of cross-origin styles off
  // (its requests would look like the App's), on WCAG 2.x A and AA rules only.
  const expression = `${axe()}
;(async () => {
  const r = await axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} }, preload: false, iframes: false, resultTypes: ['violations'], elementRef: false });
  return JSON.stringify({ passes: r.passes.length, violations: r.violations.map((v) => ({ id: v.id, impact: v.impact || 'unknown', nodes: v.nodes.length, targets: v.nodes.slice(0, 5).map((n) => [].concat(n.target).join(' ').slice(0, 300)) })) });
})()`;
  try {
    const text = await isolatedEval(cdp, expression, limits.axeTimeoutMs, `mcp-doctor-axe-${phase}`);
    const o = JSON.parse(String(text)) as { passes: number; violations: AxeRun['violations'] };
    return { phase, passes: o.passes, violations: o.violations.slice(0, 100) };
  } catch (e) {
    return { phase, violations: [], error: String((e as Error).message).slice(0, 300) };
  }
}

async function heap(cdp: ViewCdp | undefined, limits: HarnessLimits): Promise<number | undefined> {
  if (!cdp) return undefined;
  await bounded(cdp.session.send('HeapProfiler.collectGarbage'), limits.evalTimeoutMs);
  const h = (await bounded(cdp.session.send('Runtime.getHeapUsage'), limits.evalTimeoutMs)) as { usedSize?: number } | undefined;
  return typeof h?.usedSize === 'number' ? h.usedSize : undefined;
}

const CONTROLS = 'button, [role="button"], input[type="button"], input[type="submit"]';

/** Role and accessible name of the controls now visible and enabled in the View (bounded). */
async function controlsOf(frame: Frame, max: number): Promise<string[]> {
  const loc = frame.locator(CONTROLS);
  const n = (await bounded(loc.count(), 3000)) ?? 0;
  const out: string[] = [];
  for (let i = 0; i < n && out.length < max * 4; i++) {
    const el = loc.nth(i);
    const ok = await bounded(Promise.all([el.isVisible(), el.isEnabled()]), 2000);
    if (!ok || !ok[0] || !ok[1]) {
      out.push('');
      continue;
    }
    const label = await bounded(el.evaluate((e: Element) => {
      const aria = e.getAttribute('aria-label');
      const text = (e as HTMLElement).innerText ?? e.textContent ?? '';
      const value = (e as HTMLInputElement).value ?? '';
      return `${e.tagName.toLowerCase()}: ${(aria || text || value || e.getAttribute('title') || '').trim().replace(/\s+/g, ' ').slice(0, 80)}`;
    }), 2000);
    out.push(label ?? '?');
  }
  return out;
}

const DIALOG_MESSAGE = /Ignored call to '(?:confirm|alert|prompt)\(\)'/;

/**
 * Click each control of the View once (bounded), then the controls a click revealed (a confirmation step),
 * recording the tools/call requests the View sent after each click and whether a dialog came first; then
 * repeat a control whose calls the host forwarded until there are enough calls for the round-trip figures.
 */
async function clickThrough(page: Page, frame: Frame, t: PageTransport, view: ViewRun, ctx: RenderCtx): Promise<void> {
  const { limits } = ctx;
  const initial = await controlsOf(frame, limits.maxControls);
  const indexes = initial.map((l, i) => (l ? i : -1)).filter((i) => i >= 0);
  if (indexes.length > limits.maxControls) view.clicksTruncated = true;
  const calls = () => t.log.filter((m) => m.dir === 'from-view' && m.message.method === 'tools/call');
  const dialogs = () => view.dialogs.length + view.console.filter((c) => DIALOG_MESSAGE.test(c.text)).length;
  // A call that reaches the host late (a loaded machine, a slow View) still belongs to the click before it:
  // the calls that arrive before the next click starts are added to the previous click's record.
  let last: ClickRecord | undefined;
  let counted = calls().length;
  const catchUp = () => {
    const now = calls();
    if (last) last.calls.push(...now.slice(counted).map((m) => m.message.id as string | number));
    counted = now.length;
  };
  const click = async (i: number, label: string, revealedBy?: string): Promise<ClickRecord> => {
    catchUp();
    const before = { dialogs: dialogs(), controls: new Set(await controlsOf(frame, limits.maxControls)) };
    catchUp();
    const atClick = Date.now() - t.base;
    await bounded(frame.locator(CONTROLS).nth(i).click({ timeout: 5000, noWaitAfter: true }), 6000);
    await settle(t, limits, CLICK_GRACE_MS);
    const after = await controlsOf(frame, limits.maxControls);
    const made = calls().slice(counted).map((m) => m.message.id as string | number);
    counted += made.length;
    const dialogAfter = dialogs() > before.dialogs;
    last = { control: label, ...(revealedBy ? { revealedBy } : {}), calls: made, dialog: dialogAfter, revealed: after.filter((l) => l && !before.controls.has(l)).length, at: atClick };
    return last;
  };
  for (const i of indexes.slice(0, limits.maxControls)) {
    if (Date.now() - t.base > limits.viewBudgetMs - 10_000) break;
    const label = initial[i]!;
    const now = await controlsOf(frame, limits.maxControls);
    const j = now.indexOf(label);
    if (j < 0) continue;
    const beforeSet = new Set(now);
    const rec = await click(j, label);
    view.clicks.push(rec);
    if (rec.calls.length === 0 && rec.revealed > 0) {
      const after = await controlsOf(frame, limits.maxControls);
      const revealed = after.map((l, k) => ({ l, k })).filter((x) => x.l && !beforeSet.has(x.l)).slice(0, limits.maxRevealed);
      for (const r of revealed) {
        const cur = await controlsOf(frame, limits.maxControls);
        const k = cur.indexOf(r.l);
        if (k < 0) continue;
        view.clicks.push(await click(k, r.l, label));
      }
    }
  }
  // Round trips: repeat a control whose call the host forwarded (a tool the user allowed).
  const forwardedIds = () => {
    const ids = new Set(calls().map((m) => m.message.id));
    return t.log.filter((m) => m.dir === 'to-view' && ids.has(m.message.id as never) && !(m.message.result as { isError?: unknown } | undefined)?.isError);
  };
  const repeat = view.clicks.find((c) => !c.revealedBy && c.calls.length > 0 && c.calls.every((id) => forwardedIds().some((m) => m.message.id === id)));
  catchUp();
  const end = Date.now() + 20_000;
  while (repeat && forwardedIds().length < limits.roundTripCalls && Date.now() < end) {
    const cur = await controlsOf(frame, limits.maxControls);
    const k = cur.indexOf(repeat.control);
    if (k < 0) break;
    const n = forwardedIds().length;
    await bounded(frame.locator(CONTROLS).nth(k).click({ timeout: 5000, noWaitAfter: true }), 6000);
    await settle(t, limits, CLICK_GRACE_MS);
    if (forwardedIds().length === n) break;
  }
  // The repeated clicks' calls belong to the control that was repeated; late calls of the last click to it.
  if (repeat) last = repeat;
  catchUp();
  void page;
}
