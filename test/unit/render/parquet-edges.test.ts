/**
 * ParquetSpool at its edges, read back through DuckDB: values repeated (dictionary pages), a column of
 * nulls only, a row group of nulls only, -0, dates before 1970, multibyte strings, nested objects as
 * dotted columns, exactly one row group's rows and one more; each row group's statistics.
 */
import { describe, expect, it } from 'vitest';
import { JsonNumber, type Row } from '../../../src/domain.js';
import { throughParquet } from '../../helpers/parquet.js';

const roundTrip = (answers: Row[][], batch: number) =>
  throughParquet(answers, batch, async (con, path) => {
    const back = (await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    const stats = (
      await con.runAndReadAll(
        `SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count, row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id, column_id`,
      )
    ).getRowObjectsJson();
    const schema = (
      await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)
    ).getRowObjectsJson();
    return { back, stats, schema };
  });

const n = (t: string) => new JsonNumber(t);
describe('ParquetSpool at its edges', () => {
  it('5,001 rows in groups of 5,000: repeated values, nulls, -0, dates, nested; values and statistics', async () => {
    const rows: Row[] = Array.from({ length: 5001 }, (_, i) => ({
      s: i % 3 === 0 ? 'é日本' : i % 3 === 1 ? 'a' : null,
      d: i % 4 === 0 ? '2024-05-03' : i % 4 === 1 ? '1969-12-31' : null,
      x: n(i % 5 === 0 ? '-0' : i % 5 === 1 ? '1.50' : i % 5 === 2 ? '-2' : '0.001'),
      z: null,
      b: i % 2 === 0,
      u: i < 40 ? `v${i}` : 'same',
      o: { p: i % 7 === 0 ? null : n(`${i}.5`), q: 'k' },
    }));
    const { back, stats, schema } = await roundTrip([rows], 5000);
    expect(schema.map((c) => `${c.column_name} ${c.column_type}`)).toEqual([
      's VARCHAR',
      'd DATE',
      'x DECIMAL(4,3)',
      'z VARCHAR',
      'b BOOLEAN',
      'u VARCHAR',
      'o.p DECIMAL(5,1)',
      'o.q VARCHAR',
    ]);
    const bounds = stats.map((s) => [
      s.row_group_id,
      s.path_in_schema,
      s.stats_min_value,
      s.stats_max_value,
      s.stats_null_count,
    ]);
    expect(bounds).toEqual([
      ['0', 's', 'a', 'é日本', '1666'],
      ['0', 'd', '1969-12-31', '2024-05-03', '2500'],
      ['0', 'x', '-2.000', '1.500', '0'],
      ['0', 'z', null, null, '5000'],
      ['0', 'b', 'false', 'true', '0'],
      ['0', 'u', 'same', 'v9', '0'],
      ['0', 'o.p', '1.5', '4999.5', '715'],
      ['0', 'o.q', 'k', 'k', '0'],
      ['1', 's', null, null, '1'],
      ['1', 'd', '2024-05-03', '2024-05-03', '0'],
      ['1', 'x', '0.000', '0.000', '0'],
      ['1', 'z', null, null, '1'],
      ['1', 'b', 'true', 'true', '0'],
      ['1', 'u', 'same', 'same', '0'],
      ['1', 'o.p', '5000.5', '5000.5', '0'],
      ['1', 'o.q', 'k', 'k', '0'],
    ]);
    expect(back.length).toBe(5001);
    // DuckDB prints a DECIMAL at its column's scale.
    const x = { '-0': '0.000', '1.50': '1.500', '-2': '-2.000', '0.001': '0.001' };
    expect(back).toEqual(
      Array.from({ length: 5001 }, (_, i) => ({
        s: i % 3 === 0 ? 'é日本' : i % 3 === 1 ? 'a' : null,
        d: i % 4 === 0 ? '2024-05-03' : i % 4 === 1 ? '1969-12-31' : null,
        x: Object.values(x)[Math.min(i % 5, 3)],
        z: null,
        b: i % 2 === 0,
        u: i < 40 ? `v${i}` : 'same',
        'o.p': i % 7 === 0 ? null : `${i}.5`,
        'o.q': 'k',
      })),
    );
  });
});
