import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { JsonNumber, type Row } from '../../../src/domain.js';
import { ParquetSpool } from '../../../src/render/parquet.js';
import { epochDay, unscaled } from '../../../src/render/parquet-chunk.js';
import { RowTokenizer } from '../../../src/rows/tokenizer.js';
import { throughParquet } from '../../helpers/parquet.js';
import { batchOf } from '../../helpers/rows.js';

describe('unscaled (a value as its DECIMAL integer at a scale, exact)', () => {
  it.each([
    ['1234567.123456789012', 12, 1234567123456789012n],
    ['0.000000000000000001', 18, 1n],
    ['1E-18', 18, 1n],
    ['6.02214076E+23', 0, 602214076000000000000000n],
    ['-0.0001234567890123456789', 22, -1234567890123456789n],
    ['1.10', 5, 110000n],
    ['-0', 2, 0n],
    ['42', 3, 42000n],
  ])('%s at scale %i → %s', (text, scale, want) =>
    expect(BigInt(unscaled(Buffer.from(text), 0, text.length, scale))).toBe(want),
  );

  it('refuses a scale below the value’s own (it would round)', () => {
    expect(() => unscaled(Buffer.from('1.25'), 0, 4, 1)).toThrow(/more than 1 fraction digits/);
  });
});

describe('epochDay', () => {
  it.each([
    ['1970-01-01', 0],
    ['2024-05-03', 19846],
    ['1969-12-31', -1],
    ['2024-02-30', undefined],
    ['2024-5-3', undefined],
    ['not a date', undefined],
  ])('%s → %s', (s, want) => expect(epochDay(Buffer.from(s))).toBe(want));
});

/** A spool of `answers` (each a list of batches), kept or dropped; then `check` on it, then gone. */
function spooled(
  answers: { batches: (Row[] | string)[]; drop?: boolean; lead?: Row }[],
  check: (s: ParquetSpool) => void,
) {
  const dir = mkdtempSync(join(tmpdir(), 'prs-parquet-'));
  const spool = new ParquetSpool(join(dir, 'spool'));
  try {
    for (const a of answers) {
      const answer = spool.answer(a.lead);
      for (const rows of a.batches)
        answer.rows(typeof rows === 'string' ? new RowTokenizer().push(Buffer.from(rows)) : batchOf(rows));
      if (a.drop) answer.drop();
      else answer.done();
    }
    check(spool);
  } finally {
    spool.discard();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('ParquetSpool columns', () => {
  it('decides each column by all its values', () => {
    const rows = [
      { d: '2024-05-03', n: 1.5, m: 1, s: 'x', b: true, z: null },
      { d: '2024-05-06', n: new JsonNumber('12345678901234567890.25'), m: 'two', s: null, b: false, z: null },
    ];
    spooled([{ batches: [rows] }], (spool) =>
      expect(spool.columns()).toEqual([
        { name: 'd', kind: 'date' },
        { name: 'n', kind: 'decimal', precision: 22, scale: 2 },
        { name: 'm', kind: 'string' },
        { name: 's', kind: 'string' },
        { name: 'b', kind: 'boolean' },
        { name: 'z', kind: 'string' },
      ]),
    );
  });

  it('a column past 38 digits is a UsageError naming it and the value, at the batch that shows it', () => {
    const wide = [[{ x: new JsonNumber('1e30') }], [{ x: new JsonNumber('0.000000001') }]];
    expect(() => spooled([{ batches: wide }], () => {})).toThrow(
      /column x needs DECIMAL\(40,9\) for 0.000000001/,
    );
  });

  it('a dropped answer teaches nothing; a lead leads; nested objects, odd rows and dotted keys', () => {
    const answers = [
      { batches: [[{ gone: 1 }]], drop: true },
      { batches: [[{ a: { b: 1, c: { d: 'x' } }, e: [1] }]], lead: { portfolioId: '7' } },
      // Odd: a key twice (the last counts), a number as a key (JS orders it first), a dotted key that
      // names a nested leaf (one column, the last value).
      { batches: ['[{"2":true,"a":"first","x":1,"a":1}]', [{ 'a.b': 'y', a: { b: 2 } }]] },
    ];
    spooled(answers, (spool) =>
      expect(spool.columns()).toEqual([
        { name: 'portfolioId', kind: 'string' },
        { name: 'a.b', kind: 'decimal', precision: 1, scale: 0 },
        { name: 'a.c.d', kind: 'string' },
        { name: 'e', kind: 'string' },
        { name: '2', kind: 'boolean' },
        { name: 'a', kind: 'decimal', precision: 1, scale: 0 },
        { name: 'x', kind: 'decimal', precision: 1, scale: 0 },
      ]),
    );
  });
});

/** `rows` through a ParquetSpool (row groups of `batch`) and back through DuckDB, as JSON values. */
const roundTrip = (rows: Row[], batch: number): Promise<Record<string, unknown>[]> =>
  throughParquet([rows], batch, async (con, path) => {
    const back = (await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    const stats = await con.runAndReadAll(
      `SELECT stats_min_value, stats_max_value FROM parquet_metadata('${path}') WHERE row_group_id = 0`,
    );
    return [...back, { stats: stats.getRowsJson() }];
  });

describe('ParquetSpool', () => {
  it('DECIMAL in INT32, INT64 (within a double and past it) and FIXED_LEN_BYTE_ARRAY, negatives too; statistics in code point order', async () => {
    const n = (t: string) => new JsonNumber(t);
    const rows = [
      { i32: -7, i64: n('-1234567890.123'), big: n('-12345678901234567.8'), flba: n('-1e-20'), s: 'é' },
      { i32: 2, i64: 4, big: 3, flba: n('123456789012345678.9'), s: '\u{1F600}' },
      { i32: null, i64: n('-0.001'), big: null, flba: null, s: '\uFFFD' },
    ];
    expect(await roundTrip(rows, 3)).toEqual([
      {
        i32: '-7',
        i64: '-1234567890.123',
        big: '-12345678901234567.8',
        flba: '-0.00000000000000000001',
        s: 'é',
      },
      { i32: '2', i64: '4.000', big: '3.0', flba: '123456789012345678.90000000000000000000', s: '\u{1F600}' },
      { i32: null, i64: '-0.001', big: null, flba: null, s: '\uFFFD' },
      {
        stats: [
          ['-7', '2'],
          ['-1234567890.123', '4.000'],
          ['-12345678901234567.8', '3.0'],
          ['-0.00000000000000000001', '123456789012345678.90000000000000000000'],
          ['é', '\u{1F600}'],
        ],
      },
    ]);
  });

  it('columns of mixed kinds: a number keeps its digits as text, an array its JSON, a boolean its word', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prs-parquet-'));
    try {
      const spool = new ParquetSpool(join(dir, 'spool'), { batch: 2 });
      const answer = spool.answer();
      answer.rows(
        batchOf([
          {
            n: new JsonNumber('1.50'),
            m: 1,
            a: [1, new JsonNumber('2.50')],
            b: true,
            mb: true,
            d: '2024-05-03',
          },
          { n: -2, m: 'two', a: null, b: false, mb: 'x', d: null, s: 'a\r\nb\u2028c"' },
          { n: null, m: new JsonNumber('1e400'), a: ['x', { k: 1 }], b: null, mb: null, d: '2024-02-29' },
        ]),
      );
      answer.done();
      const path = join(dir, 'x.parquet');
      const out = createWriteStream(path);
      await spool.write(out);
      await new Promise((resolve) => out.end(resolve));
      expect(existsSync(join(dir, 'spool'))).toBe(false);
      const db = await DuckDBInstance.create(':memory:');
      const con = await db.connect();
      const rows = (await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
      con.closeSync();
      db.closeSync();
      expect(rows).toEqual([
        { n: '1.50', m: '1', a: '[1,2.50]', b: true, mb: 'true', d: '2024-05-03', s: null },
        { n: '-2.00', m: 'two', a: null, b: false, mb: 'x', d: null, s: 'a\r\nb\u2028c"' },
        { n: null, m: '1e400', a: '["x",{"k":1}]', b: null, mb: null, d: '2024-02-29', s: null },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
