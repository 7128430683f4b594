import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Project } from 'ts-morph';
import { audit } from '../src/run/audit.js';
import { loadPythonParser, pythonSources } from '../src/facts/python-source.js';
import { RepoFacts } from '../src/facts/repo.js';
import { parsedSources, sourceFilesOf } from '../src/facts/ts-source.js';
import { serverModel } from '../src/facts/server-model.js';
import { sinkSites, toolFlows } from '../src/facts/flow.js';
import { ts, type SourceFile } from 'ts-morph';

/**
 * Benchmark: peak memory (maxRSS) of a full static audit of generated, tool-dense source — every file registers
 * tools whose handlers fetch, read files or run commands — against a baseline measured in the same run: a bare
 * parse of every file (ts-morph, in memory), each side in its own process. The audit runs twice: with the default
 * parse budget (what bounds memory: files past it are screened and named as not read, their rules
 * could-not-judge) and with the budget raised to read every file, to show what reading it all would cost.
 * Issue 10: a 6.3 MB tree of tool-dense files once peaked at 2.4 GB; the target is at most 1 GB for 10 MB.
 * Three shapes: many small files (FastMCP addTool, a shared helper module), fewer large ones (SDK
 * registerTool with zod shapes), and Python (FastMCP decorated tools, 40 per file). No wall time is asserted.
 * Run: npm run bench:memory -- [megabytes=10]
 * Where the memory goes (live heap after a full collection, step by step, and how many syntax nodes ts-morph has
 * wrapped): node --expose-gc dist/bench/memory.js breakdown <dir>   (generate a shape first: memory.js small|large|python <dir> <MB>)
 */
const [, self, mode, dirArg, mbArg] = process.argv;

const MB = 1024 * 1024;

/** Many small files: FastMCP tools that call a shared helper (fetch, exec). */
function smallFiles(dir: string, bytes: number): number {
  mkdirSync(join(dir, 'src', 'tools'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-small', version: '1.0.0', type: 'module', dependencies: { fastmcp: '1.0.0', zod: '3.25.0' } }));
  writeFileSync(join(dir, 'src', 'helpers.ts'), "import { execSync } from 'node:child_process';\nexport function sh(c: string) { return execSync(c).toString(); }\nexport const client = { get: (u: string) => fetch(u) };\n");
  let total = 0;
  let f = 0;
  for (; total < bytes; f++) {
    let s = "import { FastMCP } from 'fastmcp';\nimport { z } from 'zod';\nimport { sh, client } from '../helpers.js';\nexport function add(server: FastMCP) {\n";
    for (let t = 0; t < 8; t++) {
      s += `  server.addTool({\n    name: 'x_${f}_${t}',\n    description: 'Does step ${t} of job ${f}.',\n    parameters: z.object({ q: z.string(), n: z.number().optional() }),\n    annotations: { readOnlyHint: ${t % 2 === 0} },\n    execute: async (args, { log }) => {\n      log.info('called ' + args.q);\n      if (args.n && args.n > 3) { const r = await client.get('https://api.example.com/' + args.q); return await r.text(); }\n      return ${t % 4 === 1 ? "sh('grep ' + args.q + ' /tmp/x')" : 'JSON.stringify({ q: args.q, n: args.n ?? 0 })'};\n    },\n  });\n`;
    }
    s += '}\n';
    writeFileSync(join(dir, 'src', 'tools', `x${f}.ts`), s);
    total += s.length;
  }
  return f + 1;
}

/** Fewer large files: SDK registerTool with zod shapes, handlers that fetch with a timeout. */
function largeFiles(dir: string, bytes: number): number {
  mkdirSync(join(dir, 'src', 'tools'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-large', version: '1.0.0', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '1.17.0', zod: '3.25.0' } }));
  let total = 0;
  let f = 0;
  for (; total < bytes; f++) {
    let s = `import { z } from 'zod';\nimport type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n\nexport function register${f}(server: McpServer) {\n`;
    for (let t = 0; t < 40; t++) {
      const n = `tool_${f}_${t}`;
      s += `  server.registerTool('${n}', {\n    title: 'Tool ${n}',\n    description: 'Reads the record ${n} from the store and returns it as text.',\n    inputSchema: { id: z.string().describe('The record id'), limit: z.number().int().optional(), mode: z.enum(['a', 'b']) },\n    annotations: { readOnlyHint: true, openWorldHint: false },\n  }, async ({ id, limit, mode }) => {\n    const url = new URL('https://api.example.com/v1/records/' + encodeURIComponent(id));\n    if (limit) url.searchParams.set('limit', String(limit));\n    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });\n    if (!res.ok) return { isError: true, content: [{ type: 'text', text: 'failed: ' + res.status }] };\n    const data = (await res.json()) as Record<string, unknown>;\n    const text = mode === 'a' ? JSON.stringify(data) : Object.entries(data).map(([k, v]) => k + '=' + String(v)).join('\\n');\n    return { content: [{ type: 'text', text }] };\n  });\n`;
    }
    s += '}\n';
    writeFileSync(join(dir, 'src', 'tools', `t${f}.ts`), s);
    total += s.length;
  }
  return f;
}

/** Python: FastMCP tools (decorated functions) that fetch with httpx or run subprocess, 40 per file. */
function pythonFiles(dir: string, bytes: number): number {
  mkdirSync(join(dir, 'src', 'bench_py'), { recursive: true });
  writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "bench-py"\nversion = "1.0.0"\ndependencies = ["mcp>=1.2", "httpx"]\n');
  let total = 0;
  let f = 0;
  for (; total < bytes; f++) {
    let s = `import subprocess\nimport httpx\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("bench${f}")\n`;
    for (let t = 0; t < 40; t++) {
      s += `\n@mcp.tool(annotations={"readOnlyHint": ${t % 2 === 0 ? 'True' : 'False'}})\nasync def x_${f}_${t}(q: str, n: int = 0) -> str:\n    """Does step ${t} of job ${f}."""\n    if n > 3:\n        async with httpx.AsyncClient(timeout=5) as c:\n            r = await c.get("https://api.example.com/" + q)\n            return r.text\n    return ${t % 4 === 1 ? 'subprocess.check_output(["grep", q, "/tmp/x"]).decode()' : 'str({"q": q, "n": n})'}\n`;
    }
    writeFileSync(join(dir, 'src', 'bench_py', `x${f}.py`), s);
    total += s.length;
  }
  return f;
}

if (mode === 'small' || mode === 'large' || mode === 'python') {
  // Generate one shape only (for the verdict comparison in bench/verdicts.ts): memory.js small|large|python <dir> <MB>.
  const files = (mode === 'small' ? smallFiles : mode === 'large' ? largeFiles : pythonFiles)(resolve(dirArg!), Number(mbArg ?? 10) * MB);
  process.stdout.write(JSON.stringify({ files }) + '\n');
} else if (mode === 'breakdown') {
  await breakdown(resolve(dirArg!));
} else if (mode === 'pybare') {
  // Baseline of the Python shape: tree-sitter's parse of every file (the parse budget raised by the caller).
  const repo = RepoFacts.gather(resolve(dirArg!));
  await loadPythonParser();
  const py = pythonSources(repo);
  process.stdout.write(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, read: py?.files.size ?? 0 }) + '\n');
} else if (mode === 'bare' || mode === 'audit') {
  const dir = resolve(dirArg!);
  if (mode === 'bare') {
    const repo = RepoFacts.gather(dir);
    const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
    for (const rel of sourceFilesOf(repo)) {
      const t = repo.source(rel, 64 * MB);
      if (t.ok) project.createSourceFile('/' + rel, t.text, { overwrite: true });
    }
    process.stdout.write(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
  } else {
    const report = await audit({ target: { path: dir } });
    const inputs = report.inputs as { files?: { read: number }; skipped?: unknown[] } | undefined;
    const undecided = report.results.filter((r) => r.state === 'could-not-judge').length;
    process.stdout.write(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, read: inputs?.files?.read ?? 0, notRead: inputs?.skipped?.length ?? 0, undecided }) + '\n');
  }
} else {
  const mb = Number(mode ?? 10);
  type Side = { maxRssMb: number; read?: number; notRead?: number; undecided?: number };
  const run = (m: string, dir: string, budgetMb?: number): Side => {
    const env = { ...process.env };
    if (budgetMb === undefined) delete env.MCP_DOCTOR_PARSE_BUDGET_MB;
    else env.MCP_DOCTOR_PARSE_BUDGET_MB = String(budgetMb);
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), m, dir], { encoding: 'utf8', maxBuffer: 1 << 20, env });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as Side;
  };
  const root = mkdtempSync(join(tmpdir(), 'mcp-doctor-bench-memory-'));
  try {
    const lines = [`generated tool-dense source: ${mb} MB per shape; peak RSS (maxRSS) of each side in its own process`];
    const shapes = [
      ['many small files', smallFiles, 'bare', 'bare ts-morph parse of every file', 1],
      ['fewer large files', largeFiles, 'bare', 'bare ts-morph parse of every file', 1],
      ['Python, FastMCP', pythonFiles, 'pybare', 'bare tree-sitter parse of every file', 1 / 0.6],
    ] as const;
    for (const [name, make, bareMode, bareLabel, share] of shapes) {
      const dir = join(root, name.replace(/ /g, '-'));
      const files = make(dir, mb * MB);
      const raised = Math.ceil(mb * share * 1.2) + 1;
      const bare = run(bareMode, dir, raised);
      const bounded = run('audit', dir);
      const whole = run('audit', dir, raised);
      const side = (label: string, x: Side): string =>
        `${label} ${x.maxRssMb.toFixed(0)} MB (ratio ${(x.maxRssMb / bare.maxRssMb).toFixed(2)}; ${x.read} files parsed, ${x.notRead} named as not read, ${x.undecided} rules could-not-judge)${x.maxRssMb > 1024 ? ' — over 1 GB' : ''}`;
      lines.push(
        `${name} (${files} files): baseline (${bareLabel}) ${bare.maxRssMb.toFixed(0)} MB`,
        `  ${side('static audit, default parse budget:', bounded)}`,
        `  ${side('static audit, budget raised to read every file (MCP_DOCTOR_PARSE_BUDGET_MB):', whole)}`,
      );
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  void self;
}

/**
 * Live heap (after a full collection) of each step of a static audit, to find what holds memory: the report's
 * findings alone (a full audit, its report kept, the parse dropped), then the parse with its per-file index, the
 * server model, the flow analysis (toolFlows and sinkSites), and the ts-morph wrappers all of that created
 * (counted through ts-morph's node cache, then forgotten to weigh them). Needs --expose-gc.
 */
async function breakdown(dir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const live = (): number => {
    gc();
    return process.memoryUsage().heapUsed / MB;
  };
  const rows: [string, number][] = [];
  const base = live();
  let report: unknown = await audit({ target: { path: dir } });
  const withReport = live();
  const findings = (report as { results: { findings: unknown[] }[] }).results.reduce((n, r) => n + r.findings.length, 0);
  report = undefined;
  const empty = live();
  rows.push([`report (${findings} findings), parse dropped`, withReport - empty]);
  const repo = RepoFacts.gather(dir);
  const parsed = parsedSources(repo);
  const afterParse = live();
  rows.push([`parse and per-file index (${parsed.files.size} files)`, afterParse - empty]);
  serverModel(repo);
  const afterModel = live();
  rows.push(['server model', afterModel - afterParse]);
  toolFlows(repo);
  sinkSites(repo);
  const afterFlow = live();
  rows.push(['flow analysis (toolFlows, sinkSites)', afterFlow - afterModel]);
  let wrapped = 0;
  let nodes = 0;
  for (const sf of parsed.files.values()) {
    const factory = (sf as unknown as { _context?: { compilerFactory?: { hasCompilerNode(n: ts.Node): boolean } } })._context?.compilerFactory;
    const walk = (n: ts.Node): void => {
      nodes++;
      if (factory?.hasCompilerNode(n)) wrapped++;
      ts.forEachChild(n, walk);
    };
    ts.forEachChild(sf.compilerNode, walk);
  }
  for (const sf of parsed.files.values()) (sf as SourceFile).forgetDescendants();
  const afterForget = live();
  rows.push([`of which ts-morph wrappers (${wrapped} of ${nodes} syntax nodes wrapped)`, afterFlow - afterForget]);
  const out = [`live heap after a full collection, MB (base ${base.toFixed(0)}):`, ...rows.map(([k, v]) => `  ${k}: ${v.toFixed(0)}`)];
  process.stdout.write(out.join('\n') + '\n');
}
