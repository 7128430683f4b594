import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inferPackage, npxHash, type LaunchContext } from '../src/probe/package-of.js';
import { probeSource } from '../src/run/probe.js';
import { RepoFacts } from '../src/facts/repo.js';
import { referenceVersion } from '../src/detectors/S-7-observable-version/index.js';

/**
 * Which package a probed command runs, for each launcher form, on real package layouts built at test time:
 * a published package (bin/ launcher over dist/, a dist/package.json that only says "type"), a
 * node_modules/.bin symlink and a pnpm shim, npx's cache under a temporary HOME, Python projects (script,
 * module, uv run), a uv tool environment, and the commands that name no package.
 */

let root: string;
const w = (rel: string, text: string, mode?: number) => {
  const f = join(root, rel);
  mkdirSync(dirname(f), { recursive: true });
  writeFileSync(f, text);
  if (mode) chmodSync(f, mode);
  return f;
};
const json = (o: unknown) => JSON.stringify(o, null, 2) + '\n';
const ctx = (cwd: string, env: Record<string, string> = {}): LaunchContext => ({ cwd: join(root, cwd), env: { PATH: '/usr/bin:/bin', HOME: join(root, 'home'), ...env } });
const at = (rel: string) => realpathSync(join(root, rel));
const brief = (p: ReturnType<typeof inferPackage>) => p && { folder: p.folder, name: p.name, version: p.version, manifest: p.manifest, via: p.via, cached: p.cached };

before(() => {
  root = mkdtempSync(join(tmpdir(), 'mcp-doctor-pkgof-'));
  // A published package: a bin launcher over dist/, with a dist/package.json that names no package.
  w('pkg/package.json', json({ name: '@acme/weather-mcp', version: '2026.8.31', type: 'module', bin: { 'weather-mcp': 'bin/weather-mcp.js' } }));
  w('pkg/bin/weather-mcp.js', "#!/usr/bin/env node\nimport '../dist/index.js';\n", 0o755);
  w('pkg/dist/index.js', '// server\n');
  w('pkg/dist/package.json', json({ type: 'module' }));
  // A project with the package installed: a .bin symlink (npm) and a shell shim (pnpm).
  w('proj/package.json', json({ name: 'my-app', version: '0.0.1', dependencies: { '@acme/srv': '1.4.0' } }));
  w('proj/node_modules/@acme/srv/package.json', json({ name: '@acme/srv', version: '1.4.0', bin: { srv: 'bin/srv.js' } }));
  w('proj/node_modules/@acme/srv/bin/srv.js', '#!/usr/bin/env node\n', 0o755);
  mkdirSync(join(root, 'proj/node_modules/.bin'), { recursive: true });
  symlinkSync('../@acme/srv/bin/srv.js', join(root, 'proj/node_modules/.bin/srv'));
  w('proj/node_modules/.bin/srv-shim', '#!/bin/sh\nbasedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")\nexec node  "$basedir/../@acme/srv/bin/srv.js" "$@"\n', 0o755);
  // An executable on PATH whose nearest package does not claim it.
  w('other/package.json', json({ name: 'unrelated', version: '3.0.0' }));
  w('other/tools/run-thing', '#!/bin/sh\n', 0o755);
  // npx's cache under a temporary HOME: the folder keyed on the spec, and one under an unexpected key.
  const keyed = `home/.npm/_npx/${npxHash(['@acme/remote@1.2.3'])}`;
  w(`${keyed}/package.json`, json({ dependencies: { '@acme/remote': '1.2.3' }, _npx: { packages: ['@acme/remote@1.2.3'] } }));
  w(`${keyed}/node_modules/@acme/remote/package.json`, json({ name: '@acme/remote', version: '1.2.3', bin: { remote: 'dist/cli.js' } }));
  w('home/.npm/_npx/00000000deadbeef/package.json', json({ dependencies: { 'plain-mcp': '^0.9.0' }, _npx: { packages: ['plain-mcp@^0.9.0'] } }));
  w('home/.npm/_npx/00000000deadbeef/node_modules/plain-mcp/package.json', json({ name: 'plain-mcp', version: '0.9.4' }));
  w('cache2/_npx/aaaaaaaaaaaaaaaa/package.json', json({ _npx: { packages: ['@acme/remote@1.2.3'] } }));
  w('cache2/_npx/aaaaaaaaaaaaaaaa/node_modules/@acme/remote/package.json', json({ name: '@acme/remote', version: '1.2.3' }));
  // A project where @acme/remote is installed locally at the requested version: npx runs that one.
  w('local/package.json', json({ name: 'local-app', version: '1.0.0' }));
  w('local/node_modules/@acme/remote/package.json', json({ name: '@acme/remote', version: '1.2.3' }));
  // Python: a project with a script and a src-layout module; a dynamic version; a Poetry project.
  w('py/pyproject.toml', '[project]\nname = "weather-py"\nversion = "0.4.2"\n\n[project.scripts]\nweather-py = "weather_py:main"\n');
  w('py/server.py', 'print("server")\n');
  w('py/src/weather_py/__init__.py', 'def main(): pass\n');
  w('py/src/weather_py/__main__.py', 'main()\n');
  w('pydyn/pyproject.toml', '[project]\nname = "dyn-py"\ndynamic = ["version"]\n');
  w('pydyn/app/server.py', '');
  w('poetry/pyproject.toml', '[tool.poetry]\nname = "poetry-mcp"\nversion = "1.1.0"\n');
  w('poetry/main.py', '');
  // A uv tool environment (uvx / uv tool run), installed from a wheel: no pyproject, METADATA and RECORD.
  const sp = 'home/.local/share/uv/tools/weather-tool/lib/python3.12/site-packages';
  w(`${sp}/weather_tool/__init__.py`, '');
  w(`${sp}/weather_tool-1.0.0.dist-info/METADATA`, 'Metadata-Version: 2.3\nName: weather-tool\nVersion: 1.0.0\n\nLong description\nVersion: 9.9.9\n');
  w(`${sp}/weather_tool-1.0.0.dist-info/RECORD`, 'weather_tool/__init__.py,,\nweather_tool-1.0.0.dist-info/METADATA,,\n../../../bin/weather-tool,,\n');
  w(`${sp}/weather_tool-1.0.0.dist-info/entry_points.txt`, '[console_scripts]\nweather-tool = weather_tool:main\n');
  w('home/.local/share/uv/tools/weather-tool/pyvenv.cfg', 'home = /usr/bin\n');
  w('home/.local/share/uv/tools/weather-tool/bin/weather-tool', '#!/home/x/.local/share/uv/tools/weather-tool/bin/python\nfrom weather_tool import main\n', 0o755);
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('package of a node script or bin', () => {
  it('node <pkg>/dist/index.js: the nearest manifest that names a package (dist/package.json only says "type")', () => {
    assert.deepEqual(brief(inferPackage(['node', join(root, 'pkg/dist/index.js')], ctx('.'))), {
      folder: at('pkg'), name: '@acme/weather-mcp', version: '2026.8.31', manifest: 'package.json', via: 'script', cached: false,
    });
  });
  it('a relative script, node flags before it, and the launcher without its .js', () => {
    assert.equal(inferPackage(['node', 'dist/index.js'], ctx('pkg'))?.folder, at('pkg'));
    assert.equal(inferPackage(['node', '--enable-source-maps', '-r', 'dotenv/config', 'bin/weather-mcp'], ctx('pkg'))?.folder, at('pkg'));
    assert.equal(inferPackage(['tsx', 'dist/index.js'], ctx('pkg'))?.folder, at('pkg'));
  });
  it('a bin launcher run as the command is the package that declares it', () => {
    const p = inferPackage(['./bin/weather-mcp.js', 'stdio'], ctx('pkg'));
    assert.equal(p?.folder, at('pkg'));
    assert.equal(p?.via, 'bin');
  });
  it('./node_modules/.bin/srv (a symlink) and a pnpm shell shim lead to the installed package, not the project', () => {
    for (const bin of ['./node_modules/.bin/srv', './node_modules/.bin/srv-shim']) {
      assert.deepEqual(brief(inferPackage([bin], ctx('proj'))), {
        folder: at('proj/node_modules/@acme/srv'), name: '@acme/srv', version: '1.4.0', manifest: 'package.json', via: 'bin', cached: false,
      }, bin);
    }
  });
  it('a bare name is looked up on the probed PATH; a package that does not claim the file is not its package', () => {
    assert.equal(inferPackage(['srv'], ctx('.', { PATH: join(root, 'proj/node_modules/.bin') }))?.folder, at('proj/node_modules/@acme/srv'));
    assert.equal(inferPackage(['run-thing'], ctx('.', { PATH: join(root, 'other/tools') })), undefined);
    assert.equal(inferPackage(['not-installed-anywhere'], ctx('.')), undefined);
  });
  it('npm start and npm run: the package of the working directory', () => {
    assert.equal(inferPackage(['npm', 'run', 'serve'], ctx('pkg/dist'))?.folder, at('pkg'));
    assert.equal(inferPackage(['npm', 'start'], ctx('proj'))?.name, 'my-app');
  });
  it('commands that name no package: node -e, a shell line, a container, stdin', () => {
    assert.equal(inferPackage(['node', '-e', 'require("./pkg")'], ctx('.')), undefined);
    assert.equal(inferPackage(['node', '--eval=1'], ctx('.')), undefined);
    assert.equal(inferPackage(['sh', '-c', 'node pkg/dist/index.js'], ctx('.')), undefined);
    assert.equal(inferPackage(['docker', 'run', '-i', 'acme/weather'], ctx('.')), undefined);
    assert.equal(inferPackage(['node', '-'], ctx('.')), undefined);
    assert.equal(inferPackage([], ctx('.')), undefined);
  });
});

describe('package of npx', () => {
  it('npx -y pkg@ver: the folder in npx cache under the probed HOME', () => {
    assert.deepEqual(brief(inferPackage(['npx', '-y', '@acme/remote@1.2.3', 'stdio'], ctx('.'))), {
      folder: at(`home/.npm/_npx/${npxHash(['@acme/remote@1.2.3'])}/node_modules/@acme/remote`), name: '@acme/remote', version: '1.2.3', manifest: 'package.json', via: 'npx', cached: true,
    });
  });
  it('-p names the package; a folder that npx keyed differently is found by the packages it records', () => {
    assert.equal(inferPackage(['npx', '--yes', '-p', '@acme/remote@1.2.3', 'remote'], ctx('.'))?.version, '1.2.3');
    assert.equal(inferPackage(['npx', '-y', 'plain-mcp@^0.9.0'], ctx('.'))?.version, '0.9.4');
    assert.equal(inferPackage(['npm', 'exec', '--yes', '--', 'plain-mcp@^0.9.0'], ctx('.'))?.version, '0.9.4');
  });
  it('npm_config_cache of the probed environment wins over HOME', () => {
    const p = inferPackage(['npx', '-y', '@acme/remote@1.2.3'], ctx('.', { npm_config_cache: join(root, 'cache2') }));
    assert.equal(p?.folder, at('cache2/_npx/aaaaaaaaaaaaaaaa/node_modules/@acme/remote'));
  });
  it('a locally installed package at the requested version is the one npx runs', () => {
    const p = inferPackage(['npx', '-y', '@acme/remote@1.2.3'], ctx('local'));
    assert.equal(p?.folder, at('local/node_modules/@acme/remote'));
    assert.equal(p?.cached, false);
  });
  it('another version, npx -c, or a package never downloaded: none', () => {
    assert.equal(inferPackage(['npx', '-y', '@acme/remote@9.9.9'], ctx('.')), undefined);
    assert.equal(inferPackage(['npx', '-c', 'remote --stdio'], ctx('.')), undefined);
    assert.equal(inferPackage(['npx', '-y', 'never-downloaded'], ctx('.')), undefined);
  });
});

describe('package of a Python entry', () => {
  it('python script.py: the nearest pyproject.toml, with its [project] version', () => {
    assert.deepEqual(brief(inferPackage(['python3', 'server.py'], ctx('py'))), {
      folder: at('py'), name: 'weather-py', version: '0.4.2', manifest: 'pyproject.toml', via: 'script', cached: false,
    });
    assert.equal(inferPackage(['python3', '-u', join(root, 'poetry/main.py')], ctx('.'))?.version, '1.1.0');
  });
  it('a version computed at build time is no version', () => {
    const p = inferPackage(['python', 'app/server.py'], ctx('pydyn'));
    assert.equal(p?.folder, at('pydyn'));
    assert.equal(p?.version, undefined);
  });
  it('python -m finds the module from the working directory and PYTHONPATH', () => {
    assert.equal(inferPackage(['python', '-m', 'weather_py'], ctx('py/src'))?.folder, at('py'));
    assert.equal(inferPackage(['python3', '-m', 'weather_py.server'], ctx('py', { PYTHONPATH: 'src' }))?.via, 'python-module');
    assert.equal(inferPackage(['python', '-m', 'weather_py'], ctx('py')), undefined);
    assert.equal(inferPackage(['python', '-c', 'import weather_py'], ctx('py/src')), undefined);
  });
  it('uv run: the project of --directory or the working directory', () => {
    assert.equal(inferPackage(['uv', 'run', '--directory', join(root, 'py'), 'server.py'], ctx('.'))?.name, 'weather-py');
    assert.equal(inferPackage(['uv', '--directory', join(root, 'py'), 'run', 'weather-py'], ctx('.'))?.via, 'uv-run');
    assert.equal(inferPackage(['uv', 'run', '--with', 'httpx', 'weather-py'], ctx('py/src'))?.folder, at('py'));
    assert.equal(inferPackage(['uv', 'run', '--no-project', 'weather-py'], ctx('py')), undefined);
  });
  it('uvx pkg@ver: the distribution in the uv tool environment, version from its METADATA headers', () => {
    const sp = 'home/.local/share/uv/tools/weather-tool/lib/python3.12/site-packages';
    const expected = { folder: at(`${sp}/weather_tool`), name: 'weather-tool', version: '1.0.0', manifest: 'METADATA', via: 'uvx', cached: true };
    assert.deepEqual(brief(inferPackage(['uvx', 'weather-tool@1.0.0'], ctx('.'))), expected);
    assert.deepEqual(brief(inferPackage(['uv', 'tool', 'run', 'weather_tool'], ctx('.'))), expected);
    assert.equal(inferPackage(['uvx', 'weather-tool==2.0.0'], ctx('.')), undefined);
  });
  it('a console script of a tool environment: the distribution whose entry points name it', () => {
    const p = inferPackage([join(root, 'home/.local/share/uv/tools/weather-tool/bin/weather-tool')], ctx('.'));
    assert.equal(p?.via, 'console-script');
    assert.equal(p?.version, '1.0.0');
  });
});

describe("S-7's reference version, read from the package folder", () => {
  it('package.json, else pyproject.toml ([project], else [tool.poetry]); a dynamic or missing version is none, and says why', () => {
    assert.deepEqual(referenceVersion(RepoFacts.gather(join(root, 'pkg'))), { ok: true, version: '2026.8.31', file: 'package.json', line: 3 });
    assert.deepEqual(referenceVersion(RepoFacts.gather(join(root, 'py'))), { ok: true, version: '0.4.2', file: 'pyproject.toml', line: 3 });
    assert.deepEqual(referenceVersion(RepoFacts.gather(join(root, 'poetry'))), { ok: true, version: '1.1.0', file: 'pyproject.toml', line: 3 });
    assert.deepEqual(referenceVersion(RepoFacts.gather(join(root, 'pydyn'))), { ok: false, why: 'dynamic_version' });
    assert.deepEqual(referenceVersion(RepoFacts.gather(join(root, 'pkg/bin'))), { ok: false, why: 'no_manifest' });
    assert.deepEqual(referenceVersion(undefined), { ok: false, why: 'no_package' });
  });
});

describe('the source a probe reads', () => {
  it('--source overrides the package of the command; the inferred package otherwise; --cwd when nothing is inferred', () => {
    const command = ['node', join(root, 'pkg/dist/index.js')];
    assert.deepEqual(probeSource({ command, source: join(root, 'py') }).source, { folder: at('py'), from: 'source', name: 'weather-py', version: '0.4.2' });
    assert.deepEqual(probeSource({ command, cwd: join(root, 'proj') }).source, { folder: at('pkg'), from: 'command', name: '@acme/weather-mcp', version: '2026.8.31' });
    assert.deepEqual(probeSource({ command: ['docker', 'run', 'x'], cwd: join(root, 'proj') }).source, { folder: at('proj'), from: 'cwd', name: 'my-app', version: '0.0.1' });
    assert.deepEqual(probeSource({ command: ['docker', 'run', 'x'] }), {});
  });
  it('the probed environment is the one searched: HOME passed with --env finds the npx cache', () => {
    const p = probeSource({ command: ['npx', '-y', '@acme/remote@1.2.3'], env: { HOME: join(root, 'home') } });
    assert.equal(p.source?.version, '1.2.3');
  });
  it('confined (the MCP server): an inferred package outside the allowed roots is not read and says why; one in our own npx cache is', () => {
    const out = probeSource({ command: ['node', join(root, 'pkg/dist/index.js')], sourceRoots: [at('proj')] });
    assert.deepEqual(out, { refused: { code: 'package-outside-roots', data: { folder: at('pkg') } } });
    // npx's cache of this process's own environment is exempt: the command named the package for download.
    const home = process.env.HOME;
    process.env.HOME = join(root, 'home');
    try {
      const cached = probeSource({ command: ['npx', '-y', '@acme/remote@1.2.3'], sourceRoots: [at('proj')] });
      assert.equal(cached.source?.from, 'command');
    } finally {
      process.env.HOME = home;
    }
    // A cache folder the caller points elsewhere through env is not: it could name any folder.
    const pointed = probeSource({ command: ['npx', '-y', '@acme/remote@1.2.3'], env: { npm_config_cache: join(root, 'cache2') }, sourceRoots: [at('proj')] });
    assert.equal(pointed.refused?.code, 'package-outside-roots');
  });
  it('a --source that is not a folder is an input error', () => {
    assert.throws(() => probeSource({ command: ['node', 'x.js'], source: join(root, 'nope') }), /notAFolder/);
  });
});
