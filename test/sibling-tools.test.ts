import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { loadPythonParser } from '../src/facts/python-source.js';
import { judgeFolder } from './support/detector-tester.js';
import { registry } from '../src/detectors/index.js';

/**
 * Tools declared in a dependency while the server registers its own list handler (issue 20): a published server
 * (bin/ over dist/, a v1 SDK low-level Server) lists `tools.map((t) => t.schema)` and dispatches
 * `tools.find(…).handle(…)` over a table its sibling package exports (objects or class instances, zod schemas
 * through zodToJsonSchema, an ESM bundle or tsc's CommonJS), or lists the sibling's definitions and dispatches
 * them itself. The static reading follows the list handler's import into the installed sibling, and every rule
 * judges those tools as it judges local ones; a sibling that is not installed is named (file-not-read).
 */

const fx = (folder: string, state: string, name: string) => join(packageRoot(), 'src', 'detectors', folder, 'fixtures', state, name);
const OBJECTS = fx('C-15-tool-annotations', 'absent', 'dist-sibling-tool-objects');
const CLASSES = fx('C-15-tool-annotations', 'present', 'dist-sibling-tool-classes');
const MISSING = fx('C-15-tool-annotations', 'could-not-judge', 'dist-sibling-tools-not-installed');
const ESBUILD = fx('C-15-tool-annotations', 'non-conforming', 'dist-sibling-esbuild-cjs');
const DEFINITIONS = fx('S-24-rate-limiting', 'present', 'dist-sibling-definitions-guarded');
const BUNDLE = 'node_modules/@acme/browser-tools/dist/index.js';

function staticPart(rule: string, dir: string) {
  const { result } = judgeFolder(rule, registry.filter((d) => d.ruleId === rule && d.genre === 'static'), dir);
  const p = result.parts.find((x) => x.genre === 'static' && x.reason?.code !== 'no-python-source')!;
  return { state: p.state, code: p.reason?.code, data: p.reason?.data, at: p.findings.map((f) => `${f.messageId}@${f.location?.file}:${f.location?.line}`) };
}

describe('tools declared in a sibling package, listed by the server', () => {
  before(async () => {
    await loadPythonParser();
  });

  it('objects with handlers, ESM bundle: the tools are judged where the sibling writes them', () => {
    assert.deepEqual(staticPart('C-15', OBJECTS).at, [`missing-annotations-in-source@${BUNDLE}:39`]);
    assert.deepEqual(staticPart('S-24', OBJECTS).at, [`no-rate-guard@${BUNDLE}:22`]);
    assert.deepEqual(staticPart('C-4', OBJECTS).at, [`source-missing-schema@${BUNDLE}:22`, `source-missing-schema@${BUNDLE}:39`]);
    for (const rule of ['C-8', 'C-9', 'C-13']) assert.deepEqual(staticPart(rule, OBJECTS).state, 'absent', rule);
    // The navigation the extension performs over the WebSocket bridge, with the URL a caller names.
    assert.deepEqual(staticPart('S-10', OBJECTS).at, [`unvalidated-url@${BUNDLE}:29`]);
    for (const rule of ['X-1', 'X-2', 'S-11', 'S-12', 'C-16']) assert.equal(staticPart(rule, OBJECTS).state, 'present', rule);
    const x8 = staticPart('X-8', OBJECTS);
    assert.equal(x8.state, 'present');
    assert.equal((x8.data as Record<string, number>).tools, 2);
  });

  it('class instances, CommonJS: annotated tools and a host allowlist are green, the missing limiter red', () => {
    for (const rule of ['C-15', 'S-10', 'S-11', 'S-12', 'X-1', 'X-2']) assert.equal(staticPart(rule, CLASSES).state, 'present', rule);
    assert.deepEqual(staticPart('S-24', CLASSES).at, [`no-rate-guard@${BUNDLE}:27`]);
  });

  it('objects in an esbuild CommonJS bundle (__export … __toCommonJS): partial hints and the navigation are red', () => {
    const page = 'node_modules/@acme/page-tools/dist/index.js';
    assert.deepEqual(staticPart('C-15', ESBUILD).at, [`missing-hint-in-source@${page}:55`]);
    assert.deepEqual(staticPart('S-10', ESBUILD).at, [`unvalidated-url@${page}:59`]);
    for (const rule of ['S-12', 'X-1', 'X-2']) assert.equal(staticPart(rule, ESBUILD).state, 'present', rule);
  });

  it('definitions from a subpath export, dispatched by the server: judged with the server\'s handlers', () => {
    for (const rule of ['C-15', 'S-11', 'S-12', 'S-24', 'X-1', 'X-2']) assert.equal(staticPart(rule, DEFINITIONS).state, 'present', rule);
    assert.equal(staticPart('C-8', DEFINITIONS).state, 'absent');
  });

  for (const rule of ['C-4', 'C-8', 'C-9', 'C-13', 'C-15', 'C-16', 'S-10', 'S-11', 'S-12', 'S-24', 'X-1', 'X-2', 'X-8']) {
    it(`${rule}: a sibling that is not installed is named`, () => {
      const p = staticPart(rule, MISSING);
      assert.deepEqual([p.state, p.code, p.data], ['could-not-judge', 'file-not-read', { file: 'node_modules/@acme/browser-tools/', cause: 'dependency-not-installed' }]);
    });
  }
});
