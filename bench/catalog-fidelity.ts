import { resolve } from 'node:path';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { SessionFacts } from '../src/facts/session.js';
import { loadSession } from '../src/run/probe.js';
import { servedTools } from '../src/detectors/support/live/dynamic-text.js';

/**
 * How faithfully the static reading finds the tools a package serves (diagnostic, not product output).
 * For each `<package dir>=<saved session>` pair (a session saved by `probe --save-session` on that package):
 * the tools served (tools/list), the tools read statically (facts/server-model, names read as written), those
 * served and not read (missed), read and not served (invented), and how many names were computed or whose
 * registration could not be followed. A tool the package gates off by configuration counts as invented here:
 * read the list before calling it wrong.
 * Run: node dist/bench/catalog-fidelity.js <dir>=<session.json>... [--json]
 */

const args = process.argv.slice(2);
const json = args.includes('--json');
const rows = [];
for (const pair of args.filter((a) => a !== '--json')) {
  const at = pair.lastIndexOf('=');
  const dir = pair.slice(0, at);
  const file = pair.slice(at + 1);
  const session = new SessionFacts(loadSession(file));
  const served = servedTools(session);
  const servedNames = served.ok ? served.tools.map((t) => String(t['name'])) : [];
  const model = serverModel(RepoFacts.gather(resolve(dir)));
  const read = [...new Set(model.tools.filter((t) => t.nameIsLiteral).map((t) => t.name))];
  const readSet = new Set(read);
  const servedSet = new Set(servedNames);
  rows.push({
    package: dir.replace(/^.*node_modules\//, ''),
    served: served.ok ? servedNames.length : `(${served.verdict.reason?.code ?? 'no tools/list'})`,
    read: read.length,
    missed: servedNames.filter((n) => !readSet.has(n)),
    invented: read.filter((n) => !servedSet.has(n)),
    computed: model.tools.filter((t) => !t.nameIsLiteral).length,
    unread: model.unread.length,
  });
}
if (json) console.log(JSON.stringify(rows, null, 2));
else {
  for (const r of rows) {
    const list = (xs: string[]): string => (xs.length ? `${xs.length} (${xs.slice(0, 6).join(', ')}${xs.length > 6 ? ', …' : ''})` : '0');
    console.log(`${r.package}: served ${r.served}, read ${r.read}, missed ${list(r.missed)}, invented ${list(r.invented)}, computed ${r.computed}, unread ${r.unread}`);
  }
}
