import { existsSync } from 'node:fs';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { CONFIG_FILE, ConfigError, loadConfig } from '../engine/config.js';
import { t } from '../engine/i18n.js';
import { log } from '../engine/log.js';
import { quoteInert } from '../report/text.js';

/**
 * probe_endpoint starts programs, and its arguments may come from a model steered by text it read. So before a
 * command is started (or a private address reached), the human confirms the exact command line, working
 * directory and extra environment through a form-mode elicitation: `inputRequired(...)`, which the 2026-07-28
 * era carries as an input_required result and the SDK's shim turns into a real `elicitation/create` request on
 * 2025-era connections. A client that cannot elicit gets only what the user allow-listed beforehand
 * (MCP_DOCTOR_ALLOW_COMMANDS / MCP_DOCTOR_ALLOW_ENV, or `probe` in the `.mcp-doctor.json` of the folder the server
 * was started in); the rest is refused. A declined or cancelled confirmation runs nothing.
 *
 * The confirmation is bound to what it shows: the requestState carries a digest of the plan and a one-time
 * nonce, sealed with an HMAC key that lives only in this process, so a retry cannot swap the command, replay an
 * old answer, or forge one.
 */

export const ALLOW_COMMANDS_ENV = 'MCP_DOCTOR_ALLOW_COMMANDS';
export const ALLOW_ENV_ENV = 'MCP_DOCTOR_ALLOW_ENV';
const CONFIRM_KEY = 'confirm_probe';
const TTL_SECONDS = 600;

export type Plan =
  | { kind: 'command'; command: string[]; cwd: string; env: Record<string, string>; exercise: boolean }
  | { kind: 'url'; url: string; allowPrivate: true; exercise: boolean }
  /** audit_client_config with probe: every configured stdio server of the set is started (remote ones go through the SSRF policy). */
  | { kind: 'set'; commands: { name: string; command: string[]; cwd: string; env: Record<string, string> }[]; urls: string[]; allowPrivate: boolean }
  /** fix_repository with apply: the files of `dir` that the planned diff (its digest) changes or creates. */
  | { kind: 'fix'; dir: string; files: string[]; diff: string };

type State = { d: string; n: string };
const codec = createRequestStateCodec<State>({ key: randomBytes(32), ttlSeconds: TTL_SECONDS });
/** The requestState verifier to give the server (ServerOptions.requestState.verify). */
export const verifyRequestState = codec.verify;

/** Nonces minted and not yet answered, with their expiry (ms). One confirmation starts one run. */
const pending = new Map<string, number>();

const digestOf = (plan: Plan): string =>
  createHash('sha256')
    .update(JSON.stringify(plan.kind === 'command' ? { ...plan, env: Object.entries(plan.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) } : plan))
    .digest('base64url');

const Answer = z.object({ run: z.boolean() });

/** Whether the client can show a form: `elicitation: {}` (the 2025 rule) or `elicitation.form`. */
export function canElicitForm(ctx: ServerContext, fallback: () => ClientCapabilities | undefined): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? fallback();
  const e = caps?.elicitation as Record<string, unknown> | undefined;
  if (!e || typeof e !== 'object') return false;
  return 'form' in e || !('url' in e);
}

const Prefixes = z.array(z.array(z.string().min(1)).min(1));
const EnvName = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface AllowList {
  commands: string[][];
  envNames: string[];
  /** Sources that could not be read and were ignored (an environment variable name or the config file name). */
  invalid: string[];
}

/** The user's allow-list: the environment variables, then `probe` of `.mcp-doctor.json` in `dir` (the server's start folder). */
export function readAllowList(env: NodeJS.ProcessEnv = process.env, dir: string = process.cwd()): AllowList {
  const out: AllowList = { commands: [], envNames: [], invalid: [] };
  const rawCommands = env[ALLOW_COMMANDS_ENV];
  if (rawCommands?.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawCommands);
    } catch {
      parsed = undefined;
    }
    const r = Prefixes.safeParse(parsed);
    if (r.success) out.commands.push(...r.data);
    else out.invalid.push(ALLOW_COMMANDS_ENV);
  }
  const rawEnv = env[ALLOW_ENV_ENV];
  if (rawEnv?.trim()) {
    const names = rawEnv.split(/[\s,]+/).filter(Boolean);
    if (names.every((n) => EnvName.test(n))) out.envNames.push(...names);
    else out.invalid.push(ALLOW_ENV_ENV);
  }
  // A working directory that does not exist holds no configuration file (nothing to ignore or name).
  if (existsSync(dir)) {
    try {
      const { config } = loadConfig(dir);
      out.commands.push(...config.probe.allowCommands);
      out.envNames.push(...config.probe.allowEnv);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      log.warn({ issues: e.issues }, 'the allow-list in the configuration file was ignored');
      out.invalid.push(CONFIG_FILE);
    }
  }
  return out;
}

/** An allow-list entry is an exact argv prefix. */
export const commandAllowed = (list: AllowList, argv: string[]): boolean =>
  list.commands.some((p) => p.length <= argv.length && p.every((a, i) => a === argv[i]));

/** Text shown to the human: every value quoted inertly and whole (the input schema bounds their size). */
const shown = (s: string) => quoteInert(s, Number.POSITIVE_INFINITY);

function confirmMessage(plan: Plan, loc: string): string {
  if (plan.kind === 'fix') return t(loc, 'server.confirm.messageFix', { dir: shown(plan.dir), count: plan.files.length, files: plan.files.map(shown).join('\n') });
  if (plan.kind === 'set') {
    const lines = plan.commands.map((c) => {
      const env = Object.keys(c.env);
      return `- ${shown(c.name)}: ${c.command.map(shown).join(' ')}${env.length ? ` (${t(loc, 'server.confirm.setEnv', { names: env.join(', ') })})` : ''}`;
    });
    return t(loc, 'server.confirm.messageSet', { count: plan.commands.length, servers: lines.join('\n'), cwd: shown(plan.commands[0]?.cwd ?? ''), urls: plan.urls.length ? plan.urls.map(shown).join(' ') : t(loc, 'server.confirm.noEnv'), private: plan.allowPrivate ? 'yes' : 'no' });
  }
  if (plan.kind === 'url') {
    return t(loc, 'server.confirm.messageUrl', { url: shown(plan.url), exercise: plan.exercise ? t(loc, 'server.confirm.exercise') : '' });
  }
  const env = Object.entries(plan.env);
  return t(loc, 'server.confirm.message', {
    command: plan.command.map(shown).join(' '),
    cwd: shown(plan.cwd),
    env: env.length ? env.map(([k, v]) => `${k}=${shown(v)}`).join(' ') : t(loc, 'server.confirm.noEnv'),
    exercise: plan.exercise ? t(loc, 'server.confirm.exercise') : '',
  });
}

type Refusal = { content: { type: 'text'; text: string }[]; isError: true };
const refusal = (text: string): Refusal => ({ content: [{ type: 'text', text }], isError: true });

export type Gate = { go: true; how: 'confirmed' | 'allow-listed' | 'argument' } | { go: false; result: Refusal | ReturnType<typeof inputRequired> };

/**
 * Decide whether the plan may run now: ask (an input_required result to return), go, or a refusal to return.
 */
export async function confirmPlan(
  ctx: ServerContext,
  plan: Plan,
  loc: string,
  clientCapabilities: () => ClientCapabilities | undefined,
  allowList: () => AllowList = () => readAllowList(),
): Promise<Gate> {
  const digest = digestOf(plan);
  if (!canElicitForm(ctx, clientCapabilities)) {
    // fix_repository edits files only in a folder of the roots, and only when called with apply: true.
    if (plan.kind === 'fix') return { go: true, how: 'argument' };
    if (plan.kind === 'url') return { go: false, result: refusal(t(loc, 'server.confirm.privateNoElicitation')) };
    if (plan.kind === 'set') return setWithoutElicitation(plan, loc, allowList());
    const list = allowList();
    const invalid = list.invalid.length ? ' ' + t(loc, 'server.confirm.allowListInvalid', { sources: list.invalid.join(', ') }) : '';
    if (!commandAllowed(list, plan.command)) {
      log.warn({ program: plan.command[0] }, 'probe_endpoint refused a command: no elicitation, not allow-listed');
      return { go: false, result: refusal(t(loc, 'server.confirm.noElicitation', { command: quoteInert(plan.command.join(' ')) }) + invalid) };
    }
    const extra = Object.keys(plan.env).filter((n) => !list.envNames.includes(n));
    if (extra.length) {
      log.warn({ program: plan.command[0], env: extra }, 'probe_endpoint refused environment variables that are not allow-listed');
      return { go: false, result: refusal(t(loc, 'server.confirm.envNotAllowed', { names: extra.join(', ') }) + invalid) };
    }
    return { go: true, how: 'allow-listed' };
  }

  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind === 'missing') {
    const now = Date.now();
    for (const [n, exp] of pending) if (exp < now) pending.delete(n);
    const nonce = randomUUID();
    pending.set(nonce, now + TTL_SECONDS * 1000);
    return {
      go: false,
      result: inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({
            message: confirmMessage(plan, loc),
            requestedSchema: {
              type: 'object',
              properties: {
                run: {
                  type: 'boolean',
                  title: t(loc, plan.kind === 'url' ? 'server.confirm.fieldUrl' : plan.kind === 'set' ? 'server.confirm.fieldSet' : plan.kind === 'fix' ? 'server.confirm.fieldFix' : 'server.confirm.field'),
                  description: t(loc, 'server.confirm.fieldHelp'),
                  default: false,
                },
              },
              required: ['run'],
            },
          }),
        },
        requestState: await codec.mint({ d: digest, n: nonce }),
      }),
    };
  }
  // A retry: the state (verified by the SDK before this handler ran) must name this very plan and a live nonce.
  const state = ctx.mcpReq.requestState<State>();
  const live = !!state && typeof state.n === 'string' && pending.delete(state.n);
  if (!state || !live || state.d !== digest) {
    log.warn({ plan: plan.kind }, 'probe_endpoint confirmation did not match the call');
    return { go: false, result: refusal(t(loc, 'server.confirm.mismatch')) };
  }
  if (answer.kind === 'elicit' && answer.action === 'accept' && acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY, Answer)?.run === true) {
    log.info({ plan: plan.kind }, 'probe_endpoint confirmed by the user');
    return { go: true, how: 'confirmed' };
  }
  log.info({ plan: plan.kind, action: answer.kind === 'elicit' ? answer.action : answer.kind }, 'probe_endpoint not confirmed: nothing started');
  return { go: false, result: refusal(t(loc, 'server.confirm.declined')) };
}

/**
 * A set to probe when the client cannot ask the user: every command must be allow-listed with every variable its
 * configuration gives it, and a private network needs a confirmation that cannot be asked, so it is refused.
 */
function setWithoutElicitation(plan: Extract<Plan, { kind: 'set' }>, loc: string, list: AllowList): Gate {
  const invalid = list.invalid.length ? ' ' + t(loc, 'server.confirm.allowListInvalid', { sources: list.invalid.join(', ') }) : '';
  if (plan.allowPrivate) return { go: false, result: refusal(t(loc, 'server.confirm.privateNoElicitation')) };
  for (const c of plan.commands) {
    if (!commandAllowed(list, c.command)) {
      log.warn({ program: c.command[0] }, 'audit_client_config refused a configured command: no elicitation, not allow-listed');
      return { go: false, result: refusal(t(loc, 'server.confirm.noElicitation', { command: quoteInert(c.command.join(' ')) }) + invalid) };
    }
    const extra = Object.keys(c.env).filter((n) => !list.envNames.includes(n));
    if (extra.length) return { go: false, result: refusal(t(loc, 'server.confirm.envNotAllowed', { names: extra.join(', ') }) + invalid) };
  }
  return { go: true, how: 'allow-listed' };
}
