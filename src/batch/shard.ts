import { createHash } from 'node:crypto';

/** `--shard i/n` (1 ≤ i ≤ n ≤ 256): undefined when the text is not one. */
export function parseShard(v: string): { index: number; count: number } | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(v.trim());
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 256 || index < 1 || index > count) return undefined;
  return { index, count };
}

/** The shard (1-based) a package belongs to among `count`: from a hash of its name, so that the share of a
 * server does not move when the list is reordered or grows. */
export function shardOf(name: string, count: number): number {
  return (createHash('sha256').update(name).digest().readUInt32BE(0) % count) + 1;
}
