import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { ENV_ALLOWLIST } from '../../src/probe/env.js';
import { MARKER_VAR } from '../../src/probe/proc.js';
import { CLEAN_TOOL, runCli, scratch, writeServer } from './support/servers.js';

/**
 * The probed process sees only the documented environment: the allowlist (src/probe/env.ts) and what the user
 * passes with --env. mcp-doctor's own variables (MCP_DOCTOR_*) never reach it; in the process-group fallback the
 * run's marker is the one documented exception (it is how the run's processes are found and killed).
 */

const s = scratch();
after(() => s.cleanup());

const OURS = { MCP_DOCTOR_LOG_LEVEL: 'warn', MCP_DOCTOR_ALLOW_ENV: '["X"]', MCP_DOCTOR_PARSE_BUDGET_MB: '5', MCP_DOCTOR_ROOTS: '/' };
const envSetup = (out: string) => `fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(process.env).sort()));`;

async function keysSeen(name: string, extraEnv: Record<string, string>): Promise<{ keys: string[]; method: string }> {
  const out = s.file(`${name}.json`);
  const server = writeServer(s, `${name}.mjs`, { setup: envSetup(out), tools: [CLEAN_TOOL] });
  const r = await runCli(['probe', '--format', 'json', '--no-source', '--timeout-ms', '20000', '--env', 'MY_SETTING=1', '--', process.execPath, server, s.tag], { env: { ...OURS, ...extraEnv } });
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const report = JSON.parse(r.stdout) as { inputs: { containment: { method: string } } };
  return { keys: JSON.parse(readFileSync(out, 'utf8')) as string[], method: report.inputs.containment.method };
}

describe('hostile: the environment a probed server sees', { skip: process.platform !== 'linux' && 'needs Linux' }, () => {
  it('holds only the allowlist and --env, no MCP_DOCTOR_* variable', async () => {
    const { keys, method } = await keysSeen('env-default', {});
    const allowed = new Set<string>([...ENV_ALLOWLIST, 'MY_SETTING', ...(method === 'process-group' ? [MARKER_VAR] : [])]);
    assert.deepEqual(keys.filter((k) => !allowed.has(k)), []);
    assert.ok(keys.includes('MY_SETTING'));
    if (method === 'pid-namespace') assert.ok(!keys.includes(MARKER_VAR), 'the run marker stays outside the namespace');
  });

  it('in the process-group fallback, the run marker is the only variable of ours', async () => {
    const { keys, method } = await keysSeen('env-fallback', { MCP_DOCTOR_CONTAINMENT: 'process-group' });
    assert.equal(method, 'process-group');
    assert.deepEqual(keys.filter((k) => !new Set<string>([...ENV_ALLOWLIST, 'MY_SETTING', MARKER_VAR]).has(k)), []);
  });
});
