/** Limiters over one kind of state, as the unit tests build them (prs itself picks one in openLimiter). */
import { type FileSlotsOptions, fileSlots, type Limiter, limiterOver } from '../../src/service/limiter.js';
import { type RedisLimiterOptions, redisSlots } from '../../src/service/limiter-redis.js';

export const createLimiter = (o: FileSlotsOptions & { signal?: AbortSignal }): Limiter =>
  limiterOver(fileSlots(o), o.clock, o.signal);

export const createRedisLimiter = (o: RedisLimiterOptions): Limiter => limiterOver(redisSlots(o), o.clock);
