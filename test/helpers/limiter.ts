/** Limiters over one kind of state, as the unit tests build them (prs itself picks one in openLimiter). */
import type { Clock } from '../../src/clock.js';
import { type FileSlotsOptions, fileSlots, type Limiter, limiterOver } from '../../src/service/limiter.js';
import { type RedisLimiterOptions, redisSlots } from '../../src/service/limiter-redis.js';
import type { RateLimit } from '../../src/settings.js';

export const createLimiter = (o: FileSlotsOptions & { rate: RateLimit; signal?: AbortSignal }): Limiter =>
  limiterOver(fileSlots(o), o.rate, o.clock, o.signal);

export const createRedisLimiter = (o: RedisLimiterOptions & { clock: Clock }): Limiter =>
  limiterOver(redisSlots(o), o.rate, o.clock);
