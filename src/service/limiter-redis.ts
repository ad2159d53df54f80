/**
 * The rate limiter shared through Redis (`--limiter redis://…`), for one account used from several
 * machines: the file limiter's semantics (limiter.ts) with the state in Redis and each decision one
 * Lua script, so it is atomic across every client. Times come from Redis (TIME), so machines whose
 * clocks disagree still agree on the window. Keys expire once nothing in them can matter any more
 * (spanOf: the window, or 2 min for the completed requests kept beyond it, as the file limiter does).
 *
 * Redis is a convenience, never a point of failure: unreachable, refused, a wrong password or slower
 * than 2 s (the URL's `?timeout=<seconds>` sets another bound), and one warning line names the limiter (never its password), then the local file limiter
 * takes over for the rest of the run — the service's own 429 with Retry-After remains the backstop.
 *
 * @redis/client (node-redis core) is loaded here only, on first use: nothing of it at start-up.
 */
import type { Clock } from '../clock.js';
import { InterruptedError, PrsError } from '../errors.js';
import { redactText, redactUrlPassword } from '../redact.js';
import type { RateLimit } from '../settings.js';
import { KEPT, type Limiter, spanOf } from './limiter.js';
import type { CallHooks, LimiterState } from './types.js';

/** Connecting, authenticating and each script: slower than this and the local file limiter takes over. */
export const REDIS_TIMEOUT_MS = 2000;

/**
 * KEYS: done (zset: completion time per request), open (zset: send time per request in flight),
 * until (a 429 arrived: nobody sends before it). ARGV: limit, window, span, kept, slot id.
 * Returns {1, 0} with the slot opened, or {0, ms to wait}. The same rules as decide() in limiter.ts.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, window, span, kept = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local horizon = now + span
local u = tonumber(redis.call('GET', KEYS[3]) or '0')
if u > now and u <= horizon then return {0, u - now} end
for _, k in ipairs({KEYS[1], KEYS[2]}) do
  redis.call('ZREMRANGEBYSCORE', k, '-inf', now - span)
  redis.call('ZREMRANGEBYSCORE', k, '(' .. horizon, '+inf')
end
local n = redis.call('ZCARD', KEYS[1])
if n > kept then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - kept - 1) end
local stamps = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf', 'WITHSCORES')
local inside = #stamps / 2
local excess = inside + redis.call('ZCARD', KEYS[2]) - limit
if excess < 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, span) end
  return {1, 0}
end
local leaves = now + window
if excess < inside then leaves = tonumber(stamps[excess * 2 + 2]) + window end
return {0, math.max(1, leaves - now)}
`;

/** The slot ARGV[1] completed now: it counts from now on. ARGV[2]: span. */
const SETTLE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
for _, k in ipairs({KEYS[1], KEYS[2]}) do redis.call('PEXPIRE', k, ARGV[2]) end
return 1
`;

/** A 429 arrived anyway: nobody sends during the next ARGV[1] ms. */
const BLOCK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local u = math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), now + tonumber(ARGV[1]))
redis.call('SET', KEYS[3], u, 'PX', math.max(1, u - now))
return 1
`;

/** The state as it is, changed in nothing: Redis's time, both sets with their scores, and until. */
const PEEK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {now, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES'), redis.call('GET', KEYS[3]) or '0'}
`;

/** The Redis keys for one account (the file limiter's key hash): a hash tag keeps them on one cluster node. */
export function redisKeys(hash: string): [string, string, string] {
  const base = `prs:limiter:{${hash}}`;
  return [`${base}:done`, `${base}:open`, `${base}:until`];
}

export interface RedisLimiterOptions {
  url: string;
  /** The account's hash (limiterKey in limiter.ts). */
  hash: string;
  rate: RateLimit;
  clock: Clock;
  signal?: AbortSignal;
  /** The local file limiter, created when Redis fails, told what this process spent through Redis. */
  fallback(carried: LimiterState): Limiter;
  /** The warning line (stderr, always shown). */
  warn(line: string): void;
  /** -v lines. */
  debug(line: string): void;
  timeoutMs?: number;
}

type Client = { sendCommand(args: string[]): Promise<unknown>; destroy(): void };

/** The URL's own `?timeout=<seconds>` (checked by parseLimiterUrl) and the URL Redis is given, without it. */
export function limiterUrlParts(url: string): { url: string; timeoutMs?: number } {
  const u = new URL(url);
  const timeout = u.searchParams.get('timeout');
  if (timeout === null) return { url };
  u.search = '';
  return { url: u.href, timeoutMs: Math.round(Number(timeout) * 1000) };
}

export function createRedisLimiter(o: RedisLimiterOptions): Limiter {
  const parts = limiterUrlParts(o.url);
  const shown = redactUrlPassword(parts.url);
  const timeoutMs = o.timeoutMs ?? parts.timeoutMs ?? REDIS_TIMEOUT_MS;
  const keys = redisKeys(o.hash);
  const span = spanOf(o.rate);
  let client: Promise<{ client: Client; sha: Record<string, string> }> | undefined;
  const tls = o.url.startsWith('rediss:');
  /** Whether a connection (and its TLS handshake, for rediss://) ever completed. */
  let connected = false;
  let fallback: Limiter | undefined;
  let pending: Promise<void> | undefined;
  // Slot ids: unique across machines (random prefix) and within this process (counter).
  const prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  let seq = 0;
  /** Redis slot ids by the number acquire() returned (the file limiter's own numbers are send times). */
  const slots = new Map<number, string>();
  /**
   * This process's Redis requests by the local clock: send times of those in flight (by acquire()'s
   * number) and completion times of the recent ones, handed to the file limiter if Redis fails.
   */
  const inFlight = new Map<number, number>();
  let done: number[] = [];

  const connect = async () => {
    const [redis, { createHash }] = await Promise.all([import('@redis/client'), import('node:crypto')]);
    // Bundled, @redis/client is a CommonJS chunk whose exports sit on `default`.
    const { createClient } = (redis as unknown as { default?: typeof redis }).default ?? redis;
    const c = createClient({
      url: parts.url,
      // rediss://: certificates always verified (as in http.ts, whatever NODE_TLS_REJECT_UNAUTHORIZED
      // says); Node's default trust store already includes NODE_EXTRA_CA_CERTS.
      socket: o.url.startsWith('rediss:')
        ? { connectTimeout: timeoutMs, reconnectStrategy: false, tls: true, rejectUnauthorized: true }
        : { connectTimeout: timeoutMs, reconnectStrategy: false },
      disableOfflineQueue: true,
    });
    // Errors surface through the commands; an unhandled 'error' event would crash the process.
    c.on('error', () => {});
    await c.connect();
    connected = true;
    const sha = Object.fromEntries(
      Object.entries({ ACQUIRE, SETTLE, BLOCK, PEEK }).map(([k, v]) => [
        k,
        createHash('sha1').update(v).digest('hex'),
      ]),
    );
    o.debug(`limiter: connected to ${shown}`);
    return { client: c as unknown as Client, sha };
  };

  /** One script run, bounded by timeoutMs; EVALSHA, with EVAL once when Redis does not know the script yet. */
  const run = async (name: 'ACQUIRE' | 'SETTLE' | 'BLOCK' | 'PEEK', argv: string[]): Promise<unknown> => {
    client ??= connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      return await Promise.race([
        (async () => {
          const { client: c, sha } = await client!;
          const script = { ACQUIRE, SETTLE, BLOCK, PEEK }[name];
          const args = [String(keys.length), ...keys, ...argv];
          try {
            return await c.sendCommand(['EVALSHA', sha[name]!, ...args]);
          } catch (err) {
            if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
            return await c.sendCommand(['EVAL', script, ...args]);
          }
        })(),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  /** Redis failed: one warning, then the file limiter for the rest of the run. */
  const fail = (err: unknown): Limiter => {
    if (!fallback) {
      o.warn(
        `prs: warning: rate limiter ${shown} unusable (${reasonOf(err, timeoutMs, tls && !connected)}); using the local file limiter`,
      );
      fallback = o.fallback({ stamps: done, open: [...inFlight.values()] });
      const c = client;
      client = undefined;
      c?.then(({ client }) => client.destroy()).catch(() => {});
    }
    return fallback;
  };

  return {
    async acquire(hooks: CallHooks = {}) {
      const signal = hooks.signal ?? o.signal;
      const writing = pending;
      pending = undefined;
      await writing;
      if (fallback) return fallback.acquire(hooks);
      const slot = `${prefix}-${++seq}`;
      for (;;) {
        let reply: [number, number];
        try {
          reply = (await run('ACQUIRE', [
            String(o.rate.limit),
            String(o.rate.windowMs),
            String(span),
            String(Math.max(KEPT, o.rate.limit)),
            slot,
          ])) as [number, number];
        } catch (err) {
          if (err instanceof PrsError) throw err;
          return fail(err).acquire(hooks);
        }
        if (Number(reply[0]) === 1) {
          slots.set(seq, slot);
          inFlight.set(seq, o.clock.now());
          return seq;
        }
        const waitMs = Number(reply[1]);
        hooks.onWait?.(waitMs, 'rate-limit');
        await o.clock.sleep(waitMs, signal);
      }
    },
    settle(sent) {
      const slot = slots.get(sent);
      slots.delete(sent);
      if (slot === undefined) return fallback?.settle(sent);
      const sentAt = inFlight.get(sent) ?? -1;
      // A Redis slot whose answer came after Redis failed: the request still counts, locally (the
      // file limiter was handed it as in flight at sentAt).
      if (fallback) {
        inFlight.delete(sent);
        return fallback.settle(sentAt);
      }
      const now = o.clock.now();
      const write = run('SETTLE', [slot, String(span)]).then(
        () => {
          inFlight.delete(sent);
          // Redis failed meanwhile: the file limiter holds this one as in flight.
          if (fallback) fallback.settle(sentAt);
          else done = [...done.filter((t) => t > now - span), now].slice(-Math.max(KEPT, o.rate.limit));
        },
        (err) => {
          // Its Redis slot expires on its own; from now on the file limiter counts it.
          if (err instanceof InterruptedError) return;
          const local = fail(err);
          inFlight.delete(sent);
          local.settle(sentAt);
        },
      );
      pending = Promise.all([pending, write]).then(() => undefined);
    },
    async idle() {
      await pending;
      await fallback?.idle();
      const c = client;
      client = undefined;
      await c?.then(({ client }) => client.destroy()).catch(() => {});
    },
    async block(ms) {
      if (!fallback) {
        try {
          await run('BLOCK', [String(ms)]);
          return;
        } catch (err) {
          if (err instanceof PrsError) throw err;
          fail(err);
        }
      }
      await fallback!.block(ms);
    },
    async peek() {
      if (!fallback) {
        try {
          const [now, done, open, until] = (await run('PEEK', [])) as [number, string[], string[], string];
          // WITHSCORES: member, score, member, score, …
          const scores = (a: string[]) => a.filter((_, i) => i % 2 === 1).map(Number);
          const state: LimiterState = { stamps: scores(done), open: scores(open) };
          if (Number(until) > 0) state.until = Number(until);
          return { state, now: Number(now) };
        } catch (err) {
          if (err instanceof PrsError) throw err;
          fail(err);
        }
      }
      return { ...(await fallback!.peek()), local: true };
    },
  };
}

/**
 * Why Redis failed, in a few words and without the URL (which may carry the password). `handshake`:
 * a rediss:// connection that never completed — a plain Redis port stays silent at a TLS hello (where
 * an HTTP port answers, as https:// to one does: "wrong version number"), so its timeout says so too.
 */
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
  // @redis/client's words once the server went away (stopped, restarted, a dropped connection).
  if (
    /client is closed|socket closed unexpectedly|connection is closed/i.test(message) ||
    code === 'ECONNRESET' ||
    code === 'EPIPE'
  ) {
    return 'Redis closed the connection (stopped or restarted?)';
  }
  return redactText(message.split('\n')[0]!);
}
