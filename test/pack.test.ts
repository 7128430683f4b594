import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot } from '../src/engine/paths.js';

const run = promisify(execFile);
const root = packageRoot();

/**
 * The packed artefact works on its own: `npm pack`, the tarball unpacked as npm installs it
 * (node_modules/mcp-doctor), its declared dependencies — and only those — linked from this checkout's
 * node_modules (offline: the registry is not asked), then audit, probe and serve run from the installed copy.
 * A file the package needs but does not ship (rules, i18n, a module), or a dependency it uses but does not
 * declare, fails here.
 */
describe('npm pack: the installed tarball runs on its own', () => {
  it('audit, probe and serve from the installed package', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'mcp-doctor-pack-'));
    try {
      const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: root, timeout: 300_000 });
      const tarball = join(scratch, stdout.trim().split('\n').at(-1)!);
      assert.ok(existsSync(tarball), tarball);
      const app = join(scratch, 'app');
      const installed = join(app, 'node_modules', 'mcp-doctor');
      mkdirSync(installed, { recursive: true });
      await run('tar', ['xzf', tarball, '-C', installed, '--strip-components=1'], { timeout: 120_000 });
      const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string>; dependencies: Record<string, string> };
      // The published object holds no tests, fixtures or sources of the repository.
      assert.ok(!existsSync(join(installed, 'test')) && !existsSync(join(installed, 'src')) && !existsSync(join(installed, 'node_modules')));
      // The tokenizer table the build writes (src/tokens/build-table.ts) ships with the code that reads it.
      assert.ok(existsSync(join(installed, 'dist', 'src', 'tokens', 'o200k_base.json')), 'dist/src/tokens/o200k_base.json is packed');
      for (const dep of Object.keys(pkg.dependencies)) {
        const link = join(app, 'node_modules', dep);
        mkdirSync(dirname(link), { recursive: true });
        symlinkSync(join(root, 'node_modules', dep), link, 'dir');
      }
      const bin = join(installed, pkg.bin['mcp-doctor']!);
      const env = { PATH: process.env.PATH ?? '', HOME: scratch, LANG: 'C', LC_ALL: 'C' };
      const cli = (args: string[]) =>
        run(process.execPath, [bin, ...args], { cwd: app, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }).then(
          (r) => ({ code: 0, ...r }),
          (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
        );
      const rules = readdirSync(join(installed, 'rules', 'en')).filter((f) => /^[A-Z]-\d+/.test(f)).length;

      // rules and explain, in both languages.
      const list = await cli(['rules', '--format', 'json']);
      assert.equal(list.code, 0, list.stderr);
      assert.equal((JSON.parse(list.stdout) as { rules: unknown[] }).rules.length, rules);
      const fr = await cli(['explain', 'C-4', '--locale', 'fr']);
      assert.equal(fr.code, 0, fr.stderr);
      assert.match(fr.stdout, /^# C-4 — /);

      // audit: a real report over the example server, every rule judged or said why not.
      const audit = await cli(['audit', join(root, 'examples', 'weather-server'), '--format', 'json', '--quiet']);
      assert.ok(audit.code === 0 || audit.code === 1, `audit exit ${audit.code}: ${audit.stderr}`);
      const report = JSON.parse(audit.stdout) as { results: { ruleId: string; state: string }[] };
      assert.equal(report.results.length, rules);
      assert.ok(report.results.some((r) => r.state === 'present'));

      // probe: the installed package probes its own installed server (serve), both eras answered.
      const probe = await cli(['probe', '--format', 'json', '--quiet', '--', process.execPath, bin, 'serve']);
      assert.ok(probe.code === 0 || probe.code === 1, `probe exit ${probe.code}: ${probe.stderr}`);
      const probed = JSON.parse(probe.stdout) as { results: { ruleId: string; state: string; reason?: { code?: string } }[] };
      assert.equal(probed.results.length, rules);
      const c21 = probed.results.find((r) => r.ruleId === 'C-21');
      assert.ok(c21 && c21.state !== 'could-not-judge', `C-21 judged from the served tools: ${JSON.stringify(c21)}`);

      // serve: initialize and tools/list over stdio, read from the raw messages.
      const tools = await new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, 'serve'], { cwd: app, env, stdio: ['pipe', 'pipe', 'ignore'] });
        let buf = '';
        const timer = setTimeout(() => {
          child.kill();
          reject(new Error('serve gave no tools/list answer'));
        }, 120_000);
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (d: string) => {
          buf += d;
          for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
            const m = JSON.parse(buf.slice(0, i)) as { id?: unknown; result?: { tools?: { name: string }[] } };
            buf = buf.slice(i + 1);
            if (m.id === 2) {
              clearTimeout(timer);
              child.kill();
              resolve((m.result?.tools ?? []).map((t) => t.name).sort());
            }
          }
        });
        const send = (m: object) => child.stdin.write(JSON.stringify(m) + '\n');
        send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      });
      assert.deepEqual(tools, ['audit_client_config', 'audit_repository', 'explain_rule', 'fix_repository', 'list_rules', 'probe_endpoint']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
