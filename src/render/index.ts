/**
 * Rows → text in one of the five formats. Pure: no I/O; what the user should know besides the data
 * comes back as `notes` for stderr.
 */
import type { ReportFormat, ReportType } from '../input.js';
import type { Row } from '../service/types.js';
import { type Column, columnOf, columnsFor, PORTFOLIO_COLUMN, selectFields } from './columns.js';
import { renderDelimited } from './delimited.js';
import { project, renderJson, renderNdjson } from './json.js';
import { renderTable } from './table.js';

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
      });
    }
  }
}
