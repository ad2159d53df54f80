/** Rows through the real Parquet writer into a file, read back by DuckDB (an independent reader). */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Row } from '../../src/domain.js';
import { ParquetSpool } from '../../src/render/parquet.js';
import { batchOf } from './rows.js';

/** Each of `answers` as one answer of a ParquetSpool (row groups of `batch` rows), then `read` on the file. */
export async function throughParquet<T>(
  answers: readonly Row[][],
  batch: number,
  read: (con: DuckDBConnection, path: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'prs-parquet-'));
  try {
    const spool = new ParquetSpool(join(dir, 'spool'), { batch });
    for (const rows of answers) {
      const answer = spool.answer();
      answer.rows(batchOf(rows));
      answer.done();
    }
    const path = join(dir, 'x.parquet');
    const out = createWriteStream(path);
    await spool.write(out);
    await new Promise((resolve) => out.end(resolve));
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      return await read(con, path);
    } finally {
      con.closeSync();
      db.closeSync();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
