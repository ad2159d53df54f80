// The one estimate of a run's waits (ETA, the 10-minute notice, --dry-run, quota): the limiter's own
// rule (decide) replayed on a simulated clock.
import { decide, settle } from '../service/limiter.js';
import type { LimiterState } from '../service/types.js';
import type { RateLimit } from '../settings.js';

interface RequestTimes {
  requests: number;
  /** Epoch ms, as lastAt. */
  firstAt: number;
  lastAt: number;
  waitMs: number;
  /** Until the last answer: waits plus `latencyMs` per request. */
  etaMs: number;
}

/** `requests` sent one after another from `state` at `now`, each answered `latencyMs` later. */
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
