import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// The static part reads the built View (plain repository fixtures); the dynamic part judges the recorded host harness run of the fixture Apps.
testDetectorFolder('A-5', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
testDetectorFolder('A-5', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);


describe('A-5 (static) on a built View that loads its script from a file', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  // Incompressible text (a fixed pseudo-random sequence): gzip cannot shrink it below the budget.
  const noise = (bytes: number): string => {
    let x = 2463534242;
    let out = '';
    while (out.length < bytes) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out += (x >>> 0).toString(36);
    }
    return out;
  };
  const judge = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'a5-script-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'runs-app', version: '1.0.0', type: 'module', bin: { 'runs-app': 'bin/cli.js' }, dependencies: { '@modelcontextprotocol/ext-apps': '1.2.2' } }));
      for (const [f, text] of Object.entries(files)) {
        mkdirSync(join(dir, f, '..'), { recursive: true });
        writeFileSync(join(dir, f), text);
      }
      return judgeFolder('A-5', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const html = '<!doctype html><html lang="en"><head><title>Run</title><script type="module" src="./run.js"></script></head><body><main id="root"></main></body></html>';
  it('the script file of the package beside the bundle is weighed with it (here over budget)', () => {
    const part = judge({ 'bin/cli.js': 'import "../dist/index.js";\n', 'dist/widgets/run.html': html, 'dist/widgets/run.js': `export const blob = "${noise(600_000)}";` });
    assert.equal(part?.state, 'non-conforming', JSON.stringify(part));
    assert.deepEqual(part?.findings.map((f) => f.data?.file), ['dist/widgets/run.html']);
  });
  it('a small script file beside the bundle leaves it under budget', () => {
    const part = judge({ 'dist/widgets/run.html': html, 'dist/widgets/run.js': 'document.getElementById("root").textContent = "ok";' });
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
  it('a script file the package does not ship leaves the weight unjudged', () => {
    const part = judge({ 'dist/widgets/run.html': html });
    assert.equal(part?.state, 'could-not-judge', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'view-script-not-weighed');
  });
});

describe('A-5 (static) on Views kept in a ui/ folder, reached through a table of widgets', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const fixture = join(sourceDirOf(import.meta.url), 'fixtures', 'present', 'registry-views-ui-folder');
  const noise = (bytes: number): string => {
    let x = 88172645;
    let out = '';
    while (out.length < bytes) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out += (x >>> 0).toString(36);
    }
    return out;
  };
  it('a View named after its ui:// URI and over budget is red (the server reads it through a path kept in a Map)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a5-ui-folder-'));
    try {
      cpSync(fixture, dir, { recursive: true });
      const page = readFileSync(join(dir, 'ui', 'run-status.html'), 'utf8').replace('<script type="module">', `<script type="module">\nconst icons = "${noise(600_000)}";`);
      writeFileSync(join(dir, 'ui', 'run-status.html'), page);
      const part = judgeFolder('A-5', staticPart, dir).result.parts.find((p) => p.genre === 'static');
      assert.equal(part?.state, 'non-conforming', JSON.stringify(part));
      assert.deepEqual(part?.findings.map((f) => f.data?.file), ['ui/run-status.html']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
