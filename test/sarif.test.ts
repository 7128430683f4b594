import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { packageRoot } from '../src/engine/paths.js';
import { fileUri } from '../src/report/sarif.js';
import { runCli } from './support/run.js';

const require = createRequire(import.meta.url);
const schemaFile = join(require.resolve('@microsoft/jest-sarif/package.json'), '..', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json');
const red = join(packageRoot(), 'src', 'detectors', 'C-1-bilingual', 'fixtures', 'absent', 'english-only');

function validator() {
  const ajv = new (Ajv as unknown as typeof Ajv.default)({ strict: false, unicodeRegExp: false, allErrors: true });
  (addFormats as unknown as typeof addFormats.default)(ajv);
  return ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
}

describe('SARIF output', () => {
  const validate = validator();
  it('the validator rejects a broken log (the test can fail)', () => {
    assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'a' }, level: 'bogus' }] }] }), false);
  });
  for (const locale of ['en', 'fr']) {
    it(`validates against the SARIF 2.1.0 schema (${locale}) and carries located results`, async () => {
      const r = await runCli(['audit', red, '--format', 'sarif', '--locale', locale]);
      assert.equal(r.code, 1, r.stderr);
      const log = JSON.parse(r.stdout) as { runs: { results: unknown[]; tool: { driver: { language: string; rules: { id: string; help: { markdown: string } }[] } } }[] };
      assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5)));
      const results = log.runs[0]!.results as { ruleId: string; kind: string; locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[] }[];
      const c1 = results.filter((x) => x.ruleId === 'C-1' && x.kind === 'fail');
      assert.ok(c1.some((x) => x.locations?.[0]?.physicalLocation.artifactLocation.uri === 'package.json' && x.locations[0].physicalLocation.region?.startLine === 4));
      const rule = log.runs[0]!.tool.driver.rules.find((x) => x.id === "C-1")!;
      assert.ok(rule.help.markdown.length > 100);
      assert.equal(log.runs[0]!.tool.driver.language, locale);
    });
  }
  it('artifact URIs are relative references that decode back to the file name', () => {
    const names = ['src/a b.ts', 'src/new\nline.ts', 'src/100%.ts', 'src/#hash?.ts', 'src/\u001b[31mred.ts', 'src/caf\u00e9/\u6f22.ts', 'c:/x.ts', 'a:b/c.ts', 'src/[x](y).ts'];
    for (const n of names) {
      const uri = fileUri(n);
      assert.match(uri, /^(?:[A-Za-z0-9\-._~!$&'()*+,;=@/]|%[0-9A-F]{2})+$/, uri);
      assert.doesNotMatch(uri.split('/')[0]!, /:/, uri);
      assert.equal(decodeURIComponent(new URL(uri, 'file:///base/').pathname.slice('/base/'.length)), n, uri);
    }
    assert.equal(fileUri('src/\ud800x.ts'), 'src/%EF%BF%BDx.ts', 'a lone surrogate becomes U+FFFD instead of throwing');
  });
});

describe('SARIF: the A-5 figures of an App as result properties (issue 12 §5)', () => {
  const validate = validator();
  const session = (state: string, name: string) => join(packageRoot(), 'src', 'detectors', 'A-5-performance-budgets', 'fixtures', state, name, 'session.json');
  type Fig = { tool: string; figure: string; value?: number; budget: number; unit: string; calls?: number; withinBudget?: boolean };
  const figuresOf = async (file: string) => {
    const r = await runCli(['probe', '--from-session', file, '--format', 'sarif', '--rules', 'A-5']);
    const log = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; kind: string; properties?: { appFigures?: Fig[] } }[] }[] };
    assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5)));
    return log.runs[0]!.results.filter((x) => x.ruleId === 'A-5');
  };
  it('a render over budget: the failing result carries the four figures, the render one outside its budget', async () => {
    const [res] = await figuresOf(session('non-conforming', 'slow-render'));
    assert.equal(res!.kind, 'fail');
    const f = res!.properties!.appFigures!;
    assert.deepEqual(f.map((x) => [x.figure, x.budget, x.unit]), [
      ['bundle-gzip', 256000, 'B'],
      ['first-render', 1000, 'ms'],
      ['round-trip-p95', 500, 'ms'],
      ['js-heap', 52428800, 'B'],
    ]);
    assert.ok(f.every((x) => x.tool === 'show_notes' && typeof x.value === 'number'));
    assert.equal(f.find((x) => x.figure === 'first-render')!.withinBudget, false);
    assert.ok(f.find((x) => x.figure === 'first-render')!.value! >= 1000);
    assert.equal(f.find((x) => x.figure === 'round-trip-p95')!.calls, 5);
  });
  it('within budgets: every figure says so', async () => {
    const [res] = await figuresOf(session('present', 'vanilla-notes'));
    assert.ok(res!.properties!.appFigures!.every((x) => x.withinBudget === true), JSON.stringify(res!.properties));
  });
  it('a server that is not an App: no figures', async () => {
    const [res] = await figuresOf(join(packageRoot(), 'src', 'detectors', 'A-1-text-fallback', 'fixtures', 'not-applicable', 'no-ui', 'session.json'));
    assert.equal(res?.properties?.appFigures, undefined);
  });
});
