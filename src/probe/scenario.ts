import type { Answer } from './stdio.js';
import { appTools } from './apps-discover.js';
import { plan, planApp, variedArguments } from './exercise.js';
import type { Exercise, ExerciseOption } from './exercises.js';
import type { JsonRpc, RecordedSession } from './session.js';

/**
 * What the probe asks a server, the same in both eras: list everything the server declares, list tools
 * again (ordering; both listings follow nextCursor to the end), send an invalid cursor, call an unknown tool (a name no tool has, so no handler
 * runs); with completions declared, ask for completions with valid and invalid input and in a burst.
 * By default no request can reach a tool handler. Two opt-ins (EXERCISES) do more:
 * - 'invalid-arguments': one tools/call per era with arguments that fail a tool's declared schema. A server
 *   that does not validate its input runs that handler (on an API wrapper: a live request to the vendor), so
 *   the target is a tool annotated read-only, not destructive and closed-world when one takes arguments, else
 *   the first tool that does.
 * - 'read-only': call the read-only, non-destructive, closed-world tools with schema-valid arguments; the
 *   invalid-arguments call is then sent too, but only to such a tool.
 */

export const MODERN = '2026-07-28';
export const LEGACY = '2025-06-18';
export const UNKNOWN_TOOL = 'mcp_doctor_probe_unknown_tool';
export const INVALID_CURSOR = 'mcp-doctor:not-a-cursor';
export const CLIENT_INFO = { name: 'mcp-doctor-probe', version: '1' };
/**
 * What the probe says it can do as a client: form elicitation, so that a server that asks the user for input
 * mid-call shows it (S-27 reads what it asks for). The probe never fills a form: it declines every
 * `elicitation/create` (stdio.ts), and never answers an `input_required` result.
 */
export const CLIENT_CAPABILITIES = { elicitation: {} };
/** completion/complete probes (S-15): an unknown prompt, an oversized value, control characters, a burst. */
export const UNKNOWN_PROMPT = 'mcp_doctor_probe_unknown_prompt';
export const OVERSIZED_LENGTH = 10_000;
export const CONTROL_VALUE = '\u0000\u001b[2J\u0007';
export const BURST_SIZE = 30;
export const BURST_META = 'mcp-doctor/burst';

export interface Requester {
  request(method: string, params?: unknown): Promise<Answer>;
}

export const envelope = (extra: Record<string, unknown> = {}) => ({
  ...extra,
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    ...((extra._meta as object) ?? {}),
  },
});

const result = (a: Answer): Record<string, unknown> | undefined =>
  a.kind === 'response' && typeof a.message.result === 'object' && a.message.result !== null ? (a.message.result as Record<string, unknown>) : undefined;

/** A modern result that asks the user for input (an elicitation among its input requests). */
function asksForInput(r: Record<string, unknown> | undefined): boolean {
  if (!r || r.resultType !== 'input_required' || typeof r.inputRequests !== 'object' || r.inputRequests === null) return false;
  return Object.values(r.inputRequests as Record<string, unknown>).some((x) => typeof x === 'object' && x !== null && (x as { method?: unknown }).method === 'elicitation/create');
}

/** Arguments that violate a JSON Schema (an empty object when something is required, else a wrongly typed property). */
export function invalidArguments(schema: unknown): Record<string, unknown> | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { required?: unknown; properties?: Record<string, { type?: unknown }> };
  if (Array.isArray(s.required) && s.required.length > 0) return {};
  const first = Object.entries(s.properties ?? {})[0];
  if (!first) return undefined;
  const wrong: Record<string, unknown> = { string: 12345, number: 'not-a-number', integer: 'not-an-integer', boolean: 'not-a-boolean', object: 7, array: 7 };
  const type = Array.isArray(first[1]?.type) ? first[1].type[0] : first[1]?.type;
  return typeof type === 'string' && type in wrong ? { [first[0]]: wrong[type] } : undefined;
}

/** One walk of a list: the call without a cursor, then each page's nextCursor sent back, up to maxPages pages. */
export async function listAll(c: Requester, method: string, p: (x?: Record<string, unknown>) => unknown, maxPages = 10): Promise<Record<string, unknown>[]> {
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const r = result(await c.request(method, p(cursor ? { cursor } : {})));
    if (!r) break;
    pages.push(r);
    cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return pages;
}

/** What the probe may do beyond the default requests, each only on explicit opt-in (see the top of this file). */
// In a module of their own, so that the faces declare their arguments without loading the schema compiler.
export { EXERCISES, type Exercise, type ExerciseOption } from './exercises.js';

export const exercisesOf = (x: ExerciseOption | undefined): Exercise[] => (x === undefined ? [] : typeof x === 'string' ? [x] : [...x]);

/** The action recorded when a tool could have received invalid arguments but the probe did not send them. */
export const SKIP_INVALID_ARGUMENTS = 'skip-invalid-arguments';

/** Opt-ins of this probe; the read-only calls are made once per probe (in the first era that answers). */
export interface ExerciseState {
  mode?: ExerciseOption;
  done: boolean;
  /**
   * Read-only calls that answered `input_required` with an elicitation: repeated once in the next era that
   * answers, so that S-27 sees whether 2025 clients are asked too (the SDK's shim sends elicitation/create).
   */
  elicited?: { name: unknown; args: unknown }[];
  replayed?: boolean;
  /** The App tools were called once (the `app` opt-in), in the first era that answered. */
  appCalled?: boolean;
}

type ListedTool = { name?: unknown; inputSchema?: unknown; annotations?: unknown };

/** Annotated read-only, not destructive and closed-world: the only tools a read-only opt-in may reach. */
export function isReadOnlyClosedWorld(t: ListedTool): boolean {
  const a = (typeof t.annotations === 'object' && t.annotations !== null ? t.annotations : {}) as Record<string, unknown>;
  return a.readOnlyHint === true && a.destructiveHint !== true && a.openWorldHint === false;
}

/**
 * The tool that gets schema-invalid arguments under the given opt-ins, or none. `candidate` is the tool that
 * would get them if the user opted in (to say what was not sent).
 */
export function invalidArgumentsTarget(tools: ListedTool[], mode: ExerciseOption | undefined): { target?: ListedTool; candidate?: ListedTool } {
  const takes = tools.filter((t) => typeof t.name === 'string' && invalidArguments(t.inputSchema));
  const safe = takes.find(isReadOnlyClosedWorld);
  const candidate = safe ?? takes[0];
  const opted = exercisesOf(mode);
  if (opted.includes('invalid-arguments')) return { target: candidate, candidate };
  if (opted.includes('read-only')) return { target: safe, candidate };
  return { candidate };
}

export async function exploreServer(
  c: Requester,
  capabilities: Record<string, unknown>,
  p: (x?: Record<string, unknown>) => unknown,
  actions: RecordedSession['actions'],
  step: (s: string) => void,
  exercise: ExerciseState = { done: true },
): Promise<void> {
  if (capabilities.tools) {
    step('tools/list');
    const pages = await listAll(c, 'tools/list', p);
    // Listed again, walked to its end too: X-11 compares the two orders, S-12 tells a cursor that serves a page
    // again (both walks alike) from an order that moved between the calls (the walks differ).
    await listAll(c, 'tools/list', p);
    await c.request('tools/list', p({ cursor: INVALID_CURSOR }));
    actions.push({ kind: 'invalid-cursor', detail: `tools/list with cursor ${JSON.stringify(INVALID_CURSOR)}` });
    step('tools/call (unknown tool)');
    await c.request('tools/call', p({ name: UNKNOWN_TOOL, arguments: {} }));
    actions.push({ kind: 'call-unknown-tool', detail: UNKNOWN_TOOL });
    const tools = pages.flatMap((pg) => (Array.isArray(pg.tools) ? (pg.tools as ListedTool[]) : []));
    const { target, candidate } = invalidArgumentsTarget(tools, exercise.mode);
    if (target) {
      const args = invalidArguments(target.inputSchema)!;
      step('tools/call (invalid arguments, opt-in)');
      await c.request('tools/call', p({ name: target.name, arguments: args }));
      actions.push({ kind: 'call-invalid-arguments', detail: `${String(target.name)} ${JSON.stringify(args)}` });
    } else if (candidate) {
      // Said once per probe, not once per era.
      const detail = String(candidate.name);
      if (!actions.some((a) => a.kind === SKIP_INVALID_ARGUMENTS && a.detail === detail)) actions.push({ kind: SKIP_INVALID_ARGUMENTS, detail });
    }
    if (exercise.done && exercise.elicited?.length && !exercise.replayed) {
      // The same read-only calls again, in this era: does a question asked through input_required reach it?
      exercise.replayed = true;
      for (const call of exercise.elicited) {
        step(`tools/call ${String(call.name)} (read-only, opt-in, asked for input in another era)`);
        await c.request('tools/call', p({ name: call.name, arguments: call.args }));
        actions.push({ kind: 'call-read-only-tool-again', detail: `${String(call.name)} ${JSON.stringify(call.args)}` });
      }
    }
    if (exercisesOf(exercise.mode).includes('read-only') && !exercise.done) {
      exercise.done = true;
      const { calls, skipped } = plan(tools as Record<string, unknown>[]);
      for (const x of skipped) actions.push({ kind: 'skip-tool', detail: `${x.name}: ${x.why}` });
      for (const call of calls) {
        step(`tools/call ${call.name} (read-only, opt-in)`);
        const answer = await c.request('tools/call', p({ name: call.name, arguments: call.args, _meta: { progressToken: `mcp-doctor-progress-${call.name}` } }));
        actions.push({ kind: 'call-read-only-tool', detail: `${call.name} ${JSON.stringify(call.args)}` });
        if (asksForInput(result(answer))) (exercise.elicited ??= []).push({ name: call.name, args: call.args });
        // An App tool called read-only is called once more with other arguments (read-only and closed-world, so within
        // this opt-in), as the `app` opt-in does: a text that stays the same sentence whatever the input stands for no
        // result. Under `app` that opt-in makes the second call itself.
        if (!exercisesOf(exercise.mode).includes('app') && appTools([tools.find((t) => t.name === call.name) as Record<string, unknown>]).length) {
          const varied = variedArguments(tools.find((t) => t.name === call.name) as Record<string, unknown>, call.args);
          if (varied) {
            step(`tools/call ${call.name} (read-only App tool, other arguments, opt-in)`);
            await c.request('tools/call', p({ name: call.name, arguments: varied }));
            actions.push({ kind: 'call-app-tool-varied', detail: `${call.name} ${JSON.stringify(varied)}` });
          }
        }
        // A paginated read-only tool also gets a cursor it never issued (C-11): it must refuse it.
        const schema = (tools.find((t) => t.name === call.name)?.inputSchema ?? {}) as { properties?: Record<string, unknown> };
        if (schema.properties && 'cursor' in schema.properties) {
          await c.request('tools/call', p({ name: call.name, arguments: { ...call.args, cursor: INVALID_CURSOR } }));
          actions.push({ kind: 'call-invalid-tool-cursor', detail: call.name });
        }
      }
    }
    if (exercisesOf(exercise.mode).includes('app') && !exercise.appCalled) {
      exercise.appCalled = true;
      const isApp = new Set(appTools(tools as Record<string, unknown>[]).map((a) => a.name));
      const { calls, skipped } = planApp(tools as Record<string, unknown>[], (t) => isApp.has(t.name as string));
      for (const x of skipped) actions.push({ kind: 'skip-tool', detail: `${x.name}: ${x.why}` });
      for (const call of calls) {
        step(`tools/call ${call.name} (App tool, opt-in)`);
        await c.request('tools/call', p({ name: call.name, arguments: call.args }));
        actions.push({ kind: 'call-app-tool', detail: `${call.name} ${JSON.stringify(call.args)}` });
        // Once more with other arguments: a text that stays the same sentence whatever the input stands for no result.
        const varied = variedArguments(tools.find((t) => t.name === call.name) as Record<string, unknown>, call.args);
        if (varied) {
          step(`tools/call ${call.name} (App tool, other arguments, opt-in)`);
          await c.request('tools/call', p({ name: call.name, arguments: varied }));
          actions.push({ kind: 'call-app-tool-varied', detail: `${call.name} ${JSON.stringify(varied)}` });
        }
      }
    }
  }
  let completionRef: { ref: Record<string, unknown>; argument: string } | undefined;
  if (capabilities.prompts) {
    step('prompts/list');
    const promptPages = await listAll(c, 'prompts/list', p);
    const prompts = promptPages.flatMap((pg) => (Array.isArray(pg.prompts) ? (pg.prompts as { name?: unknown; arguments?: { name?: unknown }[] }[]) : []));
    const withArg = prompts.find((x) => typeof x.name === 'string' && Array.isArray(x.arguments) && typeof x.arguments[0]?.name === 'string');
    if (withArg) completionRef = { ref: { type: 'ref/prompt', name: withArg.name }, argument: String(withArg.arguments![0]!.name) };
    // Listed twice: a change between the two calls must come with list_changed where it is declared (S-26).
    await c.request('prompts/list', p());
  }
  if (capabilities.resources) {
    step('resources/list');
    const pages = await listAll(c, 'resources/list', p);
    await c.request('resources/list', p());
    const templatePages = await listAll(c, 'resources/templates/list', p);
    if (!completionRef) {
      for (const pg of templatePages) {
        for (const t of Array.isArray(pg.resourceTemplates) ? (pg.resourceTemplates as { uriTemplate?: unknown }[]) : []) {
          const v = typeof t.uriTemplate === 'string' ? /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(t.uriTemplate) : null;
          if (v && !completionRef) completionRef = { ref: { type: 'ref/resource', uri: t.uriTemplate }, argument: v[1]! };
        }
      }
    }
    const resources = pages.flatMap((pg) => (Array.isArray(pg.resources) ? (pg.resources as { uri?: unknown }[]) : []));
    const uris = [...new Set([resources[0]?.uri, resources.find((r) => typeof r.uri === 'string' && r.uri.startsWith('ui://'))?.uri])].filter(
      (u): u is string => typeof u === 'string',
    );
    for (const uri of uris) {
      step('resources/read');
      await c.request('resources/read', p({ uri }));
    }
  }
  if (capabilities.completions && completionRef) await probeCompletions(c, completionRef, p, actions, step);
}

/**
 * completion/complete (S-15), when the server declares completions and lists a prompt argument or a
 * template variable: one valid request, an unknown prompt, an oversized value, control characters, then a
 * burst of BURST_SIZE requests sent at once (each marked in _meta so the detector can find them).
 */
export async function probeCompletions(
  c: Requester,
  target: { ref: Record<string, unknown>; argument: string },
  p: (x?: Record<string, unknown>) => unknown,
  actions: RecordedSession['actions'],
  step: (s: string) => void,
): Promise<void> {
  const ask = (ref: Record<string, unknown>, value: string, meta?: Record<string, unknown>) =>
    c.request('completion/complete', p({ ref, argument: { name: target.argument, value }, ...(meta ? { _meta: meta } : {}) }));
  step('completion/complete');
  await ask(target.ref, '');
  await ask({ type: 'ref/prompt', name: UNKNOWN_PROMPT }, '');
  await ask(target.ref, 'a'.repeat(OVERSIZED_LENGTH));
  await ask(target.ref, CONTROL_VALUE);
  actions.push({ kind: 'completion-invalid-input', detail: `${JSON.stringify(target.ref)} ${target.argument}: unknown prompt, ${OVERSIZED_LENGTH} characters, control characters` });
  step(`completion/complete (burst of ${BURST_SIZE})`);
  await Promise.all(Array.from({ length: BURST_SIZE }, (_, i) => ask(target.ref, '', { [BURST_META]: i })));
  actions.push({ kind: 'completion-burst', detail: `${BURST_SIZE} requests at once` });
}

export const capabilitiesOf = (r: Record<string, unknown> | undefined): Record<string, unknown> =>
  r && typeof r.capabilities === 'object' && r.capabilities !== null ? (r.capabilities as Record<string, unknown>) : {};

export { result as resultOf };
export type { JsonRpc };
