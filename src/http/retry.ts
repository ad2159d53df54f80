import type { Clock } from '../clock.js';
import type { WaitReason } from '../domain.js';
import { errnoCode, NetworkError } from '../errors.js';
import type { LogFields } from '../log.js';

export interface RetryPolicy {
  /** `--retries`; a 401's one re-authentication is not counted. */
  limit: number;
  /** A 429 without Retry-After behind the client limiter waits its window (a 429 fills it). */
  rateLimitWaitMs?: number;
}

export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'network'; code: string };

type Decision =
  /** retryAfterMs: the service asked for a longer wait than MAX_RETRY_AFTER_MS. */
  { action: 'give-up'; retryAfterMs?: number } | { action: 'wait'; ms: number; reason: WaitReason };

/** The longest Retry-After waited for (longer: give up at once, naming the time): a cron job is not stuck. */
export const MAX_RETRY_AFTER_MS = 120_000;

const RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

// PROXY_TUNNEL_FAILED: a proxy's 502/503/504 to CONNECT, it could not reach the service (http/client.ts).
const RETRY_NETWORK_CODES =
  /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|PROXY_TUNNEL_FAILED|UND_ERR_(SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT))$/;

export function nextDelay(
  policy: RetryPolicy,
  attempt: number,
  outcome: AttemptFailure,
  now: number,
  random: () => number = Math.random,
): Decision {
  if (attempt > policy.limit) return { action: 'give-up' };
  if (outcome.kind === 'network') {
    if (!RETRY_NETWORK_CODES.test(outcome.code)) return { action: 'give-up' };
    return { action: 'wait', ms: backoff(attempt, random), reason: 'backoff' };
  }
  if (!RETRY_STATUSES.includes(outcome.status)) return { action: 'give-up' };
  const after = outcome.retryAfter === undefined ? undefined : parseRetryAfter(outcome.retryAfter, now);
  if (after !== undefined) {
    if (after > MAX_RETRY_AFTER_MS) return { action: 'give-up', retryAfterMs: after };
    return { action: 'wait', ms: after, reason: 'retry-after' };
  }
  if (outcome.status === 429 && policy.rateLimitWaitMs !== undefined)
    return { action: 'wait', ms: policy.rateLimitWaitMs, reason: 'rate-limit' };
  return { action: 'wait', ms: backoff(attempt, random), reason: 'backoff' };
}

export type Failed = { outcome: AttemptFailure; error?: Error };

/**
 * The one retry loop (the API, the token endpoint): `attempt(retries so far)` until it returns `{ ok }`; a
 * failure it returns is tried again as nextDelay decides, else `giveUp` names the error thrown.
 */
export async function withRetries<T>(
  o: { policy: RetryPolicy; clock: Clock; random?: () => number; signal?: AbortSignal },
  attempt: (retries: number) => Promise<{ ok: T } | Failed>,
  onWait: (ms: number, reason: WaitReason, outcome: AttemptFailure) => unknown,
  giveUp: (failed: Failed, retryAfterMs: number | undefined, retries: number) => Error,
): Promise<T> {
  for (let retries = 0; ; retries++) {
    const r = await attempt(retries);
    if ('ok' in r) return r.ok;
    const next = nextDelay(o.policy, retries + 1, r.outcome, o.clock.now(), o.random);
    if (next.action === 'give-up') throw giveUp(r, next.retryAfterMs, retries);
    await onWait(next.ms, next.reason, r.outcome);
    await o.clock.sleep(next.ms, o.signal);
  }
}

/** A NetworkError as a failed attempt, tried again as nextDelay decides; any other error is thrown on. */
export function failedOn(err: unknown): Failed {
  if (!(err instanceof NetworkError)) throw err;
  return { outcome: { kind: 'network', code: errnoCode(err.cause) }, error: err };
}

export function waitLine(ms: number, reason: WaitReason): [string, LogFields] {
  const event = reason === 'rate-limit' ? 'wait' : 'retry';
  return [`~ waiting ${(ms / 1000).toFixed(1)} s (${reason})`, { event, waitMs: Math.round(ms), reason }];
}

/** Equal jitter: [½, 1] of 1 s * 2^(attempt-1), at most 30 s. */
export function backoff(attempt: number, random: () => number): number {
  const ceiling = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date, as ms from `now` (0 if past). */
export function parseRetryAfter(value: string, now: number): number | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only date-looking text: Date.parse accepts odd things like "1.5" or "-1".
  const at = /[a-z]{3}/i.test(v) ? Date.parse(v) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
