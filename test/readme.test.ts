import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { globSync } from 'tinyglobby';
import { locales } from '../src/engine/i18n.js';
import { readmeFile, withTable } from '../src/docs/readme.js';

/** The user documents: the READMEs and docs/*.md, each English file with its French twin (`x.fr.md`). */
const DOCS = ['accuracy', 'performance', 'security', 'reference', 'ci'];
const twins = [['README.md', 'README.fr.md'], ...DOCS.map((d) => [`docs/${d}.md`, `docs/${d}.fr.md`])] as const;
const userDocs = twins.flat();

const require = createRequire(import.meta.url);
type Token = { type: string; tag: string; content: string; children: Token[] | null; attrGet(name: string): string | null };
const MarkdownIt = require('markdown-it') as new (o?: object) => { parse(s: string, env: object): Token[] };
const md = new MarkdownIt();
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2… */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const tokens = md.parse(text, {});
  tokens.forEach((tok, i) => {
    if (tok.type !== 'heading_open') return;
    const base = tokens[i + 1]!.content.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  });
  return out;
}
/** Headings as level + position only (the text differs by language). */
const levels = (text: string) => md.parse(text, {}).filter((t) => t.type === 'heading_open').map((t) => t.tag);
function links(text: string): string[] {
  const out: string[] = [];
  const walk = (toks: Token[]) => {
    for (const t of toks) {
      if (t.type === 'link_open') out.push(t.attrGet('href') ?? '');
      if (t.children) walk(t.children);
    }
  };
  walk(md.parse(text, {}));
  return out;
}

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
    it(`${l}: at most 300 lines, a page people read`, () => {
      const lines = readFileSync(readmeFile(l), 'utf8').split('\n').length;
      assert.ok(lines <= 300, `${readmeFile(l)}: ${lines} lines`);
    });
  }
  it('what users get never points at the developers\' ../shared folder', () => {
    const shipped = ['README.md', 'README.fr.md', ...globSync(['docs/**/*', 'rules/**/*', 'i18n/**/*', 'src/**/*.ts', 'mcp.json'], { ignore: ['src/**/fixtures/**'] })];
    const offenders = shipped.filter((f) => /\.\.\/shared\b|\bshared\/(?:seeds|notes|reference)\b/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });
  it('.ci/run runs exactly the README test command, and installs no browser itself', () => {
    const run = readFileSync('.ci/run', 'utf8');
    assert.match(run, /^npm ci && npm test$/m);
    assert.doesNotMatch(run.replace(/^#.*$/gm, ''), /apt-get|chromium/i);
  });
  it('the browser sentence names the package the tests really get it from', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    assert.ok(pkg.devDependencies['@sparticuz/chromium'], 'a devDependency ships Chromium');
    for (const f of ['README.md', 'README.fr.md']) assert.match(readFileSync(f, 'utf8'), /`@sparticuz\/chromium`/, f);
  });
});

describe('docs/', () => {
  for (const [en, fr] of twins) {
    it(`${en} and ${fr} exist with the same headings`, () => {
      assert.ok(existsSync(en) && existsSync(fr), `${en} / ${fr}`);
      assert.deepEqual(levels(readFileSync(fr, 'utf8')), levels(readFileSync(en, 'utf8')));
    });
  }
  for (const f of userDocs) {
    it(`${f}: every relative link and anchor resolves`, () => {
      const bad: string[] = [];
      for (const href of links(readFileSync(f, 'utf8'))) {
        if (/^[a-z]+:/i.test(href)) continue;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path ? normalize(join(dirname(f), path)) : f;
        if (!existsSync(target)) bad.push(href);
        else if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) bad.push(href);
      }
      assert.deepEqual(bad, []);
    });
  }
  for (const d of ['accuracy', 'performance']) {
    for (const f of [`docs/${d}.md`, `docs/${d}.fr.md`]) {
      it(`${f}: dated figures and the command that reproduces them`, () => {
        const text = readFileSync(f, 'utf8');
        assert.match(text, /\b20\d\d-\d\d-\d\d\b/);
        assert.match(text, /npm run (?:eval|bench):/);
      });
    }
  }
  it('user documents tell no history of the project\'s own work', () => {
    const offenders = userDocs.filter((f) => /\bissue \d+|\bengineers?\b|\bwere told\b|\bingénieurs?\b/i.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
