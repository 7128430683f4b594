import { execSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
const load = async (root) => ({
  RepoFacts: (await import(root + '/dist/src/facts/repo.js')).RepoFacts,
  sinkSites: (await import(root + '/dist/src/facts/flow.js')).sinkSites,
});
const A = await load('/work/wt/auth'), B = await load('/work/main');
const dirs = ['/tmp/tssdk', '/work/main', '/work/main/evals/heldout/repos/ts-ops-server', ...readdirSync('/work/main/evals/heldout/node_modules').filter(d=>!d.startsWith('.')).flatMap(d => d.startsWith('@') ? readdirSync('/work/main/evals/heldout/node_modules/'+d).map(x=>'/work/main/evals/heldout/node_modules/'+d+'/'+x) : ['/work/main/evals/heldout/node_modules/'+d])];
for (const det of readdirSync('/work/main/src/detectors')) {
  const f = `/work/main/src/detectors/${det}/fixtures`;
  if (!existsSync(f)) continue;
  for (const st of readdirSync(f)) for (const n of readdirSync(`${f}/${st}`)) dirs.push(`${f}/${st}/${n}`);
}
let diff = 0, total = 0;
for (const d of dirs) {
  const key = (s) => `${s.file}:${s.line}:${s.column}:${s.family}:${s.call}`;
  const a = A.sinkSites(A.RepoFacts.gather(d)).map(key).sort(), b = B.sinkSites(B.RepoFacts.gather(d)).map(key).sort();
  total += a.length;
  if (a.join('\n') !== b.join('\n')) { diff++; console.log('DIFF', d, a.filter(x=>!b.includes(x)), b.filter(x=>!a.includes(x))); }
}
console.log(dirs.length, 'dirs', total, 'sinks', diff, 'differ');
