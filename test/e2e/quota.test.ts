/**
 * `prs quota` (CLI.md), the BUILT binary against the sandbox: after requests from two processes it
 * counts them all (they share the limiter's state), names where the state is kept (the file, or Redis
 * with the password masked), says when the next slot frees, and shows a Retry-After pause in force.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_REDIS_MESSAGE, REDIS_SERVER, type RedisServer, startRedis } from '../helpers/redis.js';
import { runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

// A window long enough that nothing leaves it during the test: the count is exact.
const { sandbox, tmp, env } = useLoggedIn(
  'prs-quota-',
  { rateLimit: '1000/1s' },
  { PRS_RATE_LIMIT: '10/600s' },
);

interface QuotaJson {
  rateLimit: { limit: number; windowMs: number };
  limiter: { kind: string; where: string };
  used: number;
  inFlight: number;
  nextSlotAt: string;
  nextSlotInMs: number;
  pausedUntil: string | null;
}

const quota = async (extra: Record<string, string> = {}) => {
  const r = await runPrs(['quota', '--json'], { env: { ...env, ...extra } });
  expect(r.code, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout) as QuotaJson, stderr: r.stderr };
};
const range = [
  'report',
  '42',
  '-t',
  'index',
  '--from',
  '2024-05-06',
  '--to',
  '2024-05-08',
  '-f',
  'json',
  '-q',
];

describe('the file limiter', () => {
  it('before any request: 0 used, free now, the file named', async () => {
    const { json } = await quota();
    expect(json).toMatchObject({ rateLimit: { limit: 10, windowMs: 600_000 }, used: 0, inFlight: 0 });
    expect(json.nextSlotInMs).toBe(0);
    expect(json.limiter.kind).toBe('file');
    expect(json.limiter.where).toMatch(new RegExp(`^${env.PRS_CACHE_DIR}/limiter-[0-9a-f]{16}\\.json$`));
  });

  it('3 + 3 requests from two processes at once: 6 counted; text form too', async () => {
    const [a, b] = await Promise.all([
      runPrs(range, { env }),
      runPrs([...range.slice(0, 4), '--from', '2024-05-13', '--to', '2024-05-15', '-f', 'json', '-q'], {
        env,
      }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(sandbox.stats.count({ endpoint: 'report' })).toBe(6);
    expect((await quota()).json).toMatchObject({ used: 6, inFlight: 0, nextSlotInMs: 0 });
    const text = await runPrs(['quota'], { env });
    expect(text.stdout).toMatch(/^rate limit: 10\/600s$/m);
    expect(text.stdout).toMatch(/^in window: {2}6 of 10$/m);
    expect(text.stdout).toMatch(/^next slot: {2}free now$/m);
  });

  it('a full window: the next slot is when the oldest request leaves it; a Retry-After pause is shown', async () => {
    const { json: before } = await quota();
    const file = before.limiter.where;
    const state = JSON.parse(readFileSync(file, 'utf8')) as { stamps: number[]; until?: number };
    const now = Date.now();
    // Fill the window (a stored state rewritten, not waited for): the oldest leaves in ~5 min.
    state.stamps = Array.from({ length: 10 }, (_, i) => now - 300_000 + i * 1000);
    writeFileSync(file, JSON.stringify({ v: 1, ...state }));
    // prs's own clock read lies between t0 and t1, however long a busy machine takes to start it: the
    // slot it names (its now + nextSlotInMs) is checked against those, not against a fixed slack.
    let t0 = Date.now();
    const { json: full } = await quota();
    let t1 = Date.now();
    expect(full.used).toBe(10);
    expect(t0 + full.nextSlotInMs).toBeLessThanOrEqual(now + 300_000);
    expect(t1 + full.nextSlotInMs).toBeGreaterThanOrEqual(now + 300_000);
    expect(Date.parse(full.nextSlotAt)).toBe(Math.floor((now + 300_000) / 1000) * 1000);
    const until = now + 30_000;
    writeFileSync(file, JSON.stringify({ v: 1, stamps: [], until }));
    t0 = Date.now();
    const { json: paused } = await quota();
    t1 = Date.now();
    expect(paused.pausedUntil).toBe(new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(t0 + paused.nextSlotInMs).toBeLessThanOrEqual(until);
    expect(t1 + paused.nextSlotInMs).toBeGreaterThanOrEqual(until);
    const text = await runPrs(['quota'], { env });
    expect(text.stdout).toMatch(/^paused: {5}until .*Z \(the service answered 429 with Retry-After\)$/m);
    writeFileSync(file, JSON.stringify({ v: 1, stamps: [] }));
  });

  it('never logged in (no base URL or tenant anywhere): exit 4 before anything', async () => {
    const r = await runPrs(['quota'], {
      env: { ...env, PRS_TENANT: '', PRS_CONFIG_DIR: `${tmp.path}/none` },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^prs: not logged in — run `prs login`\n/);
  });
});

if (!REDIS_SERVER) console.warn(NO_REDIS_MESSAGE);
describe.skipIf(!REDIS_SERVER)('the Redis limiter', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis({ password: 'sekret' });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('counts two processes through Redis; the password is masked; Redis down: a warning, the file', async () => {
    const url = redis.url;
    expect(url).toContain('sekret');
    const renv = { ...env, PRS_LIMITER: url };
    const [a, b] = await Promise.all([
      runPrs(range, { env: renv }),
      runPrs([...range.slice(0, 4), '--from', '2024-05-20', '--to', '2024-05-21', '-f', 'json', '-q'], {
        env: renv,
      }),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const r = await runPrs(['quota', '--json'], { env: renv });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('sekret');
    const json = JSON.parse(r.stdout) as QuotaJson;
    expect(json).toMatchObject({ used: 5, inFlight: 0, limiter: { kind: 'redis' } });
    expect(json.limiter.where).toMatch(/^redis:\/\/:\*\*\*@127\.0\.0\.1:\d+$|^redis:\/\/.*\*\*\*@/);
    const down = await runPrs(['quota'], { env: { ...renv, PRS_LIMITER: 'redis://:sekret@127.0.0.1:1' } });
    expect(down.code).toBe(0);
    expect(down.stderr).toMatch(/^prs: warning: rate limiter redis:\/\/:\*\*\*@127\.0\.0\.1:1 unusable/m);
    expect(down.stderr + down.stdout).not.toContain('sekret');
    // What it counted is the local file's state: `kept in` names that file, not the Redis URL.
    expect(down.stdout).toMatch(/^kept in: {4}\/.*limiter-[0-9a-f]+\.json$/m);
    const downJson = await runPrs(['quota', '--json'], {
      env: { ...renv, PRS_LIMITER: 'redis://:sekret@127.0.0.1:1' },
    });
    expect((JSON.parse(downJson.stdout) as QuotaJson).limiter.kind).toBe('file');
  });
});
