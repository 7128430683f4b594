import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SyntaxKind, ts } from './morph.js';
import { RepoFacts } from './repo.js';
import { inTreeOrder, namedFilter, ofKinds, parsedSources, rawCalleeName, rawOfKinds, type NamedFilter } from './ts-source.js';
import { sourceDirOf } from '../engine/paths.js';

/**
 * The name index is a speed-up, never a judgement: a filter that carries its names must find exactly what a
 * scan of every node with the same filter finds. Checked on real code (this project's own detectors and
 * facts) and on a tiny repository written for the cases a scan and an index could disagree on.
 */

const scan = (sf: Parameters<typeof rawOfKinds>[0], kinds: SyntaxKind[], f: (cn: ts.Node) => boolean): ts.Node[] =>
  rawOfKinds(sf, kinds, (cn) => f(cn));

function sameAsScan(files: Iterable<Parameters<typeof rawOfKinds>[0]>, kinds: SyntaxKind[], filter: NamedFilter): number {
  let found = 0;
  for (const sf of files) {
    const indexed = rawOfKinds(sf, kinds, filter);
    const scanned = scan(sf, kinds, filter);
    // Several names are merged by position; a scan keeps the walk's order: compare as sets, then count.
    assert.deepEqual(new Set(indexed), new Set(scanned), `${sf.getFilePath()}: ${[...filter.names!].join(',')}`);
    assert.equal(indexed.length, scanned.length);
    found += indexed.length;
  }
  return found;
}

const props = (names: string[]): NamedFilter =>
  namedFilter(names, (cn) => (ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn)) && ts.isIdentifier(cn.name) && names.includes(cn.name.text));
const calls = (names: string[]): NamedFilter => namedFilter(names, (cn) => names.includes(rawCalleeName(cn) ?? ''));

describe('ts-source name index, on this project’s own code', () => {
  const files = [...parsedSources(RepoFacts.gather(join(sourceDirOf(import.meta.url), '..'))).files.values()];

  it('reads enough code for the comparison to mean something', () => {
    assert.ok(files.length > 50, `only ${files.length} files`);
  });
  it('finds the same calls as a scan', () => {
    assert.ok(sameAsScan(files, [SyntaxKind.CallExpression, SyntaxKind.NewExpression], calls(['push', 'ofKinds', 'Set', 'test', 'map'])) > 100);
  });
  it('finds the same property assignments as a scan', () => {
    assert.ok(sameAsScan(files, [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment], props(['messageId', 'data', 'location'])) > 50);
  });
  it('finds the same strings and property reads, whatever their case, as a scan', () => {
    const header = namedFilter(['authorization'], (cn) => (ts.isStringLiteralLike(cn) || ts.isPropertyAccessExpression(cn)) && (ts.isPropertyAccessExpression(cn) ? cn.name.text : cn.text).toLowerCase() === 'authorization');
    sameAsScan(files, [SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral, SyntaxKind.PropertyAccessExpression], header);
  });
});

describe('ts-source name index, on the cases where a scan and an index could differ', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doctor-index-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const long = 'x'.repeat(70);
  writeFileSync(
    join(dir, 'server.ts'),
    [
      `import { readFile } from 'node:fs/promises';`,
      `const h = { Authorization: 'Bearer', 'AUTHORIZATION': 1, authorization };`,
      `(readFile as any)('a'); (readFile)!('b'); obj['readFile']('c'); new Reader(); tag\`t\`;`,
      `const s = '${long}'; const t = \`Authorization\`;`,
      `const __proto = { __secret: 1 }; fn(__proto.__secret);`,
      `a.b().readFile().readFile();`,
    ].join('\n'),
  );
  const sf = [...parsedSources(RepoFacts.gather(dir)).files.values()][0]!;

  it('finds keys and strings whatever their case, through the lower-cased index', () => {
    const anyCase = namedFilter(['authorization'], (cn) => {
      const name = ts.isPropertyAssignment(cn) || ts.isShorthandPropertyAssignment(cn) ? cn.name : cn;
      return (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) && name.text.toLowerCase() === 'authorization';
    });
    const kinds = [SyntaxKind.PropertyAssignment, SyntaxKind.ShorthandPropertyAssignment, SyntaxKind.NoSubstitutionTemplateLiteral];
    assert.equal(sameAsScan([sf], kinds, anyCase), 4);
  });
  it('reads callee names through casts, non-null assertions and string element access', () => {
    assert.equal(sameAsScan([sf], [SyntaxKind.CallExpression], calls(['readFile'])), 5);
    assert.equal(sameAsScan([sf], [SyntaxKind.NewExpression, SyntaxKind.TaggedTemplateExpression], calls(['Reader', 'tag'])), 2);
  });
  it('keeps names with leading underscores as written', () => {
    const under = namedFilter(['__secret'], (cn) => (ts.isPropertyAssignment(cn) && ts.isIdentifier(cn.name) && cn.name.text === '__secret') || (ts.isPropertyAccessExpression(cn) && cn.name.text === '__secret'));
    assert.equal(sameAsScan([sf], [SyntaxKind.PropertyAssignment, SyntaxKind.PropertyAccessExpression], under), 2);
  });
  it('answers a name longer than the index keeps by a scan', () => {
    const f = namedFilter([long], (cn) => ts.isStringLiteral(cn) && cn.text === long);
    assert.equal(rawOfKinds(sf, [SyntaxKind.StringLiteral], f).length, 1);
  });
  it('puts nodes back in tree order (an outer call before the call it contains)', () => {
    const found = rawOfKinds(sf, [SyntaxKind.CallExpression], calls(['readFile', 'b']));
    const ordered = inTreeOrder([...found]);
    for (let i = 1; i < ordered.length; i++) {
      const [a, b] = [ordered[i - 1]!, ordered[i]!];
      assert.ok(a.pos < b.pos || (a.pos === b.pos && a.end >= b.end), 'not in tree order');
    }
    // ofKinds without a filter gives the walk's own order, which is tree order.
    const all = ofKinds(sf, [SyntaxKind.CallExpression]).map((n) => n.compilerNode);
    assert.deepEqual(inTreeOrder([...all]), all);
  });
});
