import { describe, expect, it } from 'vitest';
import { planRequests } from '../../src/run/plan.js';

const rate = { limit: 4, windowMs: 60_000 };
const now = Date.UTC(2024, 4, 1, 6, 0, 0);

describe('planRequests', () => {
  it.each([
    // requests, stamps (ms before now), wantWait
    { n: 0, ago: [], wait: 0 },
    { n: 4, ago: [], wait: 0 },
    { n: 5, ago: [], wait: 60_000 },
    { n: 8, ago: [], wait: 60_000 },
    { n: 9, ago: [], wait: 120_000 },
    // four slots already used 20 s ago: the first request waits 40 s
    { n: 1, ago: [20_000, 20_000, 20_000, 20_000], wait: 40_000 },
    // 220 requests at 4/60s: 54 full windows of waiting (the notice's "about 55 min")
    { n: 220, ago: [], wait: 54 * 60_000 },
  ])('$n requests after $ago.length recent', ({ n, ago, wait }) => {
    const p = planRequests(n, { stamps: ago.map((a) => now - a) }, now, rate);
    expect(p.waitMs).toBe(wait);
    expect(p.lastAt).toBe(now + wait);
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
