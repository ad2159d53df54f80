/**
 * CSV (RFC 4180 quoting, records end with LF as jq's @csv) and TSV (backslash, tab, LF and CR escaped,
 * as jq's @tsv and PostgreSQL's text format), from the rows' bytes where they can be copied.
 */
import type { Row } from '../domain.js';
import { F, Flag, Kind, keys, type RowBatch } from '../rows/tape.js';
import { type FastRows, loadFast } from '../rows/tokenizer.js';
import type { Bytes } from './bytes.js';
import { type Column, cellText, valueAt } from './columns.js';

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

/**
 * Absent and null values are empty cells. True when every row's leaves were the columns, in order and
 * nothing else (then no row has a column outside them).
 */
export function writeDelimited(
  out: Bytes,
  batch: RowBatch,
  columns: readonly Column[],
  kind: 'csv' | 'tsv',
  lead?: Lead,
): boolean {
  const { b, tape: t, at } = batch;
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
  let leadBytes = 0;
  if (lead) for (const c of leadCells) leadBytes += c?.length ?? 0;
  let exact = true;
  const lines = lead || at.length === 0 ? undefined : linesOf(batch, ids, sep);
  for (let r = 0; r < at.length; r++) {
    if (lines) {
      r = lines(out, r);
      if (r === at.length) break;
    }
    const e = at[r]!;
    const line = out.n;
    const last = t[e + F.NEXT]!;
    // The usual row, in one loop: its leaves are the columns in order, each copied as it came.
    if (!(t[e + F.FLAGS]! & Flag.ODD)) {
      out.room(t[e + F.END]! - t[e + F.START]! + 3 * n + 1 + leadBytes);
      const buf = out.buf;
      let o = line;
      let m = e + F.W;
      let c = 0;
      for (; c < n; c++) {
        if (c > 0) buf[o++] = sep;
        const fixed = lead ? leadCells[c] : undefined;
        if (fixed !== undefined) {
          for (let i = 0; i < fixed.length; i++) buf[o++] = fixed[i]!;
          continue;
        }
        // Into nested objects; not a lead field's: the row's object is then the lead column's cell.
        while (
          m < last &&
          t[m] === Kind.OBJ &&
          t[m + F.NEXT] !== m + F.W &&
          !lead?.ids.includes(t[m + F.KEY]!)
        )
          m += F.W;
        const k = t[m]!;
        if (m >= last || t[m + F.KEY] !== ids[c] || k === Kind.STRX || k > Kind.NULL) break;
        const from = o;
        const end = k === Kind.NULL ? 0 : t[m + F.END]!;
        let comma = false;
        for (let p = t[m + F.START]!; p < end; p++) {
          const x = b[p]!;
          if (x === 44) comma = true;
          buf[o++] = x;
        }
        m += F.W;
        // Without escapes a string holds no quote, CR, LF (nor TSV's backslash, tab): only a comma needs quotes.
        if (comma && csv) {
          buf.copyWithin(from + 1, from, o);
          buf[from] = 34;
          buf[o + 1] = 34;
          o += 2;
        }
      }
      if (c === n && m === last && (n > 1 || o > line)) {
        buf[o++] = 10;
        out.n = o;
        continue;
      }
    }
    // Any other row as its object: {...lead, ...row}.
    exact = false;
    out.n = line;
    const row = batch.object(r, lead?.row);
    for (let c = 0; c < n; c++) {
      if (c > 0) out.byte(sep);
      out.text(cell(cellText(valueAt(row, columns[c]!.path))));
    }
    // A lone empty cell would be a blank line, which CSV readers skip: quote it.
    if (csv && n === 1 && out.n === line) out.text('""');
    out.byte(10);
  }
  return exact;
}

let fast: FastRows | undefined;

/**
 * The usual rows (their leaves the columns in order, no lead) written by fast-rows.wat over a copy of
 * the batch's bytes and tape: `lines(out, r)` writes rows from `r` on and gives the first it did not.
 */
function linesOf(batch: RowBatch, ids: Int32Array, sep: number) {
  const { b, tape: t, at } = batch;
  fast ??= loadFast();
  const w = fast;
  const first = at[0]!;
  const entries = t[at[at.length - 1]! + F.NEXT]! - first;
  const from = t[first + F.START]!;
  const bytes = t[at[at.length - 1]! + F.END]! - from;
  const rowsAt = 4 * entries;
  const idsAt = rowsAt + 4 * at.length;
  const bodyAt = idsAt + 4 * ids.length;
  const outAt = (bodyAt + bytes + 7) & ~7;
  const grow = outAt + bytes + at.length * (3 * ids.length + 1) - w.memory.buffer.byteLength;
  if (grow > 0) w.memory.grow(Math.ceil(grow / 65536));
  const memory = w.memory.buffer;
  new Int32Array(memory, 0, entries).set(t.subarray(first, first + entries));
  new Int32Array(memory, rowsAt, at.length).set(at);
  new Int32Array(memory, idsAt, ids.length).set(ids);
  new Uint8Array(memory).set(b.subarray(from, from + bytes), bodyAt);
  return (out: Bytes, r: number): number => {
    const done = w.delimited(
      rowsAt + 4 * r,
      at.length - r,
      -4 * first,
      bodyAt - from,
      idsAt,
      ids.length,
      sep,
      outAt,
    );
    const end = w.end.value;
    out.room(end - outAt);
    out.buf.set(new Uint8Array(memory, outAt, end - outAt), out.n);
    out.n += end - outAt;
    return r + done;
  };
}
