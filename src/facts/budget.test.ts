import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { DEFAULT_PARSE_BUDGET, parseBudget, pythonBudget, tsBudget } from './budget.js';

const MB = 1024 * 1024;
const saved = process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
afterEach(() => {
  if (saved === undefined) delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
  else process.env.MCP_DOCTOR_PARSE_BUDGET_MB = saved;
});

describe('the parse budget', () => {
  it('is 5 MB by default; the user environment sets 1 to 256 MB; anything else is the default', () => {
    delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    assert.equal(parseBudget(), 5 * MB);
    assert.equal(DEFAULT_PARSE_BUDGET, 5 * MB);
    process.env.MCP_DOCTOR_PARSE_BUDGET_MB = '12';
    assert.equal(parseBudget(), 12 * MB);
    process.env.MCP_DOCTOR_PARSE_BUDGET_MB = '1.5';
    assert.equal(parseBudget(), 1.5 * MB);
    for (const bad of ['', ' ', '0', '0.5', '257', '-1', 'ten', '1e9', 'Infinity', 'NaN']) {
      process.env.MCP_DOCTOR_PARSE_BUDGET_MB = bad;
      assert.equal(parseBudget(), 5 * MB, JSON.stringify(bad));
    }
  });

  it('is split when a tree has both languages, Python at 45 % of its share', () => {
    delete process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
    assert.equal(tsBudget(false), 5 * MB);
    assert.equal(tsBudget(true), 2.5 * MB);
    assert.equal(pythonBudget(false), Math.round(2.25 * MB));
    assert.equal(pythonBudget(true), Math.round(1.125 * MB));
    process.env.MCP_DOCTOR_PARSE_BUDGET_MB = '10';
    assert.equal(tsBudget(true) + pythonBudget(true), 5 * MB + 2.25 * MB);
  });
});
