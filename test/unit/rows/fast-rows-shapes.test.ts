/**
 * fast-rows.wat's 16-byte loops at their edges: rows laid out alike (the loop's case) with a value of
 * every tricky shape moved across a 16-byte boundary by a padding field, in compact and spaced bodies,
 * cut into two chunks at every offset; each writer's output against what the rows as objects give (each
 * row read alone by the general descent, its shape checked against JSON.parse).
 */
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { cellText, seenColumns, valueAt } from '../../../src/render/columns.js';
import { csvCell, delimitedHeader, tsvCell } from '../../../src/render/delimited.js';
import type { WriterFormat } from '../../../src/render/writer.js';
import { RowTokenizer } from '../../../src/rows/tokenizer.js';
import { rowsOf, writtenAs } from '../../helpers/rows.js';

const values = [
  '"a\\"b"',
  '"\\\\"',
  '"\\\\\\""',
  '"x\\\\"',
  `"${'\\\\'.repeat(9)}"`,
  `"${'\\\\'.repeat(8)}\\""`,
  '"a b\\t c"',
  '"é"',
  '"日本"',
  '"😀x"',
  '"\u2028"',
  `"${'é'.repeat(9)}"`,
  `"${'x'.repeat(15)}"`,
  `"${'x'.repeat(16)}"`,
  `"${'x'.repeat(17)}"`,
  '" , : { } [ ] "',
  '"  "',
  '""',
  '-0',
  '-12.50',
  '1e5',
  '-1.5E-3',
  '1E+2',
  '0.000000000000001',
  '123456789012345.5',
  '1234567890123456',
  '12345678901234567890.123456789',
  '-123456789012345678901234567890e-20',
  'true',
  'false',
  'null',
];

const row = (pad: number, v: string, spaced: boolean | 'tabs') =>
  spaced === 'tabs'
    ? `{\r\n\t"p" :\t"${'x'.repeat(pad)}" ,\r\n\t"v":${v}\t,"n": 1\r\n}`
    : spaced
      ? `{"p": "${'x'.repeat(pad)}", "v": ${v}, "n": 1}`
      : `{"p":"${'x'.repeat(pad)}","v":${v},"n":1}`;

function reference(format: WriterFormat, rows: Row[]): string {
  if (format === 'ndjson') return rows.map((r) => `${stringifyLossless(r)}\n`).join('');
  if (format === 'json') return `${stringifyLossless(rows)}\n`;
  const cell = format === 'csv' ? csvCell : tsvCell;
  const columns = seenColumns(rows);
  const lines = rows.map((r) =>
    columns.map((c) => cell(cellText(valueAt(r, c.path)))).join(format === 'csv' ? ',' : '\t'),
  );
  return `${delimitedHeader(columns, format as 'csv')}\n${lines.map((l) => `${l}\n`).join('')}`;
}

describe('fast-rows.wat: a value of each shape at every position of a 16-byte load', () => {
  it.each(values)('%s', (v) => {
    for (const spaced of [false, true, 'tabs' as const])
      for (let pad = 0; pad < 18; pad++) {
        const texts = [
          row(pad, '"t"', spaced),
          row(pad, v, spaced),
          row(pad + 1, v, spaced),
          row(pad, v, spaced),
        ];
        const body = `{"report": [${texts.join(spaced === 'tabs' ? ',\r\n ' : spaced ? ', ' : ',')}]}`;
        expect(JSON.parse(body).report[1].v).toEqual(JSON.parse(v));
        const rows = texts.map((t) => (rowsOf(`[${t}]`) as Row[])[0]!);
        const bytes = Buffer.from(body);
        for (const cut of [0, 40, 57, bytes.length - 9]) {
          const t = new RowTokenizer();
          const got = [...t.push(bytes.subarray(0, cut)).objects(), ...t.push(bytes.subarray(cut)).objects()];
          expect(stringifyLossless([...got, ...t.end().objects()]), `objects cut ${cut}`).toBe(
            stringifyLossless(rows),
          );
        }
        for (const format of ['json', 'ndjson', 'csv', 'tsv'] as const) {
          const want = Buffer.from(reference(format, rows)).toString();
          expect(writtenAs(format, [bytes], rows), `${format} pad ${pad} spaced ${spaced}`).toBe(want);
          if (format !== 'ndjson' || ![0, 1, 14, 15, 16].includes(pad)) continue;
          // Every cut is written and compared; the ones that differ are asserted at once (an expect per
          // cut was most of this file's CPU).
          const wrong: string[] = [];
          for (let cut = 1; cut < bytes.length; cut++) {
            const got = writtenAs(format, [bytes.subarray(0, cut), bytes.subarray(cut)], rows);
            if (got !== want) wrong.push(`cut ${cut} pad ${pad}: ${got}`);
          }
          expect(wrong).toEqual([]);
        }
      }
  });
});
