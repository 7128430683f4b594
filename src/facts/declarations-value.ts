/**
 * The values of the tools' declarations (`_meta["dev.mcp-doctor/declarations"]`), as read from the source or served:
 * kept apart from declarations.ts (which reads the source) so that the parts that judge served declarations load
 * without the source reader.
 */

/** A value the static reading cannot know. */
export const UNKNOWN: unique symbol = Symbol('unknown');
/** Marks an object literal that may hold more keys at run time than the source shows. */
export const OPEN: unique symbol = Symbol('open');

export type DeclValue = string | number | boolean | null | undefined | typeof UNKNOWN | DeclValue[] | DeclObject;
export interface DeclObject {
  [key: string]: DeclValue;
  [OPEN]?: true;
}

export const isDeclObject = (v: DeclValue): v is DeclObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at a path: UNKNOWN when the path crosses an unknown value or an open object that lacks the key. */
export function declField(v: DeclValue, path: readonly string[]): DeclValue {
  let cur: DeclValue = v;
  for (const k of path) {
    if (cur === UNKNOWN) return UNKNOWN;
    if (!isDeclObject(cur)) return undefined;
    if (Object.hasOwn(cur, k)) cur = cur[k];
    else return cur[OPEN] ? UNKNOWN : undefined;
  }
  return cur;
}
