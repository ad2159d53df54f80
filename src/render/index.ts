/**
 * Rows → text in one of the five formats. Pure: no I/O; what the user should know besides the data
 * comes back as `notes` for stderr.
 */

import type { ReportFormat, ReportType, Row } from '../domain.js';
import {
  type Column,
  columnOf,
  columnsFor,
  orderColumns,
  PORTFOLIO_COLUMN,
  selectFields,
} from './columns.js';
import { csvCell, renderDelimited, tsvCell } from './delimited.js';
import { type Alloc, emitDelimited, emitRows, jsonFields, jsonRows } from './direct.js';
import { project, renderJson, renderNdjson } from './json.js';
import { renderTable } from './table.js';
import { scanReport } from './tape.js';
import { createWriter, type RowWriter } from './writer.js';

export interface RenderRequest {
  type: ReportType;
  format: ReportFormat;
  /** Rows in output order; with several portfolios each already starts with `portfolioId`. */
  rows: readonly Row[];
  /** --fields: columns to keep, in this order. */
  fields?: readonly string[];
  /** Several portfolios: `portfolioId` leads (also in the header of an empty CSV). */
  multi: boolean;
  /** Colour the table header. */
  color: boolean;
  /** Output goes to a terminal: JSON is indented, the table fitted to `width`. */
  terminal: boolean;
  width: number;
}

export interface Rendered {
  text: string;
  notes: string[];
}

/** The columns for the format and --fields (an unknown field is a UsageError, decided on the data). */
export function columnsOf(
  r: Pick<RenderRequest, 'type' | 'rows' | 'fields' | 'multi'>,
  order: 'spec' | 'seen',
): Column[] {
  const all = columnsFor(r.type, r.rows, order, r.multi);
  if (!r.fields) return all;
  // Without rows there is nothing to check the names against: keep them as asked.
  const picked = r.rows.length === 0 ? r.fields.map(columnOf) : selectFields(all, r.fields, r.type);
  // With several portfolios every row starts with portfolioId (CLI.md), unless --fields places it.
  return r.multi && !picked.some((c) => c.name === PORTFOLIO_COLUMN)
    ? [columnOf(PORTFOLIO_COLUMN), ...picked]
    : picked;
}

export function render(r: RenderRequest): Rendered {
  switch (r.format) {
    case 'json':
    case 'ndjson': {
      const rows = r.fields ? project(r.rows, columnsOf(r, 'seen')) : r.rows;
      return { text: r.format === 'json' ? renderJson(rows, r.terminal) : renderNdjson(rows), notes: [] };
    }
    case 'csv':
    case 'tsv':
      return { text: renderDelimited(r.rows, columnsOf(r, 'seen'), r.format), notes: [] };
    case 'table': {
      if (r.rows.length === 0) return { text: '', notes: [] };
      return renderTable(r.rows, columnsOf(r, 'spec'), {
        color: r.color,
        width: r.terminal ? r.width : undefined,
        type: r.type,
        picked: r.fields !== undefined,
      });
    }
  }
}

/** A report's output settings: render()'s, without the rows. */
export type ReportWriterOptions = Omit<RenderRequest, 'rows'> & {
  /** CSV/TSV into a file: the header is every answer's columns (writer.ts `union`). */
  union?: boolean;
};

/** The writer for a report's rows (writer.ts) in these settings: the report's columns, --fields, the table. */
export function reportWriter(r: ReportWriterOptions): RowWriter {
  const pick = (rows: readonly Row[], order: 'seen' | 'spec') =>
    columnsOf({ type: r.type, rows, fields: r.fields, multi: r.multi }, order);
  return createWriter({
    format: r.format,
    columns: pick,
    emptyColumns: () => pick([], 'seen'),
    project: r.fields !== undefined,
    indent: r.terminal,
    union: r.union && !r.fields,
    table: (rows, columns) =>
      renderTable(rows, columns, {
        color: r.color,
        width: r.terminal ? r.width : undefined,
        type: r.type,
        picked: r.fields !== undefined,
      }),
  });
}

/** The formats renderDirect may answer: JSON only where it is compact (not to a terminal). */
export type DirectFormat = 'csv' | 'tsv' | 'json' | 'ndjson';

/** What renderDirect made of a body: CSV/TSV with their header line first (`header`, its text). */
export interface DirectRendered {
  bytes: Buffer;
  rows: number;
  /** CSV/TSV: the columns printed, and the header line (without its newline). */
  columns?: Column[];
  header?: string;
  /** CSV/TSV with fixed `columns`: the body's columns that are not among them (left out). */
  extra?: string[];
}

/**
 * CSV, TSV, compact JSON or NDJSON straight from the body of one report answer, without parsing it
 * into rows (direct.ts): the same bytes render() would give for its rows. Undefined when the body is
 * outside the direct path's shape (or has no rows); the caller then parses it and calls render().
 * `columns` fixes the CSV/TSV columns (a later answer of a run prints under the first one's header).
 * With `reuse` the output may be written into the body's own memory.
 */
export function renderDirect(
  body: Buffer,
  r: Pick<RenderRequest, 'type' | 'fields'> & {
    format: DirectFormat;
    columns?: readonly Column[];
    /** The body is not needed afterwards: its memory may hold the output. */
    reuse?: boolean;
    /** Where the output goes (default: a new buffer). */
    alloc?: Alloc;
    /** Several portfolios: each row led by this `portfolioId` (JSON/NDJSON; else undefined). */
    portfolioId?: number;
  },
): DirectRendered | undefined {
  const json = r.format === 'json' || r.format === 'ndjson';
  if (json && !r.fields) return jsonRows(body, r.format === 'ndjson', r.reuse, r.alloc, r.portfolioId);
  if (r.portfolioId !== undefined) return undefined;
  const csv = r.format === 'csv';
  const delimited = csv ? 'csv' : 'tsv';
  const headerOf = (columns: readonly Column[]) =>
    columns.map((c) => (csv ? csvCell(c.name) : tsvCell(c.name))).join(csv ? ',' : '\t');
  if (!r.fields && !json) {
    // The usual answer, in one pass, when the columns print in the order the rows have them.
    let columns: Column[] | undefined;
    const one = emitRows(
      body,
      delimited,
      (names) => {
        columns = r.columns ? [...r.columns] : orderColumns(r.type, names.map(columnOf), 'seen');
        const same = columns.length === names.length && columns.every((c, i) => c.name === names[i]);
        return same ? headerOf(columns) : undefined;
      },
      r.alloc,
    );
    if (one && columns) return { ...one, columns, header: headerOf(columns), extra: [] };
  }
  const scan = scanReport(body);
  if (!scan) return undefined;
  let columns: Column[];
  if (r.columns) columns = [...r.columns];
  else {
    const all = orderColumns(r.type, scan.columns.map(columnOf), 'seen');
    columns = r.fields ? selectFields(all, r.fields, r.type) : all;
  }
  const index = new Map(scan.columns.map((name, i) => [name, i]));
  const pick = Int32Array.from(columns, (c) => index.get(c.name) ?? -1);
  if (json) {
    // --fields: each row reduced to the chosen columns (project), straight from the tape.
    const names = columns.map((c) => c.name);
    return { bytes: jsonFields(scan, pick, names, r.format === 'ndjson', r.alloc), rows: scan.rows, columns };
  }
  const header = headerOf(columns);
  const printed = new Set(columns.map((c) => c.name));
  return {
    bytes: emitDelimited(scan, pick, header, delimited, r.alloc),
    rows: scan.rows,
    columns,
    header,
    extra: scan.columns.filter((name) => !printed.has(name)),
  };
}
