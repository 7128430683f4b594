import { couldNotJudge } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import type { SessionFacts } from '../../../facts/session.js';
import type { ConnectionLabel } from '../../../probe/session.js';
import { HOST_META, HOST_NAME, HOST_TOOL } from '../../../extensions/host-meta.js';
import type { HookRun } from '../../../extensions/host.js';
import { isObj, type Obj } from './dynamic-support.js';

/**
 * The calls of mcp-doctor's extension host (src/extensions/host.ts) in a recorded session, read from the raw
 * messages: shared by the E-2 and E-6 dynamic parts. A session of another server, a host whose extension
 * did not load, or no call of the host's tool is could-not-judge with the reason.
 */

export interface HostCall {
  era: ConnectionLabel;
  text: string;
  answered: boolean;
  error: boolean;
  /** The first content text of the result, when there is one. */
  got?: string;
  hooks: HookRun[];
}

export function hostCalls(session: SessionFacts): { ok: true; calls: HostCall[] } | { ok: false; verdict: Verdict } {
  const eras = (['modern', 'legacy'] as const).filter((e) => session.serverInfo(e)?.name === HOST_NAME);
  if (eras.length === 0) return { ok: false, verdict: couldNotJudge('no-extension-host-session', { host: HOST_NAME }) };
  const calls: HostCall[] = [];
  let loaded: unknown;
  for (const era of eras) {
    for (const e of session.calls(era, 'tools/call')) {
      const p = isObj(e.request.params) ? e.request.params : {};
      const args = isObj(p.arguments) ? p.arguments : {};
      if (p.name !== HOST_TOOL || typeof args.text !== 'string') continue;
      const r = e.response && isObj(e.response.result) ? (e.response.result as Obj) : undefined;
      const meta = r && isObj(r._meta) && isObj(r._meta[HOST_META]) ? (r._meta[HOST_META] as Obj) : undefined;
      loaded ??= meta?.loaded;
      const content = r && Array.isArray(r.content) && isObj(r.content[0]) ? r.content[0] : undefined;
      const hooks = meta && Array.isArray(meta.hooks) ? (meta.hooks.filter(isObj) as unknown as HookRun[]) : [];
      if (r?.isError === true && /validation/i.test(String(content?.text ?? ''))) continue; // schema-invalid probe call
      calls.push({
        era,
        text: args.text,
        answered: !!e.response,
        error: !!e.response?.error || r?.isError === true,
        got: typeof content?.text === 'string' ? content.text : undefined,
        hooks,
      });
    }
  }
  if (loaded !== undefined && loaded !== 'ok') return { ok: false, verdict: couldNotJudge('extension-not-loaded', { loaded: String(loaded) }) };
  if (calls.length === 0) return { ok: false, verdict: couldNotJudge('host-tool-not-called', { tool: HOST_TOOL }) };
  return { ok: true, calls };
}
