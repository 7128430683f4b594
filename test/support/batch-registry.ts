import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { packageRoot } from '../../src/engine/paths.js';

/**
 * A real npm registry for the batch tests and bench: Verdaccio (devDependency) on 127.0.0.1 with a random
 * port, storage in `tmp`, no uplink, a user created through the registry's own API, and tiny MCP servers
 * published to it with npm (`publishServer`): each a package with a bin that serves raw JSON-RPC over stdio
 * (test/fixtures/servers/raw-stdio.mjs), or whatever `main` says. `stop()` kills it.
 */

export interface LocalRegistry {
  url: string;
  npmrc: string;
  publish: (name: string, version: string, main: string, extra?: Record<string, unknown>) => Promise<void>;
  stop: () => void;
}

const root = packageRoot();

async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  s.close();
  await once(s, 'close');
  return port;
}

/** The main of a fixture package that serves a well-behaved raw MCP server named `name`. */
export const serveMain = (name: string) => `import { serve } from './raw-stdio.mjs';\nserve({ name: ${JSON.stringify(name)} });`;

export async function startRegistry(tmp: string): Promise<LocalRegistry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(tmp, 'verdaccio.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(tmp, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(tmp, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: pretty, level: fatal }',
      '',
    ].join('\n'),
  );
  const child: ResultPromise = execa(process.execPath, [join(root, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', config, '--listen', `127.0.0.1:${port}`], { reject: false, stdin: 'ignore', cleanup: true });
  const stop = () => {
    child.kill('SIGKILL');
  };
  const start = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > 30_000) {
      stop();
      throw new Error('verdaccio did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const user = await fetch(`${url}-/user/org.couchdb.user:tester`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'tester', password: 'tester-password' }) });
  const { token } = (await user.json()) as { token: string };
  const npmrc = join(tmp, '.npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  const publish = async (name: string, version: string, main: string, extra: Record<string, unknown> = {}) => {
    const dir = join(tmp, 'src', `${name.replace('/', '+')}-${version}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(root, 'test', 'fixtures', 'servers', 'raw-stdio.mjs'), join(dir, 'raw-stdio.mjs'));
    writeFileSync(join(dir, 'index.mjs'), `#!/usr/bin/env node\n${main}\n`);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, type: 'module', bin: { [name.split('/').pop()!]: 'index.mjs' }, files: ['index.mjs', 'raw-stdio.mjs'], license: 'MIT', ...extra }, null, 2));
    const r = await execa('npm', ['publish', '--userconfig', npmrc, '--registry', url, '--ignore-scripts', '--no-provenance'], { cwd: dir, reject: false });
    assert.equal(r.exitCode, 0, `published ${name}@${version}: ${r.stderr}`);
  };
  return { url, npmrc, publish, stop };
}
