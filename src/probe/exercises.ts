/** What the probe may do beyond the default requests, each only on explicit opt-in (see scenario.ts). */
/** 'app': the MCP Apps host forwards the calls of the App tools (and read-only closed-world tools) to the server (src/apps). */
export const EXERCISES = ['invalid-arguments', 'read-only', 'app'] as const;
export type Exercise = (typeof EXERCISES)[number];
/** One opt-in or several. */
export type ExerciseOption = Exercise | readonly Exercise[];
