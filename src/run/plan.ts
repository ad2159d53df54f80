/**
 * How long a run's requests take at the rate limit, from the limiter's state as it is now: the one
 * estimate behind the 10-minute notice, the progress line's ETA, `--dry-run` and `prs quota`.
 * It replays the limiter's own rule (service/limiter.ts `decide`) on a simulated clock, so the plan
 * and the run cannot disagree about the rule; only other processes sharing the limit can make the
 * real run slower.
 */
import { decide, settle } from '../service/limiter.js';
import type { LimiterState } from '../service/types.js';
import type { RateLimit } from '../settings.js';

export interface RequestTimes {
  /** Requests planned. */
  requests: number;
  /** When the first one may be sent (epoch ms); `now` when a slot is free. */
  firstAt: number;
  /** When the last one may be sent (epoch ms). */
  lastAt: number;
  /** Time spent waiting for the limit, in all. */
  waitMs: number;
  /** From `now` until the last answer: waits plus `latencyMs` per request. */
  etaMs: number;
}

/**
 * Send times of `requests` requests made one after another from `state` at `now`, each answered
 * `latencyMs` after it was sent.
 */
export function planRequests(
  requests: number,
  state: LimiterState,
  now: number,
  rate: RateLimit,
  latencyMs = 0,
): RequestTimes {
  let t = now;
  let s: LimiterState = { stamps: [...state.stamps], open: [...(state.open ?? [])], until: state.until };
  let firstAt = now;
  let waitMs = 0;
  for (let i = 0; i < requests; i++) {
    for (;;) {
      const d = decide(s, t, rate);
      if (d.ok) {
        s = settle(d.state, t, t + latencyMs);
        break;
      }
      waitMs += d.waitMs;
      t += d.waitMs;
    }
    if (i === 0) firstAt = t;
    if (i < requests - 1) t += latencyMs;
  }
  const lastAt = requests > 0 ? t : now;
  return { requests, firstAt, lastAt, waitMs, etaMs: requests > 0 ? lastAt + latencyMs - now : 0 };
}
