// Each format's text for one set of rows, through the writers (src/render/writer.ts).
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { UsageError } from '../../../src/errors.js';
import { type RenderRequest, render } from '../../helpers/rows.js';

const base: RenderRequest = {
  type: 'constituent.corporateactions',
  format: 'json',
  rows: [],
  multi: false,
  color: false,
  terminal: false,
  width: 80,
};
const ca = {
  indexId: { Net: 'N1', Price: 'P1', Total: 'T1' },
  isin: 'DE0001',
  sedol: null,
  oldShares: { Price: new JsonNumber('12345678901234567890'), Total: 2, Net: 3 },
};

describe('render', () => {
  it.each<[string, Partial<RenderRequest>, string]>([
    [
      'json, compact',
      { rows: [ca] },
      '[{"indexId":{"Net":"N1","Price":"P1","Total":"T1"},"isin":"DE0001","sedol":null,"oldShares":{"Price":12345678901234567890,"Total":2,"Net":3}}]\n',
    ],
    [
      'json with --fields',
      { rows: [ca], fields: ['isin', 'oldShares.Price'] },
      '[{"isin":"DE0001","oldShares.Price":12345678901234567890}]\n',
    ],
    ['ndjson', { format: 'ndjson', rows: [{ a: 1 }, { a: 2 }] }, '{"a":1}\n{"a":2}\n'],
    [
      'several portfolios with --fields: portfolioId still leads',
      { format: 'csv', multi: true, rows: [{ portfolioId: 7, ...ca }], fields: ['isin'] },
      'portfolioId,isin\n7,DE0001\n',
    ],
    [
      'several portfolios, --fields placing portfolioId itself',
      { format: 'csv', multi: true, rows: [{ portfolioId: 7, ...ca }], fields: ['isin', 'portfolioId'] },
      'isin,portfolioId\nDE0001,7\n',
    ],
    [
      'csv flattens nested objects',
      { format: 'csv', rows: [ca] },
      'indexId.Net,indexId.Price,indexId.Total,isin,sedol,oldShares.Price,oldShares.Total,oldShares.Net\nN1,P1,T1,DE0001,,12345678901234567890,2,3\n',
    ],
    [
      'csv with --fields prefix',
      { format: 'csv', rows: [ca], fields: ['indexId', 'isin'] },
      'indexId.Net,indexId.Price,indexId.Total,isin\nN1,P1,T1,DE0001\n',
    ],
    ['tsv', { format: 'tsv', rows: [{ a: 'x\ty', b: null }] }, 'a\tb\nx\\ty\t\n'],
    [
      'several portfolios: portfolioId leads',
      { format: 'csv', type: 'index', multi: true, rows: [{ portfolioId: 7, indexValue: 1 }] },
      'portfolioId,indexValue\n7,1\n',
    ],
    ['no rows: json []', {}, '[]\n'],
    ['no rows: ndjson nothing', { format: 'ndjson' }, ''],
    ['no rows: table nothing', { format: 'table' }, ''],
    [
      'no rows: csv header of the spec columns',
      { format: 'csv', type: 'index' },
      'effectiveDate,indexId,indexName,indexValue,currency,closeMarketValue,openMarketValue,closeDivisor,openDivisor\n',
    ],
    [
      'no rows, several portfolios',
      { format: 'tsv', type: 'index', multi: true, fields: ['portfolioId', 'indexValue'] },
      'portfolioId\tindexValue\n',
    ],
  ])('%s', (_n, o, want) => {
    expect(render({ ...base, ...o }).text).toBe(want);
  });

  it('table: spec order, nested columns dotted, numbers right-aligned', () => {
    const { text } = render({ ...base, format: 'table', rows: [ca] });
    const header = text.split('\n')[1];
    expect(header.indexOf('indexId.Net')).toBeLessThan(header.indexOf('isin'));
    expect(header.indexOf('isin')).toBeLessThan(header.indexOf('oldShares.Price'));
    expect(text).toContain('│ 12345678901234567890 │');
  });

  it('table on a terminal fits the width and notes what it left out', () => {
    const out = render({ ...base, format: 'table', rows: [ca], terminal: true, width: 60 });
    expect(Math.max(...out.text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(out.notes[0]).toMatch(/columns did not fit the terminal/);
  });

  it('json on a terminal is indented', () => {
    expect(render({ ...base, rows: [{ a: 1 }], terminal: true }).text).toBe('[\n  {\n    "a": 1\n  }\n]\n');
  });

  it('an unknown field is a UsageError', () => {
    expect(() => render({ ...base, format: 'csv', rows: [ca], fields: ['isni'] })).toThrow(UsageError);
  });
});
