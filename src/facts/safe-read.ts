import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The one way mcp-doctor reads a file on behalf of an audited repository (its sources, manifests,
 * `.mcp-doctor.json`, the baseline it names, a dependency's installed files). The repository is untrusted:
 *
 *   - only a regular file is read: a FIFO, a socket or a device (`/dev/zero`) is refused before it is opened
 *     (and checked again on the open descriptor), so nothing blocks and nothing streams forever;
 *   - only a file inside the given root is read: the real path is resolved and a symlink that leads out of the
 *     root (its real path) is refused; the file is opened with O_NOFOLLOW and O_NONBLOCK;
 *   - at most `maxBytes` are read; a larger file is refused with its size and the limit;
 *   - a failure is a cause (a word), never the file's content.
 */

/** Why a file was not read. `file-not-read` reasons and `inputs.skipped` carry these words. */
export type ReadCause = 'missing' | 'outside-root' | 'not-regular' | 'too-large' | 'unreadable';

export type SafeRead = { ok: true; text: string; size: number } | { ok: false; cause: ReadCause; size?: number; limit?: number };

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let r = realRoots.get(root);
  if (r === undefined) {
    r = realpathSync(resolve(root));
    if (realRoots.size > 256) realRoots.clear();
    realRoots.set(root, r);
  }
  return r;
}

/** True when `real` is `root` or lies under it (both real paths). */
export function isInside(root: string, real: string): boolean {
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Where a path inside `root` really is, or why it cannot be read: 'missing', 'outside-root' (its real path
 * leaves the root's real path), 'not-regular' (not a regular file), 'unreadable' (any other error).
 */
export function locateInside(root: string, path: string): { ok: true; real: string; stats: Stats } | { ok: false; cause: ReadCause } {
  let rootReal: string;
  let real: string;
  try {
    rootReal = realRoot(root);
  } catch {
    return { ok: false, cause: 'unreadable' };
  }
  try {
    real = realpathSync(resolve(root, path));
  } catch (e) {
    return { ok: false, cause: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' };
  }
  if (!isInside(rootReal, real)) return { ok: false, cause: 'outside-root' };
  let stats: Stats;
  try {
    stats = lstatSync(real);
  } catch {
    return { ok: false, cause: 'unreadable' };
  }
  if (!stats.isFile()) return { ok: false, cause: 'not-regular' };
  return { ok: true, real, stats };
}

/** Open a located file without following a link and without blocking, and check the descriptor again. */
function openChecked(real: string): { fd: number; size: number } | { cause: ReadCause } {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return { cause: 'unreadable' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      return { cause: 'not-regular' };
    }
    return { fd, size: st.size };
  } catch {
    closeSync(fd);
    return { cause: 'unreadable' };
  }
}

/** Read a regular file inside `root` as UTF-8, at most `maxBytes` (see the file header). */
export function readInside(root: string, path: string, maxBytes: number): SafeRead {
  const at = locateInside(root, path);
  if (!at.ok) return at;
  if (at.stats.size > maxBytes) return { ok: false, cause: 'too-large', size: at.stats.size, limit: maxBytes };
  const o = openChecked(at.real);
  if ('cause' in o) return { ok: false, cause: o.cause };
  try {
    if (o.size > maxBytes) return { ok: false, cause: 'too-large', size: o.size, limit: maxBytes };
    const buf = Buffer.allocUnsafe(o.size);
    let got = 0;
    while (got < o.size) {
      const n = readSync(o.fd, buf, got, o.size - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { ok: true, text: buf.toString('utf8', 0, got), size: got };
  } catch {
    return { ok: false, cause: 'unreadable' };
  } finally {
    closeSync(o.fd);
  }
}

/**
 * Run some patterns over a regular file inside `root` without holding it: read in chunks (with an overlap of
 * `overlap` characters, so a match of up to that length across a chunk boundary is still found), at most
 * `maxBytes`. Returns the patterns that matched, or why the file could not be scanned.
 */
export function scanInside(
  root: string,
  path: string,
  patterns: readonly RegExp[],
  opts: { maxBytes: number; chunkBytes?: number; overlap?: number },
): { ok: true; size: number; matched: RegExp[] } | { ok: false; cause: ReadCause; size?: number; limit?: number } {
  const at = locateInside(root, path);
  if (!at.ok) return at;
  if (at.stats.size > opts.maxBytes) return { ok: false, cause: 'too-large', size: at.stats.size, limit: opts.maxBytes };
  const o = openChecked(at.real);
  if ('cause' in o) return { ok: false, cause: o.cause };
  const chunk = opts.chunkBytes ?? 1 << 20;
  const overlap = opts.overlap ?? 4096;
  const left = new Set(patterns);
  const matched: RegExp[] = [];
  try {
    const buf = Buffer.allocUnsafe(chunk);
    let carry = '';
    let pos = 0;
    const decoder = new TextDecoder('utf-8');
    while (pos < o.size && left.size) {
      const n = readSync(o.fd, buf, 0, Math.min(chunk, o.size - pos), pos);
      if (n <= 0) break;
      pos += n;
      const text = carry + decoder.decode(buf.subarray(0, n), { stream: pos < o.size });
      for (const re of [...left]) {
        re.lastIndex = 0;
        if (re.test(text)) {
          left.delete(re);
          matched.push(re);
        }
        re.lastIndex = 0;
      }
      carry = text.slice(-overlap);
    }
    return { ok: true, size: o.size, matched };
  } catch {
    return { ok: false, cause: 'unreadable' };
  } finally {
    closeSync(o.fd);
  }
}

/** Read a regular file inside `root` as bytes, at most `maxBytes` (same checks as readInside; for hashing). */
export function readBytesInside(root: string, path: string, maxBytes: number): { ok: true; bytes: Buffer } | { ok: false; cause: ReadCause; size?: number; limit?: number } {
  const at = locateInside(root, path);
  if (!at.ok) return at;
  if (at.stats.size > maxBytes) return { ok: false, cause: 'too-large', size: at.stats.size, limit: maxBytes };
  const o = openChecked(at.real);
  if ('cause' in o) return { ok: false, cause: o.cause };
  try {
    if (o.size > maxBytes) return { ok: false, cause: 'too-large', size: o.size, limit: maxBytes };
    const buf = Buffer.allocUnsafe(o.size);
    let got = 0;
    while (got < o.size) {
      const n = readSync(o.fd, buf, got, o.size - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { ok: true, bytes: buf.subarray(0, got) };
  } catch {
    return { ok: false, cause: 'unreadable' };
  } finally {
    closeSync(o.fd);
  }
}

/**
 * Where JSON.parse failed, as "not valid JSON (line L, column C)", without any of the text: V8's messages
 * quote the content around the error, and a file's content never goes into a message.
 */
export function jsonErrorWhere(e: unknown, text: string): string {
  const m = /position (\d+)/.exec((e as Error)?.message ?? '');
  if (!m) return 'not valid JSON';
  const pos = Math.min(Number(m[1]), text.length);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `not valid JSON (line ${line}, column ${column})`;
}
