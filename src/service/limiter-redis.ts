// The limiter's state in Redis, for machines that share an account: one key holding the state as
// JSON, changed by the same rule as the file (limiter.ts) on Redis's clock and replaced only if nobody
// changed it meanwhile. Redis is never a point of failure: unreachable, refused or too slow, one
// warning and the local file limiter takes over for the rest of the run.
import type { Clock } from '../clock.js';
import { redactText, redactUrlPassword } from '../redact.js';
import type { RateLimit } from '../settings.js';
import { type Change, KEPT, parseState, type Slots, slotsOver, spanOf } from './limiter.js';
import type { LimiterState } from './types.js';

const REDIS_TIMEOUT_MS = 2000;

/** Redis's time (ms), the state and its digest: the compare-and-set compares the digest, as the
 * text read may not be the bytes held (a damaged key that is not UTF-8 would never compare equal). */
const READ = `local t = redis.call('TIME')
local v = redis.call('GET', KEYS[1]) or ''
return {tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), v, redis.sha1hex(v)}`;

/** ARGV: the digest read, the replacement, the time to live (ms). 0: changed meanwhile, read again. */
const REPLACE = `if redis.sha1hex(redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** A hash tag keeps the key on one cluster node. */
export const redisKey = (hash: string): string => `prs:limiter:{${hash}}`;

export interface RedisLimiterOptions {
  url: string;
  hash: string;
  rate: RateLimit;
  clock: Clock;
  /** Made when Redis fails, told what this process spent through Redis. */
  fallback(carried: LimiterState): Slots;
  warn(line: string): void;
  debug(line: string): void;
}

type Client = { sendCommand(args: string[]): Promise<unknown>; destroy(): void };

export function limiterUrlParts(url: string): { url: string; timeoutMs?: number } {
  const u = new URL(url);
  const timeout = u.searchParams.get('timeout');
  if (timeout === null) return { url };
  u.search = '';
  return { url: u.href, timeoutMs: Math.round(Number(timeout) * 1000) };
}

export function redisSlots(o: RedisLimiterOptions): Slots {
  const parts = limiterUrlParts(o.url);
  const shown = redactUrlPassword(parts.url);
  const timeoutMs = parts.timeoutMs ?? REDIS_TIMEOUT_MS;
  const span = spanOf(o.rate);
  const kept = Math.max(KEPT, o.rate.limit);
  const tls = o.url.startsWith('rediss:');
  let client: Promise<Client> | undefined;
  let connected = false;
  let fallback: Slots | undefined;
  let seq = 0;
  /** This process's Redis slots by id, with their send time on the local clock: for the file limiter should
   * Redis fail, with the local answer times of `done`. */
  const inFlight = new Map<number, { sent: number; sentAt: number }>();
  let done: number[] = [];

  let library: Promise<typeof import('@redis/client')> | undefined;
  const connect = async () => {
    const redis = await library!;
    const { createClient } = (redis as unknown as { default?: typeof redis }).default ?? redis;
    const c = createClient({
      url: parts.url,
      // Certificates always verified, whatever NODE_TLS_REJECT_UNAUTHORIZED says.
      socket: tls
        ? { connectTimeout: timeoutMs, reconnectStrategy: false, tls: true, rejectUnauthorized: true }
        : { connectTimeout: timeoutMs, reconnectStrategy: false },
      disableOfflineQueue: true,
    });
    // Errors surface through the commands; an unhandled 'error' event would crash.
    c.on('error', () => {});
    await c.connect();
    connected = true;
    o.debug(`limiter: connected to ${shown}`);
    return c as unknown as Client;
  };

  const run = async (script: string, argv: string[]): Promise<unknown> => {
    // Loading the library is this machine's work, no answer of Redis's: a burst of runs starting at
    // once takes longer than the bound for it.
    library ??= import('@redis/client');
    await library;
    client ??= connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    const call = async () => (await client!).sendCommand(['EVAL', script, '1', redisKey(o.hash), ...argv]);
    try {
      return await Promise.race([call(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  const read = async () => {
    const [now, text, digest] = (await run(READ, [])) as [number, string, string];
    return { now: Number(now), text, digest };
  };
  const update = async <T>(fn: Change<T>): Promise<T> => {
    for (;;) {
      const { now, text, digest } = await read();
      const { write, result } = fn(parseState(text), now);
      if (!write || Number(await run(REPLACE, [digest, JSON.stringify(write), String(span)])) === 1)
        return result;
    }
  };
  const shared = slotsOver(o.rate, update, async () => {
    const { now, text } = await read();
    return { state: parseState(text), now };
  });

  const close = async () => {
    const c = client;
    client = undefined;
    await c?.then((c) => c.destroy()).catch(() => {});
  };
  const fail = (err: unknown): Slots => {
    if (!fallback) {
      o.warn(
        `prs: warning: rate limiter ${shown} unusable (${reasonOf(err, timeoutMs, tls && !connected)}); using the local file limiter`,
      );
      fallback = o.fallback({ stamps: done, open: [...inFlight.values()].map((f) => f.sentAt) });
      void close();
    }
    return fallback;
  };
  /** `f` through Redis, or `local` on the file limiter once Redis failed. */
  const viaRedis = async <T>(f: () => Promise<T>, local: (file: Slots) => Promise<T>): Promise<T> => {
    if (fallback) return local(fallback);
    try {
      return await f();
    } catch (err) {
      return local(fail(err));
    }
  };

  return {
    take: () =>
      viaRedis(
        async () => {
          const r = await shared.take();
          if (!('sent' in r)) return r;
          inFlight.set(++seq, { sent: r.sent, sentAt: o.clock.now() });
          return { sent: seq };
        },
        (file) => file.take(),
      ),
    async settle(id) {
      const f = inFlight.get(id);
      if (!f) return fallback?.settle(id);
      const now = o.clock.now();
      if (!fallback) {
        // Failing, its Redis slot expires on its own; from now on the file limiter counts it.
        await shared.settle(f.sent).catch(fail);
      }
      inFlight.delete(id);
      // Answered after Redis failed: the file limiter holds it as in flight at sentAt.
      if (fallback) return fallback.settle(f.sentAt);
      done = [...done.filter((t) => t > now - span), now].slice(-kept);
    },
    block: (ms) =>
      viaRedis(
        () => shared.block(ms),
        (file) => file.block(ms),
      ),
    peek: () =>
      viaRedis(
        () => shared.peek(),
        async (file) => ({ ...(await file.peek()), local: true }),
      ),
    close,
  };
}

// Without the URL (it may hold the password). `handshake`: a rediss:// connection never completed (a
// plain Redis port stays silent at a TLS hello).
export function reasonOf(err: unknown, timeoutMs: number, handshake = false): string {
  const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  const code = e?.code ?? e?.errors?.[0]?.code;
  const message = String(e?.message ?? err);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'cannot resolve its host';
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message)) {
    return 'authentication failed: wrong user or password';
  }
  const scheme = 'for a plain Redis port use redis://, not rediss://';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|wrong version number/i.test(`${code} ${message}`)) {
    return `it did not speak TLS; ${scheme}`;
  }
  if (/timeout|no answer/i.test(message)) {
    const secs = `${timeoutMs / 1000} s`;
    return handshake
      ? `no TLS handshake within ${secs}: it does not speak TLS; ${scheme}`
      : `no answer within ${secs}`;
  }
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(`${code} ${message}`)) {
    return `TLS: ${message.split('\n')[0]}; trust a private CA with NODE_EXTRA_CA_CERTS`;
  }
  if (
    /client is closed|socket closed unexpectedly|connection is closed/i.test(message) ||
    code === 'ECONNRESET' ||
    code === 'EPIPE'
  ) {
    return 'Redis closed the connection (stopped or restarted?)';
  }
  return redactText(message.split('\n')[0]!);
}
