import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// The static part reads the built View (plain repository fixtures); the dynamic part judges the recorded host harness run of the fixture Apps.
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);

describe('A-2 (static) on the React fixture App', () => {
  it('the Vite + vite-plugin-singlefile bundle (with its inert module-preload polyfill) is one file', () => {
    const dir = join(sourceDirOf(import.meta.url), '..', 'A-3-sandbox', 'fixtures', 'present', 'react-tasks');
    const part = judgeFolder('A-2', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});

describe('A-2 (static) on what a View does with absolute URLs', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const judgeBundle = (script: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2-urls-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'url-app', version: '1.0.0', dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'view.html'), `<!doctype html><html lang="en"><title>x</title><script type="module">${script}</script></html>`);
      return judgeFolder('A-2', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it('a link the user may follow (window.open, an anchor) is no load; a created <link> and xhr.open are', () => {
    const links = judgeBundle('const DOCS = "https://docs.example.org/guide"; document.getElementById("help").onclick = () => window.open(DOCS, "_blank"); const a = document.createElement("a"); a.href = DOCS;');
    assert.equal(links?.state, 'present', JSON.stringify(links));
    const loads = judgeBundle('const css = document.createElement("link"); css.rel = "stylesheet"; css.href = "https://cdn.example.net/x.css"; const x = new XMLHttpRequest(); x.open("GET", "https://api.example.net/data.json");');
    assert.deepEqual(loads?.findings.map((f) => f.data?.via), ['.href =', 'XMLHttpRequest.open']);
  });
  it('a parameter that shadows a constant of the same name is not resolved to it (minified bundles reuse names)', () => {
    const part = judgeBundle('const e = "https://cdn.example.net/lib.js"; function load(e) { return fetch(e); } load("./local.json");');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
});
