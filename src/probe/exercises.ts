/** What the probe may do beyond the default requests, each only on explicit opt-in (see scenario.ts). */
export const EXERCISES = ['invalid-arguments', 'read-only'] as const;
export type Exercise = (typeof EXERCISES)[number];
/** One opt-in or several. */
export type ExerciseOption = Exercise | readonly Exercise[];
