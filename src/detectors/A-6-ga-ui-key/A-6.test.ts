import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// Both parts judge the same fixture Apps: the static part their server code, the dynamic part what tools/list served.
testDetectorFolder('A-6', detectors.filter((d) => d.genre === 'static'), import.meta.url);
testDetectorFolder('A-6', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);

import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { judgeFolder } from '../../../test/support/detector-tester.js';
import { sourceDirOf } from '../../engine/paths.js';

// Published Apps ship View chunks of several MB (a graph layout, pdf.js, three.js): the static part reads them.
// The fixture App is copied to a temporary folder and given a 3 MB minified chunk (too large to keep in the repository).
describe('A-6 (static) with a View chunk of several MB', () => {
  const fixtures = join(sourceDirOf(import.meta.url), 'fixtures');
  const tmp = mkdtempSync(join(tmpdir(), 'a6-large-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const staticPart = (dir: string) => judgeFolder('A-6', detectors.filter((d) => d.genre === 'static'), dir).result.parts.find((p) => p.genre === 'static');
  /** About 3 MB of minified layout code, as a bundler writes it (one long line per module). */
  const chunk = (tail: string) => {
    const fn = (i: number) => `function l${i}(n,e){const t=n.nodes.map(o=>({id:o.id,x:Math.cos(o.i*${i % 97})*e,y:Math.sin(o.i*${i % 89})*e}));return n.links.forEach(o=>{const r=t[o.source],s=t[o.target];r&&s&&(r.x+=(s.x-r.x)*.01,r.y+=(s.y-r.y)*.01)}),t}`;
    return `${Array.from({ length: 14_000 }, (_, i) => fn(i)).join(';')};\n${tail}\n`;
  };
  const copy = (from: string, name: string) => {
    const dir = join(tmp, name);
    cpSync(join(fixtures, from), dir, { recursive: true, filter: (f) => !f.endsWith('session.json') && !f.endsWith('probe.json') });
    mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
    return dir;
  };

  it('a View chunk past 2 MB is read: present', () => {
    const dir = copy('present/vanilla-notes', 'large-chunk');
    writeFileSync(join(dir, 'dist', 'assets', 'graph-layout-Bx81a.js'), chunk('export{l0 as layout};'));
    const part = staticPart(dir);
    assert.equal(part?.state, 'present', JSON.stringify(part));
  });

  it('a server bundle past 2 MB that writes the flat key is red, on its line', () => {
    const dir = copy('present/vanilla-notes', 'large-server');
    const file = join(dir, 'dist', 'assets', 'server-bundle.js');
    writeFileSync(file, chunk(''));
    appendFileSync(file, `export const tool={name:"show_graph",_meta:{"ui/resourceUri":"ui://graph/view.html"}};\n`);
    const part = staticPart(dir);
    assert.equal(part?.state, 'non-conforming', JSON.stringify(part));
    assert.deepEqual(part?.findings.map((f) => [f.messageId, f.location?.file, f.location?.line]), [['flat-key-in-source', 'dist/assets/server-bundle.js', 3]]);
  });
});
