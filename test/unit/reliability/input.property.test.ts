/**
 * Property tests of the input parsers (src/input.ts): every string is either accepted with the exact
 * meaning or rejected with a one-line UsageError — never another error, never a wrong value.
 * (The table tests of the same parsers are in test/unit/input.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { dateRange, formatDate, isWeekend, parseDate, parsePortfolioId } from '../../../src/input.js';

/** Either the value, or the UsageError's message; anything else thrown fails the property. */
function outcome<T>(f: () => T): { ok: T } | { error: string } {
  try {
    return { ok: f() };
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).not.toContain('\n');
    return { error: (err as Error).message };
  }
}

const DAY = 86_400_000;
const calendarDay = fc
  .integer({ min: Date.UTC(1900, 0, 1) / DAY, max: Date.UTC(9999, 11, 31) / DAY })
  .map((d) => new Date(d * DAY));
/** Strings near the date grammar: digits, dashes, the words, spaces, and anything else. */
const dateish = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[0-9]{1,5}-[0-9]{1,3}-[0-9]{1,3}$/),
  fc.stringMatching(/^ ?(today|yesterday|Today|YESTERDAY|tomorrow) ?$/),
  fc
    .tuple(
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
    )
    .map(
      ([y, m, d]) =>
        `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
);

describe('parseDate', () => {
  it('[R-P01] every real calendar date from 1900 on round-trips; every other string is a UsageError (property)', () => {
    fc.assert(
      fc.property(calendarDay, (d) => {
        expect(parseDate(formatDate(d))).toBe(formatDate(d));
      }),
    );
    const now = new Date(2024, 4, 15, 12);
    fc.assert(
      fc.property(dateish, (s) => {
        const r = outcome(() => parseDate(s, now));
        const word = s.trim().toLowerCase();
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
        const real =
          m !== null &&
          Number(m[1]) >= 1900 &&
          formatDate(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))) === s;
        if (word === 'today') expect(r).toEqual({ ok: '2024-05-15' });
        else if (word === 'yesterday') expect(r).toEqual({ ok: '2024-05-14' });
        else if (real) expect(r).toEqual({ ok: s });
        // Right shape, no such date: the message says what is wrong with the date, not the shape.
        else if (m && (Number(m[2]) < 1 || Number(m[2]) > 12))
          expect(r).toEqual({ error: `invalid date "${s}": there is no month ${m[2]}` });
        else if (m && Number(m[1]) >= 1900)
          expect(r).toEqual({
            error: expect.stringMatching(
              /^invalid date ".*": that date does not exist \(\w+ \d{4} has \d\d days\)$/,
            ),
          });
        else expect(r).toEqual({ error: expect.stringMatching(/^invalid date ".*": expected YYYY-MM-DD/s) });
      }),
      { numRuns: 2000 },
    );
  });

  it('today is the local calendar day and yesterday the day before, at any time of any day', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(1950, 0, 2), max: new Date(2200, 0, 1), noInvalidDate: true }),
        (now) => {
          const today = parseDate('today', now);
          const local = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
          expect(today).toBe(local);
          expect(Date.parse(today) - Date.parse(parseDate('yesterday', now))).toBe(DAY);
        },
      ),
    );
  });
});

describe('dateRange', () => {
  it('weekdays only, ascending, inside the bounds, none missing (property)', () => {
    fc.assert(
      // Starts before 9999 so that the end is a date parseDate accepts too.
      fc.property(
        calendarDay.filter((d) => d.getUTCFullYear() < 9999),
        fc.integer({ min: 0, max: 365 }),
        (start, span) => {
          const from = formatDate(start);
          const to = formatDate(new Date(start.getTime() + span * DAY));
          const r = outcome(() => dateRange(from, to));
          let weekdays = 0;
          for (let i = 0; i <= span; i++)
            if (!isWeekend(formatDate(new Date(start.getTime() + i * DAY)))) weekdays++;
          if (weekdays === 0) {
            expect(r).toEqual({ error: `no weekdays between ${from} and ${to}` });
            return;
          }
          const days = (r as { ok: string[] }).ok;
          expect(days).toHaveLength(weekdays);
          expect(days.every((d) => !isWeekend(d) && d >= from && d <= to)).toBe(true);
          expect([...days].sort()).toEqual(days);
          expect(new Set(days).size).toBe(days.length);
        },
      ),
    );
  });
});

describe('parsePortfolioId', () => {
  it('[R-P02] accepts exactly the whole numbers 1..2147483647 (1–10 digits); everything else is a UsageError (property)', () => {
    const idish = fc.oneof(
      fc.string(),
      fc.integer({ min: -5, max: 2 ** 31 + 5 }).map(String),
      fc.bigInt({ min: 0n, max: 10n ** 12n }).map(String),
      fc.stringMatching(/^[0-9+\-. e x]{1,12}$/),
      fc.constantFrom('0x10', '1e3', '1.0', ' 42', '42 ', '+42', '٤٢', '４２', '0042', '00000000001'),
    );
    fc.assert(
      fc.property(idish, (s) => {
        const r = outcome(() => parsePortfolioId(s));
        const valid = /^[0-9]{1,10}$/.test(s) && Number(s) >= 1 && Number(s) <= 2_147_483_647;
        expect(r).toEqual(
          valid ? { ok: Number(s) } : { error: expect.stringMatching(/^invalid portfolio id /) },
        );
      }),
      { numRuns: 2000 },
    );
  });
});
