import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, relative, resolve } from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { audit, AuditCancelled, explainRule, failing, FAIL_ON, listRules, ruleMarkdown, UnknownRuleError, type FailOn, type Report } from '../engine/api.js';
import { loadCatalog } from '../engine/catalog.js';
import { ConfigError } from '../engine/config.js';
import { DECLARATIONS_KEY } from '../facts/declarations.js';
import { defaultLocale, locales, t } from '../engine/i18n.js';
import { log } from '../engine/log.js';
import { ownPackage } from '../engine/paths.js';
import { toJson } from '../report/json.js';
import { findingMessage, quoteInert, where } from '../report/text.js';
import { RateLimiter } from './rate-limit.js';
import { probeAndJudge, ProbeInputError, ProbeUnreachable, unreachableText } from '../probe/run.js';
import { ProbeCancelled } from '../probe/probe.js';
import { ExplainOut, ReportOut, RulesOut } from './schemas.js';

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

type Content = { type: 'text'; text: string };
const text = (s: string): Content[] => [{ type: 'text', text: s }];

/** A report as a tool result: the whole JSON report as structured content, a short text for clients without it. */
function reportResult(report: Report, loc: string, failOn: FailOn, target: string) {
  // The report's `inputs` (containment, wire notes…) stay in the CLI's JSON: declaring them in this tool's output
  // schema would cost every client context tokens on each connection (C-21).
  const { inputs: _inputs, ...json } = toJson(report, loc);
  const red = failing(report.results, failOn);
  const lines = [t(loc, 'server.auditSummary', { ...json.summary, failing: red.length, path: target })];
  for (const r of red.slice(0, 10)) {
    for (const f of r.findings.slice(0, 3)) lines.push(`- ${r.ruleId}: ${findingMessage(r.ruleId, f, loc)}${where(f) ? ` (${where(f)})` : ''}`);
  }
  return { content: text(lines.join('\n')), structuredContent: { ...json, failing: red.length } };
}
const toolError = (s: string) => ({ content: text(s), isError: true as const });

export function buildServer(opts: { locale?: string } = {}): McpServer {
  const L = opts.locale ?? defaultLocale();
  const S = (key: string, data?: Record<string, string | number>) => t(L, `server.${key}`, data);
  const localeEnum = z.enum(locales() as [string, ...string[]]);
  const limiter = new RateLimiter();
  const pkg = ownPackage();

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
    },
  );

  const limited = (tool: string) => (limiter.take(tool) ? undefined : toolError(S('errors.rateLimited', { tool })));

  // --- audit_repository ---------------------------------------------------------------------------
  server.registerTool(
    'audit_repository',
    {
      title: S('tools.audit_repository.title'),
      description: S('tools.audit_repository.description'),
      inputSchema: z.object({
        path: z.string().min(1).describe(S('tools.audit_repository.args.path')),
        locale: localeEnum.optional().describe(S('args.locale')),
        rules: z.array(z.string().regex(/^[CSAEXcsaex]-\d+$/)).max(100).optional().describe(S('tools.audit_repository.args.rules')),
        fail_on: z.enum(FAIL_ON as [FailOn, ...FailOn[]]).optional().describe(S('tools.audit_repository.args.fail_on')),
      }),
      outputSchema: ReportOut,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: {
        [DECLARATIONS_KEY]: { authority: { read: 'public', write: 'admin' }, verb: 'introspect', contextTokens: 420 },
      },
    },
    async ({ path, locale, rules, fail_on }, ctx) => {
      const lim = limited('audit_repository');
      if (lim) return lim;
      const loc = locale ?? L;
      if (!existsSync(resolve(path)) || !statSync(resolve(path)).isDirectory()) return toolError(t(loc, 'server.errors.notAFolder', { path: quoteInert(path) }));
      // Confinement (X-5, S-16): the folder must lie inside one of the allowed roots, checked on the real path.
      const dir = realpathSync(resolve(path));
      if (!allowedRoots().some((root) => !relative(root, dir).startsWith('..') && !isAbsolute(relative(root, dir)))) {
        return toolError(t(loc, 'server.errors.outsideRoots', { path: quoteInert(path), roots: allowedRoots().join(', ') }));
      }
      const token = ctx.mcpReq._meta?.progressToken;
      try {
        const report = await audit({
          target: { path: dir },
          rules: rules?.map((r) => r.toUpperCase()),
          signal: ctx.mcpReq.signal,
          onProgress:
            token === undefined
              ? undefined
              : ({ done, total, ruleId }) =>
                  void ctx.mcpReq
                    .notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message: ruleId } })
                    .catch(() => undefined),
        });
        return reportResult(report, loc, fail_on ?? 'note', quoteInert(path));
      } catch (e) {
        if (e instanceof AuditCancelled) throw e;
        if (e instanceof UnknownRuleError) return toolError(t(loc, 'cli.errors.unknownRule', { id: e.ids.join(', ') }));
        if (e instanceof ConfigError) return toolError(t(loc, 'cli.errors.config', { file: e.file, issues: e.issues.join('; ') }));
        log.error({ err: e }, 'audit_repository failed');
        return toolError(t(loc, 'server.errors.auditFailed'));
      }
    },
  );

  // --- probe_endpoint -----------------------------------------------------------------------------
  server.registerTool(
    'probe_endpoint',
    {
      title: S('tools.probe_endpoint.title'),
      description: S('tools.probe_endpoint.description'),
      inputSchema: z.object({
        command: z.array(z.string().min(1)).min(1).max(64).optional().describe(S('tools.probe_endpoint.args.command')),
        url: z.string().url().optional().describe(S('tools.probe_endpoint.args.url')),
        headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string()).optional().describe(S('tools.probe_endpoint.args.headers')),
        allow_private: z.boolean().optional().describe(S('tools.probe_endpoint.args.allow_private')),
        exercise: z.enum(['read-only']).optional().describe(S('tools.probe_endpoint.args.exercise')),
        cwd: z.string().optional().describe(S('tools.probe_endpoint.args.cwd')),
        env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional().describe(S('tools.probe_endpoint.args.env')),
        timeout_ms: z.number().int().min(1000).max(600_000).optional().describe(S('tools.probe_endpoint.args.timeout_ms')),
        rules: z.array(z.string().regex(/^[CSAEXcsaex]-\d+$/)).max(100).optional().describe(S('tools.audit_repository.args.rules')),
        fail_on: z.enum(FAIL_ON as [FailOn, ...FailOn[]]).optional().describe(S('tools.audit_repository.args.fail_on')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: ReportOut,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: {
        [DECLARATIONS_KEY]: {
          authority: { read: 'public', write: 'admin' },
          verb: 'external-effect',
          touches: 'a local process or HTTP endpoint named by the caller',
          contextTokens: 380,
        },
      },
    },
    async ({ locale, command, url, headers, allow_private, exercise, cwd, env, timeout_ms, rules, fail_on }, ctx) => {
      const lim = limited('probe_endpoint');
      if (lim) return lim;
      const loc = locale ?? L;
      if ((command ? 1 : 0) + (url ? 1 : 0) !== 1) return toolError(t(loc, 'server.errors.probeTarget'));
      if (cwd !== undefined) {
        if (!existsSync(resolve(cwd)) || !statSync(resolve(cwd)).isDirectory()) return toolError(t(loc, 'server.errors.notAFolder', { path: quoteInert(cwd) }));
        const real = realpathSync(resolve(cwd));
        if (!allowedRoots().some((root) => !relative(root, real).startsWith('..') && !isAbsolute(relative(root, real)))) {
          return toolError(t(loc, 'server.errors.outsideRoots', { path: quoteInert(cwd), roots: allowedRoots().join(', ') }));
        }
      }
      const token = ctx.mcpReq._meta?.progressToken;
      let step = 0;
      const notify = (message: string) =>
        token === undefined
          ? undefined
          : void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => undefined);
      try {
        const { report } = await probeAndJudge({
          command,
          url,
          headers: headers && Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
          allowPrivate: allow_private,
          exercise,
          cwd,
          env,
          timeoutMs: timeout_ms,
          rules: rules?.map((r) => r.toUpperCase()),
          signal: ctx.mcpReq.signal,
          onStep: (s) => notify(s),
        });
        return reportResult(report, loc, fail_on ?? 'note', quoteInert((command ?? [url ?? '']).join(' ')));
      } catch (e) {
        if (e instanceof ProbeInputError) return toolError(t(loc, `cli.errors.${e.code}`, e.data));
        if (e instanceof ProbeUnreachable) return toolError(unreachableText(e.data, loc, quoteInert));
        if (e instanceof AuditCancelled || e instanceof ProbeCancelled) throw e;
        if (e instanceof UnknownRuleError) return toolError(t(loc, 'cli.errors.unknownRule', { id: e.ids.join(', ') }));
        log.error({ err: e }, 'probe_endpoint failed');
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
        rule_id: z.string().regex(/^[CSAEXcsaex]-\d+$/).describe(S('tools.explain_rule.args.rule_id')),
        locale: localeEnum.optional().describe(S('args.locale')),
      }),
      outputSchema: ExplainOut,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: { [DECLARATIONS_KEY]: { authority: { read: 'public', write: 'admin' }, verb: 'get', targets: ['rule-catalog'], contextTokens: 200 } },
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
        cursor: z.string().regex(/^\d+$/).optional().describe(S('tools.list_rules.args.cursor')),
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
          contextTokens: 260,
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
        rule_id: z.string().describe(S('prompts.remediate.args.rule_id')),
        path: z.string().optional().describe(S('prompts.remediate.args.path')),
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
  const catalog = loadCatalog();
  server.registerResource(
    'rule',
    new ResourceTemplate(`${RULE_URI_PREFIX}{locale}/{rule_id}`, {
      list: async () => ({
        resources: locales().flatMap((loc) =>
          catalog.rules.map((r) => ({
            uri: ruleUri(loc, r.id),
            name: `${r.id}-${loc}`,
            title: `${r.id} — ${catalog.text(r.id, loc)?.title ?? r.id} (${loc})`,
            description: catalog.text(r.id, loc)?.summary,
            mimeType: 'text/markdown',
          })),
        ),
      }),
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

  return server;
}
