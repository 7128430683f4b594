/** A string as a regular expression that matches exactly it (every metacharacter escaped). */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
