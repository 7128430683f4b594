import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scratch, startCli } from './support/servers.js';

/**
 * Memory (issue 20): a tool-dense tree of 400 files and about 6.5 MB — every file registers 30-odd FastMCP tools
 * whose handlers fetch or run a command — is audited with the parse budget raised so that EVERY file is read, and the
 * whole mcp-doctor run (the command and the CLI it starts under a heap ceiling, src/engine/heap.ts) stays under
 * 1 GB of resident memory at its peak. Without the ceiling the same run peaked at 1.23 GB: V8 let the heap grow.
 * The peak is read from outside: VmHWM of every process of the run in /proc, polled while it runs.
 */

const s = scratch();
after(() => s.cleanup());

const FILES = 400;
const BYTES = 6.5 * 1024 * 1024;

function denseTree(dir: string): number {
  mkdirSync(join(dir, 'src', 'tools'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'dense', version: '1.0.0', type: 'module', dependencies: { fastmcp: '1.0.0', zod: '3.25.0' } }));
  writeFileSync(join(dir, 'src', 'helpers.ts'), "import { execSync } from 'node:child_process';\nexport function sh(c: string) { return execSync(c).toString(); }\nexport const client = { get: (u: string) => fetch(u) };\n");
  let total = 0;
  for (let f = 0; f < FILES; f++) {
    let text = "import { FastMCP } from 'fastmcp';\nimport { z } from 'zod';\nimport { sh, client } from '../helpers.js';\nexport function add(server: FastMCP) {\n";
    for (let t = 0; text.length < BYTES / FILES; t++) {
      const body = t % 4 === 1 ? "sh('grep ' + args.q + ' /tmp/x')" : 'JSON.stringify({ q: args.q, n: args.n ?? 0 })';
      text += `  server.addTool({\n    name: 'x_${f}_${t}',\n    description: 'Does step ${t} of job ${f}.',\n    parameters: z.object({ q: z.string(), n: z.number().optional() }),\n    annotations: { readOnlyHint: ${t % 2 === 0} },\n    execute: async (args, { log }) => {\n      log.info('called ' + args.q);\n      if (args.n && args.n > 3) { const r = await client.get('https://api.example.com/' + args.q); return await r.text(); }\n      return ${body};\n    },\n  });\n`;
    }
    text += '}\n';
    writeFileSync(join(dir, 'src', 'tools', `x${f}.ts`), text);
    total += text.length;
  }
  return total;
}

/** Peak resident memory (VmHWM, kB) of each live process in the tree under `root`, by pid. */
function sampleTree(root: number, peaks: Map<number, number>): void {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid, i = 0; p && i < 64; p = parent.get(p), i++) if (p === root) return true;
    return false;
  };
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
      if (hwm) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, Number(hwm[1])));
    } catch {
      /* gone */
    }
  }
}

describe('hostile: a large tool-dense tree', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
  it('is audited with every file read under 1 GB of peak memory', { timeout: 900_000 }, async () => {
    const dir = join(s.dir, 'dense');
    const bytes = denseTree(dir);
    assert.ok(bytes >= 6.3 * 1024 * 1024, `${bytes} bytes of source`);
    const run = startCli(['audit', dir, '--format', 'json'], { env: { MCP_DOCTOR_PARSE_BUDGET_MB: '7', MCP_DOCTOR_HEAP_MB: '' } });
    const peaks = new Map<number, number>();
    const timer = setInterval(() => sampleTree(run.child.pid!, peaks), 50);
    const r = await run.done.finally(() => clearInterval(timer));
    assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr.slice(-2000)}`);
    const report = JSON.parse(r.stdout) as { inputs: { files?: { read: number }; skipped?: unknown[] }; results: { ruleId: string; findings: unknown[] }[] };
    // Every file of the tree: the 400 tool files, the helper module and package.json.
    assert.equal(report.inputs.files?.read, FILES + 2, 'every file was read');
    assert.deepEqual(report.inputs.skipped ?? [], [], 'no file skipped');
    // The tools were seen: a finding per tool for a per-tool rule.
    assert.ok(report.results.some((x) => x.findings.length >= FILES * 30), 'per-tool findings for every file');
    const peakKb = [...peaks.values()].reduce((a, b) => a + b, 0);
    assert.ok(peaks.size >= 1, 'the run was sampled');
    assert.ok(peakKb < 1_000_000, `peak resident memory of the run: ${(peakKb / 1024).toFixed(0)} MB (${JSON.stringify([...peaks])})`);
  });
});
