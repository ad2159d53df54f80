// The one place that chooses an account's limiter: the file, or Redis (`--limiter`) over the file.
import type { Clock } from '../clock.js';
import { FileError } from '../errors.js';
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
    orAlone(
      createLimiter({
        file: limiterFile(t.settings.cacheDir, t.baseUrl, t.tenant, t.identity),
        rate: t.settings.rateLimit,
        clock: t.clock,
        signal: t.signal,
        carried,
      }),
      () => createLimiter({ rate: t.settings.rateLimit, clock: t.clock, signal: t.signal }),
      (line) => t.io.err(line),
    );
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

/** The file limiter, or once its state is unusable (a FileError), one warning and this process alone. */
function orAlone(file: Limiter, alone: () => Limiter, warn: (line: string) => void): Limiter {
  let local: Limiter | undefined;
  const fall = (err: unknown): Limiter => {
    if (!(err instanceof FileError)) throw err;
    if (!local) {
      warn(`prs: warning: ${err.message}; counting this process's requests alone`);
      local = alone();
    }
    return local;
  };
  return {
    acquire: (hooks) =>
      local ? local.acquire(hooks) : file.acquire(hooks).catch((e) => fall(e).acquire(hooks)),
    // A failed write lands in the next acquire(), which falls back; a slot settled here counts there.
    settle: (sent) => (local ?? file).settle(sent),
    idle: async () => {
      await file.idle();
      await local?.idle();
    },
    block: (ms) => (local ? local.block(ms) : file.block(ms).catch((e) => fall(e).block(ms))),
    peek: () => (local ? local.peek() : file.peek().catch((e) => fall(e).peek())),
  };
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
