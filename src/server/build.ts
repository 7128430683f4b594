import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, relative, resolve } from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { audit, AuditCancelled, explainRule, failing, FAIL_ON, listRules, RootUnreadable, ruleMarkdown, UnknownRuleError, type FailOn, type Report } from '../run/api.js';
import { loadCatalog } from '../engine/catalog.js';
import { ConfigError, configErrorText } from '../engine/errors.js';
import { DECLARATIONS_KEY } from '../facts/declarations-key.js';
import { isInside } from '../facts/safe-read.js';
import { defaultLocale, locales, t } from '../engine/i18n.js';
import { log } from '../engine/log.js';
import { ownPackage } from '../engine/paths.js';
import { findingMessage, formatUntrusted, quoteInert, terminalInert, where } from '../report/text.js';
import { RateLimiter } from './rate-limit.js';
import { ProbeCancelled, ProbeInputError, ProbeUnreachable, unreachableText } from '../probe/outcome.js';
import { EXERCISES } from '../probe/exercises.js';
import { PROFILES } from '../engine/types.js';
import { ExplainOut, RulesOut, ToolReportOut } from './schemas.js';
import { boundedJson } from './bound.js';
import { compactResult, compactText } from './compact.js';
import { keepReport, MAX_REPORT_BYTES, REPORT_URI_PREFIX, storedReport } from './reports.js';
import { confirmPlan, verifyRequestState, type Gate, type Plan } from './confirm.js';
import { registerFixTool } from './fix-tool.js';
import { SET_LOCK_FILE } from '../facts/lock.js';
import { CLIENTS } from '../facts/clients.js';

/**
 * The MCP face: a thin adapter over the engine. Served text is in MCP_DOCTOR_LOCALE (English by default);
 * tools that return text also take a `locale` argument. The factory is called once per connection by
 * the SDK's era-aware entry point, so 2026-07-28 and 2025-06-18 clients are both served.
 */

/** mcp-doctor's own declarations (C-8..C-13) live under this `_meta` key of each tool. */
export { DECLARATIONS_KEY };
export const RULE_URI_PREFIX = 'mcp-doctor://rules/';
export const ruleUri = (locale: string, id: string) => `${RULE_URI_PREFIX}${locale}/${id}`;

const PAGE_DEFAULT = 25;
const PAGE_MAX = 100;

/**
 * The folders the server's tools may read: MCP_DOCTOR_ROOTS (path-list), else the server's working directory
 * (the project the client started it in). Real paths, so a symlink cannot lead outside.
 */
export function allowedRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env.MCP_DOCTOR_ROOTS ?? '').split(delimiter).filter(Boolean);
  return (listed.length ? listed : [process.cwd()]).flatMap((r) => {
    try {
      return [realpathSync(resolve(r))];
    } catch {
      return [];
    }
  });
}


/**
 * The real path of a folder the tools may use, or undefined. A missing path, a file, an unreadable path and a
 * folder outside the roots all give undefined, so that the one refusal built on it tells nothing about what
 * exists outside the roots, nor where the roots are.
 */
export function confinedFolder(path: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const real = realpathSync(resolve(path));
    if (!statSync(real).isDirectory()) return undefined;
    return allowedRoots(env).some((root) => isInside(root, real)) ? real : undefined;
  } catch {
    return undefined;
  }
}

type Content = { type: 'text'; text: string };
/** How much of a report a tool result carries (compact.ts): `summary` by default, `full` adds every rule. */
const DETAILS = ['summary', 'full'] as const;
type Detail = (typeof DETAILS)[number];
/** Findings per rule in a report kept for resources/read. */
const KEPT_FINDINGS_PER_RULE = 200;
const text = (s: string): Content[] => [{ type: 'text', text: s }];

/**
 * A report as a tool result. By default the compact form sized for a model (compact.ts); with detail=full, also
 * every rule's result as in the JSON report, bounded (bound.ts). Either way the full report is kept for
 * resources/read (reports.ts) and linked by a resource_link; the text carries the same facts as the structured
 * content. `cli` is the command line that gives the full report from a shell.
 */
async function reportResult(report: Report, loc: string, failOn: FailOn, detail: Detail, target: string, cli: string, signal: AbortSignal, html = false) {
  if (signal.aborted) throw new AuditCancelled();
  // The kept report is the JSON report, bounded to what the store holds per report.
  const kept = boundedJson(report, loc, t(loc, 'server.truncated', { cli }), signal, { perRule: KEPT_FINDINGS_PER_RULE, maxBytes: MAX_REPORT_BYTES });
  const uri = keepReport(JSON.stringify({ ...kept, failing: failing(report.results, failOn).length }, null, 2));
  const out = await compactResult(report, loc, failOn, uri, detail);
  if (signal.aborted) throw new AuditCancelled();
  const link = { type: 'resource_link' as const, uri, name: uri.slice(REPORT_URI_PREFIX.length), title: t(loc, 'server.resources.report.title'), mimeType: 'application/json' };
  const links = [link];
  if (html) {
    // The same report as one self-contained page (report/html.ts), kept beside the JSON report.
    const page = (await import('../report/html.js')).renderHtml(report, loc);
    const htmlUri = keepReport(page.length <= MAX_REPORT_BYTES ? page : renderTooLarge(loc, cli), 'text/html');
    links.push({ ...link, uri: htmlUri, name: htmlUri.slice(REPORT_URI_PREFIX.length), title: t(loc, 'server.resources.report.htmlTitle'), mimeType: 'text/html' });
  }
  return { content: [...text(compactText(out, loc, target, cli, report.inputs?.kind)), ...links], structuredContent: out };
}
/** The page kept when a report's HTML is past the store's bound: it says which command gives the whole page. */
const renderTooLarge = (loc: string, cli: string): string =>
  `<!doctype html><html lang="${loc}"><meta charset="utf-8"><title>mcp-doctor</title><p>${t(loc, 'server.truncated', { cli: cli.replace(/[&<>"']/g, '') })}</p></html>`;
const toolError = (s: string) => ({ content: text(s), isError: true as const });

/** A shell-safe rendering of an argv for the CLI hint (POSIX single quotes). */
const shellQuote = (args: string[]) => args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');

/** Bounds of our tools' arguments: a bad argument gets a clear error before anything runs. */
const MAX_PATH = 4096;
const MAX_ARG = 4096;
const NUL = /\u0000/;
const NUL_OR_LINE_BREAK = /[\u0000\r\n]/;
const RULE_ID = /^[CSAEXcsaex]-\d{1,3}$/;

export function buildServer(opts: { locale?: string } = {}): McpServer {
  const L = opts.locale ?? defaultLocale();
  const S = (key: string, data?: Record<string, string | number>) => t(L, `server.${key}`, data);
  const localeEnum = z.enum(locales() as [string, ...string[]]);
  const limiter = new RateLimiter();
  const pkg = ownPackage();

  // Bounded strings free of NUL (and of line breaks where asked): a path, a command-line argument, a header
  // value. The character check is a refinement, kept out of the advertised schema (each token is paid, C-21).
  const bounded = (max: number, forbidden: RegExp = NUL) =>
    z
      .string()
      .max(max, { error: () => S('validation.tooLong', { max }) })
      .refine((v) => !forbidden.test(v), { error: S('validation.control') });
  const ruleIds = z.array(z.string().max(8).regex(RULE_ID, { error: S('validation.ruleId') })).max(100);

  const server = new McpServer(
    { name: pkg.name, version: pkg.version, title: S('title') },
    {
      instructions: S('instructions'),
      cacheHints: {
        'tools/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'resources/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
      },
      // probe_endpoint's confirmation round-trips a sealed state: check its HMAC before the handler runs.
      requestState: { verify: verifyRequestState },
    },
  );

  const limited = (tool: string) => (limiter.take(tool) ? undefined : toolError(S('errors.rateLimited', { tool })));
  const refused = (loc: string, arg: 'path' | 'cwd' | 'source' | 'artifacts') => toolError(t(loc, 'server.errors.pathRefused', { arg }));

  // --- audit_repository ---------------------------------------------------------------------------
  server.registerTool(
    'audit_repository',
    {
      title: S('tools.audit_repository.title'),
      description: S('tools.audit_repository.description'),
      inputSchema: z.object({
        path: bounded(MAX_PATH).min(1).describe(S('tools.audit_repository.args.path')),
        locale: localeEnum.optional().describe(S('args.locale')),
        rules: ruleIds.optional().describe(S('tools.audit_repository.args.rules')),
        fail_on: z.enum(FAIL_ON as [FailOn, ...FailOn[]]).optional().describe(S('tools.audit_repository.args.fail_on')),
        profile: z.enum(PROFILES).optional().describe(S('args.profile')),
        detail: z.enum(DETAILS).optional().describe(S('args.detail')),
        html: z.boolean().optional().describe(S('args.html')),
      }),
      outputSchema: ToolReportOut,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: {
        [DECLARATIONS_KEY]: { authority: { read: 'public', write: 'admin' }, verb: 'introspect', targets: ['source repository'], contextTokens: 1102 },
      },
    },
    async ({ path, locale, rules, fail_on, profile, detail, html }, ctx) => {
      const lim = limited('audit_repository');
      if (lim) return lim;
      const loc = locale ?? L;
      // Confinement (X-5, S-16): a folder inside one of the allowed roots, checked on the real path. One refusal
      // for a missing path, a file and a folder outside the roots.
      const dir = confinedFolder(path);
      if (!dir) return refused(loc, 'path');
      const signal = ctx.mcpReq.signal;
      const token = ctx.mcpReq._meta?.progressToken;
      try {
        const report = await audit({
          target: { path: dir },
          rules: rules?.map((r) => r.toUpperCase()),
          profile,
          signal,
          onProgress:
            token === undefined
              ? undefined
              : ({ done, total, ruleId }) =>
                  void ctx.mcpReq
                    .notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message: ruleId } })
                    .catch(() => undefined),
        });
        const cli = shellQuote(['mcp-doctor', 'audit', path, '--format', 'json', ...(profile === 'vet' ? ['--profile', 'vet'] : [])]);
        return await reportResult(report, loc, fail_on ?? 'note', detail ?? 'summary', quoteInert(path), cli, signal, !!html);
      } catch (e) {
        if (e instanceof AuditCancelled) throw e;
        if (e instanceof UnknownRuleError) return toolError(t(loc, 'cli.errors.unknownRule', { id: e.ids.join(', ') }));
        if (e instanceof ConfigError) return toolError(configErrorText(e, loc));
        if (e instanceof RootUnreadable) return toolError(t(loc, 'server.errors.rootUnreadable', { path: quoteInert(path) }));
        log.error({ err: e }, 'audit_repository failed');
        return toolError(t(loc, 'server.errors.auditFailed'));
      }
    },
  );

  // --- fix_repository (src/server/fix-tool.ts) ----------------------------------------------------
  registerFixTool(server, { L, S, path: bounded(MAX_PATH).min(1), localeEnum, ruleIds, refused, toolError, confinedFolder: (p) => confinedFolder(p) });

  // --- probe_endpoint -----------------------------------------------------------------------------
  server.registerTool(
    'probe_endpoint',
    {
      title: S('tools.probe_endpoint.title'),
      description: S('tools.probe_endpoint.description'),
      inputSchema: z.object({
        command: z.array(bounded(MAX_ARG).min(1)).min(1).max(64).optional().describe(S('tools.probe_endpoint.args.command')),
        url: bounded(2048, NUL_OR_LINE_BREAK).url().optional().describe(S('tools.probe_endpoint.args.url')),
        headers: z
          .record(z.string().regex(/^[A-Za-z0-9-]+$/), bounded(8192, NUL_OR_LINE_BREAK))
          .optional()
          .describe(S('tools.probe_endpoint.args.headers')),
        allow_private: z.boolean().optional().describe(S('tools.probe_endpoint.args.allow_private')),
        exercise: z.array(z.enum(EXERCISES)).max(EXERCISES.length).optional().describe(S('tools.probe_endpoint.args.exercise')),
        cwd: bounded(MAX_PATH).min(1).optional().describe(S('tools.probe_endpoint.args.cwd')),
        source: bounded(MAX_PATH).min(1).optional().describe(S('tools.probe_endpoint.args.source')),
        env: z
          .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), bounded(MAX_ARG))
          .optional()
          .describe(S('tools.probe_endpoint.args.env')),
        timeout_ms: z.number().int().min(1000).max(600_000).optional().describe(S('tools.probe_endpoint.args.timeout_ms')),
        // MCP Apps, as the CLI's --no-browser and --artifacts DIR.
        no_browser: z.boolean().optional().describe(S('tools.probe_endpoint.args.no_browser')),
        artifacts: bounded(MAX_PATH).min(1).optional().describe(S('tools.probe_endpoint.args.artifacts')),
        rules: ruleIds.optional().describe(S('tools.audit_repository.args.rules')),
        fail_on: z.enum(FAIL_ON as [FailOn, ...FailOn[]]).optional().describe(S('tools.audit_repository.args.fail_on')),
        profile: z.enum(PROFILES).optional().describe(S('args.profile')),
        detail: z.enum(DETAILS).optional().describe(S('args.detail')),
        html: z.boolean().optional().describe(S('args.html')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: ToolReportOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: {
        [DECLARATIONS_KEY]: {
          authority: { read: 'public', write: 'admin' },
          verb: 'external-effect',
          touches: 'a local process or HTTP endpoint named by the caller',
          contextTokens: 1494,
        },
      },
    },
    async ({ locale, command, url, headers, allow_private, exercise, cwd, source, env, timeout_ms, no_browser, artifacts, rules, fail_on, profile, detail, html }, ctx) => {
      const lim = limited('probe_endpoint');
      if (lim) return lim;
      const loc = locale ?? L;
      if ((command ? 1 : 0) + (url ? 1 : 0) !== 1) return toolError(t(loc, 'server.errors.probeTarget'));
      if (env && Object.keys(env).length > 64) return toolError(t(loc, 'server.validation.tooMany', { arg: 'env', max: 64 }));
      if (headers && Object.keys(headers).length > 64) return toolError(t(loc, 'server.validation.tooMany', { arg: 'headers', max: 64 }));
      // Where a command runs: cwd, else the server's working directory; either way inside the roots.
      let dir: string | undefined;
      if (command || cwd !== undefined) {
        dir = confinedFolder(cwd ?? '.');
        if (!dir) return refused(loc, 'cwd');
      }
      // The package folder to read, like cwd, lies inside the allowed roots (the same refusal whatever the cause).
      let sourceDir: string | undefined;
      if (source !== undefined) {
        sourceDir = confinedFolder(source);
        if (!sourceDir) return refused(loc, 'source');
      }
      // Where the App screenshots go: an existing folder inside the roots, or the same refusal.
      let artifactsDir: string | undefined;
      if (artifacts !== undefined) {
        artifactsDir = confinedFolder(artifacts);
        if (!artifactsDir) return refused(loc, 'artifacts');
      }
      // The human confirms what will run (or reach a private network); nothing starts before.
      const plan: Plan | undefined = command
        ? { kind: 'command', command, cwd: dir!, env: env ?? {}, exercise: !!exercise?.length }
        : allow_private
          ? { kind: 'url', url: url!, allowPrivate: true, exercise: !!exercise?.length }
          : undefined;
      if (plan) {
        const gate = await confirmPlan(ctx, plan, loc, () => server.server.getClientCapabilities());
        if (!gate.go) return gate.result;
        log.info({ plan: plan.kind, how: gate.how }, 'probe_endpoint starts');
      }
      const signal = ctx.mcpReq.signal;
      if (signal.aborted) throw new ProbeCancelled();
      const token = ctx.mcpReq._meta?.progressToken;
      let step = 0;
      const notify = (message: string) =>
        token === undefined
          ? undefined
          : void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message: terminalInert(message) } }).catch(() => undefined);
      try {
        // The probe and the analyser load on the first probe, not when the server starts.
        const { probeAndJudge } = await import('../run/probe.js');
        const { report } = await probeAndJudge({
          command,
          url,
          headers: headers && Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
          allowPrivate: allow_private,
          exercise,
          cwd: cwd !== undefined ? dir : undefined,
          source: sourceDir,
          sourceRoots: allowedRoots(),
          env,
          timeoutMs: timeout_ms,
          apps: { browser: !no_browser, ...(artifactsDir ? { artifactsDir } : {}) },
          rules: rules?.map((r) => r.toUpperCase()),
          profile,
          signal,
          onStep: (s) => notify(s),
        });
        const appsFlags = [...(no_browser ? ['--no-browser'] : []), ...(artifactsDir ? ['--artifacts', artifactsDir] : [])];
        const cli = command
          ? shellQuote(['mcp-doctor', 'probe', '--format', 'json', ...(cwd !== undefined ? ['--cwd', cwd] : []), ...appsFlags, '--', ...command])
          : shellQuote(['mcp-doctor', 'probe', '--format', 'json', '--url', url!, ...(allow_private ? ['--allow-private'] : []), ...appsFlags]);
        return await reportResult(report, loc, fail_on ?? 'note', detail ?? 'summary', quoteInert((command ?? [url ?? '']).join(' ')), cli, signal, !!html);
      } catch (e) {
        if (e instanceof ProbeInputError) return toolError(formatUntrusted(loc, `cli.errors.${e.code}`, e.data, quoteInert));
        if (e instanceof ProbeUnreachable) return toolError(unreachableText(e.data, loc, quoteInert));
        if (e instanceof AuditCancelled || e instanceof ProbeCancelled) throw e;
        if (e instanceof UnknownRuleError) return toolError(t(loc, 'cli.errors.unknownRule', { id: e.ids.join(', ') }));
        log.error({ err: e }, 'probe_endpoint failed');
        return toolError(t(loc, 'server.errors.auditFailed'));
      }
    },
  );

  // --- audit_client_config ------------------------------------------------------------------------
  server.registerTool(
    'audit_client_config',
    {
      title: S('tools.audit_client_config.title'),
      description: S('tools.audit_client_config.description'),
      inputSchema: z.object({
        path: bounded(MAX_PATH).min(1).optional().describe(S('tools.audit_client_config.args.path')),
        include_user: z.boolean().optional().describe(S('tools.audit_client_config.args.include_user')),
        clients: z.array(z.enum(CLIENTS)).max(CLIENTS.length).optional().describe(S('tools.audit_client_config.args.clients')),
        probe: z.boolean().optional().describe(S('tools.audit_client_config.args.probe')),
        allow_private: z.boolean().optional().describe(S('tools.audit_client_config.args.allow_private')),
        rules: ruleIds.optional().describe(S('tools.audit_repository.args.rules')),
        fail_on: z.enum(FAIL_ON as [FailOn, ...FailOn[]]).optional().describe(S('tools.audit_repository.args.fail_on')),
        html: z.boolean().optional().describe(S('args.html')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: ToolReportOut,
      // Reading is harmless; `probe: true` starts the configured programs (after the user confirms them).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: {
        [DECLARATIONS_KEY]: {
          authority: { read: 'public', write: 'admin' },
          verb: 'introspect', targets: ['mcp client configuration'],
          touches: 'MCP client configuration files of the project (and of the user with include_user); with probe, the configured servers',
          contextTokens: 1239,
        },
      },
    },
    async ({ path, include_user, clients, probe, allow_private, rules, fail_on, html, locale }, ctx) => {
      const lim = limited('audit_client_config');
      if (lim) return lim;
      const loc = locale ?? L;
      const dir = confinedFolder(path ?? '.');
      if (!dir) return refused(loc, 'path');
      const signal = ctx.mcpReq.signal;
      try {
        // Loaded on first use: the server answers initialize without the analyser.
        const { scanAndJudge } = await import('../run/scan.js');
        // The refusal to return when the user does not agree to start the configured servers.
        let declined: Extract<Gate, { go: false }>['result'] | undefined;
        const report = await scanAndJudge({
          project: dir,
          clients,
          projectOnly: !include_user,
          rules: rules?.map((r) => r.toUpperCase()),
          signal,
          invalidLock: 'ignore',
          ...(probe
            ? {
                probe: {
                  lockFile: resolve(dir, SET_LOCK_FILE),
                  allowPrivate: allow_private,
                  confirm: async (servers) => {
                    const live = servers.filter((x) => !x.disabled);
                    const plan: Plan = {
                      kind: 'set',
                      commands: live.filter((x) => x.transport === 'stdio' && x.command).map((x) => ({ name: x.name, command: [x.command!, ...(x.args ?? [])], cwd: x.cwd ?? dir, env: x.env ?? {} })),
                      urls: live.filter((x) => x.url && x.transport !== 'stdio').map((x) => x.url!),
                      allowPrivate: !!allow_private,
                    };
                    const gate = await confirmPlan(ctx, plan, loc, () => server.server.getClientCapabilities());
                    if (!gate.go) {
                      declined = gate.result;
                      return false;
                    }
                    log.info({ servers: plan.commands.length + plan.urls.length, how: gate.how }, 'audit_client_config probes the set');
                    return true;
                  },
                },
              }
            : {}),
        });
        if (!report) return declined!;
        const cli = shellQuote(['mcp-doctor', 'scan', '--project', path ?? '.', '--format', 'json', ...(probe ? ['--probe'] : [])]);
        return await reportResult(report, loc, fail_on ?? 'note', 'summary', quoteInert(path ?? '.'), cli, signal, !!html);
      } catch (e) {
        if (e instanceof AuditCancelled || e instanceof ProbeCancelled) throw e;
        log.error({ err: e }, 'audit_client_config failed');
        return toolError(t(loc, 'server.errors.auditFailed'));
      }
    },
  );

  // --- explain_rule -------------------------------------------------------------------------------
  server.registerTool(
    'explain_rule',
    {
      title: S('tools.explain_rule.title'),
      description: S('tools.explain_rule.description'),
      inputSchema: z.object({
        rule_id: z.string().max(8).regex(RULE_ID, { error: S('validation.ruleId') }).describe(S('tools.explain_rule.args.rule_id')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: ExplainOut,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: { [DECLARATIONS_KEY]: { authority: { read: 'public', write: 'admin' }, verb: 'get', targets: ['rule-catalog'], contextTokens: 392 } },
    },
    async ({ rule_id, locale }) => {
      const lim = limited('explain_rule');
      if (lim) return lim;
      const loc = locale ?? L;
      const e = explainRule(rule_id.toUpperCase(), loc);
      if (!e) return toolError(t(loc, 'cli.errors.unknownRule', { id: quoteInert(rule_id) }));
      const markdown = ruleMarkdown(e.meta.id, loc)!;
      const out = {
        id: e.meta.id,
        locale: e.text.locale,
        title: e.text.title,
        summary: e.text.summary,
        condition: e.text.condition,
        genres: e.meta.genres,
        severity: e.meta.severity,
        category: e.meta.category,
        resourceUri: ruleUri(e.text.locale, e.meta.id),
        markdown,
      };
      return { content: text(markdown), structuredContent: out };
    },
  );

  // --- list_rules ---------------------------------------------------------------------------------
  server.registerTool(
    'list_rules',
    {
      title: S('tools.list_rules.title'),
      description: S('tools.list_rules.description'),
      inputSchema: z.object({
        family: z.enum(['C', 'S', 'A', 'E', 'X']).optional().describe(S('tools.list_rules.args.family')),
        cursor: z.string().max(9).regex(/^\d+$/).optional().describe(S('tools.list_rules.args.cursor')),
        limit: z.number().int().min(1).max(PAGE_MAX).optional().describe(S('tools.list_rules.args.limit')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: RulesOut.extend({ nextCursor: z.string().optional() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: {
        [DECLARATIONS_KEY]: {
          authority: { read: 'public', write: 'admin' },
          verb: 'list',
          search: 'indexed-range',
          pagination: { cursor: true, default: PAGE_DEFAULT, max: PAGE_MAX },
          targets: ['rule-catalog'],
          contextTokens: 580,
        },
      },
    },
    async ({ family, cursor, limit, locale }) => {
      const lim = limited('list_rules');
      if (lim) return lim;
      const loc = locale ?? L;
      const all = listRules(loc, locales()).filter((r) => !family || r.family === family);
      const start = cursor ? Number(cursor) : 0;
      if (start > all.length) return toolError(t(loc, 'server.errors.badCursor'));
      const size = limit ?? PAGE_DEFAULT;
      const page = all.slice(start, start + size).map((r) => ({
        id: r.id,
        slug: r.slug,
        family: r.family,
        title: r.title,
        summary: r.summary,
        genres: r.genres,
        severity: r.severity,
        category: r.category,
        appliesTo: r.appliesTo,
        conditional: r.conditional,
        detectors: r.detectors,
        sources: r.sources,
      }));
      const next = start + size < all.length ? String(start + size) : undefined;
      const lines = page.map((r) => `${r.id} — ${r.title}`);
      if (next) lines.push(t(loc, 'server.morePages', { cursor: next }));
      return { content: text(lines.join('\n')), structuredContent: { locale: loc, rules: page, ...(next ? { nextCursor: next } : {}) } };
    },
  );

  // --- remediation prompt (a slash command in Claude Code) -----------------------------------------
  server.registerPrompt(
    'remediate',
    {
      title: S('prompts.remediate.title'),
      description: S('prompts.remediate.description'),
      argsSchema: z.object({
        rule_id: z.string().max(16).describe(S('prompts.remediate.args.rule_id')),
        path: bounded(MAX_PATH).optional().describe(S('prompts.remediate.args.path')),
      }),
    },
    ({ rule_id, path }) => {
      const id = rule_id.trim().toUpperCase();
      const md = ruleMarkdown(id, L);
      if (!md) throw new Error(t(L, 'cli.errors.unknownRule', { id: quoteInert(rule_id) }));
      return {
        description: S('prompts.remediate.description'),
        messages: [
          {
            role: 'user' as const,
            content: { type: 'text' as const, text: S('prompts.remediate.body', { id, path: path?.trim() || '.' }) },
          },
          {
            role: 'user' as const,
            content: { type: 'resource' as const, resource: { uri: ruleUri(L, id), mimeType: 'text/markdown', text: md } },
          },
        ],
      };
    },
  );

  // --- one resource per rule per locale, plus the template -----------------------------------------
  server.registerResource(
    'rule',
    new ResourceTemplate(`${RULE_URI_PREFIX}{locale}/{rule_id}`, {
      // The catalogue is read when the resources are listed, not when a connection starts.
      list: async () => {
        const catalog = loadCatalog();
        return {
          resources: locales().flatMap((loc) =>
            catalog.rules.map((r) => ({
              uri: ruleUri(loc, r.id),
              name: `${r.id}-${loc}`,
              title: `${r.id} — ${catalog.text(r.id, loc)?.title ?? r.id} (${loc})`,
              description: catalog.text(r.id, loc)?.summary,
              mimeType: 'text/markdown',
            })),
          ),
        };
      },
    }),
    { title: S('resources.rule.title'), description: S('resources.rule.description'), mimeType: 'text/markdown', cacheHint: { ttlMs: 3_600_000, cacheScope: 'public' } },
    async (uri, vars) => {
      const loc = String(vars.locale);
      const id = String(vars.rule_id).toUpperCase();
      const md = locales().includes(loc) ? ruleMarkdown(id, loc) : undefined;
      if (!md) throw new Error(S('errors.unknownResource', { uri: quoteInert(uri.href) }));
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: md }] };
    },
  );

  // --- full reports of this server's audits and probes (reports.ts), linked from each tool result -----
  server.registerResource(
    'report',
    new ResourceTemplate(`${REPORT_URI_PREFIX}{id}`, { list: undefined }),
    { title: S('resources.report.title'), description: S('resources.report.description'), mimeType: 'application/json' },
    async (uri, vars) => {
      const kept = storedReport(String(vars.id));
      if (kept === undefined) throw new Error(S('errors.reportGone', { uri: quoteInert(uri.href) }));
      return { contents: [{ uri: uri.href, mimeType: kept.mimeType, text: kept.text }] };
    },
  );

  return server;
}
