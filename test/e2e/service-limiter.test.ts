/**
 * The shared rate limiter across REAL processes: two runners (the real adapter, bundled) share a 4/2s
 * window against a server that enforces a strict 4/2s sliding window. Zero 429s, and the budget is
 * spent fully: 12 requests need exactly two waits of one window (counted from each completion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/run.js';
import { buildRunner, type CountingServer, spawnRunner, startCountingServer } from './service-helpers.js';

let tmp: ReturnType<typeof tempDir>;
let script: string;
let server: CountingServer;

beforeAll(async () => {
  tmp = tempDir('prs-limiter-e2e-');
  script = await buildRunner(tmp.path);
  server = await startCountingServer({ limit: 4, windowMs: 2000 });
});

afterAll(async () => {
  await server?.close();
  tmp?.cleanup();
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
    // Spends the budget: bursts at 0, ≈2 s and ≈4 s (plus round trips), not later.
    const span = arrivals[11]! - arrivals[0]!;
    expect(span).toBeGreaterThanOrEqual(4000);
    expect(span).toBeLessThan(4000 + 600);
    // Both processes had to wait for the shared window (each did 6 > 4 requests, yet only 12 in total fit in 3 bursts).
    const waits = [JSON.parse(ra.stdout.split('\n')[1]!), JSON.parse(rb.stdout.split('\n')[1]!)].flatMap(
      (r: { waits: [number, string][] }) => r.waits,
    );
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every(([, reason]) => reason === 'rate-limit')).toBe(true);
  });

  it('a different tenant has its own window', async () => {
    const env = (tenant: string) => ({
      PRS_BASE_URL: server.url,
      PRS_TENANT: tenant,
      PRS_RATE_LIMIT: '4/60s',
      PRS_RETRIES: '0',
      PRS_CACHE_DIR: `${tmp.path}/cache2`,
    });
    // The strict server is shared, so only check what the limiter decided: 4 each, no waiting.
    const before = server.arrivals.length;
    await new Promise((r) => setTimeout(r, 2100)); // leave the server's window from the previous test
    const [ra, rb] = await Promise.all([
      spawnRunner(script, ['2'], env('t1')).done,
      spawnRunner(script, ['2'], env('t2')).done,
    ]);
    expect([ra.code, rb.code, ra.stderr, rb.stderr]).toEqual([0, 0, '', '']);
    expect(JSON.parse(ra.stdout).waits).toEqual([]);
    expect(JSON.parse(rb.stdout).waits).toEqual([]);
    expect(server.arrivals.length - before).toBe(4);
  });
});
