import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCatalog } from '../../engine/catalog.js';
import { defaultConfig } from '../../engine/config.js';
import { packageRoot } from '../../engine/paths.js';
import { judgeRule } from '../../engine/runner.js';
import { RepoFacts } from '../../facts/repo.js';
import { serverModel } from '../../facts/server-model.js';
import { SessionFacts } from '../../facts/session.js';
import type { RecordedSession } from '../../probe/session.js';
import c10 from './index.js';
import c11 from '../C-11-bounded-pagination/static.js';

/**
 * not-applicable 'no-list-or-search-tool' stands on the tools read from the source being the whole catalog
 * (support/source/tool-absence.ts catalogGap): tools served that the reading missed, or names computed at run time,
 * leave the static part unjudged. And tools built by a factory in a listed table are read one per call.
 */

const fx = (folder: string, state: string, name: string) => join(packageRoot(), 'src', 'detectors', folder, 'fixtures', state, name);
const C10 = 'C-10-declared-search-mechanism';

function staticPart(ruleId: string, detectors: Parameters<typeof judgeRule>[1], dir: string, sessionOf?: string) {
  const session = sessionOf
    ? { ok: true as const, value: new SessionFacts(JSON.parse(readFileSync(join(sessionOf, 'session.json'), 'utf8')) as RecordedSession) }
    : { ok: false as const, reason: { code: 'needs-session' } };
  const repo = RepoFacts.gather(dir);
  const result = judgeRule(loadCatalog().byId.get(ruleId)!, detectors, { repo: { ok: true, value: repo }, session }, defaultConfig(), repo.kind());
  const p = result.parts.find((x) => x.genre === 'static')!;
  return [p.state, p.reason?.code, p.reason?.data];
}

describe('the static catalog: a factory-built table, and not-applicable only on a whole catalog', () => {
  it('reads one tool per factory call, named by the call argument the factory writes as its name', () => {
    const tools = serverModel(RepoFacts.gather(fx(C10, 'absent', 'factory-built-tool-table'))).tools;
    assert.deepEqual(
      tools.map((t) => [t.name, t.nameIsLiteral, t.line, t.description]),
      [
        ['list_incidents', true, 37, 'List incidents of the status page, newest first'],
        ['get_incident', true, 44, 'Get one incident by its id'],
        ['search_components', true, 54, "Search the page's components by name"],
      ],
    );
  });

  it('C-10 and C-11: tools served that the source reading did not find are could-not-judge, not not-applicable', () => {
    // The source reads get_flag and toggle_flag; the recorded session (another server's) serves search_notes, do_note_action, list_tags.
    const dir = fx(C10, 'not-applicable', 'factory-built-tool-table');
    const session = fx(C10, 'non-conforming', 'served-misdeclared');
    const staticC10 = c10.filter((d) => d.genre === 'static');
    assert.deepEqual(staticPart('C-10', staticC10, dir), ['not-applicable', 'no-list-or-search-tool', undefined]);
    assert.deepEqual(staticPart('C-10', staticC10, dir, session), ['could-not-judge', 'served-tools-not-read', { count: 3, first: 'search_notes' }]);
    assert.deepEqual(staticPart('C-11', [c11], dir, session), ['could-not-judge', 'served-tools-not-read', { count: 3, first: 'search_notes' }]);
  });

  it('C-11: a tool whose name is computed at run time may be a list tool', () => {
    const dir = fx(C10, 'could-not-judge', 'factory-name-computed');
    const [state, code] = staticPart('C-11', [c11], dir);
    assert.deepEqual([state, code], ['could-not-judge', 'tool-names-computed']);
  });

  it('C-11: tool definitions with nothing in the source that lists them are could-not-judge (a dependency serves them)', () => {
    const dir = fx(C10, 'could-not-judge', 'definitions-listed-by-dependency');
    assert.deepEqual(staticPart('C-11', [c11], dir), ['could-not-judge', 'tools-listed-elsewhere', { count: 1, tool: 'export_contacts', file: 'dist/tools/exportContacts.js', line: 6 }]);
  });
});
