/** Whole bodies and row arrays through the real row stream and writers, for tests that hold them all at once. */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Row } from '../../src/domain.js';
import { stringifyLossless } from '../../src/json/lossless.js';
import { type Column, seenColumns } from '../../src/render/columns.js';
import { createWriter, type WriterFormat, type WriterOptions } from '../../src/render/writer.js';
import { NO_ROWS, type RowBatch } from '../../src/rows/tape.js';
import { MalformedBody, RowTokenizer } from '../../src/rows/tokenizer.js';

/** Rows that are objects already as a batch: through their JSON text, as a body's. */
export function batchOf(rows: readonly Row[]): RowBatch {
  if (rows.length === 0) return NO_ROWS;
  return new RowTokenizer().push(Buffer.from(`[${rows.map((r) => stringifyLossless(r)).join(',')}]`));
}

/** A body's parts through one tokenizer and a `format` writer over `rows`' columns, as a report writes them. */
export function writtenAs(format: WriterFormat, parts: readonly Buffer[], rows: readonly Row[]): string {
  const columns = seenColumns(rows);
  const w = createWriter({ format, columns: () => columns });
  const a = w.answer('one');
  const t = new RowTokenizer();
  let out = '';
  for (const part of parts) out += String(a.rows(t.push(part)));
  out += String(a.rows(t.end()));
  a.done();
  return out + String(w.end().text);
}

/** The rows of a whole body as objects, or why it is not a report. */
export function rowsOf(body: string | Uint8Array): Row[] | string {
  const t = new RowTokenizer();
  try {
    const rows = t.push(typeof body === 'string' ? Buffer.from(body) : body).objects();
    return rows.concat(t.end().objects());
  } catch (err) {
    if (err instanceof MalformedBody) return err.why;
    throw err;
  }
}

export type RenderRequest = WriterOptions & { rows: readonly Row[] };

/** All of `r.rows` as one answer through the report's writer: the output, and the notes for stderr. */
export function render(r: RenderRequest): { text: string; notes: string[] } {
  const w = createWriter(r);
  const a = w.answer();
  const text = a.rows(batchOf(r.rows));
  a.done();
  const end = w.end();
  return { text: String(text) + String(end.text), notes: [...end.warnings, ...end.notes] };
}

/** A header line of `columns`, then one line per row, through the CSV/TSV writer. */
export function renderDelimited(
  rows: readonly Row[],
  columns: readonly Column[],
  kind: 'csv' | 'tsv',
): string {
  const w = createWriter({ format: kind, columns: () => [...columns] });
  const a = w.answer();
  const text = String(a.rows(batchOf(rows)));
  a.done();
  return text + String(w.end().text);
}

/** The answer spools process `pid` holds open, as /proc names their files (Linux); none once it ended. */
export function openSpools(pid: number): string[] {
  const dir = `/proc/${pid}/fd`;
  try {
    return readdirSync(dir)
      .map((fd) => {
        try {
          return readlinkSync(join(dir, fd));
        } catch {
          return '';
        }
      })
      .filter((file) => file.includes('/.prs-answer.'));
  } catch {
    return [];
  }
}
