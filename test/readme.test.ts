import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { globSync } from 'tinyglobby';
import { locales } from '../src/engine/i18n.js';
import { readmeFile, withTable } from '../src/docs/readme.js';

describe('README', () => {
  for (const l of locales()) {
    it(`${l}: the rule table is generated from the catalog (run npm run docs)`, () => {
      const text = readFileSync(readmeFile(l), 'utf8');
      assert.equal(text, withTable(text, l));
    });
    it(`${l}: opens with the install-and-audit command and the test command`, () => {
      const blocks = [...readFileSync(readmeFile(l), 'utf8').matchAll(/```sh\n([^\n]+)\n```/g)].map((m) => m[1]);
      assert.equal(blocks[0], 'npm ci && npm run build && node dist/src/cli.js audit examples/weather-server');
      assert.equal(blocks[1], 'npm ci && npm test');
    });
  }
  it('what users get never points at the developers\' ../shared folder', () => {
    const shipped = ['README.md', 'README.fr.md', ...globSync(['rules/**/*', 'i18n/**/*', 'src/**/*.ts', 'mcp.json'], { ignore: ['src/**/fixtures/**'] })];
    const offenders = shipped.filter((f) => /\.\.\/shared\b|\bshared\/(?:seeds|notes|reference)\b/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });
  it('.ci/run runs exactly the README test command', () => {
    assert.match(readFileSync('.ci/run', 'utf8'), /^npm ci && npm test$/m);
  });
});
