/**
 * CSV (RFC 4180 quoting, records end with LF as jq's @csv) and TSV (backslash, tab, LF and CR escaped,
 * as jq's @tsv and PostgreSQL's text format), from the rows' bytes where they can be copied.
 */
import type { Row } from '../domain.js';
import { entryValue, F, Flag, Kind, keys, MAX_KEYS, type RowBatch } from '../rows/tape.js';
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

// Per row: the entry of each key id it has, stamped with the row's serial; the entry of each column.
const slot = new Int32Array(MAX_KEYS);
const seen = new Int32Array(MAX_KEYS);
let rowSerial = 0;
let cellAt = new Int32Array(64);

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
  const leadCells = columns.map((c) =>
    lead && c.path.length === 1 && Object.hasOwn(lead.row, c.name)
      ? cell(cellText(lead.row[c.name]))
      : undefined,
  );
  if (cellAt.length < n) cellAt = new Int32Array(n);
  let exact = true;
  for (let r = 0; r < at.length; r++) {
    const e = at[r]!;
    const line = out.n;
    const last = t[e + F.NEXT]!;
    // The usual row, in one loop: its leaves are the columns in order, each copied as it came.
    if (!(t[e + F.FLAGS]! & Flag.ODD)) {
      out.room(t[e + F.END]! - t[e + F.START]! + 3 * n + 1);
      const buf = out.buf;
      let o = line;
      let m = e + F.W;
      let c = 0;
      for (; c < n; c++, m += F.W) {
        while (m < last && t[m] === Kind.OBJ && t[m + F.NEXT] !== m + F.W) m += F.W;
        const k = t[m]!;
        if (m >= last || t[m + F.KEY] !== ids[c] || k === Kind.STRX || k > Kind.NULL) break;
        if (c > 0) buf[o++] = sep;
        if (k === Kind.NULL) continue;
        const from = o;
        let comma = false;
        for (let p = t[m + F.START]!, end = t[m + F.END]!; p < end; p++) {
          const x = b[p]!;
          if (x === 44) comma = true;
          buf[o++] = x;
        }
        // Without escapes a string holds no quote, CR, LF (nor TSV's backslash, tab): only a comma needs quotes.
        if (comma && csv) {
          buf.copyWithin(from + 1, from, o);
          buf[from] = 34;
          buf[o + 1] = 34;
          o += 2;
        }
      }
      if (c === n && (n > 1 || o > line)) {
        if (m < last) exact = false;
        buf[o++] = 10;
        out.n = o;
        continue;
      }
    }
    exact = false;
    out.n = line;
    if (t[e + F.FLAGS]! & Flag.ODD) {
      const row = batch.object(r, lead?.row);
      for (let c = 0; c < n; c++) {
        if (c > 0) out.byte(sep);
        out.text(cell(cellText(valueAt(row, columns[c]!.path))));
      }
    } else {
      columnEntries(t, e, ids);
      for (let c = 0; c < n; c++) {
        if (c > 0) out.byte(sep);
        if (cellAt[c]! >= 0) entryCell(out, b, t, cellAt[c]!, csv);
        else if (leadCells[c] !== undefined) out.text(leadCells[c]!);
      }
    }
    // A lone empty cell would be a blank line, which CSV readers skip: quote it.
    if (csv && n === 1 && out.n === line) out.text('""');
    out.byte(10);
  }
  return exact;
}

function columnEntries(t: Int32Array, e: number, ids: Int32Array): void {
  const last = t[e + F.NEXT]!;
  const mine = ++rowSerial;
  for (let m = e + F.W; m < last; m = t[m] === Kind.ARR ? t[m + F.NEXT]! : m + F.W) {
    const k = t[m + F.KEY]!;
    seen[k] = mine;
    slot[k] = m;
  }
  for (let c = 0; c < ids.length; c++)
    cellAt[c] = ids[c]! >= 0 && seen[ids[c]!] === mine ? slot[ids[c]!]! : -1;
}

/** A number, a string without escapes or a literal is copied as it came. */
function entryCell(out: Bytes, b: Buffer, t: Int32Array, e: number, csv: boolean): void {
  const kind = t[e]!;
  if (kind > Kind.FALSE || kind === Kind.STRX) {
    if (kind !== Kind.NULL) out.text((csv ? csvCell : tsvCell)(cellText(entryValue(b, t, e))));
    return;
  }
  out.copy(b, t[e + F.START]!, t[e + F.END]!);
  // Without escapes a string holds no quote, CR, LF (nor TSV's backslash, tab): only a comma needs quotes.
  if (csv && b.subarray(t[e + F.START]!, t[e + F.END]!).includes(44)) {
    const from = out.n - (t[e + F.END]! - t[e + F.START]!);
    out.room(2);
    out.buf.copyWithin(from + 1, from, out.n);
    out.buf[from] = 34;
    out.buf[out.n + 1] = 34;
    out.n += 2;
  }
}
