/** What the probe may do beyond the default requests, each only on explicit opt-in (see scenario.ts). */
/** 'app': each App tool (not annotated destructive) is called once as a host without UI calls it (A-1 reads its text fallback), and the MCP Apps host forwards the calls of the Views (App tools and read-only closed-world tools) to the server (src/apps). */
export const EXERCISES = ['invalid-arguments', 'read-only', 'app'] as const;
export type Exercise = (typeof EXERCISES)[number];
/** One opt-in or several. */
export type ExerciseOption = Exercise | readonly Exercise[];
