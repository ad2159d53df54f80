import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, limiterFile, parseState, settle } from '../../../src/service/limiter.js';
import type { LimiterState } from '../../../src/service/types.js';
import { FakeClock } from '../../helpers/clock.js';
import { createLimiter } from '../../helpers/limiter.js';

const T = 1_000_000;
const rate = { limit: 4, windowMs: 1000 };

describe('decide', () => {
  it.each([
    ['empty: ok, opens a slot at now', { stamps: [] }, T, { ok: true, state: { stamps: [], open: [T] } }],
    [
      'room left',
      { stamps: [T - 900, T - 500, T - 10] },
      T,
      { ok: true, state: { stamps: [T - 900, T - 500, T - 10], open: [T] } },
    ],
    [
      'full: wait for the oldest to leave',
      { stamps: [T - 900, T - 500, T - 10, T - 5] },
      T,
      { ok: false, waitMs: 100 },
    ],
    ['unsorted full window', { stamps: [T - 5, T - 10, T - 900, T - 500] }, T, { ok: false, waitMs: 100 }],
    [
      'stamps out of the window do not count, but are kept for a longer window later',
      { stamps: [T - 5000, T - 1000, T - 999, T - 998, T - 997] },
      T,
      { ok: true, state: { stamps: [T - 5000, T - 1000, T - 999, T - 998, T - 997], open: [T] } },
    ],
    [
      'stamps older than 2 minutes dropped',
      { stamps: [T - 120_001, T - 999] },
      T,
      { ok: true, state: { stamps: [T - 999], open: [T] } },
    ],
    [
      'at most the 32 most recent kept',
      { stamps: Array.from({ length: 40 }, (_, i) => T - 100_000 + i) },
      T,
      { ok: true, state: { stamps: Array.from({ length: 32 }, (_, i) => T - 100_000 + 8 + i), open: [T] } },
    ],
    [
      'more stamps than the limit (limit lowered): wait for enough to leave',
      { stamps: [T - 900, T - 800, T - 700, T - 600, T - 500, T - 400] },
      T,
      { ok: false, waitMs: 300 },
    ],
    [
      'open slots count; the completed ones leave first',
      { stamps: [T - 900, T - 800], open: [T - 2000, T - 10] },
      T,
      { ok: false, waitMs: 100 },
    ],
    [
      'all slots in flight: they leave a window after completing, so at least a window from now',
      { stamps: [], open: [T - 30, T - 20, T - 10, T - 5] },
      T,
      { ok: false, waitMs: 1000 },
    ],
    [
      'an open slot of a process that died (older than 2 min) is dropped',
      { stamps: [T - 900, T - 800, T - 700], open: [T - 120_001] },
      T,
      { ok: true, state: { stamps: [T - 900, T - 800, T - 700], open: [T] } },
    ],
    ['blocked by a 429', { stamps: [], until: T + 2500 }, T, { ok: false, waitMs: 2500 }],
    ['block over', { stamps: [], until: T }, T, { ok: true, state: { stamps: [], open: [T] } }],
    [
      'absurd block ignored',
      { stamps: [], until: T + 10 * 60_000 },
      T,
      { ok: true, state: { stamps: [], open: [T] } },
    ],
    [
      'future stamps beyond the horizon ignored',
      { stamps: [T + 10 * 60_000] },
      T,
      { ok: true, state: { stamps: [], open: [T] } },
    ],
  ])('%s', (_name, state, now, want) => {
    expect(decide(state, now, rate)).toEqual(want);
  });

  it('a longer window later (4/1s, then 4/60s for the same account) counts the earlier requests', () => {
    let state: LimiterState = { stamps: [] };
    for (const at of [T, T + 1, T + 2, T + 3]) {
      const d = decide(state, at, rate);
      if (!d.ok) throw new Error('the first four fit');
      state = settle(d.state, at, at + 5);
    }
    // 30 s later under 4/1s: all room again, and the four are still on file.
    const later = decide(state, T + 30_000, rate);
    expect(later.ok).toBe(true);
    if (!later.ok) return;
    state = settle(later.state, T + 30_000, T + 30_005);
    // Under 4/60s the last four completions are in the window: wait for the oldest to leave.
    expect(decide(state, T + 30_010, { limit: 4, windowMs: 60_000 })).toEqual({
      ok: false,
      waitMs: T + 6 + 60_000 - (T + 30_010),
    });
  });

  it.each([
    [
      'moves the slot to its completion time',
      { stamps: [T - 5], open: [T, T + 1] },
      T,
      T + 40,
      { stamps: [T - 5, T + 40], open: [T + 1] },
    ],
    [
      'equal send stamps: one of them',
      { stamps: [], open: [T, T] },
      T,
      T + 3,
      { stamps: [T + 3], open: [T] },
    ],
    [
      'slot gone (file reset): still counted',
      { stamps: [], until: T + 9 },
      T,
      T + 3,
      { stamps: [T + 3], open: [], until: T + 9 },
    ],
  ])('settle: %s', (_name, state, sent, now, want) => {
    expect(settle(state, sent, now)).toEqual(want);
  });

  it('N requests take as long as the limit forces, counted from each completion (fake clock)', () => {
    let state: LimiterState = { stamps: [] };
    let now = T;
    const sent: number[] = [];
    const latency = 7;
    while (sent.length < 12) {
      const d = decide(state, now, rate);
      if (d.ok) {
        sent.push(now);
        now += latency;
        state = settle(d.state, sent.at(-1)!, now);
      } else now += d.waitMs;
    }
    // 4 back to back, 4 a window after the first completions, 4 two windows after: about 2 s, not more.
    expect(sent.map((t) => t - T)).toEqual([0, 7, 14, 21, 1007, 1014, 1021, 1028, 2014, 2021, 2028, 2035]);
  });
});

describe('parseState', () => {
  it.each([
    ['{"v":1,"stamps":[1,2]}', { stamps: [1, 2] }],
    ['{"v":1,"stamps":[1,"x",null],"until":5}', { stamps: [1], until: 5 }],
    ['{"v":1,"stamps":[1],"open":[2,"y"]}', { stamps: [1], open: [2] }],
    ['not json', { stamps: [] }],
    ['', { stamps: [] }],
    ['null', { stamps: [] }],
    ['[1,2]', { stamps: [] }],
  ])('%j', (text, want) => {
    expect(parseState(text)).toEqual(want);
  });
});

describe('limiterFile', () => {
  it('one file per base URL + tenant + user', () => {
    const a = limiterFile('/c', 'https://x', 't1', 'alice');
    expect(a).toMatch(/^\/c\/limiter-[0-9a-f]{16}\.json$/);
    expect(limiterFile('/c', 'https://x', 't1', 'alice')).toBe(a);
    expect(limiterFile('/c', 'https://x', 't2', 'alice')).not.toBe(a);
    expect(limiterFile('/c', 'https://x', 't1', 'bob')).not.toBe(a);
    expect(limiterFile('/c', 'https://y', 't1', 'alice')).not.toBe(a);
  });
});

describe('createLimiter (state file, fake clock)', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const setup = () => {
    dir = mkdtempSync(join(tmpdir(), 'prs-limiter-'));
    const file = join(dir, 'cache', 'limiter-test.json');
    const clock = new FakeClock(T);
    const waits: [number, string][] = [];
    const warnings: string[] = [];
    const limiter = createLimiter({ file, rate, clock, warn: (l) => warnings.push(l) });
    const onWait = (ms: number, reason: string) => waits.push([ms, reason]);
    return { file, clock, waits, warnings, limiter, onWait };
  };

  it('spends the window, then waits until the first completed request leaves it; records in the file', async () => {
    const { file, clock, waits, limiter, onWait } = setup();
    for (let i = 0; i < 5; i++) {
      const sent = await limiter.acquire({ onWait });
      clock.advance(10); // the round trip
      limiter.settle(sent);
    }
    await limiter.idle();
    // Completions at +10, +20, +30, +40: the fifth may go when the first leaves the window, at +1010.
    expect(waits).toEqual([[970, 'rate-limit']]);
    expect(clock.now()).toBe(T + 1020);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    // The first stamp has left the window but is kept: a longer window would still count it.
    expect(saved).toEqual({ v: 1, stamps: [T + 10, T + 20, T + 30, T + 40, T + 1020], open: [] });
  });

  it('an open slot (request in flight) is saved and counts for another limiter on the same file', async () => {
    const { file, clock, waits, limiter, onWait } = setup();
    for (let i = 0; i < 4; i++) await limiter.acquire({ onWait });
    expect(JSON.parse(readFileSync(file, 'utf8')).open).toEqual([T, T, T, T]);
    const other = createLimiter({ file, rate, clock });
    const ac = new AbortController();
    const stop = (ms: number, reason: string) => {
      onWait(ms, reason);
      ac.abort();
    };
    await expect(other.acquire({ onWait: stop, signal: ac.signal })).rejects.toMatchObject({
      name: 'InterruptedError',
    });
    expect(waits).toEqual([[1000, 'rate-limit']]);
    // Never settled (their process died): the slots are given up after two minutes.
    await other.acquire();
    expect(clock.now()).toBe(T + 120_000);
  });

  it('a corrupt state file counts as empty and is rewritten', async () => {
    const { file, waits, limiter, onWait } = setup();
    await limiter.acquire({ onWait }); // creates the directory
    writeFileSync(file, '{"stamps": [tru');
    for (let i = 0; i < 4; i++) limiter.settle(await limiter.acquire({ onWait }));
    await limiter.idle();
    expect(waits).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).stamps).toHaveLength(4);
  });

  it('settle() writes in the background, dated when it was called; the next acquire() and idle() wait for it', async () => {
    const { file, clock, limiter } = setup();
    const sent = await limiter.acquire();
    clock.advance(25); // the answer arrives
    limiter.settle(sent);
    clock.advance(100); // rendering meanwhile: the slot still counts from the answer
    await limiter.idle();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ v: 1, stamps: [T + 25], open: [] });
    limiter.settle(await limiter.acquire());
    await limiter.acquire(); // waits for the write before reading the state
    expect(JSON.parse(readFileSync(file, 'utf8')).stamps).toEqual([T + 25, T + 125]);
  });

  it('a background write that fails: one warning, the slot counted in memory; idle() does not throw', async () => {
    const { file, limiter, warnings } = setup();
    const sent = await limiter.acquire();
    rmSync(join(file, '..'), { recursive: true, force: true });
    writeFileSync(join(file, '..'), 'a file where the cache dir was');
    limiter.settle(sent);
    await expect(limiter.idle()).resolves.toBeUndefined();
    await limiter.acquire();
    expect(warnings).toEqual([expect.stringMatching(/requests alone$/)]);
    expect((await limiter.peek()).state).toMatchObject({ stamps: [T], open: [T] });
  });

  it('two background writes that fail (two answers before the next acquire): one warning, none unhandled', async () => {
    const { file, limiter, warnings } = setup();
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    rmSync(join(file, '..'), { recursive: true, force: true });
    writeFileSync(join(file, '..'), 'a file where the cache dir was');
    limiter.settle(first);
    limiter.settle(second);
    await expect(limiter.idle()).resolves.toBeUndefined();
    await limiter.acquire();
    expect(warnings).toEqual([expect.stringMatching(/requests alone$/)]);
  });

  it('block() makes the next acquire wait, also for another limiter on the same file', async () => {
    const { file, clock, waits, limiter, onWait } = setup();
    await limiter.acquire({ onWait });
    await limiter.block(5000);
    const other = createLimiter({ file, rate, clock });
    await other.acquire({ onWait });
    expect(waits).toEqual([[5000, 'rate-limit']]);
  });

  it('an aborted wait throws InterruptedError', async () => {
    const { limiter } = setup();
    for (let i = 0; i < 4; i++) await limiter.acquire();
    const ac = new AbortController();
    ac.abort();
    await expect(limiter.acquire({ signal: ac.signal })).rejects.toMatchObject({ name: 'InterruptedError' });
  });

  it("an unusable cache dir: one warning, then this process's requests counted alone", async () => {
    dir = mkdtempSync(join(tmpdir(), 'prs-limiter-'));
    writeFileSync(join(dir, 'file'), '');
    const warnings: string[] = [];
    const file = join(dir, 'file', 'limiter.json');
    const limiter = createLimiter({ file, rate, clock: new FakeClock(T), warn: (l) => warnings.push(l) });
    for (let i = 0; i < 4; i++) limiter.settle(await limiter.acquire());
    await limiter.idle();
    expect(warnings).toEqual([
      expect.stringMatching(/^prs: warning: .*; counting this process's requests alone$/),
    ]);
    expect((await limiter.peek()).state.stamps).toHaveLength(4);
  });
});
