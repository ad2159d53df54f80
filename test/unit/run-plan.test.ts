import { describe, expect, it } from 'vitest';
import { planRequests } from '../../src/run/plan.js';

const rate = { limit: 4, windowMs: 60_000 };
const now = Date.UTC(2024, 4, 1, 6, 0, 0);

describe('planRequests', () => {
  it.each([
    // requests, stamps (ms before now), latency, wantWait, wantEta
    { n: 0, ago: [], lat: 0, wait: 0, eta: 0 },
    { n: 4, ago: [], lat: 0, wait: 0, eta: 0 },
    { n: 5, ago: [], lat: 0, wait: 60_000, eta: 60_000 },
    { n: 8, ago: [], lat: 0, wait: 60_000, eta: 60_000 },
    { n: 9, ago: [], lat: 0, wait: 120_000, eta: 120_000 },
    // four slots already used 20 s ago: the first request waits 40 s
    { n: 1, ago: [20_000, 20_000, 20_000, 20_000], lat: 0, wait: 40_000, eta: 40_000 },
    // 220 requests at 4/60s: 54 full windows of waiting (the notice's "about 55 min")
    { n: 220, ago: [], lat: 0, wait: 54 * 60_000, eta: 54 * 60_000 },
    // latency counts once per request, and pushes the window too
    { n: 2, ago: [], lat: 500, wait: 0, eta: 1000 },
  ])('$n requests after $ago.length recent, latency $lat', ({ n, ago, lat, wait, eta }) => {
    const p = planRequests(n, { stamps: ago.map((a) => now - a) }, now, rate, lat);
    expect(p.requests).toBe(n);
    expect(p.waitMs).toBe(wait);
    expect(p.etaMs).toBe(eta);
  });

  it('a Retry-After pause in force delays the first request', () => {
    const p = planRequests(1, { stamps: [], until: now + 30_000 }, now, rate);
    expect(p.firstAt).toBe(now + 30_000);
    expect(p.waitMs).toBe(30_000);
  });

  it('does not change the state it was given', () => {
    const state = { stamps: [now - 1000], open: [] as number[] };
    planRequests(10, state, now, rate);
    expect(state).toEqual({ stamps: [now - 1000], open: [] });
  });
});
