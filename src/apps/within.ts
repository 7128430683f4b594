/**
 * A promise bounded in time: its value, or `onTimeout` after `ms`. The timer is cleared as soon as the promise
 * settles — a bound left pending would hold mcp-doctor open after its work is done (a 5 s bound on closing the
 * browser kept every App probe alive 5 s past its report). A rejection counts as settled with `onTimeout`.
 */
export function within<T, F>(p: Promise<T>, ms: number, onTimeout: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<F>((r) => (timer = setTimeout(() => r(onTimeout), ms)));
  return Promise.race([p.catch(() => onTimeout), bound]).finally(() => clearTimeout(timer));
}
