/**
 * One report answer read from its body's chunks through the tokenizer: rows to `sink.rows` as they
 * complete, the bytes to `sink.bytes` as they come (--raw, the answer cache). Memory: one chunk and
 * one row (tokenizer.ts), whatever the answer's size.
 */
import type { Row } from '../domain.js';
import { MalformedBody, RowTokenizer } from './tokenizer.js';

export interface RowSink {
  /** Rows as they complete: one batch per chunk of the body (never an empty one). */
  rows?(rows: Row[]): void;
  /** The body's bytes as they arrive (decoded: no Content-Encoding left). */
  bytes?(chunk: Buffer): void;
}

/**
 * Reads `chunks` to their end: the number of rows, once the whole body is a report. A body that is
 * not rejects with `malformed(why)`'s error; a read that fails (a body cut off) with that failure.
 * A body found wrong beyond repair stops being read there (an HTML page is not read to its end).
 */
export async function readAnswer(
  chunks: AsyncIterable<Uint8Array>,
  sink: RowSink,
  malformed: (m: MalformedBody) => Error,
): Promise<number> {
  const t = new RowTokenizer();
  let count = 0;
  const take = (rows: Row[]) => {
    if (rows.length === 0) return;
    count += rows.length;
    sink.rows?.(rows);
  };
  try {
    for await (const chunk of chunks) {
      const c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      sink.bytes?.(c);
      take(t.push(c));
      if (t.failed) break;
    }
    take(t.end());
  } catch (err) {
    throw err instanceof MalformedBody ? malformed(err) : err;
  }
  return count;
}

/** Every row of an answer (for what needs them all at once: a diff, the tests). */
export async function collectRows(res: { read(sink: RowSink): Promise<number> }): Promise<Row[]> {
  const all: Row[] = [];
  await res.read({
    rows(rows) {
      for (const row of rows) all.push(row);
    },
  });
  return all;
}
