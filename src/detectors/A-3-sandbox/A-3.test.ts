import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import detectors from './index.js';
import { declaredOrigin } from '../../apps/csp.js';
import { judgeFolder, testDetectorFolder } from '../../../test/support/detector-tester.js';

// Both parts judge the same fixture Apps: the dynamic part their recorded rendering, the static part their
// View's code (UI source and built bundle).
testDetectorFolder('A-3', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-3', detectors.filter((d) => d.genre === 'static'), import.meta.url);

describe('A-3 (static) on hostile bundles', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  const judgeBundle = (html: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'a3-hostile-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hostile-app', version: '1.0.0', dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'view.html'), html);
      return judgeFolder('A-3', staticPart, dir).result.parts.find((p) => p.genre === 'static');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  it('a script nested too deep to walk is not judged, and does not crash the audit', () => {
    const part = judgeBundle(`<!doctype html><html lang="en"><title>x</title><script>localStorage.x=${'['.repeat(30000)}${']'.repeat(30000)}</script></html>`);
    assert.equal(part?.state, 'could-not-judge', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'file-not-read');
  });
  it('a bundle over the size limit is not judged', () => {
    const part = judgeBundle(`<!doctype html><html lang="en"><title>x</title><script>var pad = "${'a'.repeat(9 * 1024 * 1024)}";</script></html>`);
    assert.equal(part?.state, 'could-not-judge', JSON.stringify(part));
    assert.equal(part?.reason?.code, 'file-not-read');
  });
  it('a script tag inside an HTML comment is not read as a script', () => {
    const part = judgeBundle('<!doctype html><html lang="en"><title>x</title><!-- <script>window.top.location = "https://x.example"</script> --><script>document.title = "ok";</script></html>');
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });
  it('typeof localStorage tests for the API and is no use of it; localStorage.getItem is', () => {
    const guard = judgeBundle('<!doctype html><html lang="en"><title>x</title><script>const canStore = typeof localStorage !== "undefined"; document.title = String(canStore);</script></html>');
    assert.equal(guard?.state, 'present', JSON.stringify(guard));
    const use = judgeBundle('<!doctype html><html lang="en"><title>x</title><script>document.title = localStorage.getItem("t") || "x";</script></html>');
    assert.equal(use?.state, 'non-conforming', JSON.stringify(use));
  });
  it('in a built bundle, fetch of a URL the reading cannot resolve (a bundled loader) is left to the dynamic part; a literal remote URL is red', () => {
    const loader = judgeBundle('<!doctype html><html lang="en"><title>x</title><script>class FileLoader { load(url) { return fetch(url).then((r) => r.arrayBuffer()); } } window.L = FileLoader;</script></html>');
    assert.equal(loader?.state, 'present', JSON.stringify(loader));
    const remote = judgeBundle('<!doctype html><html lang="en"><title>x</title><script>const API = "https://api.example.com"; fetch(API + "/tips.json");</script></html>');
    assert.equal(remote?.state, 'non-conforming', JSON.stringify(remote));
    const local = judgeBundle('<!doctype html><html lang="en"><title>x</title><script>fetch("data:text/plain,hi"); fetch(URL.createObjectURL(new Blob(["x"])));</script></html>');
    assert.equal(local?.state, 'present', JSON.stringify(local));
  });
});

describe('A-3 (static): a browser library published beside an App server', () => {
  const staticPart = detectors.filter((d) => d.genre === 'static');
  it('chunks loaded by a library entry past the parse budget are library code, not the View\'s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a3-library-'));
    const before = process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'chart-lib', version: '1.0.0', main: 'dist/lib.min.js', exports: { '.': { import: './dist/lib.min.js' } }, bin: { 'chart-mcp': 'dist/mcp.js' }, dependencies: { '@modelcontextprotocol/ext-apps': '2.0.4' } }));
      mkdirSync(join(dir, 'dist'));
      // A minified entry of 1.5 MB: past a 1 MB budget, so it is screened, not parsed; it loads a chunk.
      writeFileSync(join(dir, 'dist', 'lib.min.js'), `import{save as s}from"./chunk-store.min.js";export const pad="${'x'.repeat(1536 * 1024)}";export{s};\n`);
      writeFileSync(join(dir, 'dist', 'chunk-store.min.js'), 'export function save(k,v){window.localStorage.setItem(k,v);document.title=k;}\n');
      writeFileSync(join(dir, 'dist', 'mcp.js'), 'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nconst server = new McpServer({ name: "chart", version: "1.0.0" });\nserver.registerResource("v", "ui://chart/v.html", { mimeType: "text/html;profile=mcp-app" }, async (u) => ({ contents: [{ uri: u.href, mimeType: "text/html;profile=mcp-app", text: "<!doctype html><html lang=\\"en\\"><title>c</title></html>" }] }));\n');
      process.env.MCP_DOCTOR_PARSE_BUDGET_MB = '1';
      const part = judgeFolder('A-3', staticPart, dir).result.parts.find((p) => p.genre === 'static');
      assert.notEqual(part?.state, 'non-conforming', JSON.stringify(part));
    } finally {
      if (before === undefined) delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
      else process.env.MCP_DOCTOR_PARSE_BUDGET_MB = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('declared connect origins (CSP source matching)', () => {
  it('matches scheme, host (with *.) and port the way a CSP source does', () => {
    assert.equal(declaredOrigin('https://tiles.example.org/3/4/1.json', ['https://tiles.example.org']), true);
    assert.equal(declaredOrigin('https://a.tiles.example.org/x', ['https://*.tiles.example.org']), true);
    assert.equal(declaredOrigin('https://tiles.example.org/x', ['https://*.tiles.example.org']), false);
    assert.equal(declaredOrigin('https://tiles.example.org.evil.test/x', ['https://tiles.example.org']), false);
    assert.equal(declaredOrigin('http://tiles.example.org/x', ['https://tiles.example.org']), false);
    assert.equal(declaredOrigin('https://tiles.example.org:8443/x', ['https://tiles.example.org']), false);
    assert.equal(declaredOrigin('https://tiles.example.org:8443/x', ['https://tiles.example.org:8443']), true);
    assert.equal(declaredOrigin('wss://live.example.org/s', ['wss://live.example.org']), true);
    assert.equal(declaredOrigin('/relative', ['https://tiles.example.org']), false);
  });
});
