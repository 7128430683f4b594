import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createInterface } from 'node:readline';
import { ConfigError, configErrorText, loadConfig } from '../../src/engine/config.js';
import { RootUnreadable } from '../../src/engine/runner.js';
import { audit } from '../../src/run/audit.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { readInside } from '../../src/facts/safe-read.js';
import { CLI, runCli } from '../support/run.js';

/**
 * Files read on behalf of an audited repository are hostile (issue 10, "Files we read"): `.mcp-doctor.json`
 * and the baseline it names may be a symlink to a secret outside the repository, a FIFO that never delivers,
 * or a device that never ends; the tree may hold FIFOs; the root itself may be unreadable. Every case is
 * generated at test time in a temporary folder, and asserts the safe behaviour: refused with a cause, the
 * content never quoted, nothing blocks, exit 3 / a tool error for an unreadable root.
 */

const SECRET = 'CANARY-7f3a-super-secret-value';
const isRoot = process.getuid?.() === 0;
const mkfifo = (path: string): boolean => spawnSync('mkfifo', [path]).status === 0;

let base: string;
before(() => {
  base = mkdtempSync(join(tmpdir(), 'mcp-doctor-files-'));
});
after(() => rmSync(base, { recursive: true, force: true }));

/** A small repository with a server file, and a secret file next to (outside) it. */
function repoWithOutsideSecret(name: string): { repo: string; secret: string } {
  const dir = join(base, name);
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'victim', version: '1.0.0' }));
  writeFileSync(join(repo, 'src', 'index.js'), "export const hello = 'world';\n");
  const secret = join(dir, 'secret.json');
  writeFileSync(secret, JSON.stringify({ [SECRET]: SECRET, baseline: SECRET }));
  return { repo, secret };
}

describe('the safe reader', () => {
  it('refuses a FIFO without blocking, a device, a symlink that leaves the root, and a file over the cap', { timeout: 30_000 }, () => {
    const { repo, secret } = repoWithOutsideSecret('reader');
    symlinkSync(secret, join(repo, 'link.json'));
    symlinkSync('/dev/zero', join(repo, 'zero'));
    writeFileSync(join(repo, 'big.txt'), 'x'.repeat(2048));
    assert.deepEqual(readInside(repo, 'link.json', 1 << 20), { ok: false, cause: 'outside-root' });
    assert.deepEqual(readInside(repo, 'big.txt', 1024), { ok: false, cause: 'too-large', size: 2048, limit: 1024 });
    assert.deepEqual(readInside(repo, 'missing.json', 1024), { ok: false, cause: 'missing' });
    // /dev/zero through a link inside the root: outside it; named directly as the root's file: not regular.
    assert.equal((readInside(repo, 'zero', 1 << 20) as { cause: string }).cause, 'outside-root');
    assert.deepEqual(readInside('/dev', 'zero', 1 << 20), { ok: false, cause: 'not-regular' });
    if (mkfifo(join(repo, 'pipe.json'))) assert.deepEqual(readInside(repo, 'pipe.json', 1 << 20), { ok: false, cause: 'not-regular' });
    const ok = readInside(repo, 'package.json', 1 << 20);
    assert.ok(ok.ok && ok.text.includes('victim'));
  });
});

describe('.mcp-doctor.json and its baseline', () => {
  it('a config symlinked outside the repository is refused and its content is not quoted', () => {
    const { repo, secret } = repoWithOutsideSecret('config-symlink');
    symlinkSync(secret, join(repo, '.mcp-doctor.json'));
    assert.throws(
      () => loadConfig(repo),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.cause, 'outside-root');
        assert.equal(e.file, '.mcp-doctor.json');
        for (const loc of ['en', 'fr']) assert.ok(!configErrorText(e, loc).includes(SECRET));
        assert.ok(!e.message.includes(SECRET) && !e.issues.join().includes(SECRET));
        return true;
      },
    );
  });

  it('a config that is a FIFO or a device is refused at once (nothing blocks)', { timeout: 30_000 }, () => {
    const fifoRepo = repoWithOutsideSecret('config-fifo').repo;
    if (mkfifo(join(fifoRepo, '.mcp-doctor.json'))) {
      assert.throws(() => loadConfig(fifoRepo), (e: unknown) => e instanceof ConfigError && e.cause === 'not-regular');
    }
    const devRepo = repoWithOutsideSecret('config-device').repo;
    symlinkSync('/dev/zero', join(devRepo, '.mcp-doctor.json'));
    assert.throws(() => loadConfig(devRepo), (e: unknown) => e instanceof ConfigError && e.cause === 'outside-root');
    // Named explicitly (--config /dev/zero): may lie anywhere, but still only a regular file is read.
    assert.throws(() => loadConfig(devRepo, '/dev/zero'), (e: unknown) => e instanceof ConfigError && e.cause === 'not-regular');
  });

  it('an invalid config names the position and the schema paths, never the content', () => {
    const { repo } = repoWithOutsideSecret('config-invalid');
    writeFileSync(join(repo, '.mcp-doctor.json'), `{ "ignorePaths": ["${SECRET}"], "${SECRET}": 1 }`);
    assert.throws(
      () => loadConfig(repo),
      (e: unknown) => e instanceof ConfigError && !configErrorText(e, 'en').includes(SECRET) && /unknown key/.test(e.issues.join()),
    );
    writeFileSync(join(repo, '.mcp-doctor.json'), `{ "suppressions": [ ${SECRET} ] }`);
    assert.throws(
      () => loadConfig(repo),
      (e: unknown) => e instanceof ConfigError && e.cause === 'invalid-json' && !configErrorText(e, 'en').includes(SECRET) && /^not valid JSON/.test(e.issues.join()),
    );
  });

  it('a baseline symlinked outside the repository, a FIFO baseline and a device baseline are refused, content unquoted', { timeout: 60_000 }, async () => {
    const { repo, secret } = repoWithOutsideSecret('baseline');
    writeFileSync(join(repo, '.mcp-doctor.json'), JSON.stringify({ baseline: 'baseline.json' }));
    symlinkSync(secret, join(repo, 'baseline.json'));
    await assert.rejects(audit({ target: { path: repo }, rules: ['C-1'] }), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.cause, 'outside-root');
      assert.ok(!configErrorText(e, 'en').includes(SECRET));
      return true;
    });
    rmSync(join(repo, 'baseline.json'));
    if (mkfifo(join(repo, 'baseline.json'))) {
      await assert.rejects(audit({ target: { path: repo }, rules: ['C-1'] }), (e: unknown) => e instanceof ConfigError && e.cause === 'not-regular');
      rmSync(join(repo, 'baseline.json'));
    }
    writeFileSync(join(repo, '.mcp-doctor.json'), JSON.stringify({ baseline: '../../../../../../../../dev/zero' }));
    await assert.rejects(audit({ target: { path: repo }, rules: ['C-1'] }), (e: unknown) => e instanceof ConfigError && e.cause === 'outside-root');
    // A baseline that is not there yet is no baseline (the first run writes it).
    writeFileSync(join(repo, '.mcp-doctor.json'), JSON.stringify({ baseline: 'baseline.json' }));
    const report = await audit({ target: { path: repo }, rules: ['C-1'] });
    assert.equal(report.results.length, 1);
  });

  it('the CLI says what was refused (exit 2) and prints no content; a FIFO config does not hang it', { timeout: 120_000 }, async () => {
    const { repo, secret } = repoWithOutsideSecret('cli');
    symlinkSync(secret, join(repo, '.mcp-doctor.json'));
    const r = await runCli(['audit', repo, '--rules', 'C-1', '--format', 'json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /outside the audited folder/);
    assert.ok(!r.stderr.includes(SECRET) && !r.stdout.includes(SECRET));
    rmSync(join(repo, '.mcp-doctor.json'));
    if (mkfifo(join(repo, '.mcp-doctor.json'))) {
      const f = await runCli(['audit', repo, '--rules', 'C-1', '--format', 'json']);
      assert.equal(f.code, 2, f.stderr);
      assert.match(f.stderr, /not a regular file/);
    }
  });
});

describe('special files in the audited tree', () => {
  it('a FIFO source and a FIFO README in the tree do not hang the audit and are not read', { timeout: 120_000 }, async () => {
    const { repo, secret } = repoWithOutsideSecret('tree');
    writeFileSync(join(repo, 'README.md'), '# victim\n');
    symlinkSync(secret, join(repo, 'src', 'secret.js'));
    const fifo = mkfifo(join(repo, 'src', 'trap.js')) && mkfifo(join(repo, 'README.fr.md'));
    const report = await audit({ target: { path: repo }, verbose: true });
    assert.ok(report.results.length > 60);
    const read = report.inputs?.files?.list ?? [];
    assert.ok(read.includes('src/index.js') && read.includes('README.md'));
    // Special files and symlinks are not listed, so never opened.
    for (const f of ['src/trap.js', 'README.fr.md', 'src/secret.js']) assert.ok(!read.includes(f), f);
    assert.ok(fifo || !existsSync(join(repo, 'src', 'trap.js')));
    assert.ok(!JSON.stringify(report).includes(SECRET));
  });
});

describe('installed dependencies read on behalf of a rule', () => {
  // X-7 reads the entry files of the packages a stdio server imports (a library printing on stdout when loaded);
  // an installed dependency is part of the untrusted tree: its package.json may be a FIFO, its files links out.
  it('a dependency whose package.json is a FIFO and whose entry links out of it does not hang X-7 and is not quoted', { timeout: 120_000 }, () => {
    const fixture = join(dirname(CLI), 'detectors', 'X-7-stdout-hygiene', 'fixtures', 'non-conforming', 'dist-client-warns-on-import');
    const src = existsSync(fixture) ? fixture : join(dirname(CLI), '..', '..', 'src', 'detectors', 'X-7-stdout-hygiene', 'fixtures', 'non-conforming', 'dist-client-warns-on-import');
    const { repo, secret } = repoWithOutsideSecret('dependency-fifo');
    rmSync(repo, { recursive: true, force: true });
    cpSync(src, repo, { recursive: true });
    const dep = join(repo, 'node_modules', 'acme-telemetry');
    rmSync(join(dep, 'package.json'));
    if (!mkfifo(join(dep, 'package.json'))) return; // no mkfifo here: nothing to test
    rmSync(join(dep, 'dist', 'config.js'));
    symlinkSync(secret, join(dep, 'dist', 'config.js'));
    // cli-main directly (not the launcher), so that a hang is this child only and the timeout ends it.
    const r = spawnSync(process.execPath, [join(dirname(CLI), 'cli-main.js'), 'audit', repo, '--rules', 'X-7', '--format', 'json'], {
      timeout: 90_000,
      killSignal: 'SIGKILL',
      encoding: 'utf8',
      env: { ...process.env, MCP_DOCTOR_LOCALE: '', LANG: 'C' },
    });
    assert.notEqual(r.signal, 'SIGKILL', 'the audit hung on the FIFO');
    assert.ok(r.status === 0 || r.status === 1, `exit ${r.status}: ${r.stderr.slice(0, 500)}`);
    const rep = JSON.parse(r.stdout) as { results: { ruleId: string; state: string }[] };
    assert.ok(rep.results.some((x) => x.ruleId === 'X-7'));
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
  });
});

/** A folder that the test process (or the user nobody, when the tests run as root) cannot list. */
function unreadableFolder(name: string): { dir: string; parent: string } {
  const parent = join(base, name);
  const dir = join(parent, 'locked');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.js'), "require('child_process').exec(process.argv[2]);\n");
  chmodSync(base, 0o755);
  chmodSync(parent, 0o755);
  chmodSync(dir, 0o000);
  return { dir, parent };
}

/** When the tests run as root, the unreadable-root cases run mcp-doctor as the user nobody. */
const NOBODY = { uid: 65534, gid: 65534 };

describe('an unreadable root', () => {
  it('is named as such and is exit 3 from the CLI (not "no source was found")', { timeout: 120_000 }, async () => {
    const { dir } = unreadableFolder('root-cli');
    try {
      let code: number;
      let stderr: string;
      if (isRoot) {
        const r = spawnSync(process.execPath, [CLI, 'audit', dir, '--rules', 'X-4'], { ...NOBODY, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C', LANG: 'C', MCP_DOCTOR_LOCALE: '' } });
        code = r.status ?? -1;
        stderr = r.stderr;
      } else {
        const r = await runCli(['audit', dir, '--rules', 'X-4']);
        code = r.code;
        stderr = r.stderr;
      }
      assert.equal(code, 3, stderr);
      assert.match(stderr, /could not be read/);
      if (!isRoot) await assert.rejects(audit({ target: { path: dir } }), RootUnreadable);
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it('is a tool error from audit_repository (isError), naming no content', { timeout: 120_000 }, async () => {
    const { dir, parent } = unreadableFolder('root-tool');
    const child = spawn(process.execPath, [CLI, 'serve'], {
      ...(isRoot ? NOBODY : {}),
      env: { ...process.env, MCP_DOCTOR_ROOTS: parent, MCP_DOCTOR_LOCALE: '', LC_ALL: 'C', LANG: 'C' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answers = new Map<number, Record<string, unknown>>();
    const waiting = new Map<number, (m: Record<string, unknown>) => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        const m = JSON.parse(line) as { id?: number };
        if (typeof m.id === 'number') {
          answers.set(m.id, m);
          waiting.get(m.id)?.(m);
        }
      } catch {
        /* not protocol */
      }
    });
    const request = (id: number, method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      });
    try {
      await request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile-test', version: '1' } });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      const m = (await request(2, 'tools/call', { name: 'audit_repository', arguments: { path: dir, rules: ['X-4'] } })) as { result: { isError?: boolean; content: { text: string }[] } };
      assert.equal(m.result.isError, true);
      assert.match(m.result.content[0]!.text, /could not be read/);
      assert.ok(!m.result.content[0]!.text.includes('child_process'));
    } finally {
      child.kill('SIGKILL');
      chmodSync(dir, 0o755);
    }
  });

  it('an unreadable sub-folder is listed as skipped', { timeout: 120_000, skip: isRoot ? 'root lists every folder (the CLI case above runs as nobody)' : false }, async () => {
    const { dir } = unreadableFolder('sub');
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'src'), 0o000);
    try {
      const repo = RepoFacts.gather(dir);
      assert.deepEqual(repo.unlisted, [{ file: 'src/', cause: 'unreadable' }]);
    } finally {
      chmodSync(join(dir, 'src'), 0o755);
    }
    assert.ok(existsSync(dir));
  });
});
