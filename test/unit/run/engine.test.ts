/**
 * The run engine (src/run/engine.ts) as a table: items × outcomes × parallel × fail-fast → the
 * outcomes in item order, the items started, and the exit code. Each item's work "takes" its delay
 * on vitest's fake timers: no real sleep, and a later item can finish first.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  exitCodeFor,
  HttpError,
  InterruptedError,
  NetworkError,
  StdoutClosedError,
} from '../../../src/errors.js';
import { createRunEvents, type RunEvent } from '../../../src/events.js';
import { type ItemDone, type RunEnd, runItems } from '../../../src/run/engine.js';
import { createTestIO } from '../../helpers/io.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const http = (status: number) => new HttpError(`status ${status}`, { status });
/** What an item's work ends with. */
const OUTCOMES = {
  w: () => ({ status: 'written' }) as ItemDone,
  e: () => ({ status: 'empty' }) as ItemDone,
  s: () => ({ status: 'skipped' }) as ItemDone,
  '404': () => http(404),
  '500': () => http(500),
  '403': () => http(403),
  net: () => new NetworkError('refused'),
} as const;
type Spec = keyof typeof OUTCOMES;
const SHORT = { written: 'w', empty: 'e', skipped: 's', failed: 'x' } as const;

async function run(
  specs: Spec[],
  o: {
    parallel?: number;
    failFast?: boolean;
    delays?: number[];
    signal?: AbortSignal;
    stdoutGone?: AbortSignal;
  } = {},
) {
  const items = specs.map((_, i) => ({ portfolioId: i + 1, date: '2024-05-02' }));
  const started: number[] = [];
  const events: RunEvent[] = [];
  const bus = createRunEvents();
  bus.on((e) => events.push(e));
  const io = createTestIO({ stdoutGone: o.stdoutGone });
  const promise = runItems(
    items,
    async (item, ctx) => {
      started.push(item.portfolioId);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, o.delays?.[ctx.index] ?? 10);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new InterruptedError());
        });
      });
      const out = OUTCOMES[specs[ctx.index]!]();
      if (out instanceof Error) throw out;
      return out;
    },
    { command: 'export', io, events: bus, signal: o.signal ?? new AbortController().signal, ...o },
  );
  await vi.runAllTimersAsync();
  const end: RunEnd = await promise;
  const first = end.stopped ?? end.failures[0]?.error;
  return {
    end,
    delivered: end.outcomes.map((r) => `${r.item.portfolioId}${SHORT[r.status]}`).join(' '),
    started,
    exit: first === undefined ? 0 : exitCodeFor(first),
    events,
    stderr: io.stderrText(),
  };
}

describe('runItems', () => {
  it.each([
    // name, outcomes, parallel, fail-fast, delays, delivered (id + w/e/s/x), started, exit
    ['all fine', ['w', 'e', 's'], 1, false, [], '1w 2e 3s', 3, 0],
    [
      'an item-level failure: the run goes on, exit of the first failure',
      ['w', '404', '500', 'w'],
      1,
      false,
      [],
      '1w 2x 3x 4w',
      4,
      6,
    ],
    ['--fail-fast: stops at the first failure, listed', ['w', '404', 'w'], 1, true, [], '1w 2x', 2, 6],
    ['a run-level failure stops the run at once', ['w', '403', 'w'], 1, false, [], '1w 2x', 2, 5],
    ['a network failure is run-level', ['net', 'w'], 1, false, [], '1x', 1, 9],
    ['a run of one item: its failure is the run’s', ['404'], 1, false, [], '1x', 1, 6],
    [
      'parallel: later items finishing first still come out in item order',
      ['w', 'w', 'e', 'w'],
      4,
      false,
      [40, 30, 20, 10],
      '1w 2w 3e 4w',
      4,
      0,
    ],
    [
      'parallel: an item-level failure in flight does not stop the others',
      ['w', '404', 'w', 'w'],
      2,
      false,
      [30, 5, 5, 5],
      '1w 2x 3w 4w',
      4,
      6,
    ],
    [
      'parallel: a run-level failure aborts those in flight; earlier ones that finished are kept',
      ['w', 'w', '403', 'w', 'w'],
      3,
      false,
      [5, 50, 10, 10, 10],
      '1w 3x',
      4,
      5,
    ],
    ['parallel --fail-fast', ['w', '500', 'w', 'w'], 2, true, [10, 10, 30, 10], '1w 2x', 3, 8],
  ] as const)('%s', async (_name, specs, parallel, failFast, delays, delivered, started, exit) => {
    const r = await run([...specs], { parallel, failFast, delays: [...delays] });
    expect(r.delivered).toBe(delivered);
    expect(r.started).toHaveLength(started);
    expect(r.exit).toBe(exit);
  });

  it('an item-level failure is reported as it comes, with its hint once; the one that stops a run is left to main', async () => {
    const goes = await run(['404', 'w', '404']);
    expect(goes.stderr.split('\n').filter(Boolean)).toEqual([
      'prs: portfolio 1 on 2024-05-02: status 404',
      'prs: portfolio 3 on 2024-05-02: status 404',
    ]);
    expect((await run(['w', '403'])).stderr).toBe('');
  });

  it('an interrupt stops the run: nothing more starts, nothing more is delivered, exit 130', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(new InterruptedError()), 15);
    const r = await run(['w', 'w', 'w', 'w'], { signal: ac.signal });
    expect(r.delivered).toBe('1w');
    expect(r.started).toEqual([1, 2]);
    expect(r.end.stopped).toBeInstanceOf(InterruptedError);
    expect(r.exit).toBe(130);
  });

  it('a stdout gone stops the run at once with its reason (a reader that left: exit 0)', async () => {
    const gone = new AbortController();
    setTimeout(() => gone.abort(new StdoutClosedError()), 15);
    const r = await run(['w', 'w', 'w'], { stdoutGone: gone.signal });
    expect(r.started).toEqual([1, 2]);
    expect(r.end.stopped).toBeInstanceOf(StdoutClosedError);
    expect(r.exit).toBe(0);
  });

  it('a wait the service asked for halves the items in flight for the rest of the run', async () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ portfolioId: i + 1, date: '2024-05-02' }));
    let active = 0;
    const activeAtStart: number[] = [];
    const promise = runItems(
      items,
      async (_item, ctx) => {
        activeAtStart.push(++active);
        if (ctx.index === 0) ctx.onWait(1000, 'retry-after');
        await new Promise((r) => setTimeout(r, 10));
        active--;
        return { status: 'written' } as ItemDone;
      },
      {
        command: 'export',
        io: createTestIO(),
        events: createRunEvents(),
        signal: new AbortController().signal,
        parallel: 4,
      },
    );
    await vi.runAllTimersAsync();
    expect((await promise).outcomes).toHaveLength(10);
    expect(activeAtStart.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(activeAtStart.slice(4).every((n) => n <= 2)).toBe(true);
  });

  it('emits start, then each item in order with its status, path, bytes and failure', async () => {
    const r = await run(['w', '404'], { parallel: 2, delays: [20, 5] });
    expect(r.events).toEqual([
      { event: 'start', command: 'export', items: 2, requests: 2, etaMs: 0 },
      { event: 'item', item: { portfolioId: 1, date: '2024-05-02' }, status: 'written' },
      {
        event: 'item',
        item: { portfolioId: 2, date: '2024-05-02' },
        status: 'failed',
        exitCode: 6,
        message: 'status 404',
      },
    ]);
  });

  it('a plan longer than ten minutes is announced first (report: the rate limit), and its start event carries the ETA', async () => {
    const io = createTestIO();
    const events: RunEvent[] = [];
    const bus = createRunEvents();
    bus.on((e) => events.push(e));
    const items = [1, 2, 3].map((portfolioId) => ({ portfolioId, date: '2024-05-02' }));
    const now = new Date(2024, 4, 2, 6, 0, 0).getTime();
    const p = runItems(items, async () => ({ status: 'written' }) as ItemDone, {
      command: 'report',
      io,
      events: bus,
      signal: new AbortController().signal,
      clock: { now: () => now },
      rate: { limit: 1, windowMs: 600_000 },
    });
    await vi.runAllTimersAsync();
    await p;
    expect(io.stderrText()).toBe('3 requests at 1/600s: about 20 min (until 06:20)\n');
    expect(events[0]).toEqual({ event: 'start', command: 'report', items: 3, requests: 3, etaMs: 1_200_000 });
  });
  it.each([
    // slots taken (ms before now), in flight → the start event's ETA, the notice (only past ten minutes)
    ['an empty window', [], [], 0, ''],
    ['both slots taken a minute ago', [-60_000, -60_000], [], 600_000, ''],
    ['both slots taken just now', [0, 0], [], 660_000, '2 requests at 2/660s: about 11 min (until 06:11)\n'],
    [
      'one slot taken, one in flight',
      [0],
      [0],
      660_000,
      '2 requests at 2/660s: about 11 min (until 06:11)\n',
    ],
  ])(
    'the notice and the ETA plan from the limiter state as it is: %s',
    async (_, stamps, open, etaMs, notice) => {
      const io = createTestIO();
      const events: RunEvent[] = [];
      const bus = createRunEvents();
      bus.on((e) => events.push(e));
      const now = new Date(2024, 4, 2, 6, 0, 0).getTime();
      const state = { stamps: stamps.map((t) => now + t), open: open.map((t) => now + t) };
      let peeks = 0;
      const items = [1, 2].map((portfolioId) => ({ portfolioId, date: '2024-05-02' }));
      const p = runItems(items, async () => ({ status: 'written' }) as ItemDone, {
        command: 'report',
        io,
        events: bus,
        signal: new AbortController().signal,
        clock: { now: () => now },
        rate: { limit: 2, windowMs: 660_000 },
        limiterState: async () => {
          peeks++;
          return { state, now };
        },
      });
      await vi.runAllTimersAsync();
      await p;
      expect(io.stderrText()).toBe(notice);
      expect(events[0]).toEqual({ event: 'start', command: 'report', items: 2, requests: 2, etaMs });
      expect(peeks).toBe(3); // the start, then each item's progress line
    },
  );

  it.each([
    // which items send a request → the start event's requests and ETA, the notice, limiter peeks
    ['two cache hits of four', [true, false, false, true], 2, 600_000, '', 5],
    ['every item a cache hit', [false, false, false, false], 0, 0, '', 0],
    [
      'no hit',
      [true, true, true, true],
      4,
      1_800_000,
      '4 requests at 1/600s: about 30 min (until 06:30)\n',
      5,
    ],
  ])(
    'the ETA and the notice count only the items that send a request: %s',
    async (_, asks, requests, etaMs, notice, peeks) => {
      const io = createTestIO();
      const events: RunEvent[] = [];
      const bus = createRunEvents();
      bus.on((e) => events.push(e));
      const now = new Date(2024, 4, 2, 6, 0, 0).getTime();
      let peeked = 0;
      const items = asks.map((_, i) => ({ portfolioId: i + 1, date: '2024-05-02' }));
      const p = runItems(items, async () => ({ status: 'written' }) as ItemDone, {
        command: 'report',
        io,
        events: bus,
        signal: new AbortController().signal,
        clock: { now: () => now },
        rate: { limit: 1, windowMs: 600_000 },
        limiterState: async () => {
          peeked++;
          return { state: { stamps: [] }, now };
        },
        asks: (index) => asks[index]!,
      });
      await vi.runAllTimersAsync();
      await p;
      expect(io.stderrText()).toBe(notice);
      expect(events[0]).toEqual({ event: 'start', command: 'report', items: 4, requests, etaMs });
      // The start, then each item with a request still to come: none when every item is a hit.
      expect(peeked).toBe(peeks);
    },
  );

  it('a limiter state that cannot be read plans from an empty window', async () => {
    const io = createTestIO();
    const p = runItems(
      [1, 2, 3].map((portfolioId) => ({ portfolioId, date: '2024-05-02' })),
      async () => ({ status: 'written' }) as ItemDone,
      {
        command: 'report',
        io,
        events: createRunEvents(),
        signal: new AbortController().signal,
        clock: { now: () => new Date(2024, 4, 2, 6, 0, 0).getTime() },
        rate: { limit: 1, windowMs: 600_000 },
        limiterState: () => Promise.reject(new Error('redis gone')),
      },
    );
    await vi.runAllTimersAsync();
    await p;
    expect(io.stderrText()).toBe('3 requests at 1/600s: about 20 min (until 06:20)\n');
  });
});
