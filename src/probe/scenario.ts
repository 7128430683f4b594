import type { Answer } from './stdio.js';
import { plan } from './exercise.js';
import type { JsonRpc, RecordedSession } from './session.js';

/**
 * What the probe asks a server, the same in both eras: list everything the server declares, repeat
 * tools/list (ordering), send an invalid cursor, call an unknown tool, and call one tool with arguments
 * that fail its declared schema. No tool is called with valid arguments unless the user opts in.
 */

export const MODERN = '2026-07-28';
export const LEGACY = '2025-06-18';
export const UNKNOWN_TOOL = 'mcp_doctor_probe_unknown_tool';
export const INVALID_CURSOR = 'mcp-doctor:not-a-cursor';
export const CLIENT_INFO = { name: 'mcp-doctor-probe', version: '1' };

export interface Requester {
  request(method: string, params?: unknown): Promise<Answer>;
}

export const envelope = (extra: Record<string, unknown> = {}) => ({
  ...extra,
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    ...((extra._meta as object) ?? {}),
  },
});

const result = (a: Answer): Record<string, unknown> | undefined =>
  a.kind === 'response' && typeof a.message.result === 'object' && a.message.result !== null ? (a.message.result as Record<string, unknown>) : undefined;

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

async function listAll(c: Requester, method: string, p: (x?: Record<string, unknown>) => unknown, maxPages = 10): Promise<Record<string, unknown>[]> {
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

/** Opt-in: call read-only tools for real, once per probe (in the first era that answers). */
export interface ExerciseState {
  mode?: 'read-only';
  done: boolean;
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
    await c.request('tools/list', p());
    await c.request('tools/list', p({ cursor: INVALID_CURSOR }));
    actions.push({ kind: 'invalid-cursor', detail: `tools/list with cursor ${JSON.stringify(INVALID_CURSOR)}` });
    step('tools/call (unknown tool)');
    await c.request('tools/call', p({ name: UNKNOWN_TOOL, arguments: {} }));
    actions.push({ kind: 'call-unknown-tool', detail: UNKNOWN_TOOL });
    const tools = pages.flatMap((pg) => (Array.isArray(pg.tools) ? (pg.tools as { name?: unknown; inputSchema?: unknown }[]) : []));
    const target = tools.find((t) => typeof t.name === 'string' && invalidArguments(t.inputSchema));
    if (target) {
      const args = invalidArguments(target.inputSchema)!;
      step('tools/call (invalid arguments)');
      await c.request('tools/call', p({ name: target.name, arguments: args }));
      actions.push({ kind: 'call-invalid-arguments', detail: `${String(target.name)} ${JSON.stringify(args)}` });
    }
    if (exercise.mode === 'read-only' && !exercise.done) {
      exercise.done = true;
      const { calls, skipped } = plan(tools as Record<string, unknown>[]);
      for (const x of skipped) actions.push({ kind: 'skip-tool', detail: `${x.name}: ${x.why}` });
      for (const call of calls) {
        step(`tools/call ${call.name} (read-only, opt-in)`);
        await c.request('tools/call', p({ name: call.name, arguments: call.args, _meta: { progressToken: `mcp-doctor-progress-${call.name}` } }));
        actions.push({ kind: 'call-read-only-tool', detail: `${call.name} ${JSON.stringify(call.args)}` });
        // A paginated read-only tool also gets a cursor it never issued (C-11): it must refuse it.
        const schema = (tools.find((t) => t.name === call.name)?.inputSchema ?? {}) as { properties?: Record<string, unknown> };
        if (schema.properties && 'cursor' in schema.properties) {
          await c.request('tools/call', p({ name: call.name, arguments: { ...call.args, cursor: INVALID_CURSOR } }));
          actions.push({ kind: 'call-invalid-tool-cursor', detail: call.name });
        }
      }
    }
  }
  if (capabilities.prompts) {
    step('prompts/list');
    await listAll(c, 'prompts/list', p);
    // Listed twice: a change between the two calls must come with list_changed where it is declared (S-26).
    await c.request('prompts/list', p());
  }
  if (capabilities.resources) {
    step('resources/list');
    const pages = await listAll(c, 'resources/list', p);
    await c.request('resources/list', p());
    await listAll(c, 'resources/templates/list', p);
    const resources = pages.flatMap((pg) => (Array.isArray(pg.resources) ? (pg.resources as { uri?: unknown }[]) : []));
    const uris = [...new Set([resources[0]?.uri, resources.find((r) => typeof r.uri === 'string' && r.uri.startsWith('ui://'))?.uri])].filter(
      (u): u is string => typeof u === 'string',
    );
    for (const uri of uris) {
      step('resources/read');
      await c.request('resources/read', p({ uri }));
    }
  }
}

export const capabilitiesOf = (r: Record<string, unknown> | undefined): Record<string, unknown> =>
  r && typeof r.capabilities === 'object' && r.capabilities !== null ? (r.capabilities as Record<string, unknown>) : {};

export { result as resultOf };
export type { JsonRpc };
