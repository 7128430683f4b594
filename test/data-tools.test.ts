import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../src/engine/paths.js';
import type { Detector } from '../src/engine/detector.js';
import c4 from '../src/detectors/C-4-typed-schemas/static.js';
import c15 from '../src/detectors/C-15-tool-annotations/static.js';
import s13 from '../src/detectors/S-13-progress-cancellation/static.js';
import x2 from '../src/detectors/X-2-cross-server-shadowing/static.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';
import { toolsInSource } from '../src/facts/tools-in-source.js';
import { staticSummary } from './support/detector-tester.js';

/**
 * Tools generated when the server starts from a data file the package ships (facts/data-documents, read by the
 * server model's loop reading): Microsoft Graph wrappers shaped like published ones — a bin/ launcher over dist/,
 * an endpoint list as JSON beside the compiled code, one generic handler every row runs.
 *   graph-endpoints            ESM, `import endpoints from './endpoints.json' with { type: 'json' }`, a class whose
 *                              register() loops over the rows, the handler calling a method with fetch and no timeout;
 *   graph-endpoints-annotated  CommonJS TypeScript output (`__importDefault(require("./endpoints.json")).default.endpoints`),
 *                              annotations in the rows, a handler factory `handlerFor(endpoint)` with a timeout;
 *   graph-endpoints-missing    `JSON.parse(readFileSync(join(__dirname, 'endpoints.json')))` where the package does
 *                              not publish the JSON, rows walked by `filter(…).forEach`, a handler factory: nothing
 *                              about its tools can be read.
 * On main: the first was one tool named `endpoint.toolName` (X-2 present, C-15 over one unread annotation), the
 * second and third no tool at all (not-applicable no-tools-registered: a registration whose handler is a factory's
 * result was dropped, so the server looked toolless).
 */

const fixtures = join(sourceDirOf(import.meta.url), 'fixtures', 'data-tools');

function judge(rule: string, detector: Detector, name: string) {
  return staticSummary(rule, detector, join(fixtures, name));
}

describe('tools from a shipped data file (server model)', () => {
  it('reads one tool per row, named and located in the JSON document', () => {
    const repo = RepoFacts.gather(join(fixtures, 'graph-endpoints'));
    assert.deepEqual(
      toolsInSource(repo).map((t) => `${t.name}@${t.file}:${t.line}`),
      ['list-mail-messages@dist/endpoints.json:3', 'send-mail@dist/endpoints.json:9', 'delete-mail-message@dist/endpoints.json:15', 'list-calendar-events@dist/endpoints.json:21'],
    );
    const model = serverModel(repo);
    assert.deepEqual(model.tools.map((t) => t.description), ['List messages', 'Send mail', 'Delete a message', 'List events']);
    // The rows share one handler: one entry at the registration, not one reading per row.
    assert.deepEqual(model.entries.map((e) => [e.name, `${e.file}:${e.line}`, e.nameComputed]), [['endpoint.toolName', 'dist/graph-tools.js:20', true]]);
  });

  it('CommonJS output with a handler factory: rows under a key, annotations from the rows, the factory’s function as handler', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-endpoints-annotated')));
    assert.deepEqual(
      model.tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.handler?.getSourceFile().getFilePath()]),
      [
        ['list_drive_items', true, false, '/dist/handlers.js'],
        ['get_drive_item', true, false, '/dist/handlers.js'],
        ['delete_drive_item', false, true, '/dist/handlers.js'],
      ],
    );
    assert.equal(model.entries.length, 1);
  });

  it('a document the package does not ship: the registration is unread, naming the document and the name field', () => {
    const model = serverModel(RepoFacts.gather(join(fixtures, 'graph-endpoints-missing')));
    assert.deepEqual(model.tools, []);
    assert.deepEqual(model.unread.map((u) => [u.expression, `${u.file}:${u.line}`]), [['endpoint.toolName', 'dist/endpoints.json:1']]);
  });
});

describe('static rules over the rows', () => {
  it('C-15: rows without annotations are absent one by one, at their row; rows with the four hints are present', () => {
    assert.deepEqual(judge('C-15', c15, 'graph-endpoints'), {
      state: 'absent',
      reason: undefined,
      findings: [
        ['missing-annotations-in-source', 'list-mail-messages', 'dist/endpoints.json:3'],
        ['missing-annotations-in-source', 'send-mail', 'dist/endpoints.json:9'],
        ['missing-annotations-in-source', 'delete-mail-message', 'dist/endpoints.json:15'],
        ['missing-annotations-in-source', 'list-calendar-events', 'dist/endpoints.json:21'],
      ],
    });
    assert.equal(judge('C-15', c15, 'graph-endpoints-annotated').state, 'present');
  });

  it('X-2: a row’s name that imitates a well-known tool is read', () => {
    assert.deepEqual(judge('X-2', x2, 'graph-endpoints'), { state: 'non-conforming', reason: undefined, findings: [['source-lookalike-tool-name', 'send-mail', 'dist/endpoints.json:9']] });
  });

  it('S-13 judges the one shared handler: no timeout is red, a timeout with the request signal is green', () => {
    const red = judge('S-13', s13, 'graph-endpoints');
    assert.equal(red.state, 'non-conforming');
    assert.deepEqual(red.findings.map((f) => f[0]), ['outbound-without-timeout']);
    assert.equal(judge('S-13', s13, 'graph-endpoints-annotated').state, 'present');
  });

  it('C-4 reads the handler factory’s tools (not no-tools-registered); a missing document stays could-not-judge', () => {
    assert.equal(judge('C-4', c4, 'graph-endpoints-annotated').state, 'non-conforming');
    assert.deepEqual(judge('C-4', c4, 'graph-endpoints-missing'), { state: 'could-not-judge', reason: 'tool-registrations-not-read', findings: [] });
  });
});
