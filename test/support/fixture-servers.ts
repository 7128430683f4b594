import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/engine/paths.js';
import { scrubbedEnv } from '../../src/probe/env.js';
import { probeStdio } from '../../src/probe/probe.js';
import type { RecordedSession } from '../../src/probe/session.js';

/**
 * Dynamic fixtures are real little servers: `fixtures/<state>/<name>/server.mjs` (or a command in
 * `probe.json`). `npm run fixtures:record` probes each one and writes `session.json` beside it; tests judge
 * the recording offline, and test/fixtures-live.test.ts probes the servers again to keep recordings honest.
 */

export interface FixtureServer {
  folder: string;
  dir: string;
  command: string[];
  env: Record<string, string>;
}

export function fixtureServers(): FixtureServer[] {
  const det = join(packageRoot(), 'src', 'detectors');
  const out: FixtureServer[] = [];
  for (const folder of readdirSync(det).sort()) {
    const fx = join(det, folder, 'fixtures');
    if (!existsSync(fx)) continue;
    for (const state of readdirSync(fx).sort()) {
      for (const name of readdirSync(join(fx, state)).sort()) {
        const dir = join(fx, state, name);
        const pj = join(dir, 'probe.json');
        if (existsSync(pj)) {
          const spec = JSON.parse(readFileSync(pj, 'utf8')) as { command: string[]; env?: Record<string, string> };
          out.push({ folder, dir, command: spec.command, env: spec.env ?? {} });
        } else if (existsSync(join(dir, 'server.mjs'))) out.push({ folder, dir, command: ['node', 'server.mjs'], env: {} });
      }
    }
  }
  return out;
}

/** Probe a fixture server, with timings normalised so recordings are stable. */
export async function recordFixture(f: FixtureServer): Promise<RecordedSession> {
  const [command, ...args] = f.command;
  const node = command === 'node' ? process.execPath : command!;
  const s = await probeStdio({
    target: { command: node, args, cwd: f.dir, env: scrubbedEnv(f.env) },
    limits: { requestTimeoutMs: 5000, connectionTimeoutMs: 30_000 },
  });
  s.startedAt = '1970-01-01T00:00:00.000Z';
  s.durationMs = 0;
  s.tool = { name: 'mcp-doctor', version: 'fixture' };
  s.target = { transport: 'stdio', command: f.command };
  for (const c of s.connections) {
    c.durationMs = 0;
    c.stderr = '';
    for (const m of c.messages) m.at = 0;
  }
  return s;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const only = process.argv[2];
  for (const f of fixtureServers().filter((x) => !only || x.dir.includes(only))) {
    const s = await recordFixture(f);
    writeFileSync(join(f.dir, 'session.json'), JSON.stringify(s, null, 2) + '\n');
    process.stderr.write(`recorded ${f.dir.slice(packageRoot().length + 1)}\n`);
  }
}
