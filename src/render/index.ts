import type { ReportFormat, ReportType, Row } from '../domain.js';
import { type Column, columnOf, columnsFor, PORTFOLIO_COLUMN, selectFields } from './columns.js';
import { renderTable } from './table.js';
import { createWriter, type RowWriter } from './writer.js';

export interface ReportWriterOptions {
  type: ReportType;
  format: ReportFormat;
  fields?: readonly string[];
  /** Several portfolios: `portfolioId` leads. */
  multi: boolean;
  color: boolean;
  /** JSON is indented, the table fitted to `width`. */
  terminal: boolean;
  width: number;
  /** CSV/TSV into a file: the header is every answer's columns. */
  union?: boolean;
}

/** An unknown --fields name is a UsageError, decided on the data. */
export function columnsOf(
  r: Pick<ReportWriterOptions, 'type' | 'fields' | 'multi'> & { rows: readonly Row[] },
  order: 'spec' | 'seen',
): Column[] {
  const all = columnsFor(r.type, r.rows, order, r.multi);
  if (!r.fields) return all;
  const picked = r.rows.length === 0 ? r.fields.map(columnOf) : selectFields(all, r.fields, r.type);
  // With several portfolios every row starts with portfolioId (CLI.md), unless --fields places it.
  return r.multi && !picked.some((c) => c.name === PORTFOLIO_COLUMN)
    ? [columnOf(PORTFOLIO_COLUMN), ...picked]
    : picked;
}

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
