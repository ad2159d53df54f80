/**
 * Flattening and number fidelity through the real pipeline: JSON text → the row stream → render() in
 * every format. Every number literal the service sent comes out digit for digit (CSV/TSV cells,
 * JSON/NDJSON re-parsed), and flattening keeps every leaf at its dotted path.
 * (test/unit/render/delimited.test.ts round-trips plain cells through csv-parse; lossless.test.ts
 * checks the parser alone.)
 */
import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber, numberText, type Row } from '../../../src/domain.js';
import { cellText, flatten, isNested } from '../../../src/render/columns.js';
import { parseJson } from '../../helpers/json.js';
import { numberLiteral } from '../../helpers/json-arbitraries.js';
import { render } from '../../helpers/rows.js';

/** JSON number literals, many that a double cannot hold. */
const literal = numberLiteral(['0.1', '1.0', '100', '0.500998']);
/** Keys without dots (the dotted path is the column name) and not empty. */
const key = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,7}$/);
const leafText = fc.oneof(
  literal,
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('null', 'true', 'false', '[]', '[1,2]'),
);
/** A row as JSON text, nested up to two levels (indexId.Net, oldShares.Price). */
const rowText: fc.Arbitrary<string> = fc
  .uniqueArray(
    fc.tuple(
      key,
      fc.oneof(
        { weight: 3, arbitrary: leafText },
        {
          weight: 1,
          arbitrary: fc
            .uniqueArray(fc.tuple(key, leafText), { minLength: 1, maxLength: 4, selector: ([k]) => k })
            .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
        },
      ),
    ),
    { minLength: 1, maxLength: 8, selector: ([k]) => k },
  )
  .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
const rowsText = fc
  .array(rowText, { minLength: 1, maxLength: 5 })
  .map((rows) => `{"report":[${rows.join(',')}]}`);

/** Leaves of a parsed row as [dotted path, value], walking nested objects like the renderers do. */
function leaves(o: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(o).flatMap(([k, v]) =>
    isNested(v) && Object.keys(v).length > 0
      ? leaves(v, `${prefix}${k}.`)
      : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}
const base = { type: 'index' as const, multi: false, color: false, terminal: false, width: 80 };

describe('flattening and number fidelity', () => {
  it('[R-P05] flatten keeps every leaf at its dotted path and adds nothing (property)', () => {
    fc.assert(
      fc.property(rowText, (text) => {
        const row = parseJson(text) as Row;
        expect(Object.entries(flatten(row))).toEqual(leaves(row));
      }),
    );
  });

  it('[R-P06] every number literal survives json, ndjson, csv and tsv digit for digit (property)', () => {
    fc.assert(
      fc.property(rowsText, (text) => {
        const rows = (parseJson(text) as { report: Row[] }).report;
        const isNum = (v: unknown) => typeof v === 'number' || v instanceof JsonNumber;
        const expected = rows.map((r) => leaves(r).map(([k, v]) => [k, cellText(v), isNum(v)] as const));
        const numbers = rows.flatMap((r) =>
          leaves(r)
            .map(([, v]) => v)
            .filter((v): v is number | JsonNumber => typeof v === 'number' || v instanceof JsonNumber)
            .map(numberText),
        );
        // JSON and NDJSON: re-parsed losslessly, the same rows with the same literals.
        const json = render({ ...base, format: 'json', rows }).text;
        expect(parseJson(json)).toEqual(rows);
        const ndjson = render({ ...base, format: 'ndjson', rows }).text;
        expect(
          ndjson
            .trimEnd()
            .split('\n')
            .map((l) => parseJson(l)),
        ).toEqual(rows);
        for (const n of numbers) expect(json).toContain(n);
        // CSV through a real parser: header = the union of dotted paths, each cell the exact text.
        const csv = parseCsv(render({ ...base, format: 'csv', rows }).text, {
          relax_column_count: false,
        }) as string[][];
        const [header, ...body] = csv;
        for (const [i, row] of expected.entries()) {
          for (const [k, cell] of row) expect(body[i]![header!.indexOf(k)]).toBe(cell);
        }
        // TSV: the same cells (numbers never need escaping).
        const tsv = render({ ...base, format: 'tsv', rows })
          .text.trimEnd()
          .split('\n')
          .map((l) => l.split('\t'));
        for (const [i, row] of expected.entries()) {
          for (const [k, v, num] of row) if (num) expect(tsv[i + 1]![tsv[0]!.indexOf(k)]).toBe(v);
        }
      }),
      { numRuns: 300 },
    );
  });
});
