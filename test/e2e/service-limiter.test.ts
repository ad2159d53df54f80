/**
 * The shared rate limiter across REAL processes: two runners (the real adapter, bundled) share a 4/2s
 * window against a server that enforces a strict 4/2s sliding window. Zero 429s, and the budget is
 * spent fully: 12 requests need exactly two waits of one window (counted from each completion).
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loginArgs, type Sandbox } from '../../src/sandbox/index.js';
import type { LimiterState } from '../../src/service/types.js';
import { makeCertificates } from '../helpers/certs.js';
import { freePort, NO_REDIS_MESSAGE, REDIS_SERVER, type RedisServer, startRedis } from '../helpers/redis.js';
import { PRS_BIN, runPrs } from '../helpers/run.js';
import { useLoggedIn, useSandboxes, useTempDir } from '../helpers/session.js';
import { buildRunner, type CountingServer, spawnRunner, startCountingServer } from './service-helpers.js';

/** Lists the dist/ files a run loaded, whether Node or the CLI's loader (src/boot.ts) read them. */
const PRELOAD = fileURLToPath(new URL('./fixtures/loaded-chunks.cjs', import.meta.url));
const SLOW_REDIS_LOAD = fileURLToPath(new URL('./fixtures/slow-redis-load.cjs', import.meta.url));
const DIST = join(dirname(PRS_BIN), '..', 'dist');

const tmp = useTempDir('prs-limiter-e2e-');
let script: string;
let server: CountingServer;

beforeAll(async () => {
  script = await buildRunner(tmp.path);
  server = await startCountingServer({ limit: 4, windowMs: 2000 });
});

afterAll(async () => {
  await server?.close();
});

describe('two processes share one 4/2s window', () => {
  it('12 requests from 2 processes: no 429, three bursts of four, ≈ 4 s', async () => {
    const env = {
      PRS_BASE_URL: server.url,
      PRS_TENANT: 'acme',
      PRS_RATE_LIMIT: '4/2s',
      PRS_RETRIES: '0', // any 429 would fail the run
      PRS_CACHE_DIR: `${tmp.path}/cache`,
    };
    const a = spawnRunner(script, ['6', '--wait-go'], env);
    const b = spawnRunner(script, ['6', '--wait-go'], env);
    await Promise.all([a.ready, b.ready]);
    a.go();
    b.go();
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.stderr).toBe('');
    expect(rb.stderr).toBe('');
    expect([ra.code, rb.code]).toEqual([0, 0]);
    expect(server.rejected).toBe(0);
    const arrivals = [...server.arrivals].sort((x, y) => x - y);
    expect(arrivals).toHaveLength(12);
    // Never more than 4 in any 2 s window (the server checked too).
    for (let i = 4; i < arrivals.length; i++)
      expect(arrivals[i]! - arrivals[i - 4]!).toBeGreaterThanOrEqual(2000);
    // Three bursts: the last one a whole window after the second, which is one after the first.
    expect(arrivals[11]! - arrivals[0]!).toBeGreaterThanOrEqual(4000);
    // Both processes had to wait for the shared window (each did 6 > 4 requests, yet only 12 in total fit in 3 bursts).
    const waits = [JSON.parse(ra.stdout.split('\n')[1]!), JSON.parse(rb.stdout.split('\n')[1]!)].flatMap(
      (r: { waits: [number, string][] }) => r.waits,
    );
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every(([, reason]) => reason === 'rate-limit')).toBe(true);
    // Spends the budget: no wait is longer than it takes the oldest request to leave the window (how
    // busy the machine is decides when a burst goes out, never how long the limiter asks to wait).
    expect(waits.every(([ms]) => ms > 0 && ms <= 2000)).toBe(true);
  });

  it('a different tenant has its own window', async () => {
    const env = (tenant: string) => ({
      PRS_BASE_URL: server.url,
      PRS_TENANT: tenant,
      PRS_RATE_LIMIT: '4/60s',
      PRS_RETRIES: '0',
      PRS_CACHE_DIR: `${tmp.path}/cache2`,
    });
    // A strict server of its own (not one whose window the previous test filled): 4 each, no waiting.
    const own = await startCountingServer({ limit: 4, windowMs: 60_000 });
    try {
      const [ra, rb] = await Promise.all([
        spawnRunner(script, ['2'], { ...env('t1'), PRS_BASE_URL: own.url }).done,
        spawnRunner(script, ['2'], { ...env('t2'), PRS_BASE_URL: own.url }).done,
      ]);
      expect([ra.code, rb.code, ra.stderr, rb.stderr]).toEqual([0, 0, '', '']);
      expect(JSON.parse(ra.stdout).waits).toEqual([]);
      expect(JSON.parse(rb.stdout).waits).toEqual([]);
      expect(own.arrivals).toHaveLength(4);
    } finally {
      await own.close();
    }
  });
});

/**
 * Several machines, one account, the limiter shared through a real redis-server: each "machine" is a
 * prs process with its own PRS_CONFIG_DIR (its own sign-in) and PRS_CACHE_DIR (so no file state is
 * shared), against a sandbox enforcing 4/2s for the account.
 */
if (!REDIS_SERVER) console.warn(NO_REDIS_MESSAGE);
describe.skipIf(!REDIS_SERVER)('several machines share the window through Redis (--limiter)', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let n = 0;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const newSandbox = useSandboxes();
  beforeEach(async () => {
    sandbox = await newSandbox({ rateLimit: '4/2s' });
    await redis.command('FLUSHALL');
  });

  /** A signed-in machine: its own config and cache directories. */
  async function machine(extra: Record<string, string> = {}): Promise<Record<string, string>> {
    const dir = join(tmp.path, `machine-${++n}`);
    const env = {
      PRS_CONFIG_DIR: join(dir, 'config'),
      PRS_CACHE_DIR: join(dir, 'cache'),
      PRS_CLIENT_SECRET: sandbox.clientSecret,
      HOME: dir,
      ...extra,
    };
    const user = sandbox.users[0]!;
    const r = await runPrs(loginArgs(sandbox, user), { input: user.password, env });
    expect(r.code, r.stderr).toBe(0);
    return env;
  }

  const range = (to: string, limiter: string, env: Record<string, string>) =>
    runPrs(
      [
        'report',
        '42',
        '-t',
        'index',
        '--from',
        '2024-05-01',
        '--to',
        to,
        '--rate-limit',
        '4/2s',
        '-f',
        'ndjson',
        '-v',
        '--limiter',
        limiter,
      ],
      {
        env,
        timeoutMs: 60_000,
      },
    );

  /** How many dates a run printed (ndjson: one line per row, several rows per date). */
  const dates = (r: { stdout: string }) =>
    new Set(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).effectiveDate),
    ).size;

  /**
   * The limiter's state as Redis held it, write by write (MONITOR lists the SET of each replacement by
   * limiter-redis.ts's REPLACE script), replayed against the 4/2s window: a slot opens only while fewer
   * than 4 requests count (completed within the window, or in flight), and every slot is settled. How
   * busy the machine is changes when things happen, never whether these hold.
   */
  function replayWindow(lines: string[]): { grants: number; settles: number } {
    const [limit, windowMs] = [4, 2000];
    let before: LimiterState = { stamps: [] };
    let [grants, settles] = [0, 0];
    for (const line of lines) {
      const m = /^\d+\.\d+ \[\d+ lua\] "SET" "[^"]*" "((?:[^"\\]|\\.)*)"/.exec(line);
      if (!m) continue;
      const after = JSON.parse(m[1]!.replace(/\\(.)/g, '$1')) as LimiterState;
      const open = [...(before.open ?? [])];
      // The slot a take opened: in flight now, not before.
      const opened = (after.open ?? []).find((t) => {
        const i = open.indexOf(t);
        if (i >= 0) open.splice(i, 1);
        return i < 0;
      });
      if (opened !== undefined) {
        const inside = before.stamps.filter((t) => t > opened - windowMs).length;
        const counted = inside + (before.open ?? []).length;
        expect(counted, `a slot opened at ${opened} with the window full`).toBeLessThan(limit);
        grants++;
      } else if (after.stamps.length > before.stamps.length) settles++;
      before = after;
    }
    return { grants, settles };
  }

  for (const [machines, to] of [
    [2, '2024-05-08'], // 6 weekdays each
    [3, '2024-05-06'], // 4 weekdays each
  ] as const) {
    it(`${machines} machines, 12 requests at 4/2s: zero 429s, every window used fully, every wait shown`, async () => {
      const envs = await Promise.all(Array.from({ length: machines }, () => machine({ PRS_RETRIES: '0' })));
      sandbox.stats.reset();
      const monitor = await redis.monitor();
      const runs = await Promise.all(envs.map((env) => range(to, redis.url, env)));
      const decisions = replayWindow(await monitor.stop());
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/warning/);
        expect(dates(r)).toBe(12 / machines);
      }
      expect(sandbox.stats.count({ endpoint: 'report', status: 429 })).toBe(0);
      // The service saw never more than 4 in 2 s.
      const at = sandbox.stats.requests.filter((q) => q.endpoint === 'report').map((q) => q.at);
      at.sort((a, b) => a - b);
      expect(at).toHaveLength(12);
      for (let i = 4; i < at.length; i++) expect(at[i]! - at[i - 4]!).toBeGreaterThanOrEqual(2000);
      // Every slot went through Redis; 12 requests at 4 per window needed waits, each a -v line of at
      // most one window, whichever machine held the slots.
      expect([decisions.grants, decisions.settles]).toEqual([12, 12]);
      const shown = runs.flatMap((r) =>
        r.stderr.split('\n').flatMap((l) => /^~ waiting ([\d.]+) s \(rate-limit\)$/.exec(l)?.[1] ?? []),
      );
      expect(shown.length).toBeGreaterThan(0);
      for (const s of shown) expect(Number(s)).toBeLessThanOrEqual(2);
    });
  }

  it('the Redis client loads only when a limiter URL is set: not for --version, --help or a plain run', async () => {
    const env = await machine();
    /** Whether the run loaded node-redis (the bundled chunk holding @redis/client's client). */
    const loadsRedis = async (args: string[]) => {
      const out = join(tmp.path, `loaded-${++n}.txt`);
      const r = await runPrs(args, {
        env: { ...env, NODE_OPTIONS: `--require ${PRELOAD}`, PRS_TEST_LOADED: out },
      });
      expect(r.code, r.stderr).toBe(0);
      const files = readFileSync(out, 'utf8').split('\n').filter(Boolean);
      // bin/prs.js answers --version alone; every other run loads dist/ files, the check's subject.
      expect(files.length > 0, files.join()).toBe(args[0] !== '--version');
      return files.some((f) =>
        readFileSync(join(DIST, f), 'utf8').includes('node_modules/@redis/client/dist/lib/client/index.js'),
      );
    };
    const report = ['report', '42', '-t', 'index', '-d', '2024-05-01', '-f', 'json'];
    expect(await loadsRedis(['--version'])).toBe(false);
    expect(await loadsRedis(['--help'])).toBe(false);
    expect(await loadsRedis(report)).toBe(false);
    expect(await loadsRedis([...report, '--limiter', redis.url])).toBe(true);
  });

  it('the keys expire: after a run every key prs wrote has a time to live of at most 2 min', async () => {
    const env = await machine();
    const r = await range('2024-05-02', redis.url, env);
    expect(r.code, r.stderr).toBe(0);
    const keys = (await redis.command('KEYS', 'prs:limiter:*')) as string[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = Number(await redis.command('PTTL', key));
      // -1 would be a key that never expires; the span is max(window, 2 min) (limiter.ts spanOf).
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(120_000);
    }
    // Let Redis expire them now (as it would after the span): nothing else of prs stays behind.
    for (const key of keys) await redis.command('PEXPIRE', key, '1');
    await new Promise((res) => setTimeout(res, 50));
    expect(await redis.command('KEYS', 'prs:*')).toEqual([]);
  });

  it('Redis stopped in the middle of a run: one warning naming it, the local limiter, the run completes', async () => {
    const own = await startRedis();
    try {
      const env = await machine();
      sandbox.stats.reset();
      const run = range('2024-05-10', own.url, env); // 8 weekdays: a wait after the first 4
      while (sandbox.stats.count({ endpoint: 'report' }) < 4) await new Promise((res) => setTimeout(res, 20));
      await own.stop();
      const r = await run;
      expect(r.code, r.stderr).toBe(0);
      expect(dates(r)).toBe(8);
      const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`rate limiter redis://127.0.0.1:${own.port} unusable`);
      expect(warnings[0]).toContain('using the local file limiter');
      expect(sandbox.stats.count({ endpoint: 'report', status: 429 })).toBe(0);
    } finally {
      await own.stop();
    }
  });

  it("loading the Redis client slower than the URL's bound (a burst of runs starting at once) is no failure of Redis", async () => {
    const env = await machine();
    // Redis's bound 10 s; the library's chunk read 10.5 s (asleep): the bound counts Redis's answers only.
    const url = new URL(redis.url);
    url.searchParams.set('timeout', '10');
    const r = await range('2024-05-01', url.href, {
      ...env,
      NODE_OPTIONS: `--require ${SLOW_REDIS_LOAD}`,
      PRS_TEST_SLOW_LOAD_MS: '10500',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    expect(dates(r)).toBe(1);
    // The slot went through Redis.
    expect(await redis.command('KEYS', 'prs:limiter:*')).toHaveLength(1);
  });

  it('Redis unreachable from the start: one warning, the run goes on with the local limiter', async () => {
    const port = await freePort();
    const env = await machine();
    const r = await range('2024-05-02', `redis://127.0.0.1:${port}`, env);
    expect(r.code, r.stderr).toBe(0);
    expect(dates(r)).toBe(2);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    expect(warnings).toEqual([
      `prs: warning: rate limiter redis://127.0.0.1:${port} unusable (connection refused); using the local file limiter`,
    ]);
  });

  it('rediss:// (TLS): verified against NODE_EXTRA_CA_CERTS; an untrusted certificate is one warning', async () => {
    const certs = join(tmp.path, 'certs');
    mkdirSync(certs, { recursive: true });
    const { caFile } = makeCertificates(certs);
    const secure = await startRedis({ tls: certs });
    try {
      const env = await machine();
      const trusted = await range('2024-05-02', secure.url, { ...env, NODE_EXTRA_CA_CERTS: caFile });
      expect([trusted.code, trusted.stderr.includes('warning')], trusted.stderr).toEqual([0, false]);
      expect(((await secure.command('KEYS', 'prs:*')) as string[]).length).toBeGreaterThan(0);
      const untrusted = await range('2024-05-02', secure.url, env);
      expect(untrusted.code, untrusted.stderr).toBe(0);
      const warnings = untrusted.stderr.split('\n').filter((l) => l.includes('warning'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        new RegExp(
          `^prs: warning: rate limiter rediss://127\\.0\\.0\\.1:${secure.port} unusable \\(TLS: .*NODE_EXTRA_CA_CERTS\\); using the local file limiter$`,
        ),
      );
    } finally {
      await secure.stop();
    }
  });

  it('a wrong password: one warning that never shows it, then the local limiter', async () => {
    const locked = await startRedis({ password: 'right-secret' });
    try {
      const env = await machine();
      const r = await range('2024-05-02', `redis://:wrong-secret@127.0.0.1:${locked.port}/0`, env);
      expect(r.code, r.stderr).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
      expect(warnings).toEqual([
        `prs: warning: rate limiter redis://:***@127.0.0.1:${locked.port}/0 unusable (authentication failed: wrong user or password); using the local file limiter`,
      ]);
      expect(r.stderr).not.toContain('wrong-secret');
      // With the right password the same run goes through Redis, silently.
      const ok = await range(
        '2024-05-02',
        `redis://:right-secret@127.0.0.1:${locked.port}/0?timeout=60`,
        env,
      );
      expect([ok.code, ok.stderr.includes('warning')]).toEqual([0, false]);
      expect(((await locked.command('KEYS', 'prs:*')) as string[]).length).toBeGreaterThan(0);
    } finally {
      await locked.stop();
    }
  });
});

describe('waits are never silent (the built binary against the sandbox)', () => {
  const { sandbox, env } = useLoggedIn('prs-limiter-waits-', { rateLimit: '4/2s' });

  const report = (...extra: string[]) =>
    runPrs(['report', '42', '-t', 'index', '-d', '2024-05-01', '-f', 'json', ...extra], {
      env,
      timeoutMs: 30_000,
    });

  it('a 429 with Retry-After: 3600 fails at once with exit 7, naming the time, rather than waiting', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 429, retryAfter: 3600 });
    const before = Date.now();
    const r = await report();
    expect(r.code).toBe(7);
    const at = /until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ); prs waits at most 120 s/.exec(r.stderr);
    expect(at, r.stderr).not.toBeNull();
    // The time named is the service's hour from now (give or take the run itself).
    expect(Math.abs(Date.parse(at![1]!) - (before + 3_600_000))).toBeLessThan(60_000);
    expect(r.stderr).toContain(`run it again after ${at![1]}`);
  });

  it('a 429 with Retry-After: 1 is waited for, and -v says so', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 429, retryAfter: 1 });
    const r = await report('-v');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toContain('~ waiting 1.0 s (retry-after)');
  });
});

describe('the limiter setting: validated before saving or sending, its password never shown', () => {
  const env = () => ({ PRS_CONFIG_DIR: join(tmp.path, 'cfg'), PRS_CACHE_DIR: join(tmp.path, 'cfg-cache') });

  it.each([
    [
      'http://127.0.0.1:6379',
      'invalid limiter URL "http://127.0.0.1:6379": it must start with redis:// or rediss://',
    ],
    [
      'redis://:s3cret@127.0.0.1:6379/x',
      'invalid limiter URL "redis://:***@127.0.0.1:6379/x": the path must be a database number, e.g. /0',
    ],
    ['not a url', 'invalid limiter URL "not a url": expected redis://[user:password@]host:port[/db]'],
  ])('config set limiter %s → exit 2, nothing saved', async (value, message) => {
    const r = await runPrs(['config', 'set', 'limiter', value], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`prs: ${message}`);
    expect(r.stderr).not.toContain('s3cret');
    const get = await runPrs(['config', 'get', 'limiter'], { env: env() });
    expect(get.code).toBe(3);
  });

  it('a valid URL is saved; config list and set show it with the password masked', async () => {
    const set = await runPrs(['config', 'set', 'limiter', 'rediss://ops:s3cret@redis.example:6380/2'], {
      env: env(),
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('limiter = rediss://ops:***@redis.example:6380/2');
    const list = await runPrs(['config', 'list'], { env: env() });
    expect(list.stdout).toMatch(/^limiter: +rediss:\/\/ops:\*\*\*@redis\.example:6380\/2 +\(profile\)$/m);
    const json = await runPrs(['config', 'list', '--json'], { env: env() });
    for (const out of [set.stderr, list.stdout, json.stdout]) expect(out).not.toContain('s3cret');
  });

  it('a bad --limiter or PRS_LIMITER is a usage error (exit 2) before any request', async () => {
    const flag = await runPrs(
      [
        'report',
        '42',
        '-t',
        'index',
        '-d',
        '2024-05-01',
        '--base-url',
        'http://127.0.0.1:9',
        '--tenant',
        't',
        '--limiter',
        'memcached://x:1',
      ],
      {
        env: { ...env(), PRS_TOKEN: 'x' },
      },
    );
    expect([flag.code, flag.stderr.split('\n')[0]]).toEqual([
      2,
      'prs: invalid limiter URL "memcached://x:1": it must start with redis:// or rediss:// (from --limiter)',
    ]);
    const fromEnv = await runPrs(
      [
        'report',
        '42',
        '-t',
        'index',
        '-d',
        '2024-05-01',
        '--base-url',
        'http://127.0.0.1:9',
        '--tenant',
        't',
      ],
      {
        env: { ...env(), PRS_TOKEN: 'x', PRS_LIMITER: 'redis://:pw@' },
      },
    );
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('(from PRS_LIMITER)');
    expect(fromEnv.stderr).not.toContain(':pw@');
  });
});
