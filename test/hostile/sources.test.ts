import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Report } from '../../src/engine/runner.js';
import { audit } from '../../src/run/audit.js';
import { SOURCE_LIMITS } from '../../src/facts/ts-source.js';
import { CLI } from '../support/run.js';

/**
 * Sources written to defeat the reading (issue 10, "Files we read"; issue 9, large bundles). Every repository is
 * generated at test time. What must hold: a file padded past the parse limit is read by the pattern screen and
 * makes the code rules could-not-judge naming it (never a clean verdict over unread code); a file within the
 * limit is parsed whole, however large its padding; a file nested deeper than the walks can take is left out
 * as `file-not-read` (too-deep) while the malicious file beside it is still judged; a multi-megabyte bundle is
 * read; an unreadable source file is named as such.
 */

const MB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;

let base: string;
before(() => {
  base = mkdtempSync(join(tmpdir(), 'mcp-doctor-sources-'));
});
after(() => rmSync(base, { recursive: true, force: true }));

const EVIL = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { exec } from 'node:child_process';

const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.tool('open_note', 'Open a note by name.', { name: z.string() }, async ({ name }) => {
  exec('cat notes/' + name);
  return { content: [{ type: 'text', text: 'opened' }] };
});
await server.connect(new StdioServerTransport());
`;

/** A package folder with some files; returns its path. */
function pkg(name: string, files: Record<string, string>): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '1.17.0', zod: '3.25.0' } }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** Padding that looks like a comment block of license text (what an attacker pads with). */
const padding = (bytes: number): string => {
  const line = ' * Permission is hereby granted, free of charge, to any person obtaining a copy of this software.\n';
  return '/*\n' + line.repeat(Math.ceil(bytes / line.length)) + ' */\n';
};

const rule = (r: Report, id: string) => r.results.find((x) => x.ruleId === id)!;
const detectorErrors = (r: Report) => r.results.flatMap((x) => x.parts.filter((p) => p.reason?.code === 'detector-error').map((p) => `${x.ruleId}: ${p.reason?.data?.error}`));
/** Code rules must never be clean over code that was not read. */
const CLEAN_OVER_NOTHING = new Set(['no-source', 'no-source-code', 'no-tools-in-source', 'no-tools-registered', 'no-texts-in-source']);

describe('a source file padded to hide code', () => {
  it('within the parse limit (2.8 MB), it is parsed whole and the exec call is red', { timeout: 600_000 }, async () => {
    const dir = pkg('padded-small', { 'src/index.ts': padding(2.8 * MB) + EVIL });
    const r = await audit({ target: { path: dir }, rules: ['X-4'] });
    assert.equal(rule(r, 'X-4').state, 'non-conforming');
    assert.equal(rule(r, 'X-4').findings[0]?.location?.file, 'src/index.ts');
    assert.deepEqual(r.inputs?.skipped, []);
  });

  it('past the parse limit, the pattern screen reads it and the code rules say file-not-read naming it, size and limit', { timeout: 600_000 }, async () => {
    const text = padding(SOURCE_LIMITS.parseBytes + MB) + EVIL;
    const dir = pkg('padded-large', { 'src/index.ts': text, 'src/util.ts': 'export const add = (a: number, b: number) => a + b;\n' });
    const r = await audit({ target: { path: dir } });
    const size = Buffer.byteLength(text);
    const expected = { code: 'file-not-read', data: { file: 'src/index.ts', cause: 'too-large', size, limit: SOURCE_LIMITS.parseBytes } };
    for (const id of ['X-4', 'X-5', 'C-4', 'C-15']) {
      assert.equal(rule(r, id).state, 'could-not-judge', id);
      assert.deepEqual(rule(r, id).reason, expected, id);
    }
    for (const x of r.results) {
      for (const p of x.parts) assert.ok(!CLEAN_OVER_NOTHING.has(p.reason?.code ?? ''), `${x.ruleId}/${p.genre}: ${p.reason?.code}`);
    }
    assert.deepEqual(r.inputs?.skipped, [{ file: 'src/index.ts', cause: 'too-large', size, limit: SOURCE_LIMITS.parseBytes }]);
  });

  it('a data file past the limit that the screen clears is listed as skipped and does not block the verdicts', { timeout: 600_000 }, async () => {
    const table = '[' + Array.from({ length: (SOURCE_LIMITS.parseBytes + MB) / 8 }, (_, i) => String(i % 9973).padStart(7, '0')).join(',') + ']\n';
    const dir = pkg('data-table', { 'src/index.ts': EVIL, 'src/table.js': table });
    const r = await audit({ target: { path: dir }, rules: ['X-4', 'C-15'] });
    assert.equal(rule(r, 'X-4').state, 'non-conforming');
    assert.notEqual(rule(r, 'C-15').reason?.code, 'file-not-read');
    assert.deepEqual(r.inputs?.skipped, [{ file: 'src/table.js', cause: 'too-large', size: Buffer.byteLength(table), limit: SOURCE_LIMITS.parseBytes }]);
  });
});

describe('a tree larger than the parse budget (what bounds the audit\'s memory)', () => {
  /** 1.2 MB of helper files that fetch, then the malicious server (with 100 kB of helpers) last in path order. */
  const tree = (name: string): string => {
    const files: Record<string, string> = {};
    const helper = (i: number) => Array.from({ length: 400 }, (_, j) => `export async function get${i}_${j}(id: string) { const r = await fetch('https://api.example.com/' + id); return r.text(); }`).join('\n') + '\n';
    for (let i = 0, total = 0; total < 1.2 * MB; i++) {
      const text = helper(i);
      files[`src/a/h${String(i).padStart(3, '0')}.ts`] = text;
      total += text.length;
    }
    // Larger than what the helpers leave of a 1 MB budget (a small file would still fit in what is left).
    files['src/z/server.ts'] = EVIL + helper(999) + helper(998);
    return pkg(name, files);
  };
  const withBudget = async <T>(value: string | undefined, run: () => Promise<T>): Promise<T> => {
    const saved = process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    if (value === undefined) delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    else process.env.MCP_DOCTOR_PARSE_BUDGET_MB = value;
    try {
      return await run();
    } finally {
      if (saved === undefined) delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
      else process.env.MCP_DOCTOR_PARSE_BUDGET_MB = saved;
    }
  };

  it('past the budget, files are screened and named (cause budget), and the code rules could-not-judge; the user\'s environment sets the budget, nonsense values are ignored', { timeout: 600_000 }, async () => {
    const dir = tree('over-budget');
    const small = await withBudget('1', () => audit({ target: { path: dir }, rules: ['X-4'] }));
    const x4 = rule(small, 'X-4');
    assert.equal(x4.state, 'could-not-judge');
    assert.equal(x4.reason?.code, 'file-not-read');
    assert.equal(x4.reason?.data?.cause, 'budget');
    assert.equal(x4.reason?.data?.limit, MB);
    const skipped = small.inputs?.skipped ?? [];
    assert.ok(skipped.some((f) => f.file === 'src/z/server.ts' && f.cause === 'budget'), 'the malicious file is named');
    assert.ok(skipped.every((f) => f.cause === 'budget'));
    // The default budget reads the whole tree: the exec call is red.
    const whole = await withBudget(undefined, () => audit({ target: { path: dir }, rules: ['X-4'] }));
    assert.equal(rule(whole, 'X-4').state, 'non-conforming');
    assert.deepEqual(whole.inputs?.skipped, []);
    for (const nonsense of ['lots', '0', '-3', '100000', '']) {
      const r = await withBudget(nonsense, () => audit({ target: { path: dir }, rules: ['X-4'] }));
      assert.equal(rule(r, 'X-4').state, 'non-conforming', `MCP_DOCTOR_PARSE_BUDGET_MB=${nonsense} falls back to the default`);
    }
  });

  it('Python has its own share (45 %): past it, the Python file holding the call is named and X-4 could-not-judge', { timeout: 600_000 }, async () => {
    const dir = join(base, 'py-over-budget');
    mkdirSync(join(dir, 'src', 'notes'), { recursive: true });
    writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "notes"\nversion = "1.0.0"\ndependencies = ["mcp>=1.2"]\n');
    const helper = (i: number) => Array.from({ length: 300 }, (_, j) => `def get_${i}_${j}(key: str) -> str:\n    return httpx.get("https://api.example.com/" + key).text\n`).join('\n');
    for (let i = 0, total = 0; total < 0.8 * MB; i++) {
      const text = 'import httpx\n\n' + helper(i);
      writeFileSync(join(dir, 'src', 'notes', `h${String(i).padStart(3, '0')}.py`), text);
      total += text.length;
    }
    const server = [
      'import subprocess',
      'import httpx',
      'from mcp.server.fastmcp import FastMCP',
      '',
      'mcp = FastMCP("notes")',
      '',
      '@mcp.tool()',
      'def open_note(name: str) -> str:',
      '    """Open a note by name."""',
      '    return subprocess.check_output("cat notes/" + name, shell=True).decode()',
      '',
      helper(999),
    ].join('\n');
    writeFileSync(join(dir, 'src', 'notes', 'zz_server.py'), server);
    const small = await withBudget('1', () => audit({ target: { path: dir }, rules: ['X-4'] }));
    assert.equal(rule(small, 'X-4').state, 'could-not-judge');
    assert.ok((small.inputs?.skipped ?? []).some((f) => f.file === 'src/notes/zz_server.py' && f.cause === 'budget' && f.limit === Math.round(0.45 * MB)));
    const whole = await withBudget(undefined, () => audit({ target: { path: dir }, rules: ['X-4'] }));
    assert.equal(rule(whole, 'X-4').state, 'non-conforming');
  });

  it('the audited repository cannot raise it: a limits key in its .mcp-doctor.json is not a setting', { timeout: 600_000 }, async () => {
    const dir = tree('config-raises');
    writeFileSync(join(dir, '.mcp-doctor.json'), JSON.stringify({ limits: { parseBudgetMb: 256 }, parseBudgetMb: 256 }));
    const r = await withBudget('1', () => audit({ target: { path: dir }, rules: ['X-4'] }).catch((e: Error) => e));
    // Either the config is refused as invalid, or it is read and the budget stays the user's.
    if (!(r instanceof Error)) assert.equal(rule(r, 'X-4').reason?.data?.limit, MB);
  });
});

describe('a deeply nested source file beside a malicious one', () => {
  for (const [kind, deep] of [
    ['arrays', `export const x = ${'['.repeat(20_000)}1${']'.repeat(20_000)};\n`],
    ['blocks', `export function f(v: number) {\n${'if (v) {'.repeat(3_000)} return 1; ${'}'.repeat(3_000)}\n}\n`],
    ['concatenation', `export const s = ${Array.from({ length: 5_000 }, () => "'a'").join(' + ')};\n`],
  ] as const) {
    it(`(${kind}) is left out as file-not-read and the malicious file is still judged; no part fails`, { timeout: 600_000 }, async () => {
      const dir = pkg(`deep-${kind}`, { 'src/deep.ts': deep, 'src/index.ts': EVIL });
      const r = await audit({ target: { path: dir } });
      assert.deepEqual(detectorErrors(r), []);
      assert.equal(rule(r, 'X-4').state, 'non-conforming');
      assert.equal(rule(r, 'X-4').findings[0]?.location?.file, 'src/index.ts');
      const skipped = r.inputs?.skipped ?? [];
      assert.equal(skipped.length, 1);
      assert.equal(skipped[0]!.file, 'src/deep.ts');
      assert.equal(skipped[0]!.cause, 'too-deep');
      // A part that found nothing red says which file it could not read.
      assert.equal(rule(r, 'C-15').state === 'present', false);
    });
  }
});

describe('a multi-megabyte bundle', () => {
  it('is read (past the old 2 MB limit) and its registration and exec call are found at their lines', { timeout: 600_000 }, async () => {
    // Shaped like an esbuild bundle: modules wrapped in __commonJS closures, the server's module last.
    const mods: string[] = ['var __getOwnPropNames = Object.getOwnPropertyNames;', 'var __commonJS = (cb, mod) => function __require() { return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };'];
    for (let i = 0; Buffer.byteLength(mods.join('\n')) < 3 * MB; i++) {
      mods.push(
        `var require_util${i} = __commonJS({ "node_modules/util${i}/index.js"(exports, module) { function pad${i}(s, n) { s = String(s); while (s.length < n) s = " " + s; return s; } function sum${i}(xs) { let t = 0; for (const x of xs) t += x; return t; } module.exports = { pad${i}, sum${i}, name: "util${i}" }; } });`,
      );
    }
    const before = mods.join('\n').split('\n').length;
    const bundle = `${mods.join('\n')}\n${EVIL.replace(/^import .*$/gm, '').replace('await server.connect(new StdioServerTransport());', '')}`;
    const execLine = before + bundle.split('\n').slice(before).findIndex((l) => l.includes("exec('cat")) + 1;
    const dir = join(base, 'bundle');
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'notes-mcp', version: '1.0.0', bin: { 'notes-mcp': 'dist/index.js' }, files: ['dist'] }));
    writeFileSync(join(dir, 'dist', 'index.js'), `#!/usr/bin/env node\nimport { exec } from 'node:child_process';\nimport { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { z } from 'zod';\n${bundle}`);
    const r = await audit({ target: { path: dir }, rules: ['X-4'], verbose: true });
    assert.ok(Buffer.byteLength(bundle) > 3 * MB);
    assert.equal(rule(r, 'X-4').state, 'non-conforming');
    assert.deepEqual(rule(r, 'X-4').findings.map((f) => f.location), [{ file: 'dist/index.js', line: execLine + 4, column: rule(r, 'X-4').findings[0]!.location!.column }]);
    assert.deepEqual(r.inputs?.files?.list, ['dist/index.js', 'package.json']);
  });
});

describe('an unreadable source file', () => {
  it('is named as not read (unreadable), not "no source was found"', { timeout: 600_000 }, async () => {
    const dir = pkg('unreadable-file', { 'src/index.ts': EVIL });
    chmodSync(join(dir, 'src', 'index.ts'), 0o000);
    try {
      let reason: unknown;
      if (isRoot) {
        // Root opens every file: the audit runs as the user nobody, as a user of the CLI would.
        chmodSync(base, 0o755);
        const out = spawnSync(process.execPath, [CLI, 'audit', dir, '--rules', 'X-4', '--format', 'json'], { uid: 65534, gid: 65534, encoding: 'utf8' });
        assert.equal(out.status, 0, out.stderr);
        reason = (JSON.parse(out.stdout) as { results: { ruleId: string; reason?: { code: string; data: unknown } }[] }).results[0]!.reason;
        reason = { code: (reason as { code: string }).code, data: (reason as { data: unknown }).data };
      } else {
        reason = rule(await audit({ target: { path: dir }, rules: ['X-4'] }), 'X-4').reason;
      }
      assert.deepEqual(reason, { code: 'file-not-read', data: { file: 'src/index.ts', cause: 'unreadable' } });
    } finally {
      chmodSync(join(dir, 'src', 'index.ts'), 0o644);
    }
  });
});

describe('the parts that read code are known to the runner', () => {
  it('every fact memoised per repository notes that it reads source (so a memoised answer cannot skip the file-not-read check)', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { packageRoot } = await import('../../src/engine/paths.js');
    const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (n === 'fixtures' ? [] : statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith('.ts') ? [join(d, n)] : []));
    const memoised = walk(join(packageRoot(), 'src')).filter((f) => /new WeakMap<RepoFacts\b/.test(readFileSync(f, 'utf8')));
    assert.ok(memoised.length >= 5);
    for (const f of memoised) assert.match(readFileSync(f, 'utf8'), /noteSourceRead\(/, f);
  });
});
