#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
import { HOST_META, HOST_NAME, HOST_TOOL } from './host-meta.js';

/**
 * A small MCP host server of mcp-doctor's own that loads one extension and runs its lifecycle hooks around
 * a single tool, so that the E-2 and E-6 dynamic parts can observe the extension under a probe:
 *
 *   mcp-doctor probe --exercise read-only --source ./my-extension -- node <mcp-doctor>/dist/src/extensions/host.js ./my-extension
 *
 * The extension is untrusted code: it runs only inside this process, which the probe starts with its usual
 * containment, and only when the user asked for that dynamic run. The host serves one read-only tool,
 * `host_echo`, whose bare answer is `echo: <text>`. Each call runs `beforeCall`, the tool, then `afterCall`
 * (`onError` when something failed); `init` runs once at start. Every hook races its budget (extension.json
 * `timeouts`, else init 5000 ms, beforeCall 1000 ms, afterCall 1000 ms, onError 500 ms): an overrun is
 * abandoned with a warning on stderr and the call goes on without it. The host never blocks on a hook.
 *
 * What happened is reported as data in each result's `_meta["dev.mcp-doctor/host"]`: the extension's
 * identifier, and for every hook run its name, duration, budget and outcome (ok, timeout, error, skipped).
 * The probe client declares no extension: what it sees is what a client unaware of the extension gets (E-2).
 */

// The names the probe and the detectors read (host-meta.ts: light, without the server SDK).
export { HOST_META, HOST_NAME, HOST_TOOL };
export const DEFAULT_BUDGETS: Readonly<Record<HookName, number>> = { init: 5000, beforeCall: 1000, afterCall: 1000, onError: 500 };

export type HookName = 'init' | 'beforeCall' | 'afterCall' | 'onError';
const HOOKS: readonly HookName[] = ['init', 'beforeCall', 'afterCall', 'onError'];
/** extension.json `timeouts` keys (snake_case, as in `lifecycle`) → hook names. */
const MANIFEST_KEYS: Record<string, HookName> = { init: 'init', before_call: 'beforeCall', after_call: 'afterCall', on_error: 'onError' };

export interface HookRun {
  hook: HookName;
  ms: number;
  budgetMs: number;
  outcome: 'ok' | 'timeout' | 'error';
}

interface CallContext {
  tool: string;
  input: unknown;
  output?: unknown;
  error?: unknown;
  clientExtensions: string[];
}

type Hook = (ctx?: CallContext) => unknown;

const warn = (o: Record<string, unknown>): void => {
  process.stderr.write(JSON.stringify({ mcpDoctorHost: true, ...o }) + '\n');
};

/** Budgets: the defaults, overridden by positive finite numbers in extension.json `timeouts`. */
export function budgetsOf(manifest: Record<string, unknown>): Record<HookName, number> {
  const out = { ...DEFAULT_BUDGETS };
  const t = manifest.timeouts;
  if (t && typeof t === 'object' && !Array.isArray(t)) {
    for (const [k, v] of Object.entries(t)) {
      const hook = MANIFEST_KEYS[k] ?? (HOOKS as readonly string[]).find((h) => h === k);
      if (hook && typeof v === 'number' && Number.isFinite(v) && v > 0) out[hook as HookName] = v;
    }
  }
  return out;
}

/** Run one hook against its budget; never throws, never waits past the budget. */
export async function runHook(name: HookName, fn: Hook | undefined, ctx: CallContext | undefined, budgetMs: number, runs: HookRun[]): Promise<unknown> {
  if (typeof fn !== 'function') return undefined;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), budgetMs);
    timer.unref?.();
  });
  try {
    const out = await Promise.race([Promise.resolve().then(() => fn(ctx)), timeout]);
    const ms = Math.round(performance.now() - started);
    if (out === 'timeout') {
      runs.push({ hook: name, ms, budgetMs, outcome: 'timeout' });
      warn({ event: 'hook-timeout', hook: name, budgetMs });
      return undefined;
    }
    runs.push({ hook: name, ms, budgetMs, outcome: 'ok' });
    return out;
  } catch (e) {
    runs.push({ hook: name, ms: Math.round(performance.now() - started), budgetMs, outcome: 'error' });
    warn({ event: 'hook-error', hook: name, error: e instanceof Error ? e.name : typeof e });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** The extension's entry module: package.json main (a JavaScript file), else index.js or src/index.js. */
function entryOf(dir: string): string | undefined {
  let main: unknown;
  try {
    main = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { main?: unknown }).main;
  } catch {
    main = undefined;
  }
  const candidates = [typeof main === 'string' ? main : '', 'index.js', 'index.mjs', 'src/index.js', 'src/index.mjs', 'dist/index.js'].filter((f) => /\.(?:m|c)?js$/.test(f));
  for (const f of candidates) {
    const p = resolve(dir, f);
    if (p.startsWith(resolve(dir)) && existsSync(p)) return p;
  }
  return undefined;
}

/** The hooks an entry module exposes: its default export's members, or named exports. */
function hooksOf(mod: Record<string, unknown>): Partial<Record<HookName, Hook>> {
  const d = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>) : {};
  const out: Partial<Record<HookName, Hook>> = {};
  for (const h of HOOKS) {
    const f = d[h] ?? mod[h];
    if (typeof f === 'function') out[h] = f as Hook;
  }
  return out;
}

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? '.');
  let manifest: Record<string, unknown> = {};
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    warn({ event: 'manifest-unreadable' });
  }
  const identifier = typeof manifest.identifier === 'string' ? manifest.identifier.slice(0, 200) : '';
  const budgets = budgetsOf(manifest);
  const entry = entryOf(dir);
  let hooks: Partial<Record<HookName, Hook>> = {};
  let loaded: 'ok' | 'no-entry' | 'failed' = 'no-entry';
  if (entry) {
    try {
      hooks = hooksOf((await import(pathToFileURL(entry).href)) as Record<string, unknown>);
      loaded = 'ok';
    } catch (e) {
      loaded = 'failed';
      warn({ event: 'load-failed', error: e instanceof Error ? e.name : typeof e });
    }
  }
  const initRuns: HookRun[] = [];
  await runHook('init', hooks.init, undefined, budgets.init, initRuns);

  serveStdio(() => {
    const server = new McpServer({ name: HOST_NAME, version: '1' });
    server.registerTool(
      HOST_TOOL,
      {
        description: 'Echo a text back. The bare answer is "echo: <text>"; the extension under test runs around it.',
        inputSchema: z.object({ text: z.string().max(200) }),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      async ({ text }) => {
        const runs: HookRun[] = [];
        const ctx: CallContext = { tool: HOST_TOOL, input: { text }, clientExtensions: [] };
        let text2 = `echo: ${text}`;
        const failed = () => runs.some((r) => r.outcome === 'error');
        await runHook('beforeCall', hooks.beforeCall, ctx, budgets.beforeCall, runs);
        ctx.output = { content: [{ type: 'text', text: text2 }] };
        await runHook('afterCall', hooks.afterCall, ctx, budgets.afterCall, runs);
        const out = ctx.output as { content?: { text?: unknown }[] } | undefined;
        const t = out?.content?.[0]?.text;
        text2 = typeof t === 'string' ? t.slice(0, 1000) : text2;
        if (failed()) {
          ctx.error = new Error('a hook failed');
          await runHook('onError', hooks.onError, ctx, budgets.onError, runs);
        }
        return {
          content: [{ type: 'text' as const, text: text2 }],
          _meta: { [HOST_META]: { identifier, loaded, budgets, hooks: [...initRuns, ...runs] } },
        };
      },
    );
    return server;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main();
