import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/clock.js';
import { FileError } from '../../../src/errors.js';
import {
  createLimiter,
  decide,
  limiterFile,
  parseState,
  safetyMarginMs,
} from '../../../src/service/limiter.js';

const T = 1_000_000;
const rate = { limit: 4, windowMs: 1000 };

describe('decide', () => {
  it.each([
    ['empty: ok, records now', { stamps: [] }, T, { ok: true, state: { stamps: [T] } }],
    [
      'room left',
      { stamps: [T - 900, T - 500, T - 10] },
      T,
      { ok: true, state: { stamps: [T - 900, T - 500, T - 10, T] } },
    ],
    [
      'full: wait for the oldest to leave',
      { stamps: [T - 900, T - 500, T - 10, T - 5] },
      T,
      { ok: false, waitMs: 100 },
    ],
    ['unsorted full window', { stamps: [T - 5, T - 10, T - 900, T - 500] }, T, { ok: false, waitMs: 100 }],
    [
      'old stamps dropped',
      { stamps: [T - 5000, T - 1000, T - 999] },
      T,
      { ok: true, state: { stamps: [T - 999, T] } },
    ],
    [
      'more stamps than the limit (limit lowered): wait for enough to leave',
      { stamps: [T - 900, T - 800, T - 700, T - 600, T - 500, T - 400] },
      T,
      { ok: false, waitMs: 300 },
    ],
    ['blocked by a 429', { stamps: [], until: T + 2500 }, T, { ok: false, waitMs: 2500 }],
    ['block over', { stamps: [], until: T }, T, { ok: true, state: { stamps: [T] } }],
    ['absurd block ignored', { stamps: [], until: T + 10 * 60_000 }, T, { ok: true, state: { stamps: [T] } }],
    [
      'future stamps beyond the horizon ignored',
      { stamps: [T + 10 * 60_000] },
      T,
      { ok: true, state: { stamps: [T] } },
    ],
  ])('%s', (_name, state, now, want) => {
    expect(decide(state, now, rate)).toEqual(want);
  });

  it('N requests take no longer than the limit forces (fake clock)', () => {
    let state = { stamps: [] as number[] };
    let now = T;
    const sent: number[] = [];
    while (sent.length < 12) {
      const d = decide(state, now, rate);
      if (d.ok) {
        state = d.state;
        sent.push(now);
      } else now += d.waitMs;
    }
    // 4 at once, 4 a window later, 4 two windows later: 12 under 4/1s take 2 s, not more.
    expect(sent.map((t) => t - T)).toEqual([0, 0, 0, 0, 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000]);
  });
});

describe('parseState', () => {
  it.each([
    ['{"v":1,"stamps":[1,2]}', { stamps: [1, 2] }],
    ['{"v":1,"stamps":[1,"x",null],"until":5}', { stamps: [1], until: 5 }],
    ['not json', { stamps: [] }],
    ['', { stamps: [] }],
    ['null', { stamps: [] }],
    ['[1,2]', { stamps: [] }],
  ])('%j', (text, want) => {
    expect(parseState(text)).toEqual(want);
  });
});

describe('limiterFile / safetyMarginMs', () => {
  it('one file per base URL + tenant + user', () => {
    const a = limiterFile('/c', 'https://x', 't1', 'alice');
    expect(a).toMatch(/^\/c\/limiter-[0-9a-f]{16}\.json$/);
    expect(limiterFile('/c', 'https://x', 't1', 'alice')).toBe(a);
    expect(limiterFile('/c', 'https://x', 't2', 'alice')).not.toBe(a);
    expect(limiterFile('/c', 'https://x', 't1', 'bob')).not.toBe(a);
    expect(limiterFile('/c', 'https://y', 't1', 'alice')).not.toBe(a);
  });
  it.each([
    [1000, 100],
    [2000, 100],
    [10_000, 200],
    [60_000, 1000],
    [3_600_000, 1000],
  ])('margin for %i ms is %i ms', (w, m) => {
    expect(safetyMarginMs(w)).toBe(m);
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
    const limiter = createLimiter({ file, rate, clock });
    const onWait = (ms: number, reason: string) => waits.push([ms, reason]);
    return { file, clock, waits, limiter, onWait };
  };

  it('spends the window, then waits for the oldest slot (window + margin) and records in the file', async () => {
    const { file, clock, waits, limiter, onWait } = setup();
    for (let i = 0; i < 5; i++) await limiter.acquire({ onWait });
    expect(waits).toEqual([[1100, 'rate-limit']]);
    expect(clock.now()).toBe(T + 1100);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    // The first four left the (margin-widened) window exactly then, so only the new stamp remains.
    expect(saved.stamps).toEqual([T + 1100]);
  });

  it('a corrupt state file counts as empty and is rewritten', async () => {
    const { file, waits, limiter, onWait } = setup();
    await limiter.acquire({ onWait }); // creates the directory
    writeFileSync(file, '{"stamps": [tru');
    for (let i = 0; i < 4; i++) await limiter.acquire({ onWait });
    expect(waits).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).stamps).toHaveLength(4);
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

  it('an unusable cache dir is a FileError naming PRS_CACHE_DIR', async () => {
    dir = mkdtempSync(join(tmpdir(), 'prs-limiter-'));
    writeFileSync(join(dir, 'file'), '');
    const limiter = createLimiter({ file: join(dir, 'file', 'limiter.json'), rate, clock: new FakeClock(T) });
    const err = await limiter.acquire().catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect(err.hint).toMatch(/PRS_CACHE_DIR/);
  });
});
