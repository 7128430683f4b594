import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe('A-2 (static) on Views a loop or a helper assembles from package files at run time', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const judgeRepo = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2-loop-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'loop-app', version: '1.0.0', type: 'module', dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
      for (const [f, text] of Object.entries(files)) {
        mkdirSync(join(dir, f, '..'), { recursive: true });
        writeFileSync(join(dir, f), text);
      }
      return judgeFolder('A-2', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const server = (read: string) => `import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
export const VIEWS = ["board", "detail"];
export function register(server) {
  VIEWS.forEach((v) => server.registerResource(v, \`ui://acme/\${v}.html\`, {}, async () => ({ contents: [{ uri: \`ui://acme/\${v}.html\`, mimeType: RESOURCE_MIME_TYPE, text: ${read} }] })));
}
`;
  it('a forEach over a literal list reads each View the list names (here the second loads a script from a CDN)', () => {
    const part = judgeRepo({
      'dist/index.js': server('readFileSync(join(import.meta.dirname, "..", "ui", `${v}.html`), "utf8")'),
      'ui/board.html': '<!doctype html><html lang="en"><title>Board</title><script type="module">document.title = "b";</script></html>',
      'ui/detail.html': '<!doctype html><html lang="en"><title>Detail</title><script src="https://cdn.example.net/chart.js"></script></html>',
    });
    assert.equal(part?.state, 'non-conforming', JSON.stringify(part));
    assert.deepEqual(part?.findings.map((f) => f.location?.file), ['ui/detail.html']);
  });
  it('a piece of a path no literal names is tried against the package files, never against server code', () => {
    const part = judgeRepo({
      'dist/index.js': server('`<!doctype html><html lang="en"><title>x</title><script type="module">${readFileSync(join(import.meta.dirname, `${globalThis.viewName}.js`), "utf8")}</script></html>`'),
      'dist/tools.js': 'import { z } from "zod"; import fs from "node:fs"; export const t = fetch("https://api.acme.example/v1");',
    });
    assert.equal(part?.state, 'could-not-judge', JSON.stringify(part));
  });
});

describe('A-2 (static) on a View kept in another module or encoded in the code', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const VIEW = '<!doctype html><html lang="en"><head><title>v</title><script src="https://cdn.example.net/lib.js"></script></head><body></body></html>';
  const judgeCjs = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2-enc-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'enc-app', version: '1.0.0', main: 'dist/index.js', dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
      mkdirSync(join(dir, 'dist'));
      for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
      return judgeFolder('A-2', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const serve = (expr: string) =>
    `const { registerAppResource, RESOURCE_MIME_TYPE } = require("@modelcontextprotocol/ext-apps/server");\nregisterAppResource(server, "v", "ui://enc/v.html", {}, async () => ({ contents: [{ uri: "ui://enc/v.html", mimeType: RESOURCE_MIME_TYPE, ${expr} }] }));\n`;
  it('a const required from another module (CommonJS), a base64 blob of the contents, atob', () => {
    const required = judgeCjs({ 'dist/view.js': `exports.VIEW = ${JSON.stringify(VIEW)};\n`, 'dist/index.js': `const { VIEW } = require("./view.js");\n${serve('text: VIEW')}` });
    assert.deepEqual(required?.findings.map((f) => f.location?.file), ['dist/view.js'], JSON.stringify(required));
    const b64 = Buffer.from(VIEW).toString('base64');
    const blob = judgeCjs({ 'dist/index.js': `const B = "${b64}";\n${serve('blob: B')}` });
    assert.deepEqual(blob?.findings.map((f) => f.location?.line), [1], JSON.stringify(blob));
    const atob = judgeCjs({ 'dist/index.js': `const B = "${b64}";\n${serve('text: atob(B)')}` });
    assert.equal(atob?.state, 'non-conforming', JSON.stringify(atob));
  });
  it('a blob that is not base64, or a decoding it cannot follow, leaves the View unread', () => {
    const notB64 = judgeCjs({ 'dist/index.js': `const B = "not base64 at all!";\n${serve('text: Buffer.from(B, "base64").toString("utf8")')}` });
    assert.equal(notB64?.reason?.code, 'no-built-view', JSON.stringify(notB64));
    const hexAsUtf16 = judgeCjs({ 'dist/index.js': `const B = "${Buffer.from(VIEW).toString('hex')}";\n${serve('text: Buffer.from(B, "hex").toString("utf16le")')}` });
    assert.equal(hexAsUtf16?.reason?.code, 'no-built-view', JSON.stringify(hexAsUtf16));
  });
});

describe('A-2 (static) on Views kept in a ui/ folder, named after their ui:// URIs', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const fixture = join(sourceDirOf(import.meta.url), 'fixtures', 'present', 'registry-views-ui-folder');
  const judgeWith = (edit: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2-ui-folder-'));
    try {
      cpSync(fixture, dir, { recursive: true });
      edit(dir);
      return judgeFolder('A-2', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it('a source entry of that name (its script a .tsx module to be built) is no built View', () => {
    const part = judgeWith((dir) => {
      rmSync(join(dir, 'ui', 'search-apps.html'));
      writeFileSync(join(dir, 'ui', 'run-status.html'), '<!doctype html><html lang="en"><head><title>Run</title></head><body><div id="root"></div><script type="module" src="./run-status.tsx"></script></body></html>');
    });
    assert.equal(part?.state, 'could-not-judge', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'no-built-view');
  });
  it('a file of the same name under test/ or examples/ is not the View', () => {
    const part = judgeWith((dir) => {
      for (const f of ['search-apps.html', 'run-status.html']) {
        mkdirSync(join(dir, 'examples'), { recursive: true });
        writeFileSync(join(dir, 'examples', f), readFileSync(join(dir, 'ui', f), 'utf8'));
        rmSync(join(dir, 'ui', f));
      }
    });
    assert.equal(part?.reason?.code, 'no-built-view', JSON.stringify(part));
  });
  it('a URI ending in index.html names the View by its folder', () => {
    const part = judgeWith((dir) => {
      const w = join(dir, 'dist', 'resources', 'widgets.js');
      writeFileSync(w, readFileSync(w, 'utf8').replace('"ui://widget/run-status.html"', '"ui://flowhub/run-status/index.html"').replace('file: "run-status.html"', 'file: "run-status/index.html"'));
      mkdirSync(join(dir, 'ui', 'run-status'));
      writeFileSync(join(dir, 'ui', 'run-status', 'index.html'), '<!doctype html><html lang="en"><head><title>Run</title><script src="https://cdn.flowhub.example/run.js"></script></head><body></body></html>');
      rmSync(join(dir, 'ui', 'run-status.html'));
      mkdirSync(join(dir, 'ui', 'other'));
      writeFileSync(join(dir, 'ui', 'other', 'index.html'), '<!doctype html><html lang="en"><head><title>Other</title><script src="https://cdn.flowhub.example/other.js"></script></head><body></body></html>');
    });
    assert.equal(part?.state, 'non-conforming', JSON.stringify(part));
    assert.deepEqual(part?.findings.map((f) => f.data?.file), ['ui/run-status/index.html']);
  });
});
