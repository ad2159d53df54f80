import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { columnOf } from '../../../src/render/columns.js';
import {
  displayWidth,
  isNumericColumn,
  type LayoutColumn,
  minWidth,
  planTable,
  printable,
  priorities,
  renderTable,
  rowWidth,
  truncate,
} from '../../../src/render/table.js';

describe('table helpers', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    // Shortened in the middle: the tail tells rows apart (issue 24: "Example 600 O…" for EUR and JPY).
    ['longer than ten', 10, 'longer…ten'],
    ['Example 600 OG EUR', 14, 'Example 60…EUR'],
    ['Example 600 OG JPY', 10, 'Exampl…JPY'],
    ['a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f601', 16, 'a3f1c2d4-5…5f601'],
    ['Change of Name and Domicile of Incorporation', 19, 'Change of Name and…'],
    ['short then averyveryverylongword', 7, 'short …'],
    ['😀😀😀', 3, '😀…'],
    ['トヨタ自動車', 6, 'トヨ…'],
    ['e\u0301te\u0301 ici', 5, 'e\u0301te\u0301 …'], // combining accents take no cell of their own
    ['한국어 이름', 5, '한국…'],
  ])('truncate(%j, %i) = %j', (s, max, want) => {
    expect(truncate(s, max)).toBe(want);
  });

  it.each([
    [[{ a: 1 }, { a: new JsonNumber('1.10') }, { a: null }, {}], true],
    [[{ a: 1 }, { a: '1' }], false],
    [[{ a: null }], false],
  ])('isNumericColumn(%j) = %s', (rows, want) => {
    expect(isNumericColumn(rows, columnOf('a'))).toBe(want);
  });

  it.each([
    ['plain', 'plain'],
    ['a\nb\tc', 'a b c'],
    ['\x1b[31mred', ' [31mred'],
  ])('printable(%j) = %j', (s, want) => {
    expect(printable(s)).toBe(want);
  });

  it.each([
    ['abc', 3],
    ['😀', 2],
    ['', 0],
    ['トヨタ (Toyota)', 15],
    ['Société', 7],
    ['Socie\u0301te\u0301', 7], // the same word with combining accents
    ['한국어', 6],
    ['ｱｲｳ', 3], // half-width katakana
    ['ＡＢ', 4], // full-width Latin
    ['a\u200db', 2], // a zero-width joiner
  ])('displayWidth(%j) = %i', (s, want) => {
    expect(displayWidth(s)).toBe(want);
  });
});

describe('renderTable', () => {
  const rows = [
    { name: 'Alpha', price: new JsonNumber('1234567.123456789012'), note: null },
    { name: 'B', price: 2.5, note: 'x' },
  ];
  const cols = [columnOf('name'), columnOf('price'), columnOf('note')];

  it('draws a box with numbers right-aligned and nulls empty', () => {
    expect(renderTable(rows, cols, { color: false })).toEqual({
      text: [
        '┌───────┬──────────────────────┬──────┐',
        '│ name  │                price │ note │',
        '├───────┼──────────────────────┼──────┤',
        '│ Alpha │ 1234567.123456789012 │      │',
        '│ B     │                  2.5 │ x    │',
        '└───────┴──────────────────────┴──────┘',
        '',
      ].join('\n'),
      notes: [],
    });
  });

  it('leaves out trailing columns that do not fit, with a note', () => {
    const out = renderTable(rows, cols, { color: false, width: 32 });
    expect(out.text.split('\n')[1]).toBe('│ name  │                price │');
    expect(out.notes).toEqual([
      '1 of 3 columns did not fit the terminal: note — pick columns with --fields, or use -f csv',
    ]);
  });

  it('shortens long text on a terminal but never a number', () => {
    const long = { name: 'N'.repeat(60), price: new JsonNumber('1'.repeat(50)) };
    const out = renderTable([long], [columnOf('name'), columnOf('price')], { color: false, width: 200 });
    expect(out.text).toContain(`│ ${'N'.repeat(26)}…${'N'.repeat(13)} │`);
    expect(out.text).toContain('1'.repeat(50));
    expect(renderTable([long], [columnOf('name')], { color: false }).text).toContain('N'.repeat(60));
  });

  it('aligns wide characters', () => {
    const out = renderTable([{ n: 'トヨタ' }, { n: 'abcdefg' }], [columnOf('n')], { color: false }).text;
    expect(out.split('\n').slice(3, 5)).toEqual(['│ トヨタ  │', '│ abcdefg │']);
  });

  it('makes the header bold only with colour', () => {
    expect(renderTable(rows, cols, { color: true }).text).toContain('\x1b[1mname\x1b[22m');
    expect(renderTable(rows, cols, { color: false }).text).not.toContain('\x1b');
  });

  it('never lets cell text drive the terminal', () => {
    const out = renderTable([{ name: 'evil\x1b]0;title\x07\nrow' }], [columnOf('name')], { color: false });
    expect(out.text).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
    expect(out.text.split('\n')).toHaveLength(6); // 5 lines, then the final newline
  });
});

describe('table layout on a terminal', () => {
  /** A column: text unless `n` (numeric); natural width `w`, header `h` wide (its name's length by default). */
  const col = (name: string, w: number, o: { n?: boolean; h?: number } = {}): LayoutColumn => ({
    name,
    natural: w,
    numeric: o.n === true,
    header: o.h ?? name.length,
  });
  const cols = [
    col('id', 12, { n: true }),
    col('name', 40),
    col('price', 10, { n: true }),
    col('remark', 30, { h: 16 }),
  ];
  const plan = (width: number, rank = [0, 1, 2, 3], keep = 1) => {
    const l = planTable(cols, width, rank, keep);
    return l.kind === 'records'
      ? 'records'
      : `${l.shown.map((i, k) => `${cols[i].name}:${l.widths[k]}`).join(' ')}${l.hidden.length ? ` | hidden ${l.hidden.map((i) => cols[i].name).join(',')}` : ''}`;
  };

  // Widths drawn: natural 1 + 15 + 43 + 13 + 33 = 105; shortest 1 + 15 + 13 + 13 + 19 = 61 (long text
  // down to 10 cells, or its header's width: remark's header is 16 wide).
  it.each([
    ['everything fits as it is', 105, undefined, undefined, 'id:12 name:40 price:10 remark:30'],
    [
      'text shortened before any column goes, the most important first in full',
      104,
      undefined,
      undefined,
      'id:12 name:40 price:10 remark:29',
    ],
    [
      'text down to its shortest, all four kept',
      61,
      undefined,
      undefined,
      'id:12 name:10 price:10 remark:16',
    ],
    [
      'then the least important column goes; the room left widens text again',
      50,
      undefined,
      undefined,
      'id:12 name:18 price:10 | hidden remark',
    ],
    ['importance, not position, decides', 50, [0, 3, 2, 1], 1, 'id:12 price:10 remark:18 | hidden name'],
    [
      'a narrow column still fits where a wider one did not',
      30,
      [0, 3, 2, 1],
      1,
      'id:12 price:10 | hidden name,remark',
    ],
    [
      'key columns that fit only shortened are shortened',
      29,
      [1, 0, 2, 3],
      2,
      'id:12 name:10 | hidden price,remark',
    ],
    ['key columns that cannot fit: records', 28, [1, 0, 2, 3], 2, 'records'],
    ['--fields (all kept) that fit shortened', 61, [0, 1, 2, 3], 4, 'id:12 name:10 price:10 remark:16'],
    ['--fields that do not fit: records, never a column dropped', 60, [0, 1, 2, 3], 4, 'records'],
  ])('%s (width %i)', (_what, width, rank, keep, want) => {
    expect(plan(width, rank, keep)).toBe(want);
  });

  it.each([
    ['an ISIN (12 characters) is never shortened', col('isin', 12), 12],
    ['an event type of 16 is never shortened', col('eventType', 16), 16],
    ['a name of 40: down to its header', col('securityName', 40), 12],
    ['a UUID: down to 10 cells', col('indexId', 36), 10],
    ['a number: never', col('indexShares', 24, { n: true }), 24],
  ])('shortest width: %s', (_what, c, want) => {
    expect(minWidth(c)).toBe(want);
  });

  it('never draws a row wider than the terminal', () => {
    for (let width = 20; width <= 120; width++) {
      const l = planTable(cols, width, [0, 1, 2, 3], 1);
      if (l.kind === 'table') expect(rowWidth(l.widths)).toBeLessThanOrEqual(width);
    }
  });

  it.each([
    [
      'constituent.close',
      ['effectiveDate', 'isin', 'securityName', 'securityTicker', 'closingPrice', 'currency', 'closingFx'],
      3,
      ['isin', 'securityTicker', 'closingPrice', 'securityName', 'currency', 'effectiveDate', 'closingFx'],
    ],
    [
      'constituent.corporateactions',
      ['indexId.Net', 'indexName.Net', 'isin', 'securityTicker', 'eventType', 'status', 'exDate', 'oldPrice'],
      5,
      ['isin', 'securityTicker', 'eventType', 'exDate', 'status', 'oldPrice', 'indexName.Net', 'indexId.Net'],
    ],
    [
      'index',
      ['portfolioId', 'effectiveDate', 'indexId', 'indexName', 'indexValue', 'closeDivisor', 'indexType'],
      3,
      ['portfolioId', 'indexName', 'indexValue', 'effectiveDate', 'indexId', 'closeDivisor', 'indexType'],
    ],
  ] as const)('priorities for %s: key columns first, extra fields last', (type, names, keep, want) => {
    const p = priorities(names, type, false);
    expect(p.keep).toBe(keep);
    expect(p.rank.map((i) => names[i])).toEqual(want);
    expect(priorities(names, type, true)).toEqual({ rank: names.map((_, i) => i), keep: names.length });
  });
});

describe('renderTable on a terminal', () => {
  const row = {
    indexId: { Net: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f601', Price: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f602' },
    isin: 'EU0009654569',
    securityTicker: 'SXER Index',
    eventType: 'Change of Name and Domicile of Incorporation',
    status: 'Confirmed',
    exDate: '2024-05-02',
    oldPrice: new JsonNumber('1034.28004'),
  };
  const names = [
    'indexId.Net',
    'indexId.Price',
    'isin',
    'securityTicker',
    'eventType',
    'status',
    'exDate',
    'oldPrice',
  ];
  const columns = names.map(columnOf);
  const type = 'constituent.corporateactions' as const;
  const header = (text: string) => text.split('\n')[1];

  it('keeps the identifying columns in their own order, shortens text, and names what it left out', () => {
    const out = renderTable([row], columns, { color: false, width: 80, type });
    expect(header(out.text)).toMatch(/^│ isin +│ securityTicker │ eventType +│ status +│ exDate +│$/);
    expect(out.text).toContain('│ Change of Name and… │');
    for (const l of out.text.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(80);
    expect(out.notes).toEqual([
      '3 of 8 columns did not fit the terminal: indexId.Net, indexId.Price, oldPrice — pick columns with --fields, or use -f csv',
    ]);
  });

  it('turns into records when even the identifying columns do not fit', () => {
    const out = renderTable([row, row], columns, { color: false, width: 40, type });
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^─\[ 1 of 2 \]─+$/);
    expect(lines).toContain('isin           │ EU0009654569');
    expect(lines).toContain('oldPrice       │ 1034.28004');
    expect(lines.filter((l) => l.startsWith('indexId.Net '))).toEqual([
      'indexId.Net    │ a3f1c2d4-5b6e-4…4e5f601',
      'indexId.Net    │ a3f1c2d4-5b6e-4…4e5f601',
    ]);
    expect(lines).toHaveLength(2 * (1 + names.length));
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    expect(out.notes).toEqual([]);
  });

  it('--fields: every asked column is shown, in the order asked, or records', () => {
    const picked = [columnOf('oldPrice'), columnOf('indexId.Net'), columnOf('isin')];
    const wide = renderTable([row], picked, { color: false, width: 80, type, picked: true });
    expect(header(wide.text)).toMatch(/^│ +oldPrice │ indexId.Net +│ isin +│$/);
    expect(wide.notes).toEqual([]);
    const narrow = renderTable([row], picked, { color: false, width: 30, type, picked: true });
    expect(narrow.text.split('\n').slice(1, 4)).toEqual([
      'oldPrice    │ 1034.28004',
      'indexId.Net │ a3f1c2d4-5…5f601',
      'isin        │ EU0009654569',
    ]);
    expect(narrow.notes).toEqual([]);
  });
});
