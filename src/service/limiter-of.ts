/**
 * The rate limiter for one account (base URL + tenant + user): the file under the cache dir, or the
 * Redis one (`--limiter`) with that file as its fallback. The one place that chooses: the service
 * acquires slots from it, `prs quota` and --dry-run peek at it.
 */
import type { Clock } from '../clock.js';
import type { IO } from '../io.js';
import { redactUrlPassword } from '../redact.js';
import type { Settings } from '../settings.js';
import { createLimiter, type Limiter, type LimiterState, limiterFile, limiterKey } from './limiter.js';
import { createRedisLimiter } from './limiter-redis.js';

export interface LimiterTarget {
  settings: Pick<Settings, 'cacheDir' | 'rateLimit' | 'limiter'>;
  baseUrl: string;
  tenant: string;
  /** session.identity() / identityOf(settings). */
  identity: string;
  clock: Clock;
  signal?: AbortSignal;
  io: Pick<IO, 'err' | 'debug'>;
}

export function openLimiter(t: LimiterTarget): Limiter {
  const fileLimiter = (carried?: LimiterState) =>
    createLimiter({
      file: limiterFile(t.settings.cacheDir, t.baseUrl, t.tenant, t.identity),
      rate: t.settings.rateLimit,
      clock: t.clock,
      signal: t.signal,
      carried,
    });
  return t.settings.limiter
    ? createRedisLimiter({
        url: t.settings.limiter,
        hash: limiterKey(t.baseUrl, t.tenant, t.identity),
        rate: t.settings.rateLimit,
        clock: t.clock,
        signal: t.signal,
        fallback: fileLimiter,
        warn: (line) => t.io.err(line),
        debug: (line) => t.io.debug(line),
      })
    : fileLimiter();
}

/** The state now, read without taking a slot (a Redis limiter is asked; no request is sent). */
export async function peekLimiter(t: LimiterTarget): ReturnType<Limiter['peek']> {
  const limiter = openLimiter(t);
  try {
    return await limiter.peek();
  } finally {
    await limiter.idle();
  }
}

/** Where the state is kept, as shown to users: the file's path, or the Redis URL without its password. */
export function limiterPlace(t: Omit<LimiterTarget, 'clock' | 'io' | 'signal'>): {
  kind: 'file' | 'redis';
  where: string;
} {
  return t.settings.limiter
    ? { kind: 'redis', where: redactUrlPassword(t.settings.limiter) }
    : { kind: 'file', where: limiterFile(t.settings.cacheDir, t.baseUrl, t.tenant, t.identity) };
}
