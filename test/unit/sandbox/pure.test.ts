import { describe, expect, it } from 'vitest';
import { addDays, effectiveDateFor, isIsoDate, nextBusinessDay } from '../../../src/sandbox/calendar.js';
import { decimal, isinCheckDigit, mix, security, uuid } from '../../../src/sandbox/portfolios.js';
import { retryAfterSeconds, slidingWindow } from '../../../src/sandbox/routes.js';
import {
  asciiFallback,
  contentDisposition,
  csvCell,
  csvColumns,
  csvHeader,
  csvLine,
  exportFileName,
  num,
  type Row,
  toJson,
} from '../../../src/sandbox/wire.js';

describe('decimal', () => {
  it.each([
    [99657944n, 5, '996.57944'],
    [1_000_000, 6, '1'],
    [1_500_000, 6, '1.5'],
    [5, 5, '0.00005'],
    [0, 5, '0'],
    [-12345, 2, '-123.45'],
    [12345678901234567890n, 0, '12345678901234567890'],
    [1234567123456789012n, 12, '1234567.123456789012'],
  ])('%s / 10^%i → %s', (units, d, want) => expect(decimal(units, d)).toBe(want));
});

describe('toJson', () => {
  it('writes number literals verbatim, objects in field order, compact', () => {
    const row: Row = {
      b: num('12345678901234567890'),
      a: 'x"y',
      n: null,
      t: true,
      o: { Net: num('1.0'), Price: num('1E-7') },
    };
    expect(toJson(row)).toBe(
      '{"b":12345678901234567890,"a":"x\\"y","n":null,"t":true,"o":{"Net":1.0,"Price":1E-7}}',
    );
  });
});

describe('mix', () => {
  it('is deterministic and spreads', () => {
    expect(mix(1, 2, 3)).toBe(mix(1, 2, 3));
    expect(mix(1, 2, 3)).not.toBe(mix(1, 2, 4));
    expect(mix(7)).toBeGreaterThanOrEqual(0);
  });
});

describe('calendar', () => {
  it.each([
    ['2024-05-01', true],
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-13-01', false],
    ['2024-5-1', false],
    ['20240501', false],
    ['today', false],
  ])('isIsoDate(%s) = %s', (v, want) => expect(isIsoDate(v)).toBe(want));

  it.each([
    ['2024-05-01', '2024-05-01'], // Wednesday
    ['2024-05-04', undefined], // Saturday
    ['2024-05-05', undefined], // Sunday
    ['2024-12-25', '2024-12-24'], // holiday → previous business day
    ['2024-12-26', '2024-12-24'],
    ['2024-01-01', '2023-12-29'], // Monday holiday → Friday before
  ])('effectiveDateFor(%s) = %s', (d, want) => expect(effectiveDateFor(d)).toBe(want));

  it('adds days and finds the next business day', () => {
    expect(addDays('2024-02-28', 2)).toBe('2024-03-01');
    expect(nextBusinessDay('2024-05-03')).toBe('2024-05-06');
    expect(nextBusinessDay('2024-12-24')).toBe('2024-12-27');
  });
});

describe('csv', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['', ''],
  ])('csvCell(%j) = %j', (v, want) => expect(csvCell(v)).toBe(want));

  it('uses the spec columns for constituent types, in order', () => {
    const want =
      'Effective Date,ISIN,Security Name,Security Ticker,Exchange Code,Closing Price,Currency,Closing Fx,Index Shares,Index Weighting\n';
    for (const t of ['constituent.close', 'constituent.open', 'constituent.proforma'] as const)
      expect(csvHeader(t)).toBe(want);
  });

  it('writes a public-example line exactly, with an empty Exchange Code', () => {
    const row: Row = {
      effectiveDate: '2023-06-30',
      isin: 'CH0102878927',
      securityName: 'STOXX EXAMPLE 600 OIL & GAS GROSS EUR',
      securityTicker: 'SXEGR Index',
      closingPrice: num('242.76633'),
      currency: 'EUR',
      closingFx: num('1'),
      indexShares: num('13417.402222'),
      indexWeighting: num('0.25'),
    };
    expect(csvLine('constituent.close', row)).toBe(
      '2023-06-30,CH0102878927,STOXX EXAMPLE 600 OIL & GAS GROSS EUR,SXEGR Index,,242.76633,EUR,1,13417.402222,0.25\n',
    );
  });

  it('flattens nested objects and prints null as an empty cell', () => {
    const cols = csvColumns('constituent.corporateactions').map(([h]) => h);
    expect(cols.slice(0, 3)).toEqual(['Index ID Net', 'Index ID Price', 'Index ID Total']);
    expect(cols).toContain('Old Shares Net');
    const row: Row = { indexId: { Net: 'n', Price: 'p', Total: 't' }, sedol: null };
    expect(csvLine('constituent.corporateactions', row).startsWith('n,p,t,,,,')).toBe(true);
  });
});

describe('naming', () => {
  it.each([
    ['2023-06-29', 'Example 600 OG', 'json', '2023-06-29_Example_600_OG_index.json'],
    ['2023-06-30', 'Example 600 OG', 'zip', '2023-06-30_Example_600_OG_index.zip'],
    ['2024-05-01', '  Global   Broad ', 'csv', '2024-05-01_Global_Broad_index.csv'],
  ])('exportFileName(%s, %j, %s)', (d, n, e, want) => expect(exportFileName(d, n, e)).toBe(want));

  it('adds filename* only for non-ASCII names', () => {
    expect(contentDisposition('a_index.json')).toBe('attachment; filename="a_index.json"');
    expect(asciiFallback('Précision')).toBe('Precision');
    expect(contentDisposition('2024-05-01_Précision_Stress_index.json')).toBe(
      `attachment; filename="2024-05-01_Precision_Stress_index.json"; filename*=UTF-8''2024-05-01_Pr%C3%A9cision_Stress_index.json`,
    );
  });

  it('slides the window per key and says when a slot frees', () => {
    const take = slidingWindow({ limit: 2, windowMs: 1000 });
    expect(take('u', 0).ok).toBe(true);
    expect(take('u', 400).ok).toBe(true);
    expect(take('u', 500)).toEqual({ ok: false, retryAfterMs: 500 });
    expect(take('v', 500).ok).toBe(true); // another user has its own window
    expect(take('u', 999)).toEqual({ ok: false, retryAfterMs: 1 }); // rejected ones do not count
    expect(take('u', 1000).ok).toBe(true); // the first hit left the window
    expect(take('u', 1001)).toEqual({ ok: false, retryAfterMs: 399 });
  });

  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [59_999, 60],
  ])('retryAfterSeconds(%i) = %i', (ms, s) => expect(retryAfterSeconds(ms)).toBe(s));
});

describe('universe', () => {
  it.each([
    ['US037833100', 5],
    ['DE000716460', 0],
    ['CH001203204', 8],
    ['GB000263494', 6],
  ])('ISIN check digit of %s is %i', (body, d) => expect(isinCheckDigit(body)).toBe(d));

  it('generates valid, stable securities', () => {
    for (let i = 0; i < 200; i++) {
      const s = security(7, i);
      expect(s.isin).toMatch(/^[A-Z]{2}[A-Z0-9]{9}\d$/);
      expect(isinCheckDigit(s.isin.slice(0, 11))).toBe(Number(s.isin[11]));
      expect(s).toEqual(security(7, i));
    }
    expect(uuid(1, 2)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
