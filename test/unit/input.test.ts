import { describe, expect, it } from 'vitest';
import {
  dateRange,
  editDistance,
  parseDate,
  parseFields,
  parseOutput,
  parsePortfolioId,
  parsePortfolioIds,
  parseReportType,
  resolveDates,
  suggest,
} from '../../src/input.js';

const now = new Date(2024, 4, 6, 9, 30); // Monday 2024-05-06, local time

describe('parseDate', () => {
  it.each([
    ['2024-05-01', '2024-05-01'],
    ['2024-02-29', '2024-02-29'],
    ['today', '2024-05-06'],
    ['TODAY', '2024-05-06'],
    ['yesterday', '2024-05-05'],
  ])('%s → %s', (input, want) => expect(parseDate(input, now)).toBe(want));

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-5-1',
    '24-05-01',
    '',
    'tomorrow',
    '2024-05-01T00:00',
    '1800-01-01',
  ])('rejects %j', (input) => expect(() => parseDate(input, now)).toThrow(/invalid date/));

  it.each([
    ['2023-02-30', 'that date does not exist (February 2023 has 28 days)'],
    ['2023-02-29', 'that date does not exist (February 2023 has 28 days)'],
    ['2024-02-30', 'that date does not exist (February 2024 has 29 days)'],
    ['2024-04-31', 'that date does not exist (April 2024 has 30 days)'],
    ['2024-05-00', 'that date does not exist (May 2024 has 31 days)'],
    ['2024-13-01', 'there is no month 13'],
    ['2024-00-10', 'there is no month 00'],
    ['2024-5-1', 'expected YYYY-MM-DD, "today", "yesterday" or "previous-weekday"'],
    ['1800-01-01', 'expected YYYY-MM-DD, "today", "yesterday" or "previous-weekday"'],
  ])('%s says why: %s', (input, why) =>
    expect(() => parseDate(input, now)).toThrow(`invalid date "${input}": ${why}`),
  );

  it('yesterday crosses a month boundary', () =>
    expect(parseDate('yesterday', new Date(2024, 2, 1, 8))).toBe('2024-02-29'));

  // A fixed local clock at 06:00, the hour of the cron example (issue 18 defect 6).
  it.each([
    ['Monday', new Date(2024, 4, 6, 6), '2024-05-03'],
    ['Tuesday', new Date(2024, 4, 7, 6), '2024-05-06'],
    ['Wednesday', new Date(2024, 4, 8, 6), '2024-05-07'],
    ['Friday', new Date(2024, 4, 10, 6), '2024-05-09'],
    ['Saturday', new Date(2024, 4, 11, 6), '2024-05-10'],
    ['Sunday', new Date(2024, 4, 12, 6), '2024-05-10'],
    ['Monday 1 April, across a month', new Date(2024, 3, 1, 6), '2024-03-29'],
    ['Monday 6 January, across a year', new Date(2025, 0, 6, 0, 5), '2025-01-03'],
  ])('previous-weekday on %s → %s', (_day, clock, want) => {
    expect(parseDate('previous-weekday', clock)).toBe(want);
    expect(parseDate('Previous-Weekday', clock)).toBe(want);
  });
});

describe('dateRange', () => {
  it('skips weekends by default', () =>
    expect(dateRange('2024-05-03', '2024-05-07')).toEqual(['2024-05-03', '2024-05-06', '2024-05-07']));
  it('keeps weekends with the flag', () =>
    expect(dateRange('2024-05-04', '2024-05-05', true)).toEqual(['2024-05-04', '2024-05-05']));
  it('one day', () => expect(dateRange('2024-05-01', '2024-05-01')).toEqual(['2024-05-01']));
  it('rejects a weekend-only range without --weekends', () =>
    expect(() => dateRange('2024-05-04', '2024-05-05')).toThrow(/no weekdays/));
  it('rejects ranges longer than a year', () =>
    expect(() => dateRange('2020-01-01', '2024-01-01')).toThrow(/longer than/));
  it('crosses a DST change without losing a day', () =>
    expect(dateRange('2024-03-29', '2024-04-01')).toEqual(['2024-03-29', '2024-04-01']));
});

describe('resolveDates', () => {
  it.each([
    [{ date: '2024-05-01' }, ['2024-05-01']],
    [{ from: '2024-05-01', to: '2024-05-02' }, ['2024-05-01', '2024-05-02']],
  ])('%j', (o, want) => expect(resolveDates(o, now)).toEqual(want));
  it.each([
    [{}, /missing --date/],
    [{ date: '2024-05-01', from: '2024-05-01', to: '2024-05-02' }, /either --date/],
    [{ from: '2024-05-01' }, /go together/],
    [{ from: '2024-05-02', to: '2024-05-01' }, /--from 2024-05-02 is after --to 2024-05-01/],
  ])('%j rejected', (o, re) => expect(() => resolveDates(o, now)).toThrow(re));
});

describe('portfolio ids', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['2147483647', 2147483647],
  ])('%s ok', (v, want) => expect(parsePortfolioId(v)).toBe(want));
  it.each(['0', '-1', '1.5', 'abc', '2147483648', '', ' 1', '1e3', '0x10', '99999999999'])(
    '%j rejected',
    (v) => expect(() => parsePortfolioId(v)).toThrow(/invalid portfolio id/),
  );
  it('dedupes, keeping order', () => expect(parsePortfolioIds(['3', '1', '3'])).toEqual([3, 1]));
});

describe('report type and suggestions', () => {
  it('accepts every type', () => expect(parseReportType('constituent.close')).toBe('constituent.close'));
  it.each([
    ['indx', 'index'],
    ['close', 'constituent.close'],
    ['constituent.clsoe', 'constituent.close'],
    ['corporateactions', 'constituent.corporateactions'],
  ])('%s → did you mean %s', (input, guess) =>
    expect(() => parseReportType(input)).toThrow(`did you mean "${guess}"`),
  );
  it('no suggestion for nonsense', () => expect(suggest('zzzzzzzz', ['index', 'report'])).toBeUndefined());
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', 'abd', 1],
    ['kitten', 'sitting', 3],
    ['exprot', 'export', 1],
    ['bogus', 'logout', 3],
  ])('editDistance(%j, %j) = %d', (a, b, d) => expect(editDistance(a, b)).toBe(d));
});

describe('suggest: only what is close (issue 18 defect 7)', () => {
  const COMMANDS = ['login', 'logout', 'auth', 'config', 'report', 'export', 'completion', 'sandbox', 'help'];
  it.each([
    ['exprot', 'export'],
    ['reprot', 'report'],
    ['expor', 'export'],
    ['logn', 'login'],
    ['sandbx', 'sandbox'],
    ['EXPORT', 'export'],
    ['conf', 'config'],
    ['bogus', undefined],
    ['x', undefined],
    ['foo', undefined],
    ['repair', undefined],
    ['status', undefined],
    ['zzzzzzzz', undefined],
  ])('%s → %s', (input, want) => expect(suggest(input, COMMANDS)).toBe(want));
});

describe('parseFields', () => {
  it('splits and trims', () => expect(parseFields('a, b.c ,d')).toEqual(['a', 'b.c', 'd']));
  it('rejects empty names', () => expect(() => parseFields('a,,b')).toThrow(/empty field/));
});

describe('parseOutput: a bare format name is not a file name (CLI.md "first steps")', () => {
  const formats = ['table', 'json', 'ndjson', 'csv', 'tsv'];
  it.each([
    ['json', 'json'],
    ['csv', 'csv'],
    ['JSON', 'json'],
    ['ndjson', 'ndjson'],
  ])('-o %s → exit 2, did you mean -f %s?', (v, f) =>
    expect(() => parseOutput(v, formats)).toThrow(
      `-o ${v} names a format, not a file — did you mean -f ${f}?`,
    ),
  );
  it.each([
    ['./json', './json'],
    ['out.json', 'out.json'],
    ['json/', 'json/'],
    ['-', '-'],
    ['report', 'report'],
    [undefined, undefined],
  ])('-o %s is a path', (v, want) => expect(parseOutput(v, formats)).toBe(want));
  it("only the command's own formats: export has no table", () =>
    expect(parseOutput('table', ['json', 'csv'])).toBe('table'));
});
