/**
 * The audit's parse budget in bytes of source. Parsed syntax costs memory in proportion to the bytes (about 50
 * times for the tree, about 130 times for the whole audit of
 * tool-dense TypeScript, about 270 for Python), so the budget is what bounds the audit's memory: 5 MB of
 * TypeScript (and 45 % of it for Python, python-source) keeps a 10 MB tree of tool-dense files under 1 GB
 * (bench/memory), while the largest published servers we have read parse under 3 MB. The user's own environment may raise or lower it
 * (MCP_DOCTOR_PARSE_BUDGET_MB, 1 to 256); the audited repository cannot (its .mcp-doctor.json is not asked).
 * A tree with both languages splits it: half for each side (Python's half at 45 %), so that together they stay
 * within the bound.
 */
export const DEFAULT_PARSE_BUDGET = 5 * 1024 * 1024;

export function parseBudget(): number {
  const raw = process.env.MCP_DOCTOR_PARSE_BUDGET_MB;
  const mb = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(mb) && mb >= 1 && mb <= 256 ? Math.round(mb * 1024 * 1024) : DEFAULT_PARSE_BUDGET;
}

/** Python's trees and model cost about twice TypeScript's memory per byte of source (bench/memory). */
const PYTHON_SHARE = 0.45;

/** The TypeScript/JavaScript side's budget, in bytes. */
export const tsBudget = (alsoPython: boolean): number => Math.round(parseBudget() * (alsoPython ? 0.5 : 1));

/** The Python side's budget, in bytes. */
export const pythonBudget = (alsoTs: boolean): number => Math.round(parseBudget() * PYTHON_SHARE * (alsoTs ? 0.5 : 1));
