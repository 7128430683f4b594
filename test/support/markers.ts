import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Detector } from '../../src/engine/detector.js';
import { packageRoot, sourceDirOf } from '../../src/engine/paths.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { fixtureCases, isServerFixture, judgeFolder } from './detector-tester.js';

/**
 * Semgrep-style line markers for static detectors: in a fixture, a line carrying `ruleid: <ID>` (in any
 * comment syntax) must get a finding of the detector's part, and no other line may; a line carrying
 * `ok: <ID>` documents a look-alike that must stay silent. Fixtures that are live servers (server.mjs,
 * session.json) belong to dynamic detectors and are left out, and so are the `py-*` fixtures of a Python
 * part (python-tester.ts checks their `# ruleid:` markers).
 */
export function testMarkers(ruleId: string, detectors: readonly Detector[], moduleUrl: string): void {
  const genre = detectors[0]!.genre;
  const cases = fixtureCases(join(sourceDirOf(moduleUrl), 'fixtures')).filter((c) => !isServerFixture(c.dir) && !c.name.startsWith('py-'));
  const esc = ruleId.replace(/[-]/g, '\\-');
  const ruleMark = new RegExp(`\\bruleid:\\s*${esc}\\b`);
  const okMark = new RegExp(`\\bok:\\s*${esc}\\b`);
  describe(`${ruleId} (${genre}) line markers`, () => {
    for (const c of cases) {
      it(`${c.state}/${c.name}`, () => {
        const repo = RepoFacts.gather(c.dir);
        const marked = new Set<string>();
        const ok = new Set<string>();
        const { result } = judgeFolder(ruleId, detectors, c.dir);
        const part = result.parts.find((p) => p.genre === genre);
        // A followed dependency's files (node_modules/<name>/…, facts/published) carry markers too when a finding names them.
        const dependencyFiles = (part?.findings ?? []).map((f) => f.location?.file ?? '').filter((f) => f.startsWith('node_modules/') && existsSync(join(c.dir, f)));
        for (const f of new Set([...repo.files, ...dependencyFiles])) {
          const t = f.startsWith('node_modules/') ? { ok: true as const, value: readFileSync(join(c.dir, f), 'utf8') } : repo.text(f);
          if (!t.ok) continue;
          t.value.split('\n').forEach((line, i) => {
            if (ruleMark.test(line)) marked.add(`${f}:${i + 1}`);
            else if (okMark.test(line)) ok.add(`${f}:${i + 1}`);
          });
        }
        const got = new Set((part?.findings ?? []).filter((f) => f.location?.line).map((f) => `${f.location!.file}:${f.location!.line}`));
        const where = relative(packageRoot(), c.dir);
        for (const m of marked) assert.ok(got.has(m), `${where}: ${m} is marked ruleid but has no finding (${[...got].join(', ')})`);
        for (const g of got) {
          assert.ok(!ok.has(g), `${where}: ${g} is marked ok but has a finding`);
          assert.ok(marked.has(g), `${where}: ${g} has a finding but no ruleid marker`);
        }
      });
    }
  });
}
