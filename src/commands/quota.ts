/** The limiter's state, read and left unchanged; no token, no request. */
import { isoSeconds } from '../clock.js';
import type { Deps } from '../deps.js';
import { planRequests } from '../run/plan.js';
import { counted } from '../service/limiter.js';
import { peekLimiter } from '../service/service.js';
import type { LimiterState } from '../service/types.js';
import { type RateLimit, rateText } from '../settings.js';

type Quota = ReturnType<typeof assessQuota>;

function assessQuota(
  state: LimiterState,
  now: number,
  rate: RateLimit,
  limiter: { kind: 'file' | 'redis'; where: string },
) {
  const { until, stamps, open } = counted(state, now, rate);
  const next = planRequests(1, state, now, rate).firstAt;
  return {
    rateLimit: { limit: rate.limit, windowMs: rate.windowMs },
    limiter,
    used: stamps.length,
    inFlight: open.length,
    nextSlotAt: isoSeconds(next),
    nextSlotInMs: next - now,
    pausedUntil: until === undefined ? null : isoSeconds(until),
  };
}

function quotaLines(q: Quota): string[] {
  const wait = Math.ceil(q.nextSlotInMs / 1000);
  return [
    `rate limit: ${rateText(q.rateLimit)}`,
    `kept in:    ${q.limiter.kind === 'file' ? q.limiter.where : `Redis ${q.limiter.where}`}`,
    `in window:  ${q.used + q.inFlight} of ${q.rateLimit.limit}${q.inFlight ? ` (${q.inFlight} in flight)` : ''}`,
    `next slot:  ${q.nextSlotInMs <= 0 ? 'free now' : `in ${wait} s (${q.nextSlotAt})`}`,
    ...(q.pausedUntil
      ? [`paused:     until ${q.pausedUntil} (the service answered 429 with Retry-After)`]
      : []),
  ];
}

export async function quota(o: { json: boolean }, deps: Deps): Promise<Quota> {
  const s = await deps.settings();
  const peeked = await peekLimiter(s, deps);
  const q = assessQuota(peeked.state, peeked.now, s.rateLimit, peeked.place);
  if (o.json) deps.io.out(`${JSON.stringify(q, null, 2)}\n`);
  else deps.io.out(`${quotaLines(q).join('\n')}\n`);
  return q;
}
