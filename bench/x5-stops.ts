import { resolve } from 'node:path';
import { RepoFacts } from '../src/facts/repo.js';
import { toolFlows, toolStops } from '../src/facts/flow.js';

/**
 * Where the flow of the tools' arguments stops (diagnostic, not product output). For one folder: per entry, the
 * file-system, SQL, program and argv sinks its arguments reach (with the argument fields and the guard), then each
 * call given an argument that leads nowhere the analysis knows (facts/flow toolStops): a method on a receiver not
 * resolved, a function of a dependency, the depth limit. Ends with a tally of the stops by kind (dependencies by
 * module, methods by name).
 * Run: node dist/bench/x5-stops.js <dir> [--all]   (--all also lists the stops in dependencies)
 */

const [, , dir, flag] = process.argv;
const repo = RepoFacts.gather(resolve(dir!));
const flows = toolFlows(repo).filter((f) => ['fs', 'sql', 'process', 'argument', 'shell'].includes(f.sinkKind));
const stops = toolStops(repo);
const tools = [...new Set([...flows.map((f) => f.tool), ...stops.map((s) => s.tool)])].sort();
const tally = new Map<string, number>();
for (const tool of tools) {
  console.log(`== ${tool}`);
  for (const f of flows.filter((x) => x.tool === tool)) console.log(`  sink ${f.sinkKind} ${f.sinkCall} ${f.file}:${f.line} guard=${f.guard}${f.guardDetail ? '/' + f.guardDetail : ''}${f.sqlUnresolved ? ' sql-unresolved' : ''}`);
  for (const s of stops.filter((x) => x.tool === tool)) {
    const k = s.why === 'dependency' ? `dependency ${s.module}` : s.why === 'method-of-unknown-receiver' ? `method-of-unknown-receiver .${s.method ?? '?'}` : s.why;
    tally.set(k, (tally.get(k) ?? 0) + 1);
    if (s.why !== 'dependency' || flag === '--all') console.log(`  stop ${s.why}${s.module ? ' ' + s.module : ''} ${s.call}(${s.keys.join(', ')}) ${s.file}:${s.line}`);
  }
}
console.log('== tally');
for (const [k, n] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${k}`);
