import { raw } from '../../src/engine/i18n.js';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Detector } from '../../src/engine/detector.js';
import { placeholders } from '../../src/engine/i18n.js';
import { packageRoot, sourceDirOf } from '../../src/engine/paths.js';
import { RepoFacts } from '../../src/facts/repo.js';
import { isPythonParserLoaded, loadPythonParser, pythonFilesOf } from '../../src/facts/python-source.js';
import { fixtureCases, judgeFolder } from './detector-tester.js';

/**
 * The detector tester for the Python detectors. The folders they live in also hold other developers'
 * fixtures (TypeScript servers), on which a Python detector rightly answers not-applicable; so this tester
 * runs only the fixtures whose name starts with `py-`, with the same assertions as detector-tester.ts
 * (state, reason, red verdicts carry findings, expect.json pins message ids and locations, at least one red
 * and one green py- fixture), plus:
 *   - Semgrep-style line markers in the fixture's .py files (and requirements*.txt, pyproject.toml,
 *     setup.cfg, which take the same comments): a line ending in `# ruleid: <ID>` must carry a
 *     finding and every finding must sit on such a line; a line ending in `# ok: <ID>` must carry none
 *     (several ids may be listed, comma-separated);
 *   - on the folder's other fixtures without Python, the detector answers not-applicable 'no-python-source';
 *   - before the grammar is loaded (first thing in the test process), it answers could-not-judge
 *     'python-parser-unavailable';
 *   - the temporary text files beside the detector (messages-python.<locale>.json, reasons-python.json)
 *     hold a message and a fix for every declared message id, with exactly the declared placeholders, the
 *     same placeholders in every locale, no `<` (ICU tags) and no plain apostrophe before `{` in French.
 */

const MARKER = /#\s*(ruleid|ok)\s*:\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)/g;

function markers(dir: string, ruleId: string): { ruleid: Set<string>; ok: Set<string> } {
  const out = { ruleid: new Set<string>(), ok: new Set<string>() };
  const repo = RepoFacts.gather(dir);
  // Python sources, and the files where Python dependencies are declared (same `#` comments).
  for (const rel of repo.files.filter((f) => /\.py$|(?:^|\/)requirements[\w.-]*\.(?:txt|in)$|(?:^|\/)(?:pyproject\.toml|setup\.cfg)$/.test(f))) {
    const t = repo.text(rel);
    if (!t.ok) continue;
    t.value.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(MARKER)) {
        if (m[2]!.split(',').map((s) => s.trim()).includes(ruleId)) out[m[1] as 'ruleid' | 'ok'].add(`${rel}:${i + 1}`);
      }
    });
  }
  return out;
}

type Texts = Record<string, { message: string; fix: string }>;
const readJson = <T>(f: string): T => JSON.parse(readFileSync(f, 'utf8')) as T;

export function testPythonFixtures(ruleId: string, detector: Detector, moduleUrl: string): void {
  const dir = sourceDirOf(moduleUrl);
  const all = fixtureCases(join(dir, 'fixtures'));
  const cases = all.filter((c) => c.name.startsWith('py-'));
  const others = all.filter((c) => !c.name.startsWith('py-'));
  const seenReasons = new Set<string>();

  // Runs first in the test process, before any loader: without the grammar the detector cannot read Python.
  describe(`${ruleId} (${detector.genre}, Python) without the parser`, () => {
    it('says could-not-judge python-parser-unavailable on a Python fixture', (t) => {
      const c = cases.find((x) => x.state !== 'not-applicable');
      if (isPythonParserLoaded() || !c) return t.skip('the parser is already loaded in this process');
      const { result } = judgeFolder(ruleId, [detector], c.dir);
      const part = result.parts.find((p) => p.genre === detector.genre);
      assert.equal(part?.state, 'could-not-judge');
      assert.equal(part?.reason?.code, 'python-parser-unavailable');
    });
  });

  describe(`${ruleId} (${detector.genre}, Python) py- fixtures`, () => {
    before(async () => {
      await loadPythonParser();
    });

    it('has at least one red and one green py- fixture', () => {
      assert.ok(cases.some((c) => c.state === 'present'), `${ruleId}: no fixtures/present/py-* case`);
      assert.ok(cases.some((c) => c.state === 'absent' || c.state === 'non-conforming'), `${ruleId}: no red py- fixture`);
    });

    for (const c of cases) {
      it(`${c.state}/${c.name}`, () => {
        const { result } = judgeFolder(ruleId, [detector], c.dir);
        const part = result.parts.find((p) => p.genre === detector.genre);
        assert.ok(part, 'the detector part was judged');
        const where = relative(packageRoot(), c.dir);
        assert.equal(part.state, c.state, `state of ${where}: ${JSON.stringify(part)}`);
        if (part.reason) seenReasons.add(part.reason.code);
        if (c.state === 'could-not-judge' || c.state === 'not-applicable') assert.ok(part.reason?.code, 'a reason is given');
        if (c.expect?.reason) assert.equal(part.reason?.code, c.expect.reason);
        if (c.state === 'absent' || c.state === 'non-conforming') assert.ok(part.findings.length > 0, 'a red verdict carries findings');
        if (c.expect?.messages) {
          const got = part.findings.map((f) => ({
            messageId: f.messageId,
            ...(c.expect!.messages!.some((m) => m.file !== undefined) ? { file: f.location?.file } : {}),
            ...(c.expect!.messages!.some((m) => m.line !== undefined) ? { line: f.location?.line } : {}),
          }));
          assert.deepEqual(got, c.expect.messages);
        }
        for (const f of part.findings) {
          assert.ok(f.messageId in detector.messages, `${f.messageId} is declared`);
          assert.deepEqual(Object.keys(f.data ?? {}).sort(), [...detector.messages[f.messageId]!].sort(), `${f.messageId} carries its placeholders`);
        }
        const m = markers(c.dir, ruleId);
        const got = new Set(part.findings.filter((f) => f.location?.line).map((f) => `${f.location!.file}:${f.location!.line}`));
        for (const k of m.ruleid) assert.ok(got.has(k), `${where}: ${k} is marked ruleid but has no finding (${[...got].join(', ')})`);
        for (const g of got) {
          assert.ok(!m.ok.has(g), `${where}: ${g} is marked ok but has a finding`);
          assert.ok(m.ruleid.has(g), `${where}: ${g} has a finding but no ruleid marker`);
        }
      });
    }

    it('answers not-applicable (no-python-source) on the folder’s fixtures without Python', () => {
      for (const c of others) {
        if (pythonFilesOf(RepoFacts.gather(c.dir)).length > 0) continue;
        const { result } = judgeFolder(ruleId, [detector], c.dir);
        const part = result.parts.find((p) => p.genre === detector.genre);
        assert.equal(part?.state, 'not-applicable', `${c.state}/${c.name}`);
        assert.equal(part?.reason?.code, 'no-python-source', `${c.state}/${c.name}`);
      }
    });

    it('has English and French texts for every message and reason, with the declared placeholders', () => {
      const texts: [string, string][] = [];
      for (const [id, ph] of Object.entries(detector.messages)) {
        for (const locale of ['en', 'fr']) {
          const message = raw(locale, `findings.${ruleId}.${id}.message`);
          const fix = raw(locale, `findings.${ruleId}.${id}.fix`);
          assert.ok(message && fix, `${locale}:${id} has a message and a fix in i18n/${locale}.json`);
          const used = [...new Set([...placeholders(message), ...placeholders(fix)])].sort();
          assert.deepEqual(used, [...ph].sort(), `${locale}:${id} uses exactly the declared placeholders`);
          texts.push([`${locale}:${id}.message`, message], [`${locale}:${id}.fix`, fix]);
        }
      }
      for (const code of ['no-python-source', 'python-parser-unavailable', ...seenReasons]) {
        for (const locale of ['en', 'fr']) {
          const text = raw(locale, `reasons.${code}`);
          assert.ok(text, `reason ${code} has a ${locale} text`);
          texts.push([`${locale}:reason ${code}`, text]);
        }
      }
      for (const [key, text] of texts) {
        assert.ok(!text.includes('<'), `${key}: no < (ICU tag)`);
        assert.ok(!text.includes("'{"), `${key}: no plain apostrophe before a placeholder`);
        if (key.startsWith('fr:')) assert.ok(!text.includes("'"), `${key}: typographic apostrophes (’) in French`);
      }
    });
  });
}
