// CSV (RFC 4180 quoting, LF as jq's @csv) and TSV (escapes as jq's @tsv and PostgreSQL's text format).
import type { Row } from '../domain.js';
import { F, keys, type RowBatch } from '../rows/tape.js';
import { borrowFast, FREE } from '../rows/tokenizer.js';
import type { Bytes } from './bytes.js';
import { type Column, cellText, isNested, valueAt } from './columns.js';

const CSV_SPECIAL = /[",\n\r]/;

export function csvCell(s: string): string {
  return CSV_SPECIAL.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

const TSV_SPECIAL = /[\\\t\n\r]/;

export function tsvCell(s: string): string {
  return TSV_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (m) => TSV_ESCAPES[m]) : s;
}

export function delimitedHeader(columns: readonly Column[], kind: 'csv' | 'tsv'): string {
  const cell = kind === 'csv' ? csvCell : tsvCell;
  return columns.map((c) => cell(c.name)).join(kind === 'csv' ? ',' : '\t');
}

/** Fields a writer puts before each row's own (several portfolios' `portfolioId`), made once. */
export interface Lead {
  row: Row;
  ids: number[];
  /** JSON.stringify's text of the object, without its braces. */
  text: string;
}

/** Absent and null values are empty cells. The rows whose leaves were not the columns in order, as objects. */
export function writeDelimited(
  out: Bytes,
  batch: RowBatch,
  columns: readonly Column[],
  kind: 'csv' | 'tsv',
  lead?: Lead,
): Row[] {
  const csv = kind === 'csv';
  const sep = csv ? 44 : 9;
  const cell = csv ? csvCell : tsvCell;
  const n = columns.length;
  const ids = new Int32Array(columns.map((c) => keys.path(c.path)));
  // Where a row lacks a lead field: the lead's cell.
  const leadCells = columns.map((c) =>
    lead && c.path.length === 1 && Object.hasOwn(lead.row, c.name)
      ? Buffer.from(cell(cellText(lead.row[c.name])))
      : undefined,
  );
  const odd: Row[] = [];
  const lines = linesOf(batch, ids, sep, leadCells, lead?.ids ?? []);
  for (let r = lines(out, 0); r < batch.length; r = lines(out, r + 1)) {
    const line = out.n;
    const row = batch.object(r, lead?.row);
    odd.push(row);
    for (let c = 0; c < n; c++) {
      if (c > 0) out.byte(sep);
      // A nested object's leaves are their own columns: one it extends (`name` beside `name.Price`) is empty.
      const v = valueAt(row, columns[c]!.path);
      if (!isNested(v) || Object.keys(v).length === 0) out.text(cell(cellText(v)));
    }
    // A lone empty cell would be a blank line, which CSV readers skip: quote it.
    if (csv && n === 1 && out.n === line) out.text('""');
    out.byte(10);
  }
  return odd;
}

/** The usual rows by fast-rows.wat: `lines(out, r)` writes rows from `r` on, gives the first it did not. */
function linesOf(
  batch: RowBatch,
  ids: Int32Array,
  sep: number,
  leadCells: (Buffer | undefined)[],
  leadIds: readonly number[],
) {
  const { b, tape: t, at } = batch;
  const first = at[0]!;
  const entries = t[at[at.length - 1]! + F.NEXT]! - first;
  const from = t[first + F.START]!;
  const bytes = t[at[at.length - 1]! + F.END]! - from;
  let leadBytes = 0;
  for (const c of leadCells) leadBytes += c?.length ?? 0;
  const rowsAt = FREE + 4 * entries;
  const idsAt = rowsAt + 4 * at.length;
  const fixedAt = idsAt + 4 * ids.length;
  const leadIdsAt = fixedAt + 8 * ids.length;
  const cellsAt = leadIdsAt + 4 * leadIds.length;
  const bodyAt = cellsAt + leadBytes;
  const outAt = (bodyAt + bytes + 7) & ~7;
  const w = borrowFast(outAt + bytes + at.length * (3 * ids.length + 1 + leadBytes));
  const memory = w.memory.buffer;
  const u8 = new Uint8Array(memory);
  new Int32Array(memory, FREE, entries).set(t.subarray(first, first + entries));
  new Int32Array(memory, rowsAt, at.length).set(at);
  new Int32Array(memory, idsAt, ids.length).set(ids);
  const fixed = new Int32Array(memory, fixedAt, 2 * ids.length);
  for (let c = 0, at = cellsAt; c < ids.length; c++) {
    const cell = leadCells[c];
    fixed[2 * c] = at;
    fixed[2 * c + 1] = cell ? cell.length : -1;
    if (cell) u8.set(cell, at);
    at += cell?.length ?? 0;
  }
  new Int32Array(memory, leadIdsAt, leadIds.length).set(leadIds);
  u8.set(b.subarray(from, from + bytes), bodyAt);
  return (out: Bytes, r: number): number => {
    const done = w.delimited(
      rowsAt + 4 * r,
      at.length - r,
      FREE - 4 * first,
      bodyAt - from,
      idsAt,
      ids.length,
      sep,
      outAt,
      fixedAt,
      leadIdsAt,
      leadIds.length,
    );
    out.copy(u8, outAt, w.end.value);
    return r + done;
  };
}
