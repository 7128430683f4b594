import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../src/engine/paths.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';

/**
 * Tool names a helper composes from two of its inputs (facts/server-model/loop-wrappers: `${opts.prefix}_${tab.name}`
 * in a loop over the helper's list parameter) and names passed through a local string transform
 * (facts/server-model/name-transforms: `toolName('getUser')`). Package-shaped fixtures of C-2; before, every name
 * below was computed (C-2 could-not-judge 'tool-names-computed').
 */

const c2 = join(sourceDirOf(import.meta.url), '..', 'src', 'detectors', 'C-2-naming', 'fixtures');
const tools = (dir: string) =>
  serverModel(RepoFacts.gather(join(c2, dir))).tools
    .map((t) => `${t.nameIsLiteral ? t.name : `(${t.name})`} ${t.file}:${t.line}`)
    .sort();

describe('names a helper composes from two inputs', () => {
  it('one tool per call and per row of the list it is handed, at the row', () => {
    assert.deepEqual(tools('present/detail-tab-helper-two-part-names'), [
      'consultant_availability dist/tools/consultants.js:5',
      'consultant_skills dist/tools/consultants.js:4',
      'project_milestones dist/tools/projects.js:4',
      'project_staffing dist/tools/projects.js:5',
      'project_time_entries dist/tools/projects.js:6',
    ]);
  });
  it('a list parsed at run time leaves that call computed, the other call read', () => {
    const read = tools('could-not-judge/detail-tab-helper-runtime-tabs');
    assert.ok(read.includes('(`${opts.prefix}_${tab.name}`) dist/tools/detail-tabs.js:7'), read.join('\n'));
    assert.ok(read.includes('consultant_skills dist/tools/consultants.js:4'), read.join('\n'));
    assert.ok(!read.some((t) => t.startsWith('project_')), read.join('\n'));
  });
});

describe('names through a local transform', () => {
  it('a one-parameter function of string methods is run on the literal', () => {
    assert.deepEqual(tools('present/names-through-local-transform').map((t) => t.split(' ')[0]), ['get_user', 'list_queues', 'list_tickets']);
    assert.deepEqual(tools('non-conforming/names-through-local-transform-kebab').map((t) => t.split(' ')[0]), ['get-user', 'list-queues', 'list-tickets']);
  });
  it('a transform that reads anything else (an environment prefix) stays computed', () => {
    assert.ok(tools('could-not-judge/names-through-transform-with-state').every((t) => t.startsWith('(')));
  });
});
