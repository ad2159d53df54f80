import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { columnOf, columnsOf } from '../../../src/render/columns.js';
import { csvCell, tsvCell } from '../../../src/render/delimited.js';
import { renderDelimited } from '../../helpers/rows.js';

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['line\nbreak', '"line\nbreak"'],
    ['cr\rhere', '"cr\rhere"'],
    [' spaces kept ', ' spaces kept '],
    ['tab\there', 'tab\there'],
    ['STOXX EXAMPLE 600 OIL & GAS', 'STOXX EXAMPLE 600 OIL & GAS'],
  ])('%j → %j', (cell, want) => {
    expect(csvCell(cell)).toBe(want);
  });
});

describe('tsvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['a\tb', 'a\\tb'],
    ['a\nb\r', 'a\\nb\\r'],
    ['back\\slash', 'back\\\\slash'],
    ['a,"b"', 'a,"b"'],
  ])('%j → %j', (cell, want) => {
    expect(tsvCell(cell)).toBe(want);
  });
});

const unescapeTsv = (s: string) =>
  s.replace(/\\(.)/g, (_m, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? `\\${c}`);

describe('renderDelimited', () => {
  const rows = [
    {
      isin: 'X1',
      name: 'A, "quoted" name',
      price: new JsonNumber('1234567.123456789012'),
      big: new JsonNumber('12345678901234567890'),
      n: 0.25,
      sedol: null,
      id: { Net: 'n1', Price: 'p1' },
    },
    { isin: 'X2', name: 'multi\nline', price: 1, extra: true, id: { Net: 'n2' } },
  ];
  const cols = columnsOf({ type: 'index', rows }, 'seen');

  it('writes a header, flattened columns, empty cells for null and absent, exact digits', () => {
    expect(renderDelimited(rows, cols, 'csv')).toBe(
      'isin,name,price,big,n,sedol,id.Net,id.Price,extra\n' +
        'X1,"A, ""quoted"" name",1234567.123456789012,12345678901234567890,0.25,,n1,p1,\n' +
        'X2,"multi\nline",1,,,,n2,,true\n',
    );
  });

  it('a column that another extends (name beside name.P) is empty where the row nests it', () => {
    // Whichever way a row is written (its leaves in the columns' order or not, before or after the
    // column was first seen), the same cells.
    const mixed = [
      { a: 1, name: { P: 1 } },
      { name: 's', a: 2 },
      { name: { P: 2 }, a: 3 },
    ];
    expect(renderDelimited(mixed, columnsOf({ type: 'index', rows: mixed }, 'seen'), 'csv')).toBe(
      'a,name.P,name\n1,1,\n2,,s\n3,2,\n',
    );
  });

  it('writes TSV with escapes', () => {
    expect(renderDelimited(rows, cols, 'tsv')).toBe(
      'isin\tname\tprice\tbig\tn\tsedol\tid.Net\tid.Price\textra\n' +
        'X1\tA, "quoted" name\t1234567.123456789012\t12345678901234567890\t0.25\t\tn1\tp1\t\n' +
        'X2\tmulti\\nline\t1\t\t\t\tn2\t\ttrue\n',
    );
  });

  it('writes only the header without rows', () => {
    expect(renderDelimited([], [columnOf('a'), columnOf('b.c')], 'csv')).toBe('a,b.c\n');
  });

  it('quotes a lone empty cell, so the record is not a blank line', () => {
    const out = renderDelimited([{ a: '' }, { a: 'x' }], [columnOf('a')], 'csv');
    expect(out).toBe('a\n""\nx\n');
    expect(parse(out)).toEqual([['a'], [''], ['x']]);
  });

  const cellArb = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.constantFrom(',', '"', '\r\n', '\n', '\r', '""', ' , ', '\t', '\\'),
    fc.stringMatching(/^-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?$/).map((s) => new JsonNumber(s)),
    fc.constant(null),
  );
  const tableArb = fc.integer({ min: 1, max: 5 }).chain((width) =>
    fc.array(fc.array(cellArb, { minLength: width, maxLength: width }), { maxLength: 8 }).map((cells) => ({
      columns: Array.from({ length: width }, (_, i) => columnOf(`c${i}`)),
      rows: cells.map((r) => Object.fromEntries(r.map((v, i) => [`c${i}`, v]))),
      cells,
    })),
  );
  const text = (v: unknown) => (v === null ? '' : v instanceof JsonNumber ? v.raw : String(v));

  it('round-trips any cells through csv-parse', () => {
    fc.assert(
      fc.property(tableArb, ({ columns, rows, cells }) => {
        const parsed = parse(renderDelimited(rows, columns, 'csv'), { relax_column_count: false });
        expect(parsed).toEqual([columns.map((c) => c.name), ...cells.map((r) => r.map(text))]);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips any cells through TSV (split on tab and newline, unescape)', () => {
    fc.assert(
      fc.property(tableArb, ({ columns, rows, cells }) => {
        const lines = renderDelimited(rows, columns, 'tsv').split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.map((l) => l.split('\t').map(unescapeTsv))).toEqual([
          columns.map((c) => c.name),
          ...cells.map((r) => r.map(text)),
        ]);
      }),
      { numRuns: 500 },
    );
  });
});
