import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { UsageError } from '../../../src/errors.js';
import {
  cellText,
  columnsOf,
  flatten,
  seenColumns,
  selectFields,
  specColumns,
  valueAt,
} from '../../../src/render/columns.js';

const names = (cs: { name: string }[]) => cs.map((c) => c.name);

describe('flatten', () => {
  it.each([
    ['flat', { a: 1, b: 'x' }, { a: 1, b: 'x' }],
    ['nested', { id: { Net: 'n', Price: 'p' }, z: null }, { 'id.Net': 'n', 'id.Price': 'p', z: null }],
    ['deep', { a: { b: { c: 1 } } }, { 'a.b.c': 1 }],
    ['empty object stays a value', { a: {} }, { a: {} }],
    ['arrays stay values', { a: [1, 2] }, { a: [1, 2] }],
    ['JsonNumber is a value', { a: new JsonNumber('1.10') }, { a: new JsonNumber('1.10') }],
  ])('%s', (_n, row, want) => {
    expect(flatten(row)).toEqual(want);
  });

  it('keeps the row key order', () => {
    expect(Object.keys(flatten({ z: 1, a: { y: 1, b: 2 }, m: 3 }))).toEqual(['z', 'a.y', 'a.b', 'm']);
  });
});

describe('seenColumns', () => {
  it.each([
    ['one row', [{ a: 1, b: 2 }], ['a', 'b']],
    [
      'union in first-seen order',
      [
        { a: 1, c: 2 },
        { b: 1, a: 2, d: { x: 1 } },
      ],
      ['a', 'c', 'b', 'd.x'],
    ],
    ['nested keys union', [{ o: { P: 1 } }, { o: { N: 1, P: 2 } }], ['o.P', 'o.N']],
    ['none', [], []],
  ])('%s', (_n, rows, want) => {
    expect(names(seenColumns(rows))).toEqual(want);
  });

  it('gives each column its key path', () => {
    expect(seenColumns([{ indexId: { Net: 'x' } }])).toEqual([
      { name: 'indexId.Net', path: ['indexId', 'Net'] },
    ]);
  });
});

describe('columnsOf', () => {
  const rows = [{ currency: 'EUR', extra: 1, effectiveDate: '2024-05-03', indexValue: 1 }];
  it.each([
    ['seen order', 'index', rows, 'seen', false, ['currency', 'extra', 'effectiveDate', 'indexValue']],
    [
      'spec order, extras after',
      'index',
      rows,
      'spec',
      false,
      ['effectiveDate', 'indexValue', 'currency', 'extra'],
    ],
    [
      'portfolioId leads',
      'index',
      [{ portfolioId: 1, currency: 'EUR', extra: 1 }],
      'spec',
      true,
      ['portfolioId', 'currency', 'extra'],
    ],
    ['no rows: the spec columns', 'index', [], 'seen', false, [...specColumns('index')]],
    [
      'no rows, several portfolios',
      'constituent.close',
      [],
      'seen',
      true,
      ['portfolioId', ...specColumns('constituent.close')],
    ],
  ] as const)('%s', (_n, type, rs, order, multi, want) => {
    expect(names(columnsOf({ type, rows: rs, multi }, order))).toEqual(want);
  });

  it('flattens corporate actions in spec order', () => {
    const row = {
      oldShares: { Net: 1, Price: 2, Total: 3 },
      isin: 'X',
      indexId: { Total: 't', Net: 'n', Price: 'p' },
    };
    expect(names(columnsOf({ type: 'constituent.corporateactions', rows: [row] }, 'spec'))).toEqual([
      'indexId.Net',
      'indexId.Price',
      'indexId.Total',
      'isin',
      'oldShares.Price',
      'oldShares.Total',
      'oldShares.Net',
    ]);
  });

  it('no rows, corporate actions: flattened spec columns', () => {
    const cols = names(columnsOf({ type: 'constituent.proformacorporateactions', rows: [] }, 'seen'));
    expect(cols.slice(0, 4)).toEqual(['indexId.Net', 'indexId.Price', 'indexId.Total', 'indexName.Net']);
    expect(cols).toContain('newShares.Net');
    expect(cols).not.toContain('oldShares');
  });
});

describe('selectFields', () => {
  const cols = columnsOf(
    { type: 'constituent.corporateactions', rows: [{ isin: 'X', indexId: { Net: 'n', Price: 'p' }, x: 1 }] },
    'seen',
  );
  it.each([
    ['order as asked', ['x', 'isin'], ['x', 'isin']],
    ['dotted path', ['indexId.Price', 'isin'], ['indexId.Price', 'isin']],
    ['a prefix takes its nested columns', ['indexId'], ['indexId.Net', 'indexId.Price']],
    ['a spec field absent from the data is an empty column', ['sedol', 'isin'], ['sedol', 'isin']],
    [
      'a spec nested field absent from the data',
      ['oldShares'],
      ['oldShares.Price', 'oldShares.Total', 'oldShares.Net'],
    ],
  ])('%s', (_n, fields, want) => {
    expect(names(selectFields(cols, fields, 'constituent.corporateactions'))).toEqual(want);
  });

  it('rejects a field neither the data nor the spec know, listing the available ones', () => {
    const call = () => selectFields(cols, ['isin', 'nope', 'indexId.Gross'], 'constituent.corporateactions');
    expect(call).toThrow(UsageError);
    expect(call).toThrow('unknown fields "nope", "indexId.Gross" for constituent.corporateactions');
    try {
      call();
    } catch (e) {
      expect((e as UsageError).hint).toBe('available: isin, indexId.Net, indexId.Price, x');
    }
  });
});

describe('valueAt and cellText', () => {
  it.each([
    [{ a: 1 }, ['a'], 1],
    [{ a: { b: 'x' } }, ['a', 'b'], 'x'],
    [{ a: null }, ['a', 'b'], undefined],
    [{ a: 'str' }, ['a', 'b'], undefined],
    [{}, ['a'], undefined],
  ])('valueAt(%j, %j) = %j', (row, path, want) => {
    expect(valueAt(row, path)).toEqual(want);
  });

  it.each([
    [null, ''],
    [undefined, ''],
    ['text', 'text'],
    [0.25, '0.25'],
    [-0, '0'],
    [new JsonNumber('1234567.123456789012'), '1234567.123456789012'],
    [true, 'true'],
    [false, 'false'],
    [[1, new JsonNumber('1.10')], '[1,1.10]'],
    [{}, '{}'],
  ])('cellText(%j) = %j', (v, want) => {
    expect(cellText(v)).toBe(want);
  });
});
