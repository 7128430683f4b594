import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Project } from 'ts-morph';
import { audit } from '../src/run/audit.js';
import { RepoFacts } from '../src/facts/repo.js';
import { sourceFilesOf } from '../src/facts/ts-source.js';

/**
 * Benchmark: a full static audit of a repository, as a ratio to a bare TypeScript parse of the same files
 * (ts-morph, in memory, no type checker) measured in the same run, each in its own process so that peak
 * memory (maxRSS) is measured separately.
 * Run: npm run bench:audit -- <dir> [rounds]   (e.g. a checkout of the MCP TypeScript SDK)
 */
const [, self, mode, dirArg, roundsArg] = process.argv;

if (mode === 'bare' || mode === 'audit') {
  const dir = resolve(dirArg!);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let files = 0;
  if (mode === 'bare') {
    const repo = RepoFacts.gather(dir);
    const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true, compilerOptions: { allowJs: true } });
    for (const rel of sourceFilesOf(repo)) {
      const t = repo.text(rel);
      if (t.ok) {
        project.createSourceFile('/' + rel, t.value, { overwrite: true });
        files++;
      }
    }
  } else {
    const report = await audit({ target: { path: dir } });
    files = report.results.length;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, files, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
} else {
  const dir = resolve(mode ?? '.');
  const rounds = Number(dirArg ?? 3);
  const run = (m: string) => {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), m, dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; files: number; maxRssMb: number };
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  // Interleaved (baseline, audit, baseline, audit…): a slower or faster spell of a shared machine then
  // weighs on both sides alike, and each round gives its own ratio.
  const bare: ReturnType<typeof run>[] = [];
  const full: ReturnType<typeof run>[] = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(run('bare'));
    full.push(run('audit'));
  }
  const mb = median(bare.map((x) => x.ms));
  const mf = median(full.map((x) => x.ms));
  const ratios = bare.map((b, i) => full[i]!.ms / b.ms).sort((a, b) => a - b);
  process.stdout.write(
    [
      `target: ${dir} (${bare[0]!.files} source files), ${rounds} rounds each, interleaved, medians, one process per run`,
      `baseline (bare ts-morph parse of the same files): ${mb.toFixed(0)} ms, peak ${Math.max(...bare.map((x) => x.maxRssMb)).toFixed(0)} MB`,
      `full static audit (${full[0]!.files} rules): ${mf.toFixed(0)} ms, peak ${Math.max(...full.map((x) => x.maxRssMb)).toFixed(0)} MB`,
      `ratio audit/baseline: ${(mf / mb).toFixed(2)} (per round: ${ratios[0]!.toFixed(2)}–${ratios[ratios.length - 1]!.toFixed(2)}, median ${median(ratios).toFixed(2)})`,
      `CPU time (all threads, garbage collector included): baseline ${median(bare.map((x) => x.cpuMs)).toFixed(0)} ms, audit ${median(full.map((x) => x.cpuMs)).toFixed(0)} ms, ratio ${(median(full.map((x) => x.cpuMs)) / median(bare.map((x) => x.cpuMs))).toFixed(2)}`,
    ].join('\n') + '\n',
  );
  void self;
}
