/**
 * CSV and TSV. One big string built from array joins (a line is one join of its cells: concatenating
 * cell by cell builds string trees that cost more to flatten); a cell is checked with one regex test,
 * so the common cell (no special character) costs no copy.
 *
 * CSV: RFC 4180 quoting: a cell holding `,`, `"`, CR or LF is quoted, its quotes doubled. Records end
 * with LF (as jq's @csv and most Unix tools write; RFC 4180 parsers accept it), so the only CR in the
 * output is inside a quoted cell.
 * TSV: there is no quoting in TSV, so a cell escapes backslash, tab, LF and CR as `\\`, `\t`, `\n`, `\r`
 * — the convention of jq's @tsv and PostgreSQL's text format: lossless, and `cut -f` still works.
 */

import type { Row } from '../domain.js';
import { type Column, cellText, own, valueAt } from './columns.js';

const CSV_SPECIAL = /[",\n\r]/;

/** One CSV cell, quoted only when needed. */
export function csvCell(s: string): string {
  return CSV_SPECIAL.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

const TSV_SPECIAL = /[\\\t\n\r]/;

/** One TSV cell, with backslash, tab, LF and CR escaped. */
export function tsvCell(s: string): string {
  return TSV_SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (m) => TSV_ESCAPES[m]) : s;
}

/** The header line of `columns` (without its newline). */
export function delimitedHeader(columns: readonly Column[], kind: 'csv' | 'tsv'): string {
  const cell = kind === 'csv' ? csvCell : tsvCell;
  return columns.map((c) => cell(c.name)).join(kind === 'csv' ? ',' : '\t');
}

/** One line per row, each ending with a newline; absent and null values are empty cells. */
export function delimitedLines(
  rows: readonly Row[],
  columns: readonly Column[],
  kind: 'csv' | 'tsv',
): string {
  if (rows.length === 0) return '';
  const cell = kind === 'csv' ? csvCell : tsvCell;
  const sep = kind === 'csv' ? ',' : '\t';
  const lines = new Array<string>(rows.length);
  const n = columns.length;
  const flat = columns.every((c) => c.path.length === 1);
  const keys = columns.map((c) => c.path[0]!);
  const cells = new Array<string>(n);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let i = 0; i < n; i++) {
      const v = flat ? own(row, keys[i]!) : valueAt(row, columns[i]!.path);
      // Strings and numbers first, without the general cellText; numbers never need quoting.
      cells[i] = typeof v === 'string' ? cell(v) : typeof v === 'number' ? String(v) : cell(cellText(v));
    }
    const line = cells.join(sep);
    // A lone empty cell would be a blank line, which CSV readers skip: quote it.
    lines[r] = line === '' && n === 1 && kind === 'csv' ? '""' : line;
  }
  return `${lines.join('\n')}\n`;
}

/** A header line, then one line per row. Ends with a newline. */
export function renderDelimited(
  rows: readonly Row[],
  columns: readonly Column[],
  kind: 'csv' | 'tsv',
): string {
  return `${delimitedHeader(columns, kind)}\n${delimitedLines(rows, columns, kind)}`;
}
