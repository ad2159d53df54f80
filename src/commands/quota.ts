/**
 * `prs quota [--json]` (CLI.md): the rate limit in force, where its state is kept (the file, or the
 * Redis URL with its password masked), the requests counted in the current window by every process
 * sharing it, when the next slot frees, and any Retry-After pause in force. It reads the limiter's
 * state and changes nothing; no token, no request. Exit 0.
 */

import { identityOf } from '../auth/identity.js';
import { isoSeconds } from '../clock.js';
import type { Deps } from '../deps.js';
import { planRequests } from '../run/plan.js';
import { spanOf } from '../service/limiter.js';
import { limiterPlace, peekLimiter } from '../service/limiter-of.js';
import { target } from '../service/service.js';
import type { LimiterState } from '../service/types.js';
import { type RateLimit, rateText } from '../settings.js';

export interface QuotaOptions {
  json: boolean;
}

/** Defined with the command's flags; re-exported for the modules and tests that import it from here. */
export interface Quota {
  rateLimit: { limit: number; windowMs: number };
  limiter: { kind: 'file' | 'redis'; where: string };
  /** Requests answered inside the current window, and those sent and not answered yet (they count too). */
  used: number;
  inFlight: number;
  /** When the next request may be sent (ISO), and in how many ms (0: now). */
  nextSlotAt: string;
  nextSlotInMs: number;
  /** A 429's Retry-After in force: nobody sharing the limit sends before this (ISO), else null. */
  pausedUntil: string | null;
}

/** The quota as data, from the limiter's state at `now`; pure. */
export function assessQuota(
  state: LimiterState,
  now: number,
  rate: RateLimit,
  limiter: Quota['limiter'],
): Quota {
  const horizon = now + spanOf(rate);
  const used = state.stamps.filter((t) => t > now - rate.windowMs && t <= horizon).length;
  const inFlight = (state.open ?? []).filter((t) => t > now - spanOf(rate) && t <= horizon).length;
  const next = planRequests(1, state, now, rate).firstAt;
  const paused = state.until !== undefined && state.until > now && state.until <= horizon;
  return {
    rateLimit: { limit: rate.limit, windowMs: rate.windowMs },
    limiter,
    used,
    inFlight,
    nextSlotAt: isoSeconds(next),
    nextSlotInMs: next - now,
    pausedUntil: paused ? isoSeconds(state.until!) : null,
  };
}

export function quotaLines(q: Quota): string[] {
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

export async function quota(o: QuotaOptions, deps: Deps): Promise<Quota> {
  const s = await deps.settings();
  const { baseUrl, tenant } = target(s);
  const t = { settings: s, baseUrl, tenant, identity: identityOf(s) };
  const peeked = await peekLimiter({ ...t, clock: deps.clock, signal: deps.signal, io: deps.io });
  // Redis unusable: peek() has warned (naming the local file limiter) and read the file instead, so
  // the state shown is the file's: name the file, not the Redis URL.
  const place = limiterPlace(peeked.local ? { ...t, settings: { ...s, limiter: undefined } } : t);
  const q = assessQuota(peeked.state, peeked.now, s.rateLimit, place);
  if (o.json) deps.io.out(`${JSON.stringify(q, null, 2)}\n`);
  else deps.io.out(`${quotaLines(q).join('\n')}\n`);
  return q;
}
