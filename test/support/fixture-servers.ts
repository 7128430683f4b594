import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/engine/paths.js';
import { scrubbedEnv } from '../../src/probe/env.js';
import { spawn } from 'node:child_process';
import { probeHttp, probeStdio } from '../../src/probe/probe.js';
import { killTree } from '../../src/probe/stdio.js';
import type { RecordedSession } from '../../src/probe/session.js';
import type { ExerciseOption } from '../../src/probe/scenario.js';
import { attachApps } from '../../src/apps/probe-hook.js';

/** Fewer round trips than a real probe: enough for a p95 over a fixture, and a shorter browser run. */
const FIXTURE_HARNESS_LIMITS = { roundTripCalls: 5 };

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
  /** An HTTP fixture: the command starts a server that prints "listening <port>" on stderr. */
  http?: boolean;
  /** Opt-ins during the probe: invalid arguments, read-only calls. */
  exercise?: ExerciseOption;
  /** Locales to ask for, one connection each (C-20). */
  locales?: string[];
  /** An MCP App: render it with the host harness after the probe (src/apps), in the browser. */
  apps?: boolean;
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
          const spec = JSON.parse(readFileSync(pj, 'utf8')) as { command: string[]; env?: Record<string, string>; http?: boolean; exercise?: ExerciseOption; locales?: string[]; apps?: boolean };
          out.push({ folder, dir, command: spec.command, env: spec.env ?? {}, http: spec.http, exercise: spec.exercise, locales: spec.locales, apps: spec.apps });
        } else if (existsSync(join(dir, 'server.mjs'))) out.push({ folder, dir, command: ['node', 'server.mjs'], env: {} });
      }
    }
  }
  return out;
}

/** Start an HTTP fixture server on a free loopback port, probe it, stop it. */
async function probeHttpFixture(f: FixtureServer): Promise<RecordedSession> {
  const [command, ...args] = f.command;
  const child = spawn(command === 'node' ? process.execPath : command!, args, { cwd: f.dir, env: { ...scrubbedEnv(f.env), PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no "listening <port>" from ${f.dir}: ${err}`)), 10_000);
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /listening (\d+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.on('exit', () => reject(new Error(`fixture server exited: ${err}`)));
    });
    const s = await probeHttp({ url: `http://127.0.0.1:${port}/mcp`, limits: { requestTimeoutMs: 5000 } });
    s.target = { transport: 'http', url: 'http://127.0.0.1:0/mcp' };
    return s;
  } finally {
    await killTree(child.pid!);
  }
}

/** Probe a fixture server, with timings normalised so recordings are stable. */
export async function recordFixture(f: FixtureServer): Promise<RecordedSession> {
  const [command, ...args] = f.command;
  const node = command === 'node' ? process.execPath : command!;
  const s = f.http
    ? await probeHttpFixture(f)
    : await probeStdio({
        target: { command: node, args, cwd: f.dir, env: scrubbedEnv(f.env) },
        limits: { requestTimeoutMs: 5000, connectionTimeoutMs: 30_000 },
        exercise: f.exercise,
        locales: f.locales,
      });
  if (f.apps && !f.http) {
    await attachApps(s, { stdio: { command: node, args, cwd: f.dir, env: scrubbedEnv(f.env) } }, { exercise: f.exercise, limits: FIXTURE_HARNESS_LIMITS });
    if (s.apps?.connection) {
      s.apps.connection.durationMs = 0;
      s.apps.connection.stderr = '';
      for (const m of s.apps.connection.messages) m.at = 0;
    }
    if (s.apps) s.apps.durationMs = 0;
  }
  s.startedAt = '1970-01-01T00:00:00.000Z';
  s.durationMs = 0;
  s.tool = { name: 'mcp-doctor', version: 'fixture' };
  if (!f.http) s.target = { transport: 'stdio', command: f.command };
  const port = /127\.0\.0\.1:(\d+)/;
  for (const ex of [...(s.httpChecks ?? []), ...s.connections.flatMap((c) => c.http ?? [])]) {
    ex.at = 0;
    ex.request.url = ex.request.url.replace(port, '127.0.0.1:0');
    if (ex.response) delete ex.response.headers.date;
  }
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
