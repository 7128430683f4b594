/**
 * The fix_repository tool: `mcp-doctor fix` as an MCP tool. Without `apply` it is a dry run and returns the diff.
 * With `apply: true` the human confirms the planned change (the folder and the files) through a form elicitation
 * when the client can ask (confirm.ts: the confirmation is bound to the exact diff), else the explicit argument
 * is the consent; then the fixes are applied and the folder audited again, as the CLI does.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { t } from '../engine/i18n.js';
import { log } from '../engine/log.js';
import { DECLARATIONS_KEY } from '../facts/declarations-key.js';
import { quoteInert } from '../report/text.js';
import { confirmPlan } from './confirm.js';
import { RateLimiter } from './rate-limit.js';

type Content = { type: 'text'; text: string };
type ToolError = { content: Content[]; isError: true };

/** What the tool needs of the server it is added to (src/server/build.ts). */
export interface FixToolContext {
  L: string;
  S: (key: string, data?: Record<string, string | number>) => string;
  path: z.ZodType<string>;
  localeEnum: z.ZodType<string>;
  ruleIds: z.ZodType<string[]>;
  refused: (loc: string, arg: 'path') => ToolError;
  toolError: (s: string) => ToolError;
  confinedFolder: (path: string) => string | undefined;
}

/** The diff returned in full up to this size; past it, cut, with the command that prints it whole. */
const MAX_DIFF = 60_000;
const STATES = ['fixed', 'planned', 'rolled-back', 'conflict', 'skipped'] as const;

const FixOut = z.object({
  applied: z.boolean(),
  diff: z.string(),
  truncated: z.boolean().optional(),
  written: z.array(z.string()),
  outcomes: z.array(
    z.object({
      state: z.enum(STATES),
      ruleId: z.string(),
      messageId: z.string(),
      file: z.string().optional(),
      line: z.number().min(0).optional(),
      note: z.string().optional(),
    }),
  ),
});

export function registerFixTool(server: McpServer, c: FixToolContext): void {
  // Its own bucket, as every tool of the server has one (S-24).
  const limiter = new RateLimiter();
  server.registerTool(
    'fix_repository',
    {
      title: c.S('tools.fix_repository.title'),
      description: c.S('tools.fix_repository.description'),
      inputSchema: z.object({
        path: c.path.describe(c.S('tools.fix_repository.args.path')),
        apply: z.boolean().optional().describe(c.S('tools.fix_repository.args.apply')),
        force: z.boolean().optional().describe(c.S('tools.fix_repository.args.force')),
        rules: c.ruleIds.optional().describe(c.S('tools.fix_repository.args.rules')),
        locale: c.localeEnum.optional().describe(c.S('args.locale')),
      }),
      outputSchema: FixOut,
      // It rewrites source files of the folder (with apply): not read-only, and an edit replaces text.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      _meta: {
        [DECLARATIONS_KEY]: {
          authority: { read: 'public', write: 'admin' },
          verb: 'update',
          targets: ['source repository'],
          touches: 'source files of the folder named by the caller, with apply and the user confirming',
          contextTokens: 557,
        },
      },
    },
    async ({ path, apply, force, rules, locale }, ctx) => {
      if (!limiter.take('fix_repository')) return c.toolError(c.S('errors.rateLimited', { tool: 'fix_repository' }));
      const loc = locale ?? c.L;
      const dir = c.confinedFolder(path);
      if (!dir) return c.refused(loc, 'path');
      // The fixes and the analyser load on the first call, not when the server starts.
      const { FixRefused, fixRepository, gitState } = await import('../fix/index.js');
      const { outcomeLine, summaryOf } = await import('../fix/render.js');
      try {
        // A tree with changes (or outside git) is refused before the user is asked anything.
        if (apply && !force) {
          const g = await gitState(dir);
          if (g.state === 'not-git') throw new FixRefused('not-git');
          if (g.state === 'dirty') throw new FixRefused('dirty-tree', { count: g.count });
        }
        const planned = await fixRepository({ dir, rules, force, locale: loc, dryRun: true, signal: ctx.mcpReq.signal });
        let res = planned;
        if (apply && planned.diff) {
          const files = [...new Set([...planned.diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!))];
          const gate = await confirmPlan(ctx, { kind: 'fix', dir, files, diff: planned.diff }, loc, () => server.server.getClientCapabilities());
          if (!gate.go) return gate.result;
          log.info({ files: files.length, how: gate.how }, 'fix_repository applies its fixes');
          res = await fixRepository({ dir, rules, force, locale: loc, signal: ctx.mcpReq.signal });
        }
        const truncated = res.diff.length > MAX_DIFF;
        const diff = truncated ? res.diff.slice(0, res.diff.lastIndexOf('\n', MAX_DIFF) + 1) : res.diff;
        const lines = res.outcomes.map((o) => outcomeLine(o, loc, (s) => quoteInert(s)));
        const text = [
          summaryOf(res, loc),
          res.dryRun ? t(loc, 'fix.dryRun') : '',
          ...lines,
          diff ? `\n${diff}` : '',
          truncated ? t(loc, 'server.truncated', { cli: `mcp-doctor fix ${path} --dry-run` }) : '',
        ]
          .filter(Boolean)
          .join('\n');
        return {
          content: [{ type: 'text' as const, text }],
          structuredContent: {
            applied: !res.dryRun,
            diff,
            ...(truncated ? { truncated } : {}),
            written: res.written,
            outcomes: res.outcomes.map((o) => ({
              state: o.state,
              ruleId: o.target.ruleId,
              messageId: o.target.messageId,
              ...(o.target.file ? { file: o.target.file } : {}),
              ...(o.target.line ? { line: o.target.line } : {}),
              ...(o.reason ? { note: o.reason } : o.questions?.length ? { note: o.questions.join(', ') } : {}),
            })),
          },
        };
      } catch (e) {
        if (e instanceof FixRefused) {
          const key = e.code === 'dirty-tree' ? 'server.errors.fixDirty' : e.code === 'not-git' ? 'server.errors.fixNotGit' : 'cli.errors.fixRules';
          return c.toolError(t(loc, key, { path: quoteInert(path), ...e.data }));
        }
        if ((e as Error)?.name === 'AbortError') throw e;
        log.error({ err: e }, 'fix_repository failed');
        return c.toolError(t(loc, 'server.errors.auditFailed'));
      }
    },
  );
}
