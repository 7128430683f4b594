import { couldNotJudge } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import type { Read, RepoFacts } from '../../facts/repo.js';
import { fileNotReadData } from '../../facts/not-read.js';

/** Turn a failed manifest read into could-not-judge, with the file and the problem. */
export function unreadable(r: Extract<Read<unknown>, { ok: false }>): Verdict {
  if (r.problem === 'missing') return couldNotJudge('file-missing', { file: r.file });
  if (r.problem === 'invalid-json') return couldNotJudge('file-invalid', { file: r.file, detail: r.detail ?? '' });
  return couldNotJudge('file-not-read', fileNotReadData({ file: r.file, cause: r.problem, size: r.size, limit: r.limit }));
}

/** README candidates for a locale suffix ('' for the canonical English one, '.fr' for French). */
export function readmeFile(repo: RepoFacts, suffix = ''): string | undefined {
  return repo.first(`README${suffix}.md`, `docs/README${suffix}.md`, `readme${suffix}.md`);
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
