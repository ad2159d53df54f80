import { describe, expect, it } from 'vitest';
import { basisPoints, diffColumns, diffTable, diffWriter } from '../../../src/diff/output.js';
import { JsonNumber, type ReportFormat } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';

const n = (raw: string) => new JsonNumber(raw);
const rows = [
  { change: 'changed', isin: 'A', field: 'closingPrice', from: n('1.5'), to: n('2'), delta: n('0.5') },
  {
    change: 'changed',
    isin: 'A',
    field: 'indexWeighting',
    from: n('0.1'),
    to: n('0.1025'),
    delta: n('0.0025'),
  },
  {
    change: 'added',
    isin: 'GB1',
    securityTicker: 'ORN NA',
    field: 'securityName',
    from: null,
    to: 'Orion, "M"',
    delta: null,
  },
];
const base = { lead: [], key: ['isin'], terminal: false, color: false, width: 80 };

describe('diff output', () => {
  it('columns: lead, change, every key field seen, field, from, to, delta', () => {
    expect(diffColumns(rows, ['portfolioId'], ['isin']).map((c) => c.name)).toEqual([
      'portfolioId',
      'change',
      'isin',
      'securityTicker',
      'field',
      'from',
      'to',
      'delta',
    ]);
    expect(diffColumns([], [], ['eventId']).map((c) => c.name)).toEqual([
      'change',
      'eventId',
      'field',
      'from',
      'to',
      'delta',
    ]);
  });

  it.each([
    ['indexWeighting', n('0.0025'), '25'],
    ['weight', n('-0.00001'), '-0.1'],
    ['closingPrice', n('0.5'), null],
    ['indexWeighting', null, null],
  ])('basis points of %s %j: %s', (field, delta, want) => {
    expect(basisPoints(field, delta)?.raw ?? null).toBe(want);
  });

  it.each<[ReportFormat, string[], string]>([
    [
      'ndjson',
      [
        '{"change":"changed","isin":"A","field":"closingPrice","from":1.5,"to":2,"delta":0.5}\n',
        '{"change":"changed","isin":"A","field":"indexWeighting","from":0.1,"to":0.1025,"delta":0.0025}\n{"change":"added","isin":"GB1","securityTicker":"ORN NA","field":"securityName","from":null,"to":"Orion, \\"M\\"","delta":null}\n',
      ],
      '',
    ],
    [
      'json',
      [
        '[{"change":"changed","isin":"A","field":"closingPrice","from":1.5,"to":2,"delta":0.5}',
        ',{"change":"changed"',
      ],
      ']\n',
    ],
    [
      'csv',
      ['', ''],
      'change,isin,securityTicker,field,from,to,delta\nchanged,A,,closingPrice,1.5,2,0.5\nchanged,A,,indexWeighting,0.1,0.1025,0.0025\nadded,GB1,ORN NA,securityName,,"Orion, ""M""",\n',
    ],
    [
      'tsv',
      ['', ''],
      'change\tisin\tsecurityTicker\tfield\tfrom\tto\tdelta\nchanged\tA\t\tclosingPrice\t1.5\t2\t0.5\nchanged\tA\t\tindexWeighting\t0.1\t0.1025\t0.0025\nadded\tGB1\tORN NA\tsecurityName\t\tOrion, "M"\t\n',
    ],
  ])('%s: streamed per pair where it can be', (format, perPair, end) => {
    const w = diffWriter({ ...base, format });
    const a = w.add(rows.slice(0, 1));
    const b = w.add(rows.slice(1));
    expect(a.startsWith(perPair[0]!)).toBe(true);
    expect(b.startsWith(perPair[1]!)).toBe(true);
    expect(w.end(base.key).text).toBe(end);
  });

  it.each<[ReportFormat, string]>([
    ['json', '[]\n'],
    ['ndjson', ''],
    ['csv', 'change,isin,field,from,to,delta\n'],
    ['tsv', 'change\tisin\tfield\tfrom\tto\tdelta\n'],
  ])('%s with no changes: %j', (format, want) => {
    const w = diffWriter({ ...base, format });
    expect(w.add([])).toBe('');
    expect(w.end(base.key).text).toBe(want);
  });

  it('json on a terminal: indented as the whole array would be, with escapes and nested values kept', () => {
    const odd = [
      ...rows,
      {
        change: 'removed',
        isin: 'Z\n"q"',
        field: 'indexId',
        from: { Net: n('1e-7') },
        to: null,
        delta: null,
      },
    ];
    const w = diffWriter({ ...base, format: 'json', terminal: true });
    const text = w.add(odd.slice(0, 2)) + w.add(odd.slice(2)) + w.end(base.key).text;
    expect(text).toBe(`${stringifyLossless(odd, 2)}\n`);
    expect(text).toContain('"from": {\n      "Net": 1e-7\n    }');
  });

  it('table: a row’s changes grouped (key cells once), weight deltas in basis points', () => {
    const { text } = diffTable(rows, base);
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/│ change +│ isin +│ securityTicker +│ field +│ from +│ to +│ +delta │ +bp │/);
    expect(lines[3]).toMatch(/^│ changed │ A +│ +│ closingPrice +│ +1\.5 │ 2 +│ +0\.5 │ +│$/);
    expect(lines[4]).toMatch(/^│ +│ +│ +│ indexWeighting │ +0\.1 │ 0\.1025 +│ +0\.0025 │ +25 │$/);
    expect(lines[5]).toMatch(/^│ added +│ GB1 +│ ORN NA +│ securityName/);
    expect(diffTable([], base)).toEqual({ text: '', notes: ['no changes'] });
  });

  it('table on a terminal too narrow: drawn whole (no digit cut, no column left out), and said', () => {
    const long = [
      {
        change: 'changed',
        isin: 'A',
        field: 'indexWeighting',
        from: n('0.07319304666056724611'),
        to: n('0.09649122807017543859'),
        delta: n('0.02329818140960819248'),
      },
      rows[2]!,
    ];
    const { text, notes } = diffTable(long, { ...base, terminal: true, width: 60 });
    expect(text).not.toContain('…');
    for (const digits of ['0.07319304666056724611', '0.09649122807017543859', '232.9818140960819248'])
      expect(text).toContain(digits);
    expect(notes).toEqual([
      expect.stringMatching(/^the table is \d+ columns wide, the terminal 60: widen it, or use -f csv$/),
    ]);
    expect(diffTable(long, { ...base, terminal: true, width: 400 }).notes).toEqual([]);
  });
});
