// The limiter's state in Redis for machines sharing an account: one JSON key, changed by limiter.ts's rule
// on Redis's clock by compare-and-set. Redis unusable: one warning, the file limiter for the rest of the run.
import { NOT_TLS, TLS_FAILED } from '../http/client.js';
import { redactText, redactUrlPassword } from '../redact.js';
import type { RateLimit } from '../settings.js';
import { parseState, type Slots, spanOf } from './limiter.js';
import type { LimiterState } from './types.js';

const REDIS_TIMEOUT_MS = 2000;

/** Redis's time (ms), the state and its digest: text that is not UTF-8 would never compare equal. */
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
  fallback(held?: LimiterState): Slots;
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
  const tls = o.url.startsWith('rediss:');
  let client: Promise<Client> | undefined;
  let connected = false;
  let fallback: Slots | undefined;
  let held: LimiterState | undefined;

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
    // Loading the library is no answer of Redis's: not bounded by its timeout.
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
  const remote: Slots = {
    async update(fn) {
      for (;;) {
        const { now, text, digest } = await read();
        const state = parseState(text);
        const { write, result } = fn(state, now);
        const ttl = String(spanOf(o.rate));
        if (!write || Number(await run(REPLACE, [digest, JSON.stringify(write), ttl])) === 1) {
          held = write ?? state;
          return result;
        }
      }
    },
    async peek() {
      const { now, text } = await read();
      return { state: parseState(text), now };
    },
  };
  const close = async () => {
    const c = client;
    client = undefined;
    await c?.then((c) => c.destroy()).catch(() => {});
  };
  const viaRedis = async <T>(op: (slots: Slots) => Promise<T>): Promise<T> => {
    if (!fallback)
      try {
        return await op(remote);
      } catch (err) {
        if (!fallback) {
          o.warn(
            `prs: warning: rate limiter ${shown} unusable (${reasonOf(err, timeoutMs, tls && !connected)}); using the local file limiter`,
          );
          fallback = o.fallback(held);
          void close();
        }
      }
    return op(fallback!);
  };

  return {
    update: (fn) => viaRedis((slots) => slots.update(fn)),
    peek: () =>
      viaRedis(async (slots) => ({ ...(await slots.peek()), ...(slots !== remote && { local: true }) })),
    close,
  };
}

// Never the URL (it may hold a password). `handshake`: a rediss:// connection never completed.
export function reasonOf(err: unknown, timeoutMs: number, handshake = false): string {
  const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  const code = e?.code ?? e?.errors?.[0]?.code;
  const message = String(e?.message ?? err);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'cannot resolve its host';
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message))
    return 'authentication failed: wrong user or password';
  const scheme = 'for a plain Redis port use redis://, not rediss://';
  if (NOT_TLS.test(`${code} ${message}`)) return `it did not speak TLS; ${scheme}`;
  if (/timeout|no answer/i.test(message)) {
    const secs = `${timeoutMs / 1000} s`;
    return handshake
      ? `no TLS handshake within ${secs}: it does not speak TLS; ${scheme}`
      : `no answer within ${secs}`;
  }
  if (TLS_FAILED.test(`${code} ${message}`))
    return `TLS: ${message.split('\n')[0]}; trust a private CA with NODE_EXTRA_CA_CERTS`;
  const closed = /client is closed|socket closed unexpectedly|connection is closed/i.test(message);
  if (closed || code === 'ECONNRESET' || code === 'EPIPE')
    return 'Redis closed the connection (stopped or restarted?)';
  return redactText(message.split('\n')[0]!);
}
