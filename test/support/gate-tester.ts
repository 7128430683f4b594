import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { loadCatalog } from '../../src/engine/catalog.js';
import { defaultConfig, loadConfig } from '../../src/engine/config.js';
import type { Detector } from '../../src/engine/detector.js';
import { judgeRule } from '../../src/engine/runner.js';
import { STATES, type State } from '../../src/engine/types.js';
import { gatherGate, type CatalogAnswer, type Got } from '../../src/facts/gate.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { packageRoot, sourceDirOf } from '../../src/engine/paths.js';

/**
 * The gate tester. A gate fixture is `fixtures/<expected state>/<name>/` holding `gate.json` (the scenario),
 * `repo/` (a small package shaped like a published one) and, when the scenario says so, a saved registry
 * metadata file. At test time the package is copied to a temporary folder, made a real git repository
 * (committed, tagged as the scenario says), edited after the commit when asked (a release built from a dirty
 * tree), packed into a real tarball with `npm pack` when asked, and the GitHub API is a local server on port 0
 * that knows the runs the scenario lists. The gate input is then gathered by the product's own code.
 */

export interface GateScenario {
  /** Lines of a .gitignore written before the commit (a package whose build output is not tracked). */
  gitignore?: string[];
  /** Generated files written before the commit: path -> size in bytes (a JS data table too large to read). */
  generated?: Record<string, number>;
  /** No `git init`: the folder is not a repository. */
  noGit?: boolean;
  /** Tag(s) of the commit. */
  tags?: string[];
  /** Files written after the commit (path relative to the package -> content). */
  edit?: Record<string, string>;
  /** Pack a real tarball (npm pack) after the edits and give it as --tarball. */
  tarball?: boolean;
  /** A saved attestation document of the fixture (--attestations), for C-17's Sigstore verification. */
  attestations?: string;
  /** The time the trust material's expiry is compared with (ISO date; default now). */
  now?: string;
  /** A registry metadata file of the fixture (--registry-metadata); absent: offline. */
  registry?: string;
  /** Environment of the gate (CI variables); GITHUB_API_URL is set to the local API when `github` is given. */
  env?: Record<string, string>;
  /** The runs the local GitHub API knows: id -> { status, full_name }. */
  github?: Record<string, { status: string; full_name: string }>;
  /** C-14: the name the fixture's catalogue serves its search tool under (default search_components). */
  catalogTool?: string;
}

/** Ask the catalogue a fixture names (C-14): the package folder, the fixture folder, the scenario. */
export type CatalogHook = (root: string, fixture: string, scenario: GateScenario) => Promise<Got<CatalogAnswer> | undefined>;

export const isGateFixture = (dir: string): boolean => existsSync(join(dir, 'gate.json'));

function githubApi(runs: Record<string, { status: string; full_name: string }>): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.url} ${req.headers.authorization ? 'with-token' : 'no-token'}`);
    const m = /^\/repos\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)$/.exec(req.url ?? '');
    const run = m ? runs[m[2]!] : undefined;
    if (!m || !run || !req.headers.authorization) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: Number(m[2]), status: run.status, repository: { full_name: run.full_name } }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, asked })));
}

const git = (cwd: string, args: string[]) =>
  execa('git', ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.org', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args], { cwd });

/** Build the scenario's repository in a temporary folder; returns the folder and the gate options. */
export async function buildGateCase(dir: string, scenario: GateScenario, tmp: string) {
  const root = join(tmp, 'pkg');
  cpSync(join(dir, 'repo'), root, { recursive: true });
  if (scenario.gitignore) writeFileSync(join(root, '.gitignore'), scenario.gitignore.join('\n') + '\n');
  for (const [f, size] of Object.entries(scenario.generated ?? {})) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    const head = '// Generated data table.\nexport const table = "';
    writeFileSync(join(root, f), head + 'a'.repeat(Math.max(0, size - head.length - 3)) + '";\n');
  }
  if (!scenario.noGit) {
    await git(root, ['init', '-q', '-b', 'main']);
    await git(root, ['add', '-A']);
    await git(root, ['commit', '-q', '-m', 'release']);
    for (const t of scenario.tags ?? []) await git(root, ['tag', t]);
  }
  for (const [f, text] of Object.entries(scenario.edit ?? {})) writeFileSync(join(root, f), text);
  let tarball: string | undefined;
  if (scenario.tarball) {
    const out = join(tmp, 'out');
    mkdirSync(out);
    const r = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], { cwd: root, stdin: 'ignore' }).catch(async (e) => {
      throw new Error(`npm pack failed: ${(e as Error).message}`);
    });
    const list = JSON.parse(r.stdout) as { filename: string }[];
    tarball = join(out, list[0]!.filename);
  }
  return { root, tarball };
}

/** Gather and judge one rule's gate (or other) part for a gate fixture. */
export async function judgeGateFixture(
  ruleId: string,
  detectors: readonly Detector[],
  dir: string,
  opts: { catalog?: CatalogHook } = {},
) {
  const scenario = JSON.parse(readFileSync(join(dir, 'gate.json'), 'utf8')) as GateScenario;
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-doctor-gate-'));
  let api: Awaited<ReturnType<typeof githubApi>> | undefined;
  try {
    const { root, tarball } = await buildGateCase(dir, scenario, tmp);
    if (scenario.github) api = await githubApi(scenario.github);
    const env = { ...(scenario.env ?? {}), ...(api ? { GITHUB_API_URL: api.url } : {}) };
    const gate = await gatherGate({
      root,
      tarball,
      registryMetadata: scenario.registry ? join(dir, scenario.registry) : undefined,
      attestations: scenario.attestations ? join(dir, scenario.attestations) : undefined,
      now: scenario.now ? new Date(scenario.now) : undefined,
      // Tests never reach the real registry; the GitHub API is the local one.
      offlineRegistry: true,
      env,
      catalog: opts.catalog ? () => opts.catalog!(root, dir, scenario) : undefined,
    });
    const rule = loadCatalog().byId.get(ruleId)!;
    const config = existsSync(join(root, '.mcp-doctor.json')) ? loadConfig(root).config : defaultConfig();
    const repo = RepoFacts.gather(root, config.ignorePaths);
    const result = judgeRule(rule, detectors, { repo: { ok: true, value: repo }, gate: { ok: true, value: gate } }, config, config.targetKind ?? repo.kind());
    return { result, gate, asked: api?.asked ?? [] };
  } finally {
    api?.server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

interface Expectation {
  messages?: { messageId: string; file?: string; line?: number }[];
  reason?: string;
}

/** Run every gate fixture of a detector folder (those with gate.json), on the given genre's part. */
export function testGateFolder(
  ruleId: string,
  detectors: readonly Detector[],
  moduleUrl: string,
  opts: { genre?: 'gate' | 'dynamic'; catalog?: CatalogHook } = {},
): void {
  const genre = opts.genre ?? 'gate';
  const fixtures = join(sourceDirOf(moduleUrl), 'fixtures');
  const cases: { state: State; name: string; dir: string }[] = [];
  for (const state of existsSync(fixtures) ? readdirSync(fixtures).sort() : []) {
    assert.ok((STATES as readonly string[]).includes(state), `fixture folder ${state} is a state`);
    for (const name of readdirSync(join(fixtures, state)).sort()) {
      const dir = join(fixtures, state, name);
      if (isGateFixture(dir)) cases.push({ state: state as State, name, dir });
    }
  }
  describe(`${ruleId} (${genre}) gate fixtures`, () => {
    it('has a red, a green and a could-not-judge gate fixture', () => {
      assert.ok(cases.some((c) => c.state === 'present'), 'a green fixture');
      assert.ok(cases.some((c) => c.state === 'absent' || c.state === 'non-conforming'), 'a red fixture');
      assert.ok(cases.some((c) => c.state === 'could-not-judge'), 'a could-not-judge fixture');
    });
    for (const c of cases) {
      it(`${c.state}/${c.name}`, async () => {
        const { result } = await judgeGateFixture(ruleId, detectors, c.dir, { catalog: opts.catalog });
        const part = result.parts.find((p) => p.genre === genre);
        assert.ok(part, 'the part was judged');
        assert.equal(part.state, c.state, `state of ${relative(packageRoot(), c.dir)}: ${JSON.stringify(part)}`);
        const ef = join(c.dir, 'expect.json');
        const expect = existsSync(ef) ? (JSON.parse(readFileSync(ef, 'utf8')) as Expectation) : undefined;
        if (c.state === 'could-not-judge' || c.state === 'not-applicable') assert.ok(part.reason?.code, 'a reason is given');
        if (expect?.reason) assert.equal(part.reason?.code, expect.reason);
        if (c.state === 'absent' || c.state === 'non-conforming') assert.ok(part.findings.length > 0, 'a red verdict carries findings');
        if (expect?.messages) {
          const got = part.findings.map((f) => ({
            messageId: f.messageId,
            ...(expect.messages!.some((m) => m.file !== undefined) ? { file: f.location?.file } : {}),
            ...(expect.messages!.some((m) => m.line !== undefined) ? { line: f.location?.line } : {}),
          }));
          assert.deepEqual(got, expect.messages);
        }
      });
    }
  });
}
