import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The floors of src/, top to bottom (ARCHITECTURE.md draws them). A file may import from its own floor and from
 * the floors below, never from a floor above. A pattern ending in '/' is a folder, any other a file; the longest
 * pattern that matches a file decides its floor (so a few files of a folder can sit on another floor).
 */
export const FLOORS: readonly { floor: string; paths: readonly string[] }[] = [
  // What a user runs: the CLI, the MCP server, the batch commands, the scripts that write docs and tables.
  // src/fix/cli.ts and render.ts are the fix command's adapter and its text, shared by the CLI and the MCP tool.
  { floor: 'faces', paths: ['src/cli.ts', 'src/cli-main.ts', 'src/server/', 'src/batch/', 'src/docs/', 'src/tokens/build-table.ts', 'src/fix/cli.ts', 'src/fix/render.ts'] },
  // One module per command flow (audit, probe, scan, gate, and the fix flow src/fix/index.ts), called by both faces;
  // the faces' API.
  { floor: 'run', paths: ['src/run/', 'src/fix/index.ts'] },
  // Renderers of a report (JSON, Markdown, SARIF, HTML, terminal text).
  { floor: 'report', paths: ['src/report/', 'src/scan/markdown.ts'] },
  // Judging: the detectors and their shared helpers, the MCP Apps host harness, the set-wide scan judgments,
  // the source fixers (src/fix/, each reading facts the way its rule's detector does).
  { floor: 'rules', paths: ['src/detectors/', 'src/apps/', 'src/scan/', 'src/fix/'] },
  // The engine: catalog, config, detector contract, judging and combining parts, target kind.
  { floor: 'engine', paths: ['src/engine/'] },
  // What is read from a target: the repository, its sources and their models, the recorded session as facts,
  // the gate's delivery context, client configuration files.
  { floor: 'facts', paths: ['src/facts/'] },
  // Connections to a live server, containment of what it starts, the recorded session and its format.
  { floor: 'probe', paths: ['src/probe/'] },
  // Shared ground every floor may use: types, log, errors, messages, paths, bounded reading, token counting.
  {
    floor: 'base',
    paths: [
      'src/engine/types.ts',
      'src/engine/log.ts',
      'src/engine/errors.ts',
      'src/engine/i18n.ts',
      'src/engine/paths.ts',
      'src/engine/launcher.ts',
      'src/engine/heap.ts',
      'src/engine/untrusted-schema.ts',
      'src/facts/safe-read.ts',
      'src/facts/budget.ts',
      'src/tokens/count.ts',
      'src/extensions/',
      'src/types/',
    ],
  },
];

/** The floor of a file (repository-relative, forward slashes), or undefined when no pattern names it. */
export function floorOf(file: string, floors = FLOORS): string | undefined {
  let best: { floor: string; length: number } | undefined;
  for (const f of floors) {
    for (const p of f.paths) {
      const hit = p.endsWith('/') ? file.startsWith(p) : file === p;
      if (hit && (!best || p.length > best.length)) best = { floor: f.floor, length: p.length };
    }
  }
  return best?.floor;
}

/** Import graph: file -> the files it imports (import, export … from, import(), import types; relative only). */
export type Graph = Map<string, string[]>;

/** The import graph of src/ (tests and fixture folders left out), read from the TypeScript sources. */
export function importGraph(root: string): Graph {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir).sort()) {
      if (e === 'fixtures' || e === 'node_modules') continue;
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.ts') && !e.endsWith('.d.ts') && !e.endsWith('.test.ts')) files.push(relative(root, p).split(sep).join('/'));
    }
  };
  walk(join(root, 'src'));
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const f of files) {
    const info = ts.preProcessFile(readFileSync(join(root, f), 'utf8'), true, true);
    const out = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(dirname(f), fileName)).replace(/\.js$/, '.ts');
      if (known.has(target)) out.add(target);
      else if (known.has(target.replace(/\.ts$/, '/index.ts'))) out.add(target.replace(/\.ts$/, '/index.ts'));
    }
    graph.set(f, [...out].sort());
  }
  return graph;
}

/** Imports from a lower floor to a higher one, and files no floor names, each as a sentence naming the files. */
export function layerViolations(graph: Graph, floors = FLOORS): string[] {
  const rank = new Map(floors.map((f, i) => [f.floor, i]));
  const out: string[] = [];
  for (const [file, imports] of graph) {
    const from = floorOf(file, floors);
    if (!from) {
      out.push(`${file} is on no floor (add it to FLOORS in test/support/layers.ts)`);
      continue;
    }
    for (const target of imports) {
      const to = floorOf(target, floors);
      if (to && rank.get(to)! < rank.get(from)!) out.push(`${file} (${from}) imports ${target} (${to}, a higher floor)`);
    }
  }
  return out;
}

/** Import circles (strongly connected components of more than one file, or a file importing itself), each as the files in it. */
export function importCycles(graph: Graph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(c.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return cycles;
}

/** A circle as a sentence: each of its imports that stays inside it. */
export function describeCycle(graph: Graph, cycle: readonly string[]): string {
  const inside = new Set(cycle);
  const edges = cycle.flatMap((a) => (graph.get(a) ?? []).filter((b) => inside.has(b)).map((b) => `${a} -> ${b}`));
  return `import circle: ${edges.join(', ')}`;
}
