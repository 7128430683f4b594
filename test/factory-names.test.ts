import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sourceDirOf } from '../src/engine/paths.js';
import { RepoFacts } from '../src/facts/repo.js';
import { serverModel } from '../src/facts/server-model.js';

/**
 * Tool names a factory composes from the values it is handed (facts/server-model: readWrapped, the listed elements
 * of a tools/list handler; facts/server-model/values: composedString). Package-shaped fixtures of C-2: a CRUD
 * factory called once per entity with a const of options (one of them spread from another), a loop over a written
 * list naming each tool `ledger_report_${report.name}`, an array of factory calls (`makeListTool('projects', …)`
 * returning `{ name: \`list_${resource}\` }`), and a prefix read from the environment, which stays computed.
 * Before, every name below was computed (C-2 could-not-judge 'tool-names-computed').
 */

const c2 = join(sourceDirOf(import.meta.url), '..', 'src', 'detectors', 'C-2-naming', 'fixtures');
const tools = (dir: string) =>
  serverModel(RepoFacts.gather(join(c2, dir))).tools
    .map((t) => `${t.nameIsLiteral ? t.name : `(${t.name})`} ${t.file}:${t.line}${t.description ? ` "${t.description}"` : ''}`)
    .sort();

describe('names composed by a factory', () => {
  it('a CRUD factory: one tool per call, named with the prefix it is handed there (through a spread too), at that prefix', () => {
    assert.deepEqual(tools('present/crud-factory-prefixed-names'), [
      'ledger_customers_get dist/tools/customers.js:6 "Get one customer by its id."',
      'ledger_customers_search dist/tools/customers.js:6',
      'ledger_drafts_search dist/tools/invoices.js:8',
      'ledger_invoices_get dist/tools/invoices.js:6 "Get one invoice by its id."',
      'ledger_invoices_search dist/tools/invoices.js:6',
      'ledger_report_overdue dist/tools/reports.js:6 "Invoices past their due date, oldest first."',
      'ledger_report_revenue dist/tools/reports.js:5 "Revenue per month over a date range."',
    ]);
  });
  it('a prefix known only at run time leaves that call computed, the others read', () => {
    const read = tools('could-not-judge/crud-factory-runtime-prefix');
    assert.ok(read.includes('(`${opts.prefix}_search`) dist/tools/crud-factory.js:9'), read.join('\n'));
    assert.ok(read.includes('ledger_customers_get dist/tools/customers.js:6 "Get one customer by its id."'), read.join('\n'));
    assert.ok(!read.some((t) => t.startsWith('ledger_customers_search')));
  });
  it('an array of factory calls: one tool per call, named and described with its arguments, at the call', () => {
    assert.deepEqual(tools('present/factory-array-names'), [
      'get_project dist/tools.js:22 "Get one of the workspace\'s projects by its id."',
      'list_boards dist/tools.js:23 "List the workspace\'s boards, 50 per page."',
      'list_members dist/tools.js:24 "List the workspace\'s members, 50 per page."',
      'list_projects dist/tools.js:21 "List the workspace\'s projects, 50 per page."',
    ]);
  });
});
