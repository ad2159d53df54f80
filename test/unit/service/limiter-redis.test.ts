/**
 * The Redis limiter against a real redis-server (skipped, saying so, when it is not installed): several
 * limiters for one account (as on several machines) never exceed the limit between them, a 429's block
 * holds every one of them, and any Redis failure is one warning and the file limiter. URL parsing and
 * redaction as tables.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { redactText, redactUrlPassword } from '../../../src/redact.js';
import { fileSlots, type Limiter } from '../../../src/service/limiter.js';
import { limiterUrlParts, reasonOf, redisKey } from '../../../src/service/limiter-redis.js';
import type { LimiterState } from '../../../src/service/types.js';
import { parseLimiterUrl } from '../../../src/settings.js';
import { createRedisLimiter } from '../../helpers/limiter.js';
import {
  freePort,
  NO_REDIS_MESSAGE,
  REDIS_SERVER,
  type RedisServer,
  startRedis,
} from '../../helpers/redis.js';

describe('reasonOf: why Redis failed, in a few words', () => {
  it.each([
    [new Error('The client is closed'), false, 'Redis closed the connection (stopped or restarted?)'],
    [new Error('Socket closed unexpectedly'), false, 'Redis closed the connection (stopped or restarted?)'],
    [
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      false,
      'Redis closed the connection (stopped or restarted?)',
    ],
    [
      Object.assign(new Error('SSL routines:ssl3_get_record:wrong version number'), {
        code: 'ERR_SSL_WRONG_VERSION_NUMBER',
      }),
      true,
      'it did not speak TLS; for a plain Redis port use redis://, not rediss://',
    ],
    [
      new Error('Connection timeout'),
      true,
      'no TLS handshake within 2 s: it does not speak TLS; for a plain Redis port use redis://, not rediss://',
    ],
    [new Error('Connection timeout'), false, 'no answer within 2 s'],
    [
      new Error('self-signed certificate (SELF_SIGNED_CERT_IN_CHAIN)'),
      false,
      'TLS: self-signed certificate (SELF_SIGNED_CERT_IN_CHAIN); trust a private CA with NODE_EXTRA_CA_CERTS',
    ],
  ])('%s (handshake pending: %s) → %s', (err, handshake, want) => {
    expect(reasonOf(err, 2000, handshake)).toBe(want);
  });
});

describe('parseLimiterUrl', () => {
  it.each([
    'redis://127.0.0.1:6379',
    'redis://localhost:6379/0',
    'redis://:pw@host:6379/15',
    'redis://user:p%40ss@host:6379',
    'rediss://redis.example:6380/2',
    'redis://h:6379/0?timeout=30',
    'redis://h:6379?timeout=0.5',
  ])('accepts %s', (url) => expect(parseLimiterUrl(url)).toBe(url));

  it.each([
    ['http://h:6379', 'it must start with redis:// or rediss://'],
    ['redis://h:6379/db', 'the path must be a database number, e.g. /0'],
    ['redis://h:6379/0?x=1', 'the only query expected is ?timeout=<seconds>'],
    ['redis://h:6379/0?timeout=0', 'the only query expected is ?timeout=<seconds>'],
    ['redis://h:6379/0?timeout=soon', 'the only query expected is ?timeout=<seconds>'],
    ['redis://h:6379/0?timeout=1&x=2', 'the only query expected is ?timeout=<seconds>'],
    ['redis://h:6379/0#f', 'the only query expected is ?timeout=<seconds>'],
    ['redis://', 'no host'],
    ['6379', 'expected redis://[user:password@]host:port[/db]'],
  ])('rejects %s', (url, why) => expect(() => parseLimiterUrl(url)).toThrow(why));
});

describe("the limiter URL's own timeout", () => {
  it.each([
    ['redis://h:6379/0', { url: 'redis://h:6379/0' }],
    ['redis://:pw@h:6379/0?timeout=30', { url: 'redis://:pw@h:6379/0', timeoutMs: 30_000 }],
    ['rediss://h:6380?timeout=0.25', { url: 'rediss://h:6380', timeoutMs: 250 }],
  ])('%s', (url, want) => expect(limiterUrlParts(url)).toEqual(want));
});

describe('redaction of a limiter URL', () => {
  it.each([
    ['redis://:s3cret@h:6379/0', 'redis://:***@h:6379/0'],
    ['rediss://ops:s3cret@h:6380', 'rediss://ops:***@h:6380'],
    ['redis://h:6379', 'redis://h:6379'],
    ['redis://ops@h:6379', 'redis://ops@h:6379'],
    // Not URLs with a host: everything before the last @ is masked.
    ['redis://ops:s3/cret@[::1', 'redis://***@[::1'],
    ['ops:s3cret@h:6379', '***@h:6379'],
  ])('redactUrlPassword(%s) = %s', (url, shown) => expect(redactUrlPassword(url)).toBe(shown));

  it('redactText masks a password inside free text, not the usage pattern', () => {
    expect(redactText('connect to redis://u:s3cret@h:1 failed')).toBe('connect to redis://u:***@h:1 failed');
    expect(redactText('expected redis://[user:password@]host:port')).toBe(
      'expected redis://[user:password@]host:port',
    );
  });
});

if (!REDIS_SERVER) console.warn(NO_REDIS_MESSAGE);
describe.skipIf(!REDIS_SERVER)('createRedisLimiter on a real redis-server', () => {
  let redis: RedisServer;
  let dir: string;
  let hash = 0;
  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'prs-redis-limiter-'));
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function limiter(
    rate: string,
    o: { url?: string; hash?: string; timeoutMs?: number; warnings?: string[] } = {},
  ) {
    const [limit, windowMs] = rate.split('/').map(Number) as [number, number];
    const file = (seed?: LimiterState) =>
      fileSlots({ file: join(dir, `file-${o.hash}.json`), clock: systemClock, seed });
    // The answer timeout as a user sets it: the URL's ?timeout=<seconds>.
    const url = new URL(o.url ?? redis.url);
    if (o.timeoutMs !== undefined) url.searchParams.set('timeout', String(o.timeoutMs / 1000));
    return createRedisLimiter({
      url: url.href,
      hash: o.hash ?? 'h',
      rate: { limit, windowMs },
      clock: systemClock,
      fallback: file,
      warn: (l) => o.warnings?.push(l),
      debug: () => {},
    });
  }

  it('three limiters for one account never send more than 3 in 300 ms between them, and keep sending', async () => {
    const h = `a${++hash}`;
    const warnings: string[] = [];
    const machines = [0, 1, 2].map(() => limiter('3/300', { hash: h, warnings }));
    const sent: number[] = [];
    await Promise.all(
      machines.map(async (m: Limiter) => {
        for (let i = 0; i < 4; i++) {
          const slot = await m.acquire();
          sent.push(Date.now());
          m.settle(slot);
        }
        await m.idle();
      }),
    );
    expect(warnings).toEqual([]);
    sent.sort((a, b) => a - b);
    expect(sent).toHaveLength(12);
    for (let i = 3; i < sent.length; i++) expect(sent[i]! - sent[i - 3]!).toBeGreaterThanOrEqual(300);
    // The key expires (the span: max(window, 2 min)).
    const ttl = Number(await redis.command('PTTL', redisKey(h)));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it("a 429's block holds the other limiters too, reported as a rate-limit wait", async () => {
    const h = `b${++hash}`;
    const a = limiter('4/1000', { hash: h });
    const b = limiter('4/1000', { hash: h });
    await a.block(400);
    const waits: [number, string][] = [];
    const slot = await b.acquire({ onWait: (ms, reason) => waits.push([ms, reason]) });
    b.settle(slot);
    await Promise.all([a.idle(), b.idle()]);
    expect(waits).toHaveLength(1);
    expect(waits[0]![1]).toBe('rate-limit');
    expect(waits[0]![0]).toBeGreaterThan(0);
    expect(waits[0]![0]).toBeLessThanOrEqual(400);
  });

  it.each([
    ['bytes that are not UTF-8', 'string.char(255, 254, 123)'],
    ['text that is not JSON', `'{"stamps":[1'`],
    ['JSON of another shape', `'{"stamps":"x","open":{}}'`],
  ])(
    'a damaged key (%s) counts as empty and is replaced: a slot through Redis, not an endless retry',
    async (_, lua) => {
      const h = `d${++hash}`;
      await redis.command('EVAL', `redis.call('SET', KEYS[1], ${lua})`, '1', redisKey(h));
      await redis.command('CONFIG', 'RESETSTAT');
      const warnings: string[] = [];
      const m = limiter('4/1000', { hash: h, warnings });
      // A compare-and-set that can never succeed runs the scripts without end: stop it by their count.
      let acquiring = true;
      const evals = async () =>
        Number(
          /cmdstat_eval:calls=(\d+)/.exec(String(await redis.command('INFO', 'commandstats')))?.[1] ?? 0,
        );
      const spinning = async () => {
        while (acquiring) if ((await evals()) > 200) return 'still retrying after 200 scripts';
        return 'done';
      };
      const acquired = m.acquire().then((slot) => {
        acquiring = false;
        return slot;
      });
      expect(await Promise.race([acquired.then(() => 'done'), spinning()])).toBe('done');
      m.settle(await acquired);
      await m.idle();
      expect(warnings).toEqual([]);
      // Every prs machine can read what replaced it: one request, answered.
      const state = JSON.parse(String(await redis.command('GET', redisKey(h)))) as LimiterState;
      expect([state.stamps.length, state.open]).toEqual([1, []]);
    },
  );

  it('refused: one warning, then the file limiter for every later call', async () => {
    const warnings: string[] = [];
    const port = await freePort();
    const m = limiter('4/1000', { url: `redis://:pw@127.0.0.1:${port}`, hash: `c${++hash}`, warnings });
    for (let i = 0; i < 3; i++) m.settle(await m.acquire());
    await m.block(1);
    await m.idle();
    expect(warnings).toEqual([
      `prs: warning: rate limiter redis://:***@127.0.0.1:${port} unusable (connection refused); using the local file limiter`,
    ]);
  });

  it('Redis stopped mid-run: the file limiter is handed what Redis held (settled and in flight)', async () => {
    const own = await startRedis();
    const h = `e${++hash}`;
    const warnings: string[] = [];
    try {
      const m = limiter('3/5000', { url: own.url, hash: h, warnings });
      for (let i = 0; i < 2; i++) m.settle(await m.acquire());
      await m.idle();
      const third = await m.acquire(); // in flight while Redis goes away
      await own.stop();
      // The window is full (2 answered + 1 in flight): the file limiter must wait, not start afresh.
      const stop = new AbortController();
      const waits: [number, string][] = [];
      const fourth = await m
        .acquire({
          signal: stop.signal,
          onWait: (ms, reason) => {
            waits.push([ms, reason]);
            stop.abort();
          },
        })
        .catch((err: Error) => err.name);
      expect(fourth).toBe('InterruptedError');
      expect(warnings).toHaveLength(1);
      // Was "(The client is closed)", @redis/client's words.
      expect(warnings[0]).toMatch(/unusable \(Redis closed the connection \(stopped or restarted\?\)\)/);
      expect(waits).toHaveLength(1);
      expect(waits[0]![1]).toBe('rate-limit');
      expect(waits[0]![0]).toBeGreaterThan(3000);
      // The one in flight, answered now, is moved from open to done in the file.
      m.settle(third);
      await m.idle();
      const state = JSON.parse(readFileSync(join(dir, `file-${h}.json`), 'utf8'));
      expect({ done: state.stamps.length, open: state.open }).toEqual({ done: 3, open: [] });
    } finally {
      await own.stop();
    }
  });

  it('rediss:// to a plain Redis port: it did not speak TLS, says the warning (was "no answer within 2 s")', async () => {
    const warnings: string[] = [];
    const m = limiter('4/1000', {
      url: redis.url.replace(/^redis:/, 'rediss:'),
      hash: `t${++hash}`,
      timeoutMs: 300,
      warnings,
    });
    m.settle(await m.acquire());
    await m.idle();
    expect(warnings).toEqual([
      `prs: warning: rate limiter rediss://127.0.0.1:${redis.port} unusable (no TLS handshake within 0.3 s: it does not speak TLS; for a plain Redis port use redis://, not rediss://); using the local file limiter`,
    ]);
  });

  it('a Redis that accepts but never answers: the timeout, then the file limiter', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    try {
      const warnings: string[] = [];
      const m = limiter('4/1000', {
        url: `redis://127.0.0.1:${port}`,
        hash: `d${++hash}`,
        timeoutMs: 200,
        warnings,
      });
      m.settle(await m.acquire());
      await m.idle();
      expect(warnings).toEqual([
        `prs: warning: rate limiter redis://127.0.0.1:${port} unusable (no answer within 0.2 s); using the local file limiter`,
      ]);
    } finally {
      silent.close();
    }
  });
});
