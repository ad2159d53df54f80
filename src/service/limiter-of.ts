// The one place that chooses an account's limiter: the file, or Redis (`--limiter`) over the file.
import type { Clock } from '../clock.js';
import type { IO } from '../io.js';
import { redactUrlPassword } from '../redact.js';
import type { Settings } from '../settings.js';
import { createLimiter, type Limiter, limiterFile, limiterKey } from './limiter.js';
import { createRedisLimiter } from './limiter-redis.js';
import type { LimiterState } from './types.js';

export interface LimiterTarget {
  settings: Pick<Settings, 'cacheDir' | 'rateLimit' | 'limiter'>;
  baseUrl: string;
  tenant: string;
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
      warn: (line) => t.io.err(line),
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

export async function peekLimiter(t: LimiterTarget): ReturnType<Limiter['peek']> {
  const limiter = openLimiter(t);
  try {
    return await limiter.peek();
  } finally {
    await limiter.idle();
  }
}

/** Where the state is kept: the file's path, or the Redis URL without its password. */
export function limiterPlace(t: Omit<LimiterTarget, 'clock' | 'io' | 'signal'>): {
  kind: 'file' | 'redis';
  where: string;
} {
  return t.settings.limiter
    ? { kind: 'redis', where: redactUrlPassword(t.settings.limiter) }
    : { kind: 'file', where: limiterFile(t.settings.cacheDir, t.baseUrl, t.tenant, t.identity) };
}
