import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/json/lossless.js';
import { columnOf } from '../../../src/render/columns.js';
import {
  displayWidth,
  fittingColumns,
  isNumericColumn,
  printable,
  renderTable,
  truncate,
} from '../../../src/render/table.js';

describe('table helpers', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['longer than ten', 10, 'longer th…'],
    ['😀😀😀', 3, '😀…'],
    ['トヨタ自動車', 6, 'トヨ…'],
  ])('truncate(%j, %i) = %j', (s, max, want) => {
    expect(truncate(s, max)).toBe(want);
  });

  it.each([
    [[10, 10, 10], 80, 3],
    [[10, 10, 10], 27, 2], // 1 + 13 + 13 = 27 fits two
    [[10, 10, 10], 26, 1],
    [[100], 20, 1], // always at least one
    [[], 80, 0],
  ])('fittingColumns(%j, %i) = %i', (widths, width, want) => {
    expect(fittingColumns(widths, width)).toBe(want);
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
    expect(out.text).toContain(`${'N'.repeat(39)}…`);
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
