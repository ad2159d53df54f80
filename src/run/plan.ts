// The one estimate of a run's waits (ETA, the 10-minute notice, --dry-run, quota): the limiter's own
// rule (decide) replayed on a simulated clock.
import { decide, settle } from '../service/limiter.js';
import type { LimiterState } from '../service/types.js';
import type { RateLimit } from '../settings.js';

export function planRequests(
  requests: number,
  state: LimiterState,
  now: number,
  rate: RateLimit,
): { firstAt: number; lastAt: number; waitMs: number } {
  let t = now;
  let s: LimiterState = { stamps: [...state.stamps], open: [...(state.open ?? [])], until: state.until };
  let firstAt = now;
  for (let i = 0; i < requests; i++) {
    for (let d = decide(s, t, rate); ; d = decide(s, t, rate)) {
      if (d.ok) {
        s = settle(d.state, t, t);
        break;
      }
      t += d.waitMs;
    }
    if (i === 0) firstAt = t;
  }
  return { firstAt, lastAt: t, waitMs: t - now };
}
