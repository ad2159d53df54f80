/** The JSON endpoint's rate limit: a sliding window per user, and the Retry-After it answers. */

/** A sliding-window limit per key: at most `limit` accepted requests in any `windowMs`. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Accepts (and records) a request, or says how long until a slot frees. Rejected requests don't count. */
  take(key: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return { ok: false, retryAfterMs: recent[0] + this.windowMs - now };
    }
    recent.push(now);
    this.hits.set(key, recent);
    return { ok: true };
  }
}

/** Retry-After in whole seconds, rounded up, at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
