import type { RepoFacts } from './repo.js';
/**
 * Files of the audited object that were not read, said one way everywhere: the reason code `file-not-read`
 * with data `{ file, cause, size?, limit? }`, and the report's `inputs.skipped` entries of the same shape.
 *
 * Causes: 'too-large' (size over limit), 'unreadable', 'not-regular' (FIFO, socket, device), 'outside-root'
 * (a symlink leading out of the audited folder), 'bundle-without-modules' (too large, and a bundle whose bundler
 * left no mark between the libraries and the package's own modules nor a source map naming them), 'parse-failed', 'too-deep' (syntax nested past limit levels),
 * 'too-many-files' (past the file budget), 'budget' (past the byte budget of the whole audit), and for a
 * dependency the sources are named `node_modules/<name>/` with 'dependency-not-installed' or
 * 'dependency-too-large' (its walk reached the byte limit of one dependency), 'dependency-too-many-files' (the
 * count of files read from one dependency) or 'too-many-dependencies'
 * (past the count of packages followed, DEPENDENCY_LIMITS.packages: its size was never measured), or one of its files `node_modules/<name>/<path>` with the causes above (a file of
 * the server's part of a followed dependency, facts/published).
 *
 * Which rule parts a skipped file can change is decided in one place (engine/runner): a part that read the
 * kind of source the file is (JavaScript/TypeScript or Python) cannot come out clean — present or
 * not-applicable — over it; it says could-not-judge `file-not-read`, naming the file. A red finding read from
 * other files stands.
 */

export interface FileNotRead {
  /** Path relative to the audited root, forward slashes (a folder ends with '/'). */
  file: string;
  cause: string;
  size?: number;
  limit?: number;
  /** 'bundle-without-modules': the bundler recognised by its runtime (rollup, parcel, browserify). */
  bundler?: string;
}

/** The reason data of one unread file (size and limit only when known). */
export function fileNotReadData(f: FileNotRead): Record<string, string | number> {
  return {
    file: f.file,
    cause: f.cause,
    ...(f.size !== undefined ? { size: f.size } : {}),
    ...(f.limit !== undefined ? { limit: f.limit } : {}),
    ...(f.bundler !== undefined ? { bundler: f.bundler } : {}),
  };
}

/** The kinds of source a part can read. */
export type SourceKind = 'js' | 'python';

/**
 * The source readers register here when they load (ts-source.ts, python-source.ts), so that the runner can ask
 * them what they read and skipped without importing them: a probe that reads no package never loads them (nor
 * ts-morph and the Python grammar under them). A kind whose reader never loaded has read nothing.
 */
export interface SourceReader {
  /** The files of this kind that could not be read (the reader parses the repository if it has not yet). */
  unread(repo: RepoFacts): readonly FileNotRead[];
  /** What was parsed, read and skipped, if the repository was parsed (never parses). */
  peek(repo: RepoFacts): { files: ReadonlyMap<string, unknown>; unread: readonly FileNotRead[]; screened: readonly FileNotRead[]; bundled?: readonly FileNotRead[] } | undefined;
}
export const sourceReaders: Partial<Record<SourceKind, SourceReader>> = {};

/**
 * Which kinds of source the judging function that runs now has asked for. The runner opens a watch around each
 * detector; parsedSources() and pythonSources() note their kind. Judging is synchronous, so one slot suffices.
 */
let watching: Set<SourceKind> | undefined;

export function noteSourceRead(kind: SourceKind): void {
  watching?.add(kind);
}

export function watchSourceReads<T>(run: () => T): { value: T; kinds: ReadonlySet<SourceKind> } {
  const outer = watching;
  const mine = new Set<SourceKind>();
  watching = mine;
  try {
    return { value: run(), kinds: mine };
  } finally {
    if (outer) for (const k of mine) outer.add(k);
    watching = outer;
  }
}
