import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../src/engine/paths.js';
import type { Detector } from '../src/engine/detector.js';
import c4 from '../src/detectors/C-4-typed-schemas/static.js';
import c15 from '../src/detectors/C-15-tool-annotations/static.js';
import s12 from '../src/detectors/S-12-list-pagination/static.js';
import s24 from '../src/detectors/S-24-rate-limiting/static.js';
import c8 from '../src/detectors/C-8-declared-authority/index.js';
import c9 from '../src/detectors/C-9-declared-verb/index.js';
import c10 from '../src/detectors/C-10-declared-search-mechanism/index.js';
import c13 from '../src/detectors/C-13-context-ceiling/index.js';
import x1 from '../src/detectors/X-1-tool-poisoning/static.js';
import c16 from '../src/detectors/C-16-untrusted-tool-output/index.js';
import s11 from '../src/detectors/S-11-result-contract/static.js';
import x8 from '../src/detectors/X-8-lethal-trifecta/static.js';
import x2 from '../src/detectors/X-2-cross-server-shadowing/static.js';
import { RepoFacts } from '../src/facts/repo.js';
import { toolTemplates } from '../src/facts/tool-templates.js';
import { generatedTools } from '../src/detectors/support/source/generated-tools.js';
import { staticSummary } from './support/detector-tester.js';

/**
 * Static rules over tool sets built at run time (facts/tool-templates, detectors/support/source/generated-tools).
 * Real package-shaped servers (SDK v1 low-level Server, a bin/ launcher over dist/): an OpenAPI document turned
 * into tools by a map, the same with a template that writes title, outputSchema, annotations and pages its
 * list, a table of tool classes, a catalog fetched at run time and a document missing from the package.
 * Before the tool templates, every rule below was could-not-judge on all five (tools-declared-not-found,
 * list-source-unknown).
 */

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures', 'generated-tools');

function judge(rule: string, detector: Detector, name: string) {
  return staticSummary(rule, detector, join(fixtures, name));
}

describe('tool templates (fact)', () => {
  it('reads each template, its keys and where its items come from', () => {
    const read = (name: string) =>
      toolTemplates(RepoFacts.gather(join(fixtures, name))).map((t) => ({ at: `${t.file}:${t.line}`, items: t.items, document: t.documentPath, keys: [...t.keys.keys()].sort(), open: t.open }));
    assert.deepEqual(read('openapi-map'), [{ at: 'dist/index.js:32', items: 'document', document: 'dist/openapi.json', keys: ['description', 'inputSchema', 'name'], open: false }]);
    assert.deepEqual(read('openapi-annotated'), [
      { at: 'dist/index.js:14', items: 'document', document: 'dist/openapi.json', keys: ['_meta', 'annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title'], open: false },
    ]);
    assert.deepEqual(read('class-table').map((t) => [t.at, t.items]), [['dist/index.js:13', 'classes']]);
    assert.deepEqual(read('remote-catalog').map((t) => [t.at, t.items]), [['dist/index.js:17', 'remote']]);
    assert.deepEqual(read('missing-document').map((t) => [t.at, t.items, t.document]), [['dist/index.js:12', 'document', 'dist/weather-api.json']]);
  });
});

describe('C-15 static on generated tools', () => {
  it('a template without annotations is absent for every tool built from it, at the template', () => {
    assert.deepEqual(judge('C-15', c15, 'openapi-map'), { state: 'absent', reason: undefined, findings: [['missing-annotations-in-source', 'op.operationId', 'dist/index.js:32']] });
  });
  it('a table of tool classes: one finding per class, at the template that leaves annotations out', () => {
    assert.deepEqual(judge('C-15', c15, 'class-table'), {
      state: 'absent',
      reason: undefined,
      findings: [
        ['missing-annotations-in-source', 'delete_note', 'dist/index.js:13'],
        ['missing-annotations-in-source', 'read_note', 'dist/index.js:13'],
        ['missing-annotations-in-source', 'search_notes', 'dist/index.js:13'],
      ],
    });
  });
  it('a template that writes the four hints is present', () => {
    assert.equal(judge('C-15', c15, 'openapi-annotated').state, 'present');
  });
  it('a template whose objects get annotations assigned after they are built is not read as lacking them', () => {
    assert.deepEqual(judge('C-15', c15, 'assigned-after'), { state: 'could-not-judge', reason: 'annotations-not-literal', findings: [] });
    assert.deepEqual(judge('C-4', c4, 'assigned-after').findings, [['source-missing-schema', 'op.operationId', 'dist/index.js:11']]);
  });
  it('annotations read from the catalog item stay undecided', () => {
    assert.deepEqual(judge('C-15', c15, 'remote-catalog'), { state: 'could-not-judge', reason: 'annotations-not-literal', findings: [] });
  });
});

describe('C-4 static on generated tools', () => {
  it('a template without outputSchema: the output schema is missing, at the template', () => {
    assert.deepEqual(judge('C-4', c4, 'openapi-map'), { state: 'non-conforming', reason: undefined, findings: [['source-missing-schema', 'op.operationId', 'dist/index.js:32']] });
    assert.deepEqual(judge('C-4', c4, 'class-table').findings.map((f) => f[1]), ['delete_note', 'read_note', 'search_notes']);
  });
  it('a template writing typed literal schemas is present', () => {
    assert.equal(judge('C-4', c4, 'openapi-annotated').state, 'present');
  });
});

describe('S-24 static on generated tools', () => {
  it('no limiter anywhere: absent at the template, whatever the number of tools', () => {
    for (const [name, line] of [['openapi-map', 32], ['class-table', 13], ['remote-catalog', 17]] as const) {
      assert.deepEqual(judge('S-24', s24, name), { state: 'absent', reason: undefined, findings: [['no-rate-guard-built', null, `dist/index.js:${line}`]] }, name);
    }
  });
});

describe('S-12 static on generated tools', () => {
  it('tools mapped from a fetched catalog, cursor ignored: red; from a document shipped in the package: fixed', () => {
    // A document shipped in the package is a fixed catalog (its size is set at publication): no paging needed.
    assert.equal(judge('S-12', s12, 'openapi-map').state, 'present');
    assert.deepEqual(judge('S-12', s12, 'remote-catalog'), { state: 'non-conforming', reason: undefined, findings: [['list-handler-ignores-cursor', null, 'dist/index.js:15']] });
  });
  it('the same list paged with a cursor, and a table of classes written in code: present', () => {
    assert.equal(judge('S-12', s12, 'openapi-annotated').state, 'present');
    assert.equal(judge('S-12', s12, 'class-table').state, 'present');
  });
});

describe('declaration rules (C-8, C-9, C-10, C-13) on generated tools', () => {
  const staticOf = (parts: readonly Detector[]) => parts.find((d) => d.genre === 'static')!;
  it('a template without _meta declares nothing, for every tool built from it', () => {
    assert.deepEqual(judge('C-8', staticOf(c8), 'openapi-map'), { state: 'absent', reason: undefined, findings: [['missing-authority', 'op.operationId', 'dist/index.js:32']] });
    assert.deepEqual(judge('C-9', staticOf(c9), 'openapi-map'), { state: 'absent', reason: undefined, findings: [['missing-verb', 'op.operationId', 'dist/index.js:32']] });
    assert.deepEqual(judge('C-13', staticOf(c13), 'openapi-map'), { state: 'absent', reason: undefined, findings: [['missing-context-tokens', 'op.operationId', 'dist/index.js:32']] });
    assert.deepEqual(judge('C-9', staticOf(c9), 'class-table').findings.map((f) => f[1]), ['delete_note', 'read_note', 'search_notes']);
  });
  it('C-10: a class named search_ is a search tool; names read from a document leave it undecided', () => {
    assert.deepEqual(judge('C-10', staticOf(c10), 'class-table'), { state: 'absent', reason: undefined, findings: [['missing-search', 'search_notes', 'dist/index.js:13']] });
    assert.equal(judge('C-10', staticOf(c10), 'openapi-map').reason, 'declarations-not-static');
  });
  it('declarations read from the operation object stay undecided', () => {
    for (const [rule, d] of [['C-8', c8], ['C-9', c9], ['C-13', c13]] as const) {
      assert.deepEqual(judge(rule, staticOf(d), 'openapi-annotated'), { state: 'could-not-judge', reason: 'declarations-not-static', findings: [] }, rule);
    }
  });
});

describe('X-1 and X-2 static: the texts of the document the tools are built from', () => {
  it('a served description of the bundled OpenAPI document that poisons the model is red, at its line in the document', () => {
    assert.deepEqual(judge('X-1', x1, 'openapi-map'), {
      state: 'non-conforming',
      reason: undefined,
      findings: [
        ['source-credential-reference', null, 'dist/openapi.json:27'],
        ['source-hidden-markup', null, 'dist/openapi.json:27'],
        ['source-model-directive', null, 'dist/openapi.json:27'],
      ],
    });
  });
  it('clean documents and a class table whose texts are written in its classes are present', () => {
    for (const name of ['openapi-annotated', 'class-table']) {
      assert.equal(judge('X-1', x1, name).state, 'present', name);
      assert.equal(judge('X-2', x2, name).state, 'present', name);
    }
  });
  it('a document the package does not hold: could-not-judge naming it; a catalog fetched at run time: texts not in the source', () => {
    assert.deepEqual(judge('X-1', x1, 'missing-document'), { state: 'could-not-judge', reason: 'tool-document-not-read', findings: [] });
    assert.deepEqual(judge('X-2', x2, 'missing-document'), { state: 'could-not-judge', reason: 'tool-document-not-read', findings: [] });
    assert.equal(judge('X-1', x1, 'remote-catalog').reason, 'descriptions-not-literal');
  });
});

describe('C-16 static on generated tools', () => {
  const staticOf = (parts: readonly Detector[]) => parts.find((d) => d.genre === 'static')!;
  it('descriptions from the package document are its own text; from a fetched catalog, undecided', () => {
    assert.equal(judge('C-16', staticOf(c16), 'openapi-map').state, 'present');
    assert.deepEqual(judge('C-16', staticOf(c16), 'remote-catalog'), { state: 'could-not-judge', reason: 'descriptions-from-catalog', findings: [] });
  });
});

describe('S-11 static on generated tools', () => {
  it('the dispatcher returns structuredContent and the template declares no outputSchema: red at the result', () => {
    assert.deepEqual(judge('S-11', s11, 'openapi-map'), {
      state: 'non-conforming',
      reason: undefined,
      // The dispatcher's fetch is not caught either: its rejection leaves the low-level handler as a JSON-RPC error.
      findings: [
        ['upstream-failure-uncaught-in-source', null, 'dist/index.js:50'],
        ['structured-without-schema-in-source', 'op.operationId', 'dist/index.js:52'],
      ],
    });
  });
  it('a template with an outputSchema and a text block beside the structured result: present', () => {
    assert.equal(judge('S-11', s11, 'openapi-annotated').state, 'present');
  });
});

describe('X-8 static on generated tools', () => {
  it('a table of tool classes is sorted into legs by its classes; names from a shipped document are read from its operations', () => {
    assert.equal(judge('X-8', x8, 'class-table').state, 'present');
    // The Petstore operations (list, show, create, delete pets) read no private data and send nothing out.
    assert.deepEqual(judge('X-8', x8, 'openapi-map'), { state: 'present', reason: 'trifecta-legs', findings: [] });
  });
  it('a document the package does not hold, or a catalog fetched at run time, leaves the legs incomplete', () => {
    assert.equal(judge('X-8', x8, 'missing-document').reason, 'tool-legs-incomplete');
    assert.equal(judge('X-8', x8, 'remote-catalog').reason, 'tool-legs-incomplete');
  });
});

describe('generated tools read on the rows of a shipped document', () => {
  const tools = (name: string) => generatedTools(RepoFacts.gather(join(fixtures, name))).map((t) => [t.name, t.nameIsLiteral, `${t.file}:${t.line}`, t.description]);
  it('an OpenAPI document walked path by path and method by method: one tool per operation, located at the operation', () => {
    assert.deepEqual(tools('openapi-rows'), [
      ['list_notes', true, 'dist/jotter-api.json:7', 'List the notes of the workspace.'],
      ['create_note', true, 'dist/jotter-api.json:8', 'Create a note in the workspace.'],
      ['get_note', true, 'dist/jotter-api.json:12', 'Read one note.'],
      ['delete_note', true, 'dist/jotter-api.json:13', 'Delete one note.'],
    ]);
  });
  it('an endpoint table mapped row by row: one tool per row; C-2 and C-15 findings point at the rows', () => {
    assert.deepEqual(tools('endpoint-rows').map((t) => t[0]), ['list_budgets', 'getBudgetMonth', 'create_transaction']);
    assert.deepEqual(judge('C-15', c15, 'endpoint-rows').findings, [
      ['missing-annotations-in-source', 'list_budgets', 'dist/endpoints.json:3'],
      ['missing-annotations-in-source', 'getBudgetMonth', 'dist/endpoints.json:4'],
      ['missing-annotations-in-source', 'create_transaction', 'dist/endpoints.json:5'],
    ]);
  });
  it('a document whose path is read from the environment: one tool for the template, names and descriptions not read', () => {
    assert.deepEqual(tools('computed-spec-path'), [['op.operationId', false, 'dist/index.js:15', undefined]]);
    assert.equal(judge('X-1', x1, 'computed-spec-path').reason, 'descriptions-not-literal');
  });
});
