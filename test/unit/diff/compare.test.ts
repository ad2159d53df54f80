import { describe, expect, it } from 'vitest';
import {
  anyChange,
  countsText,
  type DiffInput,
  deltaOf,
  diffBatches,
  sameValue,
} from '../../../src/diff/compare.js';
import { chooseKey, defaultKey, repeated } from '../../../src/diff/keys.js';
import { JsonNumber, type Row } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';

/** The whole diff of two answers at once: diffBatches' batches collected. */
function diffRows(before: readonly Row[], after: readonly Row[], o: DiffInput) {
  const it = diffBatches(before, after, o);
  const rows: Row[] = [];
  for (let r = it.next(); ; r = it.next()) {
    if (r.done) return { rows, counts: r.value };
    for (const row of r.value) rows.push(row);
  }
}

const n = (raw: string) => new JsonNumber(raw);
const json = (v: unknown) => JSON.parse(stringifyLossless(v));

describe('keys', () => {
  it.each([
    ['index', 'indexId'],
    ['constituent.close', 'isin'],
    ['constituent.proforma', 'isin'],
    ['constituent.corporateactions', 'eventId'],
    ['constituent.proformacorporateactions', 'eventId'],
  ] as const)('%s: %s first', (type, first) => {
    expect(defaultKey(type).first).toBe(first);
  });

  const dual = [
    { isin: 'GB1', securityTicker: 'ORN LN' },
    { isin: 'GB1', securityTicker: 'ORN NA' },
    { isin: 'FR1', securityTicker: 'ABC FP' },
  ];
  it.each([
    { name: 'isin alone when it is unique', answers: [[dual[2]]], explicit: undefined, want: ['isin'] },
    {
      name: 'isin + securityTicker for a dual listing',
      answers: [[dual[2]], dual],
      explicit: undefined,
      want: ['isin', 'securityTicker'],
    },
    { name: '--key as given', answers: [dual], explicit: ['securityTicker'], want: ['securityTicker'] },
  ])('$name', ({ answers, explicit, want }) => {
    expect(
      chooseKey(
        'constituent.close',
        answers.map((rows, i) => ({ rows, label: `answer ${i}` })),
        explicit,
      ),
    ).toEqual(want);
  });

  it('a --key that repeats: exit 2 naming the value and the answer', () => {
    const call = () =>
      chooseKey('constituent.close', [{ rows: dual, label: 'portfolio 77 on 2024-03-15' }], ['isin']);
    expect(call).toThrow(/the key isin repeats within the answer of portfolio 77 on 2024-03-15: GB1/);
    try {
      call();
    } catch (e) {
      expect((e as { exitCode: number }).exitCode).toBe(2);
    }
  });

  it('a --key no row has: exit 2 naming it and the fields there are', () => {
    expect(() => chooseKey('constituent.close', [{ rows: dual, label: '' }], ['isni'])).toThrow(
      /unknown --key field "isni" for constituent.close/,
    );
  });

  it('repeated: nested keys by dotted path; the value of a composite key space-separated', () => {
    const rows = [
      { indexId: { Net: 'a' }, isin: 'X' },
      { indexId: { Net: 'a' }, isin: 'X' },
    ];
    expect(repeated(rows, ['indexId.Net'])).toBe('a');
    expect(repeated(rows, ['indexId.Net', 'isin'])).toBe('a X');
    expect(repeated([{ isin: 'X' }, { isin: 'Y' }], ['isin'])).toBeUndefined();
  });
});

describe('sameValue and deltaOf', () => {
  it.each([
    [n('1.0'), 1, true],
    [n('12.3456789012345679'), n('12.3456789012345678'), false],
    [null, undefined, true],
    ['a', 'a', true],
    ['1', 1, false],
    [{ a: 1 }, { a: n('1') }, true],
    [[1, 2], [1, 3], false],
    [true, false, false],
  ])('%j = %j: %s', (a, b, want) => {
    expect(sameValue(a, b)).toBe(want);
  });
  it.each([
    [n('12.3456789012345678'), n('12.3456789012345679'), '0.0000000000000001'],
    [n('0.049999999999'), n('5E-13'), '-0.0499999999985'],
    [1, 2.5, '1.5'],
    [null, 1, null],
    ['1', '2', null],
  ])('%j → %j: %s', (from, to, want) => {
    const d = deltaOf(from, to);
    expect(d === null ? null : d.raw).toBe(want);
  });
});

describe('diffRows', () => {
  const before = [
    {
      effectiveDate: '2024-03-15',
      isin: 'A',
      securityName: 'Alpha',
      closingPrice: n('12.3456789012345678'),
      indexWeighting: n('0.5'),
    },
    {
      effectiveDate: '2024-03-15',
      isin: 'B',
      securityName: 'Beta',
      closingPrice: 10,
      indexWeighting: n('0.3'),
    },
    {
      effectiveDate: '2024-03-15',
      isin: 'C',
      securityName: 'Gamma',
      closingPrice: n('0.049999999999'),
      indexWeighting: n('0.2'),
    },
  ];
  const after = [
    {
      effectiveDate: '2024-03-18',
      isin: 'A',
      securityName: 'Alpha',
      closingPrice: n('12.3456789012345679'),
      indexWeighting: n('0.5'),
    },
    {
      effectiveDate: '2024-03-18',
      isin: 'C',
      securityName: 'Gamma',
      closingPrice: n('5E-13'),
      indexWeighting: n('0.20'),
    },
    {
      effectiveDate: '2024-03-18',
      isin: 'D',
      securityName: 'Delta',
      closingPrice: 7,
      indexWeighting: n('0.3'),
    },
  ];

  it('added, changed and removed rows, one per differing value, deltas exact', () => {
    const d = diffRows(before, after, { type: 'constituent.close', key: ['isin'] });
    expect(d.counts).toEqual({ added: 1, removed: 1, changed: 2, unchanged: 0 });
    // As JSON text: the digits as sent, the deltas exact.
    expect(d.rows.map((r) => stringifyLossless(r))).toEqual([
      '{"change":"changed","isin":"A","field":"closingPrice","from":12.3456789012345678,"to":12.3456789012345679,"delta":0.0000000000000001}',
      '{"change":"changed","isin":"C","field":"closingPrice","from":0.049999999999,"to":5E-13,"delta":-0.0499999999985}',
      '{"change":"added","isin":"D","field":"securityName","from":null,"to":"Delta","delta":null}',
      '{"change":"added","isin":"D","field":"closingPrice","from":null,"to":7,"delta":null}',
      '{"change":"added","isin":"D","field":"indexWeighting","from":null,"to":0.3,"delta":null}',
      '{"change":"removed","isin":"B","field":"securityName","from":"Beta","to":null,"delta":null}',
      '{"change":"removed","isin":"B","field":"closingPrice","from":10,"to":null,"delta":null}',
      '{"change":"removed","isin":"B","field":"indexWeighting","from":0.3,"to":null,"delta":null}',
    ]);
  });

  it('--fields and the lead columns', () => {
    const d = diffRows(before, after, {
      type: 'constituent.close',
      key: ['isin'],
      fields: ['indexWeighting'],
      lead: { portfolioId: 7, fromDate: '2024-03-15', toDate: '2024-03-18' },
    });
    expect(d.counts).toEqual({ added: 1, removed: 1, changed: 0, unchanged: 2 });
    expect(Object.keys(d.rows[0]!)).toEqual([
      'portfolioId',
      'fromDate',
      'toDate',
      'change',
      'isin',
      'field',
      'from',
      'to',
      'delta',
    ]);
    expect(d.rows.map((r) => r.field)).toEqual(['indexWeighting', 'indexWeighting']);
  });

  it('the compared fields are every row’s, in either answer (a row with keys of its own among rows alike)', () => {
    const before = [
      { isin: 'A', p: 1 },
      { isin: 'B', p: 1 },
    ];
    const after = [
      { isin: 'A', p: 1 },
      { isin: 'B', p: 1, extra: 'x' },
      { isin: 'C', q: 2 },
    ];
    const d = diffRows(before, after, { type: 'constituent.close', key: ['isin'] });
    expect(d.rows.map((r) => `${r.isin} ${r.field}`)).toEqual(['B extra', 'C p', 'C extra', 'C q']);
  });

  it('an unknown --fields name is exit 2', () => {
    expect(() =>
      diffRows(before, after, { type: 'constituent.close', key: ['isin'], fields: ['nope'] }),
    ).toThrow(/unknown field "nope"/);
  });

  it('nested objects compare by dotted path, as CSV flattens them', () => {
    const ca = (shares: string) => ({
      eventId: 'E1',
      isin: 'X',
      oldShares: { Price: n('1'), Net: n(shares) },
      effectiveDate: 'd',
    });
    const d = diffRows([ca('100')], [ca('200.5')], {
      type: 'constituent.corporateactions',
      key: ['eventId'],
    });
    expect(json(d.rows)).toEqual([
      { change: 'changed', eventId: 'E1', field: 'oldShares.Net', from: 100, to: 200.5, delta: 100.5 },
    ]);
  });

  it('--fields names a nested object: its dotted columns are compared, the rest not', () => {
    const ca = (net: string, status: string) => ({
      eventId: 'E1',
      status,
      oldShares: { Price: n('1'), Net: n(net) },
      effectiveDate: 'd',
    });
    const d = diffRows([ca('100', 'Announced')], [ca('101', 'Confirmed')], {
      type: 'constituent.corporateactions',
      key: ['eventId'],
      fields: ['oldShares'],
    });
    expect(d.rows.map((r) => r.field)).toEqual(['oldShares.Net']);
  });

  it('a dual listing: both tickers, each its own row', () => {
    const rows = (p: string) => [
      { isin: 'GB1', securityTicker: 'ORN LN', closingPrice: n(p) },
      { isin: 'GB1', securityTicker: 'ORN NA', closingPrice: n('2') },
    ];
    const key = chooseKey('constituent.close', [{ rows: rows('1'), label: '' }], undefined);
    const d = diffRows(rows('1'), rows('1.5'), { type: 'constituent.close', key });
    expect(d.counts).toEqual({ added: 0, removed: 0, changed: 1, unchanged: 1 });
    expect(json(d.rows)).toEqual([
      {
        change: 'changed',
        isin: 'GB1',
        securityTicker: 'ORN LN',
        field: 'closingPrice',
        from: 1,
        to: 1.5,
        delta: 0.5,
      },
    ]);
  });

  it('the same answer: no rows, nothing changed', () => {
    const d = diffRows(before, before, { type: 'constituent.close', key: ['isin'] });
    expect(d.rows).toEqual([]);
    expect(anyChange(d.counts)).toBe(false);
    expect(countsText(d.counts)).toBe('0 added, 0 removed, 0 changed, 3 unchanged');
  });
});
