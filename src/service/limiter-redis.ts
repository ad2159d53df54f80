// The limiter's rule with the state in Redis, each decision one Lua script on Redis's clock. Redis is
// never a point of failure: unreachable, refused or too slow, one warning and the local file limiter
// takes over for the rest of the run.
import type { Clock } from '../clock.js';
import { InterruptedError, PrsError } from '../errors.js';
import { redactText, redactUrlPassword } from '../redact.js';
import type { RateLimit } from '../settings.js';
import { KEPT, type Slots, spanOf } from './limiter.js';
import type { LimiterState } from './types.js';

const REDIS_TIMEOUT_MS = 2000;

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// KEYS: done, open (zsets of completion and send times), until. ARGV: limit, window, span, kept, slot
// id. {1, 0}: the slot opened; {0, ms to wait}.
const ACQUIRE = `${NOW}
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

const SETTLE = `${NOW}
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
for _, k in ipairs({KEYS[1], KEYS[2]}) do redis.call('PEXPIRE', k, ARGV[2]) end
return 1
`;

const BLOCK = `${NOW}
local u = math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), now + tonumber(ARGV[1]))
redis.call('SET', KEYS[3], u, 'PX', math.max(1, u - now))
return 1
`;

const PEEK = `${NOW}
return {now, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES'), redis.call('GET', KEYS[3]) or '0'}
`;

const SCRIPTS = { ACQUIRE, SETTLE, BLOCK, PEEK };

/** A hash tag keeps an account's keys on one cluster node. */
export function redisKeys(hash: string): [string, string, string] {
  const base = `prs:limiter:{${hash}}`;
  return [`${base}:done`, `${base}:open`, `${base}:until`];
}

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
  const keys = redisKeys(o.hash);
  const span = spanOf(o.rate);
  const kept = Math.max(KEPT, o.rate.limit);
  const tls = o.url.startsWith('rediss:');
  let client: Promise<{ client: Client; sha: Record<string, string> }> | undefined;
  let connected = false;
  let fallback: Slots | undefined;
  const prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  let seq = 0;
  /** This process's Redis slots, sent on the local clock: for the file limiter should Redis fail. */
  const inFlight = new Map<number, { slot: string; sentAt: number }>();
  let done: number[] = [];

  const connect = async () => {
    const [redis, { createHash }] = await Promise.all([import('@redis/client'), import('node:crypto')]);
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
    const sha = Object.fromEntries(
      Object.entries(SCRIPTS).map(([k, v]) => [k, createHash('sha1').update(v).digest('hex')]),
    );
    o.debug(`limiter: connected to ${shown}`);
    return { client: c as unknown as Client, sha };
  };

  const run = async (name: keyof typeof SCRIPTS, argv: string[]): Promise<unknown> => {
    client ??= connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    const call = async () => {
      const { client: c, sha } = await client!;
      const args = [String(keys.length), ...keys, ...argv];
      try {
        return await c.sendCommand(['EVALSHA', sha[name]!, ...args]);
      } catch (err) {
        if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
        return await c.sendCommand(['EVAL', SCRIPTS[name], ...args]);
      }
    };
    try {
      return await Promise.race([call(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const close = async () => {
    const c = client;
    client = undefined;
    await c?.then(({ client }) => client.destroy()).catch(() => {});
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
  /** A script's reply, or undefined once Redis failed (the file limiter takes over). */
  const tryRun = async (name: keyof typeof SCRIPTS, argv: string[]): Promise<unknown> => {
    if (fallback) return undefined;
    try {
      return await run(name, argv);
    } catch (err) {
      if (err instanceof PrsError) throw err;
      fail(err);
      return undefined;
    }
  };

  return {
    async take() {
      const id = ++seq;
      const slot = `${prefix}-${id}`;
      const argv = [o.rate.limit, o.rate.windowMs, span, kept, slot].map(String);
      const reply = (await tryRun('ACQUIRE', argv)) as [number, number] | undefined;
      if (!reply) return fallback!.take();
      if (Number(reply[0]) !== 1) return { waitMs: Number(reply[1]) };
      inFlight.set(id, { slot, sentAt: o.clock.now() });
      return { sent: id };
    },
    async settle(sent) {
      const f = inFlight.get(sent);
      if (!f) return fallback?.settle(sent);
      const now = o.clock.now();
      if (!fallback) {
        try {
          await run('SETTLE', [f.slot, String(span)]);
        } catch (err) {
          // Its Redis slot expires on its own; from now on the file limiter counts it.
          if (err instanceof InterruptedError) return;
          fail(err);
        }
      }
      inFlight.delete(sent);
      // Answered after Redis failed: the file limiter holds it as in flight at sentAt.
      if (fallback) return fallback.settle(f.sentAt);
      done = [...done.filter((t) => t > now - span), now].slice(-kept);
    },
    async block(ms) {
      if ((await tryRun('BLOCK', [String(ms)])) === undefined) await fallback!.block(ms);
    },
    async peek() {
      const reply = (await tryRun('PEEK', [])) as [number, string[], string[], string] | undefined;
      if (!reply) return { ...(await fallback!.peek()), local: true };
      const [now, done, open, until] = reply;
      // WITHSCORES: member, score, member, score, …
      const scores = (a: string[]) => a.filter((_, i) => i % 2 === 1).map(Number);
      const state: LimiterState = { stamps: scores(done), open: scores(open) };
      if (Number(until) > 0) state.until = Number(until);
      return { state, now: Number(now) };
    },
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
