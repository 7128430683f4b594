/** C-16: whether a text addresses the model with instructions (shared by the TypeScript and the Python parts). */

/** Phrases that address the model with instructions (reviewed registry, kept short). */
const INSTRUCTION_PHRASES: RegExp[] = [
  /\b(?:follow|obey|execute|carry out|perform|apply)\s+(?:these|the following|the|all|its|each of the)\s+(?:steps|instructions|commands|directions|rules|tasks)\b/i,
  /\byou\s+(?:must|should|have to|are to|will now)\b/i,
  /\b(?:instructions|directives)\s*:/i,
  /\bdo (?:exactly )?what (?:it|the (?:page|file|text|document)) says\b/i,
  /\bsystem prompt\b/i,
];

export const instructionLike = (text: string): boolean => INSTRUCTION_PHRASES.some((re) => re.test(text));
