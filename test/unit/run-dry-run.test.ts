/** The --dry-run plan (src/run/dry-run.ts planRun, planLines): a table; the waits are planRequests'. */
import { describe, expect, it } from 'vitest';
import { durationText } from '../../src/clock.js';
import { planLines, planRun } from '../../src/run/dry-run.js';
import type { LimiterState } from '../../src/service/types.js';

const NOW = Date.UTC(2024, 4, 6, 6, 0, 0);
const RATE = { limit: 4, windowMs: 60_000 };

describe('planRun', () => {
  it.each([
    ['nothing cached, one window of room', { items: 4 }, { requests: 4, waitMs: 0, etaMs: 0 }],
    ['five requests: one waits a window', { items: 5 }, { requests: 5, waitMs: 60_000, etaMs: 60_000 }],
    ['cache hits are not requests', { items: 250, cached: 200 }, { requests: 50, cached: 200 }],
    ['all cached: nothing to send', { items: 3, cached: 3 }, { requests: 0, waitMs: 0, until: null }],
    [
      'a full window now: the first waits for the oldest to leave',
      { items: 1, state: { stamps: [NOW - 50_000, NOW - 40_000, NOW - 30_000, NOW - 20_000] } },
      { requests: 1, waitMs: 10_000, until: '2024-05-06T06:00:10Z' },
    ],
    [
      'a Retry-After pause in force',
      { items: 1, state: { stamps: [], until: NOW + 30_000 } },
      { waitMs: 30_000, etaMs: 30_000 },
    ],
  ])('report: %s', (_n, input: { items: number; cached?: number; state?: LimiterState }, want) => {
    const { state = { stamps: [] }, ...counts } = input;
    const plan = planRun({ command: 'report', ...counts, limiter: { state, now: NOW, rate: RATE } });
    expect(plan).toMatchObject(want);
  });

  it('export: skipped items are not requests; no client-side limit, no ETA', () => {
    expect(planRun({ command: 'export', items: 5, skipped: 3 })).toEqual({
      command: 'export',
      items: 5,
      cached: 0,
      skipped: 3,
      requests: 2,
      rateLimit: null,
      waitMs: 0,
      etaMs: null,
      until: null,
    });
  });

  it('13,100 requests at 4/60s: about 55 hours', () => {
    const limiter = { state: { stamps: [] }, now: NOW, rate: RATE };
    const plan = planRun({ command: 'report', items: 13_100, limiter });
    expect(plan.etaMs).toBe((13_100 / 4 - 1) * 60_000);
    expect(durationText(plan.etaMs!)).toBe('54 h 34 min');
  });
});

describe('planLines', () => {
  it('report', () => {
    const limiter = { state: { stamps: [] }, now: NOW, rate: RATE };
    const plan = planRun({ command: 'report', items: 5, cached: 1, limiter });
    expect(planLines(plan)).toEqual([
      'dry run: 5 items, nothing sent',
      'answered from the cache: 1',
      'requests to send: 4',
      "waits at 4/60s from the limiter's state now: 0 s, the last request at 2024-05-06T06:00:00Z",
    ]);
  });
});
