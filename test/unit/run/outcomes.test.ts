import { describe, expect, it, vi } from 'vitest';
import { durationText } from '../../../src/clock.js';
import {
  AuthError,
  exitCodeFor,
  FileError,
  FileExistsError,
  HttpError,
  InterruptedError,
  ItemsFailedError,
  NetworkError,
  ServiceError,
} from '../../../src/errors.js';
import { HolidayFilter } from '../../../src/run/holidays.js';
import {
  isItemFailure,
  itemFailureReporter,
  itemsOf,
  runFailure,
  summaryLine,
} from '../../../src/run/outcomes.js';
import { longRunNotice, progressText, runProgress } from '../../../src/run/progress.js';
import { createTestIO } from '../../helpers/io.js';

const http = (status: number) => new HttpError('x', { status });
const item = { portfolioId: 999, date: '2024-05-02' };

describe('isItemFailure', () => {
  it.each([
    ['404', http(404), true],
    ['400', http(400), true],
    ['500', http(500), true],
    ['corrupt answer', new ServiceError('malformed'), true],
    ['file exists', new FileExistsError('a.json'), true],
    ['403', http(403), false],
    ['429 that persisted', http(429), false],
    ['401 after re-auth', new AuthError('refused'), false],
    ['an unexpected status (409)', http(409), false],
    ['no session', new AuthError('no'), false],
    ['network', new NetworkError('refused'), false],
    ['disk full', new FileError('disk full'), false],
    ['interrupt', new InterruptedError(), false],
    ['a bug', new TypeError('x'), false],
  ])('%s → %s', (_name, err, want) => expect(isItemFailure(err)).toBe(want));
});

describe('summaryLine', () => {
  it.each([
    [
      [
        [18, 'written'],
        [1, 'empty'],
      ],
      [{ item, error: http(404) }],
      '18 written, 1 empty, 1 failed: portfolio 999 on 2024-05-02 (not found)',
    ],
    [
      [
        [3, 'written'],
        [0, 'empty'],
      ],
      [],
      '3 written',
    ],
    [[[0, 'written']], [], 'nothing to do'],
    [
      [[1, 'written']],
      [
        { item, error: new FileExistsError('a') },
        { item: { portfolioId: 1, date: '2024-05-03' }, error: new ServiceError('bad') },
      ],
      '1 written, 2 failed: portfolio 999 on 2024-05-02 (file exists); portfolio 1 on 2024-05-03 (service error)',
    ],
  ] as const)('%j %j', (counts, failures, want) => expect(summaryLine(counts, failures)).toBe(want));

  it('names at most three failures', () => {
    const failures = [1, 2, 3, 4, 5].map((id) => ({
      item: { portfolioId: id, date: 'd' },
      error: new ServiceError('x'),
    }));
    expect(summaryLine([], failures)).toBe(
      '5 failed: portfolio 1 on d (service error); portfolio 2 on d (service error); portfolio 3 on d (service error) and 2 more',
    );
  });
});

describe('runFailure', () => {
  it('none without failures; else the summary with the first failure’s exit code', () => {
    expect(runFailure([[2, 'written']], [])).toBeUndefined();
    const err = runFailure(
      [[2, 'written']],
      [
        { item, error: http(404) },
        { item, error: new ServiceError('x') },
      ],
    );
    expect(err).toBeInstanceOf(ItemsFailedError);
    expect(err!.message).toBe(
      '2 written, 2 failed: portfolio 999 on 2024-05-02 (not found); portfolio 999 on 2024-05-02 (service error)',
    );
    expect(exitCodeFor(err)).toBe(6);
  });
});

describe('HolidayFilter', () => {
  it('admits each effective date once per portfolio and names the dates that repeated it', () => {
    const f = new HolidayFilter();
    expect(f.admit({ portfolioId: 1, date: '2024-12-23' }, '2024-12-23')).toBe(true);
    expect(f.admit({ portfolioId: 1, date: '2024-12-24' }, '2024-12-24')).toBe(true);
    expect(f.admit({ portfolioId: 1, date: '2024-12-25' }, '2024-12-24')).toBe(false);
    expect(f.admit({ portfolioId: 1, date: '2024-12-26' }, '2024-12-24')).toBe(false);
    expect(f.admit({ portfolioId: 2, date: '2024-12-25' }, '2024-12-24')).toBe(true);
    expect(f.admit({ portfolioId: 2, date: '2024-12-27' }, undefined)).toBe(true);
    expect(f.count).toBe(2);
    expect(f.notes()).toEqual([
      'portfolio 1: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24 (no data of their own: holiday?); not repeated',
    ]);
  });
});

describe('durations and progress', () => {
  it.each([
    [0, '0 s'],
    [400, '1 s'],
    [40_000, '40 s'],
    [59_400, '1 min'],
    [60_000, '1 min'],
    [119_000, '2 min'],
    [51 * 60_000 - 1, '51 min'],
    [65 * 60_000, '1 h 05 min'],
    [7_380_000, '2 h 03 min'],
  ])('durationText(%d) = %s', (ms, want) => expect(durationText(ms)).toBe(want));

  // Time left rounds down: a token with 61 s left never claims 2 min.
  it.each([
    [400, '0 s'],
    [59_999, '59 s'],
    [61_000, '1 min'],
    [4 * 60_000 + 59_000, '4 min'],
    [65 * 60_000 + 59_000, '1 h 05 min'],
  ])("durationText(%d, 'down') = %s", (ms, want) => expect(durationText(ms, 'down')).toBe(want));

  it.each([
    // requests, rate, plan's ETA → the notice (none up to 10 min)
    [220, { limit: 4, windowMs: 60_000 }, 54 * 60_000, '220 requests at 4/60s: about 54 min (until 06:54)'],
    [3, { limit: 1, windowMs: 600_000 }, 20 * 60_000, '3 requests at 1/600s: about 20 min (until 06:20)'],
    [44, { limit: 4, windowMs: 60_000 }, 10 * 60_000, undefined],
    [5, { limit: 10, windowMs: 500 }, 11 * 60_000, '5 requests at 10/500ms: about 11 min (until 06:11)'],
  ])('longRunNotice(%d, %o, %d) = %s', (n, rate, eta, want) => {
    // 06:00 local time, whatever the machine's zone: the notice names the local clock.
    const now = new Date(2024, 4, 1, 6, 0, 0).getTime();
    expect(longRunNotice(n, rate, eta, now)).toBe(want);
  });

  it('progressText', () => {
    expect(progressText(12, 220, { portfolioId: 42, date: '2024-05-03' }, 51 * 60_000)).toBe(
      '12/220 · 2024-05-03 · portfolio 42 · ETA 51 min',
    );
    expect(progressText(1, 2, { portfolioId: 42, date: '2024-05-03' }, 0)).toBe(
      '1/2 · 2024-05-03 · portfolio 42',
    );
  });

  it.each([
    [41_000, 'rate-limit', 6 * 60_000, '5/22 · 2024-05-03 · portfolio 42 · next request in 41 s · ETA 6 min'],
    [
      3_000,
      'retry-after',
      0,
      '5/22 · 2024-05-03 · portfolio 42 · next request in 3 s (the service asked to wait)',
    ],
    [2_000, 'backoff', 90_000, '5/22 · 2024-05-03 · portfolio 42 · retrying in 2 s · ETA 2 min'],
  ] as const)('progressText through a wait of %d ms (%s)', (ms, reason, eta, want) =>
    expect(progressText(5, 22, { portfolioId: 42, date: '2024-05-03' }, eta, { ms, reason })).toBe(want),
  );

  it('itemsOf: portfolio first, then date', () => {
    expect(itemsOf([1, 2], ['a', 'b'])).toEqual([
      { portfolioId: 1, date: 'a' },
      { portfolioId: 1, date: 'b' },
      { portfolioId: 2, date: 'a' },
      { portfolioId: 2, date: 'b' },
    ]);
  });
});

describe('runProgress', () => {
  const item = { portfolioId: 42, date: '2024-05-03' };

  it('without a terminal: one stderr line per wait over 5 s, none for short waits', () => {
    const io = createTestIO({ isStderrTTY: false });
    const p = runProgress(io);
    p.onWait({ n: 3, total: 20, item }, 'portfolio 42 on 2024-05-03')(41_000, 'rate-limit');
    p.onWait({ n: 4, total: 20, item }, 'portfolio 42 on 2024-05-03')(2_000, 'backoff');
    expect(io.stderrText()).toBe('portfolio 42 on 2024-05-03: waiting 41 s for the rate limit\n');
  });

  it('with -q: nothing', () => {
    const io = createTestIO({ isStderrTTY: false, quiet: true });
    runProgress(io).onWait(undefined, 'x')(41_000, 'retry-after');
    expect(io.stderrText()).toBe('');
  });

  it('on a terminal: the item and its ETA stay through a wait, which counts down each second', () => {
    vi.useFakeTimers();
    try {
      const io = createTestIO({ isStderrTTY: true });
      let t = 0;
      const p = runProgress(io, () => t);
      const at = { n: 5, total: 22, item, etaAt: 6 * 60_000 };
      p.at(at);
      p.onWait(at, 'portfolio 42 on 2024-05-03')(3_000, 'rate-limit');
      for (let i = 0; i < 3; i++) {
        t += 1000;
        vi.advanceTimersByTime(1000);
      }
      p.stop();
      expect(io.stderrText()).toBe(
        [
          '5/22 · 2024-05-03 · portfolio 42 · ETA 6 min',
          '5/22 · 2024-05-03 · portfolio 42 · next request in 3 s · ETA 6 min',
          '5/22 · 2024-05-03 · portfolio 42 · next request in 2 s · ETA 6 min',
          '5/22 · 2024-05-03 · portfolio 42 · next request in 1 s · ETA 6 min',
          // the wait is over: the line goes back to the item, and the ticking stops
          '5/22 · 2024-05-03 · portfolio 42 · ETA 6 min',
        ]
          .map((l) => `[progress] ${l}\n`)
          .join(''),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('on a terminal, a run of one item: just the wait', () => {
    const io = createTestIO({ isStderrTTY: true });
    const p = runProgress(io);
    p.onWait(undefined, '')(2_000, 'backoff');
    p.stop();
    expect(io.stderrText()).toBe('[progress] retrying in 2 s\n');
  });
});

describe('itemFailureReporter', () => {
  const missing = (id: number) =>
    new HttpError(`portfolio ${id} not found`, {
      status: 404,
      hint: 'check the portfolio id',
    });

  it('prints each failure as it happens, and each hint only the first time it comes', () => {
    const io = createTestIO({ isStderrTTY: false });
    const reportFailure = itemFailureReporter(io);
    reportFailure({ portfolioId: 999, date: '2024-05-02' }, missing(999));
    reportFailure({ portfolioId: 998, date: '2024-05-02' }, missing(998));
    reportFailure({ portfolioId: 1, date: '2024-05-03' }, new Error('odd'));
    expect(io.stderrText().split('\n').filter(Boolean)).toEqual([
      'prs: portfolio 999 on 2024-05-02: portfolio 999 not found',
      'hint: check the portfolio id',
      'prs: portfolio 998 on 2024-05-02: portfolio 998 not found',
      'prs: portfolio 1 on 2024-05-03: odd',
    ]);
  });

  it('in the JSON log: one error entry per failure, with the item, its exit code and its hint as fields', () => {
    const io = createTestIO({ isStderrTTY: false, logFormat: 'json' });
    const reportFailure = itemFailureReporter(io);
    reportFailure({ portfolioId: 999, date: '2024-05-02' }, missing(999));
    reportFailure({ portfolioId: 998, date: '2024-05-02' }, missing(998));
    const lines = io
      .stderrText()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const entry = (id: number) => ({
      time: '2024-05-03T06:00:00.000Z',
      level: 'error',
      event: 'error',
      message: `portfolio ${id} on 2024-05-02: portfolio ${id} not found`,
      portfolioId: id,
      date: '2024-05-02',
      exitCode: 6,
      hint: 'check the portfolio id',
    });
    // Each record stands alone: the hint on both, and never a separate `hint` line.
    expect(lines).toEqual([entry(999), entry(998)]);
  });
});
