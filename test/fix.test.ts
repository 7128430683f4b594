import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { audit } from '../src/run/api.js';
import { packageRoot } from '../src/engine/paths.js';
import type { RuleResult } from '../src/engine/types.js';
import { FIXABLE, FixRefused, fixRepository, type FixResult } from '../src/fix/index.js';
import { targetOf } from '../src/fix/reading.js';
import { copyFixFixture, git } from './support/fix-copy.js';
import { runCli } from './support/run.js';

/**
 * `mcp-doctor fix` on real red servers (test/fixtures/fix/*: SDK v2 with zod, SDK v1 low-level), each copied to a
 * temporary git repository whose node_modules is ours (so the fixture compiles against the real SDK types):
 * each fix gives a tree where the finding it answers is gone and that still compiles (tsc --noEmit); a dry run
 * prints the diff and writes nothing; a tree with changes, or outside git, is refused; a fix that the audit after
 * does not confirm is rolled back; nothing outside the folder is written.
 */

const root = packageRoot();
const work = mkdtempSync(join(tmpdir(), 'mcp-doctor-fix-'));
after(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A fresh copy of a fixture in its own git repository (committed, clean), with our node_modules linked. */
const copy = (fixture: string, opts: { git?: boolean } = {}): string => copyFixFixture(fixture, join(work, `${fixture}-${n++}`, 'server'), opts);

/** tsc --noEmit on the folder (its own tsconfig), with the repository's TypeScript. */
function compiles(dir: string): { ok: boolean; out: string } {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8', timeout: 120_000 });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

const ids = (r: RuleResult | undefined) => (r?.findings ?? []).map((f) => f.messageId);
async function judge(dir: string, rules: string[]) {
  const rep = await audit({ target: { path: dir }, rules });
  return new Map(rep.results.map((r) => [r.ruleId, r]));
}
const states = (res: FixResult) => res.outcomes.map((o) => `${o.state} ${o.target.ruleId} ${o.target.messageId}${o.reason ? ` ${o.reason}` : ''}`).sort();

describe('mcp-doctor fix on an SDK v2 server', () => {
  it('fixes C-15, S-13, C-1 and C-20: the findings are gone and the tree still compiles', async () => {
    const dir = copy('sdk-v2-weather');
    const before = await judge(dir, ['C-15', 'S-13', 'C-1', 'C-20']);
    assert.equal(ids(before.get('C-15')).filter((m) => m === 'missing-annotations-in-source').length, 4);
    assert.deepEqual(ids(before.get('S-13')), ['outbound-without-timeout', 'outbound-without-timeout']);
    assert.deepEqual(ids(before.get('C-1')).sort(), ['missing-description-fr', 'missing-readme-fr']);
    assert.deepEqual(ids(before.get('C-20')), ['missing-key']);
    assert.ok(compiles(dir).ok, 'the fixture compiles before the fix');

    const res = await fixRepository({ dir, locale: 'en' });
    const fixed = res.outcomes.filter((o) => o.state === 'fixed').map((o) => `${o.target.ruleId} ${o.target.messageId}`);
    assert.equal(fixed.filter((f) => f === 'C-15 missing-annotations-in-source').length, 4);
    assert.equal(fixed.filter((f) => f === 'S-13 outbound-without-timeout').length, 2);
    assert.ok(fixed.includes('C-1 missing-readme-fr') && fixed.includes('C-1 missing-description-fr') && fixed.includes('C-20 missing-key'));
    assert.ok(!res.outcomes.some((o) => o.state === 'rolled-back' || o.state === 'conflict'), states(res).join('\n'));

    const afterFix = await judge(dir, ['C-15', 'S-13', 'C-1', 'C-20']);
    assert.equal(afterFix.get('C-15')!.parts.find((p) => p.genre === 'static')!.state, 'present');
    assert.deepEqual(ids(afterFix.get('S-13')), []);
    assert.equal(afterFix.get('C-1')!.state, 'present');
    assert.equal(afterFix.get('C-20')!.parts.find((p) => p.genre === 'static')!.state, 'present');
    const c = compiles(dir);
    assert.ok(c.ok, c.out);

    // What the flow reading decided: shout reads nothing and calls nothing outside (all four hints decided);
    // save_note writes a file (not read-only; whether it destroys is a question left under a TODO).
    const index = readFileSync(join(dir, 'src', 'index.ts'), 'utf8');
    assert.match(index, /annotations: \{ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false \}/);
    const saveNote = res.outcomes.find((o) => o.target.data?.tool === 'save_note')!;
    assert.deepEqual(saveNote.questions, ['destructiveHint', 'idempotentHint']);
    assert.match(index, /TODO\(mcp-doctor\): destructiveHint true is the default[^\n]*\*\/ annotations: \{ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false \}/);
    assert.match(readFileSync(join(dir, 'src', 'i18n', 'fr.json'), 'utf8'), /"empty": "TODO\(translate\): No forecast for \{city\}"/);
    assert.match(readFileSync(join(dir, 'README.fr.md'), 'utf8'), /^<!-- TODO\(translate\): /);
  });

  it('--dry-run prints a unified diff and changes nothing', async () => {
    const dir = copy('sdk-v2-weather');
    const res = await fixRepository({ dir, locale: 'fr', dryRun: true });
    assert.equal(res.written.length, 0);
    assert.match(res.diff, /^--- a\/src\/weather\.ts\n\+\+\+ b\/src\/weather\.ts\n@@ /m);
    assert.match(res.diff, /^\+.*AbortSignal\.timeout\(10000\)/m);
    assert.match(res.diff, /^--- \/dev\/null\n\+\+\+ b\/README\.fr\.md/m);
    // The TODO comments are written in the asked locale.
    assert.match(res.diff, /TODO\(mcp-doctor\): destructiveHint true est la valeur par défaut/);
    assert.ok(res.outcomes.some((o) => o.state === 'planned') && !res.outcomes.some((o) => o.state === 'fixed'));
    assert.equal(git(dir, 'status', '--porcelain'), '', 'nothing written');
  });

  it('refuses a tree with uncommitted changes, and a folder outside git, unless forced', async () => {
    const dir = copy('sdk-v2-weather');
    writeFileSync(join(dir, 'src', 'weather.ts'), readFileSync(join(dir, 'src', 'weather.ts'), 'utf8') + '\n// edited\n');
    await assert.rejects(fixRepository({ dir, locale: 'en' }), (e: unknown) => e instanceof FixRefused && e.code === 'dirty-tree' && e.data.count === 1);
    assert.equal(git(dir, 'status', '--porcelain').trim(), 'M src/weather.ts', 'the refusal wrote nothing');

    const loose = copy('sdk-v2-weather', { git: false });
    // A folder inside a temporary directory that no git repository holds.
    await assert.rejects(fixRepository({ dir: loose, locale: 'en', rules: ['S-13'] }), (e: unknown) => e instanceof FixRefused && e.code === 'not-git');
    const forced = await fixRepository({ dir: loose, locale: 'en', rules: ['S-13'], force: true });
    assert.deepEqual(states(forced), ['fixed S-13 outbound-without-timeout', 'fixed S-13 outbound-without-timeout']);
  });

  it('rolls back a fix that the audit after does not confirm, and writes nothing outside the folder', async () => {
    const dir = copy('sdk-v2-weather');
    // A file outside the folder, and a link to it inside: neither is read by the audit, so no fix may write them.
    const outside = join(dir, '..', 'outside.ts');
    writeFileSync(outside, "export const ping = () => fetch('https://example.test');\n");
    symlinkSync(outside, join(dir, 'src', 'linked.ts'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'link');
    const res = await fixRepository({
      dir,
      locale: 'en',
      rules: ['S-13', 'C-1'],
      fixers: {
        // An S-13 fix that edits the right file but does not bound the request: the re-audit still finds it.
        'S-13': (r) => {
          const f = r.red.get('S-13')!.findings[0]!;
          return { fixes: [{ targets: [targetOf('S-13', f)], edits: [{ file: f.location!.file, start: 0, end: 0, text: '// bounded, honest\n' }] }], skips: [] };
        },
        // Fixes that would write outside the folder: through '..', and through the link.
        'C-1': (r) => {
          const [a, b] = r.red.get('C-1')!.findings;
          return {
            fixes: [
              { targets: [targetOf('C-1', a!)], edits: [{ file: '../outside.ts', start: 0, end: 0, text: '// written outside\n' }] },
              { targets: [targetOf('C-1', b!)], edits: [{ file: 'src/linked.ts', start: 0, end: 0, text: '// written outside\n' }], create: [{ file: '../README.fr.md', text: 'outside' }] },
            ],
            skips: [],
          };
        },
      },
    });
    assert.deepEqual(states(res), ['rolled-back S-13 outbound-without-timeout', 'skipped C-1 missing-description-fr not-editable', 'skipped C-1 missing-readme-fr not-editable']);
    assert.equal(readFileSync(outside, 'utf8'), "export const ping = () => fetch('https://example.test');\n");
    assert.ok(!existsSync(join(dir, '..', 'README.fr.md')));
    assert.equal(git(dir, 'status', '--porcelain'), '', 'the rolled-back fix left the tree as it was');
  });
});

describe('mcp-doctor fix: a handler that ignores its cancellation signal', () => {
  it("threads the context's signal into the handler's own fetch, with the time limit; the tree still compiles", async () => {
    const dir = copy('sdk-v2-cancel');
    const before = await judge(dir, ['S-13']);
    assert.deepEqual(ids(before.get('S-13')).sort(), ['outbound-without-timeout', 'signal-ignored']);
    const res = await fixRepository({ dir, locale: 'en', rules: ['S-13'] });
    assert.deepEqual(states(res), ['fixed S-13 outbound-without-timeout', 'fixed S-13 signal-ignored']);
    assert.match(readFileSync(join(dir, 'src', 'index.ts'), 'utf8'), /signal: AbortSignal\.any\(\[ctx\.mcpReq\.signal, AbortSignal\.timeout\(10000\)\]\)/);
    assert.deepEqual(ids((await judge(dir, ['S-13'])).get('S-13')), []);
    const c = compiles(dir);
    assert.ok(c.ok, c.out);
  });
});

describe('mcp-doctor fix, interrupted', () => {
  it('puts the tree back when the audit after the fix does not finish (cancelled)', async () => {
    const dir = copy('sdk-v2-weather');
    const ctl = new AbortController();
    const run = fixRepository({
      dir,
      locale: 'en',
      rules: ['S-13', 'C-1'],
      signal: ctl.signal,
      // The real S-13 fix, then a cancellation that the audit after the write meets.
      fixers: {
        'C-1': () => {
          ctl.abort();
          return { fixes: [], skips: [] };
        },
      },
    });
    await assert.rejects(run);
    assert.equal(git(dir, 'status', '--porcelain'), '', 'the written fixes were undone');
  });
});

describe('mcp-doctor fix on an SDK v1 low-level server', () => {
  it('fixes C-4, S-11 and C-20: the findings are gone and the tree still compiles', async () => {
    const dir = copy('sdk-v1-lowlevel');
    const before = await judge(dir, ['C-4', 'S-11', 'C-20']);
    assert.ok(ids(before.get('C-4')).includes('source-catch-all'));
    assert.deepEqual(ids(before.get('S-11')), ['unknown-tool-result-in-source']);
    assert.deepEqual(ids(before.get('C-20')), ['missing-locale']);
    assert.ok(compiles(dir).ok, 'the fixture compiles before the fix');

    const res = await fixRepository({ dir, locale: 'en' });
    assert.deepEqual(
      states(res).filter((s) => !s.startsWith('skipped')),
      ['fixed C-20 missing-locale', 'fixed C-4 source-catch-all', 'fixed S-11 unknown-tool-result-in-source'],
    );
    // The missing output schemas are not mechanical: listed as left.
    assert.ok(res.outcomes.some((o) => o.state === 'skipped' && o.target.messageId === 'source-missing-schema' && o.reason === 'not-mechanical'));

    const afterFix = await judge(dir, ['C-4', 'S-11', 'C-20']);
    assert.ok(!ids(afterFix.get('C-4')).includes('source-catch-all'));
    assert.deepEqual(ids(afterFix.get('S-11')), []);
    assert.equal(afterFix.get('C-20')!.parts.find((p) => p.genre === 'static')!.state, 'present');
    const server = readFileSync(join(dir, 'src', 'server.ts'), 'utf8');
    assert.match(server, /import \{ CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode \} from '@modelcontextprotocol\/sdk\/types\.js';/);
    assert.match(server, /throw new McpError\(ErrorCode\.InvalidParams, `Unknown tool: \$\{String\(request\.params\.name\)\}`\);/);
    const c = compiles(dir);
    assert.ok(c.ok, c.out);
  });
});

describe('mcp-doctor fix: S-7, judged on the running server', () => {
  it('reads the version from package.json, kept once the server started with the command serves it', async () => {
    const dir = copy('js-version');
    const res = await fixRepository({ dir, locale: 'en', rules: ['S-7'], command: ['node', 'server.mjs'] });
    assert.deepEqual(states(res), ['fixed S-7 version-in-source']);
    assert.match(readFileSync(join(dir, 'server.mjs'), 'utf8'), /version: createRequire\(import\.meta\.url\)\('\.\/package\.json'\)\.version/);
    const { probeAndJudge } = await import('../src/run/probe.js');
    const { report } = await probeAndJudge({ command: ['node', 'server.mjs'], cwd: dir, source: dir, rules: ['S-7'], apps: { browser: false } });
    assert.equal(report.results.find((r) => r.ruleId === 'S-7')!.state, 'present');
    const c = compiles(dir);
    assert.ok(c.ok, c.out);
  });

  it('reads nothing the configuration leaves out of the audit (ignorePaths)', async () => {
    const dir = copy('js-version');
    mkdirSync(join(dir, 'examples'));
    cpSync(join(dir, 'server.mjs'), join(dir, 'examples', 'server.mjs'));
    writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ ignorePaths: ['examples/**'] }));
    const res = await fixRepository({ dir, locale: 'en', rules: ['S-7'], command: ['node', 'server.mjs'], dryRun: true });
    assert.deepEqual(res.outcomes.map((o) => `${o.state} ${o.target.file}`), ['planned server.mjs']);
  });

  it('without the command it is not attempted; with a command whose server stays red it is rolled back', async () => {
    const dir = copy('js-version');
    const none = await fixRepository({ dir, locale: 'en', rules: ['S-7'] });
    assert.deepEqual(states(none), ['skipped S-7 version-in-source needs-command']);
    const red = await fixRepository({ dir, locale: 'en', rules: ['S-7'], command: ['node', 'other.mjs'] });
    assert.deepEqual(states(red), ['rolled-back S-7 version-in-source']);
    assert.equal(git(dir, 'status', '--porcelain'), '', 'the rolled-back fix left the tree as it was');
  });
});

describe('mcp-doctor fix: a hint written as a string', () => {
  it('becomes the boolean the flow reading decides, not the one the string spells, when the reading decides it', async () => {
    // C-15's own fixture: empty_trash deletes files and writes destructiveHint: 'false'.
    const dir = join(work, 'hint-string');
    cpSync(join(root, 'src', 'detectors', 'C-15-tool-annotations', 'fixtures', 'non-conforming', 'lowlevel-dispatcher'), dir, { recursive: true });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'fixture');
    const res = await fixRepository({ dir, locale: 'en', rules: ['C-15'] });
    assert.ok(states(res).includes('fixed C-15 hint-not-boolean-in-source'), states(res).join('\n'));
    assert.match(readFileSync(join(dir, 'src', 'server.js'), 'utf8'), /^\s*destructiveHint: true,$/m);
    const afterFix = await judge(dir, ['C-15']);
    assert.deepEqual(ids(afterFix.get('C-15')), ['read-only-tool-changes-things']);
  });
});

describe('mcp-doctor fix on the command line', () => {
  it('prints the diff with --dry-run, refuses a tree with changes (exit 2), speaks French with --locale fr', async () => {
    const dir = copy('sdk-v2-weather');
    const dry = await runCli(['fix', dir, '--dry-run', '--rules', 'S-13,C-4']);
    // Left findings (missing output schemas, not mechanical) make the exit code 1.
    assert.equal(dry.code, 1, dry.stderr);
    assert.match(dry.stdout, /^--- a\/src\/weather\.ts$/m);
    assert.equal(git(dir, 'status', '--porcelain'), '');
    writeFileSync(join(dir, 'README.md'), '# changed\n');
    const refused = await runCli(['fix', dir, '--locale', 'fr']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--force/);
    const help = await runCli(['fix', '--help', '--locale', 'fr']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage : mcp-doctor fix/);
  });
});

describe('mcp-doctor fix: what it does not do', () => {
  it('says "not done" for Python source, per finding', async () => {
    const dir = join(work, 'py');
    cpSync(join(root, 'src', 'detectors', 'C-15-tool-annotations', 'fixtures', 'absent', 'py-no-annotations'), dir, { recursive: true });
    const res = await fixRepository({ dir, locale: 'en', rules: ['C-15'], dryRun: true });
    assert.ok(res.outcomes.length > 0);
    assert.ok(res.outcomes.every((o) => o.state === 'skipped' && o.reason === 'python'), states(res).join('\n'));
    assert.equal(res.diff, '');
  });

  it('refuses a rule it does not repair', async () => {
    await assert.rejects(fixRepository({ dir: root, locale: 'en', rules: ['X-4'], dryRun: true }), (e: unknown) => e instanceof FixRefused && e.code === 'unknown-rule');
    assert.ok(FIXABLE.length >= 6);
  });
});
