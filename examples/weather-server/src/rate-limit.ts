/**
 * A token bucket per process: `capacity` calls at once, refilled at `perSecond` calls per second. On
 * stdio the server has one client, so one bucket limits a looping model (rule S-24 of the standard).
 */
export class RateLimiter {
  private tokens: number;
  private last = Date.now();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {
    this.tokens = capacity;
  }

  /** Takes a token; false when the bucket is empty. */
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
