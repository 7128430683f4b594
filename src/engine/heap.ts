import { parseBudget } from '../facts/budget.js';

/**
 * The heap ceiling the CLI (and the stdio server it serves) runs under, in MB. Without one, V8 lets the heap grow
 * towards its default limit (about 4 GB here) before collecting hard, so an audit whose live data is 700 MB can
 * reach 1.2 GB of resident memory. Under a ceiling V8 collects earlier and the same audit, with every file read,
 * gives the same report within the ceiling (bench/memory, test/hostile/memory.test.ts).
 * The ceiling follows the parse budget, which is what the audit's live data grows with: 768 MB up to a budget of
 * 8 MB (a 6.5 MB tool-dense tree read whole peaks under 1 GB of RSS), 96 MB per MB of budget past that.
 * MCP_DOCTOR_HEAP_MB sets it (256 to 16384); 0 turns it off. A heap flag the user gave node is left alone.
 */
export const HEAP_FLOOR_MB = 768;
export const HEAP_PER_BUDGET_MB = 96;

export function heapCeilingMb(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.MCP_DOCTOR_HEAP_MB?.trim();
  if (raw) {
    const mb = Number(raw);
    if (mb === 0) return undefined;
    if (Number.isInteger(mb) && mb >= 256 && mb <= 16384) return mb;
  }
  const budgetMb = parseBudget() / (1024 * 1024);
  return Math.max(HEAP_FLOOR_MB, Math.ceil(budgetMb * HEAP_PER_BUDGET_MB));
}

/** Whether node already runs with a heap size flag (on its command line or in NODE_OPTIONS). */
export function hasHeapFlag(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const flag = /^--max[-_]old[-_]space[-_]size(=|$)/;
  return execArgv.some((a) => flag.test(a)) || (nodeOptions ?? '').split(/\s+/).some((a) => flag.test(a));
}
