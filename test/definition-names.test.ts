import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../src/engine/paths.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';

// A tool's definition kept beside its handler and registered by its fields (`registerTool(def.name, { description:
// def.description, … })`), as caldav-mcp@0.10.0 does: one tool, named and described by the definition's literals.
describe('server model: tool names read from a same-file definition object', () => {
  const dir = join(packageRoot(), 'src/detectors/X-8-lethal-trifecta/fixtures/non-conforming/calendar-definitions');
  it('names each tool once, from the literal, with its description', () => {
    const tools = serverModel(RepoFacts.gather(dir, [])).tools;
    assert.deepEqual(tools.map((t) => [t.name, t.nameIsLiteral, t.api]).sort(), [
      ['create-event', true, 'registerTool'],
      ['list-events', true, 'registerTool'],
      ['search-events', true, 'registerTool'],
    ]);
    assert.equal(tools.find((t) => t.name === 'list-events')?.description, 'List the events of a calendar between two dates.');
  });
});
